"""One loader per kind of resource file: parsed JSON → typed records + issues.

Each loader takes a :class:`Document` (the file's path, text and parsed value) and an
:class:`IssueSink`, and returns the records it could read. A record with a bad field is
reported (file, line, field path, what was expected) and left out; its neighbours in the
same file still load. Nothing here raises on bad data.

Real-file quirks handled here, all seen in the Cozmo app's tree:
- behaviours in two formats (``behaviorClass``/``behaviorID`` and the older
  ``behaviorType``/``name``/``behaviorGroups``), and a misspelt class name;
- animation triggers named under many different keys (see :data:`ANIM_TRIGGER_KEY`);
- emotion-event files holding a list or a single bare event;
- activities as a top-level list, a single object, or nested as a ``subActivityDelegate``;
- ``eventMapper`` blocks (in ``mood_config.json``, and in any behaviour or activity) that
  define emotion events inline, as ``{"emotionEvents": [...]}`` or one loose event;
- cube lights as an object of named stages or as a list of stages, colours 0..255;
- backpack lights as one pattern per file or a map of named patterns, colours 0..1.
"""

from __future__ import annotations

import functools
import logging
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from brain.graph import Graph

from . import fields as F
from . import jsonc
from .fields import FieldError, JsonPath
from .issues import Issue, Severity, format_path, json_type
from .records import (
    EMPTY,
    RGBA,
    Activity,
    ActivityStrategy,
    AnimationGroup,
    AnimationGroupMember,
    BackpackLightPattern,
    Behavior,
    BehaviorChooser,
    ChooserEntry,
    CubeLightAnimation,
    CubeLightPattern,
    CubeLightStage,
    DecayGraph,
    EmotionAffector,
    EmotionEvent,
    FieldRef,
    MoodConfig,
    MoodScorer,
    Objective,
    Origin,
    ReactionTrigger,
    SubActivity,
    TriggerPair,
)

