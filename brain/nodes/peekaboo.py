"""PeekABoo: Cozmo asks a person to hide their face and show it again, and is delighted when they do.

As Anki's PeekABoo did: a get-in (``playGetIn``), then rounds until it has had between
``minTimesPeekBeforeQuit`` and ``maxTimesPeekBeforeQuit`` peeks (drawn per run). Each round turns
to the person's face (one seen within ``maxTimeOldestFaceToConsider_Sec``; none: it stops), plays
the request (stronger as the game goes on: low, medium, high intensity), then waits for the face
to leave the picture and come back. Back: a surprised "peekaboo!" (none after the last peek).
Nobody plays along within the timeout (``noUserInteractionTimeout_numIdles`` idles of
:data:`IDLE_S`): the first time, before any peek, it shows its disappointment and asks once more
(a short request); otherwise it stops. It ends happy after at least one peek, sad without.

The face leaving and coming back is read from the world model (:mod:`brain.world`): a face that
was in view is no longer, then one is again.
"""

from __future__ import annotations

import math
from enum import Enum
from typing import Any

from py_trees.behaviour import Behaviour
from py_trees.common import Status

from brain.context import BrainContext

from .actions import ContextBehaviour, _cancel, _stop_wheels, wheel_mark
from .behavior_class import EMOTION_EVENT, BehaviorClass, BehaviorSpec, emotion_nodes
from .behavior_class import str_param as _trigger
from .composites import Sequence as SequenceNode
from .decorators import Cooldown
from .params import Param
from .status import INVALID, RUNNING, SUCCESS
from .world_actions import _face_target, aim_at

__all__ = ["IDLE_S", "PEEKABOO_CLASSES", "PeekABooGame"]

#: How long one of the app's waiting idles lasted (s): ``noUserInteractionTimeout_numIdles`` counts them.
IDLE_S = 3.0
#: Shares of the game done below which the request is low, then medium intensity (Anki's).
LOW_BELOW, MEDIUM_BELOW = 0.33, 0.66


class _Step(Enum):
    GET_IN = "get-in"
    TURN = "turn to the face"
    REQUEST = "request"
    WAIT_HIDE = "waiting for the face to hide"
    WAIT_SHOW = "waiting for the face to come back"
    SURPRISED = "peekaboo!"
    NO_ONE = "nobody played"
    GET_OUT = "get-out"


class PeekABooGame(ContextBehaviour):
    """The game as one node: its steps, what it waits for, and the clip or turn under way."""

    def __init__(self, name: str, ctx: BrainContext, spec: BehaviorSpec) -> None:
        super().__init__(name, ctx)
        v = spec.value
        self.peeks = (v("minTimesPeekBeforeQuit"), max(v("minTimesPeekBeforeQuit"), v("maxTimesPeekBeforeQuit")))
        self.timeout_s = v("noUserInteractionTimeout_numIdles") * IDLE_S
        self.re_requests = v("numReRequestsPerTimeout")
        self.face_age_s = v("maxTimeOldestFaceToConsider_Sec")
        self.get_in = v("playGetIn")
        self.triggers = {k: v(k) for k in ("getInAnimTrigger", "lowAnimTrigger", "mediumAnimTrigger", "highAnimTrigger",
                                           "shortAnimTrigger", "surprisedAnimTrigger", "noUserAnimTrigger",
                                           "getOutHappyAnimTrigger", "getOutSadAnimTrigger")}
        self.step = _Step.GET_IN
        self.total = self.left = 0
        self.asked_again = 0
        self._handles: list[Any] = []
        self._deadline = 0.0
        self._mark: int | None = None

    # -- what runs

    def _play(self, key: str) -> None:
        trigger = self.triggers[key]
        assert self.ctx.animations is not None
        self._handles = [self.ctx.animations.play_trigger(trigger)] if trigger else []
        if trigger:
            self.describe(animation=trigger)

    def _turn(self) -> bool:
        robot = self.ctx.robot
        if robot is None or robot.state is None:
            return False
        try:
            face = _face_target(self.ctx, self.face_age_s)
        except LookupError:
            return False
        heading, head = aim_at(robot.state.proprioception.pose, (face.x_mm, face.y_mm, face.z_mm))
        self._handles = [robot.turn_in_place(heading, speed=math.radians(150.0), absolute=True),
                         robot.set_head_angle(head, max_speed=math.radians(90.0))]
        self._mark = wheel_mark(self.ctx)
        return True

    def _busy(self) -> bool:
        return any(not h.done() for h in self._handles)

    def _in_view(self) -> bool:
        return bool(self.ctx.world.faces_in_view())

    def _go(self, step: _Step) -> None:
        self.step = step
        self._handles = []
        self.feedback_message = f"{step.value} ({self.total - self.left} of {self.total} peeks)"
        if step is _Step.GET_IN:
            self._play("getInAnimTrigger")
        elif step is _Step.TURN:
            if not self._turn():
                self._go(_Step.GET_OUT)
        elif step is _Step.REQUEST:
            done = 1.0 - self.left / self.total
            key = ("shortAnimTrigger" if self.asked_again and self.left == self.total else
                   "lowAnimTrigger" if done < LOW_BELOW else "mediumAnimTrigger" if done < MEDIUM_BELOW else
                   "highAnimTrigger")
            self._play(key)
        elif step in (_Step.WAIT_HIDE, _Step.WAIT_SHOW):
            if step is _Step.WAIT_HIDE:
                self._deadline = self.ctx.now() + self.timeout_s
        elif step is _Step.SURPRISED:
            self._play("surprisedAnimTrigger")
        elif step is _Step.NO_ONE:
            self._play("noUserAnimTrigger")
        elif step is _Step.GET_OUT:
            self._play("getOutHappyAnimTrigger" if self.left < self.total else "getOutSadAnimTrigger")

    # -- the node

    def initialise(self) -> None:
        self.total = self.left = self.ctx.rng.randint(*self.peeks)
        self.asked_again = 0
        self._go(_Step.GET_IN if self.get_in else _Step.TURN)

    def update(self) -> Status:
        try:
            return self._advance()
        except Exception as exc:  # RobotError: lost meanwhile; no clip for a trigger
            return self.fail(f"{type(exc).__name__}: {exc}")

    def _advance(self) -> Status:
        step = self.step
        if step in (_Step.WAIT_HIDE, _Step.WAIT_SHOW):
            seen = self._in_view()
            if step is _Step.WAIT_HIDE and not seen:
                self._go(_Step.WAIT_SHOW)
            elif step is _Step.WAIT_SHOW and seen:
                self.left -= 1
                self._go(_Step.SURPRISED if self.left > 0 else _Step.GET_OUT)
            elif self.ctx.now() > self._deadline:
                if self.left == self.total and self.asked_again < self.re_requests:
                    self.asked_again += 1
                    self._go(_Step.NO_ONE)
                else:
                    self._go(_Step.GET_OUT)
            return RUNNING
        if self._busy():
            return RUNNING
        if step is _Step.GET_OUT:
            self.feedback_message = f"{self.total - self.left} of {self.total} peeks"
            return SUCCESS
        nxt = {_Step.GET_IN: _Step.TURN, _Step.TURN: _Step.REQUEST, _Step.REQUEST: _Step.WAIT_HIDE,
               _Step.SURPRISED: _Step.TURN, _Step.NO_ONE: _Step.TURN}[step]
        self._go(nxt)
        return RUNNING

    def terminate(self, new_status: Status) -> None:
        if new_status is INVALID:
            for handle in self._handles:
                if not handle.done():
                    _cancel(handle)
            _stop_wheels(self.ctx, self._mark)
        self._handles = []


