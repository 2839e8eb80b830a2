"""Which light cubes to connect, chosen as Anki's engine chose them (hardware.md §5).

A Cozmo connects a cube only when asked: cubes nearby advertise themselves (ObjectAvailable,
about once a second each, with a signal-strength byte), and the engine picks one per cube type
and asks for it in one of the robot's five slots (SetPropSlot: factory id and slot; factory id
0 empties the slot). The robot answers with ObjectConnectionState, whose ``object_id`` is the
slot, and every later cube message (taps, moves) names the cube by that slot.

:class:`CubePool` is that choice without I/O: feed it the adverts, the connection states and
the time, and it says which SetPropSlot requests to send. Its rules are the engine's: adverts
older than :data:`ADVERT_TTL_S` are forgotten; of the cubes of a type, the one with the lowest
signal byte, read unsigned, is asked for; a cube that has not connected within
:data:`CONNECT_TIMEOUT_S` is passed over for another of its type, if there is one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .protocol.table import ObjectType

__all__ = ["ADVERT_TTL_S", "CONNECT_TIMEOUT_S", "CUBE_TYPES", "SLOTS", "CubeMotion", "CubePool"]

#: Adverts older than this are forgotten (s).
ADVERT_TTL_S = 10.0
#: A cube asked for and not connected after this long is passed over for another (s).
CONNECT_TIMEOUT_S = 5.0
#: The robot's cube slots (SetPropSlot's slot, 0–4).
SLOTS = 5
#: The three light cubes; the engine connects one of each.
CUBE_TYPES: tuple[ObjectType, ...] = (ObjectType.LIGHTCUBE1, ObjectType.LIGHTCUBE2, ObjectType.LIGHTCUBE3)


@dataclass
class _Advert:
    object_type: int
    rssi: int
    seen_at: float


@dataclass
class _Asked:
    factory_id: int
    object_type: int
    since: float
    connected: bool = False


@dataclass
class CubePool:
    """Picks the cubes to connect (one per type in :data:`CUBE_TYPES`) and tracks the slots."""

    types: tuple[int, ...] = tuple(int(t) for t in CUBE_TYPES)
    adverts: dict[int, _Advert] = field(default_factory=dict)
    #: slot -> the cube asked for there (connected or not yet)
    slots: dict[int, _Asked] = field(default_factory=dict)
    #: factory ids passed over (asked for, never connected), with when
    passed_over: dict[int, float] = field(default_factory=dict)

    def reset(self) -> None:
        """A new connection: the robot has forgotten every slot (and the adverts are old news)."""
        self.adverts.clear()
        self.slots.clear()
        self.passed_over.clear()

    def advert(self, factory_id: int, object_type: int, rssi: int, now: float) -> list[tuple[int, int]]:
        """Take one ObjectAvailable; returns the (factory id, slot) requests to send now."""
        if int(object_type) in self.types and factory_id:
            self.adverts[factory_id] = _Advert(int(object_type), rssi & 0xFF, now)
        return self.poll(now)

    def connection(self, slot: int, factory_id: int, connected: bool, now: float) -> None:
        """Take one ObjectConnectionState."""
        asked = self.slots.get(slot)
        if connected:
            if asked is None or asked.factory_id != factory_id:
                # connected by someone else's request (another engine, an older one): keep it
                asked = self.slots[slot] = _Asked(factory_id, self._type_of(factory_id), now)
            asked.connected = True
            self.passed_over.pop(factory_id, None)
        else:
            # gone (switched off, out of range, flat battery): its type is asked for again, and the
            # cube itself only once it advertises again
            self.adverts.pop(factory_id, None)
            if asked is not None and asked.factory_id == factory_id:
                del self.slots[slot]

    def _type_of(self, factory_id: int) -> int:
        advert = self.adverts.get(factory_id)
        return advert.object_type if advert is not None else int(ObjectType.UNKNOWN)

    def withdraw(self, requests: list[tuple[int, int]]) -> None:
        """Requests that were not sent after all: they are chosen again on the next poll."""
        for factory_id, slot in requests:
            asked = self.slots.get(slot)
            if asked is not None and asked.factory_id == factory_id and not asked.connected:
                del self.slots[slot]

    def connected(self) -> dict[int, int]:
        """slot -> factory id of the cubes connected now."""
        return {slot: a.factory_id for slot, a in self.slots.items() if a.connected}

    def poll(self, now: float) -> list[tuple[int, int]]:
        """Forget old adverts, give up on slow cubes; returns the (factory id, slot) requests to send."""
        for factory_id in [f for f, a in self.adverts.items() if now - a.seen_at > ADVERT_TTL_S]:
            del self.adverts[factory_id]
        for factory_id in [f for f, t in self.passed_over.items() if now - t > ADVERT_TTL_S]:
            del self.passed_over[factory_id]
        for slot, asked in list(self.slots.items()):
            if not asked.connected and now - asked.since > CONNECT_TIMEOUT_S:
                del self.slots[slot]
                self.passed_over[asked.factory_id] = now
        requests: list[tuple[int, int]] = []
        held = {a.object_type for a in self.slots.values()}
        for object_type in self.types:
            if object_type in held:
                continue
            candidates = [(a.rssi, f) for f, a in self.adverts.items()
                          if a.object_type == object_type and f not in self.passed_over]
            free = [s for s in range(SLOTS) if s not in self.slots]
            if not candidates or not free:
                continue
            _, factory_id = min(candidates)
            self.slots[free[0]] = _Asked(factory_id, object_type, now)
            requests.append((factory_id, free[0]))
        return requests


@dataclass
class CubeMotion:
    """How much a cube is being moved, from its streamed accelerometer (ObjectAccel, raw counts,
    ≈ 31 per g, about 25 a second): Anki's movement score.

    Each reading goes through a high-pass filter (``hp_coeff``: what stays is the change, not
    gravity); the score grows by the filtered reading's squared size, at most ``max_add`` a
    reading, loses ``decay`` a reading and stays between 0 and ``max_score``. A cube at rest
    (a count of noise) scores 0; one carried scores tens within a second.
    """

    hp_coeff: float = 0.4
    max_add: float = 5.0
    decay: float = 0.5
    max_score: float = 80.0
    score: float = 0.0
    _prev: tuple[float, float, float] | None = None
    _out: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def update(self, x: float, y: float, z: float) -> float:
        """Take one reading; the score after it."""
        if self._prev is None:  # (Anki's filter started from the first reading, which scored a
            self._prev = (x, y, z)  # still cube about 12 for its first second; gravity is no move)
            return self.score
        px, py, pz = self._prev
        ox, oy, oz = self._out
        k = self.hp_coeff
        self._out = (k * (ox + x - px), k * (oy + y - py), k * (oz + z - pz))
        self._prev = (x, y, z)
        size = sum(c * c for c in self._out)
        self.score = min(self.max_score, max(0.0, self.score + min(self.max_add, size) - self.decay))
        return self.score
