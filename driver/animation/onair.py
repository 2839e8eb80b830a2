"""The clip on air: one playback turned into the packets, face and sound of each frame.

When a playback's turn comes, the controller makes an :class:`OnAir` for it: the clip's
:class:`~driver.animation.timeline.Timeline` (a second one for the passes after the first when
it loops, starting where the first ends), the frame count the fit mode gives, and the pose and
face the robot has at that moment, which the entry and exit blends start from and return to.
Then, once per frame, :meth:`OnAir.next_frame` says what the clip contributes: keyframe packets
on the tracks it may use (locks are checked on every frame), the face, the audio frame, the
Event keyframes of the frame, and the head and lift positions it commanded.

Blends
    During the entry blend the head and lift are sampled every frame, eased from the start pose
    into the clip's own motion, and the face from the start face into the clip's; after it, the
    move the clip is in the middle of is finished on time. The exit blend does the reverse,
    back to the start pose and the idle gaze. Outside blends the clip's own packets go out.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from ..protocol import messages as m
from . import face as facemod
from .face import FaceParams
from .playback import Fit, Playback, resolve_easing
from .timeline import FRAME_MS, LIFT_MIN_MM, Motion, Timeline, frame_of, motion_packet, split_move
from .tracks import TrackLocks

log = logging.getLogger(__name__)

__all__ = ["ClipFrame", "OnAir"]


# Enum members read once, as module names: on Python 3.11 reading one through its class goes
# through the enum metaclass's attribute hook, about 0.1 µs, on paths taken many times a second.
_FIT_LOOP = Fit.LOOP


@dataclass
class ClipFrame:
    """What the clip on air puts into one frame (besides the packets appended to ``out``).

    ``drives_face`` is True when the clip owns the face this frame; ``face`` is then the face to
    show (None: hold the last image, between sprite sequences). ``events`` are the Event
    keyframes of the frame, in clip order; ``poses`` the head (degrees) and lift (mm) positions
    the frame's packets command.
    """

    face: FaceParams | bytes | None = None
    audio: bytes | None = None
    drives_face: bool = False
    events: list[str] = field(default_factory=list)
    poses: dict[str, float] = field(default_factory=dict)


class OnAir:
    """The runtime state of the playback on air (see the module docstring).

    ``head_deg`` and ``lift_mm`` are where the robot's head and lift are when the clip starts
    (None: unknown, the clip's first keyframe is taken); ``start_face`` the face it shows.
    ``resolve_sounds`` / ``resolve_sprites`` say whether the player can make sounds and sprite
    images at all (the playback carries those it found); without them the keyframes are skipped.
    """

    def __init__(self, pb: Playback, *, head_deg: float | None, lift_mm: float | None, start_face: FaceParams,
                 resolve_sounds: bool, resolve_sprites: bool) -> None:
        clip = pb.clip
        if head_deg is None:
            head_deg = float(clip.head_angle[0].angle_deg) if clip.head_angle else 0.0
        if lift_mm is None:
            lift_mm = float(clip.lift_height[0].height_mm) if clip.lift_height else LIFT_MIN_MM
        # the sounds and sprites were resolved when the clip was queued
        sounds, sprites = pb.sounds, pb.sprites
        audio_resolver = sounds.get if resolve_sounds else None
        sprite_resolver = sprites.get if resolve_sprites else None
        tl0 = Timeline(clip, pb.params, head_start_deg=head_deg, lift_start_mm=lift_mm, audio=pb.audio,
                       audio_resolver=audio_resolver, sprite_resolver=sprite_resolver)
        tl1 = tl0
        fit = pb.params.fit_for(clip, tl0.frames * FRAME_MS)
        if fit is _FIT_LOOP:
            tl1 = Timeline(clip, pb.params, head_start_deg=tl0.head.end_value if tl0.head else head_deg,
                           lift_start_mm=tl0.lift.end_value if tl0.lift else lift_mm, audio=pb.audio,
                           audio_resolver=audio_resolver, sprite_resolver=sprite_resolver)
        if tl0.unsupported:
            log.debug("clip %r: %s keyframes are not played", clip.name, ", ".join(sorted(tl0.unsupported)))
        total: int | None = tl0.frames
        if pb.params.duration_ms is not None and fit is not None:
            total = max(1, int(round(pb.params.duration_ms / FRAME_MS)))
        elif fit is _FIT_LOOP:
            total = None  # loop until cancelled
        self.pb = pb
        self.tl0 = tl0
        self.tl1 = tl1
        #: frames to play (None: loop until cancelled), and how the clip fills them
        self.total = total
        self.fit = fit
        #: the next frame to play, counted from the clip's first
        self.frame = 0
        self.start_face = start_face
        self.head0 = head_deg
        self.lift0 = lift_mm
        self.entry_frames = frame_of(pb.params.entry_ms) if pb.params.entry_ms > 0 else 0
        self.exit_frames = frame_of(pb.params.exit_ms) if pb.params.exit_ms > 0 and total else 0
        self.entry_ease = resolve_easing(pb.params.entry_easing)
        self.exit_ease = resolve_easing(pb.params.exit_easing)
        #: frame -> [(track, packet)] still to send for the move finished after the entry blend
        self.extra: dict[int, list[tuple[str, Any]]] = {}
        self.last_sampled: dict[str, int] = {}
        #: True while the last AnimBody sent had a speed: the wheels must be stopped at the end
        self.body_moving = False
        #: the robot's count of wheel commands when the clip went on air (None: it keeps none)
        self.wheel_mark: int | None = None
        self.last_face: FaceParams | None = None

    @property
    def finished(self) -> bool:
        """True once every frame of the playback was played."""
        return self.total is not None and self.frame >= self.total

    def locate(self, g: int) -> tuple[Timeline, int, bool]:
        """(timeline, local frame, frozen) for global frame ``g``."""
        n0 = self.tl0.frames
        if g < n0:
            return self.tl0, g, False
        if self.fit is _FIT_LOOP:
            return self.tl1, (g - n0) % self.tl1.frames, False
        return self.tl0, n0 - 1, True

    def _allowed(self, locks: TrackLocks, track: str) -> bool:
        return locks.may_use(track, self.pb.tracks, self.pb.owner)

    def next_frame(self, locks: TrackLocks, gaze: FaceParams, out: list[Any]) -> ClipFrame:
        """Play the next frame: append its packets to ``out`` and say what else it holds.

        ``locks`` decide which tracks the clip may drive this frame; ``gaze`` is the idle gaze
        the exit blend returns the face to.
        """
        result = ClipFrame()
        g = self.frame
        tl, i, frozen = self.locate(g)
        t_ms = i * FRAME_MS
        first_pass = g < self.tl0.frames
        in_entry = g < self.entry_frames
        exit_start = (self.total - self.exit_frames) if self.exit_frames and self.total else None
        in_exit = exit_start is not None and g >= exit_start
        if not frozen:
            for track, packet in tl.packets.get(i, ()):
                if self._allowed(locks, track):
                    out.append(packet)
                    if isinstance(packet, m.AnimBody):
                        self.body_moving = packet.speed != 0
            result.events.extend(tl.events.get(i, ()))
        for track, packet in self.extra.pop(g, ()):
            if self._allowed(locks, track) and not in_exit:
                out.append(packet)
        for track, motion, home in (("head", tl.head, self.head0), ("lift", tl.lift, self.lift0)):
            if motion is None or not self._allowed(locks, track):
                continue
            if in_entry or in_exit:
                pose = motion.value(t_ms)
                if in_entry:
                    u = self.entry_ease(g / self.entry_frames)
                    value = home + (pose - home) * u
                else:
                    assert exit_start is not None
                    u = self.exit_ease(min(1.0, (g - exit_start + 1) / self.exit_frames))
                    value = pose + (home - pose) * u
                key = int(round(value))
                if self.last_sampled.get(track) != key:
                    self.last_sampled[track] = key
                    out.append(motion_packet(track, int(round(FRAME_MS)), value))
                result.poses[track] = value
                continue
            if not frozen:
                for seg_index, packet in motion.packets.get(i, ()):
                    if first_pass and self.entry_frames and motion.segments[seg_index].frame < self.entry_frames:
                        continue  # this move was replaced by the entry blend
                    out.append(packet)
                    result.poses[track] = motion.segments[seg_index].b
                if first_pass and self.entry_frames and g == self.entry_frames:
                    result.poses[track] = self._catch_up(track, motion, t_ms, g, out)
        face: FaceParams | bytes | None = None
        clip_face = tl.has_face and self._allowed(locks, "face")
        sprite = tl.sprites.get(i) if clip_face else None
        if sprite is not None:
            face = sprite  # a sprite sequence frame: shown as drawn, no blending
        elif clip_face and not tl.faces:
            face = None  # between or after sprite sequences: the face holds the last image
        elif clip_face:
            clip_face_now = tl.face_at(t_ms)
            procedural = clip_face_now if clip_face_now is not None else self.last_face or self.start_face
            if in_entry:
                procedural = facemod.interpolate(self.start_face, procedural, self.entry_ease(g / self.entry_frames))
            elif in_exit:
                assert exit_start is not None
                u = self.exit_ease(min(1.0, (g - exit_start + 1) / self.exit_frames))
                procedural = facemod.interpolate(procedural, gaze, u)
            self.last_face = face = procedural
        result.face, result.drives_face = face, clip_face
        if not frozen and self._allowed(locks, "audio"):
            result.audio = tl.audio.get(i)
        self.frame += 1
        self.pb.frames_sent = self.frame
        return result

    def _catch_up(self, track: str, motion: Motion, t_ms: float, g: int, out: list[Any]) -> float:
        """After the entry blend, finish the move the clip is in the middle of, on time; returns its target."""
        progress = motion.in_progress(t_ms)
        if progress is None:
            target, remaining = motion.value(t_ms), FRAME_MS
        else:
            target, remaining = progress
        here = self.last_sampled.get(track, target)
        for df, dur, value in split_move(remaining, float(here), target):
            packet = motion_packet(track, max(1, dur), value)
            if df == 0:
                out.append(packet)
            else:
                self.extra.setdefault(g + df, []).append((track, packet))
        return target