def peek_a_boo(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """PeekABoo: the game, then its emotion event; at most once per ``minCooldown_Sec``."""
    game = SequenceNode("peekaboo", memory=True, children=[PeekABooGame("game", ctx, spec), *emotion_nodes(ctx, spec)])
    cooldown_s = spec.value("minCooldown_Sec")
    body: Behaviour = Cooldown("once a while", game, ctx, cooldown_s) if cooldown_s > 0 else game
    return SequenceNode(spec.behavior_id, memory=True, children=[body])


#: The class of this module and what it reads.
PEEKABOO_CLASSES: tuple[BehaviorClass, ...] = (
    BehaviorClass("PeekABoo", peek_a_boo,
                  "asks the person to hide their face and show it again, delighted each time; happy or sad at the end",
                  {"minTimesPeekBeforeQuit": Param("int", default=1, minimum=1, doc="peeks at least"),
                   "maxTimesPeekBeforeQuit": Param("int", default=3, minimum=1, doc="peeks at most"),
                   "noUserInteractionTimeout_numIdles": Param("int", default=3, minimum=1,
                                                              doc=f"waits this many idles ({IDLE_S:g} s each)"),
                   "numReRequestsPerTimeout": Param("int", default=1, minimum=0, doc="asks again before any peek"),
                   "maxTimeOldestFaceToConsider_Sec": Param("number", default=10.0, minimum=0.0,
                                                            doc="plays with a face seen within this long (s)"),
                   "minCooldown_Sec": Param("number", default=0.0, minimum=0.0, doc="at most once per this long (s)"),
                   "playGetIn": Param("bool", default=True, doc="play the get-in first"),
                   "getInAnimTrigger": _trigger("PeekABooGetIn", "the get-in"),
                   "lowAnimTrigger": _trigger("PeekABooLowIntensity", "the request early in the game"),
                   "mediumAnimTrigger": _trigger("PeekABooMedIntensity", "the request half-way"),
                   "highAnimTrigger": _trigger("PeekABooHighIntensity", "the request near the end"),
                   "shortAnimTrigger": _trigger("PeekABooShort", "asking once more"),
                   "surprisedAnimTrigger": _trigger("PeekABooSurprised", "the face is back"),
                   "noUserAnimTrigger": _trigger("PeekABooNoUserInteraction", "nobody played along"),
                   "getOutHappyAnimTrigger": _trigger("PeekABooGetOutHappy", "the end, after a peek"),
                   "getOutSadAnimTrigger": _trigger("PeekABooGetOutSad", "the end, without one"),
                   "finalEmotionEvent": EMOTION_EVENT}),
)
