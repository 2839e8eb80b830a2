"""Loaders for the mood's files: ``mood_config.json``, ``emotionevents/*.json``, ``eventMapper`` blocks.

The one parser of these shapes: the mood engine (:mod:`brain.mood`) runs what these return,
converted by its ``from_record`` methods, and checks decay graphs against the same rule
(:func:`brain.mood.decay_graph_problem`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from brain.mood import DECAY_KINDS, DEFAULT_KEY, decay_graph_problem

from . import fields as F
from .fields import FieldError, JsonPath
from .issues import Severity, json_type
from .reading import Document, IssueSink, _each, _top_object
from .records import DecayGraph, EmotionAffector, EmotionEvent, FieldRef, MoodConfig, SimpleMoodBlock

__all__ = ["load_emotion_events", "load_mood_config"]


def _event_mapper(
    doc: Document, sink: IssueSink, value: Any, path: JsonPath, defined: list[EmotionEvent], named: list[FieldRef]
) -> None:
    """An ``eventMapper`` block, read as the engine reads one: ``{"emotionEvents": [...]}`` or one loose event.

    An object entry defines an event (into *defined*); a string entry names an event
    defined elsewhere (into *named*, checked like every other reference). A bad entry is
    reported and left out; the record holding the block still loads.
    """
    if value is None:
        return
    if type(value) is dict and "emotionEvents" in value:
        items = value["emotionEvents"]
        ipath = path + ("emotionEvents",)
        if type(items) is not list:
            sink.report(Severity.ERROR, f"expected array, got {json_type(items)}; event mapper not loaded",
                        doc, ipath)
            return
        entries = [(item, ipath + (i,)) for i, item in enumerate(items)]
    elif type(value) is dict and "name" in value:
        entries = [(value, path)]
    elif type(value) is dict and not value:
        return
    else:
        sink.report(Severity.ERROR, 'expected {"emotionEvents": [...]} or one emotion event object, got '
                    f"{json_type(value)}; event mapper not loaded", doc, path)
        return
    for item, ipath in entries:
        if type(item) is str:
            if item:
                named.append(FieldRef(ipath, item))
            continue
        try:
            defined.append(_emotion_event(doc, sink, item, ipath))
        except FieldError as exc:
            sink.field_error(doc, exc, "emotion event")

# ---------------------------------------------------------------- mood and emotion events


def load_mood_config(doc: Document, sink: IssueSink) -> MoodConfig | None:
    """``mood_config.json``: the one reader of its shape (the mood engine runs what this returns).

    Keys: ``decayGraphs`` (required: ``[{"emotionType", "graphType"?: "TimeRatio"|"ValueSlope",
    "nodes"}]``), ``defaultRepetitionPenalty``, ``eventMapper``, ``actionResultEmotionEvents``,
    ``valueRanges`` (``[{"emotionType", "min", "max"}]``), and this project's optional
    ``emotionTypes`` (names to track even when nothing else names them) and ``simpleMood`` (see
    :func:`_simple_mood`). Other keys (``audioParameterMap`` …) are ignored. A decay graph must
    keep the mood engine's rules (:func:`brain.mood.decay_graph_problem`). A bad decay graph drops
    that graph (a second one for the same type is reported and left out); a bad top-level field
    drops the file.
    """
    obj = _top_object(doc, sink, "mood config")
    if obj is None:
        return None
    decay: dict[str, DecayGraph] = {}
    try:
        if "decayGraphs" not in obj:
            raise FieldError(("decayGraphs",), "missing required field")
        graphs = F.expect_list(obj["decayGraphs"], ("decayGraphs",))
        for i, item in enumerate(graphs):
            path: JsonPath = ("decayGraphs", i)
            try:
                g = F.expect_object(item, path)
                etype = _name(g, "emotionType", path, allow_default=True)
                gtype = F.string(g, "graphType", path, "TimeRatio")
                if gtype not in DECAY_KINDS:
                    raise FieldError(path + ("graphType",), f'expected "TimeRatio" or "ValueSlope", got {gtype!r}')
                graph = F.graph(g, path, sink.graphs)
                problem = decay_graph_problem(gtype, graph)
                if problem is not None:
                    raise FieldError(path + problem[0], problem[1])
            except FieldError as exc:
                sink.field_error(doc, exc, "decay graph")
                continue
            if etype in decay:
                sink.report(Severity.WARNING, f"second decay graph for {etype!r}; the first is used", doc, path,
                            code="duplicate", subject=etype)
                continue
            decay[etype] = DecayGraph(etype, graph, gtype)
        penalty = F.optional_graph(obj, "defaultRepetitionPenalty", (), sink.graphs) \
            if obj.get("defaultRepetitionPenalty") is not None else None
        actions_raw = F.expect_object(obj.get("actionResultEmotionEvents", {}), ("actionResultEmotionEvents",))
        actions: dict[str, Mapping[str, str]] = {}
        for action, results in actions_raw.items():
            apath: JsonPath = ("actionResultEmotionEvents", action)
            res = F.expect_object(results, apath)
            actions[action] = MappingProxyType({r: F.string(res, r, apath) for r in res})
        ranges: dict[str, tuple[float, float]] = {}
        for i, item in enumerate(F.expect_list(obj.get("valueRanges", []), ("valueRanges",))):
            rpath: JsonPath = ("valueRanges", i)
            r = F.expect_object(item, rpath)
            etype = _name(r, "emotionType", rpath)
            lo, hi = F.number(r, "min", rpath), F.number(r, "max", rpath)
            if lo > hi:
                raise FieldError(rpath, f"min {lo:g} is above max {hi:g}")
            ranges[etype] = (lo, hi)
        types: tuple[str, ...] = ()
        if obj.get("emotionTypes") is not None:
            tpath: JsonPath = ("emotionTypes",)
            types = tuple(_name_at(v, tpath + (i,)) for i, v in enumerate(F.expect_list(obj["emotionTypes"], tpath)))
        simple = _simple_mood(obj["simpleMood"], ("simpleMood",)) if obj.get("simpleMood") is not None else None
    except FieldError as exc:
        sink.field_error(doc, exc, "mood config")
        return None
    if DEFAULT_KEY not in decay:
        sink.report(Severity.WARNING, 'no "default" decay graph: emotion types without their own graph never decay',
                    doc, ("decayGraphs",), code="mood")
    mapped: list[EmotionEvent] = []
    named: list[FieldRef] = []
    _event_mapper(doc, sink, obj.get("eventMapper"), ("eventMapper",), mapped, named)
    return MoodConfig(
        decay_graphs=MappingProxyType(decay),
        default_repetition_penalty=penalty,
        action_result_events=MappingProxyType(actions),
        value_ranges=MappingProxyType(ranges),
        event_mapper=obj.get("eventMapper"),
        origin=doc.origin,
        mapped_events=tuple(mapped),
        emotion_events=tuple(named),
        emotion_types=types,
        simple_mood=simple,
    )


def _name_at(value: Any, path: JsonPath, *, allow_default: bool = False) -> str:
    """An emotion type's name: a non-empty string, and not ``default`` (the fallback decay graph's key)."""
    if type(value) is not str or not value:
        raise FieldError(path, f"expected a non-empty string, got {json_type(value)} {value!r:.40}")
    if value == DEFAULT_KEY and not allow_default:
        raise FieldError(path, f"{DEFAULT_KEY!r} is not an emotion type (it names the fallback decay graph)")
    return value


def _name(obj: Mapping[str, Any], key: str, path: JsonPath, *, allow_default: bool = False) -> str:
    """``obj[key]`` as an emotion type's name (required; see :func:`_name_at`)."""
    if key not in obj:
        raise FieldError(path + (key,), "missing required field")
    return _name_at(obj[key], path + (key,), allow_default=allow_default)


