"""Personalities in YAML: load, merge, validate, and build the py_trees tree.

A personality file says what the robot does: a root tree made of the node library's nodes
and Cozmo behaviours, named subtrees, reactions to robot events, mood adjustments and
parameters. Files can include others (for shared subtrees) and extend a base personality
with a few overrides. The format is documented in ``docs/personality-format.md``.

Everything is checked before anything runs: unknown keys and node names (with close
matches suggested), parameter types, emotion types, behaviour IDs and classes, subtree
references and cycles, override paths. Every problem is reported at once, each naming the
file, the line and the key path, e.g.::

    trees/x.yaml:14: root.children[2].params.weight: expected a number, got 'lots'

:func:`load_personality` raises :class:`PersonalityError` carrying all of them;
:func:`check_personality` returns them as :class:`brain.assets.Issue` records for
``cozmo-brain check``.
"""

from __future__ import annotations

import dataclasses
import difflib
import logging
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from py_trees.behaviour import Behaviour
from py_trees.decorators import Decorator

from brain.assets.issues import Issue, Severity
from brain.context import BrainContext, event_value_matches
from brain.graph import Graph
from brain.nodes.conditions import ORIENTATION_NAMES
from brain.nodes.cozmo_behaviors import BehaviorSpec
from brain.nodes.decorators import Cooldown, Timer
from brain.nodes.registry import (
    BEHAVIOR_CLASSES,
    EMOTION_EVENT_PARAMS,
    EMOTION_TYPE_PARAMS,
    NODE_TYPES,
    TRIGGER_PARAMS,
    NodeType,
    Param,
    ParamError,
    coerce,
)
from driver.events import EVENT_KINDS

__all__ = [
    "REACTION_EVENTS",
    "MoodOverrides",
    "Personality",
    "PersonalityError",
    "Reaction",
    "check_personality",
    "load_personality",
]

log = logging.getLogger(__name__)

#: Top-level keys of a personality file.
TOP_KEYS = ("name", "description", "extends", "include", "parameters", "overrides", "mood", "subtrees",
            "activities", "reactions", "root")
#: Keys every node mapping may have besides its own.
NODE_KEYS = ("type", "behavior", "use", "id", "name", "params", "children", "child", "comment")
#: Keys of a reaction entry.
REACTION_KEYS = ("behavior", "use", "type", "tree", "priority", "shouldResumeLast", "event", "params", "id",
                 "name", "comment")

#: Reaction trigger → (robot event kind, the event's value or None for any). The value is a status
#: flag's edge (True: turned on) or, for orientation changes, the new orientation (``on_side``:
#: either side). Cozmo's trigger names plus a few for events the driver reports that Cozmo's map
#: had no trigger for. Kinds are names of :data:`driver.events.EVENT_KINDS`, which turns them into
#: the event types a reaction matches.
REACTION_EVENTS: dict[str, tuple[str, bool | str | None]] = {
    "CliffDetected": ("cliff", True),
    "RobotPickedUp": ("picked_up", True),
    "ReturnedToTreads": ("picked_up", False),
    "RobotFalling": ("falling_started", None),
    "PlacedOnCharger": ("on_charger", True),
    "CubeMoved": ("cube_moved", None),
    "DoubleTapDetected": ("cube_tapped", None),
    "Poked": ("poked", None),
    "CubeTapped": ("cube_tapped", None),
    "ButtonPressed": ("button", True),
    "MotorCalibration": ("motor_calibration", None),
    "RobotOnBack": ("orientation", "on_back"),
    "RobotOnFace": ("orientation", "on_face"),
    "RobotOnSide": ("orientation", "on_side"),
    "RobotOnLeftSide": ("orientation", "on_left_side"),
    "RobotOnRightSide": ("orientation", "on_right_side"),
}

_PATH_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


class PersonalityError(Exception):
    """A personality could not be loaded; ``issues`` lists every problem found."""

    def __init__(self, issues: Sequence[Issue]) -> None:
        self.issues = list(issues)
        super().__init__("\n".join(format_issue(i) for i in self.issues if i.severity >= Severity.ERROR))


def format_issue(issue: Issue) -> str:
    """``file:line: key.path: message`` (the parts that are known)."""
    parts = [p for p in (issue.location, issue.field) if p]
    return ": ".join([*parts, issue.message])


# ----------------------------------------------------------------------------- located YAML


@dataclass(frozen=True)
class Loc:
    """Where a value was written."""

    file: str
    line: int | None = None


class LMap(dict):  # type: ignore[type-arg]
    """A YAML mapping that remembers where it and each of its keys were written."""

    loc: Loc
    key_locs: dict[Any, Loc]

    def __init__(self, loc: Loc) -> None:
        super().__init__()
        self.loc = loc
        self.key_locs = {}

    def at(self, key: Any) -> Loc:
        """Location of ``key`` (or of the mapping when the key is absent)."""
        return self.key_locs.get(key, self.loc)

    def put(self, key: Any, value: Any, loc: Loc) -> None:
        """Set a value and the location it came from."""
        self[key] = value
        self.key_locs[key] = loc


class LList(list):  # type: ignore[type-arg]
    """A YAML sequence that remembers where it and each item were written."""

    loc: Loc
    item_locs: list[Loc]

    def __init__(self, loc: Loc) -> None:
        super().__init__()
        self.loc = loc
        self.item_locs = []

    def at(self, index: int) -> Loc:
        """Location of item ``index``."""
        return self.item_locs[index] if 0 <= index < len(self.item_locs) else self.loc


class _Loader(yaml.SafeLoader):
    def __init__(self, stream: str, file: str) -> None:
        super().__init__(stream)
        self.file = file
        self.problems: list[tuple[Loc, str]] = []


def _construct_map(loader: _Loader, node: yaml.MappingNode) -> LMap:
    loader.flatten_mapping(node)
    out = LMap(Loc(loader.file, node.start_mark.line + 1))
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        loc = Loc(loader.file, key_node.start_mark.line + 1)
        if isinstance(key, (dict, list)):
            loader.problems.append((loc, "a mapping key must be a plain value"))
            continue
        if key in out:
            loader.problems.append((loc, f"duplicate key {key!r} (first at line {out.at(key).line})"))
        out.put(key, loader.construct_object(value_node, deep=True), loc)
    return out


def _construct_seq(loader: _Loader, node: yaml.SequenceNode) -> LList:
    out = LList(Loc(loader.file, node.start_mark.line + 1))
    for item in node.value:
        out.append(loader.construct_object(item, deep=True))
        out.item_locs.append(Loc(loader.file, item.start_mark.line + 1))
    return out


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_Loader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)


