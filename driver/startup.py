"""The start-up sequence (firmware 2381), run on every new connection to a robot.

The robot introduces itself (HardwareInfo, FirmwareSignature); the engine sends GetManufacturingInfo
(twice, as clients do) and gets ManufacturingID; SetOrigin, SyncTime and EnableAnimationState (Anki's
InitAnimController) go together, as in Anki's engine; the robot acknowledges SyncTime, calibrates
lift and head and starts its RobotState stream (a running calibration holds the wait for the first
state); then stop-on-cliff is switched on. :class:`StartUp` holds what the sequence waits for, one
set per connection, so answers that arrive in the same datagram as the handshake are not missed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .protocol import messages as m

__all__ = ["FACTORY_FIRMWARE", "KNOWN_FIRMWARE", "RobotInfo", "StartUp", "StartUpFailed", "StartUpRefused",
           "firmware_problem"]


@dataclass
class RobotInfo:
    """What the robot told us about itself at start-up."""

    serial_number: int = 0
    firmware_version: int = 0
    firmware: dict[str, Any] | None = None
    body_hw_version: int = 0
    body_color: int = -1


#: The longest a motor calibration may hold up the start-up (a real one takes about 1.3 s).
CALIBRATION_MAX_S = 5.0


#: Factory/recovery firmware (HW1.5 10501, 10502; HW1.7 dev units 10700): other message layouts.
FACTORY_FIRMWARE = frozenset({10501, 10502, 10700})
#: Anki's last build and Digital Dream Labs' 2025 build (the same message layouts; hardware.md §3).
KNOWN_FIRMWARE = frozenset({2381, 2457})


def firmware_problem(version: int) -> tuple[str | None, str | None]:
    """What is wrong with firmware ``version``: (why it is refused, or None; a warning, or None)."""
    if version in FACTORY_FIRMWARE:
        # Its messages have other sizes (hardware.md §3): driving it would only confuse it.
        return (f"the robot runs factory/recovery firmware {version}, whose protocol differs (a 12-byte "
                "SyncTime, 16-byte head and lift commands), so cozmo-brain cannot drive it. Connect the "
                "Cozmo app to the robot once: it installs the normal firmware again (2381, or 2457 from "
                "Digital Dream Labs); then start cozmo-brain again"), None
    if version not in KNOWN_FIRMWARE:
        known = " and ".join(map(str, sorted(KNOWN_FIRMWARE)))
        return None, f"firmware {version}; cozmo-brain knows {known}, some messages may differ"
    return None, None


class StartUpFailed(Exception):
    """The robot answered the handshake but not the start-up sequence (in time)."""


class StartUpRefused(StartUpFailed):
    """The robot cannot be driven as it is (factory firmware): trying again will not help."""


def _consume(fut: asyncio.Future[None]) -> None:
    if not fut.cancelled():
        fut.exception()


class StartUp:
    """The answers the start-up sequence waits for: ``firmware``, ``body`` and the first ``state``."""

    STEPS = ("firmware", "body", "state")

    def __init__(self, send: Callable[[Any], None], step_timeout_s: float = 5.0) -> None:
        self._send = send
        self.step_timeout_s = step_timeout_s
        self._answers: dict[str, asyncio.Future[None]] = {}
        #: loop time of the last motor calibration report, and the motors calibrating now
        self._progress_at = float("-inf")
        self._calibrating: set[int] = set()

    def begin(self) -> None:
        """A new connection: wait for its answers afresh (a sequence still waiting fails)."""
        self.fail("a new connection began")
        loop = asyncio.get_running_loop()
        self._calibrating.clear()
        self._progress_at = float("-inf")
        self._answers = {key: loop.create_future() for key in self.STEPS}
        for fut in self._answers.values():
            fut.add_done_callback(_consume)

    def answered(self, key: str) -> None:
        """The robot sent what step ``key`` waits for."""
        fut = self._answers.get(key)
        if fut is not None and not fut.done():
            fut.set_result(None)

    def calibrating(self, motor_id: int, started: bool) -> None:
        """A motor calibration report. A robot sends its first state only once lift and head have
        found their stops (about 1.3 s on a real one): while a calibration runs the step does not
        time out (up to :data:`CALIBRATION_MAX_S`), and its time counts again from the last
        report, so a daemon started while the robot calibrates waits for it."""
        if started:
            self._calibrating.add(motor_id)
        else:
            self._calibrating.discard(motor_id)
        self._progress_at = asyncio.get_running_loop().time()

    def fail(self, why: str, *, refused: bool = False) -> None:
        """Make a sequence that is waiting fail with ``why`` (``refused``: for good, see
        :class:`StartUpRefused`)."""
        for fut in self._answers.values():
            if not fut.done():
                fut.set_exception((StartUpRefused if refused else StartUpFailed)(why))

    async def run(self, deadline: float | None, *, stop_on_cliff: bool = True) -> None:
        """Send the sequence, each step when the robot answered the one before; raises StartUpFailed."""
        await self._wait("firmware", "FirmwareSignature", deadline)
        self._send(m.GetManufacturingInfo())
        self._send(m.GetManufacturingInfo())
        await self._wait("body", "ManufacturingID", deadline)
        # In one batch, as Anki's engine did (hardware.md §3): the origin, SyncTime and the
        # animation controller's set-up; the robot then calibrates before its first state.
        self._send(m.SetOrigin())
        self._send(m.SyncTime())
        self._send(m.EnableAnimationState())
        await self._wait("state", "the first RobotState", deadline)
        self._send(m.EnableStopOnCliff(enable=stop_on_cliff))

    async def _wait(self, key: str, what: str, deadline: float | None) -> None:
        loop = asyncio.get_running_loop()
        began = loop.time()
        answer = self._answers[key]
        while True:  # each turn recomputes the end: a progress report moves it on
            busy = CALIBRATION_MAX_S if self._calibrating else self.step_timeout_s
            until = max(began, self._progress_at) + busy
            if deadline is not None:
                until = min(until, deadline)
            remaining = until - loop.time()
            if remaining <= 0:
                raise StartUpFailed(f"the robot sent no {what} within {loop.time() - began:.1f} s")
            try:
                await asyncio.wait_for(asyncio.shield(answer), min(remaining, 0.25))
                return
            except asyncio.TimeoutError:
                continue
