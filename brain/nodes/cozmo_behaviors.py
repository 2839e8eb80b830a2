"""Cozmo's behaviour classes as small py_trees subtrees.

Anki's engine data describes a behaviour as a class (the code), an ID (this use of it) and
parameters. Each factory here takes the context and a :class:`BehaviorSpec` and returns a
subtree named after the behaviour ID, built from the node library, so the tree display shows
what a behaviour does. Parameters are read with the spellings the real files use (animation
triggers come as ``animTriggers``, ``animTrigger``, ``AnimTrigger``, ``animationTrigger``,
``anim`` …), and missing ones fall back to the triggers the app used for that class.

Where the app fired an emotion event for a behaviour, so do these: a behaviour's own
``emotionEvent``/``finalEmotionEvent`` parameter when present, else the class's default
(reactions such as cliff → ``CliffReact``). Events the mood does not define are skipped.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from py_trees.behaviour import Behaviour
from py_trees.common import Status
from py_trees.composites import Sequence as SequenceNode
from py_trees.decorators import Decorator

from brain.context import BrainContext

from .actions import (
    BackpackLights,
    ContextBehaviour,
    Drive,
    FireEmotionEvent,
    LookAround,
    PlayAnimationTrigger,
    PlayRandomTrigger,
    SetHeadAngle,
    SetLiftHeight,
    StopMotors,
    Wait,
    _cancel,
    _Polled,
)
from .conditions import current_orientation

__all__ = [
    "ANIM_TRIGGER_KEYS",
    "BehaviorSpec",
    "PlayForOrientation",
    "SleepUntilWoken",
    "WAKE_EVENT_KINDS",
    "WhileOrientation",
    "anim_triggers",
]

log = logging.getLogger(__name__)

#: Keys under which behaviour files give their animation trigger(s), compared case-insensitively.
ANIM_TRIGGER_KEYS: tuple[str, ...] = (
    "animTriggers", "animTrigger", "animationTriggers", "animationTrigger", "anims", "anim",
    "animGroup", "animGroups",
)
#: Keys under which they name an emotion event to fire when the behaviour completes.
EMOTION_EVENT_KEYS: tuple[str, ...] = ("emotionEvent", "finalEmotionEvent", "emotionEventOnSuccess")

#: Robot events that wake a sleeping robot.
WAKE_EVENT_KINDS: tuple[str, ...] = ("poked", "picked_up", "button", "cube_tapped", "cliff", "falling_started")


@dataclass(frozen=True)
class BehaviorSpec:
    """A behaviour instance as the factories see it: class, ID and parameters."""

    behavior_class: str
    behavior_id: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_record(cls, record: Any, extra: Mapping[str, Any] | None = None) -> BehaviorSpec:
        """From a :class:`brain.assets.records.Behavior` (duck-typed), with ``extra`` params on top."""
        params = dict(getattr(record, "params", {}) or {})
        params.update(extra or {})
        return cls(record.behavior_class, record.behavior_id, params)

    def param(self, *keys: str, default: Any = None) -> Any:
        """The first of ``keys`` present in params, compared without regard to case."""
        folded = {k.casefold(): v for k, v in self.params.items()}
        for key in keys:
            if key in self.params:
                return self.params[key]
            if key.casefold() in folded:
                return folded[key.casefold()]
        return default


def anim_triggers(spec: BehaviorSpec, default: Sequence[str] = ()) -> list[str]:
    """The behaviour's animation triggers under any of their spellings (a string or a list)."""
    value = spec.param(*ANIM_TRIGGER_KEYS)
    if value is None:
        return list(default)
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        out = [v for v in value if isinstance(v, str)]
        # some files list {"animTrigger": "..."} objects
        out += [str(v.get("animTrigger") or v.get("trigger")) for v in value
                if isinstance(v, Mapping) and (v.get("animTrigger") or v.get("trigger"))]
        return out
    raise ValueError(f"{spec.behavior_id}: animation triggers: expected a string or a list, got {value!r}")


