"""Reactions: which robot event fires which reaction, and the node that runs them.

Cozmo ran reactions (cliff, pick-up, poke …) above whatever it was doing. Everything a reaction
*is* lives here, in one place:

* :data:`REACTION_EVENTS`, the table from Cozmo's reaction-trigger names to the robot events
  that fire them;
* :func:`event_value_matches`, the value test shared by reactions and the ``recent_event``
  condition (a status flag's edge, or an orientation by name);
* :class:`Reaction`, one loaded reaction (its trigger, subtree, priority, whether it resumes
  what it interrupted) with :meth:`Reaction.matches`, and :func:`first_match`;
* :class:`ReactionRunner`, the py_trees node that runs the active reaction, decides which of
  two reactions wins and keeps a less important one waiting.

The personality package (:mod:`brain.personality`) builds :class:`Reaction` records from a
file's ``reactions:`` section; :class:`brain.nodes.reactions.ReactiveRoot` puts the runner above
the personality's tree and suspends or resumes the tree around each reaction.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from py_trees.behaviour import Behaviour
from py_trees.common import Status

from driver.events import EVENT_KINDS

from .nodes.status import FAILURE, INVALID, RUNNING, SUCCESS

if TYPE_CHECKING:  # brain.context imports this module for event_value_matches
    from brain.context import BrainContext
    from driver.events import RobotEvent

__all__ = [
    "PENDING_TTL_S",
    "REACTION_EVENTS",
    "Reaction",
    "ReactionRunner",
    "event_value_matches",
    "first_match",
]

log = logging.getLogger(__name__)

#: How long a reaction offered while a more important one runs may wait for its turn (seconds).
PENDING_TTL_S = 5.0

#: Reaction trigger → (robot event kind, the event's value or None for any). The value is a status
#: flag's edge (True: turned on) or, for orientation changes, the new orientation (``on_side``:
#: either side). Cozmo's trigger names plus a few for events the driver reports that Cozmo's map
#: had no trigger for. Kinds are names of :data:`driver.events.EVENT_KINDS`, which turns them into
#: the event types a reaction matches. As in Cozmo's engine, being picked up, tipped over, put
#: back on the treads, shaken, placed on a slope or pushed are read from the robot's attitude
#: (:mod:`driver.attitude`): RobotPickedUp fires when the robot is held level in the air, not on
#: the raw pick-up flag (which still stops the motors: :mod:`brain.safety`). A reaction to the
#: cliff flag turning on does not fire while the robot is held
#: (:attr:`driver.events.StatusChanged.held`): a real robot's cliff sensor also loses the floor
#: when it is lifted or tipped over, and those have reactions of their own.
REACTION_EVENTS: dict[str, tuple[str, bool | str | None]] = {
    "CliffDetected": ("cliff", True),
    "RobotPickedUp": ("orientation", "in_air"),
    "ReturnedToTreads": ("returned_to_treads", None),
    "RobotShaken": ("shaken", None),
    "RobotPlacedOnSlope": ("placed_on_slope", None),
    "UnexpectedMovement": ("unexpected_movement", None),
    "RobotFalling": ("falling_started", None),
    "PlacedOnCharger": ("on_charger", True),
    "CubeMoved": ("cube_moved", None),
    "DoubleTapDetected": ("cube_tapped", "double"),
    "Poked": ("poked", None),
    "CubeTapped": ("cube_tapped", None),
    "ButtonPressed": ("button", True),
    "MotorCalibration": ("motor_calibration", None),
    "RobotOnBack": ("orientation", "on_back"),
    "RobotOnFace": ("orientation", "on_face"),
    "RobotOnSide": ("orientation", "on_side"),
    "RobotOnLeftSide": ("orientation", "on_left_side"),
    "RobotOnRightSide": ("orientation", "on_right_side"),
}


def event_value_matches(event: Any, expected: bool | str | None) -> bool:
    """Whether a robot event has the value a reaction or condition asks for.

    None accepts any event; a bool is compared with a status edge's ``value``; a string names a
    value such as an orientation (events with a ``matches`` method decide, e.g. ``on_side``).
    Events without a value match any expectation.
    """
    if expected is None or not hasattr(event, "value"):
        return True
    if isinstance(expected, str):
        matches = getattr(event, "matches", None)
        return bool(matches(expected)) if callable(matches) else str(event.value) == expected
    return bool(event.value) == expected


@dataclass(frozen=True)
class Reaction:
    """What the robot does when a reaction trigger fires.

    ``event_kind``/``event_value`` say which robot event fires it (``value`` selects the edge
    of a status flag, or an orientation by name; None matches any). Higher ``priority``
    reactions interrupt lower ones; ``should_resume_last`` asks the runner to resume the
    interrupted branch afterwards. ``file`` and ``line`` say where the personality wrote it.
    """

    trigger: str
    root: Behaviour
    priority: int = 0
    should_resume_last: bool = False
    event_kind: str | None = None
    event_value: bool | str | None = None
    file: str = ""
    line: int | None = None

    def matches(self, event: RobotEvent) -> bool:
        """Whether a robot event fires this reaction: of the kind's type (class and flag), with the value."""
        event_type = EVENT_KINDS.get(self.event_kind) if self.event_kind is not None else None
        if event_type is None or not event_type.matches(event):
            return False
        if not event_value_matches(event, self.event_value):
            return False
        if self.event_kind == "cliff" and self.event_value is True:
            # the floor ended under it: not the sensor losing it as the robot is lifted
            return not getattr(event, "held", False)
        return True


