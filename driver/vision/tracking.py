"""Face tracking: a stable id per person while in view, a smoothed position, lost after a timeout.

A detector only says "a face here" in one frame; behaviours want "Alice is still there, a little
to the left" and "she has gone". :class:`FaceTracker` links each frame's detections to the faces
it already follows (nearest centre, within a distance relative to the face's size, and a
plausible change of size), smooths each face's box, and says what changed:

* a face becomes **seen** once it was detected ``confirm_hits`` times (2 by default, as Anki's
  engine asked of its face library: a single frame's detection is often a false one);
* it **moved** when its smoothed centre went more than ``move_fraction`` of its width, or its
  size changed by more than ``resize_fraction``, since it was last reported;
* it is **lost** when no detection matched it for ``lost_after_s`` (then its id is never reused;
  a person who comes back is a new face: there is no recognition).

Times are the frames' capture times on the host's monotonic clock (s). Pure: no I/O, no clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .faces import Box

__all__ = ["FaceTrack", "FaceTracker", "TrackerChanges"]


@dataclass
class FaceTrack:
    """One face followed across frames."""

    face_id: int
    box: Box                      # smoothed
    first_seen_at: float
    last_seen_at: float
    hits: int = 1
    confirmed: bool = False
    reported: Box | None = None   # the box last announced (seen or moved)
    #: what the caller attached to the latest detection (e.g. the frame's head angle and pose)
    context: Any = None


@dataclass
class TrackerChanges:
    """What one update changed: faces newly seen, faces that moved, faces lost."""

    seen: list[FaceTrack] = field(default_factory=list)
    moved: list[FaceTrack] = field(default_factory=list)
    lost: list[FaceTrack] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.seen or self.moved or self.lost)


class FaceTracker:
    """Follows faces across frames; see the module docstring for the rules."""

    def __init__(self, *, lost_after_s: float = 1.0, confirm_hits: int = 2, smoothing: float = 0.5,
                 match_distance: float = 1.5, max_size_ratio: float = 1.8, move_fraction: float = 0.15,
                 resize_fraction: float = 0.2) -> None:
        if not 0.0 < smoothing <= 1.0:
            raise ValueError(f"smoothing must be in (0, 1], got {smoothing}")
        self.lost_after_s = lost_after_s
        self.confirm_hits = max(1, confirm_hits)
        self.smoothing = smoothing
        self.match_distance = match_distance
        self.max_size_ratio = max_size_ratio
        self.move_fraction = move_fraction
        self.resize_fraction = resize_fraction
        self.tracks: dict[int, FaceTrack] = {}
        self._next_id = 1

    @property
    def confirmed(self) -> list[FaceTrack]:
        """The faces announced as seen and not lost."""
        return [t for t in self.tracks.values() if t.confirmed]

    def reset(self) -> TrackerChanges:
        """Forget every face; the confirmed ones come back as lost."""
        lost = self.confirmed
        self.tracks.clear()
        return TrackerChanges(lost=lost)

    def _cost(self, track: FaceTrack, box: Box) -> float | None:
        """How far a detection is from a track, in track widths; None when it cannot be the same face."""
        size = max(track.box.w, 1.0)
        ratio = box.w / size
        if not 1.0 / self.max_size_ratio <= ratio <= self.max_size_ratio:
            return None
        (ax, ay), (bx, by) = track.box.center, box.center
        d = math.hypot(ax - bx, ay - by) / size
        return d if d <= self.match_distance else None

    def update(self, detections: list[Box], t: float, context: Any = None) -> TrackerChanges:
        """Take one frame's detections (captured at host time ``t``); returns what changed."""
        changes = self.expire(t)
        pairs = sorted(
            (cost, i, face_id)
            for i, box in enumerate(detections)
            for face_id, track in self.tracks.items()
            if (cost := self._cost(track, box)) is not None
        )
        used_dets: set[int] = set()
        used_tracks: set[int] = set()
        for _, i, face_id in pairs:  # greedy, nearest first: few faces are ever in view at once
            if i in used_dets or face_id in used_tracks:
                continue
            used_dets.add(i)
            used_tracks.add(face_id)
            self._match(self.tracks[face_id], detections[i], t, context, changes)
        for i, box in enumerate(detections):
            if i not in used_dets:
                track = FaceTrack(self._next_id, box, t, t, context=context)
                self._next_id += 1
                self.tracks[track.face_id] = track
                self._confirm(track, changes)
        return changes

    def _match(self, track: FaceTrack, box: Box, t: float, context: Any, changes: TrackerChanges) -> None:
        a = self.smoothing
        old = track.box
        track.box = Box(old.x + a * (box.x - old.x), old.y + a * (box.y - old.y),
                        old.w + a * (box.w - old.w), old.h + a * (box.h - old.h), box.score)
        track.last_seen_at = max(track.last_seen_at, t)
        track.hits += 1
        track.context = context
        if not track.confirmed:
            self._confirm(track, changes)
        elif track.reported is not None and self._moved(track.reported, track.box):
            track.reported = track.box
            changes.moved.append(track)

    def _confirm(self, track: FaceTrack, changes: TrackerChanges) -> None:
        if track.hits >= self.confirm_hits:
            track.confirmed = True
            track.reported = track.box
            changes.seen.append(track)

    def _moved(self, before: Box, now: Box) -> bool:
        (ax, ay), (bx, by) = before.center, now.center
        size = max(before.w, 1.0)
        return (math.hypot(ax - bx, ay - by) / size > self.move_fraction
                or abs(now.w - before.w) / size > self.resize_fraction)

    def expire(self, now: float) -> TrackerChanges:
        """Drop faces not detected for ``lost_after_s``; the confirmed ones come back as lost."""
        changes = TrackerChanges()
        for face_id, track in list(self.tracks.items()):
            if now - track.last_seen_at > self.lost_after_s:
                del self.tracks[face_id]
                if track.confirmed:
                    changes.lost.append(track)
        return changes
