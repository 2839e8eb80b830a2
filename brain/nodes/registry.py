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

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from py_trees import behaviours as pt_behaviours
from py_trees import common
from py_trees import decorators as pt_decorators
from py_trees.behaviour import Behaviour
from py_trees.composites import Parallel, Selector
from py_trees.composites import Sequence as SequenceNode

from brain.context import BrainContext
from brain.graph import Graph, GraphError
from brain.rhythm import format_clock, parse_clock
from driver.events import EVENT_KINDS

from . import cozmo_behaviors as cb
from .actions import (
    BackpackLights,
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
    parse_color,
)
from .choosers import ScoreSpec, Scoring, StrictPriority, WeightedRandom
from .conditions import (
    BatteryLow,
    MoodAbove,
    MoodBelow,
    OnCharger,
    OrientationIs,
    PickedUp,
    RecentEvent,
    SimpleMoodIs,
)
from .daytime import Night, QuietHours, TimeOfDay
from .decorators import Cooldown, Timeout, Timer

__all__ = ["BEHAVIOR_CLASSES", "NODE_TYPES", "NodeType", "Param", "ParamError", "coerce"]

BehaviorFactory = Callable[[BrainContext, cb.BehaviorSpec], Behaviour]

#: behaviorClass → factory(ctx, BehaviorSpec) -> subtree.
BEHAVIOR_CLASSES: dict[str, BehaviorFactory] = {
    "PlayAnim": cb.play_anim,
    "PlayArbitraryAnim": cb.play_arbitrary_anim,
    "ReactToCliff": cb.react_to_cliff,
    "ReactToPickup": cb.react_to_pickup,
    "ReactToPutDown": cb.react_to_put_down,
    "ReactToOnCharger": cb.react_to_on_charger,
    "DriveOffCharger": cb.drive_off_charger,
    "LookAround": cb.look_around,
    "ReactToPoke": cb.react_to_poke,
    "ReactToCubeTap": cb.react_to_cube_tap,
    "Sleep": cb.sleep,
    "Nap": cb.nap,
    "Wake": cb.wake,
    "ReactToRobotOnBack": cb.react_to_robot_on_back,
    "ReactToRobotOnFace": cb.react_to_robot_on_face,
    "ReactToRobotOnSide": cb.react_to_robot_on_side,
}


