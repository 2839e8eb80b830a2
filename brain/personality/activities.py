"""Activities from the resource set: ``activities: {name: {activity: <ActivityID>}}``.

Cozmo grouped its freeplay behaviours into activities (Socialize, PlayWithHumans, …), each a
chooser over behaviours with a strategy around it. Such an activity becomes a subtree:

* the chooser (``StrictPriority``, ``Scoring`` or weighted random) over the behaviours the node
  library implements; for ``Scoring``, each behaviour's score — emotion scorers, a flat score,
  repetition and running penalties — is read here (:func:`activity_score`);
* a ``Needs`` strategy's gate: it runs while its ``need`` is at ``needBracket`` or below;
* the strategy's start-mood gate (``startMoodScorer`` / ``requiredMinStartMoodScore``), its end
  (``activityShouldEndDurationSecs``) and its cooldown (``cooldownBase``, or the personality's
  ``cooldown``, with ``startInCooldown``).

Behaviours and scores the brain cannot use are skipped with a warning, so a real resource set
loads even where it goes beyond the node library.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from py_trees.behaviour import Behaviour

from brain.graph import Graph
from brain.needs import BRACKETS, NEEDS
from brain.nodes.choosers import ScoreSpec, Scoring, StartMoodGate, StrictPriority, WeightedRandom
from brain.nodes.composites import Sequence as SequenceNode
from brain.nodes.decorators import Cooldown, Timer
from brain.nodes.needs_classes import NeedLow
from brain.nodes.registry import BEHAVIOR_CLASSES, Param, ParamError, coerce

from .located import LMap, Loc, plain, short_repr, suggest

if TYPE_CHECKING:  # the builder calls in here for `use: <activity>`
    from .builder import Builder

__all__ = ["activity_score", "resource_activity"]

#: The scoring keys of a behaviour of a Scoring activity (Anki's names).
SCORE_KEYS = ("emotionScorers", "flatScore", "repetitionPenalty", "runningPenalty")


def resource_activity(builder: Builder, spec: LMap, path: str) -> Behaviour | None:
    """The subtree of a resource set's activity (None, reported, when it cannot be built)."""
    for key in spec:
        if key not in ("activity", "cooldown", "comment"):
            builder.issues.add(spec.at(key), f"{path}.{key}", f"unknown key{suggest(key, ['activity', 'cooldown'])}")
    activity_id = spec["activity"]
    resources = builder.ctx.resources
    record = getattr(resources, "activities", {}).get(activity_id) if resources is not None else None
    if record is None:
        known = list(getattr(resources, "activities", {})) if resources is not None else []
        builder.issues.add(spec.at("activity"), f"{path}.activity", f"unknown activity {activity_id!r}"
                           f"{suggest(str(activity_id), known)}"
                           + ("" if resources is not None else " (no resource set is loaded)"))
        return None
    loc, where = spec.at("activity"), f"{path}.activity"
    root = _chooser(builder, activity_id, record.behavior_chooser, loc, where)
    if root is None:
        return None
    strategy = record.strategy
    root = _start_mood_gate(builder, activity_id, strategy, root, loc, where)
    root = _needs_gate(builder, activity_id, strategy, root, loc, where)
    params = strategy.params if strategy is not None else {}
    root = _end_after(builder, activity_id, params, root, loc, where)
    cooldown = spec.get("cooldown")
    if cooldown is None and strategy is not None:
        cooldown = strategy.cooldown_base_s
    if not cooldown:
        return root
    try:
        seconds = coerce(Param("number", minimum=0.0), cooldown)
    except ParamError as exc:
        builder.issues.add(spec.at("cooldown"), f"{path}.cooldown", str(exc))
        return None
    gate = Cooldown(f"{activity_id} cooldown", root, builder.ctx, seconds)
    if params.get("startInCooldown") is True:
        gate.last_ran = builder.ctx.now()  # the first chance comes one cooldown after the start
    return gate


