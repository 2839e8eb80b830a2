"""``reactions:``: a personality's reactions to robot events, read into :class:`brain.reactions.Reaction`.

Each entry maps a reaction trigger to what the robot does: a behaviour ID (``CliffDetected:
ReactToCliff``), a mapping with ``behavior``, ``use``, ``type`` or a whole ``tree``, or nothing at
all (the resource set's reaction map then names the behaviour). ``priority`` orders reactions,
``shouldResumeLast`` (default: the resource set's) hands the robot back to what was interrupted,
and ``event: {kind, value}`` names the robot event for triggers :data:`brain.reactions.REACTION_EVENTS`
does not know.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from py_trees.behaviour import Behaviour

from brain.nodes.registry import Param, ParamError, coerce
from brain.reactions import REACTION_EVENTS, Reaction
from driver.events import EVENT_KINDS

from .located import LMap, Loc, short_repr, suggest

if TYPE_CHECKING:
    from .builder import Builder

__all__ = ["REACTION_KEYS", "build_reactions"]

#: Keys of a reaction entry.
REACTION_KEYS = ("behavior", "use", "type", "tree", "priority", "shouldResumeLast", "event", "params", "id",
                 "name", "comment")


def build_reactions(builder: Builder) -> list[Reaction]:
    """The document's reactions, most important first."""
    raw = builder.doc.get("reactions")
    if raw is None:
        return []
    if not isinstance(raw, LMap):
        builder.issues.add(builder.doc.at("reactions"), "reactions", f"expected a mapping of trigger: reaction, "
                           f"got {short_repr(raw)}")
        return []
    out = []
    for trigger, entry in raw.items():
        reaction = _reaction(builder, str(trigger), entry, raw.at(trigger), f"reactions.{trigger}")
        if reaction is not None:
            out.append(reaction)
    out.sort(key=lambda r: -r.priority)
    return out


def _reaction(builder: Builder, trigger: str, entry: Any, loc: Loc, path: str) -> Reaction | None:
    if isinstance(entry, str):
        spec = LMap(loc)
        spec.put("behavior", entry, loc)
        entry = spec
    if entry is None:
        entry = LMap(loc)
    if not isinstance(entry, LMap):
        builder.issues.add(loc, path, f"expected a behaviour ID or a mapping, got {short_repr(entry)}")
        return None
    for key in entry:
        if key not in REACTION_KEYS:
            builder.issues.add(entry.at(key), f"{path}.{key}", f"unknown key{suggest(key, REACTION_KEYS)}")
    resources = builder.ctx.resources
    defaults = resources.reactions_for(trigger) if resources is not None else []
    priority, resume = _priority_and_resume(builder, entry, path, defaults)
    kind, value = _event_filter(builder, trigger, entry, loc, path)
    node = _reaction_node(builder, trigger, entry, loc, path, defaults)
    if node is None:
        return None
    return Reaction(trigger, node, int(priority), bool(resume), kind, value, loc.file, loc.line)


def _priority_and_resume(builder: Builder, entry: LMap, path: str, defaults: list[Any]) -> tuple[int, bool]:
    """``priority`` (default 0) and ``shouldResumeLast`` (default: the resource set's reaction map)."""
    resume_default = bool(defaults[0].should_resume_last) if defaults and defaults[0].should_resume_last else False
    priority, resume = 0, resume_default
    try:
        if "priority" in entry:
            priority = coerce(Param("int"), entry["priority"])
    except ParamError as exc:
        builder.issues.add(entry.at("priority"), f"{path}.priority", str(exc))
    try:
        if "shouldResumeLast" in entry:
            resume = coerce(Param("bool"), entry["shouldResumeLast"])
    except ParamError as exc:
        builder.issues.add(entry.at("shouldResumeLast"), f"{path}.shouldResumeLast", str(exc))
    return priority, resume


def _event_filter(builder: Builder, trigger: str, entry: LMap, loc: Loc, path: str
                  ) -> tuple[str | None, bool | str | None]:
    """The robot event (kind, value) that fires the reaction: the entry's ``event``, else the trigger's."""
    kind, value = REACTION_EVENTS.get(trigger, (None, None))
    event = entry.get("event")
    if event is not None:
        if not isinstance(event, LMap) or not isinstance(event.get("kind"), str) \
                or not isinstance(event.get("value"), (bool, str, type(None))):
            builder.issues.add(entry.at("event"), f"{path}.event", f"expected {{kind: <event kind>, value: "
                               f"true|false|null|<name>}}, got {short_repr(event)}")
        else:
            kind = event["kind"]
            value = event.get("value")
    if kind is None:
        builder.issues.warn(loc, path, f"no robot event fires reaction trigger {trigger!r}; give `event: {{kind: …}}`"
                            f"{suggest(trigger, REACTION_EVENTS)}")
    elif kind not in EVENT_KINDS:
        builder.issues.add(entry.at("event"), f"{path}.event.kind", f"unknown robot event kind {kind!r}"
                           f"{suggest(kind, EVENT_KINDS)}")
    return kind, value


def _reaction_node(builder: Builder, trigger: str, entry: LMap, loc: Loc, path: str, defaults: list[Any]
                   ) -> Behaviour | None:
    """What the reaction runs: its ``tree``, its one node, else the resource set's behaviour for the trigger."""
    if "tree" in entry:
        return builder.build(entry["tree"], entry.at("tree"), f"{path}.tree")[0]
    if any(k in entry for k in ("behavior", "use", "type")):
        node_spec = LMap(entry.loc)
        for k in ("behavior", "use", "type", "params", "id", "name"):
            if k in entry:
                node_spec.put(k, entry[k], entry.at(k))
        return builder.build(node_spec, entry.loc, path)[0]
    if defaults:
        return builder.behavior_node(defaults[0].behavior_id, loc, path)
    builder.issues.add(loc, path, f"no behaviour for reaction {trigger!r}: give behavior, use or tree "
                       "(the resource set maps none)")
    return None
