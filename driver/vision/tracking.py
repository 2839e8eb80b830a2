"""Face tracking: a stable id per person while in view, a smoothed position, lost after a timeout.

A detector only says "a face here" in one frame; behaviours want "Alice is still there, a little
to the left" and "she has gone". :class:`FaceTracker` links each frame's detections to the faces
it already follows (nearest centre, within a distance relative to the face's size that grows with
the time since the face was last detected, and a plausible change of size), smooths each face's
box, and says what changed:

* a face becomes **seen** once it was detected ``confirm_hits`` times (2 by default, as Anki's
  engine asked of its face library: a single frame's detection is often a false one), at least
  once with a score of ``weak_below`` or more: a *weak* detection (a face the detector was unsure
  of, as one between two of its scales can be) only counts towards a face a sure one confirms;
* a face seen before and detected again is **updated** (the caller decides whether that is a
  move worth telling: it knows where the camera looked);
* it is **lost** when no detection matched it for ``lost_after_s`` and at least ``lost_misses``
  face passes since its last detection looked and did not find it (then its id is never reused;
  a person who comes back is a new face: there is no recognition). Counting the looks is what
  Anki's face tracker does (OKAO's LostMaxRetry, vision.md §4): a host too busy to look, or
  frames lost on the link, do not lose a face that is still there. Without any look (the camera
  stopped) a face is lost after ``lost_unlooked_s``;
* a face detected fewer than ``confirm_hits`` times before it expired was only **glimpsed**: too
  little to announce, but worth a look where it was (someone passing while the robot turned);
  one only ever detected weakly expires without a word.

A face may move far between two detections: someone stepping aside at walking pace crosses the
picture in about a second, and the frames of her walk can be lost on the link or skipped by a busy
host. So the distance a detection may be from a face grows by ``reach_px_s`` for each second the
face went undetected: the first look that finds her again, wherever she is by then, still finds
the face the robot was following, not a stranger to be confirmed.

When the robot turns its head or body between two frames, every face shifts in the picture.
Each face keeps the viewpoint its box was seen from (``view``, anything the caller likes, e.g.
head angle and heading); given ``shift``, which says how far the picture moves from one
viewpoint to another, matching and smoothing start from where each face should be now. Times
are the frames' capture times on the host's monotonic clock (s). Pure: no I/O, no clock.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .faces import Box

__all__ = ["FaceTrack", "FaceTracker", "TrackerChanges"]


@dataclass
class FaceTrack:
    """One face followed across frames.

    ``box`` is smoothed and moved along with the robot's turns (in the latest frame's picture);
    ``seen_box`` is where it was last detected, in the picture of ``context``'s frame.
    """

    face_id: int
    box: Box
    first_seen_at: float
    last_seen_at: float
    hits: int = 1
    confirmed: bool = False
    #: detections with a score of the tracker's ``weak_below`` or more (one is needed to confirm)
    sure_hits: int = 1
    #: what the caller attached to the latest detection (e.g. the frame it was found in)
    context: Any = None
    #: the viewpoint ``box`` is seen from (see FaceTracker's ``shift``)
    view: Any = None
    seen_box: Box | None = None
    #: face passes since the last detection that did not find it
    misses: int = 0

    def __post_init__(self) -> None:
        if self.seen_box is None:
            self.seen_box = self.box


@dataclass
class TrackerChanges:
    """What one update changed: faces newly seen, seen before and found again, lost, or only glimpsed."""

    seen: list[FaceTrack] = field(default_factory=list)
    updated: list[FaceTrack] = field(default_factory=list)
    lost: list[FaceTrack] = field(default_factory=list)
    #: faces that expired unconfirmed (detected fewer than ``confirm_hits`` times)
    glimpsed: list[FaceTrack] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.seen or self.updated or self.lost or self.glimpsed)


class FaceTracker:
    """Follows faces across frames; see the module docstring for the rules."""

    def __init__(self, *, lost_after_s: float = 1.0, lost_misses: int = 2, lost_unlooked_s: float | None = None,
                 confirm_hits: int = 2, smoothing: float = 0.5, match_distance: float = 1.5,
                 max_size_ratio: float = 1.8, weak_below: float = 0.0,
                 shift: Callable[[Any, Any], tuple[float, float]] | None = None, reach_px_s: float = 300.0) -> None:
        if not 0.0 < smoothing <= 1.0:
            raise ValueError(f"smoothing must be in (0, 1], got {smoothing}")
        self.lost_after_s = lost_after_s
        self.lost_misses = max(0, lost_misses)
        #: without looks a face is lost after this long (default three times ``lost_after_s``)
        self.lost_unlooked_s = 3 * lost_after_s if lost_unlooked_s is None else max(lost_after_s, lost_unlooked_s)
        self.confirm_hits = max(1, confirm_hits)
        self.smoothing = smoothing
        self.match_distance = match_distance
        self.max_size_ratio = max_size_ratio
        self.weak_below = weak_below
        #: (from view, to view) -> how far (dx, dy) in pixels the picture moves between them
        self.shift = shift
        #: how much farther (px) a detection may be from a face for each second the face went
        #: undetected: a person stepping aside at walking pace 0.6 m away (0.5 m/s, some 50° a
        #: second: 250-300 px in a typical Cozmo's picture, 320 px wide)
        self.reach_px_s = max(0.0, reach_px_s)
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

    def _cost(self, track: FaceTrack, box: Box, t: float) -> float | None:
        """How far a detection at time ``t`` is from a track, in track widths; None when it cannot
        be the same face (farther than ``match_distance`` widths and the reach since it was seen)."""
        size = max(track.box.w, 1.0)
        ratio = box.w / size
        if not 1.0 / self.max_size_ratio <= ratio <= self.max_size_ratio:
            return None
        (ax, ay), (bx, by) = track.box.center, box.center
        d = math.hypot(ax - bx, ay - by) / size
        reach = self.match_distance + self.reach_px_s * max(0.0, t - track.last_seen_at) / size
        return d if d <= reach else None

    def expected(self, track: FaceTrack, view: Any) -> Box:
        """Where ``track``'s face should be in a frame seen from ``view``."""
        if self.shift is None or view is None or track.view is None:
            return track.box
        dx, dy = self.shift(track.view, view)
        b = track.box
        return Box(b.x + dx, b.y + dy, b.w, b.h, b.score)

    def update(self, detections: list[Box], t: float, context: Any = None, view: Any = None) -> TrackerChanges:
        """Take one frame's detections (captured at host time ``t`` from viewpoint ``view``).

        Returns what changed; ``context`` is kept with each face found.
        """
        changes = self.expire(t)
        if view is not None:
            for track in self.tracks.values():
                track.box, track.view = self.expected(track, view), view
        pairs = sorted(
            (cost, i, face_id)
            for i, box in enumerate(detections)
            for face_id, track in self.tracks.items()
            if (cost := self._cost(track, box, t)) is not None
        )
        used_dets: set[int] = set()
        used_tracks: set[int] = set()
        for _, i, face_id in pairs:  # greedy, nearest first: few faces are ever in view at once
            if i in used_dets or face_id in used_tracks:
                continue
            used_dets.add(i)
            used_tracks.add(face_id)
            self._match(self.tracks[face_id], detections[i], t, context, changes)
        for face_id, track in self.tracks.items():
            if face_id not in used_tracks:
                track.misses += 1
        self._expire(t, changes)  # a look that missed a face long unseen loses it now
        for i, box in enumerate(detections):
            if i not in used_dets:
                track = FaceTrack(self._next_id, box, t, t, context=context, view=view,
                                  sure_hits=int(box.score >= self.weak_below))
                self._next_id += 1
                self.tracks[track.face_id] = track
                self._confirm(track, changes)
        return changes

    def _match(self, track: FaceTrack, box: Box, t: float, context: Any, changes: TrackerChanges) -> None:
        a = self.smoothing
        old = track.box
        track.box = Box(old.x + a * (box.x - old.x), old.y + a * (box.y - old.y),
                        old.w + a * (box.w - old.w), old.h + a * (box.h - old.h), box.score)
        track.seen_box = track.box
        track.last_seen_at = max(track.last_seen_at, t)
        track.misses = 0
        track.hits += 1
        track.sure_hits += box.score >= self.weak_below
        track.context = context
        if track.confirmed:
            changes.updated.append(track)
        else:
            self._confirm(track, changes)

    def _confirm(self, track: FaceTrack, changes: TrackerChanges) -> None:
        if track.hits >= self.confirm_hits and track.sure_hits:
            track.confirmed = True
            changes.seen.append(track)

    def expire(self, now: float) -> TrackerChanges:
        """Drop faces not detected for ``lost_after_s`` and missed by ``lost_misses`` looks (or not
        detected for ``lost_unlooked_s``): confirmed ones come back as lost, the others as glimpsed
        (unless only ever detected weakly)."""
        changes = TrackerChanges()
        self._expire(now, changes)
        return changes

    def _expire(self, now: float, changes: TrackerChanges) -> None:
        for face_id, track in list(self.tracks.items()):
            unseen = now - track.last_seen_at
            if (unseen > self.lost_after_s and track.misses >= self.lost_misses) or unseen > self.lost_unlooked_s:
                del self.tracks[face_id]
                if track.confirmed:
                    changes.lost.append(track)
                elif track.sure_hits:
                    changes.glimpsed.append(track)
