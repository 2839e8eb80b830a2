"""The 30 fps animation controller: the one place that streams frames to the robot.

Everything the robot shows or says is clocked by its 30 fps animation frame: each frame carries
exactly one audio packet (OutputAudio or OutputSilence), and may carry a face image and keyframe
packets (head, lift, body, backpack lights, headings). The controller owns that stream. It plays
clips (with :class:`~driver.animation.playback.PlaybackParams`), keeps a queue, lets behaviours
lock tracks, and when nothing else uses the face it runs the idle face (blinks, small saccades).

Clock
    Frame k is due at the absolute time ``t0 + k / 30``, so errors do not accumulate. It is
    *prepared* on the event loop ``lead_s`` (10 ms) early, with ``loop.call_at``, and *released*
    at exactly its time by the link's release thread (:meth:`driver.link.Link.frame_at`): the
    loop may be busy, or wake a millisecond late, without the robot noticing. (``release="loop"``
    prepares and sends each frame on the loop when due, as before.) A frame whose time has passed
    by a whole period or more is skipped (counted in ``stats.missed_frames``), never sent in a
    burst: the robot plays at its own rate and a burst would only overflow its buffer.

Face image
    DisplayImage is sent only when the encoded image changed, because the robot keeps showing
    the last one; but at least every :data:`DISPLAY_REFRESH_S` (25 s), because the robot blanks
    the screen after 30 s without an image. Rendering a changing face costs ~0.15 ms and a held
    one a cache lookup (``FaceRenderer``), well under the frame budget, so it runs in the frame.

Frame order
    Within a frame the controller sends StartAnimation (first frame of a clip), the keyframe
    packets, the face image, then the audio packet, which closes the frame; after a clip's last
    frame it sends EndAnimation.

Sounds, sprites, events
    RobotAudio keyframes become sound through ``audio_resolver`` and FaceAnimation keyframes
    (sprite sequences) become face images through ``sprite_resolver``; ``resources=`` sets up
    both from a resource tree. They are looked up when a clip is queued, not in the frame.
    Event keyframes reach ``on_event`` callbacks (the controller's and the playback's) when
    their frame goes out, and :meth:`Playback.wait_for_event` / :meth:`Playback.fired`.

Completion
    A playback completes when the robot answers AnimationEnded for its ``anim_id``; if no answer
    comes within :data:`END_TIMEOUT_S` of EndAnimation it completes anyway (``ended_by_robot``
    is then False). The next queued clip does not wait for that answer: it starts on the frame
    after the previous clip's last frame, so the stream has no gap.

Track locks
    Tracks are ``head``, ``lift``, ``body`` (wheels and headings), ``face``, ``lights`` and
    ``audio``. ``controller.lock(tracks, owner)`` reserves tracks for a behaviour. A clip never
    fails to start because of a lock: its keyframes on tracks locked by another owner are
    skipped (checked on every frame, so a lock taken mid-clip takes effect at once) while its
    other tracks play. A clip played with ``owner=X`` is not blocked by X's own locks. The face
    or audio of a locked track can be driven through the lock (:meth:`Lock.show_face`,
    :meth:`Lock.push_audio`); the idle face runs only while the face track is free.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import logging
import math
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import events as ev
from ..protocol import messages as m
from ..robot import Robot, RobotError
from . import face as facemod
from .clip import (
    AnimationError,
    BackpackLights,
    BodyMotion,
    Clip,
    FaceAnimation,
    RobotAudio,
)
from .face import FaceParams, FaceRenderer
from .playback import Fit, Playback, PlaybackCancelled, PlaybackParams, PlaybackState, resolve_easing
from .roots import ResourceRoots

log = logging.getLogger(__name__)

__all__ = [
    "DISPLAY_REFRESH_S",
    "END_TIMEOUT_S",
    "FPS",
    "FRAME_MS",
    "RELEASE_LEAD_S",
    "TRACKS",
    "AnimationController",
    "AudioResolver",
    "ControllerStats",
    "EventHandler",
    "Lock",
    "SpriteResolver",
    "Timeline",
    "TrackError",
]

FPS = 30
FRAME_S = 1.0 / FPS
FRAME_MS = 1000.0 / FPS
#: Resend the face image at least this often: the robot blanks its screen after 30 s without one.
DISPLAY_REFRESH_S = 25.0
#: How long to wait for AnimationEnded after EndAnimation before completing a playback anyway.
END_TIMEOUT_S = 1.0
#: With release="thread", each frame is prepared this long before its time: room for the loop
#: to be busy (or to wake late) without the frame missing its slot.
RELEASE_LEAD_S = 0.010
#: The tracks a clip or a behaviour can use or lock.
TRACKS: frozenset[str] = frozenset({"head", "lift", "body", "face", "lights", "audio"})
_TRACK_ALIASES = {"wheels": "body", "backpack": "lights", "backpack_lights": "lights"}

HEAD_MIN_DEG = -25.0
HEAD_MAX_DEG = 44.5
LIFT_MIN_MM = 32.0
LIFT_MAX_MM = 92.0
#: AnimHead/AnimLift carry their duration in a byte; longer moves go out as chunks of 7 frames.
_MAX_PACKET_DURATION_MS = 255
_CHUNK_FRAMES = 7
_STRAIGHT = 0x7FFF
_EPS = 1e-6


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


def _clamp(v: float, lo: float, hi: float) -> float:
    return lo if v < lo else hi if v > hi else v


def _frame_of(ms: float) -> int:
    """The first frame at or after ``ms`` of real playback time."""
    return max(0, math.ceil(ms / FRAME_MS - _EPS))


# --------------------------------------------------------------------------------- timeline


@dataclass
class _Segment:
    """One head or lift move: from ``a`` to ``b`` over ``dur`` ms starting at ``start`` ms."""

    start: float
    dur: float
    a: float
    b: float
    frame: int


class _Motion:
    """A head or lift track as moves over real time, and the packets that make them."""

    def __init__(self, start_value: float) -> None:
        self.start_value = start_value
        self.segments: list[_Segment] = []
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
        return self.segments[-1].b if self.segments else self.start_value

    def add(self, start: float, dur: float, target: float, make: Callable[[int, float], Any]) -> None:
        a = self.value(start)
        seg = _Segment(start, dur, a, target, _frame_of(start))
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
    """A BackpackLights keyframe as AnimBackpackLights colours (left, front, middle, back, right)."""
    out = []
    for name in ("left", "front", "middle", "back", "right"):
        rgba = tuple(getattr(kf, name)) + (0.0, 0.0, 0.0)
        r, g, b = (int(round(_clamp(c, 0.0, 1.0) * 255)) for c in rgba[:3])
        out.append(m.rgb555(r, g, b))
    return out


def _radius(kf: BodyMotion) -> int:
    if kf.radius_mm == "STRAIGHT":
        return _STRAIGHT
    if kf.radius_mm == "TURN_IN_PLACE":
        return 0
    value = kf.radius_value or 0.0
    return int(_clamp(round(value), -32768, 32767))


#: Turns a RobotAudio keyframe into 744-byte µ-law frames (None: no sound for it).
AudioResolver = Callable[[RobotAudio], "Sequence[bytes] | None"]
#: Turns a FaceAnimation keyframe's sprite sequence name into encoded DisplayImage frames, one per
#: 1/30 s (None: no such sequence).
SpriteResolver = Callable[[str], "Sequence[bytes] | None"]
#: Called with (playback, event_id) when a clip's Event keyframe goes out to the robot.
EventHandler = Callable[[Playback, str], None]


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
        last = _frame_of(self.duration_ms)
        #: frame -> [(track, packet)] for body, lights and heading packets
        self.packets: dict[int, list[tuple[str, Any]]] = {}
        self.events: dict[int, list[str]] = {}
        self.audio: dict[int, bytes] = {}
        #: frame -> encoded face image of a FaceAnimation sprite sequence (overrides procedural eyes)
        self.sprites: dict[int, bytes] = {}
        #: keyframe kinds this timeline cannot play (no resolver given for them)
        self.unsupported: set[str] = set()

        def head_packet(dur: int, value: float, var: int = 0) -> Any:
            return m.AnimHead(duration_ms=dur, variability_deg=min(var, 127), angle_deg=int(round(value)))

        def lift_packet(dur: int, value: float, var: int = 0) -> Any:
            return m.AnimLift(duration_ms=dur, variability_mm=min(var, 255), height_mm=int(round(value)))

        self.head: _Motion | None = None
        if clip.head_angle:
            self.head = _Motion(head_start_deg)
            for kf in clip.head_angle:
                target = _clamp(kf.angle_deg * p.head_multiplier + p.head_offset_deg, HEAD_MIN_DEG, HEAD_MAX_DEG)
                var = kf.angle_variability_deg
                self.head.add(kf.trigger_time_ms / s, kf.duration_time_ms / s, target,
                              lambda d, v, var=var: head_packet(d, v, var))
            self.head.finish()
        self.lift: _Motion | None = None
        if clip.lift_height:
            self.lift = _Motion(lift_start_mm)
            for lk in clip.lift_height:
                target = LIFT_MIN_MM + (lk.height_mm - LIFT_MIN_MM) * p.lift_multiplier + p.lift_offset_mm
                var = lk.height_variability_mm
                self.lift.add(lk.trigger_time_ms / s, lk.duration_time_ms / s,
                              _clamp(target, LIFT_MIN_MM, LIFT_MAX_MM), lambda d, v, var=var: lift_packet(d, v, var))
            self.lift.finish()
        self._head_packet, self._lift_packet = head_packet, lift_packet

        body_frames = [_frame_of(k.trigger_time_ms / s) for k in clip.body_motion]
        for i, bk in enumerate(clip.body_motion):
            f = body_frames[i]
            speed = int(_clamp(round(bk.speed * p.body_multiplier), -32768, 32767))
            self._put(f, "body", m.AnimBody(speed=speed, unknown=_radius(bk)))
            stop = _frame_of((bk.trigger_time_ms + bk.duration_time_ms) / s)
            if i + 1 >= len(clip.body_motion) or body_frames[i + 1] > stop:
                self._put(stop, "body", m.AnimBody(speed=0, unknown=_STRAIGHT))
        for rk in clip.record_heading:
            self._put(_frame_of(rk.trigger_time_ms / s), "body", m.RecordHeading())
        for tk in clip.turn_to_recorded_heading:
            self._put(_frame_of(tk.trigger_time_ms / s), "body", m.TurnToRecordedHeading())
        light_frames = [_frame_of(k.trigger_time_ms / s) for k in clip.backpack_lights]
        for i, lk2 in enumerate(clip.backpack_lights):
            self._put(light_frames[i], "lights", m.AnimBackpackLights(colors=light_colors(lk2)))
            off = _frame_of((lk2.trigger_time_ms + lk2.duration_time_ms) / s)
            if lk2.duration_time_ms and (i + 1 >= len(clip.backpack_lights) or light_frames[i + 1] > off):
                self._put(off, "lights", m.AnimBackpackLights(colors=[0, 0, 0, 0, 0]))
        for ek in clip.event:
            self.events.setdefault(_frame_of(ek.trigger_time_ms / s), []).append(ek.event_id)
        for fk in clip.face_animation:
            images = sprite_resolver(fk.anim_name) if sprite_resolver is not None else None
            if not images:
                if sprite_resolver is None:
                    self.unsupported.add("FaceAnimation")
                continue
            # one sprite per 1/30 s of the clip's own time: speed 2 shows every other one
            start = _frame_of(fk.trigger_time_ms / s)
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
                sounds.append((_frame_of(ak.trigger_time_ms / s), frames))
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


# --------------------------------------------------------------------------------- locks


class Lock:
    """Tracks reserved by an owner (a behaviour). Release it when done; it is also a context manager.

    While the face (audio) track is locked, what the owner gives :meth:`show_face`
    (:meth:`push_audio`) is what the robot shows (plays); otherwise the face holds and frames
    are silent.
    """

    def __init__(self, controller: AnimationController, tracks: frozenset[str], owner: object) -> None:
        self.controller = controller
        self.tracks = tracks
        self.owner = owner
        self.released = False
        self.face: FaceParams | bytes | None = None
        self.audio: deque[bytes] = deque()

    def release(self) -> None:
        """Give the tracks back (idempotent)."""
        if not self.released:
            self.released = True
            self.controller._release(self)

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


# --------------------------------------------------------------------------------- controller


@dataclass
class ControllerStats:
    """What the clock did: frames sent and missed, lateness, images, time spent per frame."""

    frames: int = 0
    missed_frames: int = 0
    #: frames prepared after their release time (sent at once, late), release="thread" only
    late_frames: int = 0
    images_sent: int = 0
    audio_frames: int = 0
    silence_frames: int = 0
    send_errors: int = 0
    offline_frames: int = 0
    max_late_ms: float = 0.0
    max_frame_cost_ms: float = 0.0
    max_render_ms: float = 0.0
    #: how late each of the last 2000 clock wake-ups was (ms after it was due)
    late_ms: deque[float] = field(default_factory=lambda: deque(maxlen=2000))
    events_fired: int = 0


class _Active:
    """Runtime state of the playback on air."""

    def __init__(self, pb: Playback, tl0: Timeline, tl1: Timeline, total: int | None, fit: Fit | None,
                 start_face: FaceParams, head0: float, lift0: float) -> None:
        self.pb = pb
        self.tl0 = tl0
        self.tl1 = tl1
        self.total = total
        self.fit = fit
        self.frame = 0
        self.start_face = start_face
        self.head0 = head0
        self.lift0 = lift0
        self.entry_frames = _frame_of(pb.params.entry_ms) if pb.params.entry_ms > 0 else 0
        self.exit_frames = _frame_of(pb.params.exit_ms) if pb.params.exit_ms > 0 and total else 0
        self.entry_ease = resolve_easing(pb.params.entry_easing)
        self.exit_ease = resolve_easing(pb.params.exit_easing)
        self.extra: dict[int, list[tuple[str, Any]]] = {}
        self.last_sampled: dict[str, int] = {}
        self.body_moving = False
        self.last_face: FaceParams | None = None

    def locate(self, g: int) -> tuple[Timeline, int, bool]:
        """(timeline, local frame, frozen) for global frame ``g``."""
        n0 = self.tl0.frames
        if g < n0:
            return self.tl0, g, False
        if self.fit is Fit.LOOP:
            return self.tl1, (g - n0) % self.tl1.frames, False
        return self.tl0, n0 - 1, True


class AnimationController:
    """Streams animation frames to one robot at 30 fps (see the module docstring).

    Create it with the robot, ``start()`` it on the running loop (``play`` starts it too), and
    ``await stop()`` at the end.

    - ``audio_resolver`` turns a clip's RobotAudio keyframe into µ-law frames and
      ``sprite_resolver`` a FaceAnimation keyframe's sprite sequence into face images;
      ``resources`` (a Cozmo resource tree, or several searched in order) provides both by default
      (:class:`~driver.animation.audio.SoundLibrary`,
      :class:`~driver.animation.display.SpriteLibrary`). Without them such keyframes are skipped.
    - ``on_event(playback, event_id)`` is called when a clip's Event keyframe goes out.
    - ``release``: ``"thread"`` (default) prepares each frame ``lead_s`` early on the loop and has
      the link's release thread send it at the exact frame time; ``"loop"`` prepares and sends it
      on the loop when due (``wake_early_s`` then wakes that much early and spins to the time).
      ``release_priority`` asks for a real-time (SCHED_FIFO) priority for the release thread and
      ``release_cpu`` pins it to one CPU (see :mod:`driver.link` on why frames can be late
      without either while the loop is busy).
    - ``seed`` makes the idle face reproducible.
    """

    def __init__(self, robot: Robot, *, idle_face: FaceParams | None = None,
                 audio_resolver: AudioResolver | None = None, sprite_resolver: SpriteResolver | None = None,
                 resources: ResourceRoots | None = None,
                 on_event: EventHandler | None = None,
                 seed: int | None = None, idle: bool = True, release: str = "thread",
                 lead_s: float = RELEASE_LEAD_S, release_priority: int | None = None,
                 release_cpu: int | None = None, wake_early_s: float = 0.0) -> None:
        if release not in ("thread", "loop"):
            raise ValueError(f"release must be 'thread' or 'loop', got {release!r}")
        if not 0.0 <= lead_s <= 0.5 * FRAME_S:
            raise ValueError(f"lead_s must be within 0..{0.5 * FRAME_S:.4f} s, got {lead_s!r}")
        self.robot = robot
        self.release = release
        #: release="thread": prepare each frame this long before it is due
        self.lead_s = lead_s
        self.release_priority = release_priority
        self.release_cpu = release_cpu
        #: release="loop": wake this much before a frame is due and spin to the exact time (0: off).
        #: It removes the loop's ~1 ms timer rounding at the price of up to this much busy CPU per frame.
        self.wake_early_s = max(0.0, min(0.002, wake_early_s))
        if resources is not None:
            from .audio import SoundLibrary
            from .display import SpriteLibrary

            audio_resolver = audio_resolver or SoundLibrary(resources, seed=seed)
            sprite_resolver = sprite_resolver or SpriteLibrary(resources)
        self.audio_resolver = audio_resolver
        self.sprite_resolver = sprite_resolver
        self.on_event = on_event
        self.idle_face = idle_face or facemod.DEFAULT_FACE
        self.idle_enabled = idle
        #: resend an unchanged face image this often (the robot blanks after 30 s without one)
        self.display_refresh_s = DISPLAY_REFRESH_S
        self.stats = ControllerStats()
        self.renderer = FaceRenderer()
        self._rng = np.random.default_rng(seed)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._t0 = 0.0
        self._k = 0
        self._queue: deque[Playback] = deque()
        self._active: _Active | None = None
        self._ending: dict[int, Playback] = {}
        self._locks: list[Lock] = []
        self._next_anim_id = 0
        self._remove_listener: Callable[[], None] | None = None
        self._last_image: bytes | None = None
        self._last_image_at = -math.inf
        self._row_offset = 0
        self._face: FaceParams = self.idle_face
        self._gaze: FaceParams = self.idle_face
        self._idle_frames: deque[FaceParams] = deque()
        self._next_blink = 0.0
        self._next_saccade = 0.0
        self._head_deg: float | None = None
        self._lift_mm: float | None = None
        self._unplayable: set[tuple[str, str]] = set()

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Start the frame clock on the running loop (idempotent)."""
        if self._handle is not None:
            return
        self._loop = asyncio.get_running_loop()
        link = self.robot.link
        if link is not None and hasattr(link, "release_priority"):  # effective when its release thread starts
            if self.release_priority is not None:
                link.release_priority = self.release_priority
            if self.release_cpu is not None:
                link.release_cpu = self.release_cpu
        if self._remove_listener is None:
            self._remove_listener = self.robot.add_listener(self._on_robot_event)
        now = self._loop.time()
        self._t0 = now
        self._k = 0
        self._schedule_idle(now)
        self._handle = self._loop.call_at(self._t0, self._tick)

    @property
    def running(self) -> bool:
        """True while the frame clock runs."""
        return self._handle is not None

    async def stop(self) -> None:
        """Stop the clock, cancelling what plays and what is queued."""
        for pb in [*self._queue, *([self._active.pb] if self._active else [])]:
            self._cancel(pb, "controller stopped")
        for pb in list(self._ending.values()):
            pb._finish(None, PlaybackState.SUCCEEDED)  # every frame was sent already
        self._ending.clear()
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self._remove_listener is not None:
            self._remove_listener()
            self._remove_listener = None

    async def __aenter__(self) -> AnimationController:
        self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # ------------------------------------------------------------------ playing

    def play(self, clip: Clip, *, params: PlaybackParams | None = None, tracks: Iterable[str] | None = None,
             audio: Sequence[bytes] | None = None, owner: object | None = None,
             on_event: EventHandler | None = None) -> Playback:
        """Play ``clip`` from the next frame, cancelling the clip on air (the queue stays queued).

        ``tracks`` limits the clip to some tracks (default: all); ``audio`` is a sound of µ-law
        frames to play from the clip's first frame; ``owner`` lets the clip use tracks that
        owner has locked; ``on_event(playback, event_id)`` hears this clip's Event keyframes
        (besides the controller's own ``on_event``).
        """
        pb = self._make(clip, params, tracks, audio, owner, on_event)
        if self._active is not None:
            self._cancel(self._active.pb, f"superseded by {clip.name!r}")
        self._queue.appendleft(pb)
        self.start()
        return pb

    def queue(self, clip: Clip, *, params: PlaybackParams | None = None, tracks: Iterable[str] | None = None,
              audio: Sequence[bytes] | None = None, owner: object | None = None,
              on_event: EventHandler | None = None) -> Playback:
        """Play ``clip`` after everything already playing or queued (arguments as for :meth:`play`)."""
        pb = self._make(clip, params, tracks, audio, owner, on_event)
        self._queue.append(pb)
        self.start()
        return pb

    def _make(self, clip: Clip, params: PlaybackParams | None, tracks: Iterable[str] | None,
              audio: Sequence[bytes] | None, owner: object | None, on_event: EventHandler | None) -> Playback:
        if not isinstance(clip, Clip):
            raise AnimationError(f"play expects a Clip, got {type(clip).__name__}")
        pb = Playback(self, clip, params or PlaybackParams(), normalise_tracks(tracks), owner)
        pb.audio = audio
        if on_event is not None:
            pb.on_event.append(on_event)
        # Sounds and sprites are looked up (and converted) here, not in the 30 fps frame.
        pb._sounds = {kf: self._resolve_audio(clip, kf) for kf in clip.robot_audio}
        pb._sprites = {kf.anim_name: self._resolve_sprites(clip, kf) for kf in clip.face_animation}
        return pb

    def _resolve_audio(self, clip: Clip, kf: RobotAudio) -> Sequence[bytes] | None:
        if self.audio_resolver is None:
            return None
        try:
            return self.audio_resolver(kf)
        except Exception:  # a bad sound must not stop the clip
            log.exception("clip %r: sound for RobotAudio at %d ms failed", clip.name, kf.trigger_time_ms)
            return None

    def _resolve_sprites(self, clip: Clip, kf: FaceAnimation) -> Sequence[bytes] | None:
        images: Sequence[bytes] | None = None
        if self.sprite_resolver is not None:
            try:
                images = self.sprite_resolver(kf.anim_name)
            except Exception:
                log.exception("clip %r: sprite sequence %r failed", clip.name, kf.anim_name)
        if not images and (clip.name, kf.anim_name) not in self._unplayable:
            self._unplayable.add((clip.name, kf.anim_name))
            why = "no sprite resolver (give resources= or sprite_resolver=)" if self.sprite_resolver is None \
                else "no such sprite sequence"
            log.warning("clip %r: FaceAnimation %r at %d ms is not shown: %s", clip.name, kf.anim_name,
                        kf.trigger_time_ms, why)
        return images

    @property
    def current(self) -> Playback | None:
        """The playback on air, if any."""
        return self._active.pb if self._active else None

    @property
    def queued(self) -> list[Playback]:
        """Playbacks waiting their turn, in order."""
        return list(self._queue)

    def cancel_all(self) -> None:
        """Cancel the playback on air and everything queued."""
        for pb in list(self._queue):
            self._cancel(pb, "cancel_all")
        if self._active is not None:
            self._cancel(self._active.pb, "cancel_all")

    def _cancel(self, pb: Playback, reason: str) -> None:
        if pb.done():
            return
        if pb in self._queue:
            self._queue.remove(pb)
        elif self._active is not None and self._active.pb is pb:
            self._abort_active()
        if pb.anim_id is not None:
            self._ending.pop(pb.anim_id, None)
        pb._finish(PlaybackCancelled(f"animation {pb.clip.name!r}: {reason}"), PlaybackState.CANCELLED)

    def _abort_active(self) -> None:
        act = self._active
        assert act is not None
        self._active = None
        self._end_face(act)
        try:
            if act.body_moving:
                self.robot.send(m.AnimBody(speed=0, unknown=_STRAIGHT))
            self.robot.send(m.AbortAnimation())
        except RobotError as exc:
            log.debug("could not abort animation: %s", exc)

    # ------------------------------------------------------------------ locks

    def lock(self, tracks: Iterable[str] | str, owner: object) -> Lock:
        """Reserve ``tracks`` for ``owner``; clips of other owners skip them until released."""
        lk = Lock(self, normalise_tracks(tracks), owner)
        self._locks.append(lk)
        return lk

    def _release(self, lk: Lock) -> None:
        if lk in self._locks:
            self._locks.remove(lk)

    def locked(self, track: str, *, owner: object | None = None) -> bool:
        """True when ``track`` is locked by someone other than ``owner``."""
        return any(track in lk.tracks and (owner is None or lk.owner is not owner) for lk in self._locks)

    def _lock_with(self, track: str, what: str) -> Lock | None:
        for lk in reversed(self._locks):
            if track in lk.tracks and (getattr(lk, what) if what == "face" else lk.audio):
                return lk
        return None

    # ------------------------------------------------------------------ robot events

    def _on_robot_event(self, event: ev.RobotEvent) -> None:
        if isinstance(event, ev.AnimationStarted):
            act = self._active
            for pb in ([act.pb] if act else []) + list(self._ending.values()):
                if pb.anim_id == event.anim_id:
                    pb.robot_started = True
        elif isinstance(event, ev.AnimationEnded):
            ended = self._ending.pop(event.anim_id, None)
            if ended is not None:
                ended.ended_by_robot = True
                ended._finish(None, PlaybackState.SUCCEEDED)

    def _end_timeout(self, pb: Playback) -> None:
        if pb.anim_id is not None and self._ending.get(pb.anim_id) is pb:
            del self._ending[pb.anim_id]
            log.debug("no AnimationEnded for %r within %.1f s; completing anyway", pb.clip.name, END_TIMEOUT_S)
            pb._finish(None, PlaybackState.SUCCEEDED)

    # ------------------------------------------------------------------ the clock

    def _tick(self) -> None:
        loop = self._loop
        assert loop is not None
        now = loop.time()
        due = self._t0 + self._k * FRAME_S
        ahead = self.release == "thread"
        if not ahead and self.wake_early_s and now < due:
            while now < due:  # bounded by wake_early_s (at most 2 ms)
                now = loop.time()
        late = now - (due - self.lead_s if ahead else due)
        if now - due >= FRAME_S:
            # The loop was held for a whole period or more: skip those frames, never burst them.
            skipped = int((now - due) / FRAME_S)
            self.stats.missed_frames += skipped
            self._k += skipped
            due += skipped * FRAME_S
            late -= skipped * FRAME_S
        self.stats.late_ms.append(late * 1000.0)
        self.stats.max_late_ms = max(self.stats.max_late_ms, late * 1000.0)
        started = time.perf_counter()
        try:
            if ahead:
                if now > due:
                    self.stats.late_frames += 1
                self._frame(due, release_at=due)
            else:
                self._frame(now)
        except Exception:
            log.exception("animation frame %d failed", self._k)
        self.stats.max_frame_cost_ms = max(self.stats.max_frame_cost_ms, (time.perf_counter() - started) * 1000.0)
        self._k += 1
        early = self.lead_s if ahead else self.wake_early_s
        self._handle = loop.call_at(self._t0 + self._k * FRAME_S - early, self._tick)

    def _frame(self, now: float, release_at: float | None = None) -> None:
        """Prepare the frame of time ``now`` and send it (at ``release_at``, when given)."""
        if not self.robot.connected:
            self.stats.offline_frames += 1
            return
        out: list[Any] = []
        audio: bytes | None = None
        face: FaceParams | bytes | None = None
        clip_face = False
        if self._active is None and self._queue:
            self._begin(self._queue.popleft(), out, now)
        act = self._active
        if act is not None:
            face, audio, clip_face = self._clip_frame(act, now, out)
        if not clip_face:
            if self.locked("face"):
                # a behaviour holds the face: show what it gave, else hold the last image
                lk = self._lock_with("face", "face")
                face = lk.face if lk is not None else None
            elif self.idle_enabled:
                face = self._idle_face(now)
        if audio is None:
            lk = self._lock_with("audio", "audio")
            if lk is not None:
                audio = lk.audio.popleft()
        link = self.robot.link
        clocked = release_at is not None and link is not None and callable(getattr(link, "frame_at", None))
        # send: keyframes, face image, then the audio packet that closes the frame
        try:
            with link.frame_at(release_at) if clocked else contextlib.nullcontext():  # type: ignore[union-attr]
                for packet in out:
                    self.robot.send(packet)
                if face is not None:
                    self._show(face, now)
                self.robot.play_audio_frame(audio)
                if audio is None:
                    self.stats.silence_frames += 1
                else:
                    self.stats.audio_frames += 1
                self.stats.frames += 1
                if act is not None and self._active is act and act.total is not None and act.frame >= act.total:
                    self._complete(act, now)
            if not clocked:
                # Put the frame on the wire now rather than on the loop's next turn, where other
                # ready tasks could hold it back (used when the link offers a public flush).
                flush = getattr(link, "flush", None)
                if callable(flush):
                    flush()
        except (RobotError, ConnectionError) as exc:
            self.stats.send_errors += 1
            log.debug("frame not sent: %s", exc)

    def _show(self, face: FaceParams | bytes, now: float) -> None:
        if isinstance(face, FaceParams):
            self._face = face
            t = time.perf_counter()
            data = self.renderer.display_bytes(face, self._row_offset)
            self.stats.max_render_ms = max(self.stats.max_render_ms, (time.perf_counter() - t) * 1000.0)
        else:
            data = bytes(face)
        if data != self._last_image or now - self._last_image_at >= self.display_refresh_s:
            self.robot.display_image(data)
            self._last_image = data
            self._last_image_at = now
            self.stats.images_sent += 1

    # ------------------------------------------------------------------ clips

    def _begin(self, pb: Playback, out: list[Any], now: float) -> None:
        head0 = self._head_deg
        lift0 = self._lift_mm
        state = self.robot.state
        if state is not None:
            head0 = math.degrees(state.proprioception.head_angle_rad)
            lift0 = state.proprioception.lift_height_mm
        clip = pb.clip
        if head0 is None:
            head0 = float(clip.head_angle[0].angle_deg) if clip.head_angle else 0.0
        if lift0 is None:
            lift0 = float(clip.lift_height[0].height_mm) if clip.lift_height else LIFT_MIN_MM
        audio = pb.audio
        # the sounds and sprites were resolved when the clip was queued (see _make)
        sounds, sprites = pb._sounds, pb._sprites
        audio_resolver = (lambda kf: sounds.get(kf)) if self.audio_resolver is not None else None
        sprite_resolver = (lambda name: sprites.get(name)) if self.sprite_resolver is not None else None
        tl0 = Timeline(clip, pb.params, head_start_deg=head0, lift_start_mm=lift0, audio=audio,
                       audio_resolver=audio_resolver, sprite_resolver=sprite_resolver)
        tl1 = tl0
        fit = pb.params.fit_for(clip, tl0.frames * FRAME_MS)
        if fit is Fit.LOOP:
            tl1 = Timeline(clip, pb.params, head_start_deg=tl0.head.end_value if tl0.head else head0,
                           lift_start_mm=tl0.lift.end_value if tl0.lift else lift0, audio=audio,
                           audio_resolver=audio_resolver, sprite_resolver=sprite_resolver)
        if tl0.unsupported:
            log.debug("clip %r: %s keyframes are not played", clip.name, ", ".join(sorted(tl0.unsupported)))
        total: int | None = tl0.frames
        if pb.params.duration_ms is not None and fit is not None:
            total = max(1, int(round(pb.params.duration_ms / FRAME_MS)))
        elif fit is Fit.LOOP:
            total = None  # loop until cancelled
        self._next_anim_id = self._next_anim_id % 255 + 1
        pb.anim_id = self._next_anim_id
        pb.state = PlaybackState.PLAYING
        pb.started_at = now
        self._active = _Active(pb, tl0, tl1, total, fit, self._face, head0, lift0)
        out.append(m.StartAnimation(anim_id=pb.anim_id))

    def _allowed(self, act: _Active, track: str) -> bool:
        return track in act.pb.tracks and not self.locked(track, owner=act.pb.owner)

    def _clip_frame(self, act: _Active, now: float,
                    out: list[Any]) -> tuple[FaceParams | bytes | None, bytes | None, bool]:
        g = act.frame
        tl, i, frozen = act.locate(g)
        t_ms = i * FRAME_MS
        first_pass = g < act.tl0.frames
        in_entry = g < act.entry_frames
        exit_start = (act.total - act.exit_frames) if act.exit_frames and act.total else None
        in_exit = exit_start is not None and g >= exit_start
        if not frozen:
            for track, packet in tl.packets.get(i, ()):
                if self._allowed(act, track):
                    out.append(packet)
                    if type(packet).__name__ == "AnimBody":
                        act.body_moving = packet.speed != 0
            events = tl.events.get(i)
            if events:
                self._fire(act.pb, events, now)
        for track, packet in act.extra.pop(g, ()):
            if self._allowed(act, track) and not in_exit:
                out.append(packet)
        for track, motion, home in (("head", tl.head, act.head0), ("lift", tl.lift, act.lift0)):
            if motion is None or not self._allowed(act, track):
                continue
            if in_entry or in_exit:
                pose = motion.value(t_ms)
                if in_entry:
                    u = act.entry_ease(g / act.entry_frames)
                    value = home + (pose - home) * u
                else:
                    assert exit_start is not None
                    u = act.exit_ease(min(1.0, (g - exit_start + 1) / act.exit_frames))
                    value = pose + (home - pose) * u
                key = int(round(value))
                if act.last_sampled.get(track) != key:
                    act.last_sampled[track] = key
                    make = tl._head_packet if track == "head" else tl._lift_packet
                    out.append(make(int(round(FRAME_MS)), value))
                self._remember_pose(track, value)
                continue
            if not frozen:
                entry_done_at = act.entry_frames
                for seg_index, packet in motion.packets.get(i, ()):
                    if first_pass and act.entry_frames and motion.segments[seg_index].frame < entry_done_at:
                        continue  # this move was replaced by the entry blend
                    out.append(packet)
                    self._remember_pose(track, motion.segments[seg_index].b)
                if first_pass and act.entry_frames and g == act.entry_frames:
                    self._catch_up(act, tl, track, motion, t_ms, g, out)
        face: FaceParams | bytes | None = None
        clip_face = tl.has_face and self._allowed(act, "face")
        sprite = tl.sprites.get(i) if clip_face else None
        if sprite is not None:
            face = sprite  # a sprite sequence frame: shown as drawn, no blending
        elif clip_face and not tl.faces:
            face = None  # between or after sprite sequences: the face holds the last image
        elif clip_face:
            clip_face_now = tl.face_at(t_ms)
            face = clip_face_now if clip_face_now is not None else act.last_face or act.start_face
            if in_entry:
                face = facemod.interpolate(act.start_face, face, act.entry_ease(g / act.entry_frames))
            elif in_exit:
                assert exit_start is not None
                u = act.exit_ease(min(1.0, (g - exit_start + 1) / act.exit_frames))
                face = facemod.interpolate(face, self._gaze, u)
            act.last_face = face
        audio = None
        if not frozen and self._allowed(act, "audio"):
            audio = tl.audio.get(i)
        act.frame += 1
        act.pb.frames_sent = act.frame
        if act.pb.started_at is None:
            act.pb.started_at = now
        return face, audio, clip_face

    def _fire(self, pb: Playback, event_ids: list[str], at: float) -> None:
        """Event keyframes are in the frame of time ``at``: tell listeners when that frame goes out."""
        assert self._loop is not None
        self._loop.call_at(at, self._deliver_events, pb, tuple(event_ids), at)

    def _deliver_events(self, pb: Playback, event_ids: tuple[str, ...], at: float) -> None:
        for event_id in event_ids:  # in clip order
            self.stats.events_fired += 1
            pb._event(event_id, at)
            for handler in ([self.on_event] if self.on_event is not None else []) + list(pb.on_event):
                try:
                    handler(pb, event_id)
                except Exception:  # a listener's bug must not stop the clock
                    log.exception("event handler failed on %r of clip %r", event_id, pb.clip.name)

    def _catch_up(self, act: _Active, tl: Timeline, track: str, motion: _Motion, t_ms: float, g: int,
                  out: list[Any]) -> None:
        """After the entry blend, finish the move the clip is in the middle of, on time."""
        progress = motion.in_progress(t_ms)
        if progress is None:
            target, remaining = motion.value(t_ms), FRAME_MS
        else:
            target, remaining = progress
        here = act.last_sampled.get(track, target)
        make = tl._head_packet if track == "head" else tl._lift_packet
        for df, dur, value in split_move(remaining, float(here), target):
            packet = make(max(1, dur), value)
            if df == 0:
                out.append(packet)
            else:
                act.extra.setdefault(g + df, []).append((track, packet))
        self._remember_pose(track, target)

    def _remember_pose(self, track: str, value: float) -> None:
        if track == "head":
            self._head_deg = value
        else:
            self._lift_mm = value

    def _complete(self, act: _Active, now: float) -> None:
        """The last frame went out: end the animation on the robot and start the next clip."""
        pb = act.pb
        self._active = None
        if act.body_moving:
            self.robot.send(m.AnimBody(speed=0, unknown=_STRAIGHT))
        self.robot.send(m.EndAnimation())
        self._end_face(act)
        pb.last_frame_at = now
        pb.state = PlaybackState.ENDING
        assert pb.anim_id is not None
        self._ending[pb.anim_id] = pb
        assert self._loop is not None
        self._loop.call_later(END_TIMEOUT_S, self._end_timeout, pb)

    def _end_face(self, act: _Active) -> None:
        # Return smoothly from the clip's last face to the idle gaze.
        if act.last_face is not None and act.last_face != self._gaze:
            steps = 6
            self._idle_frames = deque(
                facemod.interpolate(act.last_face, self._gaze, k / steps) for k in range(1, steps + 1))

    # ------------------------------------------------------------------ idle face

    def _schedule_idle(self, now: float) -> None:
        self._next_blink = now + float(self._rng.uniform(1.0, 7.0))
        self._next_saccade = now + float(self._rng.uniform(1.5, 5.0))

    def _idle_face(self, now: float) -> FaceParams:
        """The idle face for this frame: the held gaze, with blinks every 1–7 s and small saccades."""
        if not self._idle_frames:
            if now >= self._next_blink:
                self._idle_frames.extend(facemod.blink(self._gaze))
                self._row_offset ^= 1  # swap the lit row set at a blink, against burn-in
                self._next_blink = now + float(self._rng.uniform(1.0, 7.0))
            elif now >= self._next_saccade:
                if self._rng.random() < 0.3:
                    target = self.idle_face
                else:
                    target = facemod.look(self.idle_face, float(self._rng.uniform(-4.0, 4.0)),
                                          float(self._rng.uniform(-2.0, 2.0)))
                self._idle_frames.extend(facemod.saccade(self._gaze, target, frames=3))
                self._gaze = target
                self._next_saccade = now + float(self._rng.uniform(1.5, 5.0))
        if self._idle_frames:
            return self._idle_frames.popleft()
        return self._gaze