def _chooser(builder: Builder, activity_id: Any, chooser: Any, loc: Loc, where: str) -> Behaviour | None:
    """The activity's behaviour chooser over the behaviours the node library can run."""
    scoring = chooser is not None and chooser.type == "Scoring"
    children, scores = _chooser_children(builder, activity_id, chooser, scoring, loc, where)
    if not children:
        builder.issues.add(loc, where, f"activity {activity_id!r} has no behaviour the node library can run")
        return None
    if chooser is not None and chooser.type == "StrictPriority":
        return StrictPriority(str(activity_id), children)
    if scoring:
        bonus = resource_graph(builder, chooser.params.get("scoreBonusForCurrentBehavior"), loc, where,
                               f"activity {activity_id!r}: scoreBonusForCurrentBehavior")
        # Anki's chooser scored every behaviour again on each tick, the running one with its bonus
        return Scoring(str(activity_id), builder.ctx, children, scores, reevaluate=True, running_bonus=bonus)
    return WeightedRandom(str(activity_id), builder.ctx, children)


def _chooser_children(builder: Builder, activity_id: Any, chooser: Any, scoring: bool, loc: Loc, where: str
                      ) -> tuple[list[Behaviour], list[Any]]:
    """The chooser's behaviours as nodes, with their scores (None each unless ``scoring``)."""
    resources = builder.ctx.resources
    children: list[Behaviour] = []
    scores: list[Any] = []
    for entry in chooser.behaviors if chooser is not None else ():
        behavior = resources.behavior(entry.behavior_id) if resources is not None else None
        if behavior is None or behavior.behavior_class not in BEHAVIOR_CLASSES:
            builder.issues.warn(loc, where, f"activity {activity_id!r}: behaviour {entry.behavior_id!r} is skipped "
                                "(missing or not implemented)")
            continue
        score = None
        if scoring:
            score = activity_score(builder, activity_id, entry, behavior, loc, where)
            if score is None:
                continue
        node = builder.behavior_node(entry.behavior_id, loc, where)
        if node is not None:
            children.append(node)
            scores.append(score)
    return children, scores


def _start_mood_gate(builder: Builder, activity_id: Any, strategy: Any, root: Behaviour, loc: Loc, where: str
                     ) -> Behaviour:
    """``root`` behind the strategy's start-mood gate, when it has one whose emotions are known."""
    if strategy is None or strategy.required_min_start_mood_score is None or not strategy.start_mood_scorer:
        return root
    scorers = tuple((m.emotion_type, m.graph) for m in strategy.start_mood_scorer)
    emotion_types = builder.emotion_types
    unknown = [e for e, _ in scorers if emotion_types is not None and e not in emotion_types]
    if unknown:
        builder.issues.warn(loc, where, f"activity {activity_id!r}: startMoodScorer: unknown emotion type "
                            f"{unknown[0]!r}; the start mood score is not checked")
        return root
    return StartMoodGate(f"{activity_id} start mood", root, builder.ctx, scorers,
                         strategy.required_min_start_mood_score)


def _needs_gate(builder: Builder, activity_id: Any, strategy: Any, root: Behaviour, loc: Loc, where: str
                ) -> Behaviour:
    """``root`` while the strategy's need is low, for a ``Needs`` strategy (NeedsSevereLowEnergy …).

    As Anki's: the activity runs while its ``need`` is at ``needBracket`` or below, and hands the
    robot back as soon as the need is above it again (charged, repaired).
    """
    if strategy is None or strategy.type != "Needs":
        return root
    need, bracket = strategy.params.get("need"), strategy.params.get("needBracket", "Warning")
    if need not in NEEDS or bracket not in BRACKETS:
        builder.issues.warn(loc, where, f"activity {activity_id!r}: a Needs strategy wants `need` (one of "
                            f"{', '.join(NEEDS)}) and `needBracket` (one of {', '.join(BRACKETS)}), got "
                            f"{need!r} and {bracket!r}; it runs whatever the needs")
        return root
    low = NeedLow(f"{need} at {bracket} or below", builder.ctx, need, bracket, None)
    return SequenceNode(f"{activity_id} while {need} is low", memory=False, children=[low, root])


def _end_after(builder: Builder, activity_id: Any, params: Mapping[str, Any], root: Behaviour, loc: Loc,
               where: str) -> Behaviour:
    """``root`` under a timer when the strategy says how long the activity should last.

    An activity that should end after a while (Socialize: 300 s) hands the robot back then, and
    its cooldown starts; without the setting it runs until its chooser finishes.
    """
    end_after = params.get("activityShouldEndDurationSecs")
    if end_after is None:
        return root
    if isinstance(end_after, bool) or not isinstance(end_after, (int, float)) or end_after <= 0:
        builder.issues.warn(loc, where, f"activity {activity_id!r}: activityShouldEndDurationSecs: expected a "
                            f"positive number of seconds, got {end_after!r}; the activity runs until it ends")
        return root
    return Timer(f"{activity_id} for {end_after:g} s", root, builder.ctx, float(end_after))


