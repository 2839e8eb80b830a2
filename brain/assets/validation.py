"""Cross-file checks of a loaded resource set: does every name lead somewhere?

The links checked, in the order the runtime follows them:

- reaction trigger → behaviour (by ``behaviorID``, else a legacy behaviour's ``behaviorType``);
- activity → sub-activity, activity → behaviour (choosers, interlude/setup/build choosers,
  ``requiredObjectives``, and the same inside a ``subActivityDelegate``);
- behaviour / activity → animation trigger (every key spelling, see
  :data:`brain.assets.loaders.ANIM_TRIGGER_KEY`) → group (trigger map) → clip (clip index);
- cube-light trigger → cube-light file (by file name);
- mood config's ``actionResultEmotionEvents`` and behaviours' ``finalEmotionEvent`` → emotion event;
- emotion event / activity mood scorer → emotion type.

Emotion types are never a fixed list; they come from the files. The rule for "known":
a type used by an emotion event is known when ``mood_config`` declares it (its own decay
graph or a ``valueRanges`` entry) or when at least one *other* event uses it too — a type
that only one event in the whole tree mentions is most likely a misspelling, and is
reported (it would still work, decaying with the ``default`` graph). A type used by an
activity's mood scorer is known when ``mood_config`` declares it or any event uses it.

Every reference is counted: :class:`RefStats` gives, per link, how many references, how
many distinct names, which resolved (and which only through a legacy alias), and which
are missing and from where. Each missing name becomes one error :class:`Issue`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from .issues import Issue, Severity
from .records import Activity, Behavior
from .resource_set import ResourceSet

__all__ = [
    "ACTIVITY_BEHAVIOR",
    "ACTIVITY_SUBACTIVITY",
    "ANIM_TRIGGER",
    "CUBE_TRIGGER_LIGHT",
    "EMOTION_EVENT",
    "GROUP_CLIP",
    "LINKS",
    "REACTION_BEHAVIOR",
    "TRIGGER_GROUP",
    "RefStats",
    "Validation",
    "validate",
]

REACTION_BEHAVIOR = "reaction → behaviour"
ACTIVITY_SUBACTIVITY = "activity → sub-activity"
ACTIVITY_BEHAVIOR = "activity → behaviour"
ANIM_TRIGGER = "behaviour/activity → animation trigger"
TRIGGER_GROUP = "animation trigger → group"
GROUP_CLIP = "animation group → clip"
CUBE_TRIGGER_LIGHT = "cube light trigger → cube light"
EMOTION_EVENT = "mood/behaviour → emotion event"

#: Every link, in report order.
LINKS = (
    REACTION_BEHAVIOR,
    ACTIVITY_SUBACTIVITY,
    ACTIVITY_BEHAVIOR,
    ANIM_TRIGGER,
    TRIGGER_GROUP,
    GROUP_CLIP,
    CUBE_TRIGGER_LIGHT,
    EMOTION_EVENT,
)


@dataclass
class RefStats:
    """Counts for one kind of link between files."""

    kind: str
    references: int = 0
    names: set[str] = field(default_factory=set)
    resolved: set[str] = field(default_factory=set)
    via_legacy: set[str] = field(default_factory=set)
    missing: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    checked: bool = True

    def add(self, name: str, where: tuple[str, str], found: bool, *, legacy: bool = False) -> None:
        """Count one reference to *name* from *where* (file, field path); *legacy*: found in a legacy file."""
        self.references += 1
        self.names.add(name)
        if found:
            self.resolved.add(name)
            if legacy:
                self.via_legacy.add(name)
        else:
            self.missing.setdefault(name, []).append(where)


@dataclass
class Validation:
    """The result of :func:`validate`: every issue (load + checks) and the link counts."""

    issues: list[Issue]
    refs: dict[str, RefStats]
    unimplemented: dict[str, list[str]]
    emotion_types: frozenset[str]

    def count(self, severity: Severity) -> int:
        """How many issues have this severity."""
        return sum(1 for i in self.issues if i.severity == severity)

    @property
    def ok(self) -> bool:
        """True when there is no error (warnings and info allowed)."""
        return not any(i.severity >= Severity.ERROR for i in self.issues)


def _where(origin: object, field_path: str) -> tuple[str, str]:
    return str(origin), field_path


def _activities_with_delegates(activities: Iterable[Activity]) -> Iterable[Activity]:
    for a in activities:
        node: Activity | None = a
        while node is not None:
            yield node
            node = node.delegate


def _check_behavior_ref(rs: ResourceSet, stats: RefStats, name: str, where: tuple[str, str]) -> None:
    """Behaviours resolve by ID, else by a legacy file's ``behaviorType``; count the legacy ones."""
    found = rs.behavior(name)
    stats.add(name, where, found is not None, legacy=found is not None and found.legacy)


