"""The sounds of a resource tree: a clip's RobotAudio keyframes as µ-law frames, higher or lower.

:class:`SoundLibrary` is the controller's default answer to a clip's RobotAudio keyframes: it
finds WAV files named after the keyframe's audio event ids (or after sound names, whose ids
follow from :func:`~driver.animation.sound_ids.audio_event_id`) under a resource tree's
``sound`` folder and converts them with :mod:`driver.animation.audio`. It can play a sound higher
or lower (:meth:`SoundLibrary.resolve`): the WAV is resampled as if it had been recorded at a
different rate, so pitch and tempo change together, like a tape played faster; that is how a
mood colours the voice.
"""

from __future__ import annotations

import logging
import math
import random
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from . import audio
from .audio import AudioFormatError, int16_scale_to_frames, read_wav, scale_frames
from .roots import ResourceRoots, cozmo_resources_dirs
from .sound_cache import SoundCache
from .sound_ids import audio_event_id, is_sound_name

if TYPE_CHECKING:
    from .clip import RobotAudio

__all__ = ["PITCH_MAX_SEMITONES", "PITCH_STEP_SEMITONES", "PitchedAudioResolver", "SoundLibrary", "pitch_step"]

log = logging.getLogger(__name__)

#: The furthest a sound can be shifted (semitones either way), and the steps a shift is rounded to
#: (so a library keeps a few converted versions of a sound, not one per mood value).
PITCH_MAX_SEMITONES = 4.0
PITCH_STEP_SEMITONES = 0.25




def pitch_step(semitones: float) -> float:
    """A pitch shift as a library plays it: within ±:data:`PITCH_MAX_SEMITONES`, rounded to
    :data:`PITCH_STEP_SEMITONES` (0.0 for anything that is not a finite number)."""
    if not isinstance(semitones, (int, float)) or not math.isfinite(semitones):
        return 0.0
    clamped = max(-PITCH_MAX_SEMITONES, min(PITCH_MAX_SEMITONES, float(semitones)))
    return round(clamped / PITCH_STEP_SEMITONES) * PITCH_STEP_SEMITONES + 0.0


@runtime_checkable
class PitchedAudioResolver(Protocol):
    """An audio resolver that can also play a keyframe's sound higher or lower (the controller
    uses this for a playback's ``pitch_semitones``)."""

    def __call__(self, keyframe: RobotAudio) -> Sequence[bytes] | None:
        """The keyframe's sound as µ-law frames, as authored (None: no sound)."""

    def resolve(self, keyframe: RobotAudio, pitch_semitones: float = 0.0) -> Sequence[bytes] | None:
        """The keyframe's sound shifted by ``pitch_semitones`` (None: no sound)."""


