"""``cozmo-brain anim``: list, show, convert and render animation clips.

``list`` and ``show`` look clips up in the resource set (the configured roots, or ``--resources``);
``convert`` works on files alone; ``render`` accepts a clip name or a clip file.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from driver.animation.clip import AnimationError

log = logging.getLogger(__name__)


def _clip_index(args: argparse.Namespace) -> Any:
    from driver.animation.index import ClipIndex

    from .check import default_roots

    roots = [Path(r) for r in args.resources] if args.resources else default_roots(args.config)
    return ClipIndex.build(roots)


def _load_clip(args: argparse.Namespace, name: str) -> Any:
    """A clip by file path (first clip of the file) or by name in the resource set."""
    path = Path(name)
    if path.suffix in (".bin", ".json", ".cozanim") and path.exists():
        from driver.animation.convert import load_clips

        clips = load_clips(path)
        if not clips:
            raise AnimationError(f"{path}: holds no clips")
        return clips[0]
    return _clip_index(args).get(name)


def anim_command(args: argparse.Namespace) -> int:
    """Dispatch the ``anim`` actions; returns the exit code."""
    out = sys.stdout
    try:
        if args.anim_command == "convert":
            from driver.animation.convert import convert

            return convert(args.input, args.output)
        if args.anim_command == "list":
            index = _clip_index(args)
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
            return 0
    except (AnimationError, KeyError, OSError) as exc:
        log.error("%s", exc if not isinstance(exc, KeyError) else exc.args[0])
        return 1
    return 2