def _links(rs: ResourceSet) -> dict[str, RefStats]:
    refs = {kind: RefStats(kind) for kind in LINKS}

    s = refs[REACTION_BEHAVIOR]
    for r in rs.reactions:
        _check_behavior_ref(rs, s, r.behavior_id, _where(r.origin, f"reactionTriggerBehaviorMap[{r.index}]"))

    activities: tuple[Activity, ...] = rs.records.get("activities", ())
    s = refs[ACTIVITY_SUBACTIVITY]
    for a in _activities_with_delegates(activities):
        for sub in a.sub_activities:
            s.add(sub.activity_id, _where(a.origin, f"{a.activity_id}.subActivities"), sub.activity_id in rs.activities)
    s = refs[ACTIVITY_BEHAVIOR]
    for a in activities:
        for ref in a.behavior_refs():
            _check_behavior_ref(rs, s, ref.name, _where(a.origin, f"{a.activity_id}.{ref.field}"))

    behaviors: tuple[Behavior, ...] = rs.records.get("behaviours", ())
    s = refs[ANIM_TRIGGER]
    for b in behaviors:
        for ref in b.anim_triggers:
            s.add(ref.name, _where(b.origin, ref.field), ref.name in rs.anim_triggers)
    for a in activities:
        for ref in a.anim_triggers:
            s.add(ref.name, _where(a.origin, f"{a.activity_id}.{ref.field}"), ref.name in rs.anim_triggers)
    reaching = sorted(t for t in s.resolved if rs.group_for_trigger(t) is not None)
    if s.resolved:
        s.notes.append(f"{len(reaching)} of the {len(s.resolved)} found in the trigger map reach a group file")

    s = refs[TRIGGER_GROUP]
    for p in rs.records.get("animation triggers", ()):
        s.add(p.target, _where(p.origin, f"Pairs[{p.index}] {p.event}"), p.target in rs.animation_groups)
    events_reaching = sum(1 for p in rs.anim_triggers.values() if p.target in rs.animation_groups)
    if s.references:
        s.notes.append(f"{events_reaching} of {len(rs.anim_triggers)} triggers reach a group file")

    s = refs[GROUP_CLIP]
    if rs.clips is None:
        s.checked = False
    else:
        for g in rs.records.get("animation groups", ()):
            for i, m in enumerate(g.members):
                s.add(m.name, _where(g.origin, f"Animations[{i}].Name"), m.name in rs.clips)

    s = refs[CUBE_TRIGGER_LIGHT]
    for p in rs.records.get("cube light triggers", ()):
        s.add(p.target, _where(p.origin, f"Pairs[{p.index}] {p.event}"), p.target in rs.cube_lights)

    s = refs[EMOTION_EVENT]
    if rs.mood is not None:
        for action, results in rs.mood.action_result_events.items():
            for result, event in results.items():
                s.add(event, _where(rs.mood.origin, f"actionResultEmotionEvents.{action}.{result}"),
                      event in rs.emotion_events)
    for b in behaviors:
        for ref in b.emotion_events:
            s.add(ref.name, _where(b.origin, ref.field), ref.name in rs.emotion_events)

    return refs


