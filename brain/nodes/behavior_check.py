"""What ``cozmo-brain check`` says about behaviour parameters: read, ignored, refused.

Every behaviour of a resource set whose class the node library implements is read against
that class's declaration (:class:`~brain.nodes.behavior_class.BehaviorClass`). A value of the
wrong type or out of range is an error at the file, line and key where it is written (the
personality would refuse to build that behaviour); keys the class does not read are counted
per class and listed, never refused (Anki's files carry many keys for parts of the engine
this runtime does not have).
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from brain.assets import jsonc
from brain.assets.issues import Issue, Severity
from brain.assets.reading import read_text

from .behavior_class import SCORE_KEYS, BehaviorClass

__all__ = ["ClassUsage", "ParamReport", "check_behavior_params", "format_param_report", "key_line"]


@dataclass
class ClassUsage:
    """How the behaviours of one class use its parameters."""

    behaviors: int = 0
    read: Counter[str] = field(default_factory=Counter)
    ignored: Counter[str] = field(default_factory=Counter)


@dataclass
class ParamReport:
    """Parameter issues (errors at file, line and key) and each implemented class's usage."""

    issues: list[Issue] = field(default_factory=list)
    classes: dict[str, ClassUsage] = field(default_factory=dict)


def key_line(file: str, key: str, cache: dict[str, str | None] | None = None) -> int | None:
    """The line of ``key`` (a top-level key, or a path such as ``animTriggers[1]``) in a JSON file."""
    cache = {} if cache is None else cache
    if file not in cache:
        cache[file] = read_text(file)
    text = cache[file]
    if text is None:
        return None
    steps: list[str | int] = []
    for part in key.replace("]", "").replace("[", ".").split("."):
        if part:
            steps.append(int(part) if part.isdigit() else part)
    return jsonc.locate(text, steps)


def check_behavior_params(behaviors: Iterable[Any], classes: Mapping[str, BehaviorClass]) -> ParamReport:
    """Read each behaviour record (``behavior_class``, ``behavior_id``, ``params``, ``origin``) against ``classes``."""
    report = ParamReport()
    texts: dict[str, str | None] = {}
    for record in sorted(behaviors, key=lambda b: b.behavior_id):
        declared = classes.get(record.behavior_class)
        if declared is None:
            continue
        usage = report.classes.setdefault(record.behavior_class, ClassUsage())
        usage.behaviors += 1
        resolved = declared.resolve(record.params)
        usage.read.update(resolved.read.keys())
        usage.ignored.update(resolved.ignored)
        for key, message in resolved.errors:
            file = record.origin.path
            report.issues.append(Issue(
                Severity.ERROR, f"behaviour {record.behavior_id!r} ({record.behavior_class}): {message}",
                file=file, line=key_line(file, key, texts), field=key, code="behavior-param",
                subject=record.behavior_class))
    for name in classes:  # classes no behaviour uses still say what they read
        report.classes.setdefault(name, ClassUsage())
    return report


def format_param_report(report: ParamReport, classes: Mapping[str, BehaviorClass], width: int = 100) -> str:
    """The report's section: per class, the parameters it reads (how many behaviours set each), the keys it ignores."""
    lines = ["Behaviour parameters (declared by each class; keys a class does not read are listed, never refused; "
             f"{', '.join(SCORE_KEYS)} are the scoring chooser's):"]
    indent = " " * 14
    for name in sorted(report.classes, key=lambda n: (-report.classes[n].behaviors, n)):
        usage = report.classes[name]
        lines.append(f"  {name} ({usage.behaviors} behaviour{'s' if usage.behaviors != 1 else ''})")
        reads = ", ".join(f"{p} ({usage.read[p]})" if usage.read[p] else p for p in classes[name].params) or "nothing"
        lines.extend(textwrap.wrap(reads, width, initial_indent="    reads:    ", subsequent_indent=indent))
        if usage.ignored:
            ignored = ", ".join(f"{k} ({n})" for k, n in sorted(usage.ignored.items(), key=lambda kv: (-kv[1], kv[0])))
            lines.extend(textwrap.wrap(ignored, width, initial_indent="    ignores:  ", subsequent_indent=indent))
    return "\n".join(lines) + "\n"
