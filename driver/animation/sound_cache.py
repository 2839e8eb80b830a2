"""Converted sounds kept on disk, so a daemon's start does not resample every sound again.

Converting a resource tree's sounds to the robot's µ-law frames at every pitch the mood can give
the voice is most of a daemon's start-up work (some 300 resamplings: 0.8 s of CPU here, several
seconds on a small computer), and gives the same frames every time. :class:`SoundCache` keeps
them in a folder, one file per sound and pitch, named by a hash of everything the frames depend
on: the WAV file's bytes, the pitch, and the converter itself (the source of
:mod:`driver.animation.audio`, so a changed converter never reads an old conversion). A file that
is missing, unreadable or not whole frames is converted again; a folder that cannot be written
leaves the sounds converted in memory as before. Files are written under a temporary name and
renamed, so daemons starting side by side never read half a file.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from ..cache_folder import default_cache_folder, write_whole

__all__ = ["SoundCache", "default_sound_cache"]

log = logging.getLogger(__name__)

#: File name suffix of a cached conversion (raw µ-law bytes, whole frames).
SUFFIX = ".ulaw"


def default_sound_cache(environ: dict[str, str] | None = None) -> Path:
    """Where a daemon keeps converted sounds unless told otherwise: ``sounds`` in the cache folder
    (:func:`driver.cache_folder.default_cache_folder`: systemd's ``CACHE_DIRECTORY`` when the unit
    sets one, else ``$XDG_CACHE_HOME/cozmo-brain``, ``~/.cache`` when unset)."""
    return default_cache_folder(environ) / "sounds"


class SoundCache:
    """Converted sounds in ``folder`` (see the module docstring); ``get`` and ``put`` by :meth:`key`."""

    def __init__(self, folder: Path) -> None:
        from . import audio  # here: the config reads default_sound_cache without numpy

        self.folder = Path(folder)
        self._frame_size = audio.SAMPLES_PER_FRAME
        digest = hashlib.blake2b(digest_size=16)
        digest.update(Path(audio.__file__).read_bytes())
        digest.update(f"{audio.SAMPLE_RATE}/{audio.SAMPLES_PER_FRAME}".encode())
        self._converter = digest.digest()
        self._writable = True
        #: conversions read from the folder and written to it by this instance
        self.hits = 0
        self.writes = 0

    def key(self, wav: bytes, pitch: float) -> str:
        """The name of the conversion of the WAV file ``wav`` (its bytes) at ``pitch`` semitones."""
        digest = hashlib.blake2b(self._converter, digest_size=20)
        digest.update(repr(float(pitch)).encode())
        digest.update(wav)
        return digest.hexdigest()

    @property
    def writable(self) -> bool:
        """False once a write failed: what is not kept already is converted at every start."""
        return self._writable

    def has(self, key: str) -> bool:
        """Whether a whole conversion is kept under ``key`` (counted as a hit: it will be read)."""
        try:
            size = (self.folder / (key + SUFFIX)).stat().st_size
        except OSError:
            return False
        if not size or size % self._frame_size:
            return False
        self.hits += 1
        return True

    def get(self, key: str) -> list[bytes] | None:
        """The frames kept under ``key``, or None (not kept, unreadable, or not whole frames)."""
        try:
            data = (self.folder / (key + SUFFIX)).read_bytes()
        except OSError:
            return None
        size = self._frame_size
        if not data or len(data) % size:
            log.debug("sound cache: %s%s is not whole frames; converting again", key, SUFFIX)
            return None
        self.hits += 1
        return [data[i : i + size] for i in range(0, len(data), size)]

    def put(self, key: str, frames: list[bytes]) -> None:
        """Keep ``frames`` under ``key`` (quietly not, once the folder proved unwritable)."""
        if not self._writable or not frames:
            return
        data = b"".join(frames)
        try:
            write_whole(self.folder / (key + SUFFIX), lambda tmp: tmp.write_bytes(data))
            self.writes += 1
        except OSError as exc:
            self._writable = False
            log.info("sound cache: cannot write %s (%s); sounds are converted at every start", self.folder, exc)
