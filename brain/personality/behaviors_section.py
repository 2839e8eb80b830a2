"""The personality's ``behaviors:`` section: the behaviours it uses, by ID, with their parameters.

Each entry is a behaviour ID and a mapping of parameters, in the keys the behaviour's class
declares (its JSON's spellings; ``cozmo-brain check`` and docs/personality-format.md list them):

* an ID the resource set has (``TapGame: {rounds: 5}``) is that behaviour with these parameters
  over its JSON's, wherever the personality uses it: a ``behavior:`` node, a reaction, an
  activity's chooser;
* ``class: <behaviour class>`` makes a behaviour of the personality's own
  (``QuickPeekABoo: {class: PeekABoo, maxTimesPeekBeforeQuit: 1}``);
* ``like: <behaviour ID>`` starts from another behaviour's JSON (its class and parameters).

A node's own ``params:`` go over the entry's. Every entry is built once when the personality
loads, used or not, so a wrong parameter is an error at its file, line and field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from brain.nodes.registry import BEHAVIOR_CLASSES

from .located import LMap, Loc, short_repr, suggest

__all__ = ["OWN_KEYS", "OwnBehavior", "check_all", "own_behavior", "plain_params"]

#: Keys of an entry that are not parameters.
OWN_KEYS = ("class", "like", "comment")


@dataclass
class OwnBehavior:
    """An entry of the section: what it is based on and its parameters (located)."""

    behavior_id: str
    #: the behaviour class it names, or None (then it is ``base``'s)
    class_name: str | None
    #: the behaviour ID whose JSON it starts from (itself, or its ``like``), or None
    base: str | None
    params: LMap
    loc: Loc
    path: str


def own_behavior(builder: Any, behavior_id: str) -> OwnBehavior | None:
    """The section's entry for ``behavior_id`` (None when it has none, or it is broken: reported).

    ``builder`` is the personality's :class:`~brain.personality.builder.Builder` (its section,
    issues, parameters and resources)."""
    section = builder.behaviors
    if behavior_id not in section:
        return None
    loc, path = section.at(behavior_id), f"behaviors.{behavior_id}"
    entry = section[behavior_id]
    if entry is None:
        entry = LMap(loc)
    if not isinstance(entry, LMap):
        builder.issues.add(loc, path, f"expected a mapping of parameters (and `class:` or `like:`), "
                           f"got {short_repr(entry)}")
        return None
    resolved = builder.resolve(entry, loc, path)
    params = LMap(entry.loc)
    for key, value in resolved.items():
        if key not in OWN_KEYS:
            params.put(key, value, entry.at(key))
    class_name, like = resolved.get("class"), resolved.get("like")
    for key, value in (("class", class_name), ("like", like)):
        if value is not None and not isinstance(value, str):
            builder.issues.add(entry.at(key), f"{path}.{key}", f"expected a name, got {short_repr(value)}")
            return None
    if class_name is not None and like is not None:
        builder.issues.add(entry.at("like"), f"{path}.like", "give `class` or `like`, not both")
        return None
    if class_name is not None and class_name not in BEHAVIOR_CLASSES:
        builder.issues.add(entry.at("class"), f"{path}.class", f"unknown behaviour class {class_name!r}"
                           f"{suggest(class_name, BEHAVIOR_CLASSES)}")
        return None
    resources = builder.ctx.resources
    if like is not None and (resources is None or resources.behavior(like) is None):
        known = list(getattr(resources, "behaviors", {})) if resources is not None else []
        builder.issues.add(entry.at("like"), f"{path}.like", f"unknown behaviour {like!r}{suggest(like, known)}")
        return None
    base = like if like is not None else (None if class_name is not None else behavior_id)
    return OwnBehavior(behavior_id, class_name, base, params, loc, path)


def check_all(builder: Any) -> None:
    """Build every entry once (used or not), so each one's parameters are checked at load."""
    for behavior_id in builder.behaviors:
        builder.behavior_node(str(behavior_id), builder.behaviors.at(behavior_id), f"behaviors.{behavior_id}")


def plain_params(own: OwnBehavior) -> dict[str, Any]:
    """The entry's parameters as plain values."""
    from .located import plain

    out: dict[str, Any] = plain(own.params)
    return out
