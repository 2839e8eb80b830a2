"""Cozmo's behaviour classes for people and motion: FindFaces, InteractWithFaces, AcknowledgeFace, PounceOnMotion.

Each reads its real JSON's parameters (../shared/reference/personality.md, "Face behaviours")
and builds a subtree from the world-model nodes (:mod:`brain.nodes.world_actions`):

* FindFaces turns to a face seen within ``maxFaceAgeToLook_ms``, else scans in place with
  FindFaces' turn, head and pause ranges (the ``s1``…``s6`` keys of its ``params``) until one is
  in view, then turns to it.
* InteractWithFaces turns to the face and keeps its gaze on it for 8–15 s
  (``minTimeToTrackFace_s``/``maxTimeToTrackFace_s``), re-aiming every 0.2–0.7 s.
* AcknowledgeFace turns to the face and greets it with its animation while following it.
* PounceOnMotion runs while motion on the floor in front was seen lately: it looks at it,
  gets ready, lunges, and plays a success when it caught something (the lift held up or the
  body pitched) or a miss, then backs up; it is bored after ``maxNoGroundMotionBeforeBored_*``.
"""

from __future__ import annotations

from dataclasses import replace

from py_trees.behaviour import Behaviour
from py_trees.common import Status

from brain.context import BrainContext
from driver.hardware import HEAD_MAX_DEG, HEAD_MIN_DEG

from .actions import ContextBehaviour, DriveStraight, RandomWait
from .behavior_class import EMOTION_EVENT, BehaviorClass, BehaviorSpec, emotion_nodes, triggers_param
from .behavior_class import plays as _plays
from .behavior_class import sequence_of as _seq
from .composites import Selector
from .decorators import FailureIsSuccess, Repeat
from .params import Param
from .status import SUCCESS
from .world_actions import LookTowardsMotion, SearchForFaces, TrackFace, TurnTowardsFace
from .world_conditions import MotionSeenWithin

__all__ = ["FACE_CLASSES", "PounceCaught"]

#: A catch, as Anki's PounceOnMotion tells it: the lift held above this (mm) or the body pitched up.
CATCH_LIFT_MM = 35.5
CATCH_PITCH_RAD = 0.02


def _range(spec: BehaviorSpec, low: str, high: str) -> tuple[float, float]:
    a, b = float(spec.value(low)), float(spec.value(high))
    return (a, b) if a <= b else (b, a)


def _turn_heads(spec: BehaviorSpec) -> tuple[float, float]:
    """The head heights the scan's body turns take: the span of the turns' ranges (s1, s3, s6)."""
    spans = [_range(spec, f"s{n}_HeadAngleRangeMin_deg", f"s{n}_HeadAngleRangeMax_deg") for n in (1, 3, 6)]
    return min(lo for lo, _ in spans), max(hi for _, hi in spans)


