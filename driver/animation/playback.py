"""How one clip is played: playback parameters and the handle a caller gets back.

A behaviour rarely plays a clip exactly as it was authored. It may want it faster (an excited
personality), with the head motion damped (a shy one), blended in from wherever the robot is now
and back out again, or fitted into a slot that is longer or shorter than the clip. Those choices
travel as one immutable :class:`PlaybackParams`; the controller applies them when it plays.

:class:`Playback` is what :meth:`AnimationController.play` returns: awaitable, and pollable with
``done()`` so a behaviour-tree node can start a clip on one tick and look at it on the next.
The clip's Event keyframes reach behaviours through it too: ``on_event`` callbacks, ``fired()``
for polling and ``await wait_for_event()``.

This module knows nothing of the controller: a playback is told what happened to it through its
public ``mark_*``/``complete``/``event_fired`` methods, and hands a caller's ``cancel()`` to the
callback it was made with.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from ..pending import Pending
from .clip import AnimationError, Clip, RobotAudio

__all__ = [
    "Fit",
    "Playback",
    "PlaybackCancelled",
    "PlaybackError",
    "PlaybackParams",
    "PlaybackState",
    "resolve_easing",
]

#: Sounds of a clip's RobotAudio keyframes, resolved when it was queued (None: no sound for it).
ResolvedSounds = dict[RobotAudio, "Sequence[bytes] | None"]
#: Images of a clip's FaceAnimation sprite sequences by name, resolved when it was queued.
ResolvedSprites = dict[str, "Sequence[bytes] | None"]


class PlaybackError(AnimationError):
    """Bad playback parameters, or a clip that cannot be played as asked."""


class PlaybackCancelled(PlaybackError):
    """The playback was cancelled (by the caller, by a newer ``play``, or on shutdown)."""


class Fit(str, Enum):
    """How a clip fills a slot of a different length (``PlaybackParams.duration_ms``).

    LOOP repeats the clip, FREEZE holds its last frame, TRUNCATE stops it early.
    """

    LOOP = "loop"
    FREEZE = "freeze"
    TRUNCATE = "truncate"


def resolve_easing(name: str) -> Callable[[float], float]:
    """The easing curve called ``name`` (``linear``, ``cubic_in_out`` …) as a PlaybackError if unknown.

    The curves live in :mod:`driver.animation.easing`; playback errors are reported as such.
    """
    from . import easing

    try:
        return easing.easing(name)
    except (ValueError, AttributeError) as exc:
        raise PlaybackError(f"playback parameter easing: {exc}") from None


def _finite(name: str, value: float, lo: float, hi: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise PlaybackError(f"playback parameter {name}: expected a finite number, got {value!r}")
    if not lo <= value <= hi:
        raise PlaybackError(f"playback parameter {name}: {value} is outside {lo}..{hi}")


@dataclass(frozen=True)
class PlaybackParams:
    """Per-playback adjustments of a clip (all optional; the defaults play it as authored).

    - ``speed``: 2.0 plays twice as fast (keyframe times and durations are divided by it).
    - ``head_multiplier`` / ``head_offset_deg``: the head angle sent is
      ``angle * multiplier + offset``, clamped to the head's −25°…44.5°.
    - ``lift_multiplier`` / ``lift_offset_mm``: the lift height sent is
      ``32 + (height − 32) * multiplier + offset`` (scaled about the lowest position), clamped
      to 32…92 mm.
    - ``body_multiplier``: scales wheel speeds of body-motion keyframes.
    - ``entry_ms`` / ``entry_easing``: blend head, lift and face from where they are when the
      clip starts into the clip over this long; ``exit_ms`` / ``exit_easing``: blend back to the
      starting pose (and the idle face) over the last ``exit_ms``. 0 disables a blend; exit 0
      keeps the clip's final pose.
    - ``duration_ms`` / ``fit``: the slot the clip must fill, and how (:class:`Fit`). With no
      ``fit``, the clip's playback hints decide: a longer slot loops an ``extendable`` clip
      (unless ``no_looping``) and otherwise freezes on the last frame; a shorter slot truncates
      a ``truncatable`` clip and otherwise the clip plays to its end. ``duration_ms=None`` with
      ``Fit.LOOP`` loops until cancelled.
    - ``pitch_semitones``: play the clip's sounds (its RobotAudio keyframes) this much higher, or
      lower when negative; the audio resolver shifts them when it supports it (the sound library
      does, by resampling, so a higher sound is also quicker: pitch and tempo move together).
      The keyframes still start each sound on time.
    """

    speed: float = 1.0
    head_multiplier: float = 1.0
    head_offset_deg: float = 0.0
    lift_multiplier: float = 1.0
    lift_offset_mm: float = 0.0
    body_multiplier: float = 1.0
    entry_ms: float = 0.0
    entry_easing: str = "linear"
    exit_ms: float = 0.0
    exit_easing: str = "linear"
    duration_ms: float | None = None
    fit: Fit | None = None
    pitch_semitones: float = 0.0

    def __post_init__(self) -> None:
        _finite("speed", self.speed, 0.05, 20.0)
        _finite("head_multiplier", self.head_multiplier, -5.0, 5.0)
        _finite("head_offset_deg", self.head_offset_deg, -90.0, 90.0)
        _finite("lift_multiplier", self.lift_multiplier, -5.0, 5.0)
        _finite("lift_offset_mm", self.lift_offset_mm, -100.0, 100.0)
        _finite("body_multiplier", self.body_multiplier, -5.0, 5.0)
        _finite("entry_ms", self.entry_ms, 0.0, 60_000.0)
        _finite("exit_ms", self.exit_ms, 0.0, 60_000.0)
        _finite("pitch_semitones", self.pitch_semitones, -12.0, 12.0)
        if self.duration_ms is not None:
            _finite("duration_ms", self.duration_ms, 0.0, 24 * 3600 * 1000.0)
        if self.fit is not None and not isinstance(self.fit, Fit):
            try:
                object.__setattr__(self, "fit", Fit(str(self.fit).lower()))
            except ValueError:
                raise PlaybackError(
                    f"playback parameter fit: expected loop, freeze or truncate, got {self.fit!r}"
                ) from None
        resolve_easing(self.entry_easing)
        resolve_easing(self.exit_easing)

    def fit_for(self, clip: Clip, clip_ms: float) -> Fit | None:
        """The fit mode actually used for ``clip`` (whose one pass lasts ``clip_ms`` real ms)."""
        if self.duration_ms is None:
            return self.fit if self.fit is Fit.LOOP else None
        if self.fit is not None:
            return self.fit
        hints = clip.playback
        if self.duration_ms > clip_ms:
            return Fit.LOOP if hints.extendable and not hints.no_looping else Fit.FREEZE
        if self.duration_ms < clip_ms:
            return Fit.TRUNCATE if hints.truncatable else None
        return None


class PlaybackState(Enum):
    """Life of a playback."""

    QUEUED = "queued"
    PLAYING = "playing"
    ENDING = "ending"  # every frame sent, waiting for the robot's AnimationEnded
    SUCCEEDED = "succeeded"
    CANCELLED = "cancelled"


class Playback(Pending):
    """One clip being (or about to be) played.

    ``await playback`` waits until it completes and raises :class:`PlaybackCancelled` if it was
    cancelled; ``done()``, ``state`` and ``succeeded`` let a caller poll instead. It completes
    when the robot reports AnimationEnded for its ``anim_id`` (or, should that never come, a
    second after the last frame was sent; ``ended_by_robot`` tells which).

    Made by the player (:meth:`AnimationController.play`), which passes ``cancel``: what
    :meth:`cancel` asks of it, called with (playback, reason). ``sounds`` and ``sprites`` are the
    clip's sounds and sprite sequences, looked up when it was queued so the frame never waits
    for a file.
    """

    def __init__(self, clip: Clip, params: PlaybackParams, tracks: frozenset[str], owner: object | None, *,
                 cancel: Callable[[Playback, str], None], audio: Sequence[bytes] | None = None,
                 sounds: ResolvedSounds | None = None, sprites: ResolvedSprites | None = None) -> None:
        super().__init__()
        self.clip = clip
        self.params = params
        self.tracks = tracks
        self.owner = owner
        #: a sound (744-byte µ-law frames) played from the clip's first frame, if any
        self.audio: Sequence[bytes] | None = audio
        #: the clip's sounds and sprite sequences, resolved when it was queued
        self.sounds: ResolvedSounds = dict(sounds or {})
        self.sprites: ResolvedSprites = dict(sprites or {})
        self.state = PlaybackState.QUEUED
        self.anim_id: int | None = None
        #: loop times of the first and last frame sent, and of completion
        self.started_at: float | None = None
        self.last_frame_at: float | None = None
        self.ended_at: float | None = None
        self.frames_sent = 0
        self.robot_started = False
        self.ended_by_robot = False
        #: clip Event keyframes that went out to the robot, as (event_id, loop time of their frame)
        self.events: list[tuple[str, float]] = []
        #: called with (playback, event_id) as each Event keyframe goes out
        self.on_event: list[Callable[[Playback, str], None]] = []
        self._event_waiters: list[tuple[str, asyncio.Future[bool]]] = []
        self._cancel = cancel

    @property
    def succeeded(self) -> bool:
        """True when every frame was played and the playback completed."""
        return self.state is PlaybackState.SUCCEEDED

    @property
    def cancelled(self) -> bool:
        """True when the playback was cancelled."""
        return self.state is PlaybackState.CANCELLED

    def fired(self, event_id: str) -> bool:
        """True once the clip's Event keyframe ``event_id`` went out (for polling from a tree tick)."""
        return any(e == event_id for e, _ in self.events)

    async def wait_for_event(self, event_id: str) -> bool:
        """Wait for the Event keyframe ``event_id``: True when it fires, False when the playback
        ends (completes or is cancelled) without it."""
        if self.fired(event_id):
            return True
        if self.done():
            return False
        fut: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._event_waiters.append((event_id, fut))
        return await fut

    def cancel(self, reason: str = "cancelled") -> None:
        """Stop the clip now (or drop it from the queue); the robot is told to abort it."""
        if not self.done():
            self._cancel(self, reason)

    # -- what the player tells the playback

    def mark_playing(self, anim_id: int, at: float) -> None:
        """Its first frame is being sent at loop time ``at``, as robot animation ``anim_id``."""
        self.anim_id = anim_id
        self.state = PlaybackState.PLAYING
        self.started_at = at

    def mark_ending(self, at: float) -> None:
        """Its last frame went out at loop time ``at``; now the robot's AnimationEnded is awaited."""
        self.last_frame_at = at
        self.state = PlaybackState.ENDING

    def event_fired(self, event_id: str, at: float) -> None:
        """The clip's Event keyframe ``event_id`` went out in the frame of loop time ``at``."""
        self.events.append((event_id, at))
        for waited, fut in [w for w in self._event_waiters if w[0] == event_id]:
            self._event_waiters.remove((waited, fut))
            if not fut.done():
                fut.set_result(True)

    def complete(self, *, ended_by_robot: bool = False) -> None:
        """Every frame was played: succeed (``ended_by_robot``: the robot said AnimationEnded)."""
        if ended_by_robot and not self.done():
            self.ended_by_robot = True
        self._finish(None, PlaybackState.SUCCEEDED)

    def mark_cancelled(self, reason: str) -> None:
        """It was stopped or dropped (``reason`` says why): awaiting it raises PlaybackCancelled."""
        self._finish(PlaybackCancelled(f"animation {self.clip.name!r}: {reason}"), PlaybackState.CANCELLED)

    def _finish(self, error: BaseException | None, state: PlaybackState) -> None:
        if self.done():
            return
        self.state = state
        self.ended_at = asyncio.get_running_loop().time()
        self._settle(error)
        waiters, self._event_waiters = self._event_waiters, []
        for _, fut in waiters:
            if not fut.done():
                fut.set_result(False)

    def __repr__(self) -> str:
        return f"<Playback {self.clip.name!r} anim_id={self.anim_id} {self.state.value}>"