def _emotion_event(spec: BehaviorSpec, default: str | None = None) -> str | None:
    value = spec.param(*EMOTION_EVENT_KEYS)
    return value if isinstance(value, str) and value else default


def _seq(spec: BehaviorSpec, children: Sequence[Behaviour]) -> Behaviour:
    return SequenceNode(spec.behavior_id, memory=True, children=list(children))


def _emotion(ctx: BrainContext, spec: BehaviorSpec, default: str | None = None) -> list[Behaviour]:
    name = _emotion_event(spec, default)
    return [FireEmotionEvent(f"emotion {name}", ctx, name)] if name else []


# ----------------------------------------------------------------------------- factories


def play_anim(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """PlayAnim: its triggers played in order (``numLoops`` times), then its emotion event.

    Anki's PlayAnim played the list as a sequence (files list intro, loop, outro). Set
    ``pick: random`` in the parameters to play one of them instead.
    """
    triggers = anim_triggers(spec)
    if not triggers:
        raise ValueError(f"{spec.behavior_id}: PlayAnim needs animTriggers")
    if spec.param("pick") == "random":
        return _seq(spec, [PlayRandomTrigger(f"one of {len(triggers)}", ctx, triggers), *_emotion(ctx, spec)])
    loops = int(spec.param("numLoops", "num_loops", default=1) or 1)
    plays: list[Behaviour] = [PlayAnimationTrigger(t, ctx, t) for _ in range(max(1, loops)) for t in triggers]
    return _seq(spec, [*plays, *_emotion(ctx, spec)])


def play_arbitrary_anim(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """PlayArbitraryAnim: one trigger picked at random, by ``animWeights``/``weights`` if given."""
    triggers = anim_triggers(spec)
    if not triggers:
        raise ValueError(f"{spec.behavior_id}: PlayArbitraryAnim needs animTriggers")
    weights = spec.param("animWeights", "weights")
    if weights is not None and (not isinstance(weights, list) or len(weights) != len(triggers)):
        raise ValueError(f"{spec.behavior_id}: weights: expected {len(triggers)} numbers, got {weights!r}")
    node = PlayRandomTrigger(f"one of {len(triggers)}", ctx, triggers, weights)
    return _seq(spec, [node, *_emotion(ctx, spec)])


def react_to_cliff(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToCliff: stop, play the cliff reaction, back away from the edge."""
    triggers = anim_triggers(spec, ["ReactToCliff"])
    back_mm = float(spec.param("backUpDistance_mm", default=40.0))
    return _seq(spec, [
        StopMotors("stop", ctx),
        *_emotion(ctx, spec, "CliffReact"),
        *[PlayAnimationTrigger(t, ctx, t) for t in triggers],
        Drive("back up", ctx, -50.0, -50.0, back_mm / 50.0),
    ])


def react_to_pickup(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToPickup: stop and play the picked-up reaction."""
    triggers = anim_triggers(spec, ["ReactToPickup"])
    return _seq(spec, [StopMotors("stop", ctx), *_emotion(ctx, spec),
                       *[PlayAnimationTrigger(t, ctx, t) for t in triggers]])


def react_to_put_down(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToPutDown: back on the ground; look up and play the returned-to-treads reaction."""
    triggers = anim_triggers(spec, ["ReactToUnexpectedMovement"])
    return _seq(spec, [SetHeadAngle("look up", ctx, 10.0), *_emotion(ctx, spec),
                       *[PlayAnimationTrigger(t, ctx, t) for t in triggers]])


def react_to_on_charger(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToOnCharger: play the placed-on-charger reaction, settle the lift, calm lights."""
    triggers = anim_triggers(spec, ["PlacedOnCharger"])
    return _seq(spec, [*[PlayAnimationTrigger(t, ctx, t) for t in triggers],
                       SetLiftHeight("lift down", ctx, 32.0), BackpackLights("calm lights", ctx, pattern="calm"),
                       *_emotion(ctx, spec)])


def drive_off_charger(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """DriveOffCharger: drive forward off the contacts (charger length + ``extraDistanceToDrive_mm``)."""
    distance = 80.0 + float(spec.param("extraDistanceToDrive_mm", default=60.0))
    speed = 60.0
    children: list[Behaviour] = [PlayAnimationTrigger(t, ctx, t) for t in anim_triggers(spec)]
    children += [SetLiftHeight("lift down", ctx, 32.0), Drive("drive off", ctx, speed, speed, distance / speed),
                 *_emotion(ctx, spec)]
    return _seq(spec, children)


def look_around(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """LookAround: random head and body glances for ``duration_s`` (default 10 s)."""
    seconds = float(spec.param("duration_s", "seconds", "duration", default=10.0))
    return _seq(spec, [LookAround("glances", ctx, seconds), *_emotion(ctx, spec)])


def react_to_poke(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToPoke: a startled or amused reaction, picked at random."""
    triggers = anim_triggers(spec, ["ReactToPokeReaction", "ReactToPokeStartled"])
    return _seq(spec, [PlayRandomTrigger("poke reaction", ctx, triggers), *_emotion(ctx, spec)])


def react_to_cube_tap(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToCubeTap: look up and react to the tapped cube."""
    triggers = anim_triggers(spec, ["ReactToCubeTapCubeFound"])
    return _seq(spec, [SetHeadAngle("look up", ctx, 0.0), *[PlayAnimationTrigger(t, ctx, t) for t in triggers],
                       *_emotion(ctx, spec)])


class SleepUntilWoken(ContextBehaviour):
    """Sleep: sleepy face, head down, lift down, dim lights; RUNNING until a wake event.

    Wake events are robot events of ``wake_on`` kinds (a poke, a pick-up, the button, a cube
    tap …) that arrive after it fell asleep. With ``max_s`` it also wakes after that long (a
    nap). A get-in animation is asked for if given; if it cannot play, it sleeps anyway.

    A reaction that suspends it (see :mod:`brain.nodes.reactions`) does not wake it: it keeps
    sleeping through, and if the reaction resumes it, it notices the event that caused the
    reaction (a poke) and wakes then.
    """

    continues_after_suspend = True

    def __init__(self, name: str, ctx: BrainContext, *, wake_on: Sequence[str] = WAKE_EVENT_KINDS,
                 max_s: float | None = None, face: str = "sleepy", get_in: str | None = "GoToSleepGetIn") -> None:
        super().__init__(name, ctx)
        self.wake_on = tuple(wake_on)
        self.max_s = max_s
        self.face = face
        self.get_in = get_in
        self.fell_asleep_at = 0.0
        self.woken_by: Any = None
        self.paused_s = 0.0
        self._anim: Any = None

    def initialise(self) -> None:
        self.fell_asleep_at = self.ctx.now()
        self.paused_s = 0.0
        self.woken_by = None
        self.describe(sleeping=True)
        anims = self.ctx.animations
        if anims is not None:
            try:
                if self.get_in:
                    self._anim = anims.play_trigger(self.get_in)
            except Exception as exc:
                log.debug("%s: no get-in animation (%s)", self.name, exc)
            try:
                anims.set_face_expression(self.face)
            except Exception as exc:
                log.debug("%s: no %r face (%s)", self.name, self.face, exc)
        robot = self.ctx.robot
        if robot is not None:
            try:
                robot.set_head_angle(math.radians(-25.0))  # all the way down
                robot.set_lift_height(32.0)
                BackpackLights("sleep", self.ctx, pattern="sleep").update()
            except Exception as exc:
                log.debug("%s: could not settle the robot (%s)", self.name, exc)

    def update(self) -> Status:
        for kind in self.wake_on:
            for event in self.ctx.recent_events(kind, since=self.fell_asleep_at):
                if getattr(event, "value", True) is False and kind != "button":
                    continue
                self.woken_by = event
                self.feedback_message = f"woken by {kind}"
                return Status.SUCCESS
        if self.max_s is not None and self.ctx.now() - self.fell_asleep_at - self.paused_s >= self.max_s:
            self.feedback_message = "nap over"
            return Status.SUCCESS
        self.feedback_message = "sleeping"
        return Status.RUNNING

    def on_suspend(self, now: float) -> None:
        """The reaction plays its own animation: drop the get-in."""
        if self._anim is not None and not self._anim.done():
            _cancel(self._anim)
        self._anim = None

    def on_resume(self, now: float, paused_s: float) -> None:
        """A nap's length does not count the time spent reacting."""
        self.paused_s += paused_s

    def terminate(self, new_status: Status) -> None:
        if self._anim is not None and not self._anim.done():
            _cancel(self._anim)
        self._anim = None
        self.ctx.branch.pop("sleeping", None)


def _sleeper(ctx: BrainContext, spec: BehaviorSpec, max_s: float | None) -> Behaviour:
    wake_on = spec.param("wakeOn", "wake_on", default=WAKE_EVENT_KINDS)
    triggers = anim_triggers(spec, ["GoToSleepGetIn"])
    node = SleepUntilWoken("asleep", ctx, wake_on=list(wake_on), max_s=max_s,
                           face=str(spec.param("face", default="sleepy")), get_in=triggers[0] if triggers else None)
    return _seq(spec, [node, *_emotion(ctx, spec)])


def sleep(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """Sleep: until woken by an event."""
    max_s = spec.param("maxSleep_s", "max_s")
    return _sleeper(ctx, spec, float(max_s) if max_s is not None else None)


def nap(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """Nap: until woken, or ``napDuration_s`` (default 300 s) at most."""
    return _sleeper(ctx, spec, float(spec.param("napDuration_s", "max_s", "duration_s", default=300.0)))


def wake(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """Wake: the wake-up animation, normal lights, head up."""
    triggers = anim_triggers(spec, ["WakeupGetout"])
    return _seq(spec, [*[PlayAnimationTrigger(t, ctx, t) for t in triggers],
                       BackpackLights("awake lights", ctx, pattern="calm"), SetHeadAngle("head up", ctx, 10.0),
                       *_emotion(ctx, spec)])


# ----------------------------------------------------------------------------- off its treads


class WhileOrientation(Decorator):
    """Run the child again and again while the robot lies in one of ``orientations``.

    The reactions to lying on the back, face or side are attempts (flip over, roll, wiggle)
    that may or may not right the robot, so they are repeated while it still lies that way, up
    to ``max_runs`` times. Already righted when it starts: SUCCESS at once, nothing played.
    Without a robot orientation (offline) the child runs once.
    """

    def __init__(self, name: str, child: Behaviour, ctx: BrainContext, orientations: Sequence[str],
                 max_runs: int = 5) -> None:
        super().__init__(name=name, child=child)
        self.ctx = ctx
        self.orientations = frozenset(orientations)
        self.max_runs = max(1, int(max_runs))
        self.runs = 0
        self._skip = False

    def _still(self) -> bool:
        orientation = current_orientation(self.ctx)
        return orientation is not None and orientation in self.orientations

    def initialise(self) -> None:
        self.runs = 0
        self._skip = current_orientation(self.ctx) is not None and not self._still()

    def tick(self) -> Iterator[Behaviour]:
        if self.status is not Status.RUNNING:
            self.initialise()
            if self._skip:
                self.feedback_message = "not lying that way"
                self.stop(Status.SUCCESS)
                yield self
                return
            self.status = Status.RUNNING  # so that Decorator.tick does not initialise again
        yield from super().tick()

    def update(self) -> Status:
        if self.decorated.status is Status.RUNNING:
            return Status.RUNNING
        self.runs += 1
        if self.runs < self.max_runs and self._still():
            self.feedback_message = f"still lying that way after {self.runs} tries"
            return Status.RUNNING
        self.feedback_message = f"done after {self.runs} tries"
        return Status.SUCCESS


class PlayForOrientation(_Polled):
    """Play the trigger that fits how the robot lies (e.g. a left- or right-side reaction)."""

    def __init__(self, name: str, ctx: BrainContext, by_orientation: Mapping[str, str], default: str) -> None:
        super().__init__(name, ctx)
        self.by_orientation = dict(by_orientation)
        self.default = default
        self.chosen: str | None = None

    def start(self) -> Any:
        orientation = current_orientation(self.ctx)
        self.chosen = self.by_orientation.get(orientation or "", self.default)
        self.describe(animation=self.chosen)
        assert self.ctx.animations is not None
        return self.ctx.animations.play_trigger(self.chosen)


def _attempts(ctx: BrainContext, spec: BehaviorSpec, orientations: Sequence[str], attempt: Sequence[Behaviour],
              pause_s: float) -> Behaviour:
    max_runs = int(spec.param("maxAttempts", "max_attempts", default=5))
    pause = float(spec.param("retryDelay_s", "waitBetweenAttempts_s", default=pause_s))
    body = SequenceNode("attempt", memory=True, children=[*attempt, Wait("pause", ctx, pause)])
    return WhileOrientation(f"while {' or '.join(orientations)}", body, ctx, orientations, max_runs)


def react_to_robot_on_back(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToRobotOnBack: stop, then try to flip down from the back while still lying on it.

    The app played ``FlipDownFromBack`` (the lift pushes the body over), 0.5 s apart, for as
    long as the robot lay on its back.
    """
    triggers = anim_triggers(spec, ["FlipDownFromBack"])
    plays = [PlayAnimationTrigger(t, ctx, t) for t in triggers]
    return _seq(spec, [StopMotors("stop", ctx), _attempts(ctx, spec, ["on_back"], plays, 0.5),
                       *_emotion(ctx, spec)])


def react_to_robot_on_face(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToRobotOnFace: stop, then try to roll off the face while still lying on it (``FacePlantRoll``)."""
    triggers = anim_triggers(spec, ["FacePlantRoll"])
    plays = [PlayAnimationTrigger(t, ctx, t) for t in triggers]
    return _seq(spec, [StopMotors("stop", ctx), _attempts(ctx, spec, ["on_face"], plays, 0.5),
                       *_emotion(ctx, spec)])


def react_to_robot_on_side(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToRobotOnSide: stop, react to the side it lies on, then wait (fidgeting) to be stood up.

    The app played ``ReactToOnLeftSide``/``ReactToOnRightSide`` and looped ``WaitOnSideLoop``
    until the robot was back on its treads. ``leftSideAnimTrigger``/``rightSideAnimTrigger`` (or
    ``animTriggers``) replace the side reactions, ``waitAnimTrigger`` the loop ("" to only wait).
    """
    named = anim_triggers(spec)
    left = str(spec.param("leftSideAnimTrigger", default=named[0] if named else "ReactToOnLeftSide"))
    right = str(spec.param("rightSideAnimTrigger", default=named[-1] if named else "ReactToOnRightSide"))
    react = PlayForOrientation("side reaction", ctx, {"on_left_side": left, "on_right_side": right}, right)
    wait_trigger = spec.param("waitAnimTrigger", default=None if named else "WaitOnSideLoop")
    loop: list[Behaviour] = []
    if isinstance(wait_trigger, str) and wait_trigger:
        loop.append(PlayAnimationTrigger(wait_trigger, ctx, wait_trigger))
    sides = ["on_left_side", "on_right_side"]
    waiting = _attempts(ctx, spec, sides, loop, 2.0)
    return _seq(spec, [StopMotors("stop", ctx), WhileOrientation("if on a side", react, ctx, sides, 1), waiting,
                       *_emotion(ctx, spec)])
