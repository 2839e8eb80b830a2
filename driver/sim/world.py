"""What happens to the simulated Cozmo from outside: being picked up, poked, tapped, silenced, rebooted.

:class:`WorldEvents` is the part of :class:`~driver.sim.server.SimulatedCozmo` that a test, a
scripted timeline (:mod:`driver.sim.script`) or a user changes about the robot's world and body,
as opposed to what the engine commands over the link.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..protocol import messages as m
from .body import Body
from .cubes import CubeRadio
from .faults import NetworkFaults
from .script import Step

if TYPE_CHECKING:
    from ..link import Link

log = logging.getLogger("driver.sim.server")

__all__ = ["WorldEvents"]


class WorldEvents:
    """World events of the simulated robot (mixed into :class:`~driver.sim.server.SimulatedCozmo`)."""

    body: Body
    faults: NetworkFaults
    cubes: CubeRadio
    link: Link | None
    motors_calibrated: bool
    _reverts: list[tuple[float, Callable[[], None]]]

    if TYPE_CHECKING:
        def send(self, msg: Any) -> None: ...  # noqa: D102
        def _timestamp(self) -> int: ...
        def _forget_all(self) -> None: ...

    def pick_up(self, duration: float | None = None) -> None:
        """Lift the robot off the ground (optionally putting it back after ``duration`` s)."""
        self.body.picked_up = True
        self.body.stop_all()
        if duration:
            self._revert_after(duration, self.put_down)

    def put_down(self) -> None:
        """Put the robot back on the ground."""
        self.body.picked_up = False

    def set_cliff(self, on: bool = True, duration: float | None = None) -> None:
        """Show (or clear) a cliff under the front sensors."""
        self.body.cliff = on
        if on and duration:
            self._revert_after(duration, lambda: self.set_cliff(False))

    def fall(self, duration: float = 0.6) -> None:
        """A free fall: FallingStarted now, FallingStopped with the impact after ``duration`` s."""
        self.body.falling = True
        self.send(m.FallingStarted())

        def land() -> None:
            self.body.falling = False
            self.send(m.FallingStopped(duration_ms=int(duration * 1000), impact_intensity=1200.0))

        self._revert_after(duration, land)

    def press_button(self) -> None:
        """The backpack button (hardware v5+)."""
        self.send(m.ButtonPressed(pressed=True))
        self._revert_after(0.2, lambda: self.send(m.ButtonPressed(pressed=False)))

    def poke(self) -> None:
        """Someone pokes the robot."""
        self.send(m.RobotPoked())

    def tap_cube(self, object_id: int = 1, taps: int = 1) -> None:
        """Light cube ``object_id`` (its number in the kit, 1–3) is tapped; heard only if connected.

        As a real cube's tap (hardware.md §5): ObjectTapped with the values a captured tap had
        (tap time 6, −48 / +49) and ObjectTapFiltered (time 6, intensity 97) with it."""
        slot = self.cubes.event_slot(object_id, "tap")
        if slot is not None:
            stamp = self._timestamp()
            self.send(m.ObjectTapped(timestamp=stamp, object_id=slot, num_taps=taps,
                                     tap_time=6, tap_neg=-48, tap_pos=49))
            self.send(m.ObjectTapFiltered(timestamp=stamp, object_id=slot, time=6, intensity=97))

    def move_cube(self, object_id: int = 1, seconds: float = 0.5, flip: bool = False) -> None:
        """Light cube ``object_id`` (1–3) is moved about for ``seconds`` (``flip``: and left upside
        down, or upright again); heard only if connected. ObjectMoved comes now, ObjectUpAxisChanged
        when a flip is done, ObjectStoppedMoving about 1.1 s after the move began (at least 0.6 s
        after it ended), and a streaming cube's accelerometer shows the move."""
        slot = self.cubes.event_slot(object_id, "flip" if flip else "move")
        if slot is not None:
            self.send(m.ObjectMoved(timestamp=self._timestamp(), object_id=slot, active_accel_x=10.0,
                                    active_accel_y=0.0, active_accel_z=0.0, axis_of_accel=0))
            self.cubes.move(object_id, seconds, flip=flip)

    def flip_cube(self, object_id: int = 1, seconds: float = 3.0) -> None:
        """Light cube ``object_id`` (1–3) is turned over, carefully (``seconds`` in the hand): upside
        down, or back up."""
        self.move_cube(object_id, seconds, flip=True)

    def connect_cube(self, object_id: int = 1) -> None:
        """Light cube ``object_id`` (1–3) is switched on: it advertises, and the engine may connect it."""
        self.cubes.switch(object_id, True)

    def set_on_charger(self, on: bool = True) -> None:
        """Place the robot on (or take it off) its charger."""
        self.body.on_charger = on

    def set_battery(self, volts: float) -> None:
        """Force the battery voltage."""
        self.body.battery_v = volts

    def go_silent(self, duration: float) -> None:
        """Stop answering (both ways) for ``duration`` seconds."""
        self.faults.silent = True

        def wake() -> None:
            self.faults.silent = False

        self._revert_after(duration, wake)

    def reboot(self, boot_s: float = 0.0) -> None:
        """Restart as a robot does: forget the engine and everything it asked for, then boot.

        Nothing tells the engine: it notices the silence. For ``boot_s`` seconds the robot answers
        nothing; after that it waits for a new Reset. The world goes on (the timeline keeps its
        clock, a robot held in the air stays there).
        """
        log.info("sim: rebooting%s", f" ({boot_s:.1f} s to boot)" if boot_s else "")
        if self.link is not None:
            self.link.forget("rebooting")
        self._forget_all()
        self.motors_calibrated = False  # a booting robot calibrates its motors again
        if boot_s > 0:
            self.faults.silent = True

            def booted() -> None:
                self.faults.silent = False
                log.info("sim: booted")

            self._revert_after(boot_s, booted)

    def run_step(self, step: Step) -> None:
        """Carry out one scripted event."""
        a = step.args
        actions: dict[str, Callable[[], None]] = {
            "pick_up": lambda: self.pick_up(a.get("for")),
            "put_down": self.put_down,
            "cliff": lambda: self.set_cliff(True, a.get("for")),
            "cliff_clear": lambda: self.set_cliff(False),
            "fall": lambda: self.fall(a.get("for", 0.6)),
            "button": self.press_button,
            "poke": self.poke,
            "cube_tap": lambda: self.tap_cube(a["object_id"], a["taps"]),
            "cube_move": lambda: self.move_cube(a["object_id"], a.get("for") or 0.5),
            "cube_flip": lambda: self.flip_cube(a["object_id"], a.get("for") or 3.0),
            "cube_connect": lambda: self.connect_cube(a["object_id"]),
            "cube_off": lambda: self.cubes.switch(a["object_id"], False),
            "on_charger": lambda: self.set_on_charger(True),
            "off_charger": lambda: self.set_on_charger(False),
            "battery": lambda: self.set_battery(a["volts"]),
            "silent": lambda: self.go_silent(a["for"]),
            "reboot": lambda: self.reboot(a.get("for") or 0.0),
            "orientation": lambda: self.body.set_orientation(a["orientation"], a.get("for")),
            "shake": lambda: self.body.shake(a["for"]),
            "fist_bump": self.body.fist_bump,
        }
        log.info("sim: scripted %s at %.1f s %s", step.event, step.at, a or "")
        actions[step.event]()

    def _revert_after(self, delay: float, fn: Callable[[], None]) -> None:
        self._reverts.append((asyncio.get_running_loop().time() + delay, fn))