__all__ = [
    "ANIM_TRIGGER_KEY",
    "CHOOSER_TYPES",
    "CLASS_ALIASES",
    "Document",
    "IssueSink",
    "load_activities",
    "load_animation_group",
    "load_backpack_lights",
    "load_behavior",
    "load_cube_lights",
    "load_emotion_events",
    "load_mood_config",
    "load_reaction_map",
    "load_trigger_map",
    "read_document",
    "read_text",
]

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Keys under which behaviours and activities name animation triggers (every spelling in the
#: real files): ``animTriggers`` (a list), ``animTrigger``, ``anim``, ``animationTrigger``,
#: ``ReactionAnimGroup``, any ``…AnimTrigger`` (``s2_WaitAnimTrigger``, ``driveStartAnimTrigger``,
#: ``idleAnimTrigger`` …), any ``…_animName`` (request-game configs), ``knockOver…Trigger``,
#: ``reachForBlockTrigger``, ``softSparkTrigger`` and ``sparks{Success,Fail}Trigger``.
#: An empty string means "no animation" and is not a reference.
ANIM_TRIGGER_KEY = re.compile(
    r"animTriggers?|anim|animationTrigger|ReactionAnimGroup|\w*AnimTrigger|\w+_animName"
    r"|knockOver\w*Trigger|reachForBlockTrigger|softSparkTrigger|sparks(?:Success|Fail)Trigger"
)
#: Keys under which behaviours and activities name emotion events (``finalEmotionEvent`` in the real files).
EMOTION_EVENT_KEY = re.compile(r"\w*EmotionEvent|emotionEvent")
#: Keys of inline emotion-event definitions (the engine's EmotionEventMapper): ``eventMapper`` and ``…EventMapper``.
EVENT_MAPPER_KEY = re.compile(r"eventMapper|\w*EventMapper")

#: Known misspellings of behaviour classes in real files → the class meant.
CLASS_ALIASES: Mapping[str, str] = MappingProxyType({"PlanAnimWithFace": "PlayAnimWithFace"})

#: The chooser types the engine's data uses.
CHOOSER_TYPES = frozenset({"Selection", "Scoring", "StrictPriority"})


@dataclass(frozen=True, slots=True)
class Document:
    """A parsed resource file: where it is, its text (for line lookups) and its JSON value."""

    origin: Origin
    text: str
    data: Any

    @property
    def name(self) -> str:
        """The file's stem: how groups and cube lights are named."""
        return self.origin.name


class IssueSink:
    """Collects one load's issues; knows how to turn a field path into a line number.

    It lives exactly as long as one load, so it also carries that load's memo of graphs.
    """

    def __init__(self) -> None:
        self.issues: list[Issue] = []
        #: Graphs built so far in this load, by node values (see :func:`brain.assets.fields.graph`).
        self.graphs: dict[tuple[Any, ...], Graph] = {}

    def add(self, issue: Issue) -> None:
        """Record *issue*."""
        self.issues.append(issue)

    def report(
        self,
        severity: Severity,
        message: str,
        doc: Document | None = None,
        path: JsonPath = (),
        *,
        code: str = "field",
        line: int | None = None,
        subject: str | None = None,
    ) -> None:
        """Record an issue about *doc* at *path* (line looked up from the text when needed)."""
        file = str(doc.origin) if doc else None
        if doc is not None and line is None:
            line = jsonc.locate(doc.text, path)
        self.add(
            Issue(
                severity,
                message,
                file=file,
                line=line,
                field=format_path(path) or None,
                code=code,
                subject=subject,
            )
        )

    def field_error(self, doc: Document, exc: FieldError, what: str) -> None:
        """Report a bad field: *what* (e.g. ``behaviour``) is left out."""
        self.report(Severity.ERROR, f"{exc.message}; {what} not loaded", doc, exc.path)


_CHUNK = 1 << 16


def _read_bytes(file: Path | str) -> bytes:
    """The file's bytes with as few system calls as possible (open, read, close).

    A full app tree is about a thousand small JSON files, and ``open().read()`` spends
    more time in its extra calls (stat, ioctl, seek, a second read) than in parsing.
    """
    fd = os.open(file, os.O_RDONLY)
    try:
        chunks = []
        while True:
            chunk = os.read(fd, _CHUNK)
            if chunk:
                chunks.append(chunk)
            if len(chunk) < _CHUNK:  # a short read of a regular file is its end
                break
    finally:
        os.close(fd)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


_BOM = b"\xef\xbb\xbf"


def _decode(raw: bytes) -> str:
    """UTF-8 text without a leading byte-order mark (the C codec; ``utf-8-sig`` is pure Python)."""
    return (raw[3:] if raw.startswith(_BOM) else raw).decode("utf-8")


def read_text(file: Path | str) -> str | None:
    """A file's text (as :func:`read_document` decodes it), or None when it cannot be read now.

    For reporting: validation reads a file again to find the lines of dangling references.
    """
    try:
        return _decode(_read_bytes(os.fspath(file)))
    except (OSError, UnicodeDecodeError):
        return None


def read_document(file: Path | str, root: Path, sink: IssueSink) -> Document | None:
    """Read and parse one JSON(-with-comments) file; on failure report it and return None."""
    file = os.fspath(file)
    try:
        raw = _read_bytes(file)
    except FileNotFoundError:
        sink.add(Issue(Severity.ERROR, "file not found", file=file, code="io"))
        return None
    except OSError as exc:
        sink.add(Issue(Severity.ERROR, f"cannot read: {exc.strerror}", file=file, code="io"))
        return None
    try:
        text = _decode(raw)
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1  # the mark holds no newline: same line either way
        sink.add(Issue(Severity.ERROR, f"not UTF-8 text ({exc.reason})", file=file, line=line, code="io"))
        return None
    try:
        data = jsonc.loads(text)
    except jsonc.JsoncError as exc:
        sink.add(
            Issue(
                Severity.ERROR,
                f"invalid JSON: {exc.message} (column {exc.column}); file not loaded",
                file=file,
                line=exc.line,
                code="json",
            )
        )
        return None
    return Document(Origin(file, root), text, data)


def _each(
    doc: Document, sink: IssueSink, items: list[Any], path: JsonPath, what: str, read: Callable[[Any, JsonPath], T]
) -> Iterator[T]:
    """Read every item of a list, reporting and skipping the bad ones."""
    for i, item in enumerate(items):
        try:
            yield read(item, path + (i,))
        except FieldError as exc:
            sink.field_error(doc, exc, what)


def _top_object(doc: Document, sink: IssueSink, what: str) -> dict[str, Any] | None:
    if isinstance(doc.data, dict):
        return doc.data
    sink.report(Severity.ERROR, f"expected a JSON object at the top, got {json_type(doc.data)}; {what} not loaded", doc)
    return None


def _params(obj: Mapping[str, Any], exclude: frozenset[str]) -> Mapping[str, Any]:
    return MappingProxyType({k: v for k, v in obj.items() if k not in exclude})


@functools.lru_cache(maxsize=4096)
def _ref_kind(key: str) -> int:
    """What a key holds: 1 animation triggers, 2 emotion-event names, 3 an event mapper, 0 other (keys repeat a lot)."""
    if ANIM_TRIGGER_KEY.fullmatch(key):
        return 1
    if EMOTION_EVENT_KEY.fullmatch(key):
        return 2
    if EVENT_MAPPER_KEY.fullmatch(key):
        return 3
    return 0


def _collect_refs(
    value: Any,
    path: JsonPath,
    anims: list[FieldRef],
    events: list[FieldRef],
    mappers: list[tuple[JsonPath, Any]],
) -> None:
    """Walk *value*, collecting names under animation-trigger and emotion-event keys, and event mappers.

    A key's value may be a string (empty means "none") or a list of strings. Event-mapper
    blocks are collected whole, for :func:`_event_mapper`.
    """
    if type(value) is list:
        for i, item in enumerate(value):
            if type(item) is dict or type(item) is list:
                _collect_refs(item, path + (i,), anims, events, mappers)
        return
    if type(value) is not dict:
        return
    for k, v in value.items():
        kind = _ref_kind(k)
        if kind == 0:
            if type(v) is dict or type(v) is list:
                _collect_refs(v, path + (k,), anims, events, mappers)
            continue
        if kind == 3:
            mappers.append((path + (k,), v))
            continue
        out = anims if kind == 1 else events
        if type(v) is str:
            if v:
                out.append(FieldRef(path + (k,), v))
        elif type(v) is list:
            here = path + (k,)
            for i, item in enumerate(v):
                if type(item) is not str:
                    raise FieldError(here + (i,), f"expected string, got {json_type(item)}")
                if item:
                    out.append(FieldRef(here, item))
        else:
            raise FieldError(path + (k,), f"expected string or array of strings, got {json_type(v)}")


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


# ---------------------------------------------------------------- trigger maps


def load_trigger_map(doc: Document, sink: IssueSink) -> list[TriggerPair]:
    """``{"Pairs": [{"CladEvent", "AnimName"}, …]}`` (animation and cube-light trigger maps)."""
    obj = _top_object(doc, sink, "trigger map")
    if obj is None:
        return []
    try:
        pairs = F.expect_list(obj.get("Pairs"), ("Pairs",)) if "Pairs" in obj else None
        if pairs is None:
            raise FieldError(("Pairs",), "missing required field")
    except FieldError as exc:
        sink.field_error(doc, exc, "trigger map")
        return []

    def read(item: Any, path: JsonPath) -> TriggerPair:
        pair = F.expect_object(item, path)
        index = path[-1]
        assert isinstance(index, int)  # _each appends the item's index to the list's path
        return TriggerPair(F.string(pair, "CladEvent", path), F.string(pair, "AnimName", path), index, doc.origin)

    out: list[TriggerPair] = []
    seen: dict[str, TriggerPair] = {}
    for pair in _each(doc, sink, pairs, ("Pairs",), "pair", read):
        first = seen.get(pair.event)
        if first is not None:
            sink.report(
                Severity.WARNING,
                f"CladEvent {pair.event!r} appears again (first at Pairs[{first.index}] → {first.target!r}); "
                "the first pair is used",
                doc,
                ("Pairs", pair.index),
                code="duplicate",
                subject=pair.event,
            )
            continue
        seen[pair.event] = pair
        out.append(pair)
    return out


# ---------------------------------------------------------------- animation groups


def _member(item: Any, path: JsonPath) -> AnimationGroupMember:
    # Groups are the most numerous files: check the usual shape in one go, and only go
    # field by field (for the precise message) when something is off.
    if type(item) is dict:
        name = item.get("Name")
        weight = item.get("Weight")
        cooldown = item.get("CooldownTime_Sec", 0.0)
        mood = item.get("Mood", "Default")
        if (
            type(name) is str
            and (type(weight) is float or type(weight) is int)
            and (type(cooldown) is float or type(cooldown) is int)
            and type(mood) is str
            and weight >= 0
        ):
            if "UseHeadAngle" not in item and "HeadAngleMin_Deg" not in item and "HeadAngleMax_Deg" not in item:
                return AnimationGroupMember(name, float(weight), float(cooldown), mood)
    m = F.expect_object(item, path)
    weight = F.number(m, "Weight", path)
    if weight < 0:
        raise FieldError(path + ("Weight",), f"expected a number >= 0, got {weight:g}")
    return AnimationGroupMember(
        F.string(m, "Name", path),
        weight,
        F.number(m, "CooldownTime_Sec", path, 0.0),
        F.string(m, "Mood", path, "Default"),
        F.boolean(m, "UseHeadAngle", path, False),
        F.number(m, "HeadAngleMin_Deg", path, 0.0),
        F.number(m, "HeadAngleMax_Deg", path, 0.0),
    )


def load_animation_group(doc: Document, sink: IssueSink) -> AnimationGroup | None:
    """``ag_*.json``: ``{"Animations": [{"Name", "Weight", "CooldownTime_Sec", "Mood", …}]}``.

    A group with any bad member is left out whole: choosing among the rest would change
    its weights silently.
    """
    obj = _top_object(doc, sink, "animation group")
    if obj is None:
        return None
    try:
        items = F.expect_list(obj["Animations"], ("Animations",)) if "Animations" in obj else None
        if items is None:
            raise FieldError(("Animations",), "missing required field")
        members = tuple(_member(item, ("Animations", i)) for i, item in enumerate(items))
    except FieldError as exc:
        sink.field_error(doc, exc, "animation group")
        return None
    if not members:
        sink.report(Severity.WARNING, "animation group has no animations", doc, ("Animations",), code="empty")
    return AnimationGroup(doc.name, members, doc.origin)


# ---------------------------------------------------------------- mood and emotion events


def load_mood_config(doc: Document, sink: IssueSink) -> MoodConfig | None:
    """``mood_config.json``. A bad decay graph drops that graph; a bad top-level field drops the file."""
    obj = _top_object(doc, sink, "mood config")
    if obj is None:
        return None
    decay: dict[str, DecayGraph] = {}
    try:
        graphs = F.expect_list(obj.get("decayGraphs", []), ("decayGraphs",))
        for i, item in enumerate(graphs):
            path: JsonPath = ("decayGraphs", i)
            try:
                g = F.expect_object(item, path)
                etype = F.string(g, "emotionType", path)
                gtype = F.string(g, "graphType", path, "TimeRatio")
                if gtype not in ("TimeRatio", "ValueSlope"):
                    raise FieldError(path + ("graphType",), f'expected "TimeRatio" or "ValueSlope", got {gtype!r}')
                graph = F.graph(g, path, sink.graphs)
            except FieldError as exc:
                sink.field_error(doc, exc, "decay graph")
                continue
            if etype in decay:
                sink.report(Severity.WARNING, f"second decay graph for {etype!r}; the first is used", doc, path,
                            code="duplicate", subject=etype)
                continue
            decay[etype] = DecayGraph(etype, graph, gtype)
        penalty = F.optional_graph(obj, "defaultRepetitionPenalty", (), sink.graphs)
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
            lo, hi = F.number(r, "min", rpath), F.number(r, "max", rpath)
            if lo > hi:
                raise FieldError(rpath, f"min {lo:g} is above max {hi:g}")
            ranges[F.string(r, "emotionType", rpath)] = (lo, hi)
    except FieldError as exc:
        sink.field_error(doc, exc, "mood config")
        return None
    if "default" not in decay:
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
    )


