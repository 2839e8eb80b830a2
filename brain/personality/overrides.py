"""``overrides:``: change single values of an assembled personality by path.

A path starts at a top-level key (``root.children[1].params.seconds``) or at a node's ``id``
(``nap.params.seconds``) and walks mapping keys and list indices. Only existing values can be
replaced, except that a node without ``params`` gets the mapping created for it. A path that
does not lead anywhere is reported with the part that exists.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from .issues import IssueList
from .located import LList, LMap, Loc, short_repr, suggest

__all__ = ["TOP_KEYS", "all_ids", "apply_overrides", "find_id", "parse_path"]

#: Top-level keys of a personality file.
TOP_KEYS = ("name", "description", "extends", "include", "parameters", "overrides", "mood", "schedule",
            "arousal", "subtrees", "activities", "behaviors", "reactions", "root")
#: The sections whose nodes an ``id`` can name.
_ID_SECTIONS = ("root", "subtrees", "activities", "reactions")

_PATH_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def apply_overrides(doc: LMap, overrides: Any, issues: IssueList) -> None:
    """Set each ``path: value`` of ``overrides`` in ``doc``, reporting paths that lead nowhere."""
    if not isinstance(overrides, LMap):
        issues.add(doc.at("overrides"), "overrides", f"expected a mapping of path: value, "
                   f"got {short_repr(overrides)}")
        return
    for raw_path, value in overrides.items():
        loc = overrides.at(raw_path)
        label = f"overrides.{raw_path}"
        target = _start(doc, str(raw_path), loc, label, issues)
        if target is not None:
            container, steps, walked = target
            _walk_and_set(container, steps, walked, value, loc, label, issues)


def _start(doc: LMap, raw_path: str, loc: Loc, label: str, issues: IssueList
           ) -> tuple[Any, list[str | int], str] | None:
    """Where a path starts: (container, the steps from it, the path shown so far), or None (reported)."""
    tokens = parse_path(raw_path)
    if not tokens:
        issues.add(loc, label, "expected a path such as root.children[1].params.seconds or "
                   "<node id>.params.seconds")
        return None
    head = tokens[0]
    if isinstance(head, str) and head in TOP_KEYS:
        return doc, tokens, ""
    node = find_id(doc, str(head))
    if node is None:
        ids = sorted(all_ids(doc))
        issues.add(loc, label, f"no top-level key or node id {head!r}{suggest(str(head), ids)}")
        return None
    if len(tokens) == 1:
        issues.add(loc, label, "an id override needs a key after the id, e.g. <id>.params.seconds")
        return None
    return node, tokens[1:], str(head)


def _walk_and_set(container: Any, steps: list[str | int], walked: str, value: Any, loc: Loc, label: str,
                  issues: IssueList) -> None:
    for i, step in enumerate(steps):
        shown = walked + (f"[{step}]" if isinstance(step, int) else (f".{step}" if walked else step))
        following = steps[i + 1] if i + 1 < len(steps) else None
        problem = _prepare_step(container, step, following, loc, walked, shown)
        if problem is not None:
            issues.add(loc, label, problem)
            return
        if following is None:
            if isinstance(step, int):
                container[step] = value
                container.item_locs[step] = loc
            else:
                container.put(step, value, loc)
            return
        container = container[step]
        walked = shown


def _prepare_step(container: Any, step: str | int, following: str | int | None, loc: Loc, walked: str,
                  shown: str) -> str | None:
    """Why ``step`` cannot be taken from ``container`` (None: it can). A missing ``params`` mapping
    on the way to one of its keys is created, so a node's parameter can be set where none were given."""
    if isinstance(step, int):
        if not isinstance(container, LList) or not 0 <= step < len(container):
            return f"{shown} does not exist"
        return None
    if not isinstance(container, LMap):
        return f"{walked or 'the document'} is not a mapping"
    if following is not None and step not in container:
        if not (isinstance(following, str) and step == "params"):
            return f"{shown} does not exist"
        container.put(step, LMap(loc), loc)
    return None


def parse_path(text: str) -> list[str | int]:
    """``a.b[2].c`` as ``['a', 'b', 2, 'c']``; an empty list when the text is not such a path."""
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


def find_id(doc: LMap, node_id: str) -> LMap | None:
    """The first node (in root, subtrees, activities, reactions) with ``id: node_id``."""
    for key in _ID_SECTIONS:
        for m in _walk_maps(doc.get(key)):
            if m.get("id") == node_id:
                return m
    return None


def all_ids(doc: LMap) -> set[str]:
    """Every node ``id`` of the document (for suggestions)."""
    out: set[str] = set()
    for key in _ID_SECTIONS:
        out.update(str(m["id"]) for m in _walk_maps(doc.get(key)) if isinstance(m.get("id"), str))
    return out
