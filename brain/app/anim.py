"""``cozmo-brain anim``: list, show, convert and render animation clips.

``list`` and ``show`` look clips up in the roots given with ``--resources`` (exactly those), else in
the roots ``run`` would use (the configured ones, then the packaged set); a clip's editable source
and its built file are one clip. ``list`` with no clip to show says so and exits 1.
``convert`` works on files alone; ``render`` accepts a clip name or a clip file, and writes the
clip's sound beside its pictures when it has one.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from driver.animation.clip import AnimationError

from .config import ConfigError, load_config

log = logging.getLogger(__name__)


def _clip_index(args: argparse.Namespace) -> tuple[Any, list[Path]]:
    """The clip index, and its roots: exactly ``--resources`` if given, else those ``run`` would use."""
    from driver.animation.index import ClipIndex

    roots = load_config(args.config).resource_roots(args.resources, fallback=not args.resources)
    return ClipIndex.build(roots), roots


def _load_clip(args: argparse.Namespace, name: str) -> Any:
    """A clip by file path (first clip of the file) or by name in the resource set."""
    path = Path(name)
    if path.suffix in (".bin", ".json", ".cozanim") and path.exists():
        from driver.animation.convert import load_clips

        clips = load_clips(path)
        if not clips:
            raise AnimationError(f"{path}: holds no clips")
        return clips[0]
    return _clip_index(args)[0].get(name)


def _render_sound(args: argparse.Namespace, clip: Any, wav: Path) -> None:
    """The clip's sound track as a WAV file, its sounds from the same roots as the clips."""
    from driver.animation.preview import render_sound
    from driver.animation.sounds import SoundLibrary

    roots = load_config(args.config).resource_roots(args.resources, fallback=not args.resources)
    if render_sound(clip, SoundLibrary(roots), wav) is not None:
        log.info("wrote %s (its sound)", wav)


def anim_command(args: argparse.Namespace) -> int:
    """Dispatch the ``anim`` actions; returns the exit code."""
    out = sys.stdout
    try:
        if args.anim_command == "convert":
            from driver.animation.convert import convert

            return convert(args.input, args.output)
        if args.anim_command == "list":
            index, roots = _clip_index(args)
            if not len(index):
                log.error("no animation clips found in %s", ", ".join(map(str, roots)) or "any resource root")
                return 1
            for name in index.names():
                out.write(f"{name}\n")
            log.info("%d clips", len(index))
            return 0
        if args.anim_command == "show":
            clip = _load_clip(args, args.name)
            out.write(f"{clip.name}: {clip.duration_ms} ms\n")
            for track in sorted(clip.tracks_used(), key=lambda t: t.attr):
                out.write(f"  {track.attr}: {len(getattr(clip, track.attr))} keyframes\n")
            return 0
        if args.anim_command == "render":
            from driver.animation.preview import render_preview

            clip = _load_clip(args, args.name)
            gif = Path(args.out)
            png = gif.with_suffix(".png")
            render_preview(clip, gif, png)
            log.info("wrote %s and %s", gif, png)
            if clip.robot_audio:
                _render_sound(args, clip, gif.with_suffix(".wav"))
            return 0
    except (AnimationError, KeyError, OSError, ConfigError) as exc:
        log.error("%s", exc if not isinstance(exc, KeyError) else exc.args[0])
        return 1
    return 2
