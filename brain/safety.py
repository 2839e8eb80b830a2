"""Safety outside the tree, and the one place the motor-stop policy is written down.

Who stops the motors when the robot is in danger or out of touch, and why there are several:

1. **The firmware's stop-on-cliff.** At start-up the Robot sends ``EnableStopOnCliff`` (on unless
   ``Robot(stop_on_cliff=False)``); the robot then stops driving forward by itself the moment its
   cliff sensor sees an edge, with no round trip to the host. It is the fastest stop, but it
   knows only cliffs and only the treads, and it holds nothing afterwards. (The firmware turns it
   back on when the engine disconnects.)
2. **The safety layer: this module.** On the edge of a cliff, a pick-up or a fall (the status
   flag turning on, or ``FallingStarted``) and when the robot comes to lie on its back, face or
   side, :class:`Safety` sends StopAllMotors (treads, head and lift) from the Robot's receive
   path, whatever the tree is doing: the tree would only react on its next tick, up to a
   heartbeat later, and a robot driving off a table cannot wait that long. It listens as a hazard
   listener (:meth:`driver.robot.Robot.add_hazard_listener`), so the Robot calls it before every
   ordinary listener, whatever the order of registration: its stop reaches the robot before
   anything another listener sends in answer to the same event. It stops once per hazard edge and
   holds nothing: while a hazard lasts, :attr:`Safety.hazard` names it, so the tree and the log
   can see why the robot froze; it clears on the opposite edge (flag off, ``FallingStopped``,
   another orientation).
3. **The reaction's own stop.** The reaction the same event fires (``CliffDetected``,
   ``RobotPickedUp``, ``RobotOnBack`` …) starts on the next tick; the interrupted branch's
   running leaves cancel their own motions, and ``ReactToCliff`` and ``ReactToPickup`` begin with
   a ``stop_motors`` of their own (which also stops anything started in between). After that the
   reaction is free to move the motors again: back away from the edge, try to flip over.
4. **After a lost link.** When the robot is back after a loss (``Reconnected``), the brain
   (:mod:`brain.engine`) stops the motors before the personality resumes, so nothing commanded
   before the link dropped keeps running.

A new hazard belongs here (:data:`HAZARD_FLAGS`, :data:`TIPPED_OVER`, the handlers), not in the
tree. Events are told apart by type and status flag, not by their ``kind`` names.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from driver import events as ev
from driver.robot import Robot, RobotError
from driver.samples import RobotStatus

log = logging.getLogger(__name__)

#: Status flags that stop the motors when they turn on; the hazard is named by the flag's event
#: kind (``cliff``, ``picked_up``, ``falling``).
HAZARD_FLAGS: frozenset[RobotStatus] = frozenset(
    {RobotStatus.CLIFF_DETECTED, RobotStatus.IS_PICKED_UP, RobotStatus.IS_FALLING}
)
#: Orientations that stop the motors when the robot comes to lie that way (the hazard's name).
TIPPED_OVER = {"on_back": "on_back", "on_face": "on_face", "on_left_side": "on_side", "on_right_side": "on_side"}
#: The hazard ``FallingStarted`` names (the same as the falling status flag's).
FALLING = ev.FLAG_KINDS[RobotStatus.IS_FALLING]
#: Which hazard names the situation when several are in force: the cause before its
#: consequences (a robot on its back is also off its treads, and its cliff sensor sees no floor).
HAZARD_ORDER = ("falling", "on_back", "on_face", "on_side", "picked_up", "cliff")


class Safety:
    """Stops the motors on hazards; one per robot (see the module docstring for the policy)."""

    def __init__(self, robot: Robot, on_stop: Callable[[str], None] | None = None) -> None:
        self.robot = robot
        self.on_stop = on_stop
        self.active: set[str] = set()
        self.stops = 0
        self.last_stop_at: float | None = None
        #: Event type → handler; events of other types are none of safety's business.
        self._handlers: dict[type[ev.RobotEvent], Callable[[Any], None]] = {
            ev.StatusChanged: self._on_status,
            ev.FallingStarted: self._on_falling_started,
            ev.FallingStopped: self._on_falling_stopped,
            ev.OrientationChanged: self._on_orientation,
        }
        self._remove = robot.add_hazard_listener(self._on_event)

    @property
    def hazard(self) -> str | None:
        """The hazard in force, if any: ``cliff``, ``falling``, ``on_back``, ``on_face``, ``on_side``, ``picked_up``."""
        if not self.active:
            return None
        return min(self.active, key=lambda h: HAZARD_ORDER.index(h) if h in HAZARD_ORDER else len(HAZARD_ORDER))

    def _on_event(self, event: ev.RobotEvent) -> None:
        for cls in type(event).__mro__:  # the event's own type first, then what it derives from
            handler = self._handlers.get(cls)
            if handler is not None:
                handler(event)
                return

    def _on_status(self, event: ev.StatusChanged) -> None:
        if event.flag not in HAZARD_FLAGS:
            return
        hazard = ev.FLAG_KINDS[event.flag]
        if event.value:
            self.active.add(hazard)
            if event.flag == RobotStatus.CLIFF_DETECTED and event.status & RobotStatus.IS_PICKED_UP:
                return  # held: the sensor lost the floor with the pick-up, which stopped the motors
            self._stop(hazard, event.at)
        else:
            self.active.discard(hazard)

    def _on_falling_started(self, event: ev.FallingStarted) -> None:
        self.active.add(FALLING)
        self._stop(FALLING, event.at)

    def _on_falling_stopped(self, event: ev.FallingStopped) -> None:
        self.active.discard(FALLING)

    def _on_orientation(self, event: ev.OrientationChanged) -> None:
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
