"""Declared parameters: what a node type or a behaviour class takes, checked in one place.

A :class:`Param` says what one parameter is (its kind, default, range, other spellings and a
one-line doc); :func:`coerce` checks a value against it and returns it in the form the builder
takes. The node library (:mod:`brain.nodes.registry`) and Cozmo's behaviour classes
(:mod:`brain.nodes.behavior_class`) both declare their parameters with it, so the personality
loader, ``cozmo-brain check``, the format reference and the dashboard read one declaration.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from brain.graph import Graph, GraphError
from brain.rhythm import format_clock, parse_clock

from .choosers import ScoreSpec
from .lights import parse_color

__all__ = ["Param", "ParamError", "coerce", "describe_kind"]


class ParamError(ValueError):
    """A parameter value does not fit its declaration; ``path`` is the sub-path inside the value."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.path = path


@dataclass(frozen=True)
class Param:
    """One parameter of a node type or a behaviour class.

    ``kind`` is one of: number, int, bool, str, str_list (a string or a list of them),
    triggers (animation triggers: a string, a list of them, or ``{animTrigger: …}`` objects as
    some of Anki's files write them), number_list, range (a [low, high] pair), graph
    ([[x, y], …]), colors (1, 3 or 5 colours), score (a scoring block), bool_or_null,
    event_value (true, false, null or a name such as an orientation), time (a time of day,
    ``HH:MM``), any. ``minimum`` and ``maximum`` bound numbers; ``aliases`` are other
    spellings a file may use for the same parameter (behaviour files compare them without
    regard to case).
    """

    kind: str
    required: bool = False
    default: Any = None
    doc: str = ""
    minimum: float | None = None
    choices: tuple[str, ...] | None = None
    maximum: float | None = None
    aliases: tuple[str, ...] = ()


def _repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


#: YAML reads a bare yes, no, on or off as true or false: said where a name was expected.
_BARE_WORD = " (YAML reads a bare on, off, yes or no as true or false: put the name in quotes)"


def _unquoted(value: Any) -> str:
    """The hint for a boolean where a string was expected, else nothing."""
    return _BARE_WORD if isinstance(value, bool) else ""


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    for cls, name in ((bool, "a boolean"), (Mapping, "a mapping"), (list, "a list"), (str, "a string")):
        if isinstance(value, cls):
            return name
    return type(value).__name__


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ParamError(f"expected a number, got {_repr(value)}")
    return float(value)


def _graph(value: Any) -> Graph:
    if isinstance(value, Mapping) and "nodes" in value:
        try:
            return Graph.from_nodes(list(value["nodes"]))
        except GraphError as exc:
            raise ParamError(f"expected a graph: {exc}") from None
    if not isinstance(value, list) or not value:
        raise ParamError(f"expected a graph as a list of [x, y] points, got {_repr(value)}")
    points = []
    for i, point in enumerate(value):
        if not isinstance(point, list) or len(point) != 2:
            raise ParamError(f"expected an [x, y] point, got {_repr(point)}", f"[{i}]")
        try:
            points.append((_number(point[0]), _number(point[1])))
        except ParamError as exc:
            raise ParamError(str(exc), f"[{i}]") from None
    try:
        return Graph(points)
    except GraphError as exc:
        raise ParamError(str(exc)) from None


def _score(value: Any) -> ScoreSpec:
    if not isinstance(value, Mapping):
        raise ParamError(f"expected a mapping with emotions and/or flat_score, got {_type_name(value)}")
    unknown = set(value) - {"emotions", "flat_score", "repetition_penalty"}
    if unknown:
        raise ParamError(f"unknown key {sorted(unknown)[0]!r}; expected emotions, flat_score, repetition_penalty",
                         f".{sorted(unknown)[0]}")
    emotions: list[tuple[str, Graph]] = []
    raw = value.get("emotions", {})
    if not isinstance(raw, Mapping):
        raise ParamError(f"expected a mapping of emotion type to graph, got {_type_name(raw)}", ".emotions")
    for emotion, graph in raw.items():
        try:
            emotions.append((str(emotion), _graph(graph)))
        except ParamError as exc:
            raise ParamError(str(exc), f".emotions.{emotion}{exc.path}") from None
    flat = value.get("flat_score")
    if flat is not None:
        try:
            flat = _number(flat)
        except ParamError as exc:
            raise ParamError(str(exc), ".flat_score") from None
    if not emotions and flat is None:
        raise ParamError("a score needs emotions or a flat_score")
    penalty = None
    if value.get("repetition_penalty") is not None:
        try:
            penalty = _graph(value["repetition_penalty"])
        except ParamError as exc:
            raise ParamError(str(exc), f".repetition_penalty{exc.path}") from None
    return ScoreSpec(tuple(emotions), flat, penalty)


