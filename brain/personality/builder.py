"""The tree builder: an assembled personality document → py_trees nodes, checked as it goes.

A node is written as a node type of the library (``type:``), a Cozmo behaviour (``behavior:``)
or a named subtree or activity (``use:``). The builder checks each one (its keys, its
parameters against the node type's declaration, the names it refers to: emotion types and
events, animation triggers, orientations, simple moods, behaviour IDs and classes) and reports
every problem with its location before giving up on the node. ``$name`` strings are replaced by
the personality's parameters first.

Activities from the resource set are built by :mod:`brain.personality.activities`; reactions and
mood overrides are read by their own modules with this builder's help.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from py_trees.behaviour import Behaviour

from brain.context import BrainContext
from brain.cube_lights import CubeLights
from brain.nodes.behavior_check import key_line
from brain.nodes.behavior_class import BehaviorParamError, BehaviorSpec
from brain.nodes.conditions import ORIENTATION_NAMES
from brain.nodes.lights import PATTERNS as BACKPACK_PATTERNS
from brain.nodes.registry import (
    BACKPACK_PATTERN_PARAMS,
    BEHAVIOR_CLASSES,
    CUBE_LIGHT_PARAMS,
    EMOTION_EVENT_PARAMS,
    EMOTION_TYPE_PARAMS,
    NODE_TYPES,
    TRIGGER_PARAMS,
    NodeType,
    Param,
    ParamError,
    coerce,
)

from .activities import resource_activity
from .behaviors_section import own_behavior, plain_params
from .issues import IssueList
from .located import LList, LMap, Loc, plain, short_repr, suggest

__all__ = ["NODE_KEYS", "SIMPLE_MOODS", "Builder", "default_name"]

#: Keys every node mapping may have besides its own.
NODE_KEYS = ("type", "behavior", "use", "id", "name", "params", "children", "child", "comment")
#: The simple moods ``simple_mood_is`` can ask for.
SIMPLE_MOODS = ("LowStim", "MedStim", "HighStim", "Frustrated")


class Builder:
    """Turns the assembled document into py_trees nodes, validating as it goes.

    ``nodes`` collects the built nodes that have an ``id``; ``subtrees`` and ``activities`` are
    the document's named sections (empty when missing or malformed).
    """

    def __init__(self, doc: LMap, ctx: BrainContext, issues: IssueList, parameters: Mapping[str, Any]) -> None:
        self.doc = doc
        self.ctx = ctx
        self.issues = issues
        self.parameters = dict(parameters)
        self.nodes: dict[str, Behaviour] = {}
        self.subtrees: LMap = self._section("subtrees")
        self.activities: LMap = self._section("activities")
        #: the ``behaviors:`` section: behaviour ID -> its parameters (see behaviors_section)
        self.behaviors: LMap = self._section("behaviors")
        mood = ctx.mood
        self.emotion_types: set[str] | None = set(mood.emotion_types) if mood is not None else None
        resources = ctx.resources
        self.triggers: set[str] | None = None
        if resources is not None and getattr(resources, "anim_triggers", None):
            self.triggers = set(resources.anim_triggers)
        #: the names cube_lights and backpack_lights can play (None: no resource set to ask)
        self.cube_lights: set[str] | None = None
        self.backpack_patterns: set[str] | None = None
        if resources is not None and hasattr(resources, "cube_lights"):
            self.cube_lights = CubeLights.from_resources(None, resources).names()
        if resources is not None and hasattr(resources, "backpack_lights"):
            self.backpack_patterns = set(BACKPACK_PATTERNS) | set(resources.backpack_lights)

    def _section(self, key: str) -> LMap:
        value = self.doc.get(key)
        if value is None:
            return LMap(self.doc.loc)
        if not isinstance(value, LMap):
            self.issues.add(self.doc.at(key), key, f"expected a mapping of name: node, got {short_repr(value)}")
            return LMap(self.doc.loc)
        return value

    # -- parameters ($name references)

    def resolve(self, value: Any, loc: Loc, path: str) -> Any:
        """Replace ``$name`` strings by parameter values, recursively (``$$`` escapes a ``$``)."""
        if isinstance(value, str) and value.startswith("$") and len(value) > 1 and not value.startswith("$$"):
            name = value[1:]
            if name not in self.parameters:
                self.issues.add(loc, path, f"unknown parameter ${name}{suggest(name, self.parameters)}")
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
        """Build one node; returns (node or None on error, the chooser keys found on it).

        ``stack`` names the subtrees being built (to catch a subtree using itself);
        ``child_keys`` are the keys the parent chooser reads on its children (weight, score …).
        """
        if isinstance(spec, str):
            spec_map = LMap(loc)
            spec_map.put("type", spec, loc)
            spec = spec_map
        if not isinstance(spec, LMap):
            self.issues.add(loc, path, "expected a node (a mapping with type, behavior or use), "
                            f"got {short_repr(spec)}")
            return None, {}
        self._check_keys(spec, path, child_keys)
        extras = self._child_extras(spec, path, child_keys)
        heads = [k for k in ("type", "behavior", "use") if k in spec]
        if len(heads) != 1:
            what = "none" if not heads else " and ".join(heads)
            self.issues.add(spec.loc, path, f"a node needs exactly one of type, behavior or use, got {what}")
            return None, extras
        node_id = self._optional_str(spec, "id", path)
        name = self._optional_str(spec, "name", path)
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

    def _check_keys(self, spec: LMap, path: str, child_keys: Mapping[str, Param] | None) -> None:
        allowed = set(NODE_KEYS) | set(child_keys or {})
        for key in spec:
            if key not in allowed:
                hint = suggest(key, allowed)
                if not hint and key in ("weight", "cooldown", "score"):
                    hint = " (only children of weighted_random / scoring take it)"
                self.issues.add(spec.at(key), f"{path}.{key}", f"unknown key{hint}")

    def _child_extras(self, spec: LMap, path: str, child_keys: Mapping[str, Param] | None) -> dict[str, Any]:
        """The keys a chooser reads on this child (weight, cooldown, score), checked and with defaults."""
        extras: dict[str, Any] = {}
        for key, param in (child_keys or {}).items():
            if key in spec:
                try:
                    extras[key] = coerce(param, self.resolve(spec[key], spec.at(key), f"{path}.{key}"))
                except ParamError as exc:
                    self.issues.add(spec.at(key), f"{path}.{key}{exc.path}", str(exc))
                    continue
                if key == "score":
                    self._check_score_emotions(extras[key], spec.at(key), path)
            elif param.required:
                self.issues.add(spec.loc, path, f"missing {key!r} (required on children of this chooser)")
            else:
                extras[key] = param.default
        return extras

    def _check_score_emotions(self, score: Any, loc: Loc, path: str) -> None:
        if self.emotion_types is None:
            return
        for emotion, _graph in score.emotions:
            if emotion not in self.emotion_types:
                self.issues.add(loc, f"{path}.score.emotions.{emotion}",
                                f"unknown emotion type {emotion!r}{suggest(emotion, self.emotion_types)}")

    def _optional_str(self, spec: LMap, key: str, path: str) -> str | None:
        """``spec[key]`` when it is a string; None when absent or (reported) not a string."""
        value = spec.get(key)
        if value is not None and not isinstance(value, str):
            self.issues.add(spec.at(key), f"{path}.{key}", f"expected a string, got {short_repr(value)}")
            return None
        return value

    def _params(self, spec: LMap, path: str) -> LMap:
        params = spec.get("params")
        if params is None:
            return LMap(spec.loc)
        if not isinstance(params, LMap):
            self.issues.add(spec.at("params"), f"{path}.params", f"expected a mapping, got {short_repr(params)}")
            return LMap(spec.loc)
        resolved: LMap = self.resolve(params, spec.at("params"), f"{path}.params")
        return resolved

    def _typed(self, spec: LMap, path: str, stack: tuple[str, ...], name: str | None) -> Behaviour | None:
        type_name = spec["type"]
        if not isinstance(type_name, str) or type_name not in NODE_TYPES:
            hint = suggest(str(type_name), NODE_TYPES)
            if isinstance(type_name, str) and type_name in BEHAVIOR_CLASSES:
                hint = f"; Cozmo behaviours are named with `behavior: {type_name}`"
            self.issues.add(spec.at("type"), f"{path}.type", f"unknown node type {type_name!r}{hint}")
            return None
        ntype = NODE_TYPES[type_name]
        params = self._params(spec, path)
        kwargs = self._check_params(ntype, params, spec, path)
        if kwargs is None:
            return None
        label = name or default_name(ntype, kwargs)
        try:
            if ntype.kind == "composite":
                return self._composite(ntype, spec, path, stack, label, kwargs)
            if ntype.kind == "decorator":
                return self._decorator(ntype, spec, path, stack, label, kwargs)
            for key in ("children", "child"):
                if key in spec:
                    self.issues.add(spec.at(key), f"{path}.{key}", f"{type_name} is a leaf and takes no {key}")
            return ntype.build(label, self.ctx, **kwargs)
        except (ValueError, TypeError, KeyError) as exc:
            self.issues.add(spec.loc, path, f"cannot build {type_name}: {exc}")
            return None

    def _composite(self, ntype: NodeType, spec: LMap, path: str, stack: tuple[str, ...], label: str,
                   kwargs: dict[str, Any]) -> Behaviour | None:
        type_name = ntype.name
        if "child" in spec:
            self.issues.add(spec.at("child"), f"{path}.child", f"{type_name} takes children, not child")
        raw = spec.get("children")
        if not isinstance(raw, LList):
            self.issues.add(spec.at("children") if "children" in spec else spec.loc, f"{path}.children",
                            f"{type_name} needs a list of children, got {short_repr(raw)}")
            return None
        children, extras = [], []
        for i, child_spec in enumerate(raw):
            child, extra = self.build(child_spec, raw.at(i), f"{path}.children[{i}]", stack, ntype.child_keys)
            if child is not None:
                children.append(child)
                extras.append(extra)
        if len(children) != len(raw):
            return None
        if not children and type_name in ("weighted_random", "scoring"):
            self.issues.add(spec.at("children"), f"{path}.children", "needs at least one child")
            return None
        return ntype.build(label, self.ctx, children=children, child_extras=extras, **kwargs)

    def _decorator(self, ntype: NodeType, spec: LMap, path: str, stack: tuple[str, ...], label: str,
                   kwargs: dict[str, Any]) -> Behaviour | None:
        type_name = ntype.name
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

    def _check_params(self, ntype: NodeType, params: LMap, spec: LMap, path: str) -> dict[str, Any] | None:
        ok = True
        kwargs: dict[str, Any] = {}
        for key, value in params.items():
            key_path = f"{path}.params.{key}"
            if key not in ntype.params:
                expected = ", ".join(ntype.params) or "none"
                self.issues.add(params.at(key), key_path,
                                f"unknown parameter of {ntype.name}{suggest(key, ntype.params)} "
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
        self._check_resource_names(ntype, kwargs, params, path)
        self._check_fixed_names(ntype, kwargs, params, path)
        if ntype.name == "backpack_lights" and ("colors" in kwargs) == ("pattern" in kwargs):
            self.issues.add(params.loc, f"{path}.params", "backpack_lights needs exactly one of colors or pattern")
            return None
        if ntype.name == "random_wait" and kwargs["max"] < kwargs["min"]:
            self.issues.add(params.at("max"), f"{path}.params.max", f"must not be below min ({kwargs['min']:g})")
            return None
        return kwargs

    def _check_resource_names(self, ntype: NodeType, kwargs: dict[str, Any], params: LMap, path: str) -> None:
        """Names the mood and the resource set define: emotion types, emotion events, animation
        triggers, cube light animations and backpack light patterns."""
        key = EMOTION_TYPE_PARAMS.get(ntype.name)
        if key and self.emotion_types is not None and kwargs[key] not in self.emotion_types:
            self.issues.add(params.at(key), f"{path}.params.{key}", f"unknown emotion type {kwargs[key]!r}"
                            f"{suggest(kwargs[key], self.emotion_types)}")
        key = EMOTION_EVENT_PARAMS.get(ntype.name)
        if key and self.ctx.mood is not None and not self.ctx.mood.has_event(kwargs[key]):
            self.issues.warn(params.at(key), f"{path}.params.{key}", f"emotion event {kwargs[key]!r} is not "
                             f"defined{suggest(kwargs[key], self.ctx.mood.events)}")
        key = TRIGGER_PARAMS.get(ntype.name)
        if key and self.triggers is not None:
            names = kwargs[key] if isinstance(kwargs[key], list) else [kwargs[key]]
            for name in names:
                if name not in self.triggers:
                    self.issues.warn(params.at(key), f"{path}.params.{key}", f"animation trigger {name!r} is not "
                                     f"in the resource set's trigger map{suggest(name, self.triggers)}")
        for known, table, what in (
                (self.cube_lights, CUBE_LIGHT_PARAMS, "is neither a cube light trigger nor a cube light file of "
                                                      "the resource set"),
                (self.backpack_patterns, BACKPACK_PATTERN_PARAMS, "is neither a built-in backpack pattern nor a "
                                                                  "backpack light file of the resource set")):
            key = table.get(ntype.name)
            if key and known is not None and kwargs.get(key) is not None and kwargs[key] not in known:
                self.issues.warn(params.at(key), f"{path}.params.{key}", f"{kwargs[key]!r} {what}"
                                 f"{suggest(kwargs[key], known)}")

    def _check_fixed_names(self, ntype: NodeType, kwargs: dict[str, Any], params: LMap, path: str) -> None:
        """Names from a fixed list: orientations and simple moods (unknown orientations are dropped)."""
        if ntype.name == "orientation_is":
            for name in kwargs["orientations"]:
                if name not in ORIENTATION_NAMES:
                    self.issues.add(params.at("orientations"), f"{path}.params.orientations", f"unknown orientation "
                                    f"{name!r}{suggest(name, ORIENTATION_NAMES)} (expected "
                                    f"{', '.join(ORIENTATION_NAMES)})")
                    kwargs["orientations"] = [n for n in kwargs["orientations"] if n in ORIENTATION_NAMES] \
                        or ["upright"]
        if ntype.name == "simple_mood_is":
            for mood in kwargs["moods"]:
                if mood not in SIMPLE_MOODS:
                    self.issues.add(params.at("moods"), f"{path}.params.moods", f"unknown simple mood {mood!r}"
                                    f"{suggest(mood, SIMPLE_MOODS)} (expected {', '.join(SIMPLE_MOODS)})")

    def _use(self, spec: LMap, path: str, stack: tuple[str, ...]) -> Behaviour | None:
        name = spec["use"]
        for key in ("params", "children", "child"):
            if key in spec:
                self.issues.add(spec.at(key), f"{path}.{key}", f"`use` takes no {key} (override the subtree's "
                                "parameters with $parameters or overrides)")
        if not isinstance(name, str):
            self.issues.add(spec.at("use"), f"{path}.use", f"expected a subtree name, got {short_repr(name)}")
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
                        f"{suggest(name, [*self.subtrees, *self.activities])}")
        return None

    def _behavior(self, spec: LMap, path: str) -> Behaviour | None:
        behavior_id = spec["behavior"]
        loc = spec.at("behavior")
        if not isinstance(behavior_id, str):
            self.issues.add(loc, f"{path}.behavior", f"expected a behaviour ID, got {short_repr(behavior_id)}")
            return None
        for key in ("children", "child"):
            if key in spec:
                self.issues.add(spec.at(key), f"{path}.{key}", f"a behaviour takes no {key}")
        located = self._params(spec, path)
        return self.behavior_node(behavior_id, loc, f"{path}.behavior", plain(located), located, f"{path}.params")

    def behavior_node(self, behavior_id: str, loc: Loc, path: str, extra: Mapping[str, Any] | None = None,
                      extra_locs: LMap | None = None, extra_path: str = "") -> Behaviour | None:
        """A Cozmo behaviour by ID: the personality's ``behaviors:`` entry, the resource set's
        behaviour, or a behaviour class used by name (with YAML params).

        Its parameters are checked against the class's declaration: a bad one is reported where
        it was written, the node's ``params`` (``extra``, located by ``extra_locs``), the
        ``behaviors:`` entry, or the behaviour's JSON file (file, line and key).
        """
        resources = self.ctx.resources
        layers: list[tuple[Mapping[str, Any], LMap | None, str, Loc]] = []
        if extra:
            layers.append((extra, extra_locs, extra_path, loc))
        own = own_behavior(self, behavior_id)
        if own is None and behavior_id in self.behaviors:
            return None  # a broken entry (reported)
        base: str | None = behavior_id
        class_name: str | None = None
        if own is not None:
            layers.append((plain_params(own), own.params, own.path, own.loc))
            base, class_name = own.base, own.class_name
        record = resources.behavior(base) if resources is not None and base is not None else None
        params: dict[str, Any] = dict(getattr(record, "params", {}) or {}) if record is not None else {}
        for layer, _, _, _ in reversed(layers):
            params.update(layer)
        if record is not None:
            spec = BehaviorSpec(class_name or record.behavior_class, behavior_id, params)
        elif class_name is not None:
            spec = BehaviorSpec(class_name, behavior_id, params)
        elif base is not None and base in BEHAVIOR_CLASSES:
            spec = BehaviorSpec(base, behavior_id, params)
        else:
            known = [*BEHAVIOR_CLASSES, *self.behaviors]
            if resources is not None:
                known += list(getattr(resources, "behaviors", {}))
            where = "" if resources is not None else " (no resource set is loaded: only behaviour classes can be used)"
            self.issues.add(loc, path, f"unknown behaviour {behavior_id!r}{suggest(behavior_id, known)}{where}; "
                            "a behaviour of the personality's own is written under `behaviors:` with `class:`")
            return None
        factory = BEHAVIOR_CLASSES.get(spec.behavior_class)
        if factory is None:
            self.issues.add(loc, path, f"behaviour {behavior_id!r} has class {spec.behavior_class!r}, which the "
                            f"node library does not implement (implemented: {', '.join(sorted(BEHAVIOR_CLASSES))})")
            return None
        if layers:
            ignored = set(factory.resolve(spec.params).ignored)
            known = [n for name in factory.params for n in factory.keys(name)]
            for layer, locs, layer_path, layer_loc in layers:
                for key in (k for k in layer if k in ignored):
                    self.issues.warn(locs.at(key) if locs is not None else layer_loc, f"{layer_path}.{key}",
                                     f"{spec.behavior_class} does not read {key!r}{suggest(str(key), known)}; ignored")
        try:
            return factory(self.ctx, spec)
        except BehaviorParamError as exc:
            top = re.split(r"[.\[]", exc.key, maxsplit=1)[0]
            what = f"behaviour {behavior_id!r} ({spec.behavior_class}): {exc.reason}"
            written = next((x for x in layers if top in x[0]), None)
            if written is not None:
                layer, locs, layer_path, layer_loc = written
                self.issues.add(locs.at(top) if locs is not None else layer_loc, f"{layer_path}.{exc.key}", what)
            elif record is not None:
                file = record.origin.path
                self.issues.add(Loc(file, key_line(file, exc.key)), exc.key, f"{what} (used at {path})")
            else:
                self.issues.add(loc, path, f"{what}: {exc.key}")
            return None
        except (ValueError, TypeError) as exc:
            self.issues.add(loc, path, f"cannot build behaviour {behavior_id!r}: {exc}")
            return None

    # -- activities

    def activity(self, name: str, stack: tuple[str, ...]) -> Behaviour | None:
        """The node of activity ``name``: a resource set's activity, or a tree written in place."""
        spec = self.activities[name]
        loc = self.activities.at(name)
        path = f"activities.{name}"
        if isinstance(spec, LMap) and "activity" in spec:
            return resource_activity(self, spec, path)
        return self.build(spec, loc, path, stack)[0]


def default_name(ntype: NodeType, kwargs: Mapping[str, Any]) -> str:
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
