"""Typed records for everything in a Cozmo resource tree.

One immutable dataclass per kind of thing the files define. Records keep the names the
files use (trigger, group, behaviour ID …) and, where the engine's data is open-ended
(behaviour parameters, activity extras), the original keys and values untouched in a
read-only ``params`` mapping: the node library reads what it needs and nothing is lost.
Every record knows where it came from (:class:`Origin`) so later problems can point at
the file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from brain.graph import Graph

from .fields import JsonPath
from .issues import format_path

__all__ = [
    "Activity",
    "ActivityStrategy",
    "AnimationGroup",
    "AnimationGroupMember",
    "BackpackLightPattern",
    "Behavior",
    "BehaviorChooser",
    "ChooserEntry",
    "CubeLightAnimation",
    "CubeLightPattern",
    "CubeLightStage",
    "DecayGraph",
    "EmotionAffector",
    "EmotionEvent",
    "FieldRef",
    "JsonPath",
    "MoodConfig",
    "MoodScorer",
    "Objective",
    "Origin",
    "RGBA",
    "ReactionTrigger",
    "SimpleMoodBlock",
    "SubActivity",
    "TriggerPair",
    "EMPTY",
]

#: An immutable empty mapping, the default for ``params``.
EMPTY: Mapping[str, Any] = MappingProxyType({})

#: A colour as red, green, blue, alpha floats in 0..1.
RGBA = tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a record was read: the file, and the resource root (``cozmo_resources`` dir) it is in.

    The file is kept as the string it was listed under (a full tree has a thousand files
    and building a :class:`~pathlib.Path` for each costs more than parsing many of them);
    :attr:`file` makes the ``Path`` when someone asks.
    """

    path: str
    root: Path

    @property
    def file(self) -> Path:
        """The file, as a ``Path``."""
        return Path(self.path)

    @property
    def name(self) -> str:
        """The file name without its extension (how groups and cube lights are named)."""
        return os.path.splitext(os.path.basename(self.path))[0]

    @property
    def relative(self) -> str:
        """The file's path inside its root, as shown in reports."""
        try:
            return self.file.relative_to(self.root).as_posix()
        except ValueError:
            return self.file.as_posix()

    def __str__(self) -> str:
        return self.path if os.sep == "/" else self.file.as_posix()


@dataclass(frozen=True, slots=True)
class FieldRef:
    """A name that a record refers to, and where inside the record's JSON it was found.

    ``path`` leads to the key holding the name (for a list of names, to the list), relative
    to the record's own object; ``field`` is the same path as text (``reactions[0].anim``).
    """

    path: JsonPath
    name: str

    @property
    def field(self) -> str:
        """The path as text, for messages."""
        return format_path(self.path)


# ---------------------------------------------------------------- animation triggers and groups


@dataclass(frozen=True, slots=True)
class TriggerPair:
    """One ``{"CladEvent", "AnimName"}`` pair of a trigger map: an event name → a group or light name."""

    event: str
    target: str
    index: int
    origin: Origin


@dataclass(frozen=True, slots=True)
class AnimationGroupMember:
    """One clip of an animation group and the conditions under which it may be chosen."""

    name: str
    weight: float
    cooldown_s: float
    mood: str = "Default"
    use_head_angle: bool = False
    head_angle_min_deg: float = 0.0
    head_angle_max_deg: float = 0.0


@dataclass(frozen=True, slots=True)
class AnimationGroup:
    """An ``ag_*.json`` file: the clips one trigger can play, named by the file's stem."""

    name: str
    members: tuple[AnimationGroupMember, ...]
    origin: Origin


# ---------------------------------------------------------------- mood


@dataclass(frozen=True, slots=True)
class DecayGraph:
    """How one emotion type decays; ``graph_type`` is ``TimeRatio`` unless the file says ``ValueSlope``."""

    emotion_type: str
    graph: Graph
    graph_type: str = "TimeRatio"


@dataclass(frozen=True, slots=True)
class SimpleMoodBlock:
    """A mood config's ``simpleMood`` block (this project's own key), as written; None = not given.

    ``stimulation`` lists candidate sets of emotion types (a flat list of names in the file is
    one set), ``frustration`` candidate types; see :class:`brain.mood.SimpleMoodRule`, which
    fills in what is not given.
    """

    stimulation: tuple[tuple[str, ...], ...] | None = None
    frustration: tuple[str, ...] | None = None
    low_stim_max: float | None = None
    frustrated_below: float | None = None
    med_stim_max: float | None = None