def first_match(reactions: Iterable[Reaction], event: RobotEvent) -> Reaction | None:
    """The first of ``reactions`` (kept sorted by falling priority) that ``event`` fires, if any."""
    for reaction in reactions:
        if reaction.matches(event):
            return reaction
    return None


class ReactionRunner(Behaviour):
    """Runs the active reaction's subtree; FAILURE when there is none, so the personality runs.

    A new reaction replaces the active one only at a strictly higher priority; the same trigger
    firing again while it runs is ignored (a robot held in the air keeps reporting it). A
    different, less important reaction offered meanwhile waits (the most important such one,
    for up to ``pending_ttl_s``) and runs when the active one ends: a robot put down while it
    still reacts to being picked up then reacts to the put-down too.

    ``on_start`` callbacks see every reaction as it starts (offered, or started after waiting);
    ``finished`` is the reaction that ended on the last tick, for the root above to decide
    whether the interrupted branch resumes.
    """

    def __init__(self, ctx: BrainContext, pending_ttl_s: float = PENDING_TTL_S) -> None:
        super().__init__(name="Reactions")
        self.ctx = ctx
        self.pending_ttl_s = pending_ttl_s
        self.active: Reaction | None = None
        self.pending: Reaction | None = None
        self.pending_since = 0.0
        self.finished: Reaction | None = None
        #: the reaction the last one to start interrupted (None: it interrupted none)
        self.replaced: Reaction | None = None
        self.handled = 0
        self.on_start: list[Callable[[Reaction], None]] = []

    def offer(self, reaction: Reaction) -> bool:
        """Start ``reaction`` if nothing more important is running; True when it was taken."""
        if self.active is not None:
            if reaction.trigger == self.active.trigger:
                return False
            if reaction.priority <= self.active.priority:
                if self.pending is None or reaction.priority >= self.pending.priority:
                    self.pending, self.pending_since = reaction, self.ctx.now()
                return False
            log.info("reaction %s interrupts reaction %s", reaction.trigger, self.active.trigger)
            self.active.root.stop(INVALID)
        self.replaced = self.active
        self._start(reaction)
        return True

    def _start(self, reaction: Reaction) -> None:
        if self.pending is reaction:
            self.pending = None
        self.active = reaction
        self.handled += 1
        self.ctx.fire_emotion(reaction.trigger)
        log.info("reaction %s (priority %d)", reaction.trigger, reaction.priority)
        for callback in list(self.on_start):
            callback(reaction)

    def start_pending(self) -> bool:
        """Start the reaction that waited for the active one to end, if it is still fresh."""
        reaction, self.pending = self.pending, None
        if self.active is not None or reaction is None:
            return False
        if self.ctx.now() - self.pending_since > self.pending_ttl_s:
            log.debug("reaction %s waited too long and is dropped", reaction.trigger)
            return False
        self.replaced = None
        self._start(reaction)
        return True

    def clear(self) -> None:
        """Forget every reaction (the personality is being replaced)."""
        if self.active is not None:
            self.active.root.stop(INVALID)
        self.active = self.pending = self.finished = None

    def initialise(self) -> None:
        """A fresh run has no finished reaction yet."""
        self.finished = None

    def update(self) -> Status:
        """Tick the active reaction's subtree; SUCCESS on the tick it ends, FAILURE when idle."""
        self.finished = None
        if self.active is None:
            return FAILURE
        root = self.active.root
        for _ in root.tick():
            pass
        if root.status in (SUCCESS, FAILURE):
            log.info("reaction %s finished (%s)", self.active.trigger, root.status.value)
            self.finished, self.active = self.active, None
            root.stop(INVALID)
            return SUCCESS
        return RUNNING

    def terminate(self, new_status: Status) -> None:
        """Interrupted from above: stop the active reaction's subtree too."""
        if new_status == INVALID and self.active is not None:
            self.active.root.stop(INVALID)
