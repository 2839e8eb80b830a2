"""The packaged personalities' knobs as one table: the default's values, what each variant changes.

A personality's knobs are its ``parameters`` and its ``arousal`` settings. The default writes
each with a comment saying what it sets; the variants (``sleepy``, ``playful``) ``extend`` it
and change a few. :func:`knobs_table` reads the default's lines (values and comments) and the
variants' YAML, so docs/personality-format.md shows the knobs from the files themselves
(``python tools/gen_docs.py`` writes it; a test fails when it is stale).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

__all__ = ["SECTIONS", "VARIANTS", "knobs_table"]

#: The variants shown beside the default, in column order.
VARIANTS: tuple[str, ...] = ("sleepy", "playful")
#: The top-level keys whose entries are knobs.
SECTIONS: tuple[str, ...] = ("parameters", "arousal")

_ENTRY = re.compile(r"^  (?P<name>\w+):\s*(?P<value>[^#]*?)\s*(?:#\s*(?P<doc>.*))?$")


def _entries(text: str, section: str) -> list[tuple[str, str, str]]:
    """(name, value as written, comment) of each direct entry of top-level ``section`` in ``text``."""
    out: list[tuple[str, str, str]] = []
    inside = False
    for line in text.splitlines():
        if not line.startswith(" ") and line.strip():
            inside = line.split(":", 1)[0] == section
            continue
        match = _ENTRY.match(line) if inside else None
        if match is not None:
            out.append((match["name"], match["value"], (match["doc"] or "").strip()))
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def knobs_table(folder: Path) -> str:
    """The Markdown table of the knobs of ``folder``'s ``default.yaml`` and its variants."""
    default = (folder / "default.yaml").read_text(encoding="utf-8")
    variants: dict[str, dict[str, Any]] = {}
    for name in VARIANTS:
        data = yaml.safe_load((folder / f"{name}.yaml").read_text(encoding="utf-8")) or {}
        variants[name] = {section: data.get(section) or {} for section in SECTIONS}
    rows = ["| knob | default | " + " | ".join(VARIANTS) + " | what it sets |",
            "|---|---|" + "---|" * len(VARIANTS) + "---|"]
    for section in SECTIONS:
        for name, value, doc in _entries(default, section):
            cells = [str(variants[v][section].get(name, "")) for v in VARIANTS]
            rows.append(f"| `{section}.{name}` | {value} | " + " | ".join(cells) + f" | {_cell(doc)} |")
    return "\n".join(rows)
