"""Cross-file checks of a loaded resource set: does every name lead somewhere?

The links checked, in the order the runtime follows them:

- reaction trigger → behaviour (by ``behaviorID``, else a legacy behaviour's ``behaviorType``);
- activity → sub-activity, activity → behaviour (choosers, interlude/setup/build choosers,
  ``requiredObjectives``, and the same inside a ``subActivityDelegate``);
- activity → desired activity (the Freeplay root's ``desiredActivityNames``: which activity
  to run with a face and a cube, a face only, …);
- behaviour / activity → animation trigger (every key spelling, see
  :data:`brain.assets.loaders.ANIM_TRIGGER_KEY`) → group (trigger map) → clip (clip index);
- cube-light trigger → cube-light file (by file name);
- mood config's ``actionResultEmotionEvents``, behaviours' and activities' emotion-event keys
  (``finalEmotionEvent`` …) and names listed in an ``eventMapper`` → emotion event (defined
  by an ``emotionevents/`` file or inline by any ``eventMapper`` block);
- emotion event / activity mood scorer → emotion type.

Emotion types are never a fixed list; they come from the files. The rule for "known":
a type used by an emotion event is known when ``mood_config`` declares it (its own decay
graph or a ``valueRanges`` entry) or when at least one *other* event uses it too — a type
that only one event in the whole tree mentions is most likely a misspelling, and is
reported (it would still work, decaying with the ``default`` graph). A type used by an
activity's mood scorer is known when ``mood_config`` declares it or any event uses it.

Every reference is counted: :class:`RefStats` gives, per link, how many references, how
many distinct names, which resolved (and which only through a legacy alias), and which
are missing and from where. Each missing name becomes one error :class:`Issue`, located
at the file and line of its first reference.

Checking is on the start-up path, so a reference that resolves costs a set lookup and
nothing else; where a missing one was made (its field text, its line) is only worked out
for the missing ones, and lines only once all links are checked: each file that holds a
dangling reference is read again and walked once (:func:`brain.assets.jsonc.reference_lines`).
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from . import jsonc
from .fields import JsonPath
from .issues import Issue, Severity, format_path
from .loaders import read_text
from .records import Activity, Behavior, Origin
from .resource_set import ResourceSet

__all__ = [
    "ACTIVITY_BEHAVIOR",
    "ACTIVITY_DESIRED",
    "ACTIVITY_SUBACTIVITY",
    "ANIM_TRIGGER",
    "CUBE_TRIGGER_LIGHT",
    "EMOTION_EVENT",
    "GROUP_CLIP",
    "LINKS",
    "REACTION_BEHAVIOR",
    "TRIGGER_GROUP",
    "Place",
    "RefStats",
    "Validation",
    "validate",
]

log = logging.getLogger(__name__)

REACTION_BEHAVIOR = "reaction → behaviour"
ACTIVITY_SUBACTIVITY = "activity → sub-activity"
ACTIVITY_DESIRED = "activity → desired activity"
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
    ACTIVITY_DESIRED,
    ACTIVITY_BEHAVIOR,
    ANIM_TRIGGER,
    TRIGGER_GROUP,
    GROUP_CLIP,
    CUBE_TRIGGER_LIGHT,
    EMOTION_EVENT,
)


class Place(NamedTuple):
    """Where a reference was made: the file, the field (as text) and, once known, the line."""

    file: str
    field: str
    line: int | None = None

    @property
    def location(self) -> str:
        """``file:line`` (or the file alone when the line is unknown)."""
        return f"{self.file}:{self.line}" if self.line is not None else self.file


@dataclass
class RefStats:
    """Counts for one kind of link between files."""

    kind: str
    references: int = 0
    names: set[str] = field(default_factory=set)
    resolved: set[str] = field(default_factory=set)
    via_legacy: set[str] = field(default_factory=set)
    missing: dict[str, list[Place]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    checked: bool = True
    # (name, position in missing[name], file, JSON path from the file's top): lines to find.
    _unplaced: list[tuple[str, int, str, JsonPath]] = field(default_factory=list, repr=False, compare=False)

    def count(self, name: str, found: bool, *, legacy: bool = False) -> bool:
        """Count one reference to *name*; return *found* (so a miss can be recorded next)."""
        self.references += 1
        self.names.add(name)
        if found:
            self.resolved.add(name)
            if legacy:
                self.via_legacy.add(name)
        return found

    def miss(self, name: str, origin: Origin, field_text: str, path: JsonPath | None = None) -> None:
        """Record where a reference to the missing *name* was made; *path* (from the file's top) finds its line."""
        places = self.missing.setdefault(name, [])
        places.append(Place(str(origin), field_text))
        if path is not None:
            self._unplaced.append((name, len(places) - 1, origin.path, path))

    def add(self, name: str, where: tuple[str, str], found: bool, *, legacy: bool = False) -> None:
        """Count one reference to *name* from *where* (file, field text); *legacy*: found in a legacy file."""
        if not self.count(name, found, legacy=legacy):
            self.missing.setdefault(name, []).append(Place(*where))


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


def _activities_with_delegates(activities: Iterable[Activity]) -> Iterable[Activity]:
    for a in activities:
        node: Activity | None = a
        while node is not None:
            yield node
            node = node.delegate


def _in(activity: Activity, path: JsonPath) -> str:
    """A field of an activity as text, prefixed with its ID (activity files may hold several)."""
    return f"{activity.activity_id}.{format_path(path)}"


def _links(rs: ResourceSet) -> dict[str, RefStats]:
    refs = {kind: RefStats(kind) for kind in LINKS}

    s = refs[REACTION_BEHAVIOR]
    for r in rs.reactions:
        found = rs.behavior(r.behavior_id)
        if not s.count(r.behavior_id, found is not None, legacy=found is not None and found.legacy):
            s.miss(r.behavior_id, r.origin, f"reactionTriggerBehaviorMap[{r.index}]",
                   ("reactionTriggerBehaviorMap", r.index, "behaviorID"))

    activities: tuple[Activity, ...] = rs.records.get("activities", ())
    known_activities = rs.activities
    s = refs[ACTIVITY_SUBACTIVITY]
    d = refs[ACTIVITY_DESIRED]
    for a in _activities_with_delegates(activities):
        for i, sub in enumerate(a.sub_activities):
            if not s.count(sub.activity_id, sub.activity_id in known_activities):
                s.miss(sub.activity_id, a.origin, f"{a.activity_id}.subActivities",
                       (*a.path, "subActivities", i, "activityID"))
        for situation, name in a.desired_activities.items():
            if name and not d.count(name, name in known_activities):
                d.miss(name, a.origin, _in(a, ("desiredActivityNames", situation)),
                       (*a.path, "desiredActivityNames", situation))
    s = refs[ACTIVITY_BEHAVIOR]
    for a in activities:
        for ref in a.behavior_refs():
            found = rs.behavior(ref.name)
            if not s.count(ref.name, found is not None, legacy=found is not None and found.legacy):
                s.miss(ref.name, a.origin, _in(a, ref.path), (*a.path, *ref.path))

    behaviors: tuple[Behavior, ...] = rs.records.get("behaviours", ())
    triggers = rs.anim_triggers
    s = refs[ANIM_TRIGGER]
    for b in behaviors:
        for ref in b.anim_triggers:
            if not s.count(ref.name, ref.name in triggers):
                s.miss(ref.name, b.origin, ref.field, ref.path)
    for a in activities:
        for ref in a.anim_triggers:
            if not s.count(ref.name, ref.name in triggers):
                s.miss(ref.name, a.origin, _in(a, ref.path), (*a.path, *ref.path))
    reaching = sorted(t for t in s.resolved if rs.group_for_trigger(t) is not None)
    if s.resolved:
        s.notes.append(f"{len(reaching)} of the {len(s.resolved)} found in the trigger map reach a group file")

    groups = rs.animation_groups
    s = refs[TRIGGER_GROUP]
    for p in rs.records.get("animation triggers", ()):
        if not s.count(p.target, p.target in groups):
            s.miss(p.target, p.origin, f"Pairs[{p.index}] {p.event}", ("Pairs", p.index, "AnimName"))
    events_reaching = sum(1 for p in triggers.values() if p.target in groups)
    if s.references:
        s.notes.append(f"{events_reaching} of {len(triggers)} triggers reach a group file")

    s = refs[GROUP_CLIP]
    clips = rs.clips
    if clips is None:
        s.checked = False
    else:
        for g in rs.records.get("animation groups", ()):
            for i, m in enumerate(g.members):
                if not s.count(m.name, m.name in clips):
                    s.miss(m.name, g.origin, f"Animations[{i}].Name", ("Animations", i, "Name"))

    lights = rs.cube_lights
    s = refs[CUBE_TRIGGER_LIGHT]
    for p in rs.records.get("cube light triggers", ()):
        if not s.count(p.target, p.target in lights):
            s.miss(p.target, p.origin, f"Pairs[{p.index}] {p.event}", ("Pairs", p.index, "AnimName"))

    s = refs[EMOTION_EVENT]
    events, mapped = rs.emotion_events, rs.mapped_events
    if rs.mood is not None:
        mood = rs.mood
        for action, results in mood.action_result_events.items():
            for result, event in results.items():
                if not s.count(event, event in events or event in mapped):
                    s.miss(event, mood.origin, f"actionResultEmotionEvents.{action}.{result}",
                           ("actionResultEmotionEvents", action, result))
        for ref in mood.emotion_events:
            if not s.count(ref.name, ref.name in events or ref.name in mapped):
                s.miss(ref.name, mood.origin, ref.field, ref.path)
    for b in behaviors:
        for ref in b.emotion_events:
            if not s.count(ref.name, ref.name in events or ref.name in mapped):
                s.miss(ref.name, b.origin, ref.field, ref.path)
    for a in activities:
        for ref in a.emotion_events:
            if not s.count(ref.name, ref.name in events or ref.name in mapped):
                s.miss(ref.name, a.origin, _in(a, ref.path), (*a.path, *ref.path))

    return refs


def _place_lines(refs: dict[str, RefStats]) -> None:
    """Fill in the line of every missing reference: each file read and walked once."""
    by_file: dict[str, list[tuple[RefStats, str, int, JsonPath]]] = defaultdict(list)
    for stats in refs.values():
        for name, position, file, path in stats._unplaced:
            by_file[file].append((stats, name, position, path))
        stats._unplaced.clear()
    for file, wanted in by_file.items():
        text = read_text(file)
        if text is None:
            log.debug("cannot read %s again to find reference lines", file)
            continue
        lines = jsonc.reference_lines(text, [(path, name) for _, name, _, path in wanted])
        for (stats, name, position, _), line in zip(wanted, lines, strict=True):
            place = stats.missing[name][position]
            stats.missing[name][position] = place._replace(line=line)


def _unresolved_issues(refs: dict[str, RefStats]) -> list[Issue]:
    issues = []
    for stats in refs.values():
        for name in sorted(stats.missing):
            places = stats.missing[name]
            first = places[0]
            more = f" (and {len(places) - 1} more)" if len(places) > 1 else ""
            issues.append(Issue(
                Severity.ERROR,
                f"{name!r} is not defined by any root{more}",
                file=first.file,
                line=first.line,
                field=first.field or None,
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


def validate(rs: ResourceSet, implemented: Collection[str]) -> Validation:
    """Check every link of *rs*; *implemented* names the behaviour classes the brain can run.

    The node library's classes are ``brain.nodes.registry.BEHAVIOR_CLASSES`` (``check`` passes
    them). The returned issues include the load issues of *rs*, so one list tells the whole story.
    """
    refs = _links(rs)
    unimplemented, unimpl_issues = _unimplemented(rs, set(implemented))
    _place_lines(refs)
    issues = list(rs.issues) + _unresolved_issues(refs) + _emotion_type_issues(rs) + unimpl_issues
    return Validation(issues, refs, unimplemented, rs.emotion_types)
