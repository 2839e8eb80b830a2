"""One entry point for all clip file formats, chosen by file extension.

====================  ==========================  ======================================
extension             format                      clips per file
====================  ==========================  ======================================
``.bin``              FlatBuffers (``binfmt``)    any number
``.json``             JSON mirror (``jsonfmt``)   any number
``.cozanim``          text keyframes (``textfmt``) exactly one
====================  ==========================  ======================================

``cozmo-brain anim convert IN OUT`` calls :func:`convert`. Because a text file holds one
clip, converting a multi-clip file to text needs OUT to be a directory (existing, or a
path without the ``.cozanim`` extension, which is created): one ``<clip name>.cozanim`` is
written there per clip. A one-clip file may also be converted to a single ``.cozanim``
file. Converting a directory of text files (IN a directory) into one .bin or .json
collects every ``*.cozanim`` in it, sorted by file name.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from . import binfmt, binwrite, jsonfmt, textfmt
from .clip import AnimationError, Clip

__all__ = [
    "TEXT_SUFFIX",
    "ConvertError",
    "convert",
    "is_clip_file",
    "load_clips",
    "save_clips",
    "scan_names",
]

log = logging.getLogger(__name__)

TEXT_SUFFIX = textfmt.SUFFIX
_SUFFIXES = (".bin", ".json", TEXT_SUFFIX)


class ConvertError(AnimationError):
    """A conversion request that cannot be carried out (unknown extension, bad target)."""


def _kind(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in _SUFFIXES:
        raise ConvertError(
            f"{path}: unknown animation file extension {suffix or '(none)'!r}; expected one of " + ", ".join(_SUFFIXES)
        )
    return suffix


def is_clip_file(path: Path) -> bool:
    """Whether ``path`` has an extension of a clip format (the index's file filter)."""
    return path.suffix.lower() in _SUFFIXES


def scan_names(path: Path) -> list[str]:
    """The clip names a file defines, as cheaply as its format allows.

    .bin: clip table headers only; .json: the ``Name`` of each clip (files without a
    top-level ``clips`` list are not animation files and give ``[]``); text: the ``name``
    option or the file name. Raises the format's ``AnimationError`` subclass.
    """
    kind = _kind(path)
    if kind == ".bin":
        return binfmt.scan_clip_names(path)
    if kind == ".json":
        return jsonfmt.scan_json_clip_names(path)
    return [textfmt.scan_text_clip_name(path)]


def load_clips(path: Path | str) -> list[Clip]:
    """Read every clip of a file in any supported format (or of a directory of text files)."""
    path = Path(path)
    if path.is_dir():
        return [textfmt.read_text_file(p) for p in sorted(path.glob("*" + TEXT_SUFFIX))]
    kind = _kind(path)
    if kind == ".bin":
        return binfmt.read_bin(path)
    if kind == ".json":
        return jsonfmt.read_json_file(path)
    return [textfmt.read_text_file(path)]


def save_clips(clips: Sequence[Clip], path: Path | str) -> list[Path]:
    """Write clips in the format ``path``'s extension names; return the files written.

    For the text format: with one clip and a ``.cozanim`` path, that file; otherwise
    ``path`` is a directory (created if needed) receiving one ``<name>.cozanim`` per clip.
    """
    path = Path(path)
    clips = list(clips)
    if path.is_dir() or not path.suffix:
        return _save_text_dir(clips, path)
    kind = _kind(path)
    if kind == ".bin":
        binwrite.write_bin_file(clips, path)
        return [path]
    if kind == ".json":
        jsonfmt.write_json_file(clips, path)
        return [path]
    if len(clips) != 1:
        raise ConvertError(
            f"{path}: the text format holds exactly one clip, got {len(clips)}; "
            "give a directory to write one file per clip"
        )
    textfmt.write_text_file(clips[0], path)
    return [path]


def _save_text_dir(clips: Iterable[Clip], directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for clip in clips:
        target = directory / (textfmt.safe_file_stem(clip.name) + TEXT_SUFFIX)
        textfmt.write_text_file(clip, target)
        written.append(target)
    return written


def convert(in_path: str | os.PathLike, out_path: str | os.PathLike) -> int:
    """``cozmo-brain anim convert IN OUT``: 0 on success, 1 with a logged error otherwise."""
    src, dst = Path(in_path), Path(out_path)
    try:
        clips = load_clips(src)
        if not clips:
            raise ConvertError(f"{src}: no animation clips found")
        for clip in clips:
            for warning in clip.warnings():
                log.warning("%s: %s (kept as written)", src, warning)
        written = save_clips(clips, dst)
    except AnimationError as exc:
        log.error("%s", exc)
        return 1
    except OSError as exc:
        log.error("cannot write %s: %s", exc.filename or dst, exc.strerror or exc)
        return 1
    log.info("converted %d clip(s) from %s into %s", len(clips), src, ", ".join(map(str, written[:5])))
    return 0
