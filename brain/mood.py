"""The robot's mood: emotion values that decay over time and react to emotion events.

Everything that shapes the mood is data: the emotion types, their value ranges, their decay
curves, the events and their repetition penalties all come from a mood config and emotion
event files in the Cozmo app's formats (``mood_config.json``, ``emotionevents/*.json``).
:class:`MoodConfig` and :class:`EmotionEvent` parse those shapes themselves, so this module
stands alone; they also convert the resource loader's records (``from_record``). A config
without a "default" decay graph leaves types without their own graph undecayed.

A :class:`Mood` holds the live state of one robot. Time is always passed in (monotonic
seconds), never read from a clock, so an offline simulation can run hours of mood in
milliseconds and tests can be exact.

Decay rules (facts from Anki's engine, choices documented where we had to make one):

* ``TimeRatio`` graphs map *seconds since the emotion's decay clock was reset* to a
  multiplier; each update does ``value *= g(t + dt) / g(t)``. The ratios telescope, so the
  value after any sequence of steps is ``value_at_reset * g(t) / g(0)``, whatever the tick
  rate. If ``g(t)`` is 0 the value is 0.
* ``ValueSlope`` graphs map the current (signed) value to a *rate per minute* at which its
  magnitude shrinks toward zero. Anki stepped this with one Euler step per tick, which makes
  the result depend on the tick rate. We integrate the same law exactly instead
  (``d|v|/dt = -g(v) / 60``; on each linear piece of the graph the solution is linear or
  exponential), so an offline run at 1 s steps matches a 30 Hz run; the value never
  crosses zero and stops where the rate is 0.
* The decay clock resets when an add larger than ``decay_reset_threshold`` (0.05) pushes the
  value away from zero, or when the value crosses zero (zero counts as positive, as in
  Anki's engine). Clamping to the value range does not prevent a reset.
* Emotion events scale their affectors by a repetition penalty: a graph of seconds since the
  same event last fired (the event's own graph, else the config's default). The first firing
  is at full strength. Every firing, even a fully penalised one, restarts that event's timer.
"""

from __future__ import annotations

import logging
import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal

from brain.graph import Graph, GraphError

__all__ = [
    "DEFAULT_REPETITION_PENALTY",
    "NO_DECAY",
    "DecayGraph",
    "EmotionEvent",
    "Mood",
    "MoodConfig",
    "MoodConfigError",
    "MoodError",
    "SimpleMood",
    "SimpleMoodRule",
]

log = logging.getLogger(__name__)

DecayKind = Literal["TimeRatio", "ValueSlope"]
DECAY_KINDS: tuple[str, ...] = ("TimeRatio", "ValueSlope")

#: The key of the decay graph used by emotion types that have none of their own.
DEFAULT_KEY = "default"

#: Repetition penalty used when a mood config names none: the same event twice within half a
#: second does nothing, full strength again after 10 s.
DEFAULT_REPETITION_PENALTY = Graph([(0.0, 0.0), (0.5, 0.0), (10.0, 1.0)])

#: Used for types without a graph when a mood config has no "default" one: no decay at all.
#: (The resource checker warns about such configs; a silent built-in curve would surprise.)
NO_DECAY_GRAPH = Graph([(0.0, 1.0)])

#: Values are clamped to this range unless the config's ``valueRanges`` narrows it.
DEFAULT_VALUE_RANGE: tuple[float, float] = (-1.0, 1.0)

#: Result-name spellings that differ between Cozmo-era and later mood configs.
_RESULT_ALIASES = {
    "RETRY": "FAILURE_RETRY",
    "FAILURE_RETRY": "RETRY",
    "ABORT": "FAILURE_ABORT",
    "FAILURE_ABORT": "ABORT",
}


class MoodError(Exception):
    """Base class of the mood engine's errors."""


class MoodConfigError(MoodError, ValueError):
    """A mood config or emotion event is malformed; the message names the field path."""


# --------------------------------------------------------------------------- JSON helpers


def _at(where: str, path: str) -> str:
    """Join a file/location prefix and a field path for error messages."""
    if not where:
        return path
    return f"{where}: {path}" if path else where


