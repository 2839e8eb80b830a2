"""One loader per kind of resource file: parsed JSON → typed records + issues.

Each loader takes a :class:`Document` (the file's path, text and parsed value) and an
:class:`IssueSink`, and returns the records it could read. A record with a bad field is
reported (file, line, field path, what was expected) and left out; its neighbours in the
same file still load. Nothing here raises on bad data.

This module holds the trigger-map, animation-group, reaction-map and behaviour loaders and is
the one place to import every loader from; the rest live beside it: what they share in
:mod:`.reading`, the mood's files in :mod:`.mood_loaders`, activities in
:mod:`.activity_loaders`, light patterns in :mod:`.light_loaders`.

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

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from . import fields as F
from .activity_loaders import CHOOSER_TYPES, load_activities
from .fields import FieldError, JsonPath
from .issues import Severity
from .light_loaders import load_backpack_lights, load_cube_lights
from .mood_loaders import _event_mapper, load_emotion_events, load_mood_config
from .reading import (
    ANIM_TRIGGER_KEY,
    Document,
    IssueSink,
    _collect_refs,
    _each,
    _params,
    _top_object,
    read_document,
    read_text,
)
from .records import (
    AnimationGroup,
    AnimationGroupMember,
    Behavior,
    EmotionEvent,
    FieldRef,
    ReactionTrigger,
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

#: Known misspellings of behaviour classes in real files → the class meant.
CLASS_ALIASES: Mapping[str, str] = MappingProxyType({"PlanAnimWithFace": "PlayAnimWithFace"})


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