def _simple_mood(value: Any, path: JsonPath) -> SimpleMoodBlock:
    """The ``simpleMood`` block: ``{"stimulation": [["Excited"], …] | ["Excited", "WantToPlay"],
    "frustration": "Confident" | [...], "lowStimMax", "frustratedBelow", "medStimMax"}``, all optional.

    A flat list of names for ``stimulation`` is one candidate set (their mean is the stimulation).
    """
    block = F.expect_object(value, path)
    stimulation: tuple[tuple[str, ...], ...] | None = None
    if "stimulation" in block:
        spath = path + ("stimulation",)
        raw = F.expect_list(block["stimulation"], spath)
        if not raw:
            raise FieldError(spath, "expected at least one candidate")
        entries = [(raw, spath)] if all(type(x) is str for x in raw) else [(e, spath + (i,)) for i, e in enumerate(raw)]
        sets = []
        for entry, epath in entries:
            names = F.expect_list(entry, epath)
            if not names:
                raise FieldError(epath, "expected at least one emotion type")
            sets.append(tuple(_name_at(n, epath + (j,)) for j, n in enumerate(names)))
        stimulation = tuple(sets)
    frustration: tuple[str, ...] | None = None
    if "frustration" in block:
        fpath = path + ("frustration",)
        raw_f = block["frustration"]
        if type(raw_f) is str:
            frustration = (_name_at(raw_f, fpath),)
        else:
            frustration = tuple(_name_at(n, fpath + (i,)) for i, n in enumerate(F.expect_list(raw_f, fpath)))
    return SimpleMoodBlock(
        stimulation=stimulation,
        frustration=frustration,
        low_stim_max=F.number(block, "lowStimMax", path, None),
        frustrated_below=F.number(block, "frustratedBelow", path, None),
        med_stim_max=F.number(block, "medStimMax", path, None),
    )