def _plain(value: Any) -> Any:
    """A located value as plain dicts and lists (for parameters handed to behaviour factories)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _suggest(name: str, options: Iterable[str]) -> str:
    close = difflib.get_close_matches(str(name), list(options), n=3, cutoff=0.6)
    if not close:
        return ""
    return "; did you mean " + " or ".join(repr(c) for c in close) + "?"


def _repr(value: Any) -> str:
    text = repr(_plain(value))
    return text if len(text) <= 60 else text[:57] + "..."


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Reaction:
    """What the robot does when a reaction trigger fires.

    ``event_kind``/``event_value`` say which robot event fires it (``value`` selects the edge
    of a status flag, or an orientation by name; None matches any). Higher ``priority``
    reactions interrupt lower ones; ``should_resume_last`` asks the runner to resume the
    interrupted branch afterwards.
    """

    trigger: str
    root: Behaviour
    priority: int = 0
    should_resume_last: bool = False
    event_kind: str | None = None
    event_value: bool | str | None = None
    file: str = ""
    line: int | None = None

    def matches(self, event: Any) -> bool:
        """Whether a robot event fires this reaction: of the kind's type (class and flag), with the value."""
        event_type = EVENT_KINDS.get(self.event_kind) if self.event_kind is not None else None
        if event_type is None or not event_type.matches(event):
            return False
        return event_value_matches(event, self.event_value)


@dataclass
class MoodOverrides:
    """A personality's changes to the mood: initial values, value ranges and decay graphs."""

    initial: dict[str, float] = field(default_factory=dict)
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)
    decay: dict[str, Any] = field(default_factory=dict)  # emotion type → brain.mood.DecayGraph

    def apply_config(self, config: Any) -> Any:
        """A copy of a :class:`brain.mood.MoodConfig` with these ranges and decay graphs."""
        if not self.ranges and not self.decay:
            return config
        ranges = {**dict(config.value_ranges), **self.ranges}
        decay = {**dict(config.decay_graphs), **self.decay}
        return dataclasses.replace(config, value_ranges=ranges, decay_graphs=decay)

    def apply_initial(self, mood: Any, now: float) -> None:
        """Set the initial emotion values on a live mood."""
        for emotion, value in self.initial.items():
            mood.set_value(emotion, value, now)


@dataclass
class Personality:
    """A loaded personality: the tree to tick, the reactions, mood overrides and parameters."""

    name: str
    path: Path
    root: Behaviour
    reactions: list[Reaction]
    mood: MoodOverrides
    parameters: dict[str, Any]
    nodes: dict[str, Behaviour] = field(default_factory=dict)
    subtrees: tuple[str, ...] = ()
    activities: tuple[str, ...] = ()
    issues: list[Issue] = field(default_factory=list)

    def reaction_for(self, event: Any) -> Reaction | None:
        """The highest-priority reaction a robot event fires, if any."""
        for reaction in self.reactions:
            if reaction.matches(event):
                return reaction
        return None


# ----------------------------------------------------------------------------- assembly


class _Issues:
    """Collects problems; building goes on after each so all are reported at once."""

    def __init__(self) -> None:
        self.items: list[Issue] = []

    def add(self, loc: Loc, path: str, message: str, severity: Severity = Severity.ERROR) -> None:
        issue = Issue(severity, message, file=loc.file, line=loc.line, field=path or None, code="personality")
        if issue not in self.items:  # a subtree used twice is built (and checked) twice
            self.items.append(issue)

    def warn(self, loc: Loc, path: str, message: str) -> None:
        self.add(loc, path, message, Severity.WARNING)

    @property
    def errors(self) -> bool:
        return any(i.severity >= Severity.ERROR for i in self.items)


def _display(path: Path) -> str:
    return os.path.normpath(str(path))


