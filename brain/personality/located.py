"""YAML that remembers where each value was written, so every problem can name its line.

A personality is read with a :class:`yaml.SafeLoader` whose mappings and sequences are
:class:`LMap` and :class:`LList`: plain ``dict`` and ``list`` subclasses that also carry the
:class:`Loc` (file, line) of themselves and of each key or item. Assembly and building keep those
locations as values are merged, overridden and resolved, so ``root.children[2].params.weight``
is reported at the line it came from, even when another file supplied it.

The small text helpers every part of the package uses for messages are here too.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

__all__ = ["LList", "LMap", "Loc", "parse_located", "plain", "short_repr", "suggest"]


@dataclass(frozen=True)
class Loc:
    """Where a value was written."""

    file: str
    line: int | None = None


class LMap(dict[Any, Any]):
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


class LList(list[Any]):
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


# libyaml's parser (PyYAML's C extension, in every wheel PyPI serves) reads a personality about
# seven times faster than the pure-Python one and gives nodes the same line marks; a daemon reads
# its personality twice at start (checked, then built), so that is 60-70 ms of a start here.
_SafeBase: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_SafeBase):
    """A safe loader building located containers; problems it can survive are collected, not raised."""

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

# YAML 1.1 reads ``22:00`` as the base-60 number 1320; YAML 1.2 dropped that, and in a personality
# such a value is always a time of day (``bedtime: 22:00``). Numbers are resolved as in YAML 1.1
# otherwise (0x1f, 1_000, .5, 1e3 …), only without the base-60 forms.
_INT, _FLOAT = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in (_INT, _FLOAT)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(_INT, re.compile(
    r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$"), list("-+0123456789"))
_Loader.add_implicit_resolver(_FLOAT, re.compile(
    r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"), list("-+0123456789."))


def parse_located(text: str, file: str) -> tuple[Any, list[tuple[Loc, str]]]:
    """Parse one YAML document into located values; also returns the problems found on the way
    (duplicate keys, non-scalar keys). Raises :class:`yaml.YAMLError` when the text is not YAML."""
    loader = _Loader(text, file)
    try:
        return loader.get_single_data(), loader.problems
    finally:
        loader.dispose()


def plain(value: Any) -> Any:
    """A located value as plain dicts and lists (for parameters handed to behaviour factories)."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def suggest(name: str, options: Iterable[str]) -> str:
    """``; did you mean 'x'?`` for the options close to ``name``, or an empty string."""
    close = difflib.get_close_matches(str(name), list(options), n=3, cutoff=0.6)
    if not close:
        return ""
    return "; did you mean " + " or ".join(repr(c) for c in close) + "?"


def short_repr(value: Any) -> str:
    """A value as it reads in a message, cut to 60 characters."""
    text = repr(plain(value))
    return text if len(text) <= 60 else text[:57] + "..."