def _emotion_event(doc: Document, sink: IssueSink, item: Any, path: JsonPath) -> EmotionEvent:
    e = F.expect_object(item, path)
    name = F.string(e, "name", path)
    apath = path + ("emotionAffectors",)
    affectors = []
    for i, a in enumerate(F.expect_list(e.get("emotionAffectors", []), apath)):
        a = F.expect_object(a, apath + (i,))
        affectors.append(EmotionAffector(F.string(a, "emotionType", apath + (i,)), F.number(a, "value", apath + (i,))))
    penalty = F.optional_graph(e, "repetitionPenalty", path, sink.graphs)
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


# ---------------------------------------------------------------- reactions and behaviours


_REACTION_KEYS = frozenset({"reactionTrigger", "behaviorID"})


def load_reaction_map(doc: Document, sink: IssueSink) -> list[ReactionTrigger]:
    """``reactionTrigger_behavior_map.json``. Entries sharing a trigger are all kept, and reported."""
    obj = _top_object(doc, sink, "reaction map")
    if obj is None:
        return []
    key = "reactionTriggerBehaviorMap"
    try:
        if key not in obj:
            raise FieldError((key,), "missing required field")
        items = F.expect_list(obj[key], (key,))
    except FieldError as exc:
        sink.field_error(doc, exc, "reaction map")
        return []

    def read(item: Any, path: JsonPath) -> ReactionTrigger:
        e = F.expect_object(item, path)
        generic = e.get("genericStrategyParams")
        resume = None
        if generic is not None:
            generic = F.expect_object(generic, path + ("genericStrategyParams",))
            resume = F.boolean(generic, "shouldResumeLast", path + ("genericStrategyParams",), None)
        return ReactionTrigger(
            trigger=F.string(e, "reactionTrigger", path),
            behavior_id=F.string(e, "behaviorID", path),
            should_resume_last=resume,
            index=int(path[-1]),
            params=_params(e, _REACTION_KEYS),
            origin=doc.origin,
        )

    entries = list(_each(doc, sink, items, (key,), "reaction entry", read))
    first: dict[str, ReactionTrigger] = {}
    for entry in entries:
        prev = first.setdefault(entry.trigger, entry)
        if prev is not entry:
            sink.report(
                Severity.WARNING,
                f"reaction trigger {entry.trigger!r} is mapped again (entry {prev.index} → {prev.behavior_id}, "
                f"entry {entry.index} → {entry.behavior_id}); both entries are kept",
                doc,
                (key, entry.index),
                code="duplicate",
                subject=entry.trigger,
            )
    return entries


