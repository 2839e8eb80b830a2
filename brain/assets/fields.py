"""Typed field access for parsed JSON, with the field's path in every error.

Loaders read records through these helpers so that a wrong type anywhere produces the
same precise message: ``Animations[3].Weight: expected number, got string``. They raise
:class:`FieldError`; the loader turns that into an :class:`~brain.assets.issues.Issue`
(adding file and line) and drops the record, so nothing half-read reaches the runtime.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from brain.graph import Graph, GraphError

from .issues import format_path, json_type

__all__ = [
    "FieldError",
    "JsonPath",
    "MISSING",
    "boolean",
    "expect_list",
    "expect_object",
    "graph",
    "number",
    "optional_graph",
    "string",
    "string_list",
]

JsonPath = tuple[str | int, ...]
T = TypeVar("T")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


#: Default meaning "the field is required".
MISSING: Any = _Missing()


class FieldError(ValueError):
    """A field is missing or has the wrong type; ``path`` locates it inside the file."""

    def __init__(self, path: JsonPath, message: str) -> None:
        super().__init__(f"{format_path(path)}: {message}" if path else message)
        self.path = path
        self.message = message


def expect_object(value: object, path: JsonPath) -> dict[str, Any]:
    """*value* itself must be a JSON object."""
    if type(value) is not dict:
        raise FieldError(path, f"expected object, got {json_type(value)}")
    return value


def expect_list(value: object, path: JsonPath) -> list[Any]:
    """*value* itself must be a JSON array."""
    if type(value) is not list:
        raise FieldError(path, f"expected array, got {json_type(value)}")
    return value


def _absent(key: str, path: JsonPath, default: Any) -> Any:
    """The value for an absent *key*: *default*, or an error when the field is required."""
    if default is MISSING:
        raise FieldError(path + (key,), "missing required field")
    return default


_ABSENT = object()


def string(obj: Mapping[str, Any], key: str, path: JsonPath, default: Any = MISSING) -> Any:
    """``obj[key]`` as a string (or *default* when absent; required when no default)."""
    value = obj.get(key, _ABSENT)
    if value is _ABSENT:
        return _absent(key, path, default)
    if type(value) is not str:
        raise FieldError(path + (key,), f"expected string, got {json_type(value)}")
    return value


def number(obj: Mapping[str, Any], key: str, path: JsonPath, default: Any = MISSING) -> Any:
    """``obj[key]`` as a float; booleans are not numbers here."""
    value = obj.get(key, _ABSENT)
    if value is _ABSENT:
        return _absent(key, path, default)
    kind = type(value)
    if kind is float:
        return value
    if kind is int:
        return float(value)
    raise FieldError(path + (key,), f"expected number, got {json_type(value)}")


def boolean(obj: Mapping[str, Any], key: str, path: JsonPath, default: Any = MISSING) -> Any:
    """``obj[key]`` as a bool."""
    value = obj.get(key, _ABSENT)
    if value is _ABSENT:
        return _absent(key, path, default)
    if type(value) is not bool:
        raise FieldError(path + (key,), f"expected boolean, got {json_type(value)}")
    return value


def string_list(obj: Mapping[str, Any], key: str, path: JsonPath, default: Any = MISSING) -> Any:
    """``obj[key]`` as a tuple of strings."""
    value = obj.get(key, _ABSENT)
    if value is _ABSENT:
        return _absent(key, path, default)
    items = expect_list(value, path + (key,))
    for i, item in enumerate(items):
        if type(item) is not str:
            raise FieldError(path + (key, i), f"expected string, got {json_type(item)}")
    return tuple(items)


def graph(value: object, path: JsonPath, memo: dict[tuple[Any, ...], Graph] | None = None) -> Graph:
    """A ``{"nodes": [{"x", "y"}, …]}`` object as a :class:`Graph`.

    *memo* (one per load, see :class:`~brain.assets.loaders.IssueSink`) shares one
    :class:`Graph` among identical node lists: graphs are immutable, and a resource tree
    repeats the same few curves (repetition penalties, score graphs) hundreds of times.
    """
    obj = expect_object(value, path)
    nodes = obj["nodes"] if "nodes" in obj else _absent("nodes", path, MISSING)
    key = _graph_key(nodes) if memo is not None else None
    if key is not None:
        known = memo.get(key)  # type: ignore[union-attr]
        if known is not None:
            return known
    try:
        built = Graph.from_nodes(nodes)
    except GraphError as exc:
        raise FieldError(path + ("nodes",), str(exc)) from None
    if key is not None:
        memo[key] = built  # type: ignore[index]
    return built


def _graph_key(nodes: object) -> tuple[Any, ...] | None:
    """The node list as a hashable key when it is plain ``{"x": number, "y": number}`` nodes, else None."""
    if type(nodes) is not list:
        return None
    key: list[Any] = []
    for node in nodes:
        if type(node) is not dict or len(node) != 2:
            return None
        x = node.get("x")
        y = node.get("y")
        if (type(x) is not float and type(x) is not int) or (type(y) is not float and type(y) is not int):
            return None  # booleans and the rest go to Graph.from_nodes, for its message
        key.append(x)
        key.append(y)
    return tuple(key)


def optional_graph(
    obj: Mapping[str, Any], key: str, path: JsonPath, memo: dict[tuple[Any, ...], Graph] | None = None
) -> Graph | None:
    """``obj[key]`` as a graph, or None when the key is absent."""
    if key not in obj:
        return None
    return graph(obj[key], path + (key,), memo)