def _triggers(value: Any) -> list[str]:
    """Animation triggers as behaviour files write them: a name, names, or ``{animTrigger: name}`` objects."""
    items = [value] if isinstance(value, (str, Mapping)) else value
    if not isinstance(items, list):
        raise ParamError(f"expected an animation trigger or a list of them, got {_repr(value)}")
    out = []
    for i, item in enumerate(items):
        if isinstance(item, Mapping):
            item = item.get("animTrigger") or item.get("trigger")
        if not isinstance(item, str) or not item:
            raise ParamError(f"expected an animation trigger name, got {_repr(items[i])}", f"[{i}]")
        out.append(item)
    return out


def coerce(param: Param, value: Any) -> Any:
    """Check ``value`` against ``param`` and return it in the form the builder takes."""
    kind = param.kind
    if kind == "any":
        return value
    if kind == "number" or kind == "int":
        number = _number(value)
        if kind == "int":
            if number != int(number):
                raise ParamError(f"expected a whole number, got {_repr(value)}")
            number = int(number)
        if param.minimum is not None and number < param.minimum:
            raise ParamError(f"expected a number >= {param.minimum:g}, got {_repr(value)}")
        if param.maximum is not None and number > param.maximum:
            raise ParamError(f"expected a number <= {param.maximum:g}, got {_repr(value)}")
        return number
    if kind == "bool":
        if not isinstance(value, bool):
            raise ParamError(f"expected true or false, got {_repr(value)}")
        return value
    if kind == "event_value":
        if value is not None and not isinstance(value, (bool, str)):
            raise ParamError(f"expected true, false, null or a name, got {_repr(value)}")
        return value
    if kind == "bool_or_null":
        if value is not None and not isinstance(value, bool):
            raise ParamError(f"expected true, false or null, got {_repr(value)}")
        return value
    if kind == "str":
        if not isinstance(value, str) or not value:
            raise ParamError(f"expected a non-empty string, got {_repr(value)}{_unquoted(value)}")
        if param.choices is not None and value not in param.choices:
            raise ParamError(f"expected one of {', '.join(param.choices)}, got {_repr(value)}")
        return value
    if kind == "str_list":
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not items:
            raise ParamError(f"expected a string or a non-empty list of strings, got {_repr(value)}")
        for i, item in enumerate(items):
            if not isinstance(item, str) or not item:
                raise ParamError(f"expected a string, got {_repr(item)}{_unquoted(item)}", f"[{i}]")
            if param.choices is not None and item not in param.choices:
                raise ParamError(f"expected one of {', '.join(param.choices)}, got {_repr(item)}", f"[{i}]")
        return list(items)
    if kind == "triggers":
        return _triggers(value)
    if kind == "number_list":
        if not isinstance(value, list):
            raise ParamError(f"expected a list of numbers, got {_repr(value)}")
        out = []
        for i, item in enumerate(value):
            try:
                out.append(_number(item))
            except ParamError as exc:
                raise ParamError(str(exc), f"[{i}]") from None
        return out
    if kind == "range":
        if not isinstance(value, list) or len(value) != 2:
            raise ParamError(f"expected a [low, high] pair, got {_repr(value)}")
        low, high = (_number(v) for v in value)
        if high < low:
            raise ParamError(f"expected low <= high, got {_repr(value)}")
        return (low, high)
    if kind == "graph":
        return _graph(value)
    if kind == "time":
        try:
            return format_clock(parse_clock(value))
        except ValueError as exc:
            raise ParamError(str(exc)) from None
    if kind == "score":
        return _score(value)
    if kind == "colors":
        # A bare off (a colour name) reaches here as false: it can mean nothing else in a colour list.
        items = ["off" if item is False else item for item in (value if isinstance(value, list) else [value])]
        if len(items) not in (1, 3, 5):
            raise ParamError(f"expected 1, 3 or 5 colours, got {len(items)}")
        for i, item in enumerate(items):
            try:
                parse_color(item)
            except ValueError as exc:
                raise ParamError(f"{exc}{_unquoted(item)}", f"[{i}]" if isinstance(value, list) else "") from None
        return items
    raise AssertionError(f"unknown parameter kind {kind!r}")


_KIND_WORDS = {
    "event_value": "true, false, null or a name",
    "triggers": "animation triggers",
    "str_list": "str_list",
}


def describe_kind(param: Param) -> str:
    """The parameter's kind, range and default as the format reference writes them."""
    if param.choices and len(param.choices) > 6:
        head = f"{_KIND_WORDS.get(param.kind, param.kind)}, one of {len(param.choices)} names"
    elif param.kind == "str" and param.choices:
        head = " or ".join(param.choices) if len(param.choices) <= 3 else ", ".join(param.choices)
    else:
        head = _KIND_WORDS.get(param.kind, param.kind)
    parts = [head]
    if param.minimum is not None and param.maximum is not None:
        parts.append(f"{param.minimum:g}…{param.maximum:g}")
    elif param.minimum is not None and param.minimum != 0:
        parts.append(f">= {param.minimum:g}")
    elif param.maximum is not None:
        parts.append(f"<= {param.maximum:g}")
    if param.required:
        parts.append("required")
    elif param.default is not None:
        parts.append(f"default {_shown(param.default)}")
    return ", ".join(parts)


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    if isinstance(value, list):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return str(value)