_MODERN_KEYS = frozenset({"behaviorClass", "behaviorID"})
_LEGACY_KEYS = frozenset({"behaviorType", "name", "behaviorGroups"})


def load_behavior(doc: Document, sink: IssueSink) -> Behavior | None:
    """A behaviour file in either format (see :class:`~brain.assets.records.Behavior`)."""
    obj = _top_object(doc, sink, "behaviour")
    if obj is None:
        return None
    aliases: tuple[str, ...]
    try:
        if "behaviorClass" in obj or "behaviorID" in obj:
            raw_class = F.string(obj, "behaviorClass", ())
            behavior_id = F.string(obj, "behaviorID", ())
            legacy, aliases, groups = False, (), ()
            params = _params(obj, _MODERN_KEYS)
        elif "behaviorType" in obj:
            raw_class = F.string(obj, "behaviorType", ())
            name = F.string(obj, "name", (), None)
            behavior_id = name or raw_class
            legacy = True
            aliases = (raw_class,) if raw_class != behavior_id else ()
            groups = F.string_list(obj, "behaviorGroups", (), ())
            params = _params(obj, _LEGACY_KEYS)
        else:
            sink.report(Severity.ERROR, 'expected "behaviorClass" and "behaviorID" (or the older "behaviorType"); '
                        "behaviour not loaded", doc, code="field")
            return None
        anims: list[FieldRef] = []
        events: list[FieldRef] = []
        mappers: list[tuple[JsonPath, Any]] = []
        _collect_refs(obj, (), anims, events, mappers)
    except FieldError as exc:
        sink.field_error(doc, exc, "behaviour")
        return None
    mapped: list[EmotionEvent] = []
    for mpath, block in mappers:
        _event_mapper(doc, sink, block, mpath, mapped, events)
    behavior_class = CLASS_ALIASES.get(raw_class, raw_class)
    if behavior_class != raw_class:
        key = "behaviorType" if legacy else "behaviorClass"
        sink.report(Severity.INFO, f"class {raw_class!r} read as {behavior_class!r} (a known misspelling)",
                    doc, (key,), code="alias", subject=raw_class)
    return Behavior(
        behavior_id=behavior_id,
        behavior_class=behavior_class,
        raw_class=raw_class,
        params=params,
        origin=doc.origin,
        legacy=legacy,
        aliases=aliases,
        groups=groups,
        anim_triggers=tuple(anims),
        emotion_events=tuple(events),
        mapped_events=tuple(mapped),
    )


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


