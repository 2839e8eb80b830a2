"""Problems found while loading or checking resources, as data.

Loading a real resource tree never stops at the first problem: the Cozmo app's files mix
eras, some are malformed, many references dangle. Every problem becomes an :class:`Issue`
that names the file, the line when it is known, the field path (``Animations[3].Weight``)
and what was expected. Callers decide what to do with them: ``cozmo-brain check`` prints
them and sets its exit code, the runtime logs them and runs what loaded cleanly.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["AssetError", "Issue", "Severity", "format_path", "json_type", "worst"]


class AssetError(Exception):
    """Raised for misuse of the asset API (never for bad data, which becomes an Issue)."""


class Severity(enum.IntEnum):
    """How bad an issue is; ordered so ``max()`` gives the worst."""

    INFO = 0
    WARNING = 1
    ERROR = 2

    def __str__(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Issue:
    """One problem, located as precisely as the loader could.

    ``code`` groups issues for the report (``json``, ``field``, ``io``, ``unresolved``,
    ``duplicate``, ``shadowed``, ``unimplemented``, ``emotion-type``, ``missing-file``, …).
    For unresolved references ``kind`` names the link (``reaction → behaviour``) and
    ``subject`` the missing name.
    """

    severity: Severity
    message: str
    file: str | None = None
    line: int | None = None
    field: str | None = None
    code: str = ""
    kind: str | None = None
    subject: str | None = None

    @property
    def location(self) -> str:
        """``file:line`` (or what of it is known), for messages."""
        if self.file is None:
            return ""
        return f"{self.file}:{self.line}" if self.line is not None else self.file

    def __str__(self) -> str:
        parts = [p for p in (self.location, self.field) if p]
        head = ": ".join(parts)
        return f"{self.severity}: {head}: {self.message}" if head else f"{self.severity}: {self.message}"


def worst(issues: Iterable[Issue]) -> Severity | None:
    """The highest severity among *issues*, or None when there are none."""
    return max((i.severity for i in issues), default=None)


def format_path(path: Sequence[str | int]) -> str:
    """Render a JSON path as ``Animations[3].Weight`` (``[2].activityID`` for a top-level list)."""
    out: list[str] = []
    for step in path:
        if isinstance(step, int):
            out.append(f"[{step}]")
        else:
            out.append(f".{step}" if out else step)
    return "".join(out)


_TYPE_NAMES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", float: "number"}


def json_type(value: object) -> str:
    """The JSON name of *value*'s type, for "expected number, got string" messages."""
    if value is None:
        return "null"
    return _TYPE_NAMES.get(type(value), type(value).__name__)
