"""The readable report of ``cozmo-brain check``, and the error/warning policy behind its exit code.

Severity policy
---------------
Loading never fails on bad data: :func:`~brain.assets.resource_set.load_resource_set`
returns every record it could read and a list of issues, and the runtime runs what
resolves. Severity says what ``check`` — a judgement on a tree someone wants to run —
makes of each issue:

**error** (``check`` exits 1) — the tree promises something the runtime cannot do:
  - a file that cannot be read or is not JSON even after comments are removed (the file is
    skipped whole; reported with its line and column);
  - a record with a missing or wrongly typed field (that record is left out, so nothing it
    would have started runs; reported with file, line and field path);
  - a reference to a name no root defines — reaction → behaviour, activity → behaviour,
    sub-activity or desired activity (``desiredActivityNames``), behaviour → animation
    trigger → group → clip, cube trigger → light, mood config / behaviour / activity /
    ``eventMapper`` → emotion event (one error per distinct missing name and link, at the
    file and line of its first use);
  - no usable root, or no root providing ``mood_config.json``, the animation trigger map or
    the reaction map; an animation file the clip index cannot read.

**warning** (exit 0) — it loads and runs, but deserves a look: a name defined twice inside
one root (the first is used), a reaction trigger mapped twice (both entries are kept, as
the real app's map does for ``Frustration``), an unknown chooser type, an empty group, an
emotion type only one event mentions and ``mood_config`` does not declare, the clip index
being unavailable, and behaviour classes no node implements yet (a state of the brain,
not a fault of the data).

**info** — expected and handled: a later root's definition shadowed by an earlier root
(the point of having several roots), a known misspelling read as meant
(``PlanAnimWithFace``), emotion types that use the ``default`` decay graph.

Unresolved references are errors even though the real sample tree in ``shared/`` has
hundreds of them: the sample is knowingly partial test data (its SOURCES.md counts every
dangling link, and this report reproduces those counts exactly), and checking it exits 1.
A tree meant to run — a user's full app tree, or the project's own ``resources/`` — should
resolve completely; a behaviour whose trigger leads nowhere would silently do nothing.
"""

from __future__ import annotations

import textwrap
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from .issues import Issue, Severity
from .resource_set import KINDS, ResourceSet
from .validation import LINKS, RefStats, Validation

__all__ = ["MAX_LISTED", "exit_code", "format_report"]

#: Missing names per link listed one per line with their first referrer; beyond this, names only.
MAX_LISTED = 25
_WIDTH = 100


def exit_code(issues: Iterable[Issue]) -> int:
    """1 when any issue is an error, else 0 (warnings and info never fail a check)."""
    return 1 if any(i.severity >= Severity.ERROR for i in issues) else 0


class _Paths:
    """Shows files relative to their root (prefixed with the root's number when there are several)."""

    def __init__(self, roots: Sequence[Path]) -> None:
        self.roots = [(i, str(r) + "/") for i, r in enumerate(roots, 1)]
        self.many = len(roots) > 1

    def __call__(self, file: str | None) -> str:
        if not file:
            return ""
        for i, prefix in self.roots:
            if file.startswith(prefix):
                rel = file[len(prefix):]
                return f"[{i}] {rel}" if self.many else rel
        return file


def _loc(issue: Issue, short: _Paths) -> str:
    where = short(issue.file)
    if issue.line is not None:
        where = f"{where}:{issue.line}"
    return ": ".join(p for p in (where, issue.field) if p)


def _issue_line(issue: Issue, short: _Paths) -> str:
    loc = _loc(issue, short)
    return f"  {loc}: {issue.message}" if loc else f"  {issue.message}"


def _wrap(names: Iterable[str], indent: str = "    ") -> list[str]:
    return textwrap.wrap(", ".join(names), width=_WIDTH, initial_indent=indent, subsequent_indent=indent)


def _link_summary(stats: RefStats) -> str:
    if not stats.checked:
        return f"  {stats.kind}: not checked (no clip index)"
    parts = [f"{stats.references} reference{'s' if stats.references != 1 else ''} to {len(stats.names)} names",
             f"{len(stats.resolved)} resolve"]
    if stats.via_legacy:
        parts[-1] += f" ({len(stats.via_legacy)} of them only in legacy behaviorType/name files)"
    parts.append(f"{len(stats.missing)} missing")
    parts.extend(stats.notes)
    return f"  {stats.kind}: " + "; ".join(parts)


def _section(title: str, lines: list[str]) -> list[str]:
    return ["", title, *lines] if lines else []


