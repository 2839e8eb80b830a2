"""Loading a personality: assemble the files, build the tree, collect every problem.

:func:`load_personality` is what the engine calls on start and on each reload; it raises
:class:`~brain.personality.issues.PersonalityError` with every problem, or returns a
:class:`Personality`. :func:`check_personality` runs the same steps for ``cozmo-brain check`` and
returns the problems instead. Both build the whole document, unused subtrees and activities
included, so a mistake anywhere is found before the robot moves.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from py_trees.behaviour import Behaviour
from py_trees.decorators import Decorator

from brain.arousal import SleepParams
from brain.assets.issues import Issue, Severity
from brain.context import BrainContext
from brain.mood import DEFAULT_CONFIG, EmotionEvent, Mood, MoodConfig
from brain.reactions import Reaction, first_match
from brain.rhythm import Schedule
from driver.events import RobotEvent

from .arousal_section import build_arousal
from .assembly import Assembler
from .behaviors_section import check_all
from .builder import Builder
from .issues import IssueList, PersonalityError, display_path, format_issue
from .located import LMap, Loc, plain, short_repr, suggest
from .mood_overrides import MoodOverrides, build_mood_overrides
from .reaction_entries import build_reactions
from .schedule import build_schedule

__all__ = [
    "Personality",
    "check_personality",
    "context_for_check",
    "iter_tree",
    "load_personality",
]

log = logging.getLogger(__name__)

_PARAMETER_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class Personality:
    """A loaded personality: the tree to tick, the reactions, mood overrides and parameters."""

    name: str
    path: Path
    root: Behaviour
    reactions: list[Reaction]
    mood: MoodOverrides
    parameters: dict[str, Any]
    #: quiet hours and night (empty: never quiet)
    schedule: Schedule = field(default_factory=Schedule)
    #: how it tires and rests (the ``arousal:`` section over the defaults)
    arousal: SleepParams = field(default_factory=SleepParams)
    nodes: dict[str, Behaviour] = field(default_factory=dict)
    subtrees: tuple[str, ...] = ()
    activities: tuple[str, ...] = ()
    issues: list[Issue] = field(default_factory=list)
    #: the files it was assembled from, its own first (what ``include`` and ``extends`` named)
    files: tuple[Path, ...] = ()

    def reaction_for(self, event: RobotEvent) -> Reaction | None:
        """The highest-priority reaction a robot event fires, if any."""
        return first_match(self.reactions, event)


def _parameters(doc: LMap, issues: IssueList, given: Mapping[str, Any] | None) -> dict[str, Any]:
    """The file's parameter defaults with ``given`` over them (a given name the file lacks is an error)."""
    raw = doc.get("parameters")
    params: dict[str, Any] = {}
    if raw is not None:
        if not isinstance(raw, LMap):
            issues.add(doc.at("parameters"), "parameters",
                       f"expected a mapping of name: default, got {short_repr(raw)}")
        else:
            for k, v in raw.items():
                if not isinstance(k, str) or not _PARAMETER_NAME.fullmatch(k):
                    issues.add(raw.at(k), f"parameters.{k}", "a parameter name is letters, digits and _")
                    continue
                params[k] = plain(v)
    for k, v in (given or {}).items():
        if k not in params:
            issues.add(Loc(doc.loc.file), f"parameters.{k}", f"no such parameter in the personality"
                       f"{suggest(k, params)}")
        params[k] = v
    return params


def _build_personality(path: Path, ctx: BrainContext, parameters: Mapping[str, Any] | None,
                       issues: IssueList, files: list[Path]) -> Personality | None:
    path = Path(path)
    assembler = Assembler(issues)
    doc = assembler.read(path)
    files.extend(assembler.files)
    if doc is None:
        return None
    params = _parameters(doc, issues, parameters)
    builder = Builder(doc, ctx, issues, params)
    root = None
    if "root" not in doc:
        issues.add(Loc(display_path(path), 1), "root", "missing: a personality needs a root node")
    else:
        root = builder.build(doc["root"], doc.at("root"), "root")[0]
    # check every subtree and activity, even unused ones
    for name in builder.subtrees:
        builder.build(builder.subtrees[name], builder.subtrees.at(name), f"subtrees.{name}", (name,))
    for name in builder.activities:
        builder.activity(name, (name,))
    check_all(builder)
    reactions = build_reactions(builder)
    mood = build_mood_overrides(builder)
    schedule = build_schedule(builder)
    arousal = build_arousal(builder)
    title = doc.get("name")
    if title is not None and not isinstance(title, str):
        issues.add(doc.at("name"), "name", f"expected a string, got {short_repr(title)}")
        title = None
    if root is None or issues.errors:
        return None
    return Personality(
        name=title or path.stem, path=path, root=root, reactions=reactions, mood=mood, parameters=params,
        schedule=schedule, arousal=arousal,
        nodes=builder.nodes, subtrees=tuple(builder.subtrees), activities=tuple(builder.activities),
        issues=[i for i in issues.items if i.severity < Severity.ERROR], files=tuple(files),
    )


def load_personality(path: Path | str, ctx: BrainContext, *, parameters: Mapping[str, Any] | None = None
                     ) -> Personality:
    """Load, validate and build a personality for one robot's context.

    ``parameters`` overrides the file's parameter defaults. Raises :class:`PersonalityError`
    listing every problem (file, line, key path, message); warnings are kept in
    ``Personality.issues`` and logged.
    """
    issues = IssueList()
    files: list[Path] = []
    personality = _build_personality(Path(path), ctx, parameters, issues, files)
    if personality is None:
        raise PersonalityError(issues.items, files)
    for issue in personality.issues:
        log.warning("%s", format_issue(issue))
    return personality


def context_for_check(resource_set: Any = None) -> BrainContext:
    """An offline context for validating or displaying a personality: no robot, the resource set's mood."""
    mood = None
    if resource_set is not None and getattr(resource_set, "mood", None) is not None:
        try:
            config = MoodConfig.from_record(resource_set.mood)
            events = [EmotionEvent.from_record(e) for e in resource_set.emotion_events.values()]
            mood = Mood(config, events)
        except Exception as exc:  # a broken mood config is reported by the resource checker
            log.info("mood not available for checking emotion names: %s", exc)
    if mood is None:
        mood = Mood(DEFAULT_CONFIG)  # Cozmo's emotion types and default decay curve
    return BrainContext(robot=None, mood=mood, resources=resource_set)


def check_personality(path: Path | str, resource_set: Any = None) -> list[Issue]:
    """Every problem of a personality as :class:`brain.assets.Issue` records (errors and warnings)."""
    issues = IssueList()
    _build_personality(Path(path), context_for_check(resource_set), None, issues, [])
    return issues.items


def iter_tree(root: Behaviour) -> Iterator[Behaviour]:
    """Every node under ``root``, parents first."""
    yield root
    children = root.children if not isinstance(root, Decorator) else [root.decorated]
    for child in children:
        yield from iter_tree(child)