class SoundLibrary:
    """RobotAudio keyframes -> µ-law frames, from WAV files under a resource tree's ``sound`` folder.

    The app's own sounds are Wwise banks, which this project cannot play; a WAV file named after
    an audio event id (``sound/**/<id>.wav``, e.g. ``sound/custom/1234567890.wav``) stands in for
    that event, and so does one named after a sound name (``sound/voice/vo_yawn.wav`` answers the
    id :func:`~driver.animation.sound_ids.audio_event_id` gives ``vo_yawn``). ``roots`` is one
    resource root or several (searched in order, the first file for an id wins). A keyframe
    listing several ids picks one by its ``probability`` weights (seeded by ``seed``), and its
    ``volume`` scales the sound. :meth:`resolve` shifts the pitch (and with it the tempo) by
    resampling. Converted sounds are cached (``cache_size`` of them, keyed by id and pitch step,
    and as many scaled to a keyframe's volume); :meth:`preload` converts everything up front.

    Missing pieces are not errors: without a ``sound`` folder every keyframe is silent and one
    warning says so; an id without a file is silent and warned about once.
    """

    def __init__(self, roots: ResourceRoots, *,
                 seed: int | None = None, cache_size: int = 256) -> None:
        self.folders = [root / "sound" for root in cozmo_resources_dirs(roots)]
        self.cache_size = cache_size
        self._rng = random.Random(seed)
        self._files: dict[str, Path] | None = None
        self._present: list[Path] = []  # the sound folders that exist (found with the files)
        self._cache: OrderedDict[tuple[int, float, float], list[bytes]] = OrderedDict()
        self._full: OrderedDict[tuple[int, float], list[bytes]] = OrderedDict()
        self._warned: set[object] = set()
        #: how many converted sounds a preload asked to keep (more than ``cache_size`` when it
        #: preloaded more): the full-volume cache holds at least these
        self._kept = 0
        #: conversions kept on disk between runs (None: converted in memory only)
        self.disk_cache: SoundCache | None = None
        #: with a disk cache that works, how many sounds stay in memory as well (each cache): a
        #: play that misses reads one file of some 20 KB instead of resampling, so a preload need
        #: not hold all of them (about 5 MB of a daemon's resident size, for the sounds of one
        #: resource tree at the voice's four pitches)
        self.memory_with_disk = 32
        #: the cache file name of each conversion read or written (so a play that misses does not
        #: read and hash its WAV again)
        self._names: dict[tuple[int, float], str] = {}

    @property
    def files(self) -> dict[str, Path]:
        """Audio event id (as decimal text) -> WAV file, found on first use.

        A file whose name is a number is that id's; any other name that is a sound name gives
        the name's id.
        """
        if self._files is None:
            self._files = {}
            self._present = [folder for folder in self.folders if folder.is_dir()]
            for folder in self._present:
                for path in sorted(folder.rglob("*")):
                    if path.suffix.lower() != ".wav" or not path.is_file():
                        continue
                    stem = path.stem
                    if stem.isdigit():
                        self._files.setdefault(str(int(stem)), path)
                    elif is_sound_name(stem):
                        self._files.setdefault(str(audio_event_id(stem)), path)
        return self._files

    def __call__(self, keyframe: RobotAudio) -> list[bytes] | None:
        """The frames for ``keyframe``, or None (silence) when no WAV stands for its event."""
        return self.resolve(keyframe)

    def resolve(self, keyframe: RobotAudio, pitch_semitones: float = 0.0) -> list[bytes] | None:
        """The frames for ``keyframe`` played ``pitch_semitones`` higher (lower when negative).

        The shift is bounded and rounded by :func:`pitch_step`; a sound raised by *s* semitones
        is also 2**(s/12) times as fast (a semitone up: about 6 % shorter).
        """
        ids = keyframe.audio_event_id
        if not ids:
            return None
        files = self.files  # scanned once; keyframes then cost no file-system calls
        if not self._present:
            where = ", ".join(str(f) for f in self.folders)
            self._warn_once("folder", "no sound folder (looked for %s): RobotAudio keyframes are silent", where)
            return None
        event_id = int(ids[self._pick(keyframe)])
        path = files.get(str(event_id))
        if path is None:
            self._warn_once("missing", "no WAV for audio event %d (%d.wav) under %s: that sound is silent "
                            "(further missing sounds are logged at debug level)", event_id, event_id,
                            ", ".join(str(f) for f in self._present))
            return None
        return self._frames(event_id, path, float(keyframe.volume), pitch_step(pitch_semitones))

    def preload(self, pitches: Iterable[float] = (0.0,)) -> int:
        """Convert every WAV of the folders now, at each of ``pitches`` (e.g. before the robot
        starts, so no conversion happens while clips play); returns how many files there are.

        With a :attr:`disk_cache` that can be written, every conversion ends up there and none
        is held in memory: a play reads its sound's file (some 40 µs here) and the last
        :attr:`memory_with_disk` sounds played stay in memory. Without one, everything converted
        is kept in memory, however many sounds and pitches that is. One pitch at a time, so each
        resampling filter is built once and let go before the next (a filter is only needed
        while converting, and takes a megabyte or so).
        """
        steps = sorted({pitch_step(p) for p in pitches})
        files = list(self.files.items())
        disk = self.disk_cache
        for step in steps:
            for name, path in files:
                if disk is not None and self._on_disk(int(name), path, step):
                    continue  # read when played
                self._kept = max(self._kept, len(files) * len(steps))
                self._converted(int(name), path, step)
            audio.release_filters()
        return len(files)

    def _on_disk(self, event_id: int, path: Path, pitch: float) -> bool:
        """Whether the disk cache holds this conversion, converting and writing it now when it
        does not; False when it cannot (an unreadable WAV, a folder that cannot be written)."""
        disk = self.disk_cache
        assert disk is not None
        try:
            source = path.read_bytes()
        except OSError:
            return False
        stored = disk.key(source, pitch)
        if not disk.has(stored):
            if not disk.writable:
                return False
            try:
                samples, rate = read_wav(source)
            except AudioFormatError:
                return False
            disk.put(stored, _convert(samples, rate, pitch))
            if not disk.writable:
                return False
        self._names[(event_id, pitch)] = stored
        return True

    def _pick(self, keyframe: RobotAudio) -> int:
        ids, weights = keyframe.audio_event_id, keyframe.probability
        if len(ids) == 1 or len(weights) != len(ids) or sum(weights) <= 0:
            return 0
        return self._rng.choices(range(len(ids)), weights=[max(float(w), 0.0) for w in weights])[0]

    def _frames(self, event_id: int, path: Path, volume: float, pitch: float) -> list[bytes] | None:
        key = (event_id, volume, pitch)
        frames = self._cache.get(key)
        if frames is not None:
            self._cache.move_to_end(key)
            return frames
        full = self._converted(event_id, path, pitch)
        if full is None:
            return None
        frames = scale_frames(full, max(0.0, min(1.0, volume)))
        self._remember(self._cache, key, frames, min(self.cache_size, self._memory()))
        return frames

    def _converted(self, event_id: int, path: Path, pitch: float) -> list[bytes] | None:
        """The sound at full volume and shifted by ``pitch``: what a keyframe's volume then scales
        (cached apart, so another volume costs no resampling)."""
        key = (event_id, pitch)
        frames = self._full.get(key)
        if frames is not None:
            self._full.move_to_end(key)
            return frames
        disk, stored = self.disk_cache, ""
        try:
            source: Path | bytes = path
            if disk is not None:  # a conversion kept on disk, else one to keep
                stored = self._names.get(key, "")
                frames = disk.get(stored) if stored else None
                if frames is None:  # never named, or the file went: named from the WAV as it is now
                    source = path.read_bytes()
                    stored = self._names[key] = disk.key(source, pitch)
                    frames = disk.get(stored)
            if frames is None:
                samples, rate = read_wav(source)
                frames = _convert(samples, rate, pitch)
                if disk is not None:
                    disk.put(stored, frames)
        except AudioFormatError as exc:
            self._warn_once(path, "cannot use %s: %s", path, exc)
            return None
        except OSError as exc:
            self._warn_once(path, "cannot read %s: %s", path, exc)
            return None
        self._remember(self._full, key, frames, self._memory())
        return frames

    def _memory(self) -> int:
        """How many sounds each in-memory cache holds: fewer when the disk holds them all."""
        disk = self.disk_cache
        if disk is not None and disk.writable:
            return min(self.cache_size, self.memory_with_disk)
        return max(self.cache_size, self._kept)

    @staticmethod
    def _remember(cache: OrderedDict[Any, list[bytes]], key: Any, frames: list[bytes], size: int) -> None:
        cache[key] = frames
        while len(cache) > size:
            cache.popitem(last=False)

    def _warn_once(self, key: object, message: str, *args: Any) -> None:
        """A warning the first time for ``key``, debug messages after that."""
        if key in self._warned:
            log.debug(message, *args)
            return
        self._warned.add(key)
        log.warning(message, *args)


def _convert(samples: Any, rate: int, pitch: float) -> list[bytes]:
    """A WAV's samples as µ-law frames, played ``pitch`` semitones higher: as if recorded at a
    higher (lower) rate, so also faster (slower)."""
    shifted = rate if pitch == 0.0 else max(1, int(round(rate * 2.0 ** (pitch / 12.0))))
    return int16_scale_to_frames(samples.mean(axis=1), shifted)
