"""The format reference's tables, written from the declarations.

docs/personality-format.md lists every node type and every Cozmo behaviour class with its
parameters. Those tables are generated here from :data:`~brain.nodes.registry.NODE_TYPES` and
:data:`~brain.nodes.registry.BEHAVIOR_CLASSES` and placed between marker comments in the
document (``<!-- generated: NAME -->`` … ``<!-- end generated -->``), so the document cannot
drift from the code: ``python tools/gen_docs.py`` rewrites them, and a test fails when they are
stale.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .behavior_class import EMOTION_EVENT, TRIGGER_ALIASES, BehaviorClass
from .params import Param, describe_kind
from .registry import BEHAVIOR_CLASSES, NODE_TYPES, NodeType

__all__ = ["SECTIONS", "fill", "sections"]

def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


#: Spellings and docs every behaviour class shares, said once above the table instead of in each row.
_SHARED_ALIASES = (TRIGGER_ALIASES, ("animTriggers", *TRIGGER_ALIASES), EMOTION_EVENT.aliases)
_SHARED_DOCS = ("animation triggers", EMOTION_EVENT.doc)


def _params(params: Mapping[str, Param], with_aliases: bool = False) -> str:
    parts = []
    for name, param in params.items():
        text = f"`{name}` ({describe_kind(param)})"
        if with_aliases and param.aliases and param.aliases not in _SHARED_ALIASES:
            text += " also " + ", ".join(f"`{a}`" for a in param.aliases)
        if with_aliases and param.doc and param.doc not in _SHARED_DOCS:
            text += f": {param.doc}"
        parts.append(text)
    return "; ".join(parts) or "—"


def _node_rows(types: Iterable[NodeType]) -> list[str]:
    rows = ["| type | parameters | what it does |", "|---|---|---|"]
    for t in types:
        params = _params(t.params)
        if t.child_keys:
            params += "<br>children take: " + _params(t.child_keys)
        rows.append(f"| `{t.name}` | {_cell(params)} | {_cell(t.doc)} |")
    return rows


def _behavior_rows(classes: Iterable[BehaviorClass]) -> list[str]:
    rows = ["| class | does | parameters |", "|---|---|---|"]
    for c in classes:
        rows.append(f"| `{c.name}` | {_cell(c.doc)} | {_cell(_params(c.params, with_aliases=True))} |")
    return rows


def sections() -> dict[str, str]:
    """Each generated section's text, by the name its markers carry."""
    types = list(NODE_TYPES.values())
    leaves = [t for t in types if t.kind == "leaf"]
    return {
        "composites": "\n".join(_node_rows(t for t in types if t.kind == "composite")),
        "decorators": "\n".join(_node_rows(t for t in types if t.kind == "decorator")),
        "actions": "\n".join(_node_rows(t for t in leaves if not t.condition)),
        "conditions": "\n".join(_node_rows(t for t in leaves if t.condition)),
        "behavior-classes": "\n".join(_behavior_rows(BEHAVIOR_CLASSES.values())),
    }


#: The names of the generated sections, in document order.
SECTIONS: tuple[str, ...] = ("composites", "decorators", "actions", "conditions", "behavior-classes")

_BLOCK = re.compile(r"(<!-- generated: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(\n<!-- end generated -->)", re.S)


def fill(document: str, extra: Mapping[str, str] | None = None) -> str:
    """``document`` with every generated section rewritten (``extra``: more sections by name, written
    elsewhere); a missing marker, or a marker naming no section, raises ``ValueError``."""
    texts = {**sections(), **(extra or {})}
    found = {m.group("name") for m in _BLOCK.finditer(document)}
    missing = [name for name in (*SECTIONS, *(extra or {})) if name not in found]
    if missing:
        raise ValueError(f"the document has no markers for {', '.join(missing)}")
    unknown = sorted(found - set(texts))
    if unknown:
        raise ValueError(f"the document has markers for sections nobody writes: {', '.join(unknown)}")
    return _BLOCK.sub(lambda m: m.group(1) + texts[m.group("name")] + m.group(4), document)