# ---------------------------------------------------------------- lights


_PATTERN_LISTS = ("onPeriod_ms", "offPeriod_ms", "transitionOnPeriod_ms", "transitionOffPeriod_ms", "offset")


def _colors(p: Mapping[str, Any], key: str, path: JsonPath, scale: float) -> tuple[RGBA, ...]:
    out: list[RGBA] = []
    cpath = path + (key,)
    if key not in p:
        raise FieldError(cpath, "missing required field")
    for i, c in enumerate(F.expect_list(p[key], cpath)):
        c = F.expect_list(c, cpath + (i,))
        if len(c) != 4:
            raise FieldError(cpath + (i,), f"expected [r, g, b, a], got {len(c)} values")
        vals = []
        for j, v in enumerate(c):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise FieldError(cpath + (i, j), f"expected number, got {json_type(v)}")
            if not 0 <= v <= scale:
                raise FieldError(cpath + (i, j), f"expected a colour value in 0..{scale:g}, got {v!r}")
            vals.append(float(v) / scale)
        out.append((vals[0], vals[1], vals[2], vals[3]))
    return tuple(out)


def _ms_list(p: Mapping[str, Any], key: str, path: JsonPath) -> tuple[int, ...]:
    lpath = path + (key,)
    if key not in p:
        raise FieldError(lpath, "missing required field")
    out = []
    for i, v in enumerate(F.expect_list(p[key], lpath)):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise FieldError(lpath + (i,), f"expected number, got {json_type(v)}")
        out.append(int(round(v)))
    return tuple(out)


