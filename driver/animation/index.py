"""A lazy index of every animation clip under a set of resource roots.

The Cozmo app ships about 2,000 clips in several hundred .bin files. Decoding all of them
at start-up costs seconds and memory that a personality never uses (it plays a few dozen),
so :meth:`ClipIndex.build` only reads clip *names* (see
:func:`driver.animation.binfmt.scan_clip_names`) and remembers where each one lives. A
clip is decoded the first time :meth:`ClipIndex.get` asks for it and cached: of a .bin file
only that clip (the app packs up to a dozen in a file, and a clip is first asked for while the
robot plays, where reading them all would hold the event loop for frames), of the other formats
the whole file.

Bad files never stop the index: a file that cannot be scanned is skipped and recorded in
:attr:`ClipIndex.errors` (and logged once); a file that scans but fails to decode is
recorded when it is first used. When two files define the same clip name, the first one
found wins (roots in the order given, files in sorted path order) and the clash is
recorded in :attr:`ClipIndex.duplicates`.

One exception: a clip's editable text source (``.cozanim``) and its build (a ``.bin`` or
``.json`` made from it, as ``tools/build_resources.py`` does for ``resources/src/``) in the
same root are one clip, not a clash. The build is used, wherever it sits in the walk order:
it is the app's own format, and the build tool's ``--check`` keeps it in step with the source.
Such pairs are counted in :attr:`ClipIndex.sources_with_build`.

Building is on the start-up path of every robot, so it stays lean: directories are listed
with ``os.scandir``, files are handled as strings (a :class:`~pathlib.Path` is made only
when a caller asks for a location or an error), and .bin files go straight to the
FlatBuffers name scan.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from . import binfmt, convert
from .clip import AnimationError, Clip

__all__ = ["ClipIndex", "ClipLocation", "Duplicate", "UnknownClipError"]

log = logging.getLogger(__name__)

#: Log a progress line every this many files while building.
PROGRESS_EVERY = 250
#: File extensions of the clip formats (see :mod:`driver.animation.convert`).
_SUFFIXES = (".bin", ".json", convert.TEXT_SUFFIX)


class UnknownClipError(AnimationError, KeyError):
    """No indexed file defines a clip of this name."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else "unknown clip"


@dataclass(frozen=True, slots=True)
class ClipLocation:
    """Where a clip lives: its file and its position among that file's clips."""

    file: Path
    position: int


@dataclass(frozen=True, slots=True)
class Duplicate:
    """A clip name defined again in a later file; ``kept`` is the one the index uses."""

    name: str
    kept: Path
    ignored: Path