def format_report(
    rs: ResourceSet,
    result: Validation,
    *,
    personality: Sequence[Issue] | None = None,
    personality_path: str | None = None,
    why_not_yet: Mapping[str, str] | None = None,
) -> str:
    """The whole report as text: what loaded, then every problem grouped by kind, then a summary.

    ``why_not_yet`` says, per behaviour class without a node, what it needs (printed beside it).
    """
    short = _Paths(rs.roots)
    out: list[str] = []
    n = len(rs.roots)
    out.append(f"Resource check: {n} root{'s' if n != 1 else ''} (searched in this order)")
    out.extend(f"  {i}. {root}" for i, root in enumerate(rs.roots, 1))
    out.append(f"  loaded in {rs.load_seconds:.2f} s")

    counts = rs.counts()
    out += ["", f"  {'kind':<26}{'records':>8}{'files':>8}"]
    for kind in KINDS:
        out.append(f"  {kind:<26}{counts.get(kind, 0):>8}{rs.file_counts.get(kind, 0):>8}")
    types = sorted(result.emotion_types)
    out.append(f"  emotion types ({len(types)}): {', '.join(types) if types else 'none'}")

    by_code: dict[str, list[Issue]] = defaultdict(list)
    for issue in result.issues:
        by_code[issue.code].append(issue)

    out += _section(f"Malformed or unreadable files ({len(by_code['json']) + len(by_code['io'])})",
                    [_issue_line(i, short) for i in by_code["json"] + by_code["io"]])
    out += _section(f"Records left out for bad fields ({len(by_code['field'])})",
                    [_issue_line(i, short) for i in by_code["field"]])
    setup = by_code["root"] + by_code["missing-file"] + by_code["clips"]
    out += _section(f"Roots, required files and clip files ({len(setup)})",
                    [f"  {i.severity}: " + _issue_line(i, short).strip() for i in setup])

    link_lines: list[str] = []
    for kind in LINKS:
        stats = result.refs.get(kind)
        if stats is None or (stats.references == 0 and stats.checked):
            continue
        link_lines.append(_link_summary(stats))
        missing = sorted(stats.missing)
        if len(missing) <= MAX_LISTED:
            width = max((len(m) for m in missing), default=0)
            for name in missing:
                places = stats.missing[name]
                first = places[0]
                where = short(first.file) + (f":{first.line}" if first.line is not None else "")
                more = f" (+{len(places) - 1} more)" if len(places) > 1 else ""
                link_lines.append(f"    {name:<{width}}  {where}: {first.field}{more}")
        else:
            link_lines += _wrap(missing)
    total_missing = sum(len(s.missing) for s in result.refs.values())
    out += _section(f"References between files ({total_missing} missing names)", link_lines)

    dups = by_code["duplicate"]
    out += _section(f"Duplicates ({len(dups)})", [_issue_line(i, short) for i in dups])

    behaviours = len(rs.behaviors)
    if behaviours:
        with_node = behaviours - sum(len(v) for v in result.unimplemented.values())
        share = f"{with_node} of {behaviours} behaviours ({100 * with_node / behaviours:.0f} %)"
        out += ["", f"Behaviour classes: {share} have a node"]
    if result.unimplemented:
        total = sum(len(v) for v in result.unimplemented.values())
        rows = sorted(result.unimplemented.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        width = max(len(k) for k, _ in rows)
        why = why_not_yet or {}
        out += _section(
            f"Behaviour classes without a node yet ({len(rows)} classes, {total} behaviours)",
            [f"  {cls:<{width}}  {len(ids):>3}  {why.get(cls, 'not written yet')}" for cls, ids in rows],
        )

    if personality is not None:
        title = f"Personality {personality_path}" if personality_path else "Personality"
        out += _section(f"{title} ({len(personality)} issue{'' if len(personality) == 1 else 's'})",
                        [f"  {i.severity}: " + _issue_line(i, short).strip() for i in personality] or ["  ok"])

    listed = {"json", "io", "field", "root", "missing-file", "clips", "unresolved", "duplicate", "unimplemented",
              "shadowed"}
    others = [i for i in result.issues if i.code not in listed]
    out += _section(f"Other notes ({len(others)})", [f"  {i.severity}: " + _issue_line(i, short).strip()
                                                     for i in sorted(others, key=lambda i: -i.severity)])
    shadowed = by_code["shadowed"]
    if shadowed:
        per_kind = Counter(i.kind or "other" for i in shadowed)
        out += _section(f"Shadowed by an earlier root ({len(shadowed)}, info)",
                        [f"  {kind}: {count}" for kind, count in per_kind.most_common()])

    everything = list(result.issues) + list(personality or ())
    sev = Counter(i.severity for i in everything)
    code = exit_code(everything)
    out += ["", f"Summary: {sev[Severity.ERROR]} errors, {sev[Severity.WARNING]} warnings, "
                f"{sev[Severity.INFO]} info -> exit {code}"]
    return "\n".join(out) + "\n"
