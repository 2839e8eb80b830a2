"""Off its treads: the reactions to lying on the back, the face or a side.

Each is an attempt (flip over, roll, wiggle) that may or may not right the robot, repeated
while it still lies that way; :class:`WhileOrientation` does the repeating and
:class:`PlayForOrientation` picks the side's animation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from py_trees.behaviour import Behaviour
from py_trees.common import Status

from brain.context import BrainContext

from .actions import PlayAnimationTrigger, StopMotors, Wait, _Polled
from .behavior_class import EMOTION_EVENT, BehaviorClass, BehaviorSpec, emotion_nodes, triggers_param
from .behavior_class import sequence_of as _seq
from .composites import Sequence as SequenceNode
from .conditions import current_orientation
from .decorators import Explained
from .params import Param
from .status import RUNNING, SUCCESS

__all__ = ["ORIENTATION_CLASSES", "PlayForOrientation", "WhileOrientation"]


class WhileOrientation(Explained):
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

    def run_tick(self) -> Status:
        if self.status is not RUNNING:
            self.initialise()
            if self._skip:
                self.feedback_message = "not lying that way"
                self.stop(SUCCESS)
                return self.status
            self.status = RUNNING  # so that the decorator's tick does not initialise again
        return super().run_tick()

    def update(self) -> Status:
        if self.decorated.status is RUNNING:
            return RUNNING
        self.runs += 1
        if self.runs < self.max_runs and self._still():
            self.feedback_message = f"still lying that way after {self.runs} tries"
            return RUNNING
        self.feedback_message = f"done after {self.runs} tries"
        return SUCCESS


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
    pause = spec.value("retryDelay_s")
    body = SequenceNode("attempt", memory=True,
                        children=[*attempt, Wait("pause", ctx, pause_s if pause is None else float(pause))])
    return WhileOrientation(f"while {' or '.join(orientations)}", body, ctx, orientations,
                            spec.value("maxAttempts"))


def _attempt_params(pause_s: float) -> dict[str, Param]:
    return {
        "maxAttempts": Param("int", default=5, minimum=1, doc="tries while it still lies that way",
                             aliases=("max_attempts",)),
        "retryDelay_s": Param("number", minimum=0.0, doc=f"pause between tries (seconds; default {pause_s:g})",
                              aliases=("waitBetweenAttempts_s",)),
        "finalEmotionEvent": EMOTION_EVENT,
    }


def react_to_robot_on_back(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToRobotOnBack: stop, then try to flip down from the back while still lying on it.

    The app played ``FlipDownFromBack`` (the lift pushes the body over), 0.5 s apart, for as
    long as the robot lay on its back.
    """
    triggers = spec.value("animTriggers")
    plays = [PlayAnimationTrigger(t, ctx, t) for t in triggers]
    return _seq(spec, [StopMotors("stop", ctx), _attempts(ctx, spec, ["on_back"], plays, 0.5),
                       *emotion_nodes(ctx, spec)])


def react_to_robot_on_face(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToRobotOnFace: stop, then try to roll off the face while still lying on it (``FacePlantRoll``)."""
    triggers = spec.value("animTriggers")
    plays = [PlayAnimationTrigger(t, ctx, t) for t in triggers]
    return _seq(spec, [StopMotors("stop", ctx), _attempts(ctx, spec, ["on_face"], plays, 0.5),
                       *emotion_nodes(ctx, spec)])


def react_to_robot_on_side(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToRobotOnSide: stop, react to the side it lies on, then wait (fidgeting) to be stood up.

    The app played ``ReactToOnLeftSide``/``ReactToOnRightSide`` and looped ``WaitOnSideLoop``
    until the robot was back on its treads. ``leftSideAnimTrigger``/``rightSideAnimTrigger`` (or
    ``animTriggers``) replace the side reactions, ``waitAnimTrigger`` the loop ("" to only wait).
    """
    named = spec.value("animTriggers") or []
    left = spec.value("leftSideAnimTrigger") or (named[0] if named else "ReactToOnLeftSide")
    right = spec.value("rightSideAnimTrigger") or (named[-1] if named else "ReactToOnRightSide")
    react = PlayForOrientation("side reaction", ctx, {"on_left_side": left, "on_right_side": right}, right)
    wait_trigger = spec.value("waitAnimTrigger")
    if wait_trigger is None and not named:
        wait_trigger = "WaitOnSideLoop"
    loop: list[Behaviour] = []
    if isinstance(wait_trigger, str) and wait_trigger:
        loop.append(PlayAnimationTrigger(wait_trigger, ctx, wait_trigger))
    sides = ["on_left_side", "on_right_side"]
    waiting = _attempts(ctx, spec, sides, loop, 2.0)
    return _seq(spec, [StopMotors("stop", ctx), WhileOrientation("if on a side", react, ctx, sides, 1), waiting,
                       *emotion_nodes(ctx, spec)])


#: The three off-its-treads classes and what they read.
ORIENTATION_CLASSES: tuple[BehaviorClass, ...] = (
    BehaviorClass("ReactToRobotOnBack", react_to_robot_on_back,
                  "stops, then plays `FlipDownFromBack` every 0.5 s while still on its back",
                  {"animTriggers": triggers_param(("FlipDownFromBack",)), **_attempt_params(0.5)}),
    BehaviorClass("ReactToRobotOnFace", react_to_robot_on_face,
                  "stops, then plays `FacePlantRoll` every 0.5 s while still on its face",
                  {"animTriggers": triggers_param(("FacePlantRoll",)), **_attempt_params(0.5)}),
    BehaviorClass("ReactToRobotOnSide", react_to_robot_on_side,
                  "stops, plays `ReactToOnLeftSide` / `ReactToOnRightSide`, then `WaitOnSideLoop` every 2 s "
                  "while still on a side",
                  {"animTriggers": triggers_param(doc="side reactions: the first for the left, the last for "
                                                      "the right (and no waiting loop unless named)"),
                   "leftSideAnimTrigger": Param("str", doc="the left side's reaction"),
                   "rightSideAnimTrigger": Param("str", doc="the right side's reaction"),
                   "waitAnimTrigger": Param("any", doc="the loop while waiting to be stood up (\"\" to only wait)"),
                   **_attempt_params(2.0)}),
)
