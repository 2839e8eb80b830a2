"""A resource set: one or more Cozmo resource trees, searched in order, loaded into records.

The caller passes the roots in priority order — typically a user's real
``~/.pycozmo/assets/cozmo_resources`` first (when it exists) and the project's own
``resources/`` last. A root may be given as the ``cozmo_resources`` directory or as its
parent. Every root is read in full; then, kind by kind, the first root that defines a
name (trigger, group, behaviour ID, activity ID, event name …) wins, later roots fill in
what earlier ones lack, and each shadowed definition is reported as info. Singleton files
(``mood_config.json``) come whole from the first root that has one; map files (trigger
maps, the reaction map) merge by key.

Records with bad fields are already left out by the loaders. Animation clips are not
decoded here: a :class:`~driver.animation.index.ClipIndex` reads only their names, and
decodes a clip the first time something plays it.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from . import loaders as L
from .issues import Issue, Severity
from .records import (
    Activity,
    AnimationGroup,
    BackpackLightPattern,
    Behavior,
    CubeLightAnimation,
    EmotionEvent,
    MoodConfig,
    ReactionTrigger,
    TriggerPair,
)

__all__ = ["KINDS", "ResourceSet", "RootLayout", "find_root", "load_resource_set"]

log = logging.getLogger(__name__)
R = TypeVar("R")

#: Report names of the kinds of things a tree defines, in report order.
KINDS: tuple[str, ...] = (
    "animation triggers",
    "animation groups",
    "animation clips",
    "cube light triggers",
    "cube light animations",
    "backpack light patterns",
    "mood config",
    "emotion events",
    "reaction triggers",
    "behaviours",
    "activities",
)

#: Log progress at INFO once a load has taken this long (debug before that).
PROGRESS_AFTER_S = 0.5


def find_root(path: Path | str) -> Path | None:
    """The ``cozmo_resources`` directory for *path* (itself, or its child of that name)."""
    p = Path(path).expanduser()
    child = p / "cozmo_resources"
    if child.is_dir():
        return child
    if p.is_dir() and ((p / "assets").is_dir() or (p / "config").is_dir()):
        return p
    return None


def _json_files(directory: str) -> list[str]:
    """``*.json`` under *directory*, recursively: each folder's files (sorted), then its sub-folders.

    Paths stay strings (see :class:`~brain.assets.records.Origin`).
    """
    try:
        with os.scandir(directory) as it:
            entries = sorted(it, key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = [e.path for e in entries if e.name.endswith(".json") and e.is_file()]
    for e in entries:
        if e.is_dir():
            found.extend(_json_files(e.path))
    return found


def _existing(path: str) -> list[str]:
    return [path] if os.path.isfile(path) else []


@dataclass(frozen=True, slots=True)
class RootLayout:
    """The files of one resource root, by kind (paths as in the Cozmo app's layout)."""

    root: Path
    trigger_maps: list[str]
    groups: list[str]
    cube_trigger_maps: list[str]
    cube_lights: list[str]
    backpack_lights: list[str]
    mood_config: list[str]
    emotion_events: list[str]
    reaction_map: list[str]
    activities: list[str]
    behaviors: list[str]
    animations: Path | None

    @classmethod
    def scan(cls, root: Path) -> RootLayout:
        """Find every resource file of *root* (a ``cozmo_resources`` directory)."""
        join = os.path.join
        assets = join(root, "assets")
        engine = join(root, "config", "engine")
        system = join(engine, "behaviorSystem")
        lights = join(engine, "lights")
        anims = root / "assets" / "animations"
        return cls(
            root=root,
            trigger_maps=_json_files(join(assets, "animationGroupMaps")),
            groups=_json_files(join(assets, "animationGroups")),
            cube_trigger_maps=_json_files(join(assets, "cubeAnimationGroupMaps")),
            cube_lights=_json_files(join(lights, "cubeLights")),
            backpack_lights=_json_files(join(lights, "backpackLights")),
            mood_config=_existing(join(engine, "mood_config.json")),
            emotion_events=_json_files(join(engine, "emotionevents")),
            reaction_map=_existing(join(system, "reactionTrigger_behavior_map.json")),
            activities=_existing(join(system, "activities_config.json"))
            + _existing(join(system, "behavior_system_config.json"))
            + _json_files(join(system, "activities")),
            behaviors=_json_files(join(system, "behaviors")),
            animations=anims if anims.is_dir() else None,
        )

    @property
    def json_file_count(self) -> int:
        """How many JSON files this root holds."""
        return sum(
            len(x)
            for x in (self.trigger_maps, self.groups, self.cube_trigger_maps, self.cube_lights,
                      self.backpack_lights, self.mood_config, self.emotion_events, self.reaction_map,
                      self.activities, self.behaviors)
        )


class _Progress:
    """Logs what has loaded; quietly (debug) for quick loads, at info once it takes a while."""

    def __init__(self, total_files: int) -> None:
        self.started = time.perf_counter()
        self.total = total_files
        self.done = 0

    def step(self, what: str, files: int, records: int) -> None:
        self.done += files
        elapsed = time.perf_counter() - self.started
        level = logging.INFO if elapsed >= PROGRESS_AFTER_S else logging.DEBUG
        log.log(level, "resources: %s: %d from %d files (%d/%d files, %.2f s)",
                what, records, files, self.done, self.total, elapsed)


@dataclass
class _Merged:
    """A kind's winners by name, plus every record in load order (for validation)."""

    by_name: dict[str, Any] = field(default_factory=dict)
    records: list[Any] = field(default_factory=list)


@dataclass
class ResourceSet:
    """Everything the brain needs from the resource roots, as typed records.

    The ``*_by_name`` style mappings hold the record each name resolves to; ``records``
    holds every record loaded (including ones shadowed by an earlier root or duplicated
    within a root), which is what validation checks. ``issues`` are the load-time issues
    (see :mod:`brain.assets.validation` for the reference checks).

    ``emotion_events`` are the events of the ``emotionevents/`` files; ``mapped_events``
    the ones defined inline by ``eventMapper`` blocks (mood config first, then behaviours,
    then activities) that no file defines. An event name resolves when either has it
    (:meth:`emotion_event`). ``records["emotion events"]`` holds both.
    """

    roots: tuple[Path, ...]
    anim_triggers: Mapping[str, TriggerPair]
    animation_groups: Mapping[str, AnimationGroup]
    cube_triggers: Mapping[str, TriggerPair]
    cube_lights: Mapping[str, CubeLightAnimation]
    backpack_lights: Mapping[str, BackpackLightPattern]
    mood: MoodConfig | None
    emotion_events: Mapping[str, EmotionEvent]
    reactions: tuple[ReactionTrigger, ...]
    behaviors: Mapping[str, Behavior]
    behavior_aliases: Mapping[str, Behavior]
    activities: Mapping[str, Activity]
    clips: Any  # driver.animation.index.ClipIndex, or None when the index is unavailable
    records: Mapping[str, tuple[Any, ...]]
    file_counts: Mapping[str, int]
    issues: list[Issue]
    load_seconds: float = 0.0
    mapped_events: Mapping[str, EmotionEvent] = field(default_factory=lambda: MappingProxyType({}))
    _playable: dict[str, AnimationGroup | None] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def load(cls, roots: Sequence[Path | str], *, index_clips: bool = True) -> ResourceSet:
        """Load *roots* (highest priority first). Never raises for bad data; see ``issues``."""
        return load_resource_set(roots, index_clips=index_clips)

    # -- lookups

    def behavior(self, behavior_id: str) -> Behavior | None:
        """The behaviour with this ID, or a legacy behaviour whose ``behaviorType`` is this name."""
        return self.behaviors.get(behavior_id) or self.behavior_aliases.get(behavior_id)

    def emotion_event(self, name: str) -> EmotionEvent | None:
        """The emotion event called *name*: from an event file, else from an ``eventMapper``."""
        return self.emotion_events.get(name) or self.mapped_events.get(name)

    def group_for_trigger(self, trigger: str) -> AnimationGroup | None:
        """The animation group an animation trigger plays, if both exist."""
        pair = self.anim_triggers.get(trigger)
        return self.animation_groups.get(pair.target) if pair else None

    def playable_group_for_trigger(self, trigger: str) -> AnimationGroup | None:
        """The group a trigger plays, skipping groups none of whose clips is installed.

        A copy of the app's data may hold its trigger map and groups but not every clip (or
        none); the first root whose mapping of ``trigger`` reaches a group with a clip wins, so
        a later root (the project's own resources) fills in what an earlier one cannot play.
        With no clip index, or nothing playable anywhere, it is :meth:`group_for_trigger`.
        """
        if trigger in self._playable:
            return self._playable[trigger]
        found = self.group_for_trigger(trigger)
        clips = self.clips
        if clips is not None and (found is None or not any(m.name in clips for m in found.members)):
            groups = self.records.get("animation groups", ())
            for pair in self.records.get("animation triggers", ()):
                if pair.event != trigger:
                    continue
                group = next((g for g in groups if g.name == pair.target and any(m.name in clips for m in g.members)),
                             None)
                if group is not None:
                    found = group
                    break
        self._playable[trigger] = found
        return found

    def reactions_for(self, trigger: str) -> list[ReactionTrigger]:
        """Every reaction-map entry for *trigger* (real maps have duplicates)."""
        return [r for r in self.reactions if r.trigger == trigger]

    @property
    def emotion_types(self) -> frozenset[str]:
        """Every emotion type the files name: mood_config, emotion events, activity mood scorers.

        ``default`` (the fallback decay graph) is not a type.
        """
        types: set[str] = set()
        if self.mood is not None:
            types |= self.mood.declared_types
        for event in self.records.get("emotion events", ()):
            types.update(a.emotion_type for a in event.affectors)
        for activity in self.records.get("activities", ()):
            types.update(_scorer_types(activity))
        types.discard("default")
        return frozenset(types)

    def counts(self) -> dict[str, int]:
        """Records per kind (resolved names; the mood config counts as 0 or 1)."""
        return {
            "animation triggers": len(self.anim_triggers),
            "animation groups": len(self.animation_groups),
            "animation clips": len(self.clips) if self.clips is not None else 0,
            "cube light triggers": len(self.cube_triggers),
            "cube light animations": len(self.cube_lights),
            "backpack light patterns": len(self.backpack_lights),
            "mood config": 1 if self.mood is not None else 0,
            "emotion events": len(self.emotion_events),
            "reaction triggers": len(self.reactions),
            "behaviours": len(self.behaviors),
            "activities": len(self.activities),
        }


def _scorer_types(activity: Activity) -> list[str]:
    out: list[str] = []
    a: Activity | None = activity
    while a is not None:
        if a.strategy is not None:
            out.extend(s.emotion_type for s in a.strategy.start_mood_scorer)
        a = a.delegate
    return out


def _load_kind(
    layouts: Sequence[RootLayout],
    files_of: Callable[[RootLayout], list[str]],
    read: Callable[[L.Document, L.IssueSink], Any],
    name_of: Callable[[Any], str],
    kind: str,
    sink: L.IssueSink,
    progress: _Progress,
) -> _Merged:
    """Load one kind from every root and merge by name: first root wins, first file within a root.
    (A trigger map's loader keeps the first of an event paired twice in one file and reports the
    rest, so what reaches here repeats only across files.)"""
    merged = _Merged()
    files = 0
    for layout in layouts:
        for path in files_of(layout):
            files += 1
            doc = L.read_document(path, layout.root, sink)
            if doc is None:
                continue
            result = read(doc, sink)
            items: list[Any] = result if isinstance(result, list) else [] if result is None else [result]
            for record in items:
                merged.records.append(record)
                name = name_of(record)
                first = merged.by_name.setdefault(name, record)
                if first is not record:
                    _report_clash(kind, name, first.origin, record.origin, sink)
    progress.step(kind, files, len(merged.by_name))
    return merged


#: Singular nouns for messages, by kind.
_SINGULAR = {
    "animation triggers": "animation trigger",
    "animation groups": "animation group",
    "cube light triggers": "cube light trigger",
    "cube light animations": "cube light animation",
    "backpack light patterns": "backpack light pattern",
    "emotion events": "emotion event",
    "behaviours": "behaviour",
    "activities": "activity",
}


def _report_clash(kind: str, name: str, kept: Any, ignored: Any, sink: L.IssueSink) -> None:
    singular = _SINGULAR.get(kind, kind)
    if kept.root == ignored.root:
        sink.add(Issue(Severity.WARNING,
                       f"{singular} {name!r} is defined again (first in {kept.relative}); the first is used",
                       file=str(ignored), code="duplicate", kind=kind, subject=name))
    else:
        sink.add(Issue(Severity.INFO, f"{singular} {name!r} is shadowed by {kept} (an earlier root)",
                       file=str(ignored), code="shadowed", kind=kind, subject=name))


def _load_reactions(layouts: Sequence[RootLayout], sink: L.IssueSink, progress: _Progress) -> list[ReactionTrigger]:
    """Reaction maps: a later root adds only triggers that no earlier root maps."""
    out: list[ReactionTrigger] = []
    files = 0
    for layout in layouts:
        known = {r.trigger for r in out}
        for path in layout.reaction_map:
            files += 1
            doc = L.read_document(path, layout.root, sink)
            if doc is None:
                continue
            for entry in L.load_reaction_map(doc, sink):
                if entry.trigger in known:
                    sink.add(Issue(Severity.INFO, f"reaction trigger {entry.trigger!r} is shadowed by an earlier root",
                                   file=str(entry.origin), code="shadowed", kind="reaction triggers",
                                   subject=entry.trigger))
                    continue
                out.append(entry)
    progress.step("reaction triggers", files, len(out))
    return out


def _load_mood(layouts: Sequence[RootLayout], sink: L.IssueSink, progress: _Progress) -> MoodConfig | None:
    mood: MoodConfig | None = None
    files = 0
    for layout in layouts:
        for path in layout.mood_config:
            files += 1
            if mood is not None:
                sink.add(Issue(Severity.INFO, f"mood config is shadowed by {mood.origin} (an earlier root)",
                               file=str(path), code="shadowed", kind="mood config"))
                continue
            doc = L.read_document(path, layout.root, sink)
            if doc is not None:
                mood = L.load_mood_config(doc, sink)
    progress.step("mood config", files, 0 if mood is None else 1)
    return mood


def _merge_mapped_events(
    files: _Merged, mood: MoodConfig | None, behaviors: Iterable[Behavior], activities: Iterable[Activity],
    sink: L.IssueSink,
) -> _Merged:
    """Events defined by ``eventMapper`` blocks; a name an event file (or an earlier block) has is reported."""
    merged = _Merged()
    blocks: list[EmotionEvent] = list(mood.mapped_events) if mood is not None else []
    for b in behaviors:
        blocks.extend(b.mapped_events)
    for a in activities:
        blocks.extend(a.mapped_events)
    for event in blocks:
        merged.records.append(event)
        first = files.by_name.get(event.name) or merged.by_name.setdefault(event.name, event)
        if first is not event:
            _report_clash("emotion events", event.name, first.origin, event.origin, sink)
    return merged


def _index_clips(layouts: Sequence[RootLayout], sink: L.IssueSink) -> Any:
    """Build the lazy clip index over every root's ``assets/animations``; None if unavailable."""
    try:
        from driver.animation.index import ClipIndex
    except ImportError as exc:  # the animation package is optional for loading JSON
        sink.add(Issue(Severity.WARNING, f"clip index unavailable ({exc}); group → clip links not checked",
                       code="clips"))
        return None
    dirs = [layout.animations for layout in layouts if layout.animations is not None]
    index = ClipIndex.build(dirs)
    roots = {layout.animations: layout.root for layout in layouts if layout.animations is not None}
    for path, reason in index.errors:
        sink.add(Issue(Severity.ERROR, f"animation file not readable: {reason}", file=str(path), code="clips"))
    for dup in index.duplicates:
        same_root = _root_of(dup.kept, roots) == _root_of(dup.ignored, roots)
        sink.add(Issue(
            Severity.WARNING if same_root else Severity.INFO,
            f"clip {dup.name!r} is defined again (first in {dup.kept}); the first is used" if same_root
            else f"clip {dup.name!r} is shadowed by {dup.kept} (an earlier root)",
            file=str(dup.ignored), code="duplicate" if same_root else "shadowed", kind="animation clips",
            subject=dup.name,
        ))
    return index


def _root_of(path: Path, roots: Mapping[Path, Path]) -> Path | None:
    for anim_dir, root in roots.items():
        if anim_dir in path.parents:
            return root
    return None


def load_resource_set(roots: Iterable[Path | str], *, index_clips: bool = True) -> ResourceSet:
    """Load every root (highest priority first) into one :class:`ResourceSet`.

    A root that is not a resource tree is reported as an error and skipped. Files no root
    provides that the runtime cannot do without (mood config, animation trigger map,
    reaction map) are reported as errors.
    """
    started = time.perf_counter()
    sink = L.IssueSink()
    layouts: list[RootLayout] = []
    for given in roots:
        root = find_root(given)
        if root is None:
            exists = Path(given).expanduser().is_dir()
            why = ("not a Cozmo resource tree (expected cozmo_resources/, or assets/ and config/ inside it)"
                   if exists else "no such directory")
            sink.add(Issue(Severity.ERROR, why, file=str(given), code="root"))
            continue
        if any(root == layout.root for layout in layouts):
            continue
        layouts.append(RootLayout.scan(root))
    total = sum(layout.json_file_count for layout in layouts)
    log.info("resources: loading %d JSON files from %s", total, ", ".join(str(x.root) for x in layouts) or "no roots")
    progress = _Progress(total)

    triggers = _load_kind(layouts, lambda x: x.trigger_maps, L.load_trigger_map, lambda r: r.event,
                          "animation triggers", sink, progress)
    groups = _load_kind(layouts, lambda x: x.groups, L.load_animation_group, lambda r: r.name,
                        "animation groups", sink, progress)
    cube_triggers = _load_kind(layouts, lambda x: x.cube_trigger_maps, L.load_trigger_map, lambda r: r.event,
                               "cube light triggers", sink, progress)
    cube_lights = _load_kind(layouts, lambda x: x.cube_lights, L.load_cube_lights, lambda r: r.name,
                             "cube light animations", sink, progress)
    backpack = _load_kind(layouts, lambda x: x.backpack_lights, L.load_backpack_lights, lambda r: r.name,
                          "backpack light patterns", sink, progress)
    mood = _load_mood(layouts, sink, progress)
    events = _load_kind(layouts, lambda x: x.emotion_events, L.load_emotion_events, lambda r: r.name,
                        "emotion events", sink, progress)
    reactions = _load_reactions(layouts, sink, progress)
    behaviors = _load_kind(layouts, lambda x: x.behaviors, L.load_behavior, lambda r: r.behavior_id,
                           "behaviours", sink, progress)
    activities = _load_kind(layouts, lambda x: x.activities, L.load_activities, lambda r: r.activity_id,
                            "activities", sink, progress)

    mapped = _merge_mapped_events(events, mood, behaviors.records, activities.records, sink)

    aliases: dict[str, Behavior] = {}
    for b in behaviors.records:
        for alias in b.aliases:
            if alias not in behaviors.by_name:
                aliases.setdefault(alias, b)

    for what, present in (
        ("config/engine/mood_config.json", mood is not None or any(x.mood_config for x in layouts)),
        ("assets/animationGroupMaps/AnimationTriggerMap.json", any(x.trigger_maps for x in layouts)),
        ("config/engine/behaviorSystem/reactionTrigger_behavior_map.json", any(x.reaction_map for x in layouts)),
    ):
        if layouts and not present:
            sink.add(Issue(Severity.ERROR, f"no root has {what}", code="missing-file"))
    if not layouts:
        sink.add(Issue(Severity.ERROR, "no resource roots to load", code="root"))

    clips = _index_clips(layouts, sink) if index_clips else None
    if clips is not None:
        progress.step("animation clips", 0, len(clips))

    elapsed = time.perf_counter() - started
    file_counts = {
        "animation triggers": sum(len(x.trigger_maps) for x in layouts),
        "animation groups": sum(len(x.groups) for x in layouts),
        "animation clips": clips.files_scanned if clips is not None else 0,
        "cube light triggers": sum(len(x.cube_trigger_maps) for x in layouts),
        "cube light animations": sum(len(x.cube_lights) for x in layouts),
        "backpack light patterns": sum(len(x.backpack_lights) for x in layouts),
        "mood config": sum(len(x.mood_config) for x in layouts),
        "emotion events": sum(len(x.emotion_events) for x in layouts),
        "reaction triggers": sum(len(x.reaction_map) for x in layouts),
        "behaviours": sum(len(x.behaviors) for x in layouts),
        "activities": sum(len(x.activities) for x in layouts),
    }
    records = {
        "animation triggers": tuple(triggers.records),
        "animation groups": tuple(groups.records),
        "cube light triggers": tuple(cube_triggers.records),
        "cube light animations": tuple(cube_lights.records),
        "backpack light patterns": tuple(backpack.records),
        "mood config": (mood,) if mood is not None else (),
        "emotion events": tuple(events.records) + tuple(mapped.records),
        "reaction triggers": tuple(reactions),
        "behaviours": tuple(behaviors.records),
        "activities": tuple(activities.records),
    }
    rs = ResourceSet(
        roots=tuple(x.root for x in layouts),
        anim_triggers=MappingProxyType(triggers.by_name),
        animation_groups=MappingProxyType(groups.by_name),
        cube_triggers=MappingProxyType(cube_triggers.by_name),
        cube_lights=MappingProxyType(cube_lights.by_name),
        backpack_lights=MappingProxyType(backpack.by_name),
        mood=mood,
        emotion_events=MappingProxyType(events.by_name),
        reactions=tuple(reactions),
        behaviors=MappingProxyType(behaviors.by_name),
        behavior_aliases=MappingProxyType(aliases),
        activities=MappingProxyType(activities.by_name),
        clips=clips,
        records=MappingProxyType(records),
        file_counts=MappingProxyType(file_counts),
        issues=sink.issues,
        load_seconds=elapsed,
        mapped_events=MappingProxyType(mapped.by_name),
    )
    log.info("resources: %d files loaded in %.2f s: %s", total + file_counts["animation clips"], elapsed,
             ", ".join(f"{n} {k}" for k, n in rs.counts().items() if n))
    return rs