def _pattern_lists(p: Mapping[str, Any], path: JsonPath, scale: float) -> dict[str, Any]:
    lists = {
        "on_colors": _colors(p, "onColors", path, scale),
        "off_colors": _colors(p, "offColors", path, scale),
        "on_period_ms": _ms_list(p, "onPeriod_ms", path),
        "off_period_ms": _ms_list(p, "offPeriod_ms", path),
        "transition_on_period_ms": _ms_list(p, "transitionOnPeriod_ms", path),
        "transition_off_period_ms": _ms_list(p, "transitionOffPeriod_ms", path),
        "offset_ms": _ms_list(p, "offset", path),
    }
    leds = len(lists["on_colors"])
    for value, key in zip(lists.values(), ("onColors", "offColors", *_PATTERN_LISTS), strict=True):
        if len(value) != leds:
            raise FieldError(path + (key,), f"expected {leds} entries (one per LED, as onColors), got {len(value)}")
    return lists


def _max_color(value: Any) -> float:
    """The largest colour component in a backpack file, to tell 0..1 floats from 0..255 bytes."""
    best = 0.0
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            for k, x in v.items():
                if k in ("onColors", "offColors") and isinstance(x, list):
                    for c in x:
                        if isinstance(c, list):
                            best = max([best, *(n for n in c if isinstance(n, (int, float)))])
                elif isinstance(x, dict):
                    stack.append(x)
    return best