def _emotion_event(doc: Document, sink: IssueSink, item: Any, path: JsonPath) -> EmotionEvent:
    """One emotion event; an emotion type named twice is reported (the mood sums its values)."""
    e = F.expect_object(item, path)
    name = F.string(e, "name", path)
    if not name:
        raise FieldError(path + ("name",), "expected a non-empty name")
    apath = path + ("emotionAffectors",)
    affectors: list[EmotionAffector] = []
    for i, a in enumerate(F.expect_list(e.get("emotionAffectors", []), apath)):
        a = F.expect_object(a, apath + (i,))
        etype = _name(a, "emotionType", apath + (i,))
        affectors.append(EmotionAffector(etype, F.number(a, "value", apath + (i,))))
        if any(other.emotion_type == etype for other in affectors[:-1]):
            sink.report(Severity.WARNING, f"emotion type {etype!r} appears twice in event {name!r}; "
                        "the mood adds both values", doc, apath + (i, "emotionType"), code="duplicate", subject=etype)
    penalty = F.optional_graph(e, "repetitionPenalty", path, sink.graphs) \
        if e.get("repetitionPenalty") is not None else None
    return EmotionEvent(name, tuple(affectors), penalty, doc.origin, path)


def load_emotion_events(doc: Document, sink: IssueSink) -> list[EmotionEvent]:
    """``emotionevents/*.json``: ``{"emotionEvents": [...]}`` or one bare event object."""
    data = doc.data
    if isinstance(data, dict) and "emotionEvents" in data:
        try:
            items = F.expect_list(data["emotionEvents"], ("emotionEvents",))
        except FieldError as exc:
            sink.field_error(doc, exc, "emotion events")
            return []
        return list(_each(doc, sink, items, ("emotionEvents",), "emotion event",
                          lambda item, path: _emotion_event(doc, sink, item, path)))
    if isinstance(data, dict) and "name" in data:
        try:
            return [_emotion_event(doc, sink, data, ())]
        except FieldError as exc:
            sink.field_error(doc, exc, "emotion event")
            return []
    sink.report(Severity.ERROR, 'expected {"emotionEvents": [...]} or a single event object; file not loaded', doc)
    return []
