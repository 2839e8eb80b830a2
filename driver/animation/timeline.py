"""A clip as frames: what one pass of a clip sends on each 1/30 s frame, as pure data.

The animation controller plays clips on the robot's 30 fps clock. Before a clip plays, its
keyframes (authored in milliseconds, per track) are turned into a :class:`Timeline`: for every
frame the packets of the body, lights and heading tracks, the head and lift moves (as
:class:`Motion`, so a blend can sample them at any time), the procedural faces, the sprite
images, the audio frames and the Event keyframes. The playback parameters (speed, multipliers,
offsets) are applied here. The timeline does no I/O and keeps no clock: the controller reads it
frame by frame, and the preview renderer and tests read it to know what a clip will send.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..hardware import HEAD_MAX_DEG, HEAD_MIN_DEG, LIFT_MAX_MM, LIFT_MIN_MM, MAX_BODY_ROTATION_DPS, MAX_WHEEL_SPEED_MMPS
from ..protocol import messages as m
from . import face as facemod
from .clip import BackpackLights, BodyMotion, Clip, RobotAudio, light_fractions
from .face import FaceParams
from .playback import PlaybackParams

__all__ = [
    "FPS",
    "FRAME_MS",
    "FRAME_S",
    "HEAD_MAX_DEG",
    "HEAD_MIN_DEG",
    "LIFT_MAX_MM",
    "LIFT_MIN_MM",
    "STRAIGHT",
    "AudioResolver",
    "Motion",
    "Segment",
    "SpriteResolver",
    "Timeline",
    "body_speed",
    "frame_of",
    "keyframe_face",
    "light_colors",
    "motion_packet",
    "split_move",
]

FPS = 30
FRAME_S = 1.0 / FPS
FRAME_MS = 1000.0 / FPS
#: AnimBody's radius for driving straight (and for a stop).
STRAIGHT = 0x7FFF
#: AnimHead/AnimLift carry their duration in a byte; longer moves go out as chunks of 7 frames.
_MAX_PACKET_DURATION_MS = 255
_CHUNK_FRAMES = 7
_EPS = 1e-6

#: Turns a RobotAudio keyframe into 744-byte µ-law frames (None: no sound for it).
AudioResolver = Callable[[RobotAudio], "Sequence[bytes] | None"]
#: Turns a FaceAnimation keyframe's sprite sequence name into encoded DisplayImage frames, one per
#: 1/30 s (None: no such sequence).
SpriteResolver = Callable[[str], "Sequence[bytes] | None"]


def _clamp(v: float, lo: float, hi: float) -> float:
    return lo if v < lo else hi if v > hi else v


def frame_of(ms: float) -> int:
    """The first frame at or after ``ms`` of real playback time."""
    return max(0, math.ceil(ms / FRAME_MS - _EPS))


def motion_packet(track: str, dur_ms: int, value: float, variability: int = 0) -> Any:
    """An AnimHead (``track="head"``, degrees) or AnimLift (``"lift"``, mm) move over ``dur_ms``."""
    if track == "head":
        return m.AnimHead(duration_ms=dur_ms, variability_deg=min(variability, 127), angle_deg=int(round(value)))
    if track == "lift":
        return m.AnimLift(duration_ms=dur_ms, variability_mm=min(variability, 255), height_mm=int(round(value)))
    raise ValueError(f"motion packets are for the head or the lift track, not {track!r}")


@dataclass
class Segment:
    """One head or lift move: from ``a`` to ``b`` over ``dur`` ms starting at ``start`` ms."""

    start: float
    dur: float
    a: float
    b: float
    frame: int


class Motion:
    """A head or lift track as moves over real time, and the packets that make them."""

    def __init__(self, start_value: float) -> None:
        self.start_value = start_value
        self.segments: list[Segment] = []
        self._starts: list[float] = []
        #: frame -> [(segment index, packet)]
        self.packets: dict[int, list[tuple[int, Any]]] = {}

    def value(self, t_ms: float) -> float:
        """Where the track is at ``t_ms`` (linear moves, holding between them)."""
        i = bisect.bisect_right(self._starts, t_ms) - 1
        if i < 0:
            return self.start_value
        s = self.segments[i]
        if s.dur <= 0 or t_ms >= s.start + s.dur:
            return s.b
        return s.a + (s.b - s.a) * (t_ms - s.start) / s.dur

    def in_progress(self, t_ms: float) -> tuple[float, float] | None:
        """(target, remaining ms) of the move under way at ``t_ms``, or None."""
        i = bisect.bisect_right(self._starts, t_ms) - 1
        if i < 0:
            return None
        s = self.segments[i]
        end = s.start + s.dur
        return (s.b, end - t_ms) if t_ms < end else None

    @property
    def end_value(self) -> float:
        """Where the track is after its last move."""
        return self.segments[-1].b if self.segments else self.start_value

    def add(self, start: float, dur: float, target: float, make: Callable[[int, float], Any]) -> None:
        """Move to ``target`` over ``dur`` ms from ``start`` ms; ``make(duration_ms, value)`` builds a packet."""
        a = self.value(start)
        seg = Segment(start, dur, a, target, frame_of(start))
        self.segments.append(seg)
        self._starts.append(start)
        index = len(self.segments) - 1
        for df, chunk_ms, value in split_move(dur, a, target):
            self.packets.setdefault(seg.frame + df, []).append((index, make(chunk_ms, value)))

    def finish(self) -> None:
        """Drop chunks of a long move that a later move has taken over."""
        for frame, items in self.packets.items():
            self.packets[frame] = [
                (i, p) for i, p in items
                if i + 1 >= len(self.segments) or frame < self.segments[i + 1].frame
                or frame == self.segments[i].frame
            ]


def split_move(dur_ms: float, a: float, b: float) -> list[tuple[int, int, float]]:
    """A move as packets: (frame offset, duration ms, target) with every duration ≤ 255 ms.

    AnimHead/AnimLift hold their duration in one byte. A longer move is sent as chunks of seven
    frames (233 ms), each aimed at the point the straight-line move reaches at its end, so the
    head arrives where and when the clip says.
    """
    if dur_ms <= _MAX_PACKET_DURATION_MS:
        return [(0, int(round(dur_ms)), b)]
    chunk = _CHUNK_FRAMES * FRAME_MS
    out = []
    for j in range(math.ceil(dur_ms / chunk - _EPS)):
        end = min(dur_ms, (j + 1) * chunk)
        # rounded at both ends, so the chunk durations add up to the whole move
        out.append((j * _CHUNK_FRAMES, int(round(end)) - int(round(j * chunk)), a + (b - a) * end / dur_ms))
    return out


def _eye(values: Sequence[float], default: facemod.EyeParams) -> list[float]:
    # Clip files may give fewer than 19 eye values; the rest keep their defaults.
    out = default.to_list()
    out[: len(values)] = [float(v) for v in values]
    return out


def keyframe_face(kf: Any) -> FaceParams:
    """The FaceParams of a ProceduralFace keyframe."""
    return FaceParams.from_eye_arrays(
        _eye(kf.left_eye, facemod.DEFAULT_EYE), _eye(kf.right_eye, facemod.DEFAULT_EYE),
        angle=kf.face_angle, center_x=kf.face_center_x, center_y=kf.face_center_y,
        scale_x=kf.face_scale_x, scale_y=kf.face_scale_y,
        source=f"ProceduralFace keyframe at {kf.trigger_time_ms} ms",
    )


def light_colors(kf: BackpackLights) -> list[int]:
    """A BackpackLights keyframe as AnimBackpackLights colours (left, front, middle, back, right).

    Channels are fractions of full brightness (Anki's files); a light written as 0-255 by another
    tool is read so (:func:`~driver.animation.clip.light_fractions`; ``Clip.warnings`` says so).
    """
    out = []
    for name in ("left", "front", "middle", "back", "right"):
        r, g, b = (int(round(c * 255)) for c in light_fractions(getattr(kf, name)))
        out.append(m.rgb555(r, g, b))
    return out


def _radius(kf: BodyMotion) -> int:
    if kf.radius_mm == "STRAIGHT":
        return STRAIGHT
    if kf.radius_mm == "TURN_IN_PLACE":
        return 0
    value = kf.radius_value or 0.0
    return int(_clamp(round(value), -32768, 32767))


def body_speed(speed: float, radius: int) -> int:
    """An AnimBody speed as the engine sends it: °/s for a turn in place (``radius`` 0), clamped
    to MAX_BODY_ROTATION_DPS, else mm/s clamped to MAX_WHEEL_SPEED_MMPS (the robot reads
    nothing faster)."""
    cap = MAX_BODY_ROTATION_DPS if radius == 0 else MAX_WHEEL_SPEED_MMPS
    return int(_clamp(round(speed), -cap, cap))


class Timeline:
    """One pass of a clip, retimed and adjusted by the playback parameters, frame by frame.

    Pure data (no I/O): the controller reads it as it plays, and the preview renderer and
    tests read it to know what a clip will send. Frame ``i`` is at ``i / 30`` s of playback.
    """

    def __init__(self, clip: Clip, params: PlaybackParams | None = None, *, head_start_deg: float = 0.0,
                 lift_start_mm: float = LIFT_MIN_MM, audio: Sequence[bytes] | None = None,
                 audio_resolver: AudioResolver | None = None,
                 sprite_resolver: SpriteResolver | None = None) -> None:
        p = params or PlaybackParams()
        self.clip = clip
        self.params = p
        s = p.speed
        self.duration_ms = clip.duration_ms / s
        last = frame_of(self.duration_ms)
        #: frame -> [(track, packet)] for body, lights and heading packets
        self.packets: dict[int, list[tuple[str, Any]]] = {}
        self.events: dict[int, list[str]] = {}
        self.audio: dict[int, bytes] = {}
        #: frame -> encoded face image of a FaceAnimation sprite sequence (overrides procedural eyes)
        self.sprites: dict[int, bytes] = {}
        #: keyframe kinds this timeline cannot play (no resolver given for them)
        self.unsupported: set[str] = set()

        self.head: Motion | None = None
        if clip.head_angle:
            self.head = Motion(head_start_deg)
            for kf in clip.head_angle:
                target = _clamp(kf.angle_deg * p.head_multiplier + p.head_offset_deg, HEAD_MIN_DEG, HEAD_MAX_DEG)
                var = kf.angle_variability_deg
                self.head.add(kf.trigger_time_ms / s, kf.duration_time_ms / s, target,
                              functools.partial(motion_packet, "head", variability=var))
            self.head.finish()
        self.lift: Motion | None = None
        if clip.lift_height:
            self.lift = Motion(lift_start_mm)
            for lk in clip.lift_height:
                target = LIFT_MIN_MM + (lk.height_mm - LIFT_MIN_MM) * p.lift_multiplier + p.lift_offset_mm
                var = lk.height_variability_mm
                self.lift.add(lk.trigger_time_ms / s, lk.duration_time_ms / s, _clamp(target, LIFT_MIN_MM, LIFT_MAX_MM),
                              functools.partial(motion_packet, "lift", variability=var))
            self.lift.finish()

        body_frames = [frame_of(k.trigger_time_ms / s) for k in clip.body_motion]
        for i, bk in enumerate(clip.body_motion):
            f = body_frames[i]
            radius = _radius(bk)
            self._put(f, "body", m.AnimBody(speed=body_speed(bk.speed * p.body_multiplier, radius), unknown=radius))
            stop = frame_of((bk.trigger_time_ms + bk.duration_time_ms) / s)
            if i + 1 >= len(clip.body_motion) or body_frames[i + 1] > stop:
                self._put(stop, "body", m.AnimBody(speed=0, unknown=STRAIGHT))
        for rk in clip.record_heading:
            self._put(frame_of(rk.trigger_time_ms / s), "body", m.RecordHeading())
        for tk in clip.turn_to_recorded_heading:
            self._put(frame_of(tk.trigger_time_ms / s), "body", m.TurnToRecordedHeading())
        light_frames = [frame_of(k.trigger_time_ms / s) for k in clip.backpack_lights]
        for i, lk2 in enumerate(clip.backpack_lights):
            self._put(light_frames[i], "lights", m.AnimBackpackLights(colors=light_colors(lk2)))
            off = frame_of((lk2.trigger_time_ms + lk2.duration_time_ms) / s)
            if lk2.duration_time_ms and (i + 1 >= len(clip.backpack_lights) or light_frames[i + 1] > off):
                self._put(off, "lights", m.AnimBackpackLights(colors=[0, 0, 0, 0, 0]))
        for ek in clip.event:
            self.events.setdefault(frame_of(ek.trigger_time_ms / s), []).append(ek.event_id)
        for fk in clip.face_animation:
            images = sprite_resolver(fk.anim_name) if sprite_resolver is not None else None
            if not images:
                if sprite_resolver is None:
                    self.unsupported.add("FaceAnimation")
                continue
            # one sprite per 1/30 s of the clip's own time: speed 2 shows every other one
            start = frame_of(fk.trigger_time_ms / s)
            count = len(images)
            for j in range(max(1, math.ceil(count / s - _EPS))):
                self.sprites[start + j] = bytes(images[min(count - 1, int(j * s + _EPS))])

        #: procedural face keyframes: real trigger times (ms) and faces
        self.face_times = [k.trigger_time_ms / s for k in clip.procedural_face]
        self.faces = [keyframe_face(k) for k in clip.procedural_face]

        sounds: list[tuple[int, Sequence[bytes]]] = []
        if audio:
            sounds.append((0, audio))
        for ak in clip.robot_audio:
            frames = audio_resolver(ak) if audio_resolver is not None else None
            if frames:
                sounds.append((frame_of(ak.trigger_time_ms / s), frames))
            elif audio_resolver is None:
                self.unsupported.add("RobotAudio")
        for start, frames in sounds:
            for j, chunk in enumerate(frames):
                self.audio[start + j] = bytes(chunk)
        ends = [last]
        for table in (self.packets, self.events, self.audio, self.sprites):
            if table:
                ends.append(max(table))
        for motion in (self.head, self.lift):
            if motion is not None and motion.packets:
                ends.append(max(motion.packets))
        #: frames in one pass (the last one sends the clip's final keyframes)
        self.frames = max(ends) + 1

    def _put(self, frame: int, track: str, packet: Any) -> None:
        self.packets.setdefault(frame, []).append((track, packet))

    @property
    def has_face(self) -> bool:
        """True when the clip drives the face (procedural eyes or sprite sequences)."""
        return bool(self.faces) or bool(self.sprites)

    def face_at(self, t_ms: float) -> FaceParams | None:
        """The procedural face at ``t_ms`` (linear between keyframes), None before the first."""
        i = bisect.bisect_right(self.face_times, t_ms + _EPS) - 1
        if i < 0:
            return None
        if i + 1 >= len(self.faces):
            return self.faces[i]
        t0, t1 = self.face_times[i], self.face_times[i + 1]
        if t1 <= t0:
            return self.faces[i + 1]
        return facemod.interpolate(self.faces[i], self.faces[i + 1], (t_ms - t0) / (t1 - t0))

    def light_colors_at(self, frame: int) -> list[int] | None:
        """The backpack colours last set at or before ``frame`` (None if never)."""
        last = None
        for f in sorted(self.packets):
            if f > frame:
                break
            for track, packet in self.packets[f]:
                if track == "lights":
                    last = list(packet.colors)
        return last
