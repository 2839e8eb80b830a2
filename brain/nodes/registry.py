"""The node library as data: every node type a personality can name, and Cozmo's behaviour classes.

``NODE_TYPES`` maps the YAML name of each node (``sequence``, ``wait``, ``cooldown`` …) to a
:class:`NodeType`: what kind it is (leaf, composite, decorator), its parameters with their
types and defaults, and how to build it. The personality loader validates a YAML node
against this table and reports mistakes with the parameter's path; the format reference
(docs/personality-format.md) documents the same table.

``BEHAVIOR_CLASSES`` maps Anki's ``behaviorClass`` names to factories that build a subtree
from a behaviour record (see :mod:`brain.nodes.cozmo_behaviors`). The resource checker
reports behaviour classes missing from it as unimplemented.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from py_trees import behaviours as pt_behaviours
from py_trees import common
from py_trees.behaviour import Behaviour
from py_trees.composites import Parallel

from brain.context import BrainContext
from brain.graph import Graph
from brain.needs import BRACKETS, NEEDS
from brain.rhythm import parse_clock
from driver.events import EVENT_KINDS

from . import decorators as dec
from .actions import (
    FACE_HEAD_BAND_DEG,
    Drive,
    FireEmotionEvent,
    LookAround,
    PlayAnimationTrigger,
    PlayClip,
    PlayRandomTrigger,
    RandomWait,
    SetFaceExpression,
    SetHeadAngle,
    SetLiftHeight,
    StopMotors,
    Turn,
    Wait,
)
from .behavior_class import BehaviorClass
from .choosers import ScoreSpec, Scoring, StrictPriority, WeightedRandom
from .composites import Selector
from .composites import Sequence as SequenceNode
from .conditions import (
    BatteryLow,
    MoodAbove,
    MoodBelow,
    OnCharger,
    OrientationIs,
    PickedUp,
    RecentEvent,
    SimpleMoodIs,
    Sleeping,
    Sleepy,
)
from .cozmo_behaviors import BEHAVIOR_CLASS_LIST
from .cube_play import CubeLightsNode
from .daytime import Night, QuietHours, TimeOfDay
from .decorators import Cooldown, Timeout, Timer
from .lights import BackpackLights
from .needs_classes import NeedLow
from .params import Param, ParamError, coerce
from .sleeper import SLEEPER_PARAMS, sleeper_node
from .world_actions import LookTowardsMotion, SearchForFaces, TrackFace, TurnTowardsFace, TurnTowardsGlimpse
from .world_conditions import (
    MOTION_PLACES,
    CubeConnected,
    FaceGlimpsedWithin,
    FaceNew,
    FaceSeenWithin,
    FaceVisible,
    MotionSeenWithin,
)

__all__ = ["BEHAVIOR_CLASSES", "NODE_TYPES", "NodeType", "Param", "ParamError", "coerce"]

#: behaviorClass → its declaration; calling one with ``(ctx, BehaviorSpec)`` validates and builds the subtree.
BEHAVIOR_CLASSES: dict[str, BehaviorClass] = {c.name: c for c in BEHAVIOR_CLASS_LIST}


@dataclass(frozen=True)
class NodeType:
    """A node a personality can name: its kind, parameters and builder.

    ``build`` receives ``(name, ctx, **params)`` for leaves, plus ``children`` (and
    ``child_extras``, each child's chooser keys) for composites, or ``child`` for decorators.
    ``child_keys`` are the extra keys this composite allows on its children; ``condition`` marks a
    leaf that only looks (SUCCESS or FAILURE on what it sees), listed apart in the format reference.
    """

    name: str
    kind: str
    build: Callable[..., Behaviour]
    params: Mapping[str, Param] = field(default_factory=dict)
    doc: str = ""
    child_keys: Mapping[str, Param] = field(default_factory=dict)
    condition: bool = False


# ----------------------------------------------------------------------------- the table

_N = Param("number", required=True)
_S = Param("str", required=True)
_SECONDS = Param("number", required=True, minimum=0.0, doc="seconds")
#: Bounded speeds of the nodes that turn to what the robot sees (Anki's FindFaces: body 150°/s, head 90°/s).
_AIM = {"body_speed_dps": Param("number", default=150.0, minimum=10.0, maximum=300.0, doc="body turn speed (°/s)"),
        "head_speed_dps": Param("number", default=90.0, minimum=10.0, maximum=300.0, doc="head speed (°/s)")}
_CLAMP = Param("number", default=3.0, minimum=0.0, maximum=45.0, doc="smaller body errors are left alone (°)")


def _leaf(name: str, build: Callable[..., Behaviour], doc: str, **params: Param) -> NodeType:
    return NodeType(name, "leaf", build, params, doc)


def _condition(name: str, build: Callable[..., Behaviour], doc: str, **params: Param) -> NodeType:
    return NodeType(name, "leaf", build, params, doc, condition=True)


def _decorator(name: str, build: Callable[..., Behaviour], doc: str, **params: Param) -> NodeType:
    return NodeType(name, "decorator", build, params, doc)


def _wrap(cls: type) -> Callable[..., Behaviour]:
    return lambda name, ctx, child: cls(name=name, child=child)


def _parallel(name: str, ctx: BrainContext, children: Sequence[Behaviour], child_extras: Any,
              policy: str = "success_on_all", synchronise: bool = True) -> Behaviour:
    chosen = (common.ParallelPolicy.SuccessOnAll(synchronise=synchronise) if policy == "success_on_all"
              else common.ParallelPolicy.SuccessOnOne())
    return Parallel(name, policy=chosen, children=list(children))


def _weighted(name: str, ctx: BrainContext, children: Sequence[Behaviour], child_extras: Sequence[Mapping[str, Any]]
              ) -> Behaviour:
    return WeightedRandom(name, ctx, children, [e.get("weight", 1.0) for e in child_extras],
                          [e.get("cooldown", 0.0) for e in child_extras])


def _scoring(name: str, ctx: BrainContext, children: Sequence[Behaviour], child_extras: Sequence[Mapping[str, Any]],
             noise: float = 0.1, repetition_penalty: Graph | None = None, reevaluate: bool = False,
             running_bonus: Graph | None = None) -> Behaviour:
    scores = [e.get("score") or ScoreSpec() for e in child_extras]
    return Scoring(name, ctx, children, scores, noise=noise, repetition_penalty=repetition_penalty,
                   reevaluate=reevaluate, running_bonus=running_bonus)


def _time_of_day(name: str, ctx: BrainContext, **between: str) -> Behaviour:
    return TimeOfDay(name, ctx, parse_clock(between["from"]), parse_clock(between["to"]))


def _one_shot(name: str, ctx: BrainContext, child: Behaviour, policy: str = "on_success") -> Behaviour:
    chosen = (common.OneShotPolicy.ON_SUCCESSFUL_COMPLETION if policy == "on_success"
              else common.OneShotPolicy.ON_COMPLETION)
    return dec.OneShot(name=name, child=child, policy=chosen)


_LIST: list[NodeType] = [
    # composites
    NodeType("sequence", "composite",
             lambda name, ctx, children, child_extras, memory=True: SequenceNode(name, memory, list(children)),
             {"memory": Param("bool", default=True, doc="resume at the running child (true) or re-check "
                                                        "earlier children every tick (false)")},
             "Run children in order until one fails or runs."),
    NodeType("selector", "composite",
             lambda name, ctx, children, child_extras, memory=False: Selector(name, memory, list(children)),
             {"memory": Param("bool", default=False, doc="stick with the running child (true) or let a higher "
                                                         "child interrupt it (false)")},
             "Run the first child that does not fail."),
    NodeType("strict_priority", "composite",
             lambda name, ctx, children, child_extras: StrictPriority(name, children), {},
             "Anki's StrictPriority chooser: a selector without memory."),
    NodeType("parallel", "composite", _parallel,
             {"policy": Param("str", default="success_on_all", choices=("success_on_all", "success_on_one")),
              "synchronise": Param("bool", default=True, doc="success_on_all: do not re-tick finished children")},
             "Tick all children every tick; any failure fails it."),
    NodeType("weighted_random", "composite", _weighted, {},
             "Pick one child by weight among those off cooldown (all cooling: the closest to ready).",
             child_keys={"weight": Param("number", default=1.0, minimum=0.0),
                         "cooldown": Param("number", default=0.0, minimum=0.0, doc="seconds")}),
    NodeType("scoring", "composite", _scoring,
             {"noise": Param("number", default=0.1, minimum=0.0),
              "repetition_penalty": Param("graph", doc="seconds since a child last ran → multiplier"),
              "reevaluate": Param("bool", default=False, doc="re-score every tick; a better child interrupts"),
              "running_bonus": Param("graph", doc="seconds running → bonus for the running child")},
             "Pick the child with the best mood score; a zero score vetoes.",
             child_keys={"score": Param("score", required=True)}),
    # decorators
    _decorator("cooldown", lambda name, ctx, child, seconds: Cooldown(name, child, ctx, seconds),
               "FAILURE until `seconds` after the child last ran.", seconds=_SECONDS),
    _decorator("timeout", lambda name, ctx, child, seconds: Timeout(name, child, ctx, seconds),
               "FAILURE (child stopped) when the child runs longer than `seconds`.", seconds=_SECONDS),
    _decorator("timer", lambda name, ctx, child, seconds: Timer(name, child, ctx, seconds),
               "SUCCESS (child stopped) once the child has run `seconds`.", seconds=_SECONDS),
    _decorator("inverter", _wrap(dec.Inverter), "Swap SUCCESS and FAILURE."),
    _decorator("one_shot", _one_shot, "Run the child to completion once, then repeat its result.",
               policy=Param("str", default="on_success", choices=("on_success", "on_completion"))),
    _decorator("repeat", lambda name, ctx, child, count=-1: dec.Repeat(name, child, count),
               "Run the child again after each success, `count` times (-1: forever); FAILURE stops it.",
               count=Param("int", default=-1)),
    _decorator("retry", lambda name, ctx, child, count: dec.Retry(name, child, count),
               "Run the child again after each failure, up to `count` failures.",
               count=Param("int", required=True, minimum=1)),
    _decorator("track_face",
               lambda name, ctx, child, **params: TrackFace(name, child, ctx, **params),
               "Keep head and body on the nearest face while the child runs (head and body tracks locked).",
               period_s=Param("range", default=(0.2, 0.7), doc="seconds between two re-aims, drawn each time"),
               clamp_deg=_CLAMP, max_age_s=Param("number", default=1.0, minimum=0.0,
                                                 doc="follow a face out of view this long (s)"),
               head_tolerance_deg=Param("number", default=2.0, minimum=0.0,
                                        doc="leave the head alone when it is this close (degrees)"), **_AIM),
    _decorator("failure_is_success", _wrap(dec.FailureIsSuccess), "FAILURE → SUCCESS."),
    _decorator("failure_is_running", _wrap(dec.FailureIsRunning), "FAILURE → RUNNING."),
    _decorator("success_is_failure", _wrap(dec.SuccessIsFailure), "SUCCESS → FAILURE."),
    _decorator("success_is_running", _wrap(dec.SuccessIsRunning), "SUCCESS → RUNNING."),
    _decorator("running_is_success", _wrap(dec.RunningIsSuccess), "RUNNING → SUCCESS."),
    _decorator("running_is_failure", _wrap(dec.RunningIsFailure), "RUNNING → FAILURE."),
    # actions
    _leaf("play_animation", lambda name, ctx, trigger: PlayAnimationTrigger(name, ctx, trigger),
          "Play an animation trigger and wait for it.", trigger=_S),
    _leaf("play_random_animation",
          lambda name, ctx, triggers, weights=None: PlayRandomTrigger(name, ctx, triggers, weights),
          "Play one of `triggers`, picked by `weights`.", triggers=Param("str_list", required=True),
          weights=Param("number_list")),
    _leaf("play_clip", lambda name, ctx, clip: PlayClip(name, ctx, clip), "Play one clip by name.", clip=_S),
    _leaf("face", lambda name, ctx, expression: SetFaceExpression(name, ctx, expression),
          "Show a named procedural face.", expression=_S),
    _leaf("set_head_angle", lambda name, ctx, degrees, speed_dps=None: SetHeadAngle(name, ctx, degrees, speed_dps),
          "Move the head (degrees, -25…44.5).", degrees=_N, speed_dps=Param("number", minimum=1.0)),
    _leaf("set_lift_height", lambda name, ctx, mm: SetLiftHeight(name, ctx, mm),
          "Move the lift (mm, 32…92).", mm=_N),
    _leaf("drive", lambda name, ctx, left, right, seconds: Drive(name, ctx, left, right, seconds),
          "Drive the wheels (mm/s) for `seconds`, then stop.", left=_N, right=_N, seconds=_SECONDS),
    _leaf("turn", lambda name, ctx, degrees, speed_dps=180.0: Turn(name, ctx, degrees, speed_dps),
          "Turn in place (degrees, positive = left).", degrees=_N,
          speed_dps=Param("number", default=180.0, minimum=1.0)),
    _leaf("look_around",
          lambda name, ctx, seconds=10.0, head_range_deg=(-5.0, 30.0), turn_range_deg=(20.0, 70.0),
          pause_range_s=(0.3, 1.5), turn_head_deg=FACE_HEAD_BAND_DEG: LookAround(
              name, ctx, seconds, head_range_deg, turn_range_deg, pause_range_s, turn_head_deg=turn_head_deg),
          "Random head and body glances for `seconds`.", seconds=Param("number", default=10.0, minimum=0.0),
          head_range_deg=Param("range", default=(-5.0, 30.0)), turn_range_deg=Param("range", default=(20.0, 70.0)),
          pause_range_s=Param("range", default=(0.3, 1.5)),
          turn_head_deg=Param("range", default=FACE_HEAD_BAND_DEG,
                              doc="a turn raises a lower head into this band (°), where faces are")),
    _leaf("turn_towards_face", lambda name, ctx, **params: TurnTowardsFace(name, ctx, **params),
          "Turn body and head to the nearest face in view, or to where the last one was.",
          max_age_s=Param("number", default=10.0, minimum=0.0, doc="how old the last face may be (s)"),
          clamp_deg=_CLAMP, **_AIM),
    _leaf("turn_towards_glimpse", lambda name, ctx, **params: TurnTowardsGlimpse(name, ctx, **params),
          "Turn body and head to where a face was glimpsed (seen once, not confirmed) within `within_s`.",
          within_s=Param("number", default=5.0, minimum=0.0, doc="seconds"),
          clamp_deg=_CLAMP, **_AIM),
    _leaf("look_towards_motion", lambda name, ctx, **params: LookTowardsMotion(name, ctx, **params),
          "Turn body and head towards the last motion seen within `within_s` (`where`: only there).",
          within_s=Param("number", default=3.0, minimum=0.0, doc="seconds"),
          where=Param("str", choices=MOTION_PLACES, doc="ground, left, right, top or image"),
          clamp_deg=_CLAMP, **_AIM),
    _leaf("search_for_faces", lambda name, ctx, **params: SearchForFaces(name, ctx, **params),
          "Scan with head and body until a face is in view (FAILURE after `seconds`).",
          seconds=Param("number", default=30.0, minimum=0.0),
          turn_deg=Param("range", default=(30.0, 65.0), doc="forward body turns (°)"),
          back_turn_deg=Param("range", default=(10.0, 30.0), doc="the small turn back opening each round (°)"),
          short_turn_deg=Param("range", default=(5.0, 25.0), doc="the first, short turn on (°)"),
          clockwise_chance=Param("number", default=0.5, minimum=0.0, maximum=1.0,
                                 doc="chance the scan turns clockwise"),
          head_deg=Param("range", default=(20.0, 42.0), doc="head angles tried (°)"),
          pause_s=Param("range", default=(0.5, 1.0), doc="pauses between moves (s)"),
          pause_trigger=Param("str", doc="animation trigger played in the pauses, when the resources have it"),
          turn_head_deg=Param("range", default=(25.0, 42.0), doc="head angles taken while the body turns (°)"),
          turn_head_speed_dps=Param("number", default=60.0, minimum=1.0, doc="head speed while the body turns (°/s)"),
          **_AIM),
    _leaf("backpack_lights", lambda name, ctx, colors=None, pattern=None: BackpackLights(name, ctx, colors, pattern),
          "Set the backpack LEDs: `colors` (1, 3 or 5) or a named `pattern`.",
          colors=Param("colors"), pattern=Param("str")),
    _leaf("cube_lights", lambda name, ctx, trigger: CubeLightsNode(name, ctx, trigger),
          "Play a cube light `trigger` (the cube trigger map's, or a light file's name) on the connected "
          "cubes; RUNNING while it plays, back to their glow when stopped.", trigger=_S),
    _leaf("wait", lambda name, ctx, seconds: Wait(name, ctx, seconds), "RUNNING for `seconds`.", seconds=_SECONDS),
    _leaf("random_wait", lambda name, ctx, min, max: RandomWait(name, ctx, min, max),  # noqa: A006
          "RUNNING for a random time in [min, max] seconds.",
          min=Param("number", required=True, minimum=0.0), max=Param("number", required=True, minimum=0.0)),
    _leaf("stop_motors", lambda name, ctx: StopMotors(name, ctx), "Stop wheels, head and lift."),
    _leaf("emotion_event", lambda name, ctx, event: FireEmotionEvent(name, ctx, event),
          "Fire an emotion event on the mood.", event=_S),
    _leaf("sleep", sleeper_node, "Sleep until woken by an event (or `max_s`).", **SLEEPER_PARAMS),
    _leaf("success", lambda name, ctx: pt_behaviours.Success(name), "Always SUCCESS."),
    _leaf("failure", lambda name, ctx: pt_behaviours.Failure(name), "Always FAILURE."),
    _leaf("running", lambda name, ctx: pt_behaviours.Running(name), "Always RUNNING."),
    # conditions
    _condition("mood_above", lambda name, ctx, emotion, value: MoodAbove(name, ctx, emotion, value),
          "SUCCESS while emotion > value.", emotion=_S, value=_N),
    _condition("mood_below", lambda name, ctx, emotion, value: MoodBelow(name, ctx, emotion, value),
          "SUCCESS while emotion < value.", emotion=_S, value=_N),
    _condition("simple_mood_is", lambda name, ctx, moods: SimpleMoodIs(name, ctx, moods),
          "SUCCESS while the simple mood is one of `moods`.", moods=Param("str_list", required=True)),
    _condition("recent_event",
          lambda name, ctx, kind, within_s=1.0, value=True, once=False: RecentEvent(name, ctx, kind, within_s,
                                                                                   value, once),
          "SUCCESS when an event of `kind` arrived in the last `within_s` seconds.",
          kind=Param("str", required=True, choices=tuple(sorted(EVENT_KINDS))),
          within_s=Param("number", default=1.0, minimum=0.0), value=Param("event_value", default=True),
          once=Param("bool", default=False)),
    _condition("on_charger", lambda name, ctx: OnCharger(name, ctx), "SUCCESS while on the charger."),
    _condition("picked_up", lambda name, ctx: PickedUp(name, ctx), "SUCCESS while held in the air."),
    _condition("orientation_is", lambda name, ctx, orientations: OrientationIs(name, ctx, orientations),
          "SUCCESS while the robot lies in one of `orientations` (upright, in_air, on_back, on_face, "
          "on_side, on_left_side, on_right_side, falling).", orientations=Param("str_list", required=True)),
    _condition("sleeping", lambda name, ctx: Sleeping(name, ctx),
               "SUCCESS while asleep or waking up (until the wake-up has played)."),
    _condition("sleepy", lambda name, ctx: Sleepy(name, ctx),
               "SUCCESS while the sleep debt is at the personality's sleepy level (`arousal.sleepy_after_s`; "
               "`sleepy_on_charger_s` on the charger)."),
    _condition("need_low", lambda name, ctx, need, bracket="Warning": NeedLow(name, ctx, need, bracket, None),
               "SUCCESS while a need (Energy, Play, Repair) is at `bracket` or below (Warning takes Critical too).",
               need=Param("str", required=True, choices=NEEDS),
               bracket=Param("str", default="Warning", choices=BRACKETS)),
    _condition("battery_low", lambda name, ctx, volts=3.6: BatteryLow(name, ctx, volts),
          "SUCCESS while the battery is below `volts`.", volts=Param("number", default=3.6, minimum=0.0)),
    _condition("quiet_hours", lambda name, ctx: QuietHours(name, ctx),
          "SUCCESS during the personality's quiet hours (its night included)."),
    _condition("night", lambda name, ctx: Night(name, ctx), "SUCCESS between the personality's bedtime and wake-up."),
    _condition("cube_connected", lambda name, ctx: CubeConnected(name, ctx),
               "SUCCESS while a light cube is connected."),
    _condition("face_visible", lambda name, ctx: FaceVisible(name, ctx),
               "SUCCESS while a face is in the camera's picture (the world model's)."),
    _condition("face_seen_within", lambda name, ctx, within_s: FaceSeenWithin(name, ctx, within_s),
               "SUCCESS when a face was in view within the last `within_s` seconds.",
               within_s=Param("number", required=True, minimum=0.0, doc="seconds")),
    _condition("face_glimpsed_within", lambda name, ctx, within_s=5.0: FaceGlimpsedWithin(name, ctx, within_s),
               "SUCCESS when a face was glimpsed (seen once, not confirmed) within the last `within_s` seconds "
               "and none was seen since.",
               within_s=Param("number", default=5.0, minimum=0.0, doc="seconds")),
    _condition("face_new", lambda name, ctx, unseen_s=60.0, within_s=10.0: FaceNew(name, ctx, unseen_s, within_s),
               "SUCCESS while a face in view came within `within_s` after none was seen for `unseen_s`.",
               unseen_s=Param("number", default=60.0, minimum=0.0, doc="seconds alone before it"),
               within_s=Param("number", default=10.0, minimum=0.0, doc="seconds since it came")),
    _condition("motion_seen_within",
               lambda name, ctx, within_s, where=None: MotionSeenWithin(name, ctx, within_s, where),
               "SUCCESS when motion was seen within the last `within_s` seconds (`where`: only there).",
               within_s=Param("number", required=True, minimum=0.0, doc="seconds"),
               where=Param("str", choices=MOTION_PLACES, doc="ground, left, right, top or image")),
    _condition("time_of_day", _time_of_day,
          "SUCCESS while the local time is from `from` to `to` (past midnight when `to` is earlier).",
          **{"from": Param("time", required=True), "to": Param("time", required=True)}),
]

#: YAML name → node type.
NODE_TYPES: dict[str, NodeType] = {t.name: t for t in _LIST}

#: Parameters that name an emotion type / an emotion event / an animation trigger (for validation).
EMOTION_TYPE_PARAMS: dict[str, str] = {"mood_above": "emotion", "mood_below": "emotion"}
EMOTION_EVENT_PARAMS: dict[str, str] = {"emotion_event": "event"}
TRIGGER_PARAMS: dict[str, str] = {"play_animation": "trigger", "play_random_animation": "triggers"}
#: Parameters that name a cube light animation (a cube trigger or a light file) / a backpack light
#: pattern (built in or a file of the resource set): a name the resources lack fails at run time.
CUBE_LIGHT_PARAMS: dict[str, str] = {"cube_lights": "trigger"}
BACKPACK_PATTERN_PARAMS: dict[str, str] = {"backpack_lights": "pattern"}
