"""The light cubes beside the simulated robot: they advertise, and connect only when asked.

A real robot never connects a cube by itself (hardware.md §5, §7.11): each cube that is on and
not connected advertises about once a second (ObjectAvailable: factory id, type, a signal byte),
starting shortly after the engine's SyncTime, and the engine asks for one in a slot
(SetPropSlot: factory id and slot 0–4; factory id 0 empties the slot). The robot answers with
ObjectConnectionState, whose ``object_id`` is the slot, and names the cube by that slot in every
later message. A tap on a cube that is not connected reaches no one.

Cubes are numbered 1–3 as the kit's are (one of each type), and scripts and tests name them so;
:meth:`CubeRadio.slot_of` says which slot a cube is connected in.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..protocol import messages as m
from ..protocol.registry import rgb555_to_rgb
from ..protocol.table import ObjectType, UpAxis

log = logging.getLogger("driver.sim.server")

__all__ = ["ADVERT_EVERY_S", "FIRST_ADVERT_S", "CubeRadio", "SimCube"]

#: Each cube that is on and not connected advertises this often (s).
ADVERT_EVERY_S = 1.0
#: The first adverts come this long after SyncTime (a real robot's: ≈ 0.2 s, before its first state).
FIRST_ADVERT_S = 0.2
#: Slots a robot has for cubes.
SLOTS = 5
#: A streaming cube sends ObjectAccel this often (s): ≈ 25 a second, the first 70 ms after the request.
ACCEL_EVERY_S = 0.04
FIRST_ACCEL_S = 0.07
#: One g in the cube accelerometer's raw counts (at rest upright it reads (−1, 0, 31)).
G_COUNTS = 31.0
#: ObjectStoppedMoving comes this long after a move began (a real cube's ≈ 1.1 s) ...
STOPPED_AFTER_S = 1.1
#: A reading's noise: a count either way now and then.
_NOISE = (-1.0, *([0.0] * 18), 1.0)
#: ... and at least this long after the move ended.
STOPPED_AFTER_END_S = 0.6


@dataclass
class SimCube:
    """One cube: its number in the kit (1–3), factory id, type, signal byte, and whether it is on."""

    number: int
    factory_id: int
    object_type: ObjectType
    rssi: int
    on: bool = True
    slot: int | None = None
    next_advert: float | None = None
    #: the four LEDs' LightState patterns last sent to it (None: dark since it connected)
    lights: tuple[Any, ...] | None = None
    #: CubeId's rotation period with them (30 ms frames)
    rotation_frames: int = 0
    #: patterns received while connected
    light_changes: int = 0
    #: which face is up (upright: Z_POSITIVE)
    up_axis: UpAxis = UpAxis.Z_POSITIVE
    #: whether it streams its accelerometer (StreamObjectAccel), and when the next reading is due
    streaming: bool = False
    next_accel: float | None = None
    #: a move in progress: when it began and ends, whether it ends turned over, when it is still again
    moving_from: float = -math.inf
    moving_until: float = -math.inf
    flip_pending: bool = False
    stopped_at: float | None = None

    def accel(self, now: float, noise: float) -> tuple[float, float, float]:
        """What its accelerometer reads now (raw counts): gravity along the up axis, a hand's
        wobble while it is carried, gravity turning round while it is turned over (slowly: a
        careful hand), and now and then a count of noise."""
        sign = 1.0 if self.up_axis.name.endswith("POSITIVE") else -1.0
        axis = self.up_axis.name[0]
        g = [G_COUNTS * sign if axis == a else 0.0 for a in "XYZ"]
        g[0] -= 1.0
        if self.moving_from <= now < self.moving_until:
            t = now - self.moving_from
            if self.flip_pending:
                turned = math.pi * t / max(1e-6, self.moving_until - self.moving_from)
                g[1], g[2] = G_COUNTS * math.sin(turned), g[2] * math.cos(turned)
            else:
                g[0] += 12.0 * math.sin(2 * math.pi * 3.0 * t)
                g[1] += 9.0 * math.sin(2 * math.pi * 2.3 * t + 1.0)
                g[2] += 7.0 * math.sin(2 * math.pi * 4.1 * t + 2.0)
        return g[0] + noise, g[1], g[2]

    def on_colors(self) -> tuple[tuple[int, int, int], ...]:
        """Each LED's colour while on (8-bit RGB), dark when nothing was sent."""
        if self.lights is None:
            return ((0, 0, 0),) * 4
        return tuple(rgb555_to_rgb(int(s.on_color)) for s in self.lights)