class _Assembler:
    """Reads a file and what it extends and includes, merges them and applies overrides."""

    def __init__(self, issues: _Issues) -> None:
        self.issues = issues

    def read(self, path: Path, stack: tuple[str, ...] = ()) -> LMap | None:
        name = _display(path)
        if name in stack:
            chain = " -> ".join([*stack, name])
            self.issues.add(Loc(stack[-1]), "", f"circular extends/include: {chain}")
            return None
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            self.issues.add(Loc(stack[-1] if stack else name), "", f"cannot read {name}: {exc.strerror or exc}")
            return None
        loader = _Loader(text, name)
        try:
            data = loader.get_single_data()
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 1 if mark is not None else None
            problem = getattr(exc, "problem", None) or str(exc)
            self.issues.add(Loc(name, line), "", f"not valid YAML: {problem}")
            return None
        finally:
            loader.dispose()
        for loc, message in loader.problems:
            self.issues.add(loc, "", message)
        if data is None:
            data = LMap(Loc(name, 1))
        if not isinstance(data, LMap):
            self.issues.add(Loc(name, 1), "", f"expected a mapping at the top of the file, got {_repr(data)}")
            return None
        for key in data:
            if key not in TOP_KEYS:
                self.issues.add(data.at(key), str(key), f"unknown top-level key{_suggest(key, TOP_KEYS)}"
                                f" (expected one of {', '.join(TOP_KEYS)})")
        return self._assemble(path, data, (*stack, name))

    def _assemble(self, path: Path, doc: LMap, stack: tuple[str, ...]) -> LMap:
        base_dir = path.parent
        # includes: their subtrees, activities and parameters are defaults under this file's own
        includes = doc.get("include")
        if includes is not None:
            names = [includes] if isinstance(includes, str) else includes
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                self.issues.add(doc.at("include"), "include", f"expected a file name or a list of them, "
                                f"got {_repr(includes)}")
            else:
                for i, rel in enumerate(names):
                    included = self.read(base_dir / rel, stack)
                    if included is None:
                        continue
                    for key in included:
                        if key not in ("subtrees", "activities", "parameters", "include", "name", "description"):
                            where = f"include[{i}]" if isinstance(includes, list) else "include"
                            self.issues.warn(included.at(key), str(key),
                                             f"ignored: an included file provides subtrees, activities and "
                                             f"parameters only (included from {stack[-1]}, {where})")
                    for key in ("subtrees", "activities", "parameters"):
                        self._merge_named(doc, key, included, child_wins=True)
        base_name = doc.get("extends")
        if base_name is not None:
            if not isinstance(base_name, str):
                self.issues.add(doc.at("extends"), "extends", f"expected a file name, got {_repr(base_name)}")
            else:
                base = self.read(base_dir / base_name, stack)
                if base is not None:
                    doc = self._merge(base, doc)
        overrides = doc.get("overrides")
        if overrides is not None:
            self._apply_overrides(doc, overrides)
            del doc["overrides"]
        return doc

    def _merge_named(self, target: LMap, key: str, source: LMap, child_wins: bool) -> None:
        """Merge the ``key`` mapping of ``source`` into ``target``'s (``target`` entries win)."""
        incoming = source.get(key)
        if incoming is None:
            return
        if not isinstance(incoming, LMap):
            self.issues.add(source.at(key), key, f"expected a mapping, got {_repr(incoming)}")
            return
        current = target.get(key)
        if current is None:
            target.put(key, incoming, source.at(key))
            return
        if not isinstance(current, LMap):
            return  # reported when the target is validated
        for name, value in incoming.items():
            if name not in current or not child_wins:
                current.put(name, value, incoming.at(name))

    def _merge(self, base: LMap, child: LMap) -> LMap:
        """``child`` over ``base``: named sections merged by name, mood deeply, the rest replaced."""
        out = LMap(child.loc)
        for key, value in base.items():
            if key not in ("overrides", "include", "extends"):
                out.put(key, value, base.at(key))
        for key, value in child.items():
            if key in ("subtrees", "activities", "parameters", "reactions") and isinstance(out.get(key), LMap) \
                    and isinstance(value, LMap):
                merged = LMap(value.loc)
                for k, v in out[key].items():
                    merged.put(k, v, out[key].at(k))
                for k, v in value.items():
                    merged.put(k, v, value.at(k))
                out.put(key, merged, child.at(key))
            elif key == "mood" and isinstance(out.get(key), LMap) and isinstance(value, LMap):
                out.put(key, _deep_merge(out[key], value), child.at(key))
            else:
                out.put(key, value, child.at(key))
        return out

    def _apply_overrides(self, doc: LMap, overrides: Any) -> None:
        if not isinstance(overrides, LMap):
            self.issues.add(doc.at("overrides"), "overrides", f"expected a mapping of path: value, "
                            f"got {_repr(overrides)}")
            return
        for raw_path, value in overrides.items():
            loc = overrides.at(raw_path)
            label = f"overrides.{raw_path}"
            tokens = _parse_path(str(raw_path))
            if not tokens:
                self.issues.add(loc, label, "expected a path such as root.children[1].params.seconds or "
                                "<node id>.params.seconds")
                continue
            head = tokens[0]
            if isinstance(head, str) and head in TOP_KEYS:
                container: Any = doc
                steps = tokens
            else:
                node = _find_id(doc, str(head))
                if node is None:
                    ids = sorted(_all_ids(doc))
                    self.issues.add(loc, label, f"no top-level key or node id {head!r}{_suggest(str(head), ids)}")
                    continue
                container, steps = node, tokens[1:]
                if not steps:
                    self.issues.add(loc, label, "an id override needs a key after the id, e.g. <id>.params.seconds")
                    continue
            walked = str(head) if container is not doc else ""
            for i, step in enumerate(steps):
                last = i == len(steps) - 1
                shown = walked + (f"[{step}]" if isinstance(step, int) else (f".{step}" if walked else step))
                if isinstance(step, int):
                    if not isinstance(container, LList) or not 0 <= step < len(container):
                        self.issues.add(loc, label, f"{shown} does not exist")
                        break
                    if last:
                        container[step] = value
                        container.item_locs[step] = loc
                    else:
                        container = container[step]
                else:
                    if not isinstance(container, LMap):
                        self.issues.add(loc, label, f"{walked or 'the document'} is not a mapping")
                        break
                    if last:
                        container.put(step, value, loc)
                    else:
                        if step not in container:
                            if isinstance(steps[i + 1], str) and step == "params":
                                container.put(step, LMap(loc), loc)
                            else:
                                self.issues.add(loc, label, f"{shown} does not exist")
                                break
                        container = container[step]
                walked = shown


def _deep_merge(base: LMap, child: LMap) -> LMap:
    out = LMap(child.loc)
    for k, v in base.items():
        out.put(k, v, base.at(k))
    for k, v in child.items():
        if isinstance(out.get(k), LMap) and isinstance(v, LMap):
            out.put(k, _deep_merge(out[k], v), child.at(k))
        else:
            out.put(k, v, child.at(k))
    return out


def _parse_path(text: str) -> list[str | int]:
    tokens: list[str | int] = []
    pos = 0
    for match in _PATH_TOKEN.finditer(text):
        if match.start() != pos and text[pos:match.start()] != ".":
            return []
        pos = match.end()
        tokens.append(int(match.group(2)) if match.group(2) is not None else match.group(1))
    return tokens if pos == len(text) else []


