"""The loader of Cozmo activities (``behaviorSystem/activities``): strategies, choosers, objectives."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from . import fields as F
from .fields import FieldError, JsonPath
from .issues import Severity, json_type
from .mood_loaders import _event_mapper
from .reading import Document, IssueSink, _collect_refs, _each, _params
from .records import (
    EMPTY,
    Activity,
    ActivityStrategy,
    BehaviorChooser,
    ChooserEntry,
    EmotionEvent,
    FieldRef,
    MoodScorer,
    Objective,
    SubActivity,
)

__all__ = ["CHOOSER_TYPES", "load_activities"]

#: The chooser types the engine's data uses.
CHOOSER_TYPES = frozenset({"Selection", "Scoring", "StrictPriority"})


# ---------------------------------------------------------------- activities


def _chooser(doc: Document, sink: IssueSink, value: Any, path: JsonPath) -> BehaviorChooser:
    c = F.expect_object(value, path)
    ctype = F.string(c, "type", path)
    entries: list[ChooserEntry] = []
    bpath = path + ("behaviors",)
    for i, item in enumerate(F.expect_list(c.get("behaviors", []), bpath)):
        if isinstance(item, str):
            entries.append(ChooserEntry(item))
            continue
        e = F.expect_object(item, bpath + (i,))
        scoring = e.get("scoring")
        if scoring is not None:
            F.expect_object(scoring, bpath + (i, "scoring"))
            for g in ("repetitionPenalty", "runningPenalty"):
                F.optional_graph(scoring, g, bpath + (i, "scoring"), sink.graphs)
        entries.append(ChooserEntry(F.string(e, "behaviorID", bpath + (i,)),
                                    MappingProxyType(scoring) if scoring is not None else EMPTY))
    if ctype not in CHOOSER_TYPES:
        sink.report(Severity.WARNING, f"unknown chooser type {ctype!r} (expected one of "
                    f"{', '.join(sorted(CHOOSER_TYPES))})", doc, path + ("type",), code="chooser")
    return BehaviorChooser(ctype, tuple(entries), _params(c, frozenset({"type", "behaviors"})))


def _strategy(sink: IssueSink, value: Any, path: JsonPath) -> ActivityStrategy:
    s = F.expect_object(value, path)
    scorers: list[MoodScorer] = []
    spath = path + ("startMoodScorer",)
    for i, item in enumerate(F.expect_list(s.get("startMoodScorer", []), spath)):
        m = F.expect_object(item, spath + (i,))
        if "scoreGraph" not in m:
            raise FieldError(spath + (i, "scoreGraph"), "missing required field")
        scorers.append(MoodScorer(
            F.string(m, "emotionType", spath + (i,)),
            F.graph(m["scoreGraph"], spath + (i, "scoreGraph"), sink.graphs),
            F.boolean(m, "trackDelta", spath + (i,), False),
        ))
    return ActivityStrategy(
        type=F.string(s, "type", path),
        cooldown_base_s=F.number(s, "cooldownBaseSecs", path, None),
        required_min_start_mood_score=F.number(s, "requiredMinStartMoodScore", path, None),
        start_mood_scorer=tuple(scorers),
        params=_params(s, frozenset({"type", "cooldownBaseSecs", "requiredMinStartMoodScore", "startMoodScorer"})),
    )


_ACTIVITY_KEYS = frozenset(
    {"activityID", "activityType", "activityStrategy", "subActivities", "requiredObjectives", "subActivityDelegate"}
)


def _activity(doc: Document, sink: IssueSink, value: Any, path: JsonPath) -> Activity:
    a = F.expect_object(value, path)
    activity_id = F.string(a, "activityID", path)
    strategy = _strategy(sink, a["activityStrategy"], path + ("activityStrategy",)) if "activityStrategy" in a else None
    choosers = {
        k: _chooser(doc, sink, v, path + (k,))
        for k, v in a.items()
        if k.endswith("Chooser") and isinstance(v, dict)
    }
    subs: list[SubActivity] = []
    spath = path + ("subActivities",)
    for i, item in enumerate(F.expect_list(a.get("subActivities", []), spath)):
        s = F.expect_object(item, spath + (i,))
        subs.append(SubActivity(F.string(s, "activityID", spath + (i,)),
                                F.number(s, "activityPriority", spath + (i,), None)))
    objectives: list[Objective] = []
    opath = path + ("requiredObjectives",)
    for i, item in enumerate(F.expect_list(a.get("requiredObjectives", []), opath)):
        o = F.expect_object(item, opath + (i,))
        objectives.append(Objective(F.string(o, "objective", opath + (i,)), F.string(o, "behaviorID", opath + (i,)),
                                    _params(o, frozenset({"objective", "behaviorID"}))))
    desired: dict[str, str] = {}
    if "desiredActivityNames" in a:
        dpath = path + ("desiredActivityNames",)
        names = F.expect_object(a["desiredActivityNames"], dpath)
        desired = {situation: F.string(names, situation, dpath) for situation in names}
    delegate = None
    if "subActivityDelegate" in a:
        delegate = _activity(doc, sink, a["subActivityDelegate"], path + ("subActivityDelegate",))
    anims: list[FieldRef] = []
    events: list[FieldRef] = []
    mappers: list[tuple[JsonPath, Any]] = []
    _collect_refs({k: v for k, v in a.items() if k != "subActivityDelegate"}, (), anims, events, mappers)
    mapped: list[EmotionEvent] = []
    named: list[FieldRef] = []  # paths from the file's top; the activity's refs are relative to itself
    for mpath, block in mappers:
        _event_mapper(doc, sink, block, path + mpath, mapped, named)
    events.extend(FieldRef(r.path[len(path):], r.name) for r in named)
    if delegate is not None:
        anims.extend(FieldRef(("subActivityDelegate", *r.path), r.name) for r in delegate.anim_triggers)
        events.extend(FieldRef(("subActivityDelegate", *r.path), r.name) for r in delegate.emotion_events)
        mapped.extend(delegate.mapped_events)
    return Activity(
        activity_id=activity_id,
        activity_type=F.string(a, "activityType", path, None),
        strategy=strategy,
        choosers=MappingProxyType(choosers),
        sub_activities=tuple(subs),
        required_objectives=tuple(objectives),
        delegate=delegate,
        params=_params(a, _ACTIVITY_KEYS | frozenset(choosers)),
        origin=doc.origin,
        anim_triggers=tuple(anims),
        emotion_events=tuple(events),
        mapped_events=tuple(mapped),
        desired_activities=MappingProxyType(desired) if desired else EMPTY,
        path=path,
    )


def load_activities(doc: Document, sink: IssueSink) -> list[Activity]:
    """An activity file: a list of activities (``activities_config.json``) or a single one."""
    data = doc.data
    if isinstance(data, list):
        return list(_each(doc, sink, data, (), "activity", lambda item, path: _activity(doc, sink, item, path)))
    if isinstance(data, dict):
        try:
            return [_activity(doc, sink, data, ())]
        except FieldError as exc:
            sink.field_error(doc, exc, "activity")
            return []
    sink.report(Severity.ERROR, f"expected an activity object or a list of them, got {json_type(data)}; "
                "file not loaded", doc)
    return []

