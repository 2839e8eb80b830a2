"""Animation tracks and the locks behaviours take on them.

A frame drives six tracks: ``head``, ``lift``, ``body`` (wheels and headings), ``face``,
``lights`` and ``audio``. A behaviour that wants one for itself (a face it draws, a sound it
streams, a head it points) locks it: clips of other owners then skip their keyframes on that
track, frame by frame, while their other tracks play. A locked face or audio track is driven
through the lock (:meth:`Lock.show_face`, :meth:`Lock.push_audio`).

:class:`TrackLocks` is the table of locks one controller keeps; it knows nothing about frames or
clips, so the rules (who may use a track, whose face or audio a frame takes) live here alone.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from .clip import AnimationError
from .face import FaceParams

__all__ = ["TRACKS", "Lock", "TrackError", "TrackLocks", "normalise_tracks"]

#: The tracks a clip or a behaviour can use or lock.
TRACKS: frozenset[str] = frozenset({"head", "lift", "body", "face", "lights", "audio"})
_TRACK_ALIASES = {"wheels": "body", "backpack": "lights", "backpack_lights": "lights"}


class TrackError(AnimationError, ValueError):
    """An unknown track name."""


def normalise_tracks(tracks: Iterable[str] | str | None) -> frozenset[str]:
    """Track names as a set, aliases resolved (``wheels`` → ``body``); None means all tracks."""
    if tracks is None:
        return TRACKS
    if isinstance(tracks, str):
        tracks = [tracks]
    out = set()
    for name in tracks:
        key = _TRACK_ALIASES.get(str(name).lower(), str(name).lower())
        if key not in TRACKS:
            raise TrackError(f"unknown track {name!r}; expected one of {', '.join(sorted(TRACKS))}")
        out.add(key)
    return frozenset(out)


class Lock:
    """Tracks reserved by an owner (a behaviour). Release it when done; it is also a context manager.

    While the face (audio) track is locked, what the owner gives :meth:`show_face`
    (:meth:`push_audio`) is what the robot shows (plays); otherwise the face holds and frames
    are silent. A lock can also end from the controller's side (everything stopped at once, as
    on robot loss): ``released`` then turns True and the owner's later calls change nothing.
    """

    def __init__(self, table: TrackLocks, tracks: frozenset[str], owner: object) -> None:
        self._table = table
        self.tracks = tracks
        self.owner = owner
        self.released = False
        self.face: FaceParams | bytes | None = None
        self.audio: deque[bytes] = deque()

    def release(self) -> None:
        """Give the tracks back (idempotent)."""
        if not self.released:
            self.released = True
            self._table.remove(self)

    def show_face(self, face: FaceParams | bytes | None) -> None:
        """Show ``face`` (procedural parameters or an encoded image) while this lock holds the face."""
        self.face = face

    def push_audio(self, frames: Iterable[bytes]) -> None:
        """Queue 744-byte µ-law frames to play, one per frame, while this lock holds the audio."""
        self.audio.extend(bytes(f) for f in frames)

    def __enter__(self) -> Lock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"<Lock {sorted(self.tracks)} owner={self.owner!r}{' released' if self.released else ''}>"


class TrackLocks:
    """The locks held on one controller's tracks, oldest first."""

    def __init__(self) -> None:
        self._locks: list[Lock] = []

    def lock(self, tracks: Iterable[str] | str, owner: object) -> Lock:
        """Reserve ``tracks`` for ``owner`` (raises :class:`TrackError` on an unknown track)."""
        lk = Lock(self, normalise_tracks(tracks), owner)
        self._locks.append(lk)
        return lk

    def remove(self, lk: Lock) -> None:
        """Forget ``lk`` (called by :meth:`Lock.release`)."""
        if lk in self._locks:
            self._locks.remove(lk)

    def release_all(self) -> int:
        """Release every lock; returns how many there were."""
        locks, self._locks = self._locks, []
        for lk in locks:
            lk.released = True
        return len(locks)

    def __len__(self) -> int:
        return len(self._locks)

    def locked(self, track: str, *, owner: object | None = None) -> bool:
        """True when ``track`` is locked by someone other than ``owner``."""
        return any(track in lk.tracks and (owner is None or lk.owner is not owner) for lk in self._locks)

    def may_use(self, track: str, tracks: frozenset[str], owner: object | None) -> bool:
        """True when a clip limited to ``tracks`` and played by ``owner`` may drive ``track`` now."""
        return track in tracks and not self.locked(track, owner=owner)

    def face_holder(self) -> Lock | None:
        """The newest lock on the face track that has a face to show, if any."""
        for lk in reversed(self._locks):
            if "face" in lk.tracks and lk.face is not None:
                return lk
        return None

    def next_audio(self) -> bytes | None:
        """The next audio frame of the newest lock on the audio track that has some queued, if any."""
        for lk in reversed(self._locks):
            if "audio" in lk.tracks and lk.audio:
                return lk.audio.popleft()
        return None