def _unresolved_issues(refs: dict[str, RefStats]) -> list[Issue]:
    issues = []
    for stats in refs.values():
        for name in sorted(stats.missing):
            places = stats.missing[name]
            file, field_path = places[0]
            more = f" (and {len(places) - 1} more)" if len(places) > 1 else ""
            issues.append(Issue(
                Severity.ERROR,
                f"{name!r} is not defined by any root{more}",
                file=file,
                field=field_path or None,
                code="unresolved",
                kind=stats.kind,
                subject=name,
            ))
    return issues


def _emotion_type_issues(rs: ResourceSet) -> list[Issue]:
    issues: list[Issue] = []
    declared = rs.mood.declared_types if rs.mood is not None else frozenset()
    users: dict[str, set[str]] = defaultdict(set)
    first_use: dict[str, str] = {}
    for event in rs.records.get("emotion events", ()):
        for a in event.affectors:
            users[a.emotion_type].add(event.name)
            first_use.setdefault(a.emotion_type, str(event.origin))
    for etype, events in sorted(users.items()):
        if etype in declared or len(events) >= 2:
            continue
        (only,) = events
        issues.append(Issue(
            Severity.WARNING,
            f"emotion type {etype!r} is used only by event {only!r} and mood_config does not declare it "
            "(a misspelling?); it would decay with the default graph",
            file=first_use[etype], code="emotion-type", subject=etype,
        ))
    for a in _activities_with_delegates(rs.records.get("activities", ())):
        if a.strategy is None:
            continue
        for i, scorer in enumerate(a.strategy.start_mood_scorer):
            if scorer.emotion_type not in declared and scorer.emotion_type not in users:
                issues.append(Issue(
                    Severity.WARNING,
                    f"mood scorer uses emotion type {scorer.emotion_type!r}, which neither mood_config nor any "
                    "emotion event names",
                    file=str(a.origin), field=f"activityStrategy.startMoodScorer[{i}].emotionType",
                    code="emotion-type", subject=scorer.emotion_type,
                ))
    if rs.mood is not None and "default" in rs.mood.decay_graphs:
        own = set(rs.mood.decay_graphs)
        fallback = sorted(t for t in rs.emotion_types if t not in own)
        if fallback:
            issues.append(Issue(
                Severity.INFO,
                f"emotion types without their own decay graph use 'default': {', '.join(fallback)}",
                file=str(rs.mood.origin), code="emotion-type",
            ))
    return issues


def _unimplemented(rs: ResourceSet, implemented: set[str]) -> tuple[dict[str, list[str]], list[Issue]]:
    by_class: dict[str, list[str]] = defaultdict(list)
    for b in rs.behaviors.values():
        if b.behavior_class not in implemented:
            by_class[b.behavior_class].append(b.behavior_id)
    issues = []
    counts = Counter({k: len(v) for k, v in by_class.items()})
    for cls, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        ids = sorted(by_class[cls])
        shown = ", ".join(ids[:3]) + (", …" if len(ids) > 3 else "")
        issues.append(Issue(
            Severity.WARNING,
            f"no node implements behaviour class {cls!r} yet ({n} behaviour{'s' if n != 1 else ''}: {shown})",
            code="unimplemented", subject=cls,
        ))
    return dict(sorted(by_class.items())), issues


def validate(rs: ResourceSet, implemented: set[str] | None = None) -> Validation:
    """Check every link of *rs*; *implemented* is the set of behaviour classes the brain can run.

    ``None`` means "ask the node library" (:func:`brain.assets.implemented_behavior_classes`).
    The returned issues include the load issues of *rs*, so one list tells the whole story.
    """
    if implemented is None:
        from . import implemented_behavior_classes

        implemented = implemented_behavior_classes()
    refs = _links(rs)
    unimplemented, unimpl_issues = _unimplemented(rs, implemented)
    issues = list(rs.issues) + _unresolved_issues(refs) + _emotion_type_issues(rs) + unimpl_issues
    return Validation(issues, refs, unimplemented, rs.emotion_types)
