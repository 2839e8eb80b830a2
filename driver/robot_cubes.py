"""The robot's side of its light cubes: which to connect, their lights, taps, moves and streams.

:class:`RobotCubes` is mixed into :class:`driver.robot.Robot`: it answers the cubes' adverts
through the engine's choice (:class:`driver.cubes.CubePool`), reports connections, up-axis changes
and streamed accelerometer readings (a movement score per streaming cube,
:class:`driver.cubes.CubeMotion`), and sends the cubes' lights.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from . import events as ev
from .cubes import CubeMotion, CubePool
from .protocol import messages as m
from .protocol.table import UpAxis

__all__ = ["RobotCubes"]

log = logging.getLogger("driver.robot")


class RobotCubes:
    """Cube handling of a :class:`~driver.robot.Robot` (a mixin: the robot provides the rest)."""

    cubes: CubePool
    cube_motion: dict[int, CubeMotion]
    connect_cubes: bool
    name: str
    _ready: bool

    if TYPE_CHECKING:
        def send(self, msg: Any) -> None: ...  # noqa: D102
        def _now(self) -> float: ...
        def _emit(self, event: Any) -> None: ...

    def _on_cube_advert(self, msg: Any) -> None:
        requests = self.cubes.advert(int(msg.factory_id), int(msg.object_type), int(msg.rssi), self._now())
        self._ask_for_cubes(requests)

    def _on_cube_accel(self, msg: Any) -> None:
        motion = self.cube_motion.get(int(msg.object_id))
        if motion is not None:
            motion.update(float(msg.accel_x), float(msg.accel_y), float(msg.accel_z))

    def stream_cube_accel(self, object_id: int, enable: bool = True) -> None:
        """Ask cube ``object_id`` (its slot) to stream its accelerometer (ObjectAccel, ≈ 25 a
        second) or to stop; while it streams, :meth:`cube_movement` says how much it moves."""
        if enable:
            self.cube_motion.setdefault(object_id, CubeMotion())
        else:
            self.cube_motion.pop(object_id, None)
        self.send(m.StreamObjectAccel(object_id=object_id, enable=enable))

    def cube_movement(self, object_id: int) -> float | None:
        """The movement score of a streaming cube (0 at rest, up to 80 carried about), else None."""
        motion = self.cube_motion.get(object_id)
        return None if motion is None else motion.score

    def _on_cube_connection(self, msg: Any) -> None:
        slot, factory_id, connected = int(msg.object_id), int(msg.factory_id), bool(msg.connected)
        self.cubes.connection(slot, factory_id, connected, self._now())
        if not connected:
            self.cube_motion.pop(slot, None)
        log.info("%s: cube 0x%08x %s slot %d", self.name, factory_id, "connected in" if connected else "left",
                 slot)
        self._emit(ev.CubeConnection(self._now(), object_id=slot, factory_id=factory_id, connected=connected))

    def _ask_for_cubes(self, requests: list[tuple[int, int]]) -> None:
        """Send SetPropSlot for each (factory id, slot) the pool chose (when connected and wanted;
        otherwise the pool asks again on the next advert)."""
        if not (self.connect_cubes and self._ready):
            self.cubes.withdraw(requests)
            return
        for factory_id, slot in requests:
            log.debug("%s: asking for cube 0x%08x in slot %d", self.name, factory_id, slot)
            self.send(m.SetPropSlot(factory_id=factory_id, slot=slot))

    def _on_cube_up_axis(self, msg: Any) -> None:
        self._emit(ev.CubeUpAxisChanged(self._now(), object_id=int(msg.object_id), axis=_axis_name(int(msg.axis))))

    def set_cube_lights(self, object_id: int, states: list[Any], rotation_frames: int = 0) -> None:
        """Set a cube's four LEDs with LightState patterns; ``rotation_frames`` (30 ms frames, 0:
        none) turns the pattern round the cube's four LEDs."""
        self.send(m.CubeId(object_id=object_id, rotation_period_frames=max(0, min(255, rotation_frames))))
        self.send(m.CubeLights(states=states))


def _axis_name(value: int) -> str:
    """A cube's up axis by name (``Z_NEGATIVE`` …), ``UNKNOWN`` for a value out of the table."""
    try:
        return UpAxis(value).name
    except ValueError:
        return "UNKNOWN"