@dataclass(frozen=True, slots=True)
class MoodConfig:
    """``mood_config.json``: decay graphs, the default repetition penalty, action-result events.

    ``event_mapper`` is the raw ``eventMapper`` block (events defined inside the config);
    ``mapped_events`` holds those events as checked records, and ``emotion_events`` the
    names it lists without defining them (references to events defined elsewhere).
    ``emotion_types`` and ``simple_mood`` are this project's optional ``emotionTypes`` (types
    to track even when nothing else names them) and ``simpleMood`` keys.
    """

    decay_graphs: Mapping[str, DecayGraph]
    default_repetition_penalty: Graph | None
    action_result_events: Mapping[str, Mapping[str, str]]
    value_ranges: Mapping[str, tuple[float, float]]
    event_mapper: Any
    origin: Origin
    mapped_events: tuple[EmotionEvent, ...] = ()
    emotion_events: tuple[FieldRef, ...] = ()
    emotion_types: tuple[str, ...] = ()
    simple_mood: SimpleMoodBlock | None = None

    def decay_graph(self, emotion_type: str) -> DecayGraph | None:
        """The decay graph for *emotion_type*, falling back to ``default`` as the engine does."""
        return self.decay_graphs.get(emotion_type) or self.decay_graphs.get("default")

    @property
    def declared_types(self) -> frozenset[str]:
        """Emotion types this file names itself (decay graphs other than ``default``, value ranges,
        ``emotionTypes``)."""
        return (frozenset(t for t in self.decay_graphs if t != "default") | frozenset(self.value_ranges)
                | frozenset(self.emotion_types))


@dataclass(frozen=True, slots=True)
class EmotionAffector:
    """One emotion change an event causes."""

    emotion_type: str
    value: float


@dataclass(frozen=True, slots=True)
class EmotionEvent:
    """A named emotion event: its affectors and, optionally, its own repetition penalty.

    Most events come from ``emotionevents/*.json``; an ``eventMapper`` block (in
    ``mood_config.json``, a behaviour or an activity) may define more. ``path`` is where
    the event's object sits in its file.
    """

    name: str
    affectors: tuple[EmotionAffector, ...]
    repetition_penalty: Graph | None
    origin: Origin
    path: JsonPath = ()


# ---------------------------------------------------------------- reactions and behaviours


@dataclass(frozen=True, slots=True)
class ReactionTrigger:
    """One entry of ``reactionTrigger_behavior_map.json``. Several may share a trigger."""

    trigger: str
    behavior_id: str
    should_resume_last: bool | None
    index: int
    params: Mapping[str, Any]
    origin: Origin


@dataclass(frozen=True, slots=True)
class Behavior:
    """A behaviour instance: the code to run (class), this use of it (ID) and its parameters.

    Both formats map onto it. Modern files give ``behaviorClass``/``behaviorID``; legacy ones
    give ``behaviorType`` (the class, and the name other files use for it), an optional
    ``name`` (the ID) and ``behaviorGroups``. ``raw_class`` is the class as written (e.g. the
    misspelt ``PlanAnimWithFace``); ``behavior_class`` is the normalised one. ``params`` holds
    every other key exactly as written; :meth:`param` also finds keys that differ in case.
    ``anim_triggers`` and ``emotion_events`` are the names it refers to; ``mapped_events``
    the emotion events its own ``eventMapper`` defines.
    """

    behavior_id: str
    behavior_class: str
    raw_class: str
    params: Mapping[str, Any]
    origin: Origin
    legacy: bool = False
    aliases: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    anim_triggers: tuple[FieldRef, ...] = ()
    emotion_events: tuple[FieldRef, ...] = ()
    mapped_events: tuple[EmotionEvent, ...] = ()

    def param(self, key: str, default: Any = None) -> Any:
        """``params[key]``, or the value under a key that differs only in case, or *default*."""
        if key in self.params:
            return self.params[key]
        folded = key.casefold()
        for k, v in self.params.items():
            if k.casefold() == folded:
                return v
        return default


# ---------------------------------------------------------------- activities


@dataclass(frozen=True, slots=True)
class ChooserEntry:
    """A behaviour a chooser may pick, with its scoring block (Scoring choosers) as written."""

    behavior_id: str
    scoring: Mapping[str, Any] = field(default_factory=lambda: EMPTY)


@dataclass(frozen=True, slots=True)
class BehaviorChooser:
    """A chooser: ``Selection``, ``Scoring`` or ``StrictPriority`` over a list of behaviours."""

    type: str
    behaviors: tuple[ChooserEntry, ...]
    params: Mapping[str, Any] = field(default_factory=lambda: EMPTY)


@dataclass(frozen=True, slots=True)
class MoodScorer:
    """One emotion's score graph in an activity's ``startMoodScorer``."""

    emotion_type: str
    graph: Graph
    track_delta: bool = False


