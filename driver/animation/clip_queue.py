"""The animation controller's clips: played, queued, cancelled, put on air, ended.

:class:`ClipQueue` is that part of :class:`~driver.animation.controller.AnimationController`
(whose module docstring tells the whole story): ``play`` and ``queue`` make a
:class:`~driver.animation.playback.Playback` (sounds and sprites looked up there, not in the
30 fps frame), the clock's frame puts the next one on air (:meth:`ClipQueue._begin`) and, after
its last frame, ends it on the robot (:meth:`ClipQueue._complete`); a playback completes when the
robot answers AnimationEnded, or :data:`END_TIMEOUT_S` after EndAnimation. Event keyframes reach
their listeners when their frame goes out.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .. import events as ev
from ..clocked import AnimationTarget
from ..protocol import messages as m
from ..robot import RobotError
from .clip import AnimationError, Clip
from .face_images import FaceImages
from .idle import IdleFace
from .keyframe_assets import resolve_sounds, resolve_sprites
from .onair import OnAir
from .playback import Playback, PlaybackParams
from .stats import ControllerStats
from .timeline import STRAIGHT, AudioResolver, SpriteResolver
from .tracks import normalise_tracks

__all__ = ["END_TIMEOUT_S", "ClipQueue", "EventHandler"]

log = logging.getLogger("driver.animation.controller")

#: How long to wait for AnimationEnded after EndAnimation before completing a playback anyway.
END_TIMEOUT_S = 1.0

#: Called with (playback, event_id) when a clip's Event keyframe goes out to the robot.
EventHandler = Callable[[Playback, str], None]


class ClipQueue:
    """The clips of an :class:`~driver.animation.controller.AnimationController` (a mixin: the
    controller provides the clock and the rest)."""

    robot: AnimationTarget
    audio_resolver: AudioResolver | None
    sprite_resolver: SpriteResolver | None
    on_event: EventHandler | None
    idle: IdleFace
    _loop: asyncio.AbstractEventLoop | None
    _stats: ControllerStats
    _images: FaceImages
    _queue: deque[Playback]
    _active: OnAir | None
    #: playbacks whose frames all went out, waiting for the robot's AnimationEnded, by anim id
    _ending: dict[int, Playback]
    _next_anim_id: int
    _head_deg: float | None
    _lift_mm: float | None
    _unplayable: set[tuple[str, str]]
    _silence_owed: bool

    if TYPE_CHECKING:
        def start(self) -> None: ...  # noqa: D102

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
        # Sounds and sprites are looked up (and converted) here, not in the 30 fps frame.
        pb_params = params or PlaybackParams()
        pb = Playback(clip, pb_params, normalise_tracks(tracks), owner, cancel=self._cancel, audio=audio,
                      sounds=resolve_sounds(self.audio_resolver, clip, pb_params.pitch_semitones),
                      sprites=resolve_sprites(self.sprite_resolver, clip, self._unplayable))
        if on_event is not None:
            pb.on_event.append(on_event)
        return pb

    @property
    def current(self) -> Playback | None:
        """The playback on air, if any."""
        return self._active.pb if self._active else None

    @property
    def queued(self) -> list[Playback]:
        """Playbacks waiting their turn, in order."""
        return list(self._queue)

    def cancel_all(self) -> None:
        """Cancel the playback on air and everything queued (locks stay; see :meth:`stop_all`)."""
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
        pb.mark_cancelled(reason)

    def _abort_active(self) -> None:
        act = self._active
        assert act is not None
        self._active = None
        self.idle.return_from(act.last_face)
        if not self.robot.connected:
            return  # nothing to abort on a robot that does not hear us
        try:
            self.robot.send(m.AbortAnimation())
            if act.body_moving and getattr(self.robot, "wheel_commands", None) == act.wheel_mark:
                # A body keyframe drives the treads until countermanded, and the abort empties the
                # robot's buffer, a stop queued there too (hardware.md §4): they are stopped
                # directly, unless the treads were commanded since the clip began (whoever did
                # drives them now: a turn to a face as the clip is stopped).
                self.robot.send(m.DriveWheels(lwheel_speed_mmps=0.0, rwheel_speed_mmps=0.0,
                                              lwheel_accel_mmps2=0.0, rwheel_accel_mmps2=0.0))
        except (RobotError, ConnectionError) as exc:
            log.debug("could not abort animation: %s", exc)

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
                ended.complete(ended_by_robot=True)

    def _end_timeout(self, pb: Playback) -> None:
        if pb.anim_id is not None and self._ending.get(pb.anim_id) is pb:
            del self._ending[pb.anim_id]
            log.debug("no AnimationEnded for %r within %.1f s; completing anyway", pb.clip.name, END_TIMEOUT_S)
            pb.complete()

    # ------------------------------------------------------------------ clips

    def _begin(self, pb: Playback, out: list[Any], now: float) -> None:
        """Put ``pb`` on air from this frame, starting from where the head and lift are now."""
        head, lift = self._head_deg, self._lift_mm
        state = self.robot.state
        if state is not None:
            head = math.degrees(state.proprioception.head_angle_rad)
            lift = state.proprioception.lift_height_mm
        act = OnAir(pb, head_deg=head, lift_mm=lift, start_face=self._images.face,
                    resolve_sounds=self.audio_resolver is not None,
                    resolve_sprites=self.sprite_resolver is not None)
        act.wheel_mark = getattr(self.robot, "wheel_commands", None)
        self._next_anim_id = self._next_anim_id % 255 + 1
        pb.mark_playing(self._next_anim_id, now)
        self._active = act
        out.append(m.StartAnimation(anim_id=self._next_anim_id))

    def _fire(self, pb: Playback, event_ids: list[str], at: float) -> None:
        """Event keyframes are in the frame of time ``at``: tell listeners when that frame goes out."""
        assert self._loop is not None
        self._loop.call_at(at, self._deliver_events, pb, tuple(event_ids), at)

    def _deliver_events(self, pb: Playback, event_ids: tuple[str, ...], at: float) -> None:
        for event_id in event_ids:  # in clip order
            self._stats.events_fired += 1
            pb.event_fired(event_id, at)
            for handler in ([self.on_event] if self.on_event is not None else []) + list(pb.on_event):
                try:
                    handler(pb, event_id)
                except Exception:  # a listener's bug must not stop the clock
                    log.exception("event handler failed on %r of clip %r", event_id, pb.clip.name)

    def _complete(self, act: OnAir, now: float) -> None:
        """The last frame went out: end the animation on the robot and start the next clip."""
        pb = act.pb
        self._active = None
        if act.body_moving:
            self.robot.send(m.AnimBody(speed=0, unknown=STRAIGHT))
        self.robot.send(m.EndAnimation())
        self._silence_owed = True  # the engine follows EndAnimation with one silence frame
        self.idle.return_from(act.last_face)
        pb.mark_ending(now)
        assert pb.anim_id is not None
        self._ending[pb.anim_id] = pb
        assert self._loop is not None
        self._loop.call_later(END_TIMEOUT_S, self._end_timeout, pb)
