"""Safety outside the tree: on cliff, pick-up, fall or tipping over, stop the motors at once.

The behaviour tree reacts on its next tick, up to a heartbeat later; a robot driving off a table
cannot wait that long. :class:`Safety` listens to the Robot's events in the receive path itself
and sends StopAllMotors the moment a hazard edge arrives, whatever the tree is doing. While a
hazard lasts, ``hazard`` names it, so the tree (and the log) can see why the robot is frozen.

Lying on its back, face or side is a hazard too: the treads are off the floor, so whatever was
driving them (or the lift, pushing against the table) stops; the reaction that follows is free to
move the motors again (e.g. to flip over).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from driver import events as ev
from driver.robot import Robot, RobotError

log = logging.getLogger(__name__)

#: Event kinds that stop the motors when they turn on.
HAZARD_KINDS = frozenset({"cliff", "picked_up", "falling"})
#: Orientations that stop the motors when the robot comes to lie that way (the hazard's name).
TIPPED_OVER = {"on_back": "on_back", "on_face": "on_face", "on_left_side": "on_side", "on_right_side": "on_side"}


class Safety:
    """Stops the motors on hazards; one per robot."""

    def __init__(self, robot: Robot, on_stop: Callable[[str], None] | None = None) -> None:
        self.robot = robot
        self.on_stop = on_stop
        self.active: set[str] = set()
        self.stops = 0
        self.last_stop_at: float | None = None
        self._remove = robot.add_listener(self._on_event)

    @property
    def hazard(self) -> str | None:
        """The hazard in force, if any: ``cliff``, ``falling``, ``on_back``, ``on_face``, ``on_side``, ``picked_up``."""
        return min(self.active) if self.active else None

    def _on_event(self, event: ev.RobotEvent) -> None:
        kind = event.kind
        if isinstance(event, ev.StatusChanged) and kind in HAZARD_KINDS:
            if event.value:
                self.active.add(kind)
                self._stop(kind, event.at)
            else:
                self.active.discard(kind)
        elif isinstance(event, ev.FallingStarted):
            self.active.add("falling")
            self._stop("falling", event.at)
        elif isinstance(event, ev.FallingStopped):
            self.active.discard("falling")
        elif isinstance(event, ev.OrientationChanged):
            self.active.difference_update(TIPPED_OVER.values())
            hazard = TIPPED_OVER.get(event.orientation)
            if hazard is not None:
                self.active.add(hazard)
                self._stop(hazard, event.at)

    def _stop(self, why: str, at: float) -> None:
        try:
            self.robot.stop_all_motors()
        except RobotError:
            return
        self.stops += 1
        self.last_stop_at = at
        log.warning("safety: %s - all motors stopped", why.replace("_", " "))
        if self.on_stop is not None:
            self.on_stop(why)

    def close(self) -> None:
        """Stop listening."""
        self._remove()
