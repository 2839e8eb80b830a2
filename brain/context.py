"""What a behaviour-tree node may touch: the :class:`BrainContext` of one robot.

Nodes never reach for globals. Everything they act on or read — the driver's Robot, the
mood, the clock, the recent robot events, the animation player, the resource set, the random
source — comes from the context they were built with, so two brains can run in one process,
tests can inject a fake clock and a seeded random source, and an offline simulation can run
the same tree faster than real time.

The animation player is reached through the small :class:`AnimationProvider` protocol, so
the nodes do not depend on how clips are streamed. :class:`TimedAnimations` is a stand-in
that "plays" for a nominal time; it keeps trees runnable (and inspectable) where no real
player is wired in, e.g. in ``cozmo-brain tree`` or in node tests.

:func:`event_value_matches` (the value test of reactions and the ``recent_event`` condition) lives
with the reactions in :mod:`brain.reactions`; it is re-exported here for the conditions.
"""

from __future__ import annotations

import logging
import random
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from brain.arousal import Arousal
from brain.needs import Needs
from brain.reactions import event_value_matches
from brain.world import WorldModel
from driver.samples import RobotStateSample

if TYPE_CHECKING:  # the context is imported by the layers these come from
    from brain.assets.resource_set import ResourceSet
    from brain.cube_lights import CubeLights
    from brain.mood import Mood
    from brain.rhythm import DayRhythm

__all__ = [
    "AnimationProvider",
    "BrainContext",
    "event_value_matches",
    "PlayHandle",
    "RobotLike",
    "TimedAnimations",
    "TimedHandle",
]

log = logging.getLogger(__name__)

#: How many robot events the context remembers for conditions such as RecentEvent.
DEFAULT_EVENT_MEMORY = 256


@runtime_checkable
class PlayHandle(Protocol):
    """Something playing: poll ``done()``, then read ``succeeded``; ``cancel()`` stops it."""

    def done(self) -> bool: ...

    @property
    def succeeded(self) -> bool: ...

    def cancel(self) -> None: ...


class AnimationProvider(Protocol):
    """What the nodes ask of the animation layer.

    ``play_trigger`` resolves an animation trigger (trigger map → group → member chosen by
    weight, cooldown, mood and head angle) and plays it; ``play_clip`` plays one clip by name;
    ``set_face_expression`` shows a named procedural face; ``set_idle_motion`` holds the
    resting face still (asleep) or sets how slowly it blinks. Unknown names raise ``KeyError``
    (nodes turn that into FAILURE).
    """

    def play_trigger(self, trigger: str) -> PlayHandle: ...

    def play_clip(self, name: str) -> PlayHandle: ...

    def set_face_expression(self, name: str) -> None: ...

    def set_idle_motion(self, *, still: bool | None = None, pace: float | None = None) -> None: ...


class RobotLike(Protocol):
    """What the nodes ask of the robot (:class:`driver.robot.Robot` is one).

    Motions return a pollable action (``done()``, ``succeeded``); the state is the latest
    :class:`driver.samples.RobotStateSample` (None before the first); ``orientation`` says how
    the robot lies (``upright``, ``in_air``, ``on_back`` …).
    """

    state: RobotStateSample | None

    @property
    def orientation(self) -> str: ...

    def set_head_angle(self, angle_rad: float, *, max_speed: float = ..., accel: float = ...,
                       duration: float = ..., timeout: float = ...) -> Any: ...

    def set_lift_height(self, height_mm: float, *, max_speed: float = ..., accel: float = ...,
                        duration: float = ..., timeout: float = ...) -> Any: ...

    def turn_in_place(self, angle_rad: float, *, speed: float = ..., accel: float = ..., tolerance: float = ...,
                      absolute: bool = ..., timeout: float = ...) -> Any: ...

    def drive_wheels(self, left_mmps: float, right_mmps: float, left_accel: float = ...,
                     right_accel: float = ...) -> None: ...

    def stop_all_motors(self) -> None: ...

    def calibrate_motors(self, *, head: bool = ..., lift: bool = ...) -> None: ...

    def set_backpack_lights(self, colors: tuple[int, int, int, int, int]) -> None: ...

    def stream_cube_accel(self, object_id: int, enable: bool = ...) -> None: ...

    def cube_movement(self, object_id: int) -> float | None: ...


class TimedHandle:
    """A play that finishes after a fixed time on an injected clock."""

    def __init__(self, name: str, clock: Callable[[], float], duration_s: float) -> None:
        self.name = name
        self._clock = clock
        self._ends_at = clock() + duration_s
        self._cancelled = False

    def done(self) -> bool:
        """True once the nominal duration passed or the play was cancelled."""
        return self._cancelled or self._clock() >= self._ends_at

    @property
    def succeeded(self) -> bool:
        """True when it ran its full time."""
        return not self._cancelled and self._clock() >= self._ends_at

    def cancel(self) -> None:
        """Stop early (counts as not succeeded)."""
        self._cancelled = True