def load_backpack_lights(doc: Document, sink: IssueSink) -> list[BackpackLightPattern]:
    """``lights/backpackLights/*.json``: one pattern (named by the file) or a map of named patterns.

    Colours are kept as 0..1 floats. Files whose colours go above 1 are read as 0..255 bytes.
    """
    obj = _top_object(doc, sink, "backpack lights")
    if obj is None:
        return []
    scale = 255.0 if _max_color(obj) > 1.0 else 1.0

    def read(name: str, value: Any, path: JsonPath) -> BackpackLightPattern:
        p = F.expect_object(value, path)
        return BackpackLightPattern(name=name, origin=doc.origin, **_pattern_lists(p, path, scale))

    if "onColors" in obj:
        items: list[tuple[str, Any, JsonPath]] = [(doc.name, obj, ())]
    else:
        items = [(k, v, (k,)) for k, v in obj.items()]
    out = []
    for name, value, path in items:
        try:
            out.append(read(name, value, path))
        except FieldError as exc:
            sink.field_error(doc, exc, "light pattern")
    return out


def _cube_stage(name: str, value: Any, path: JsonPath) -> CubeLightStage:
    s = F.expect_object(value, path)
    if "pattern" not in s:
        raise FieldError(path + ("pattern",), "missing required field")
    ppath = path + ("pattern",)
    p = F.expect_object(s["pattern"], ppath)
    rotate = F.boolean(s, "rotate", path, None)
    pattern = CubeLightPattern(
        **_pattern_lists(p, ppath, 255.0),
        rotation_period_ms=int(F.number(p, "rotationPeriod_ms", ppath, 0.0)),
        rotate=F.boolean(p, "rotate", ppath, rotate),
    )
    return CubeLightStage(
        name=F.string(s, "patternDebugName", path, name),
        pattern=pattern,
        duration_ms=int(F.number(s, "duration_ms", path, 0.0)),
        can_be_overridden=F.boolean(s, "canBeOverridden", path, None),
    )


def load_cube_lights(doc: Document, sink: IssueSink) -> CubeLightAnimation | None:
    """``lights/cubeLights/**.json``, in either shape; colours 0..255 become 0..1 floats.

    Object of named stages → stages in key order (the files rely on it: ``flourish`` then
    ``zdenouement``). A key holding a list, or a top-level list → the stages in list order.
    """
    data = doc.data
    stages: list[CubeLightStage] = []
    try:
        if isinstance(data, list):
            stages = [_cube_stage(f"{doc.name}[{i}]", s, (i,)) for i, s in enumerate(data)]
        elif isinstance(data, dict):
            for key in sorted(data):
                value = data[key]
                if isinstance(value, list):
                    stages.extend(_cube_stage(f"{key}[{i}]", s, (key, i)) for i, s in enumerate(value))
                else:
                    stages.append(_cube_stage(key, value, (key,)))
        else:
            raise FieldError((), f"expected an object or a list of stages, got {json_type(data)}")
    except FieldError as exc:
        sink.field_error(doc, exc, "cube light animation")
        return None
    if not stages:
        sink.report(Severity.WARNING, "cube light animation has no stages", doc, code="empty")
    return CubeLightAnimation(doc.name, tuple(stages), doc.origin)