class CubeRadio:
    """The simulated robot's side of the cubes: adverts out, SetPropSlot in, slots kept."""

    def __init__(self, send: Callable[[Any], None], count: int = 3,
                 timestamp: Callable[[], int] | None = None) -> None:
        self._send = send
        self._timestamp = timestamp or (lambda: 0)
        self._now = 0.0
        self._rng = random.Random(0xC0BE)
        types = (ObjectType.LIGHTCUBE1, ObjectType.LIGHTCUBE2, ObjectType.LIGHTCUBE3)
        self.cubes = [SimCube(n, 0xC0BE0000 + n, types[(n - 1) % 3], 50 + 7 * n) for n in range(1, count + 1)]
        #: SetPropSlot requests that named no cube nearby, and cube events of cubes not connected
        self.unknown_requests = 0
        self.unconnected_events = 0
        #: CubeLights sent to a slot with no cube in it
        self.unconnected_lights = 0
        self._streaming_since: float | None = None

    def cube(self, number: int) -> SimCube | None:
        """Cube ``number`` of the kit, or None."""
        return next((c for c in self.cubes if c.number == number), None)

    def slot_of(self, number: int) -> int | None:
        """The slot cube ``number`` is connected in (its ``object_id`` on the wire), or None."""
        cube = self.cube(number)
        return cube.slot if cube is not None and cube.on else None

    def start(self, now: float) -> None:
        """The engine's SyncTime: adverts begin shortly after."""
        self._streaming_since = now
        for i, cube in enumerate(self.cubes):
            cube.next_advert = now + FIRST_ADVERT_S + 0.1 * i

    def forget(self) -> None:
        """The engine is gone (or the robot rebooted): every slot is empty, adverts stop until SyncTime."""
        self._streaming_since = None
        for cube in self.cubes:
            cube.slot = None
            cube.next_advert = None
            cube.lights, cube.rotation_frames = None, 0
            cube.streaming, cube.next_accel = False, None

    def tick(self, now: float) -> None:
        """Send the adverts, accelerometer readings and move messages that are due."""
        self._now = now
        if self._streaming_since is None:
            return
        for cube in self.cubes:
            if cube.on and cube.slot is None and cube.next_advert is not None and now >= cube.next_advert:
                self._send(m.ObjectAvailable(factory_id=cube.factory_id, object_type=cube.object_type,
                                             rssi=cube.rssi))
                cube.next_advert = now + ADVERT_EVERY_S
            if cube.slot is None:
                continue
            if cube.flip_pending and now >= cube.moving_until:
                cube.flip_pending = False
                cube.up_axis = UpAxis.Z_POSITIVE if cube.up_axis is UpAxis.Z_NEGATIVE else UpAxis.Z_NEGATIVE
                self._send(m.ObjectUpAxisChanged(timestamp=self._timestamp(), object_id=cube.slot,
                                                 axis=cube.up_axis))
            if cube.stopped_at is not None and now >= cube.stopped_at:
                cube.stopped_at = None
                self._send(m.ObjectStoppedMoving(timestamp=self._timestamp(), object_id=cube.slot))
            if cube.streaming and cube.next_accel is not None and now >= cube.next_accel:
                x, y, z = cube.accel(now, self._rng.choice(_NOISE))
                self._send(m.ObjectAccel(timestamp=self._timestamp(), object_id=cube.slot, accel_x=x,
                                         accel_y=y, accel_z=z))
                cube.next_accel = max(cube.next_accel + ACCEL_EVERY_S, now)

    def stream(self, slot: int, enable: bool) -> None:
        """StreamObjectAccel: the cube in ``slot`` starts (or stops) streaming its accelerometer."""
        cube = next((c for c in self.cubes if c.slot == slot and c.on), None)
        if cube is None:
            self.unconnected_events += 1
            log.info("sim: StreamObjectAccel for slot %d, where no cube is connected", slot)
            return
        cube.streaming = enable
        cube.next_accel = self._now + FIRST_ACCEL_S if enable else None

    def move(self, number: int, seconds: float, *, flip: bool = False) -> None:
        """Cube ``number`` is moved about for ``seconds`` from now (``flip``: and turned over)."""
        cube = self.cube(number)
        if cube is None:
            return
        cube.moving_from, cube.moving_until = self._now, self._now + max(0.0, seconds)
        cube.flip_pending = cube.flip_pending or flip
        cube.stopped_at = max(self._now + STOPPED_AFTER_S, cube.moving_until + STOPPED_AFTER_END_S)

    def set_slot(self, factory_id: int, slot: int) -> None:
        """SetPropSlot: connect the cube with ``factory_id`` in ``slot`` (0: empty the slot)."""
        if not 0 <= slot < SLOTS:
            log.warning("sim: SetPropSlot slot %d is not a slot (0-%d); ignored", slot, SLOTS - 1)
            return
        held = next((c for c in self.cubes if c.slot == slot), None)
        if factory_id == 0:
            if held is not None:
                self._disconnect(held)
            return
        cube = next((c for c in self.cubes if c.factory_id == factory_id and c.on), None)
        if cube is None:
            self.unknown_requests += 1
            log.info("sim: SetPropSlot asks for cube 0x%08x, which is not here", factory_id)
            return
        if cube.slot == slot:
            return
        if held is not None:
            self._disconnect(held)
        if cube.slot is not None:
            self._disconnect(cube)
        cube.slot = slot
        log.info("sim: cube %d connected in slot %d", cube.number, slot)
        self._send(m.ObjectConnectionState(object_id=slot, factory_id=cube.factory_id,
                                           object_type=cube.object_type, connected=True))

    def set_lights(self, slot: int, states: Any, rotation_frames: int) -> None:
        """CubeId + CubeLights for ``slot``: the cube there shows them (no cube there: lost)."""
        cube = next((c for c in self.cubes if c.slot == slot and c.on), None)
        if cube is None:
            self.unconnected_lights += 1
            return
        cube.lights, cube.rotation_frames = tuple(states), rotation_frames
        cube.light_changes += 1

    def _disconnect(self, cube: SimCube) -> None:
        assert cube.slot is not None
        slot, cube.slot = cube.slot, None
        cube.lights, cube.rotation_frames = None, 0
        cube.streaming, cube.next_accel = False, None
        cube.next_advert = None if self._streaming_since is None else 0.0
        self._send(m.ObjectConnectionState(object_id=slot, factory_id=cube.factory_id,
                                           object_type=cube.object_type, connected=False))

    def switch(self, number: int, on: bool) -> None:
        """Switch cube ``number`` on (it advertises) or off (it disconnects and goes quiet)."""
        cube = self.cube(number)
        if cube is None or cube.on == on:
            return
        cube.on = on
        if not on and cube.slot is not None:
            self._disconnect(cube)
        if on and self._streaming_since is not None:
            cube.next_advert = 0.0

    def event_slot(self, number: int, what: str) -> int | None:
        """The slot to name cube ``number`` by in a ``what`` message; None (logged) when not connected."""
        slot = self.slot_of(number)
        if slot is None:
            self.unconnected_events += 1
            log.info("sim: cube %d is not connected: its %s reaches no one", number, what)
        return slot