@dataclass(frozen=True, slots=True)
class ActivityStrategy:
    """When an activity may start and how long it cools down."""

    type: str
    cooldown_base_s: float | None = None
    required_min_start_mood_score: float | None = None
    start_mood_scorer: tuple[MoodScorer, ...] = ()
    params: Mapping[str, Any] = field(default_factory=lambda: EMPTY)


@dataclass(frozen=True, slots=True)
class SubActivity:
    """An entry of a ``subActivities`` list: another activity, by ID, at a priority."""

    activity_id: str
    priority: float | None


@dataclass(frozen=True, slots=True)
class Objective:
    """A ``requiredObjectives`` entry: an objective some behaviour must complete."""

    objective: str
    behavior_id: str
    params: Mapping[str, Any] = field(default_factory=lambda: EMPTY)


@dataclass(frozen=True, slots=True)
class Activity:
    """A Cozmo activity: a strategy, choosers over behaviours, sub-activities, objectives.

    ``choosers`` maps the key it was found under (``behaviorChooser``,
    ``interludeBehaviorChooser``, ``setupChooser`` …) to the chooser. A
    ``subActivityDelegate`` is itself an activity. ``desired_activities`` is the Freeplay
    root's ``desiredActivityNames`` (situation → activity ID). ``params`` keeps every other
    key (``desiredActivityNames`` too, as written). ``path`` is where the activity's object
    sits in its file (``(2,)`` in a list, ``("subActivityDelegate",)`` for a delegate).
    """

    activity_id: str
    activity_type: str | None
    strategy: ActivityStrategy | None
    choosers: Mapping[str, BehaviorChooser]
    sub_activities: tuple[SubActivity, ...]
    required_objectives: tuple[Objective, ...]
    delegate: Activity | None
    params: Mapping[str, Any]
    origin: Origin
    anim_triggers: tuple[FieldRef, ...] = ()
    emotion_events: tuple[FieldRef, ...] = ()
    mapped_events: tuple[EmotionEvent, ...] = ()
    desired_activities: Mapping[str, str] = field(default_factory=lambda: EMPTY)
    path: JsonPath = ()

    @property
    def behavior_chooser(self) -> BehaviorChooser | None:
        """The main chooser, when there is one."""
        return self.choosers.get("behaviorChooser")

    def behavior_refs(self) -> list[FieldRef]:
        """Every behaviour ID this activity names: choosers, objectives, and its delegate's."""
        refs: list[FieldRef] = []
        for key, chooser in self.choosers.items():
            refs.extend(FieldRef((key, "behaviors"), e.behavior_id) for e in chooser.behaviors)
        refs.extend(FieldRef(("requiredObjectives", "behaviorID"), o.behavior_id) for o in self.required_objectives)
        if self.delegate is not None:
            refs.extend(
                FieldRef(("subActivityDelegate", *r.path), r.name) for r in self.delegate.behavior_refs()
            )
        return refs


# ---------------------------------------------------------------- lights


@dataclass(frozen=True, slots=True)
class BackpackLightPattern:
    """A backpack light pattern; one entry per LED in every tuple (3 on Vector, 5 on Cozmo)."""

    name: str
    on_colors: tuple[RGBA, ...]
    off_colors: tuple[RGBA, ...]
    on_period_ms: tuple[int, ...]
    off_period_ms: tuple[int, ...]
    transition_on_period_ms: tuple[int, ...]
    transition_off_period_ms: tuple[int, ...]
    offset_ms: tuple[int, ...]
    origin: Origin


@dataclass(frozen=True, slots=True)
class CubeLightPattern:
    """The light pattern of one cube-light stage (4 LEDs), colours as 0..1 floats."""

    on_colors: tuple[RGBA, ...]
    off_colors: tuple[RGBA, ...]
    on_period_ms: tuple[int, ...]
    off_period_ms: tuple[int, ...]
    transition_on_period_ms: tuple[int, ...]
    transition_off_period_ms: tuple[int, ...]
    offset_ms: tuple[int, ...]
    rotation_period_ms: int = 0
    rotate: bool | None = None


@dataclass(frozen=True, slots=True)
class CubeLightStage:
    """One timed stage of a cube light animation."""

    name: str
    pattern: CubeLightPattern
    duration_ms: int
    can_be_overridden: bool | None = None


@dataclass(frozen=True, slots=True)
class CubeLightAnimation:
    """A cube-light file, named by its stem (that is what the cube trigger map refers to).

    Two shapes exist: an object of named stages played in key order, and a list of stages.
    """

    name: str
    stages: tuple[CubeLightStage, ...]
    origin: Origin
    params: Mapping[str, Any] = field(default_factory=lambda: EMPTY)