class TimedAnimations:
    """An :class:`AnimationProvider` that plays nothing and finishes after ``duration_s``.

    It records every request in ``played`` (``("trigger"|"clip"|"face", name)``), so a
    tree can run and be observed without the animation controller. When ``known_triggers``
    is given, other trigger names raise ``KeyError`` like the real player does.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, duration_s: float = 0.5,
                 known_triggers: set[str] | None = None) -> None:
        self.clock = clock
        self.duration_s = duration_s
        self.known_triggers = known_triggers
        self.played: list[tuple[str, str]] = []
        self.face: str | None = None

    def play_trigger(self, trigger: str) -> TimedHandle:
        """Pretend to play the trigger's animation."""
        if self.known_triggers is not None and trigger not in self.known_triggers:
            raise KeyError(f"unknown animation trigger {trigger!r}")
        self.played.append(("trigger", trigger))
        return TimedHandle(trigger, self.clock, self.duration_s)

    def play_clip(self, name: str) -> TimedHandle:
        """Pretend to play one clip."""
        self.played.append(("clip", name))
        return TimedHandle(name, self.clock, self.duration_s)

    def set_face_expression(self, name: str) -> None:
        """Remember the face."""
        self.played.append(("face", name))
        self.face = name

    def set_idle_motion(self, *, still: bool | None = None, pace: float | None = None) -> None:
        """Nothing moves here anyway."""


@dataclass
class BrainContext:
    """Everything the nodes of one robot's tree act on.

    ``robot`` is a :class:`driver.robot.Robot` (or None offline: robot nodes then fail
    cleanly); ``mood`` a :class:`brain.mood.Mood` (or None); ``clock`` returns monotonic
    seconds — the default matches the event loop's clock, which stamps robot events;
    ``events`` holds recent robot events (anything with ``.at`` and ``.kind``), appended by
    the heartbeat at the start of each tick; ``branch`` is the tick's scratch pad: nodes write
    what they are doing (``branch["animation"]`` …) for the dashboard; ``rhythm`` tells the local
    time of day and whether the personality's quiet hours or night are on.

    Brain state beside the mood, written by the tick only: ``world`` (what the robot knows of its
    surroundings: faces, motion, cubes), ``arousal`` (awake, drowsy or asleep, since when and
    why; the sleep behaviours write it, the day report and the dashboard read it) and ``needs``
    (Energy, Play and Repair: :mod:`brain.needs`).
    """

    robot: RobotLike | None = None
    mood: Mood | None = None
    clock: Callable[[], float] = time.monotonic
    animations: AnimationProvider | None = None
    resources: ResourceSet | None = None
    rng: random.Random = field(default_factory=random.Random)
    events: deque[Any] = field(default_factory=lambda: deque(maxlen=DEFAULT_EVENT_MEMORY))
    branch: dict[str, Any] = field(default_factory=dict)
    #: the day's rhythm: local time, quiet hours, night; None offline
    rhythm: DayRhythm | None = None
    world: WorldModel = field(default_factory=WorldModel)
    arousal: Arousal = field(default_factory=Arousal)
    needs: Needs = field(default_factory=Needs)
    #: the light cubes' lights (:mod:`brain.cube_lights`); None offline
    cube_lights: CubeLights | None = None
    #: reaction triggers a running behaviour holds off, with how many hold each (a game with the
    #: cube holds ``CubeTapped``: a tap is its move, not a surprise), as Anki's behaviours disabled
    #: reactions while they ran; see :meth:`hold_reactions`
    held_reactions: dict[str, int] = field(default_factory=dict)
    #: The same events filed by kind, each kind with its own memory: a condition asking for a rare
    #: kind ("poked within 90 s") reads a short list, and frequent status events cannot push a
    #: rare one out of memory.
    _by_kind: dict[str, deque[Any]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.animations is None:
            self.animations = TimedAnimations(self.clock)

    def now(self) -> float:
        """The context's monotonic time in seconds."""
        return self.clock()

    def push_event(self, event: Any) -> None:
        """Remember a robot event (called by the heartbeat as it drains the event queue)."""
        self.events.append(event)
        kind = getattr(event, "kind", None)
        if kind is not None:
            filed = self._by_kind.get(kind)
            if filed is None:
                filed = self._by_kind[kind] = deque(maxlen=DEFAULT_EVENT_MEMORY)
            filed.append(event)

    def recent_events(self, kind: str | None = None, within_s: float | None = None,
                      since: float | None = None) -> Iterator[Any]:
        """Remembered events, newest first, optionally of one ``kind``, younger than ``within_s``
        seconds and strictly later than ``since``."""
        now = self.clock()
        if kind is None:
            source: deque[Any] = self.events
        else:
            filed = self._by_kind.get(kind)
            if filed is None:
                return
            source = filed
        for event in reversed(source):
            at = float(getattr(event, "at", 0.0))
            if within_s is not None and now - at > within_s:
                break
            if since is not None and at <= since:
                break
            yield event

    def hold_reactions(self, triggers: Iterable[str], hold: bool) -> None:
        """Hold the reactions to ``triggers`` off (``hold``) or let them go again; holds count, so
        two behaviours holding one trigger both have to let it go."""
        for trigger in triggers:
            count = self.held_reactions.get(trigger, 0) + (1 if hold else -1)
            if count > 0:
                self.held_reactions[trigger] = count
            else:
                self.held_reactions.pop(trigger, None)

    def fire_emotion(self, name: str | None) -> bool:
        """Trigger emotion event ``name`` on the mood, if there is a mood and it knows the event
        (and on the needs, which some events fill or drain)."""
        if name:
            self.needs.emotion_event(name, self.clock())
        if not name or self.mood is None:
            return False
        has_event = getattr(self.mood, "has_event", None)
        if has_event is not None and not has_event(name):
            log.debug("emotion event %r is not defined; skipped", name)
            return False
        return bool(self.mood.trigger_event(name, self.clock()))

    @property
    def robot_state(self) -> RobotStateSample | None:
        """The robot's latest state sample, or None (offline, or before the first state)."""
        return getattr(self.robot, "state", None) if self.robot is not None else None