class ParamError(ValueError):
    """A parameter value does not fit its declaration; ``path`` is the sub-path inside the value."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.path = path


@dataclass(frozen=True)
class Param:
    """One parameter of a node type.

    ``kind`` is one of: number, int, bool, str, str_list (a string or a list of them),
    number_list, range (a [low, high] pair), graph ([[x, y], …]), colors (1, 3 or 5 colours),
    score (a scoring block), bool_or_null, event_value (true, false, null or a name such as an
    orientation), time (a time of day, ``HH:MM``), any.
    """

    kind: str
    required: bool = False
    default: Any = None
    doc: str = ""
    minimum: float | None = None
    choices: tuple[str, ...] | None = None


@dataclass(frozen=True)
class NodeType:
    """A node a personality can name: its kind, parameters and builder.

    ``build`` receives ``(name, ctx, **params)`` for leaves, plus ``children`` (and
    ``child_extras``, each child's chooser keys) for composites, or ``child`` for decorators.
    ``child_keys`` are the extra keys this composite allows on its children.
    """

    name: str
    kind: str
    build: Callable[..., Behaviour]
    params: Mapping[str, Param] = field(default_factory=dict)
    doc: str = ""
    child_keys: Mapping[str, Param] = field(default_factory=dict)


def _repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    for cls, name in ((bool, "a boolean"), (Mapping, "a mapping"), (list, "a list"), (str, "a string")):
        if isinstance(value, cls):
            return name
    return type(value).__name__


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ParamError(f"expected a number, got {_repr(value)}")
    return float(value)


def _graph(value: Any) -> Graph:
    if isinstance(value, Mapping) and "nodes" in value:
        try:
            return Graph.from_nodes(list(value["nodes"]))
        except GraphError as exc:
            raise ParamError(f"expected a graph: {exc}") from None
    if not isinstance(value, list) or not value:
        raise ParamError(f"expected a graph as a list of [x, y] points, got {_repr(value)}")
    points = []
    for i, point in enumerate(value):
        if not isinstance(point, list) or len(point) != 2:
            raise ParamError(f"expected an [x, y] point, got {_repr(point)}", f"[{i}]")
        try:
            points.append((_number(point[0]), _number(point[1])))
        except ParamError as exc:
            raise ParamError(str(exc), f"[{i}]") from None
    try:
        return Graph(points)
    except GraphError as exc:
        raise ParamError(str(exc)) from None


def _score(value: Any) -> ScoreSpec:
    if not isinstance(value, Mapping):
        raise ParamError(f"expected a mapping with emotions and/or flat_score, got {_type_name(value)}")
    unknown = set(value) - {"emotions", "flat_score", "repetition_penalty"}
    if unknown:
        raise ParamError(f"unknown key {sorted(unknown)[0]!r}; expected emotions, flat_score, repetition_penalty",
                         f".{sorted(unknown)[0]}")
    emotions: list[tuple[str, Graph]] = []
    raw = value.get("emotions", {})
    if not isinstance(raw, Mapping):
        raise ParamError(f"expected a mapping of emotion type to graph, got {_type_name(raw)}", ".emotions")
    for emotion, graph in raw.items():
        try:
            emotions.append((str(emotion), _graph(graph)))
        except ParamError as exc:
            raise ParamError(str(exc), f".emotions.{emotion}{exc.path}") from None
    flat = value.get("flat_score")
    if flat is not None:
        try:
            flat = _number(flat)
        except ParamError as exc:
            raise ParamError(str(exc), ".flat_score") from None
    if not emotions and flat is None:
        raise ParamError("a score needs emotions or a flat_score")
    penalty = None
    if value.get("repetition_penalty") is not None:
        try:
            penalty = _graph(value["repetition_penalty"])
        except ParamError as exc:
            raise ParamError(str(exc), f".repetition_penalty{exc.path}") from None
    return ScoreSpec(tuple(emotions), flat, penalty)


def coerce(param: Param, value: Any) -> Any:
    """Check ``value`` against ``param`` and return it in the form the builder takes."""
    kind = param.kind
    if kind == "any":
        return value
    if kind == "number" or kind == "int":
        number = _number(value)
        if kind == "int":
            if number != int(number):
                raise ParamError(f"expected a whole number, got {_repr(value)}")
            number = int(number)
        if param.minimum is not None and number < param.minimum:
            raise ParamError(f"expected a number >= {param.minimum:g}, got {_repr(value)}")
        return number
    if kind == "bool":
        if not isinstance(value, bool):
            raise ParamError(f"expected true or false, got {_repr(value)}")
        return value
    if kind == "event_value":
        if value is not None and not isinstance(value, (bool, str)):
            raise ParamError(f"expected true, false, null or a name, got {_repr(value)}")
        return value
    if kind == "bool_or_null":
        if value is not None and not isinstance(value, bool):
            raise ParamError(f"expected true, false or null, got {_repr(value)}")
        return value
    if kind == "str":
        if not isinstance(value, str) or not value:
            raise ParamError(f"expected a non-empty string, got {_repr(value)}")
        if param.choices is not None and value not in param.choices:
            raise ParamError(f"expected one of {', '.join(param.choices)}, got {_repr(value)}")
        return value
    if kind == "str_list":
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not items:
            raise ParamError(f"expected a string or a non-empty list of strings, got {_repr(value)}")
        for i, item in enumerate(items):
            if not isinstance(item, str) or not item:
                raise ParamError(f"expected a string, got {_repr(item)}", f"[{i}]")
        return list(items)
    if kind == "number_list":
        if not isinstance(value, list):
            raise ParamError(f"expected a list of numbers, got {_repr(value)}")
        out = []
        for i, item in enumerate(value):
            try:
                out.append(_number(item))
            except ParamError as exc:
                raise ParamError(str(exc), f"[{i}]") from None
        return out
    if kind == "range":
        if not isinstance(value, list) or len(value) != 2:
            raise ParamError(f"expected a [low, high] pair, got {_repr(value)}")
        low, high = (_number(v) for v in value)
        if high < low:
            raise ParamError(f"expected low <= high, got {_repr(value)}")
        return (low, high)
    if kind == "graph":
        return _graph(value)
    if kind == "time":
        try:
            return format_clock(parse_clock(value))
        except ValueError as exc:
            raise ParamError(str(exc)) from None
    if kind == "score":
        return _score(value)
    if kind == "colors":
        items = value if isinstance(value, list) else [value]
        if len(items) not in (1, 3, 5):
            raise ParamError(f"expected 1, 3 or 5 colours, got {len(items)}")
        for i, item in enumerate(items):
            try:
                parse_color(item)
            except ValueError as exc:
                raise ParamError(str(exc), f"[{i}]" if isinstance(value, list) else "") from None
        return items
    raise AssertionError(f"unknown parameter kind {kind!r}")


# ----------------------------------------------------------------------------- the table

_N = Param("number", required=True)
_S = Param("str", required=True)
_SECONDS = Param("number", required=True, minimum=0.0, doc="seconds")


def _leaf(name: str, build: Callable[..., Behaviour], doc: str, **params: Param) -> NodeType:
    return NodeType(name, "leaf", build, params, doc)


def _decorator(name: str, build: Callable[..., Behaviour], doc: str, **params: Param) -> NodeType:
    return NodeType(name, "decorator", build, params, doc)


def _pt(cls: type) -> Callable[..., Behaviour]:
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
    return pt_decorators.OneShot(name=name, child=child, policy=chosen)


def _sleep(name: str, ctx: BrainContext, max_s: float | None = None, wake_on: list[str] | None = None,
           face: str = "sleepy", get_in: str | None = "GoToSleepGetIn") -> Behaviour:
    return cb.SleepUntilWoken(name, ctx, wake_on=wake_on or cb.WAKE_EVENT_KINDS, max_s=max_s, face=face,
                              get_in=get_in)


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
    _decorator("inverter", _pt(pt_decorators.Inverter), "Swap SUCCESS and FAILURE."),
    _decorator("one_shot", _one_shot, "Run the child to completion once, then repeat its result.",
               policy=Param("str", default="on_success", choices=("on_success", "on_completion"))),
    _decorator("repeat", lambda name, ctx, child, count=-1: pt_decorators.Repeat(name, child, count),
               "Run the child again after each success, `count` times (-1: forever); FAILURE stops it.",
               count=Param("int", default=-1)),
    _decorator("retry", lambda name, ctx, child, count: pt_decorators.Retry(name, child, count),
               "Run the child again after each failure, up to `count` failures.",
               count=Param("int", required=True, minimum=1)),
    _decorator("failure_is_success", _pt(pt_decorators.FailureIsSuccess), "FAILURE → SUCCESS."),
    _decorator("failure_is_running", _pt(pt_decorators.FailureIsRunning), "FAILURE → RUNNING."),
    _decorator("success_is_failure", _pt(pt_decorators.SuccessIsFailure), "SUCCESS → FAILURE."),
    _decorator("success_is_running", _pt(pt_decorators.SuccessIsRunning), "SUCCESS → RUNNING."),
    _decorator("running_is_success", _pt(pt_decorators.RunningIsSuccess), "RUNNING → SUCCESS."),
    _decorator("running_is_failure", _pt(pt_decorators.RunningIsFailure), "RUNNING → FAILURE."),
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
          pause_range_s=(0.3, 1.5): LookAround(name, ctx, seconds, head_range_deg, turn_range_deg, pause_range_s),
          "Random head and body glances for `seconds`.", seconds=Param("number", default=10.0, minimum=0.0),
          head_range_deg=Param("range", default=(-5.0, 30.0)), turn_range_deg=Param("range", default=(20.0, 70.0)),
          pause_range_s=Param("range", default=(0.3, 1.5))),
    _leaf("backpack_lights", lambda name, ctx, colors=None, pattern=None: BackpackLights(name, ctx, colors, pattern),
          "Set the backpack LEDs: `colors` (1, 3 or 5) or a named `pattern`.",
          colors=Param("colors"), pattern=Param("str")),
    _leaf("wait", lambda name, ctx, seconds: Wait(name, ctx, seconds), "RUNNING for `seconds`.", seconds=_SECONDS),
    _leaf("random_wait", lambda name, ctx, min, max: RandomWait(name, ctx, min, max),  # noqa: A006
          "RUNNING for a random time in [min, max] seconds.",
          min=Param("number", required=True, minimum=0.0), max=Param("number", required=True, minimum=0.0)),
    _leaf("stop_motors", lambda name, ctx: StopMotors(name, ctx), "Stop wheels, head and lift."),
    _leaf("emotion_event", lambda name, ctx, event: FireEmotionEvent(name, ctx, event),
          "Fire an emotion event on the mood.", event=_S),
    _leaf("sleep", _sleep, "Sleep until woken by an event (or `max_s`).",
          max_s=Param("number", minimum=0.0), wake_on=Param("str_list"), face=Param("str", default="sleepy"),
          get_in=Param("str", default="GoToSleepGetIn")),
    _leaf("success", lambda name, ctx: pt_behaviours.Success(name), "Always SUCCESS."),
    _leaf("failure", lambda name, ctx: pt_behaviours.Failure(name), "Always FAILURE."),
    _leaf("running", lambda name, ctx: pt_behaviours.Running(name), "Always RUNNING."),
    # conditions
    _leaf("mood_above", lambda name, ctx, emotion, value: MoodAbove(name, ctx, emotion, value),
          "SUCCESS while emotion > value.", emotion=_S, value=_N),
    _leaf("mood_below", lambda name, ctx, emotion, value: MoodBelow(name, ctx, emotion, value),
          "SUCCESS while emotion < value.", emotion=_S, value=_N),
    _leaf("simple_mood_is", lambda name, ctx, moods: SimpleMoodIs(name, ctx, moods),
          "SUCCESS while the simple mood is one of `moods`.", moods=Param("str_list", required=True)),
    _leaf("recent_event",
          lambda name, ctx, kind, within_s=1.0, value=True, once=False: RecentEvent(name, ctx, kind, within_s,
                                                                                   value, once),
          "SUCCESS when an event of `kind` arrived in the last `within_s` seconds.",
          kind=Param("str", required=True, choices=tuple(sorted(EVENT_KINDS))),
          within_s=Param("number", default=1.0, minimum=0.0), value=Param("event_value", default=True),
          once=Param("bool", default=False)),
    _leaf("on_charger", lambda name, ctx: OnCharger(name, ctx), "SUCCESS while on the charger."),
    _leaf("picked_up", lambda name, ctx: PickedUp(name, ctx), "SUCCESS while held in the air."),
    _leaf("orientation_is", lambda name, ctx, orientations: OrientationIs(name, ctx, orientations),
          "SUCCESS while the robot lies in one of `orientations` (upright, in_air, on_back, on_face, "
          "on_side, on_left_side, on_right_side, falling).", orientations=Param("str_list", required=True)),
    _leaf("battery_low", lambda name, ctx, volts=3.6: BatteryLow(name, ctx, volts),
          "SUCCESS while the battery is below `volts`.", volts=Param("number", default=3.6, minimum=0.0)),
    _leaf("quiet_hours", lambda name, ctx: QuietHours(name, ctx),
          "SUCCESS during the personality's quiet hours (its night included)."),
    _leaf("night", lambda name, ctx: Night(name, ctx), "SUCCESS between the personality's bedtime and wake-up."),
    _leaf("time_of_day", _time_of_day,
          "SUCCESS while the local time is from `from` to `to` (past midnight when `to` is earlier).",
          **{"from": Param("time", required=True), "to": Param("time", required=True)}),
]

#: YAML name → node type.
NODE_TYPES: dict[str, NodeType] = {t.name: t for t in _LIST}

#: Parameters that name an emotion type / an emotion event / an animation trigger (for validation).
EMOTION_TYPE_PARAMS: dict[str, str] = {"mood_above": "emotion", "mood_below": "emotion"}
EMOTION_EVENT_PARAMS: dict[str, str] = {"emotion_event": "event"}
TRIGGER_PARAMS: dict[str, str] = {"play_animation": "trigger", "play_random_animation": "triggers"}
