"""The mood's rules as data: config, emotion events, decay graphs, simple-mood thresholds.

These records are what a personality and the Cozmo app's mood files define; they are checked
once when built and never change. The live state that applies them over time is
:class:`brain.mood.Mood`, which re-exports every public name here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from brain.graph import Graph

if TYPE_CHECKING:  # the loader's records; converted here, never imported at run time
    from brain.assets import records


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

#: Cozmo's emotion types.
COZMO_EMOTION_TYPES: tuple[str, ...] = ("Happy", "Confident", "Excited", "Brave", "Calm", "Social", "WantToPlay")

#: Result-name spellings that differ between Cozmo-era and later mood configs.
_RESULT_ALIASES = {
    "RETRY": "FAILURE_RETRY",
    "FAILURE_RETRY": "RETRY",
    "ABORT": "FAILURE_ABORT",
    "FAILURE_ABORT": "ABORT",
}

#: A place inside a decay graph's JSON object, e.g. ``("nodes", 1, "y")``.
GraphPath = tuple[str | int, ...]


class MoodError(Exception):
    """Base class of the mood engine's errors."""


class MoodConfigError(MoodError, ValueError):
    """A decay graph (or other mood data built in code) breaks a rule; the message names the field."""


def _format_path(path: GraphPath) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


# --------------------------------------------------------------------------- data types


def decay_graph_problem(kind: str, graph: Graph) -> tuple[GraphPath, str] | None:
    """The first rule of Anki's engine a decay graph breaks, or None when it keeps them all.

    The answer is where (inside the graph's JSON object: ``("graphType",)``, ``("nodes", 2, "y")``)
    and what is wrong. Rules: the kind is ``TimeRatio`` or ``ValueSlope``; no ``y`` is negative;
    a ``TimeRatio`` graph's seconds are not negative and its multiplier never rises. The resource
    loader reports a file's graph that breaks one; :class:`DecayGraph` refuses to be built from one.
    """
    if kind not in DECAY_KINDS:
        return ("graphType",), f"expected one of {DECAY_KINDS}, got {kind!r}"
    for i, (x, y) in enumerate(graph.points):
        if y < 0:
            return ("nodes", i, "y"), f"must not be negative, got {y:g}"
        if kind == "TimeRatio":
            if x < 0:
                return ("nodes", i, "x"), f"seconds must not be negative, got {x:g}"
            if i and y > graph.ys[i - 1]:
                return ("nodes", i, "y"), f"a TimeRatio graph must not rise, got {y:g} after {graph.ys[i - 1]:g}"
    return None


@dataclass(frozen=True)
class DecayGraph:
    """How one emotion type decays: the graph and how to read it (see the module docstring)."""

    kind: DecayKind
    graph: Graph

    def __post_init__(self) -> None:
        self.validate()

    def validate(self, label: str = "decay graph") -> None:
        """Check :func:`decay_graph_problem`'s rules; raise MoodConfigError naming *label*."""
        if not isinstance(self.graph, Graph):
            raise MoodConfigError(f"{label}: expected a Graph, got {type(self.graph).__name__}")
        problem = decay_graph_problem(self.kind, self.graph)
        if problem is not None:
            where, message = problem
            raise MoodConfigError(f"{label}{_format_path(where)}: {message}")

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
    def from_record(cls, record: records.EmotionEvent) -> EmotionEvent:
        """The loader's event record as the runtime uses it.

        An emotion type named twice has its values summed (the loader warns about it): applying
        the affectors one after the other does the same to the value.
        """
        affectors: dict[str, float] = {}
        for affector in record.affectors:
            name = affector.emotion_type
            affectors[name] = affectors.get(name, 0.0) + float(affector.value)
        return cls(record.name, affectors, record.repetition_penalty)


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
    If no candidate exists the input reads 0. A mood config sets it with its ``simpleMood``
    block (see :func:`brain.assets.loaders.load_mood_config`).
    """

    stimulation: tuple[tuple[str, ...], ...] = (("Stimulated",), ("Excited",))
    frustration: tuple[str, ...] = ("Confident",)
    low_stim_max: float = 0.2
    frustrated_below: float = -0.29
    med_stim_max: float = 0.8

    @classmethod
    def from_record(cls, block: records.SimpleMoodBlock | None) -> SimpleMoodRule:
        """The rule a mood config's ``simpleMood`` block gives: what it leaves out keeps its default."""
        rule = cls()
        if block is None:
            return rule
        return cls(
            stimulation=block.stimulation if block.stimulation is not None else rule.stimulation,
            frustration=block.frustration if block.frustration is not None else rule.frustration,
            low_stim_max=block.low_stim_max if block.low_stim_max is not None else rule.low_stim_max,
            frustrated_below=block.frustrated_below if block.frustrated_below is not None else rule.frustrated_below,
            med_stim_max=block.med_stim_max if block.med_stim_max is not None else rule.med_stim_max,
        )


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
    def from_record(cls, record: records.MoodConfig, where: str = "") -> MoodConfig:
        """The loader's mood-config record as the runtime uses it.

        The events its ``eventMapper`` defines become :attr:`events` (a name defined twice: the
        later wins, as in the file). *where* names the file in the error a decay graph that
        breaks :func:`decay_graph_problem` raises; the loader reports and leaves out such graphs,
        so a loaded record converts cleanly.
        """
        prefix = f"{where or record.origin}: "
        decay = {
            emotion_type: DecayGraph.checked(item.graph_type, item.graph, f"{prefix}decayGraphs ({emotion_type})")
            for emotion_type, item in record.decay_graphs.items()
        }
        events = {event.name: EmotionEvent.from_record(event) for event in record.mapped_events}
        penalty = record.default_repetition_penalty
        return cls(
            decay_graphs=decay,
            default_repetition_penalty=penalty if penalty is not None else DEFAULT_REPETITION_PENALTY,
            action_result_events={a: dict(r) for a, r in record.action_result_events.items()},
            value_ranges=dict(record.value_ranges),
            emotion_types=list(record.emotion_types),
            events=events,
            simple_mood=SimpleMoodRule.from_record(record.simple_mood),
        )


#: The mood used where no resource set provides a mood config (checking a personality offline):
#: Cozmo's emotion types and its default decay curve.
DEFAULT_CONFIG = MoodConfig(
    decay_graphs=MappingProxyType({
        DEFAULT_KEY: DecayGraph("TimeRatio", Graph([(0, 1), (10, 1), (30, 0.9), (75, 0.6), (150, 0)])),
    }),
    emotion_types=COZMO_EMOTION_TYPES,
)