def _walk_maps(value: Any) -> Iterator[LMap]:
    if isinstance(value, LMap):
        yield value
        for v in value.values():
            yield from _walk_maps(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk_maps(v)


def _find_id(doc: LMap, node_id: str) -> LMap | None:
    for key in ("root", "subtrees", "activities", "reactions"):
        for m in _walk_maps(doc.get(key)):
            if m.get("id") == node_id:
                return m
    return None


def _all_ids(doc: LMap) -> set[str]:
    out: set[str] = set()
    for key in ("root", "subtrees", "activities", "reactions"):
        out.update(str(m["id"]) for m in _walk_maps(doc.get(key)) if isinstance(m.get("id"), str))
    return out


# ----------------------------------------------------------------------------- building


class _Builder:
    """Turns the assembled document into py_trees nodes, validating as it goes."""

    def __init__(self, doc: LMap, ctx: BrainContext, issues: _Issues, parameters: Mapping[str, Any]) -> None:
        self.doc = doc
        self.ctx = ctx
        self.issues = issues
        self.parameters = dict(parameters)
        self.nodes: dict[str, Behaviour] = {}
        self.subtrees: LMap = self._section("subtrees")
        self.activities: LMap = self._section("activities")
        mood = ctx.mood
        self.emotion_types: set[str] | None = set(mood.emotion_types) if mood is not None else None
        resources = ctx.resources
        self.triggers: set[str] | None = None
        if resources is not None and getattr(resources, "anim_triggers", None):
            self.triggers = set(resources.anim_triggers)

    def _section(self, key: str) -> LMap:
        value = self.doc.get(key)
        if value is None:
            return LMap(self.doc.loc)
        if not isinstance(value, LMap):
            self.issues.add(self.doc.at(key), key, f"expected a mapping of name: node, got {_repr(value)}")
            return LMap(self.doc.loc)
        return value

    # -- parameters ($name references)

    def resolve(self, value: Any, loc: Loc, path: str) -> Any:
        """Replace ``$name`` strings by parameter values, recursively."""
        if isinstance(value, str) and value.startswith("$") and len(value) > 1 and not value.startswith("$$"):
            name = value[1:]
            if name not in self.parameters:
                self.issues.add(loc, path, f"unknown parameter ${name}{_suggest(name, self.parameters)}")
                return None
            return self.parameters[name]
        if isinstance(value, str) and value.startswith("$$"):
            return value[1:]
        if isinstance(value, LMap):
            out = LMap(value.loc)
            for k, v in value.items():
                out.put(k, self.resolve(v, value.at(k), f"{path}.{k}"), value.at(k))
            return out
        if isinstance(value, LList):
            out_list = LList(value.loc)
            for i, v in enumerate(value):
                out_list.append(self.resolve(v, value.at(i), f"{path}[{i}]"))
                out_list.item_locs.append(value.at(i))
            return out_list
        return value

    # -- nodes

    def build(self, spec: Any, loc: Loc, path: str, stack: tuple[str, ...] = (),
              child_keys: Mapping[str, Param] | None = None) -> tuple[Behaviour | None, dict[str, Any]]:
        """Build one node; returns (node or None on error, the chooser keys found on it)."""
        extras: dict[str, Any] = {}
        if isinstance(spec, str):
            spec_map = LMap(loc)
            spec_map.put("type", spec, loc)
            spec = spec_map
        if not isinstance(spec, LMap):
            self.issues.add(loc, path, f"expected a node (a mapping with type, behavior or use), got {_repr(spec)}")
            return None, extras
        allowed = set(NODE_KEYS) | set(child_keys or {})
        for key in spec:
            if key not in allowed:
                hint = _suggest(key, allowed)
                if not hint and key in ("weight", "cooldown", "score"):
                    hint = " (only children of weighted_random / scoring take it)"
                self.issues.add(spec.at(key), f"{path}.{key}", f"unknown key{hint}")
        for key, param in (child_keys or {}).items():
            if key in spec:
                try:
                    extras[key] = coerce(param, self.resolve(spec[key], spec.at(key), f"{path}.{key}"))
                except ParamError as exc:
                    self.issues.add(spec.at(key), f"{path}.{key}{exc.path}", str(exc))
                    continue
                if key == "score" and self.emotion_types is not None:
                    for emotion, _graph in extras[key].emotions:
                        if emotion not in self.emotion_types:
                            self.issues.add(spec.at(key), f"{path}.score.emotions.{emotion}",
                                            f"unknown emotion type {emotion!r}{_suggest(emotion, self.emotion_types)}")
            elif param.required:
                self.issues.add(spec.loc, path, f"missing {key!r} (required on children of this chooser)")
            else:
                extras[key] = param.default
        heads = [k for k in ("type", "behavior", "use") if k in spec]
        if len(heads) != 1:
            what = "none" if not heads else " and ".join(heads)
            self.issues.add(spec.loc, path, f"a node needs exactly one of type, behavior or use, got {what}")
            return None, extras
        node_id = spec.get("id")
        if node_id is not None and not isinstance(node_id, str):
            self.issues.add(spec.at("id"), f"{path}.id", f"expected a string, got {_repr(node_id)}")
            node_id = None
        name = spec.get("name")
        if name is not None and not isinstance(name, str):
            self.issues.add(spec.at("name"), f"{path}.name", f"expected a string, got {_repr(name)}")
            name = None
        head = heads[0]
        if head == "use":
            node = self._use(spec, path, stack)
        elif head == "behavior":
            node = self._behavior(spec, path)
        else:
            node = self._typed(spec, path, stack, name or node_id)
        if node is not None:
            if name and head != "type":
                node.name = name
            if node_id is not None:
                self.nodes.setdefault(node_id, node)
        return node, extras

    def _params(self, spec: LMap, path: str) -> LMap:
        params = spec.get("params")
        if params is None:
            return LMap(spec.loc)
        if not isinstance(params, LMap):
            self.issues.add(spec.at("params"), f"{path}.params", f"expected a mapping, got {_repr(params)}")
            return LMap(spec.loc)
        return self.resolve(params, spec.at("params"), f"{path}.params")

    def _typed(self, spec: LMap, path: str, stack: tuple[str, ...], name: str | None) -> Behaviour | None:
        type_name = spec["type"]
        if not isinstance(type_name, str) or type_name not in NODE_TYPES:
            hint = _suggest(str(type_name), NODE_TYPES)
            if isinstance(type_name, str) and type_name in BEHAVIOR_CLASSES:
                hint = f"; Cozmo behaviours are named with `behavior: {type_name}`"
            self.issues.add(spec.at("type"), f"{path}.type", f"unknown node type {type_name!r}{hint}")
            return None
        ntype = NODE_TYPES[type_name]
        params = self._params(spec, path)
        kwargs = self._check_params(ntype, params, spec, path)
        if kwargs is None:
            return None
        label = name or _default_name(ntype, kwargs)
        try:
            if ntype.kind == "composite":
                if "child" in spec:
                    self.issues.add(spec.at("child"), f"{path}.child", f"{type_name} takes children, not child")
                raw = spec.get("children")
                if not isinstance(raw, LList):
                    self.issues.add(spec.at("children") if "children" in spec else spec.loc, f"{path}.children",
                                    f"{type_name} needs a list of children, got {_repr(raw)}")
                    return None
                children, extras = [], []
                for i, child_spec in enumerate(raw):
                    child, extra = self.build(child_spec, raw.at(i), f"{path}.children[{i}]", stack,
                                              ntype.child_keys)
                    if child is not None:
                        children.append(child)
                        extras.append(extra)
                if len(children) != len(raw):
                    return None
                if not children and type_name in ("weighted_random", "scoring"):
                    self.issues.add(spec.at("children"), f"{path}.children", "needs at least one child")
                    return None
                return ntype.build(label, self.ctx, children=children, child_extras=extras, **kwargs)
            if ntype.kind == "decorator":
                if "children" in spec:
                    self.issues.add(spec.at("children"), f"{path}.children",
                                    f"{type_name} is a decorator: give one `child`, not children")
                    return None
                if "child" not in spec:
                    self.issues.add(spec.loc, path, f"{type_name} is a decorator and needs a `child`")
                    return None
                child, _ = self.build(spec["child"], spec.at("child"), f"{path}.child", stack)
                if child is None:
                    return None
                return ntype.build(label, self.ctx, child=child, **kwargs)
            for key in ("children", "child"):
                if key in spec:
                    self.issues.add(spec.at(key), f"{path}.{key}", f"{type_name} is a leaf and takes no {key}")
            return ntype.build(label, self.ctx, **kwargs)
        except (ValueError, TypeError, KeyError) as exc:
            self.issues.add(spec.loc, path, f"cannot build {type_name}: {exc}")
            return None

    def _check_params(self, ntype: NodeType, params: LMap, spec: LMap, path: str) -> dict[str, Any] | None:
        ok = True
        kwargs: dict[str, Any] = {}
        for key, value in params.items():
            key_path = f"{path}.params.{key}"
            if key not in ntype.params:
                expected = ", ".join(ntype.params) or "none"
                self.issues.add(params.at(key), key_path,
                                f"unknown parameter of {ntype.name}{_suggest(key, ntype.params)} "
                                f"(parameters: {expected})")
                ok = False
                continue
            if value is None and not ntype.params[key].required:
                continue
            try:
                kwargs[key] = coerce(ntype.params[key], value)
            except ParamError as exc:
                self.issues.add(params.at(key), f"{key_path}{exc.path}", str(exc))
                ok = False
        for key, param in ntype.params.items():
            if param.required and key not in params:
                self.issues.add(params.loc if "params" in spec else spec.loc, f"{path}.params",
                                f"{ntype.name} needs parameter {key!r}")
                ok = False
        if not ok:
            return None
        self._check_names(ntype, kwargs, params, path)
        if ntype.name == "backpack_lights" and ("colors" in kwargs) == ("pattern" in kwargs):
            self.issues.add(params.loc, f"{path}.params", "backpack_lights needs exactly one of colors or pattern")
            return None
        if ntype.name == "random_wait" and kwargs["max"] < kwargs["min"]:
            self.issues.add(params.at("max"), f"{path}.params.max", f"must not be below min ({kwargs['min']:g})")
            return None
        return kwargs

    def _check_names(self, ntype: NodeType, kwargs: dict[str, Any], params: LMap, path: str) -> None:
        key = EMOTION_TYPE_PARAMS.get(ntype.name)
        if key and self.emotion_types is not None and kwargs[key] not in self.emotion_types:
            self.issues.add(params.at(key), f"{path}.params.{key}", f"unknown emotion type {kwargs[key]!r}"
                            f"{_suggest(kwargs[key], self.emotion_types)}")
        key = EMOTION_EVENT_PARAMS.get(ntype.name)
        if key and self.ctx.mood is not None and not self.ctx.mood.has_event(kwargs[key]):
            self.issues.warn(params.at(key), f"{path}.params.{key}", f"emotion event {kwargs[key]!r} is not "
                             f"defined{_suggest(kwargs[key], self.ctx.mood.events)}")
        key = TRIGGER_PARAMS.get(ntype.name)
        if key and self.triggers is not None:
            names = kwargs[key] if isinstance(kwargs[key], list) else [kwargs[key]]
            for name in names:
                if name not in self.triggers:
                    self.issues.warn(params.at(key), f"{path}.params.{key}", f"animation trigger {name!r} is not "
                                     f"in the resource set's trigger map{_suggest(name, self.triggers)}")
        if ntype.name == "orientation_is":
            for name in kwargs["orientations"]:
                if name not in ORIENTATION_NAMES:
                    self.issues.add(params.at("orientations"), f"{path}.params.orientations", f"unknown orientation "
                                    f"{name!r}{_suggest(name, ORIENTATION_NAMES)} (expected "
                                    f"{', '.join(ORIENTATION_NAMES)})")
                    kwargs["orientations"] = [n for n in kwargs["orientations"] if n in ORIENTATION_NAMES] \
                        or ["upright"]
        if ntype.name == "simple_mood_is":
            known = ("LowStim", "MedStim", "HighStim", "Frustrated")
            for mood in kwargs["moods"]:
                if mood not in known:
                    self.issues.add(params.at("moods"), f"{path}.params.moods", f"unknown simple mood {mood!r}"
                                    f"{_suggest(mood, known)} (expected {', '.join(known)})")

    def _use(self, spec: LMap, path: str, stack: tuple[str, ...]) -> Behaviour | None:
        name = spec["use"]
        for key in ("params", "children", "child"):
            if key in spec:
                self.issues.add(spec.at(key), f"{path}.{key}", f"`use` takes no {key} (override the subtree's "
                                "parameters with $parameters or overrides)")
        if not isinstance(name, str):
            self.issues.add(spec.at("use"), f"{path}.use", f"expected a subtree name, got {_repr(name)}")
            return None
        if name in stack:
            self.issues.add(spec.at("use"), f"{path}.use", f"subtree {name!r} uses itself: "
                            f"{' -> '.join([*stack, name])}")
            return None
        if name in self.subtrees:
            return self.build(self.subtrees[name], self.subtrees.at(name), f"subtrees.{name}", (*stack, name))[0]
        if name in self.activities:
            return self.activity(name, (*stack, name))
        self.issues.add(spec.at("use"), f"{path}.use", f"unknown subtree {name!r}"
                        f"{_suggest(name, [*self.subtrees, *self.activities])}")
        return None

    def _behavior(self, spec: LMap, path: str) -> Behaviour | None:
        behavior_id = spec["behavior"]
        loc = spec.at("behavior")
        if not isinstance(behavior_id, str):
            self.issues.add(loc, f"{path}.behavior", f"expected a behaviour ID, got {_repr(behavior_id)}")
            return None
        for key in ("children", "child"):
            if key in spec:
                self.issues.add(spec.at(key), f"{path}.{key}", f"a behaviour takes no {key}")
        extra = _plain(self._params(spec, path))
        return self.behavior_node(behavior_id, loc, f"{path}.behavior", extra)

    def behavior_node(self, behavior_id: str, loc: Loc, path: str, extra: Mapping[str, Any] | None = None
                      ) -> Behaviour | None:
        """A Cozmo behaviour by ID (from the resource set) or by class name (with YAML params)."""
        resources = self.ctx.resources
        record = resources.behavior(behavior_id) if resources is not None else None
        if record is not None:
            spec = BehaviorSpec.from_record(record, extra)
        elif behavior_id in BEHAVIOR_CLASSES:
            spec = BehaviorSpec(behavior_id, behavior_id, dict(extra or {}))
        else:
            known = list(BEHAVIOR_CLASSES)
            if resources is not None:
                known += list(getattr(resources, "behaviors", {}))
            where = "" if resources is not None else " (no resource set is loaded: only behaviour classes can be used)"
            self.issues.add(loc, path, f"unknown behaviour {behavior_id!r}{_suggest(behavior_id, known)}{where}")
            return None
        factory = BEHAVIOR_CLASSES.get(spec.behavior_class)
        if factory is None:
            self.issues.add(loc, path, f"behaviour {behavior_id!r} has class {spec.behavior_class!r}, which the "
                            f"node library does not implement (implemented: {', '.join(sorted(BEHAVIOR_CLASSES))})")
            return None
        try:
            return factory(self.ctx, spec)
        except (ValueError, TypeError) as exc:
            self.issues.add(loc, path, f"cannot build behaviour {behavior_id!r}: {exc}")
            return None

    # -- activities

    def activity(self, name: str, stack: tuple[str, ...]) -> Behaviour | None:
        spec = self.activities[name]
        loc = self.activities.at(name)
        path = f"activities.{name}"
        if isinstance(spec, LMap) and "activity" in spec:
            return self._resource_activity(spec, path)
        return self.build(spec, loc, path, stack)[0]

    def _resource_activity(self, spec: LMap, path: str) -> Behaviour | None:
        from brain.nodes.choosers import Scoring, StartMoodGate, StrictPriority, WeightedRandom

        for key in spec:
            if key not in ("activity", "cooldown", "comment"):
                self.issues.add(spec.at(key), f"{path}.{key}", f"unknown key{_suggest(key, ['activity', 'cooldown'])}")
        activity_id = spec["activity"]
        resources = self.ctx.resources
        record = getattr(resources, "activities", {}).get(activity_id) if resources is not None else None
        if record is None:
            known = list(getattr(resources, "activities", {})) if resources is not None else []
            self.issues.add(spec.at("activity"), f"{path}.activity", f"unknown activity {activity_id!r}"
                            f"{_suggest(str(activity_id), known)}"
                            + ("" if resources is not None else " (no resource set is loaded)"))
            return None
        loc, where = spec.at("activity"), f"{path}.activity"
        chooser = record.behavior_chooser
        scoring = chooser is not None and chooser.type == "Scoring"
        children: list[Behaviour] = []
        scores: list[Any] = []
        for entry in chooser.behaviors if chooser is not None else ():
            behavior = resources.behavior(entry.behavior_id)
            if behavior is None or behavior.behavior_class not in BEHAVIOR_CLASSES:
                self.issues.warn(loc, where, f"activity {activity_id!r}: behaviour {entry.behavior_id!r} is skipped "
                                 "(missing or not implemented)")
                continue
            score = None
            if scoring:
                score = self._activity_score(activity_id, entry, behavior, loc, where)
                if score is None:
                    continue
            node = self.behavior_node(entry.behavior_id, loc, where)
            if node is not None:
                children.append(node)
                scores.append(score)
        if not children:
            self.issues.add(loc, where, f"activity {activity_id!r} has no behaviour the node library can run")
            return None
        root: Behaviour
        if chooser is not None and chooser.type == "StrictPriority":
            root = StrictPriority(str(activity_id), children)
        elif scoring:
            assert chooser is not None
            bonus = self._resource_graph(chooser.params.get("scoreBonusForCurrentBehavior"), loc, where,
                                         f"activity {activity_id!r}: scoreBonusForCurrentBehavior")
            # Anki's chooser scored every behaviour again on each tick, the running one with its bonus
            root = Scoring(str(activity_id), self.ctx, children, scores, reevaluate=True, running_bonus=bonus)
        else:
            root = WeightedRandom(str(activity_id), self.ctx, children)
        strategy = record.strategy
        if strategy is not None and strategy.required_min_start_mood_score is not None and strategy.start_mood_scorer:
            scorers = tuple((m.emotion_type, m.graph) for m in strategy.start_mood_scorer)
            unknown = [e for e, _ in scorers if self.emotion_types is not None and e not in self.emotion_types]
            if unknown:
                self.issues.warn(loc, where, f"activity {activity_id!r}: startMoodScorer: unknown emotion type "
                                 f"{unknown[0]!r}; the start mood score is not checked")
            else:
                root = StartMoodGate(f"{activity_id} start mood", root, self.ctx, scorers,
                                     strategy.required_min_start_mood_score)
        params = strategy.params if strategy is not None else {}
        # An activity that should end after a while (Socialize: 300 s) hands the robot back then,
        # and its cooldown starts; without the setting it runs until its chooser finishes.
        end_after = params.get("activityShouldEndDurationSecs")
        if end_after is not None:
            if isinstance(end_after, bool) or not isinstance(end_after, (int, float)) or end_after <= 0:
                self.issues.warn(loc, where, f"activity {activity_id!r}: activityShouldEndDurationSecs: expected a "
                                 f"positive number of seconds, got {end_after!r}; the activity runs until it ends")
            else:
                root = Timer(f"{activity_id} for {end_after:g} s", root, self.ctx, float(end_after))
        cooldown = spec.get("cooldown")
        if cooldown is None and strategy is not None:
            cooldown = strategy.cooldown_base_s
        if cooldown:
            try:
                seconds = coerce(Param("number", minimum=0.0), cooldown)
            except ParamError as exc:
                self.issues.add(spec.at("cooldown"), f"{path}.cooldown", str(exc))
                return None
            gate = Cooldown(f"{activity_id} cooldown", root, self.ctx, seconds)
            if params.get("startInCooldown") is True:
                gate.last_ran = self.ctx.now()  # the first chance comes one cooldown after the start
            root = gate
        return root

    def _resource_graph(self, value: Any, loc: Loc, path: str, what: str) -> Graph | None:
        """A graph of a resource file (``{nodes: [{x, y}, …]}``), or None with a warning when it is bad."""
        if value is None:
            return None
        try:
            return coerce(Param("graph"), _plain(value))
        except ParamError as exc:
            self.issues.warn(loc, path, f"{what}: {exc}; ignored")
            return None

    def _activity_score(self, activity_id: Any, entry: Any, behavior: Any, loc: Loc, path: str) -> Any:
        """The :class:`ScoreSpec` of one behaviour of a Scoring activity, or None (skip it, with a warning).

        The scoring block comes from the activity's chooser entry (``scoring``), else from the
        behaviour file itself (older files carry ``emotionScorers`` / ``flatScore`` there), with
        Anki's keys: ``emotionScorers`` ([{emotionType, scoreGraph, trackDelta}]), ``flatScore``,
        ``repetitionPenalty`` and ``runningPenalty``.
        """
        from brain.nodes.choosers import ScoreSpec

        keys = ("emotionScorers", "flatScore", "repetitionPenalty", "runningPenalty")
        block: Mapping[str, Any] = entry.scoring if entry.scoring else {
            k: behavior.param(k) for k in keys if behavior.param(k) is not None}
        label = f"activity {activity_id!r}: behaviour {entry.behavior_id!r}"
        emotions: list[tuple[str, Graph]] = []
        raw = block.get("emotionScorers") or []
        if not isinstance(raw, list):
            self.issues.warn(loc, path, f"{label}: emotionScorers: expected a list, got {_repr(raw)}; skipped")
            return None
        for i, item in enumerate(raw):
            emotion = item.get("emotionType") if isinstance(item, Mapping) else None
            if not isinstance(emotion, str):
                self.issues.warn(loc, path, f"{label}: emotionScorers[{i}]: expected {{emotionType, scoreGraph}}, "
                                 f"got {_repr(item)}; skipped")
                return None
            if self.emotion_types is not None and emotion not in self.emotion_types:
                self.issues.warn(loc, path, f"{label}: emotionScorers[{i}]: unknown emotion type {emotion!r}"
                                 f"{_suggest(emotion, self.emotion_types)}; skipped")
                return None
            graph = self._resource_graph(item.get("scoreGraph"), loc, path, f"{label}: emotionScorers[{i}].scoreGraph")
            if graph is None:
                if item.get("scoreGraph") is None:
                    self.issues.warn(loc, path, f"{label}: emotionScorers[{i}]: missing scoreGraph; skipped")
                return None
            if item.get("trackDelta"):
                self.issues.warn(loc, path, f"{label}: emotionScorers[{i}]: trackDelta is not supported; the "
                                 "emotion's value is scored instead")
            emotions.append((emotion, graph))
        flat = block.get("flatScore")
        if flat is not None and (isinstance(flat, bool) or not isinstance(flat, (int, float))):
            self.issues.warn(loc, path, f"{label}: flatScore: expected a number, got {_repr(flat)}; skipped")
            return None
        if not emotions and flat is None:
            self.issues.warn(loc, path, f"{label} has no score (emotionScorers or flatScore); a Scoring chooser "
                             "never picks it, so it is skipped")
            return None
        return ScoreSpec(
            tuple(emotions), float(flat) if flat is not None and not emotions else None,
            repetition_penalty=self._resource_graph(block.get("repetitionPenalty"), loc, path,
                                                    f"{label}: repetitionPenalty"),
            running_penalty=self._resource_graph(block.get("runningPenalty"), loc, path, f"{label}: runningPenalty"),
        )

    # -- reactions

    def reactions(self) -> list[Reaction]:
        raw = self.doc.get("reactions")
        if raw is None:
            return []
        if not isinstance(raw, LMap):
            self.issues.add(self.doc.at("reactions"), "reactions", f"expected a mapping of trigger: reaction, "
                            f"got {_repr(raw)}")
            return []
        out = []
        for trigger, entry in raw.items():
            reaction = self._reaction(str(trigger), entry, raw.at(trigger), f"reactions.{trigger}")
            if reaction is not None:
                out.append(reaction)
        out.sort(key=lambda r: -r.priority)
        return out

    def _reaction(self, trigger: str, entry: Any, loc: Loc, path: str) -> Reaction | None:
        if isinstance(entry, str):
            spec = LMap(loc)
            spec.put("behavior", entry, loc)
            entry = spec
        if entry is None:
            entry = LMap(loc)
        if not isinstance(entry, LMap):
            self.issues.add(loc, path, f"expected a behaviour ID or a mapping, got {_repr(entry)}")
            return None
        for key in entry:
            if key not in REACTION_KEYS:
                self.issues.add(entry.at(key), f"{path}.{key}", f"unknown key{_suggest(key, REACTION_KEYS)}")
        defaults = self.ctx.resources.reactions_for(trigger) if self.ctx.resources is not None else []
        resume_default = bool(defaults[0].should_resume_last) if defaults and defaults[0].should_resume_last else False
        priority, resume = 0, resume_default
        try:
            if "priority" in entry:
                priority = coerce(Param("int"), entry["priority"])
        except ParamError as exc:
            self.issues.add(entry.at("priority"), f"{path}.priority", str(exc))
        try:
            if "shouldResumeLast" in entry:
                resume = coerce(Param("bool"), entry["shouldResumeLast"])
        except ParamError as exc:
            self.issues.add(entry.at("shouldResumeLast"), f"{path}.shouldResumeLast", str(exc))
        kind, value = REACTION_EVENTS.get(trigger, (None, None))
        event = entry.get("event")
        if event is not None:
            if not isinstance(event, LMap) or not isinstance(event.get("kind"), str) \
                    or not isinstance(event.get("value"), (bool, str, type(None))):
                self.issues.add(entry.at("event"), f"{path}.event", f"expected {{kind: <event kind>, value: "
                                f"true|false|null|<name>}}, got {_repr(event)}")
            else:
                kind = event["kind"]
                value = event.get("value")
        if kind is None:
            self.issues.warn(loc, path, f"no robot event fires reaction trigger {trigger!r}; give `event: {{kind: …}}`"
                             f"{_suggest(trigger, REACTION_EVENTS)}")
        elif kind not in EVENT_KINDS:
            self.issues.add(entry.at("event"), f"{path}.event.kind", f"unknown robot event kind {kind!r}"
                            f"{_suggest(kind, EVENT_KINDS)}")
            return None
        if "tree" in entry:
            node = self.build(entry["tree"], entry.at("tree"), f"{path}.tree")[0]
        elif any(k in entry for k in ("behavior", "use", "type")):
            node_spec = LMap(entry.loc)
            for k in ("behavior", "use", "type", "params", "id", "name"):
                if k in entry:
                    node_spec.put(k, entry[k], entry.at(k))
            node = self.build(node_spec, entry.loc, path)[0]
        elif defaults:
            node = self.behavior_node(defaults[0].behavior_id, loc, path)
        else:
            self.issues.add(loc, path, f"no behaviour for reaction {trigger!r}: give behavior, use or tree "
                            "(the resource set maps none)")
            return None
        if node is None:
            return None
        return Reaction(trigger, node, int(priority), bool(resume), kind, value, loc.file, loc.line)

    # -- mood

    def mood(self) -> MoodOverrides:
        from brain.mood import DecayGraph, MoodConfigError

        out = MoodOverrides()
        raw = self.doc.get("mood")
        if raw is None:
            return out
        if not isinstance(raw, LMap):
            self.issues.add(self.doc.at("mood"), "mood", f"expected a mapping, got {_repr(raw)}")
            return out
        raw = self.resolve(raw, self.doc.at("mood"), "mood")
        for key in raw:
            if key not in ("initial", "ranges", "decay"):
                hint = _suggest(key, ["initial", "ranges", "decay"])
                self.issues.add(raw.at(key), f"mood.{key}", f"unknown key{hint}")
        for section in ("initial", "ranges", "decay"):
            block = raw.get(section)
            if block is None:
                continue
            if not isinstance(block, LMap):
                self.issues.add(raw.at(section), f"mood.{section}", f"expected a mapping of emotion type: value, "
                                f"got {_repr(block)}")
                continue
            for emotion, value in block.items():
                path, loc = f"mood.{section}.{emotion}", block.at(emotion)
                is_default = section == "decay" and emotion == "default"
                if self.emotion_types is not None and emotion not in self.emotion_types and not is_default:
                    self.issues.add(loc, path, f"unknown emotion type {emotion!r}"
                                    f"{_suggest(str(emotion), self.emotion_types)}")
                    continue
                try:
                    if section == "initial":
                        number = coerce(Param("number"), value)
                        if not -1.0 <= number <= 1.0:
                            raise ParamError(f"expected a value in [-1, 1], got {number:g}")
                        out.initial[str(emotion)] = number
                    elif section == "ranges":
                        low, high = coerce(Param("range"), value)
                        if low < -1.0 or high > 1.0:
                            raise ParamError(f"expected a range inside [-1, 1], got [{low:g}, {high:g}]")
                        out.ranges[str(emotion)] = (low, high)
                    else:
                        kind = "TimeRatio"
                        points = value
                        if isinstance(value, Mapping) and "graphType" in value:
                            kind = value["graphType"]
                            points = value.get("nodes")
                        graph: Graph = coerce(Param("graph"), points)
                        out.decay[str(emotion)] = DecayGraph.checked(kind, graph, path)
                except ParamError as exc:
                    self.issues.add(loc, f"{path}{exc.path}", str(exc))
                except MoodConfigError as exc:
                    self.issues.add(loc, path, str(exc).removeprefix(f"{path}: ").removeprefix(path))
        return out


def _default_name(ntype: NodeType, kwargs: Mapping[str, Any]) -> str:
    """A readable node label: the type, plus its first parameter's value when it has one."""
    for key, param in ntype.params.items():
        if key in kwargs and param.required:
            value = kwargs[key]
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
            return f"{ntype.name} {shown}"
    if ntype.name in ("sequence", "selector") and "memory" in kwargs:
        default = ntype.params["memory"].default
        if kwargs["memory"] != default:
            return f"{ntype.name} (memory {'on' if kwargs['memory'] else 'off'})"
    return ntype.name


# ----------------------------------------------------------------------------- entry points


def _parameters(doc: LMap, issues: _Issues, given: Mapping[str, Any] | None) -> dict[str, Any]:
    raw = doc.get("parameters")
    params: dict[str, Any] = {}
    if raw is not None:
        if not isinstance(raw, LMap):
            issues.add(doc.at("parameters"), "parameters", f"expected a mapping of name: default, got {_repr(raw)}")
        else:
            for k, v in raw.items():
                if not isinstance(k, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
                    issues.add(raw.at(k), f"parameters.{k}", "a parameter name is letters, digits and _")
                    continue
                params[k] = _plain(v)
    for k, v in (given or {}).items():
        if k not in params:
            issues.add(Loc(doc.loc.file), f"parameters.{k}", f"no such parameter in the personality"
                       f"{_suggest(k, params)}")
        params[k] = v
    return params


def _build_personality(path: Path, ctx: BrainContext, parameters: Mapping[str, Any] | None,
                       issues: _Issues) -> Personality | None:
    path = Path(path)
    doc = _Assembler(issues).read(path)
    if doc is None:
        return None
    params = _parameters(doc, issues, parameters)
    builder = _Builder(doc, ctx, issues, params)
    root = None
    if "root" not in doc:
        issues.add(Loc(_display(path), 1), "root", "missing: a personality needs a root node")
    else:
        root = builder.build(doc["root"], doc.at("root"), "root")[0]
    # check every subtree and activity, even unused ones
    for name in builder.subtrees:
        builder.build(builder.subtrees[name], builder.subtrees.at(name), f"subtrees.{name}", (name,))
    for name in builder.activities:
        builder.activity(name, (name,))
    reactions = builder.reactions()
    mood = builder.mood()
    title = doc.get("name")
    if title is not None and not isinstance(title, str):
        issues.add(doc.at("name"), "name", f"expected a string, got {_repr(title)}")
        title = None
    if root is None or issues.errors:
        return None
    return Personality(
        name=title or path.stem, path=path, root=root, reactions=reactions, mood=mood, parameters=params,
        nodes=builder.nodes, subtrees=tuple(builder.subtrees), activities=tuple(builder.activities),
        issues=[i for i in issues.items if i.severity < Severity.ERROR],
    )


def load_personality(path: Path | str, ctx: BrainContext, *, parameters: Mapping[str, Any] | None = None
                     ) -> Personality:
    """Load, validate and build a personality for one robot's context.

    ``parameters`` overrides the file's parameter defaults. Raises :class:`PersonalityError`
    listing every problem (file, line, key path, message); warnings are kept in
    ``Personality.issues`` and logged.
    """
    issues = _Issues()
    personality = _build_personality(Path(path), ctx, parameters, issues)
    if personality is None:
        raise PersonalityError(issues.items)
    for issue in personality.issues:
        log.warning("%s", format_issue(issue))
    return personality


def context_for_check(resource_set: Any = None) -> BrainContext:
    """An offline context for validating or displaying a personality: no robot, the resource set's mood."""
    from brain.mood import DEFAULT_CONFIG, EmotionEvent, Mood, MoodConfig

    mood = None
    if resource_set is not None and getattr(resource_set, "mood", None) is not None:
        try:
            config = MoodConfig.from_record(resource_set.mood)
            events = [EmotionEvent.from_record(e) for e in resource_set.emotion_events.values()]
            mood = Mood(config, events)
        except Exception as exc:  # a broken mood config is reported by the resource checker
            log.info("mood not available for checking emotion names: %s", exc)
    if mood is None:
        mood = Mood(DEFAULT_CONFIG)
    return BrainContext(robot=None, mood=mood, resources=resource_set)


def check_personality(path: Path | str, resource_set: Any = None) -> list[Issue]:
    """Every problem of a personality as :class:`brain.assets.Issue` records (errors and warnings)."""
    issues = _Issues()
    _build_personality(Path(path), context_for_check(resource_set), None, issues)
    return issues.items


def iter_tree(root: Behaviour) -> Iterator[Behaviour]:
    """Every node under ``root``, parents first."""
    yield root
    children = root.children if not isinstance(root, Decorator) else [root.decorated]
    for child in children:
        yield from iter_tree(child)