def find_faces(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """FindFaces: turn to a face seen lately, else scan for one and turn to it."""
    age_s = spec.value("maxFaceAgeToLook_ms") / 1000.0
    speeds = {"body_speed_dps": spec.value("sx_BodyTurnSpeed_degPerSec"),
              "head_speed_dps": spec.value("sxh_HeadTurnSpeed_degPerSec")}
    pauses = spec.value("s2_WaitAnimTrigger")
    search = SearchForFaces(
        "scan", ctx, seconds=spec.value("maxSearch_s"),
        short_turn_deg=_range(spec, "s3_BodyAngleRangeMin_deg", "s3_BodyAngleRangeMax_deg"),
        turn_deg=_range(spec, "s6_BodyAngleRangeMin_deg", "s6_BodyAngleRangeMax_deg"),
        back_turn_deg=_range(spec, "s1_BodyAngleRangeMin_deg", "s1_BodyAngleRangeMax_deg"),
        head_deg=_range(spec, "s4_HeadAngleRangeMin_deg", "s4_HeadAngleRangeMax_deg"),
        pause_s=_range(spec, "s2_WaitMin_sec", "s2_WaitMax_sec"),
        head_moves=(int(spec.value("s4_HeadAngleChangesMin")), int(spec.value("s4_HeadAngleChangesMax"))),
        clockwise_chance=spec.value("s0_MainTurnCWChance"), pause_trigger=pauses[0] if pauses else None,
        turn_head_deg=_turn_heads(spec), turn_head_speed_dps=spec.value("sxt_HeadTurnSpeed_degPerSec"), **speeds)
    return _seq(spec.behavior_id, [
        Selector("face seen lately, or search", False, [
            TurnTowardsFace("turn to a recent face", ctx, max_age_s=age_s, **speeds),
            _seq("search", [search, TurnTowardsFace("turn to the face found", ctx, **speeds)]),
        ]),
        *emotion_nodes(ctx, spec),
    ])


def _tracker(ctx: BrainContext, spec: BehaviorSpec, child: Behaviour) -> Behaviour:
    return TrackFace("follow the face", child, ctx, period_s=_range(spec, "minClampPeriod_s", "maxClampPeriod_s"),
                     clamp_deg=3.0 if spec.value("clampSmallAngles") else 0.0)


def interact_with_faces(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """InteractWithFaces: turn to the face, play its greeting, then keep looking at it for 8–15 s."""
    low, high = _range(spec, "minTimeToTrackFace_s", "maxTimeToTrackFace_s")
    return _seq(spec.behavior_id, [
        TurnTowardsFace("turn to the face", ctx, max_age_s=spec.value("maxFaceAge_s")),
        _tracker(ctx, spec, _seq("with the person", [*_plays(ctx, spec.value("animTriggers")),
                                                      RandomWait("look at them", ctx, low, high)])),
        *emotion_nodes(ctx, spec),
    ])


def acknowledge_face(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """AcknowledgeFace: turn to the face and greet it, following it while the greeting plays."""
    return _seq(spec.behavior_id, [
        TurnTowardsFace("turn to the face", ctx, max_age_s=spec.value("maxFaceAge_s")),
        _tracker(ctx, spec, _seq("greeting", _plays(ctx, spec.value("animTriggers")))),
        *emotion_nodes(ctx, spec),
    ])


class PounceCaught(ContextBehaviour):
    """SUCCESS when the pounce caught something: the lift is held up or the body pitched up (Anki's test)."""

    def update(self) -> Status:
        robot = self.ctx.robot
        state = robot.state if robot is not None else None
        if state is None:
            return self.fail("no robot state")
        lift = state.proprioception.lift_height_mm
        pitch = state.proprioception.pose.pitch_rad
        if lift > CATCH_LIFT_MM or pitch > CATCH_PITCH_RAD:
            self.feedback_message = f"caught: lift {lift:.1f} mm, pitch {pitch:.3f} rad"
            return SUCCESS
        return self.fail(f"missed: lift {lift:.1f} mm, pitch {pitch:.3f} rad")


def pounce_on_motion(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """PounceOnMotion: while floor motion keeps coming, look at it, get ready, lunge, react, back up."""
    back_mm = abs(spec.value("backUpDistance"))
    one = _seq("pounce", [
        MotionSeenWithin("floor motion lately", ctx, spec.value("maxNoGroundMotionBeforeBored_running_Sec"),
                         "ground"),
        LookTowardsMotion("look at it", ctx, within_s=spec.value("maxNoGroundMotionBeforeBored_running_Sec"),
                          where="ground"),
        *_plays(ctx, spec.value("getReadyTriggers")),
        *_plays(ctx, spec.value("animTriggers")),
        Selector("caught it?", False, [
            _seq("caught", [PounceCaught("caught", ctx), *_plays(ctx, spec.value("successTriggers")),
                            *emotion_nodes(ctx, spec, "successEmotionEvent")]),
            _seq("missed", [*_plays(ctx, spec.value("failTriggers")), *emotion_nodes(ctx, spec, "failEmotionEvent")]),
        ]),
        DriveStraight("back up", ctx, -back_mm, 50.0),
    ])
    return _seq(spec.behavior_id, [
        MotionSeenWithin("floor motion just now", ctx, spec.value("maxNoGroundMotionBeforeBored_notRunning_Sec"),
                         "ground"),
        FailureIsSuccess(name="until bored", child=Repeat("again", one, -1)),
        *emotion_nodes(ctx, spec),
    ])


# ----------------------------------------------------------------------------- declarations


def _n(default: float, doc: str, minimum: float = 0.0, maximum: float | None = None) -> Param:
    return Param("number", default=default, minimum=minimum, maximum=maximum, doc=doc)


def _i(default: int, doc: str) -> Param:
    return Param("int", default=default, minimum=0, maximum=20, doc=doc)


_TRACKING: dict[str, Param] = {
    "clampSmallAngles": Param("bool", default=True, doc="leave body errors under 3° alone"),
    "minClampPeriod_s": _n(0.2, "shortest time between two re-aims (s)", 0.05),
    "maxClampPeriod_s": _n(0.7, "longest time between two re-aims (s)", 0.05),
    "maxFaceAge_s": _n(10.0, "how old the face it turns to may be (s)"),
}

_FIND_FACES: dict[str, Param] = {
    "maxFaceAgeToLook_ms": _n(10000.0, "a face seen within this is turned to without a search (ms)"),
    "maxSearch_s": _n(30.0, "the search gives up after this long (s)"),
    "sx_BodyTurnSpeed_degPerSec": _n(150.0, "body turn speed (°/s)", 10.0, 300.0),
    "sxh_HeadTurnSpeed_degPerSec": _n(90.0, "head speed (°/s)", 10.0, 300.0),
    "sxt_HeadTurnSpeed_degPerSec": _n(60.0, "head speed while the body turns (°/s)", 10.0, 300.0),
    "s0_MainTurnCWChance": _n(0.5, "chance the scan turns clockwise", 0.0, 1.0),
    "s1_BodyAngleRangeMin_deg": _n(10.0, "turn back, smallest (°)"),
    "s1_BodyAngleRangeMax_deg": _n(30.0, "turn back, largest (°)"),
    **{f"s{n}_HeadAngleRange{end}_deg": _n(default, f"head height {what}, {word} (°)", HEAD_MIN_DEG, HEAD_MAX_DEG)
       for n, what in ((1, "in the turn back"), (3, "in the first turn on"), (6, "in the second turn on"))
       for end, word, default in (("Min", "lowest", 25.0), ("Max", "highest", 42.0))},
    "s2_WaitMin_sec": _n(0.3, "pause, shortest (s)"),
    "s2_WaitMax_sec": _n(0.7, "pause, longest (s)"),
    "s2_WaitAnimTrigger": triggers_param(("LookInPlaceForFacesBodyPause",), "played in the pauses"),
    "s3_BodyAngleRangeMin_deg": _n(5.0, "first turn on, smallest (°)"),
    "s3_BodyAngleRangeMax_deg": _n(25.0, "first turn on, largest (°)"),
    "s4_HeadAngleRangeMin_deg": _n(20.0, "head heights tried, lowest (°)", HEAD_MIN_DEG, HEAD_MAX_DEG),
    "s4_HeadAngleRangeMax_deg": _n(45.0, "head heights tried, highest (°)", HEAD_MIN_DEG,
                                   45.0),  # the app's files ask for 45: the head stops at its limit
    "s4_HeadAngleChangesMin": _i(2, "head moves in place, fewest"),
    "s4_HeadAngleChangesMax": _i(3, "head moves in place, most"),
    "s6_BodyAngleRangeMin_deg": _n(30.0, "second turn on, smallest (°)"),
    "s6_BodyAngleRangeMax_deg": _n(65.0, "second turn on, largest (°)"),
    "finalEmotionEvent": EMOTION_EVENT,
}

_POUNCE: dict[str, Param] = {
    "maxNoGroundMotionBeforeBored_running_Sec": _n(20.0, "bored after this long without floor motion (s)"),
    "maxNoGroundMotionBeforeBored_notRunning_Sec": _n(3.0, "starts only on floor motion this recent (s)"),
    "backUpDistance": _n(-50.0, "backs up this far after a pounce (mm, negative)", -300.0, 300.0),
    "getReadyTriggers": triggers_param(("PounceInitial",), "played before the lunge"),
    "animTriggers": triggers_param(("PouncePounce",), "the lunge"),
    "successTriggers": triggers_param(("PounceSuccess",), "played after a catch"),
    "failTriggers": triggers_param(("PounceFail",), "played after a miss"),
    "successEmotionEvent": replace(EMOTION_EVENT, default="PounceSuccess", aliases=(), doc="fired after a catch"),
    "failEmotionEvent": replace(EMOTION_EVENT, default="PounceFail", aliases=(), doc="fired after a miss"),
    "finalEmotionEvent": replace(EMOTION_EVENT, doc="fired when it is bored of waiting for more motion"),
}

FACE_CLASSES: tuple[BehaviorClass, ...] = (
    BehaviorClass("FindFaces", find_faces, "turns to a face seen lately, else scans in place until one is in view",
                  _FIND_FACES),
    BehaviorClass("InteractWithFaces", interact_with_faces,
                  "turns to the face, plays its greeting, follows the face for 8–15 s",
                  {"minTimeToTrackFace_s": _n(8.0, "shortest time it follows the face (s)"),
                   "maxTimeToTrackFace_s": _n(15.0, "longest time it follows the face (s)"),
                   "animTriggers": triggers_param(("InteractWithFacesInitialUnnamed",)),
                   **_TRACKING, "finalEmotionEvent": EMOTION_EVENT}),
    BehaviorClass("AcknowledgeFace", acknowledge_face, "turns to the face and greets it, following it",
                  {"animTriggers": triggers_param(("AcknowledgeFaceUnnamed",)), **_TRACKING,
                   "finalEmotionEvent": replace(EMOTION_EVENT, default="GreetedFace")}),
    BehaviorClass("PounceOnMotion", pounce_on_motion,
                  "looks at floor motion, lunges, reacts to a catch or a miss, backs up; again until bored",
                  _POUNCE),
)

