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


def graph(value: object, path: JsonPath) -> Graph:
    """A ``{"nodes": [{"x", "y"}, …]}`` object as a :class:`Graph`."""
    obj = expect_object(value, path)
    nodes = obj["nodes"] if "nodes" in obj else _absent("nodes", path, MISSING)
    try:
        return Graph.from_nodes(nodes)
    except GraphError as exc:
        raise FieldError(path + ("nodes",), str(exc)) from None


def optional_graph(obj: Mapping[str, Any], key: str, path: JsonPath) -> Graph | None:
    """``obj[key]`` as a graph, or None when the key is absent."""
    if key not in obj:
        return None
    return graph(obj[key], path + (key,))