def resource_graph(builder: Builder, value: Any, loc: Loc, path: str, what: str) -> Graph | None:
    """A graph of a resource file (``{nodes: [{x, y}, …]}``), or None with a warning when it is bad."""
    if value is None:
        return None
    try:
        graph: Graph = coerce(Param("graph"), plain(value))
        return graph
    except ParamError as exc:
        builder.issues.warn(loc, path, f"{what}: {exc}; ignored")
        return None


def activity_score(builder: Builder, activity_id: Any, entry: Any, behavior: Any, loc: Loc, path: str
                   ) -> ScoreSpec | None:
    """The :class:`ScoreSpec` of one behaviour of a Scoring activity, or None (skip it, with a warning).

    The scoring block comes from the activity's chooser entry (``scoring``), else from the
    behaviour file itself (older files carry ``emotionScorers`` / ``flatScore`` there), with
    Anki's keys: ``emotionScorers`` ([{emotionType, scoreGraph, trackDelta}]), ``flatScore``,
    ``repetitionPenalty`` and ``runningPenalty``.
    """
    block: Mapping[str, Any] = entry.scoring if entry.scoring else {
        k: behavior.param(k) for k in SCORE_KEYS if behavior.param(k) is not None}
    label = f"activity {activity_id!r}: behaviour {entry.behavior_id!r}"
    raw = block.get("emotionScorers") or []
    if not isinstance(raw, list):
        builder.issues.warn(loc, path, f"{label}: emotionScorers: expected a list, got {short_repr(raw)}; skipped")
        return None
    emotions: list[tuple[str, Graph]] = []
    for i, item in enumerate(raw):
        scorer = _emotion_scorer(builder, item, f"{label}: emotionScorers[{i}]", loc, path)
        if scorer is None:
            return None
        emotions.append(scorer)
    flat = block.get("flatScore")
    if flat is not None and (isinstance(flat, bool) or not isinstance(flat, (int, float))):
        builder.issues.warn(loc, path, f"{label}: flatScore: expected a number, got {short_repr(flat)}; skipped")
        return None
    if not emotions and flat is None:
        builder.issues.warn(loc, path, f"{label} has no score (emotionScorers or flatScore); a Scoring chooser "
                            "never picks it, so it is skipped")
        return None
    return ScoreSpec(
        tuple(emotions), float(flat) if flat is not None and not emotions else None,
        repetition_penalty=resource_graph(builder, block.get("repetitionPenalty"), loc, path,
                                          f"{label}: repetitionPenalty"),
        running_penalty=resource_graph(builder, block.get("runningPenalty"), loc, path, f"{label}: runningPenalty"),
    )


def _emotion_scorer(builder: Builder, item: Any, label: str, loc: Loc, path: str) -> tuple[str, Graph] | None:
    """One ``{emotionType, scoreGraph}`` entry, or None (with a warning: the behaviour is skipped)."""
    emotion = item.get("emotionType") if isinstance(item, Mapping) else None
    if not isinstance(emotion, str):
        builder.issues.warn(loc, path, f"{label}: expected {{emotionType, scoreGraph}}, got {short_repr(item)}; "
                            "skipped")
        return None
    emotion_types = builder.emotion_types
    if emotion_types is not None and emotion not in emotion_types:
        builder.issues.warn(loc, path, f"{label}: unknown emotion type {emotion!r}"
                            f"{suggest(emotion, emotion_types)}; skipped")
        return None
    graph = resource_graph(builder, item.get("scoreGraph"), loc, path, f"{label}.scoreGraph")
    if graph is None:
        if item.get("scoreGraph") is None:
            builder.issues.warn(loc, path, f"{label}: missing scoreGraph; skipped")
        return None
    if item.get("trackDelta"):
        builder.issues.warn(loc, path, f"{label}: trackDelta is not supported; the emotion's value is scored "
                            "instead")
    return emotion, graph
