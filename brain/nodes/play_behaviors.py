"""Cozmo's behaviour classes for things to do alone and asking to play: Explore, RequestToPlay.

* RequestToPlay asks whoever is near to play (Anki's RequestGameSimple asked for a game the same
  way: a request animation, a wait for the answer, then play or a disappointed "deny"). It plays
  its request, then waits up to ``waitForAnswer_s`` for a poke, a cube tap or the button
  (``answeredBy``; a pick-up interrupts it, as any pick-up does). An answer counts from the
  start of the request: one while the request still plays cuts it short. Answered, it fires
  ``acceptEmotionEvent`` and plays ``acceptAnimTrigger``; ignored, it fires ``denyEmotionEvent``
  and plays ``denyAnimTrigger``. Either way it succeeds: being ignored is something that happened
  to it, not a failure of the tree, and the mood is where it shows (Social, Confident and Happy
  down, so a robot left alone grows lonely).
* Explore drives about the table in short legs (a random turn, a short drive ahead, a pause),
  and stops at once when its cliff sensor sees the edge; the personality's cliff reaction then
  backs away. The world model remembers where the floor ended, and each leg is drawn to end
  clear of the edges met (``edgeClearance_mm``), so after a few edges it keeps to the table's
  middle. Done, it fires ``finalEmotionEvent`` (``Explored``: braver); the cliff reaction's own
  event makes it less so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from py_trees.behaviour import Behaviour
from py_trees.common import Status

from brain.context import BrainContext
from driver.events import EVENT_KINDS
from driver.hardware import CLIFF_SENSOR_AHEAD_MM
from driver.samples import RobotStatus

from .actions import ContextBehaviour, Leg, _cancel, _stop_wheels, head_into_band, wheel_mark
from .behavior_class import EMOTION_EVENT, BehaviorClass, BehaviorSpec, emotion_nodes, plays, triggers_param
from .composites import Selector
from .composites import Sequence as SequenceNode
from .params import Param
from .status import RUNNING, SUCCESS

__all__ = ["ANSWER_KINDS", "LEG_DRAWS", "PLAY_CLASSES", "AnsweredSince", "Asked", "Explore", "WaitForAnswer"]

#: What answers a request to play by default: being touched, a tapped cube, the button.
ANSWER_KINDS: tuple[str, ...] = ("poked", "cube_tapped", "button")
#: How many legs Explore draws at most, looking for one that keeps clear of the edges met.
LEG_DRAWS = 12
#: Where along a leg (shares of its reach) Explore looks at its clearance from the edges met.
LEG_SAMPLES = (0.25, 0.5, 0.75, 1.0)


class Asked(ContextBehaviour):
    """Notes when a request to play began (SUCCESS at once): an answer counts from then on, also
    one that comes while the request still plays."""

    def __init__(self, name: str, ctx: BrainContext) -> None:
        super().__init__(name, ctx)
        self.at = 0.0

    def update(self) -> Status:
        self.at = self.ctx.now()
        return SUCCESS


def _answer(ctx: BrainContext, kinds: Sequence[str], since: float) -> str | None:
    for kind in kinds:
        if next(ctx.recent_events(kind, since=since), None) is not None:
            return kind
    return None


class AnsweredSince(ContextBehaviour):
    """SUCCESS when an answer of ``kinds`` came since the request began (``asked``), else FAILURE.

    Ahead of the request clip, it cuts the request short when someone answers while it plays,
    and skips the request when the branch resumes after the answer's own reaction (a poke's).
    """

    def __init__(self, name: str, ctx: BrainContext, kinds: Sequence[str], asked: Asked) -> None:
        super().__init__(name, ctx)
        self.kinds, self.asked = tuple(kinds), asked

    def update(self) -> Status:
        kind = _answer(self.ctx, self.kinds, self.asked.at)
        if kind is None:
            return self.fail("no answer yet")
        self.feedback_message = f"answered: {kind}"
        return SUCCESS


class WaitForAnswer(ContextBehaviour):
    """RUNNING until a robot event of ``kinds`` arrives (SUCCESS) or ``seconds`` pass (FAILURE).

    An answer counts from when the request began (``asked``; without it, from the start of the
    wait). It keeps waiting through a reaction (a poke is an answer, and its reaction runs
    first), and the time the reaction took does not count against the wait.
    """

    continues_after_suspend = True

    def __init__(self, name: str, ctx: BrainContext, kinds: Sequence[str], seconds: float,
                 asked: Asked | None = None) -> None:
        super().__init__(name, ctx)
        self.kinds = tuple(kinds)
        self.seconds = float(seconds)
        self.asked = asked
        self.since = 0.0
        self.ends_at = 0.0
        self.answer: str | None = None

    def initialise(self) -> None:
        now = self.ctx.now()
        self.since = self.asked.at if self.asked is not None else now
        self.ends_at = now + self.seconds
        self.answer = None

    def on_resume(self, now: float, paused_s: float) -> None:
        """A reaction paused the wait: that time is still to wait."""
        self.ends_at += paused_s

    def update(self) -> Status:
        kind = _answer(self.ctx, self.kinds, self.since)
        if kind is not None:
            self.answer = kind
            self.feedback_message = f"answered: {kind}"
            return SUCCESS
        left = self.ends_at - self.ctx.now()
        if left > 0:
            self.feedback_message = f"waiting for {', '.join(self.kinds)}: {left:.1f} s left"
            return RUNNING
        return self.fail(f"nobody answered in {self.seconds:g} s")


class Explore(ContextBehaviour):
    """Short drives about the table: a random turn, a short drive ahead, a pause; for ``seconds``.

    It looks about as it goes: each turn raises a head lower than the face band into it
    (:func:`~brain.nodes.actions.head_into_band`), so whoever it drives past is seen.

    Each leg turns by a random angle in ``turn_range_deg`` (either way), drives ahead a random
    distance in ``drive_range_mm`` at ``speed_mmps`` (measured by the robot's odometry:
    :class:`~brain.nodes.actions.Leg`) and pauses in ``pause_range_s``. A leg that
    would take the cliff sensor within ``clearance_mm`` of an edge the world model remembers (or
    closer to one than it is already, when it starts nearer than that) is drawn again, up to
    :data:`LEG_DRAWS` times; then the clearest one drawn is driven. ``clearance_mm`` 0 pays no
    heed to the edges met. The cliff sensor ends it at
    once: the wheels stop and it fails with "cliff ahead" (the firmware stops the wheels first, and
    the personality's cliff reaction backs away). It succeeds when the time is up with at least
    one leg driven; the wheels stop whenever it ends.
    """

    def __init__(self, name: str, ctx: BrainContext, seconds: float = 20.0,
                 turn_range_deg: tuple[float, float] = (30.0, 150.0),
                 drive_range_mm: tuple[float, float] = (40.0, 120.0), speed_mmps: float = 50.0,
                 pause_range_s: tuple[float, float] = (0.5, 2.0), clearance_mm: float = 100.0) -> None:
        super().__init__(name, ctx)
        self.seconds = float(seconds)
        self.turn_range_deg, self.drive_range_mm = turn_range_deg, drive_range_mm
        self.speed_mmps, self.pause_range_s = float(speed_mmps), pause_range_s
        self.clearance_mm = float(clearance_mm)
        self._leg_mm = 0.0
        #: Legs drawn again because they led to an edge met before (for the explanation and tests).
        self.redrawn = 0
        self.ends_at = 0.0
        self.legs = 0
        self._turn: Any = None
        self._head: Any = None
        self._drive: Leg | None = None
        self._pause_until = 0.0
        self._mark: int | None = None

    def initialise(self) -> None:
        self.ends_at = self.ctx.now() + self.seconds
        self.legs = 0
        self._turn, self._drive, self._pause_until = None, None, 0.0

    def _cliff(self) -> bool:
        state = self.ctx.robot_state
        return state is not None and state.has(RobotStatus.CLIFF_DETECTED)

    def update(self) -> Status:
        robot = self.ctx.robot
        if robot is None:
            return self.fail("no robot")
        now = self.ctx.now()
        if self._cliff():
            _stop_wheels(self.ctx)
            self._drive = None
            return self.fail("cliff ahead")
        try:
            if self._turn is not None:  # turning: then drive ahead
                if not self._turn.done():
                    return RUNNING
                self._turn = None
                robot.drive_wheels(self.speed_mmps, self.speed_mmps)
                self._mark = wheel_mark(self.ctx)
                self._drive = Leg(self.ctx, self._leg_mm, self.speed_mmps)
                return RUNNING
            if self._drive is not None:  # driving (as far as the odometry says): then stop and pause
                if not self._drive.over():
                    return RUNNING
                robot.drive_wheels(0.0, 0.0)
                self._drive = None
                self.legs += 1
                self._pause_until = now + self.ctx.rng.uniform(*self.pause_range_s)
            if now >= self.ends_at:
                return SUCCESS if self.legs else self.fail("no time for a leg")
            if now >= self._pause_until:
                degrees, self._leg_mm = self._draw_leg()
                self._head = head_into_band(self.ctx) or self._head
                self._turn = robot.turn_in_place(math.radians(degrees), speed=math.radians(120))
                self._mark = wheel_mark(self.ctx)
        except Exception as exc:
            return self.fail(f"{type(exc).__name__}: {exc}")
        self.feedback_message = f"leg {self.legs + 1}, {max(0.0, self.ends_at - now):.0f} s left"
        return RUNNING

    def _draw_leg(self) -> tuple[float, float]:
        """A turn (degrees) and a length (mm) that keep clear of the edges met, if one is drawn."""
        rng, world = self.ctx.rng, self.ctx.world
        state = self.ctx.robot_state
        best: tuple[float, float, float] | None = None
        for _ in range(LEG_DRAWS):
            degrees = rng.uniform(*self.turn_range_deg) * (1 if rng.random() < 0.5 else -1)
            mm = rng.uniform(*self.drive_range_mm)
            if state is None or not world.edges or self.clearance_mm <= 0:
                return degrees, mm
            pose = state.proprioception.pose
            start = world.clearance_mm(pose.x_mm, pose.y_mm)
            heading = pose.angle_rad + math.radians(degrees)
            reach = mm + CLIFF_SENSOR_AHEAD_MM
            dx, dy = reach * math.cos(heading), reach * math.sin(heading)
            clear = min(world.clearance_mm(pose.x_mm + f * dx, pose.y_mm + f * dy) for f in LEG_SAMPLES)
            if clear >= min(self.clearance_mm, start):
                return degrees, mm
            self.redrawn += 1
            if best is None or clear > best[0]:
                best = (clear, degrees, mm)
        assert best is not None
        return best[1], best[2]

    def terminate(self, new_status: Status) -> None:
        for action in (self._turn, self._head):
            if action is not None and not action.done():
                _cancel(action)
        if self.status is RUNNING or self._drive is not None:
            _stop_wheels(self.ctx, self._mark)
        self._turn, self._drive, self._head = None, None, None


def _plays(ctx: BrainContext, spec: BehaviorSpec, key: str) -> list[Behaviour]:
    return plays(ctx, spec.value(key))


def request_to_play(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """RequestToPlay: ask, wait for an answer, then play happily or show the disappointment.

    An answer counts from the moment it starts asking: one that comes while the request plays
    cuts it short, and after the answer's own reaction (a poke's) the branch goes on to play.
    """
    kinds = spec.value("answeredBy")
    asked = Asked("ask", ctx)
    request = Selector("request", memory=False, children=[
        AnsweredSince("answered already", ctx, kinds, asked),
        SequenceNode("the request", memory=True, children=_plays(ctx, spec, "animTriggers")),
    ])
    answered = SequenceNode("answered", memory=True, children=[
        asked, request,
        WaitForAnswer("wait for an answer", ctx, kinds, spec.value("waitForAnswer_s"), asked),
        *emotion_nodes(ctx, spec, "acceptEmotionEvent"),
        *_plays(ctx, spec, "acceptAnimTrigger"),
    ])
    ignored = SequenceNode("ignored", memory=True, children=[
        *emotion_nodes(ctx, spec, "denyEmotionEvent"),
        *_plays(ctx, spec, "denyAnimTrigger"),
    ])
    chooser = Selector("answer", memory=True, children=[answered, ignored])
    return SequenceNode(spec.behavior_id, memory=True,
                        children=[chooser, *emotion_nodes(ctx, spec, "finalEmotionEvent")])


def explore(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """Explore: short drives about the table for ``duration_s``, then its emotion event."""
    node = Explore("drives", ctx, spec.value("duration_s"), spec.value("turn_deg"), spec.value("drive_mm"),
                   spec.value("speed_mmps"), spec.value("pause_s"), spec.value("edgeClearance_mm"))
    return SequenceNode(spec.behavior_id, memory=True, children=[node, *emotion_nodes(ctx, spec, "finalEmotionEvent")])


PLAY_CLASSES: tuple[BehaviorClass, ...] = (
    BehaviorClass("Explore", explore,
                  "short drives about the table: a turn, a drive ahead, a pause; stops at the table's edge",
                  {"duration_s": Param("number", default=20.0, minimum=1.0, doc="how long it explores (s)",
                                       aliases=("seconds", "duration")),
                   "turn_deg": Param("range", default=(30.0, 150.0), doc="turn before each leg, either way (°)"),
                   "drive_mm": Param("range", default=(40.0, 120.0), doc="length of each leg (mm)"),
                   "speed_mmps": Param("number", default=50.0, minimum=10.0, maximum=200.0,
                                       doc="driving speed (mm/s)"),
                   "pause_s": Param("range", default=(0.5, 2.0), doc="pause after each leg (s)"),
                   "edgeClearance_mm": Param("number", default=100.0, minimum=0.0, maximum=1000.0,
                                             doc="a leg keeps the cliff sensor at least this far from the "
                                                 "edges it met (mm; 0: it does not mind them)"),
                   "finalEmotionEvent": Param("str", default="Explored", doc="fired when it is done",
                                              aliases=("emotionEvent", "emotionEventOnSuccess"))}),
    BehaviorClass("RequestToPlay", request_to_play,
                  "asks to play (`RequestToPlay`), waits for a poke, cube tap or the button, then plays "
                  "`Happy` or, ignored, `Sad`",
                  {"animTriggers": triggers_param(("RequestToPlay",), doc="the request"),
                   "waitForAnswer_s": Param("number", default=12.0, minimum=1.0, maximum=120.0,
                                            doc="how long it waits for an answer (s)",
                                            aliases=("minRequestDelay_s",)),
                   "answeredBy": Param("str_list", default=list(ANSWER_KINDS), choices=tuple(sorted(EVENT_KINDS)),
                                       doc="robot events that answer it"),
                   "acceptAnimTrigger": Param("triggers", default=["Happy"], doc="played when answered"),
                   "denyAnimTrigger": Param("triggers", default=["Sad"], doc="played when nobody answered"),
                   "acceptEmotionEvent": Param("str", default="RequestToPlayAccepted", doc="fired when answered"),
                   "denyEmotionEvent": Param("str", default="RequestToPlayIgnored", doc="fired when ignored"),
                   "finalEmotionEvent": EMOTION_EVENT}),
)