class ClipIndex:
    """Clip name -> location, with clips decoded on first use and cached.

    Not a global: each robot (or test) builds its own. Safe to call :meth:`get` from
    several threads (decoding is serialised per index).
    """

    def __init__(self) -> None:
        # name -> (file, position); files are kept as strings, see location().
        self._locations: dict[str, tuple[str, int]] = {}
        # file -> its clips decoded so far (a whole file's, except for .bin files)
        self._cache: dict[str, dict[str, Clip]] = {}
        # file (and position, for a .bin file's clip) -> why it failed to decode
        self._failed: dict[tuple[str, int], AnimationError] = {}
        self._done: set[tuple[str, int]] = set()
        self._lock = threading.Lock()
        #: (file, reason) for every file that could not be scanned or decoded.
        self.errors: list[tuple[Path, str]] = []
        #: Clip names defined more than once; the first definition wins.
        self.duplicates: list[Duplicate] = []
        #: Clips whose text source and build were both found in one root (one clip: the build is used).
        self.sources_with_build = 0
        # file -> number of the root it was found under, while building (tells a source/build pair from a clash)
        self._root_of: dict[str, int] = {}
        #: How many files were scanned by :meth:`build`.
        self.files_scanned = 0
        #: How many files have had clips decoded (each decoded at most once): 0 right after build.
        self.files_decoded = 0
        #: How long :meth:`build` took, in seconds.
        self.build_seconds = 0.0

    # -- building

    @classmethod
    def build(cls, roots: Iterable[Path | str]) -> ClipIndex:
        """Scan ``roots`` (directories or single files) for clip files and index their names.

        Recognised files: ``*.bin`` (FlatBuffers), ``*.json`` (the JSON mirror of the
        .bin; other JSON files, without a top-level ``clips`` list, are ignored) and the
        text format (see :mod:`driver.animation.convert` for the extension).
        """
        index = cls()
        started = time.perf_counter()
        files: list[str] = []
        for root_no, root in enumerate(roots):
            root_s = os.fspath(root)
            if not os.path.exists(root_s):
                index.errors.append((Path(root_s), "no such file or directory"))
                log.warning("animation root %s does not exist", root_s)
                continue
            found = _clip_files(root_s)
            index._root_of.update(dict.fromkeys(found, root_no))
            files.extend(found)
        total = len(files)
        for n, path in enumerate(files, 1):
            index._add_file(path)
            if total >= PROGRESS_EVERY and n % PROGRESS_EVERY == 0:
                log.info("clip index: %d/%d files, %d clips", n, total, len(index._locations))
        index._root_of.clear()  # only needed while building
        index.files_scanned = total
        index.build_seconds = time.perf_counter() - started
        log.info(
            "clip index: %d clips in %d files (%d unreadable, %d duplicate names, %d sources beside their build) "
            "in %.0f ms",
            len(index._locations),
            total,
            len(index.errors),
            len(index.duplicates),
            index.sources_with_build,
            index.build_seconds * 1000,
        )
        return index

    def _add_file(self, path: str) -> None:
        try:
            if path[-4:].lower() == ".bin":
                names = binfmt.scan_clip_names(path)
            else:
                names = convert.scan_names(Path(path))
        except AnimationError as exc:
            self._record_error(path, exc)
            return
        locations = self._locations
        for position, name in enumerate(names):
            known = locations.get(name)
            if known is not None:
                if self._source_and_build(known[0], path):
                    self.sources_with_build += 1
                    if _is_source(known[0]):  # the build replaces its source
                        locations[name] = (path, position)
                    continue
                self.duplicates.append(Duplicate(name, Path(known[0]), Path(path)))
                log.warning("clip %r in %s is already defined in %s; ignored", name, path, known[0])
                continue
            locations[name] = (path, position)

    def _source_and_build(self, first: str, second: str) -> bool:
        """Whether two files defining one clip are its text source and its build, in the same root."""
        return _is_source(first) != _is_source(second) and self._root_of.get(first) == self._root_of.get(second)

    def _record_error(self, path: str, exc: AnimationError) -> None:
        reason = getattr(exc, "reason", None) or str(exc)
        self.errors.append((Path(path), reason))
        log.warning("skipping animation file %s: %s", path, reason)

    # -- queries

    def __contains__(self, name: object) -> bool:
        return name in self._locations

    def __len__(self) -> int:
        return len(self._locations)

    def __iter__(self) -> Iterator[str]:
        return iter(self._locations)

    def names(self) -> list[str]:
        """All indexed clip names, sorted."""
        return sorted(self._locations)

    def location(self, name: str) -> ClipLocation:
        """Where clip ``name`` lives (no decoding)."""
        try:
            file, position = self._locations[name]
        except KeyError:
            raise UnknownClipError(f"no animation clip named {name!r}") from None
        return ClipLocation(Path(file), position)

    def is_loaded(self, name: str) -> bool:
        """Whether ``name`` has been decoded already."""
        loc = self._locations.get(name)
        return loc is not None and name in self._cache.get(loc[0], ())

    def get(self, name: str) -> Clip:
        """The clip called ``name``, decoding its file on first use.

        Raises :class:`UnknownClipError` for a name no file defines, and the file
        format's error (a subclass of ``AnimationError``) when the file fails to decode.
        """
        try:
            file, position = self._locations[name]
        except KeyError:
            raise UnknownClipError(f"no animation clip named {name!r}") from None
        clips = self._cache.get(file)
        clip = clips.get(name) if clips is not None else None
        if clip is None:
            clip = self._decode(file, position).get(name)
        if clip is None:  # the file changed on disk since the scan
            raise UnknownClipError(f"{file} no longer defines a clip named {name!r}")
        return clip

    def _decode(self, path: str, position: int) -> dict[str, Clip]:
        """Decode the clip at ``position`` of a .bin file, or a whole file of another format;
        return the file's clips decoded so far."""
        single = path[-4:].lower() == ".bin"
        key = (path, position if single else -1)
        with self._lock:
            if key in self._done:  # another thread decoded it meanwhile
                return self._cache[path]
            failed = self._failed.get(key)
            if failed is not None:
                raise failed
            try:
                if single:
                    one = binfmt.read_bin_clip(path, position)
                    clips = [one] if one is not None else []
                else:
                    clips = convert.load_clips(Path(path))
            except AnimationError as exc:
                self._failed[key] = exc
                self._record_error(path, exc)
                raise
            self._done.add(key)
            by_name = self._cache.get(path)
            if by_name is None:
                self.files_decoded += 1
                by_name = self._cache[path] = {}
            for clip in clips:
                by_name.setdefault(clip.name, clip)
            return by_name


def _clip_files(root: str) -> list[str]:
    """Clip files under ``root`` in a stable order: each folder's files sorted, then its sub-folders.

    Symbolic links to folders are not followed (as ``os.walk`` does by default).
    """
    if not os.path.isdir(root):
        return [root] if _is_clip_name(root) else []
    found: list[str] = []
    _walk(root, found)
    return found


def _walk(directory: str, found: list[str]) -> None:
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError as exc:
        log.warning("cannot list %s: %s", directory, exc.strerror or exc)
        return
    subdirs = []
    for entry in entries:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if is_dir:
            if not entry.is_symlink():
                subdirs.append(entry.path)
        elif _is_clip_name(entry.name):
            found.append(entry.path)
    for sub in subdirs:
        _walk(sub, found)


def _is_source(path: str) -> bool:
    """Whether a clip file is an editable text source (rather than a built .bin / .json)."""
    return path[-len(convert.TEXT_SUFFIX):].lower() == convert.TEXT_SUFFIX


def _is_clip_name(name: str) -> bool:
    """Whether a file name has a clip format's extension (as :func:`convert.is_clip_file`)."""
    return os.path.splitext(name)[1].lower() in _SUFFIXES