def _require_dict(obj: object, label: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise MoodConfigError(f"{label}: expected an object, got {type(obj).__name__} {obj!r:.60}")
    return obj


def _require_list(obj: object, label: str) -> list[Any]:
    if not isinstance(obj, list):
        raise MoodConfigError(f"{label}: expected a list, got {type(obj).__name__} {obj!r:.60}")
    return obj


def _require_str(obj: object, label: str) -> str:
    if not isinstance(obj, str) or not obj:
        raise MoodConfigError(f"{label}: expected a non-empty string, got {obj!r:.60}")
    return obj


def _require_number(obj: object, label: str) -> float:
    if isinstance(obj, bool) or not isinstance(obj, (int, float)) or not math.isfinite(obj):
        raise MoodConfigError(f"{label}: expected a finite number, got {obj!r:.60}")
    return float(obj)


def _graph_from_json(obj: object, label: str) -> Graph:
    """Parse ``{"nodes": [...]}`` into a Graph, re-raising graph errors as config errors."""
    node_obj = _require_dict(obj, label)
    if "nodes" not in node_obj:
        raise MoodConfigError(f"{label}: missing \"nodes\"")
    try:
        return Graph.from_nodes(node_obj["nodes"], where=f"{label}.nodes")
    except GraphError as exc:
        raise MoodConfigError(str(exc)) from exc


# --------------------------------------------------------------------------- data types


@dataclass(frozen=True)
class DecayGraph:
    """How one emotion type decays: the graph and how to read it (see the module docstring)."""

    kind: DecayKind
    graph: Graph

    def __post_init__(self) -> None:
        self.validate()

    def validate(self, label: str = "decay graph") -> None:
        """Check the rules Anki's engine enforced; raise MoodConfigError naming *label*."""
        if self.kind not in DECAY_KINDS:
            raise MoodConfigError(f"{label}.graphType: expected one of {DECAY_KINDS}, got {self.kind!r}")
        if not isinstance(self.graph, Graph):
            raise MoodConfigError(f"{label}: expected a Graph, got {type(self.graph).__name__}")
        for i, (x, y) in enumerate(self.graph.points):
            if y < 0:
                raise MoodConfigError(f"{label}.nodes[{i}].y: must not be negative, got {y:g}")
            if self.kind == "TimeRatio":
                if x < 0:
                    raise MoodConfigError(f"{label}.nodes[{i}].x: seconds must not be negative, got {x:g}")
                if i and y > self.graph.ys[i - 1]:
                    raise MoodConfigError(
                        f"{label}.nodes[{i}].y: a TimeRatio graph must not rise, "
                        f"got {y:g} after {self.graph.ys[i - 1]:g}"
                    )

    @classmethod
    def from_json(cls, obj: object, where: str = "") -> DecayGraph:
        """Parse ``{"graphType"?: "TimeRatio"|"ValueSlope", "nodes": [...]}`` (TimeRatio if absent)."""
        label = where or "decay graph"
        node_obj = _require_dict(obj, label)
        kind = node_obj.get("graphType", "TimeRatio")
        if kind not in DECAY_KINDS:
            raise MoodConfigError(f"{label}.graphType: expected one of {DECAY_KINDS}, got {kind!r}")
        return cls.checked(kind, _graph_from_json(node_obj, label), label)

    @classmethod
    def checked(cls, kind: str, graph: Graph, label: str) -> DecayGraph:
        """Build one, with validation errors naming *label* (a file and field path)."""
        result = object.__new__(cls)
        object.__setattr__(result, "kind", kind)
        object.__setattr__(result, "graph", graph)
        result.validate(label)
        return result


NO_DECAY = DecayGraph("TimeRatio", NO_DECAY_GRAPH)


@dataclass(frozen=True)
class EmotionEvent:
    """A named mood change: emotion type → delta, optionally with its own repetition penalty."""

    name: str
    affectors: Mapping[str, float]
    repetition_penalty: Graph | None = None

    @classmethod
    def from_json(cls, obj: object, where: str = "") -> EmotionEvent:
        """Parse one ``{"name", "emotionAffectors": [{"emotionType", "value"}], "repetitionPenalty"?}``.

        An emotion type named twice in one event has its values summed (with a warning):
        applying the affectors one after the other does the same to the value.
        """
        label = where or "emotion event"
        event = _require_dict(obj, label)
        if "name" not in event:
            raise MoodConfigError(f"{label}: missing \"name\"")
        name = _require_str(event["name"], f"{label}.name")
        label = f"{label} ({name})" if where else f"emotion event {name!r}"
        affectors: dict[str, float] = {}
        raw = event.get("emotionAffectors", [])
        for i, affector in enumerate(_require_list(raw, f"{label}.emotionAffectors")):
            item = f"{label}.emotionAffectors[{i}]"
            affector = _require_dict(affector, item)
            for key in ("emotionType", "value"):
                if key not in affector:
                    raise MoodConfigError(f"{item}: missing \"{key}\"")
            emotion_type = _require_str(affector["emotionType"], f"{item}.emotionType")
            if emotion_type == DEFAULT_KEY:
                raise MoodConfigError(f"{item}.emotionType: {DEFAULT_KEY!r} is not an emotion type")
            value = _require_number(affector["value"], f"{item}.value")
            if emotion_type in affectors:
                log.warning("%s: emotion type %r appears twice; values are summed", item, emotion_type)
                affectors[emotion_type] += value
            else:
                affectors[emotion_type] = value
        penalty = None
        if event.get("repetitionPenalty") is not None:
            penalty = _graph_from_json(event["repetitionPenalty"], f"{label}.repetitionPenalty")
        return cls(name, affectors, penalty)

    @classmethod
    def from_record(cls, record: Any) -> EmotionEvent:
        """Convert the resource loader's event record (``name``, ``affectors`` as items with
        ``emotion_type`` and ``value``, ``repetition_penalty``) without importing the loader."""
        affectors: dict[str, float] = {}
        for affector in record.affectors:
            name = affector.emotion_type
            affectors[name] = affectors.get(name, 0.0) + float(affector.value)
        return cls(record.name, affectors, record.repetition_penalty)

    @classmethod
    def list_from_json(cls, obj: object, where: str = "") -> list[EmotionEvent]:
        """Parse an emotion-event file: ``{"emotionEvents": [...]}`` or a single event object."""
        label = where or "emotion events"
        top = _require_dict(obj, label)
        if "emotionEvents" in top:
            items = _require_list(top["emotionEvents"], _at(where, "emotionEvents"))
            return [cls.from_json(item, _at(where, f"emotionEvents[{i}]")) for i, item in enumerate(items)]
        return [cls.from_json(top, where)]


class SimpleMood(str, Enum):
    """The coarse mood animation groups filter on (their ``Mood`` field)."""

    LOW_STIM = "LowStim"
    MED_STIM = "MedStim"
    HIGH_STIM = "HighStim"
    FRUSTRATED = "Frustrated"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class SimpleMoodRule:
    """Which emotions feed the simple mood, and its thresholds (Vector's rule by default).

    Vector computed it from ``Stimulated`` and ``Confident``. Cozmo has no ``Stimulated``, so
    *stimulation* lists candidate sets of emotion types, tried in order; the first set whose
    types all exist is used, and stimulation is the mean of their values. The default falls
    back to ``Excited``: it is raised by lively events and decays back to zero when nothing
    happens, as ``Stimulated`` did, so a quiet robot settles into LowStim. (``WantToPlay`` is
    not used: Cozmo's config gives it a flat decay graph, which would pin the mood high.)
    *frustration* lists candidate types for the "confident" input (first that exists).
    If no candidate exists the input reads 0.
    """

    stimulation: tuple[tuple[str, ...], ...] = (("Stimulated",), ("Excited",))
    frustration: tuple[str, ...] = ("Confident",)
    low_stim_max: float = 0.2
    frustrated_below: float = -0.29
    med_stim_max: float = 0.8

    @classmethod
    def from_json(cls, obj: object, where: str = "") -> SimpleMoodRule:
        """Parse the project's optional ``"simpleMood"`` block of a mood config.

        ``{"stimulation": [["Excited"], ...] | ["Excited", "WantToPlay"], "frustration": "Confident" |
        [...], "lowStimMax": 0.2, "frustratedBelow": -0.29, "medStimMax": 0.8}``, all optional. A
        flat list of names for ``stimulation`` is one candidate set (their mean).
        """
        label = where or "simpleMood"
        rule = _require_dict(obj, label)
        kwargs: dict[str, Any] = {}
        if "stimulation" in rule:
            raw = _require_list(rule["stimulation"], f"{label}.stimulation")
            if raw and all(isinstance(x, str) for x in raw):
                raw = [raw]
            sets: list[tuple[str, ...]] = []
            for i, entry in enumerate(raw):
                names = _require_list(entry, f"{label}.stimulation[{i}]")
                if not names:
                    raise MoodConfigError(f"{label}.stimulation[{i}]: expected at least one emotion type")
                sets.append(
                    tuple(_require_str(n, f"{label}.stimulation[{i}][{j}]") for j, n in enumerate(names))
                )
            if not sets:
                raise MoodConfigError(f"{label}.stimulation: expected at least one candidate")
            kwargs["stimulation"] = tuple(sets)
        if "frustration" in rule:
            raw_f = rule["frustration"]
            names_f = [raw_f] if isinstance(raw_f, str) else _require_list(raw_f, f"{label}.frustration")
            kwargs["frustration"] = tuple(
                _require_str(n, f"{label}.frustration[{i}]") for i, n in enumerate(names_f)
            )
        for key, attr in (("lowStimMax", "low_stim_max"), ("frustratedBelow", "frustrated_below"),
                          ("medStimMax", "med_stim_max")):
            if key in rule:
                kwargs[attr] = _require_number(rule[key], f"{label}.{key}")
        return cls(**kwargs)


@dataclass(frozen=True)
class MoodConfig:
    """Everything static about a mood: decay, ranges, default penalty, action → event map.

    ``decay_graphs`` is keyed by emotion type, with ``"default"`` for every type without its
    own graph. ``emotion_types`` may list types that appear nowhere else; a :class:`Mood`
    also takes every type named by the decay graphs, the value ranges and its events.
    ``events`` holds events defined inside the config itself (its ``eventMapper``).
    """

    decay_graphs: Mapping[str, DecayGraph] = field(default_factory=dict)
    default_repetition_penalty: Graph = DEFAULT_REPETITION_PENALTY
    action_result_events: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    value_ranges: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    emotion_types: Sequence[str] = field(default_factory=list)
    events: Mapping[str, EmotionEvent] = field(default_factory=dict)
    simple_mood: SimpleMoodRule = field(default_factory=SimpleMoodRule)
    decay_reset_threshold: float = 0.05

    def decay_for(self, emotion_type: str) -> DecayGraph:
        """The decay graph of *emotion_type*: its own, else "default", else no decay."""
        graph = self.decay_graphs.get(emotion_type) or self.decay_graphs.get(DEFAULT_KEY)
        return graph if graph is not None else NO_DECAY

    def range_for(self, emotion_type: str) -> tuple[float, float]:
        """The (min, max) an emotion's value is clamped to."""
        return self.value_ranges.get(emotion_type, DEFAULT_VALUE_RANGE)

    def all_emotion_types(self) -> list[str]:
        """Every emotion type this config names, in first-mention order."""
        names: dict[str, None] = {}
        for name in self.emotion_types:
            names[name] = None
        for name in self.decay_graphs:
            if name != DEFAULT_KEY:
                names[name] = None
        for name in self.value_ranges:
            names[name] = None
        for event in self.events.values():
            for name in event.affectors:
                names[name] = None
        return list(names)

    @classmethod
    def from_record(cls, record: Any, where: str = "") -> MoodConfig:
        """Convert the resource loader's mood-config record, duck-typed so this module does not
        import the loader: ``decay_graphs`` (items with ``graph`` and ``graph_type``),
        ``default_repetition_penalty`` (Graph or None), ``action_result_events``,
        ``value_ranges`` and ``event_mapper`` (raw JSON, parsed here)."""
        decay: dict[str, DecayGraph] = {}
        for emotion_type, item in record.decay_graphs.items():
            kind = getattr(item, "graph_type", "TimeRatio")
            label = _at(where, f"decayGraphs ({emotion_type})")
            decay[emotion_type] = DecayGraph.checked(kind, item.graph, label)
        events: dict[str, EmotionEvent] = {}
        mapper = getattr(record, "event_mapper", None)
        if isinstance(mapper, dict) and mapper.get("emotionEvents"):
            label = _at(where, "eventMapper.emotionEvents")
            for i, item in enumerate(_require_list(mapper["emotionEvents"], label)):
                event = EmotionEvent.from_json(item, f"{label}[{i}]")
                events[event.name] = event
        penalty = record.default_repetition_penalty
        return cls(
            decay_graphs=decay,
            default_repetition_penalty=penalty if penalty is not None else DEFAULT_REPETITION_PENALTY,
            action_result_events={a: dict(r) for a, r in record.action_result_events.items()},
            value_ranges=dict(record.value_ranges),
            events=events,
        )

    @classmethod
    def from_json(cls, obj: object, where: str = "") -> MoodConfig:
        """Parse a ``mood_config.json`` object (already decoded from JSON).

        Keys: ``decayGraphs`` (required), ``defaultRepetitionPenalty``, ``eventMapper``,
        ``actionResultEmotionEvents``, ``valueRanges`` (``[{"emotionType", "min", "max"}]``),
        and the project's optional ``emotionTypes`` (list of names) and ``simpleMood``
        (see :meth:`SimpleMoodRule.from_json`). Other keys (e.g. ``audioParameterMap``) are
        ignored.
        """
        top = _require_dict(obj, where or "mood config")
        if "decayGraphs" not in top:
            raise MoodConfigError(f"{_at(where, 'decayGraphs')}: required, missing")

        decay: dict[str, DecayGraph] = {}
        for i, entry in enumerate(_require_list(top["decayGraphs"], _at(where, "decayGraphs"))):
            label = _at(where, f"decayGraphs[{i}]")
            entry = _require_dict(entry, label)
            if "emotionType" not in entry:
                raise MoodConfigError(f"{label}: missing \"emotionType\"")
            emotion_type = _require_str(entry["emotionType"], f"{label}.emotionType")
            if emotion_type in decay:
                raise MoodConfigError(f"{label}.emotionType: {emotion_type!r} already has a decay graph")
            decay[emotion_type] = DecayGraph.from_json(entry, label)

        penalty = DEFAULT_REPETITION_PENALTY
        if top.get("defaultRepetitionPenalty") is not None:
            penalty = _graph_from_json(
                top["defaultRepetitionPenalty"], _at(where, "defaultRepetitionPenalty")
            )

        events: dict[str, EmotionEvent] = {}
        mapper = top.get("eventMapper")
        if mapper is not None:
            mapper = _require_dict(mapper, _at(where, "eventMapper"))
            raw_events = _require_list(
                mapper.get("emotionEvents", []), _at(where, "eventMapper.emotionEvents")
            )
            for i, item in enumerate(raw_events):
                event = EmotionEvent.from_json(item, _at(where, f"eventMapper.emotionEvents[{i}]"))
                if event.name in events:
                    log.warning("%s: event %r defined twice; the later one wins",
                                _at(where, f"eventMapper.emotionEvents[{i}]"), event.name)
                events[event.name] = event

        actions: dict[str, dict[str, str]] = {}
        raw_actions = top.get("actionResultEmotionEvents")
        if raw_actions is not None:
            label = _at(where, "actionResultEmotionEvents")
            for action, results in _require_dict(raw_actions, label).items():
                results = _require_dict(results, f"{label}.{action}")
                actions[action] = {
                    result: _require_str(event_name, f"{label}.{action}.{result}")
                    for result, event_name in results.items()
                }

        ranges: dict[str, tuple[float, float]] = {}
        raw_ranges = top.get("valueRanges")
        if raw_ranges is not None:
            for i, entry in enumerate(_require_list(raw_ranges, _at(where, "valueRanges"))):
                label = _at(where, f"valueRanges[{i}]")
                entry = _require_dict(entry, label)
                for key in ("emotionType", "min", "max"):
                    if key not in entry:
                        raise MoodConfigError(f"{label}: missing \"{key}\"")
                emotion_type = _require_str(entry["emotionType"], f"{label}.emotionType")
                low = _require_number(entry["min"], f"{label}.min")
                high = _require_number(entry["max"], f"{label}.max")
                if low > high:
                    raise MoodConfigError(f"{label}: min {low:g} is greater than max {high:g}")
                ranges[emotion_type] = (low, high)

        types: list[str] = []
        if top.get("emotionTypes") is not None:
            label = _at(where, "emotionTypes")
            raw_types = _require_list(top["emotionTypes"], label)
            types = [_require_str(n, f"{label}[{i}]") for i, n in enumerate(raw_types)]
        for name in (*types, *ranges):
            if name == DEFAULT_KEY:
                raise MoodConfigError(f"{_at(where, 'emotionTypes')}: {DEFAULT_KEY!r} is not an emotion type")

        rule = SimpleMoodRule()
        if top.get("simpleMood") is not None:
            rule = SimpleMoodRule.from_json(top["simpleMood"], _at(where, "simpleMood"))

        config = cls(
            decay_graphs=decay,
            default_repetition_penalty=penalty,
            action_result_events=actions,
            value_ranges=ranges,
            emotion_types=types,
            events=events,
            simple_mood=rule,
        )
        return config


# --------------------------------------------------------------------------- decay math


def _time_ratio_decay(graph: Graph, value: float, clock: float, dt: float) -> float:
    """One TimeRatio step: ``value * g(clock + dt) / g(clock)``; 0 once the graph is 0."""
    before = graph(clock)
    if before <= 0.0:
        return 0.0
    return value * (graph(clock + dt) / before)


def _value_slope_decay(graph: Graph, value: float, dt: float) -> float:
    """Shrink |value| toward zero for *dt* seconds at ``graph(value)`` units per minute, exactly.

    On each linear piece of the graph the rate is ``r0 - k * d`` after travelling a distance
    ``d`` toward zero, so ``d(τ) = r0 τ`` (k = 0) or ``r0 / k * (1 - exp(-k τ))``. We walk the
    pieces from the current value toward zero until the time runs out; zero is never crossed.
    """
    if value == 0.0 or dt <= 0.0:
        return value
    xs, ys = graph.xs, graph.ys
    sign = 1.0 if value > 0.0 else -1.0
    remaining = dt / 60.0  # minutes
    x = value
    for _ in range(len(xs) + 2):
        rate = graph(x)
        if rate <= 0.0:
            return x  # equilibrium: no decay here
        # The linear piece containing x on its zero-ward side, and where that piece ends.
        if sign > 0:
            i = bisect_left(xs, x)  # xs[i-1] < x <= xs[i]
            if i == 0:
                slope, boundary = 0.0, 0.0
            elif i == len(xs):
                slope, boundary = 0.0, max(xs[-1], 0.0)
            else:
                slope = (ys[i] - ys[i - 1]) / (xs[i] - xs[i - 1])
                boundary = max(xs[i - 1], 0.0)
        else:
            i = bisect_right(xs, x)  # xs[i-1] <= x < xs[i]
            if i == len(xs):
                slope, boundary = 0.0, 0.0
            elif i == 0:
                slope, boundary = 0.0, min(xs[0], 0.0)
            else:
                slope = (ys[i] - ys[i - 1]) / (xs[i] - xs[i - 1])
                boundary = min(xs[i], 0.0)
        distance = abs(x - boundary)
        k = sign * slope  # how fast the rate falls per unit travelled toward zero
        if k == 0.0:
            time_to_boundary = distance / rate
        else:
            fraction = 1.0 - k * distance / rate
            time_to_boundary = -math.log(fraction) / k if fraction > 0.0 else math.inf
        if remaining < time_to_boundary:
            travelled = rate * remaining if k == 0.0 else rate / k * (1.0 - math.exp(-k * remaining))
            travelled = min(travelled, distance)
            return x - sign * travelled
        remaining -= time_to_boundary
        x = boundary
        if x == 0.0:
            return 0.0
    return x


# --------------------------------------------------------------------------- the live mood


class Mood:
    """The live emotional state of one robot.

    Emotion types are the union of those named by the config (decay graphs, value ranges,
    ``emotion_types``, its own events) and by *events*. Values start at 0 (clamped into
    their range). Call :meth:`update` once per tick with the elapsed seconds; pass the
    current monotonic time to :meth:`add`, :meth:`trigger_event` and :meth:`action_result`.
    Unknown emotion types and events are logged and ignored, never raised: a long-running
    robot must not stop over one bad name in a personality.
    """

    def __init__(
        self,
        config: MoodConfig,
        events: Iterable[EmotionEvent] | Mapping[str, EmotionEvent] = (),
        *,
        simple_mood_rule: SimpleMoodRule | None = None,
    ) -> None:
        self._config = config
        merged: dict[str, EmotionEvent] = dict(config.events)
        event_list = events.values() if isinstance(events, Mapping) else events
        for event in event_list:
            if event.name in merged and merged[event.name] != event:
                log.warning("emotion event %r defined more than once; the later one wins", event.name)
            merged[event.name] = event
        self._events = merged

        names: dict[str, None] = dict.fromkeys(config.all_emotion_types())
        for event in merged.values():
            names.update(dict.fromkeys(event.affectors))
        self._types: tuple[str, ...] = tuple(names)
        self._decay = {t: config.decay_for(t) for t in self._types}
        self._ranges = {t: config.range_for(t) for t in self._types}
        self._values: dict[str, float] = {}
        self._clock: dict[str, float] = {}
        self._last_change: dict[str, float | None] = {}
        self._event_times: dict[str, float] = {}
        self._warned: set[str] = set()
        self.reset()

        rule = simple_mood_rule or config.simple_mood
        self._rule = rule
        self._stim_types: tuple[str, ...] = ()
        for candidate in rule.stimulation:
            if candidate and all(t in self._values for t in candidate):
                self._stim_types = tuple(candidate)
                break
        else:
            log.warning("simple mood: none of the stimulation sources %s exist; stimulation reads 0",
                        [list(c) for c in rule.stimulation])
        self._frustration_type: str | None = next((t for t in rule.frustration if t in self._values), None)
        if self._frustration_type is None:
            log.warning(
                "simple mood: none of %s exist; the robot is never Frustrated", list(rule.frustration)
            )

    # ----------------------------------------------------------------- read

    @property
    def config(self) -> MoodConfig:
        """The static data this mood runs on."""
        return self._config

    @property
    def emotion_types(self) -> tuple[str, ...]:
        """Every emotion type this mood tracks (for validating personalities at load time)."""
        return self._types

    @property
    def events(self) -> Mapping[str, EmotionEvent]:
        """Every emotion event this mood can trigger, by name."""
        return self._events

    def has_event(self, name: str) -> bool:
        """Whether an event of that name is known (for validating personalities at load time)."""
        return name in self._events

    def value(self, emotion_type: str) -> float:
        """The current value of an emotion; 0.0 (with a one-time warning) for an unknown type."""
        if emotion_type not in self._values:
            self._warn_once(f"type:{emotion_type}", "unknown emotion type %r; reading 0", emotion_type)
            return 0.0
        return self._values[emotion_type]

    def values(self) -> dict[str, float]:
        """A copy of all emotion values."""
        return dict(self._values)

    def seconds_decaying(self, emotion_type: str) -> float:
        """Seconds of decay since this emotion's decay clock was last reset."""
        return self._clock.get(emotion_type, 0.0)

    def stimulation(self) -> float:
        """The stimulation input of the simple mood (see :class:`SimpleMoodRule`)."""
        if not self._stim_types:
            return 0.0
        return sum(self._values[t] for t in self._stim_types) / len(self._stim_types)

    def simple_mood(self) -> SimpleMood:
        """Vector's coarse mood: low stimulation first, then frustration, then medium/high."""
        rule = self._rule
        stim = self.stimulation()
        if stim <= rule.low_stim_max:
            return SimpleMood.LOW_STIM
        confident = self._values[self._frustration_type] if self._frustration_type else 0.0
        if confident < rule.frustrated_below:
            return SimpleMood.FRUSTRATED
        if stim <= rule.med_stim_max:
            return SimpleMood.MED_STIM
        return SimpleMood.HIGH_STIM

    def snapshot(self) -> dict[str, Any]:
        """A JSON-ready picture of the mood for logs and the dashboard."""
        return {
            "emotions": dict(self._values),
            "simple_mood": self.simple_mood().value,
            "stimulation": self.stimulation(),
            "seconds_decaying": dict(self._clock),
            "last_change": dict(self._last_change),
            "last_events": dict(self._event_times),
        }

    # ----------------------------------------------------------------- write

    def reset(self) -> None:
        """All values back to 0 (clamped into range), all clocks and event timers cleared."""
        for t in self._types:
            low, high = self._ranges[t]
            self._values[t] = min(max(0.0, low), high)
            self._clock[t] = 0.0
            self._last_change[t] = None
        self._event_times.clear()

    def update(self, dt: float) -> None:
        """Let *dt* seconds of decay pass for every emotion."""
        if not (dt >= 0.0 and math.isfinite(dt)):
            raise ValueError(f"Mood.update: dt must be a finite number of seconds >= 0, got {dt!r}")
        if dt == 0.0:
            return
        for t in self._types:
            decay = self._decay[t]
            value = self._values[t]
            if value != 0.0:
                if decay.kind == "TimeRatio":
                    value = _time_ratio_decay(decay.graph, value, self._clock[t], dt)
                else:
                    value = _value_slope_decay(decay.graph, value, dt)
                low, high = self._ranges[t]
                self._values[t] = min(max(value, low), high)
            self._clock[t] += dt

    def add(self, emotion_type: str, delta: float, now: float) -> bool:
        """Add *delta* to an emotion (clamped to its range), applying the decay-clock reset rule.

        Returns False (and logs once) for an unknown type or a non-finite delta.
        """
        if emotion_type not in self._values:
            self._warn_once(f"type:{emotion_type}", "unknown emotion type %r; add ignored", emotion_type)
            return False
        if not math.isfinite(delta):
            log.warning("add(%r, %r): delta is not a finite number; ignored", emotion_type, delta)
            return False
        old = self._values[emotion_type]
        low, high = self._ranges[emotion_type]
        new = min(max(old + delta, low), high)
        self._values[emotion_type] = new
        away_from_zero = (old >= 0.0) == (delta >= 0.0)
        if abs(delta) > self._config.decay_reset_threshold and away_from_zero:
            self._clock[emotion_type] = 0.0
        elif (old >= 0.0) != (new >= 0.0):
            self._clock[emotion_type] = 0.0
        self._last_change[emotion_type] = now
        return True

    def set_value(self, emotion_type: str, value: float, now: float) -> bool:
        """Force an emotion to *value* (clamped) and restart its decay clock (debug, tests, scripts)."""
        if emotion_type not in self._values or not math.isfinite(value):
            self._warn_once(f"type:{emotion_type}", "set_value(%r, %r) ignored", emotion_type, value)
            return False
        low, high = self._ranges[emotion_type]
        self._values[emotion_type] = min(max(value, low), high)
        self._clock[emotion_type] = 0.0
        self._last_change[emotion_type] = now
        return True

    def repetition_multiplier(self, name: str, now: float) -> float:
        """What the next firing of event *name* at *now* would be scaled by (read-only)."""
        last = self._event_times.get(name)
        if last is None:
            return 1.0
        event = self._events.get(name)
        graph = event.repetition_penalty if event and event.repetition_penalty else None
        graph = graph or self._config.default_repetition_penalty
        return graph(max(0.0, now - last))

    def trigger_event(self, name: str, now: float) -> bool:
        """Apply event *name*'s affectors, scaled by its repetition penalty.

        Returns False (with a logged warning) for an unknown event, never raises.
        """
        event = self._events.get(name)
        if event is None:
            log.warning("unknown emotion event %r; ignored", name)
            return False
        scale = self.repetition_multiplier(name, now)
        self._event_times[name] = now
        log.debug("emotion event %s x%.3f", name, scale)
        for emotion_type, delta in event.affectors.items():
            self.add(emotion_type, delta * scale, now)
        return True

    def event_for_action(self, action: str, result: str) -> str | None:
        """The event mapped to (action, result), accepting RETRY/FAILURE_RETRY-style spellings."""
        results = self._config.action_result_events.get(action)
        if not results:
            return None
        name = results.get(result)
        if name is None and result in _RESULT_ALIASES:
            name = results.get(_RESULT_ALIASES[result])
        return name

    def action_result(self, action: str, result: str, now: float) -> bool:
        """Fire the event the config maps to an action's result; False if none is mapped."""
        name = self.event_for_action(action, result)
        if name is None:
            log.debug("no emotion event for action %s / %s", action, result)
            return False
        return self.trigger_event(name, now)

    # ----------------------------------------------------------------- internals

    def _warn_once(self, key: str, message: str, *args: object) -> None:
        if key not in self._warned:
            self._warned.add(key)
            log.warning(message, *args)
