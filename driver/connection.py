"""The Robot's connection: connecting until the robot answers, and finding it again after a loss.

Connecting keeps trying until it works: Resets with backoff (``reconnect_initial_s`` doubling to
``reconnect_max_s``, in :mod:`driver.protocol.session`), then the start-up sequence
(:mod:`driver.startup`, each step within ``startup_timeout_s``, else the handshake starts again);
``connect_timeout_s`` (None: no limit) bounds the whole of it. After a loss the Robot reconnects
by itself: it emits :class:`~driver.events.RobotLost` (pending actions fail, new commands fail at
once), the session retries with the same backoff, :class:`~driver.events.RobotRecovered` comes
when the robot answers, the start-up sequence runs again on a fresh state mirror (``state`` is
None until the first new RobotState, the attitude starts afresh on the treads), and
:class:`~driver.events.Reconnected` follows once the robot streams state again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import events as ev
from .animation.budget import StreamBudget
from .attitude import Attitude
from .cubes import CubeMotion, CubePool
from .link import Address, Link, LinkError, LinkState, Role
from .protocol import messages as m
from .samples import RobotStateSample
from .startup import RobotInfo, StartUp, StartUpFailed, StartUpRefused

if TYPE_CHECKING:
    from .actions import Action
    from .protocol.frame import RawPacket

log = logging.getLogger("driver.robot")

__all__ = ["RobotConnection", "RobotError"]


# Enum members read once, as module names: on Python 3.11 reading one through its class goes
# through the enum metaclass's attribute hook, about 0.1 µs, on paths taken many times a second.
_LINKSTATE_CLOSED = LinkState.CLOSED
_LINKSTATE_CONNECTED = LinkState.CONNECTED
_LINKSTATE_CONNECTING = LinkState.CONNECTING
_LINKSTATE_IDLE = LinkState.IDLE
_LINKSTATE_LOST = LinkState.LOST
_ROLE_ENGINE = Role.ENGINE


class RobotError(RuntimeError):
    """The robot could not be reached or did not complete the start-up sequence."""


class RobotConnection:
    """The connection half of :class:`~driver.robot.Robot` (its state lives on the Robot)."""

    address: Address
    local_addr: Address
    name: str
    lost_after: float
    reconnect_initial_s: float
    reconnect_max_s: float
    connect_timeout_s: float | None
    stop_on_cliff: bool
    link: Link | None
    _input_clock: Callable[[float], float] | None
    state: RobotStateSample | None
    attitude: Attitude
    cubes: CubePool
    cube_motion: dict[int, CubeMotion]
    anim_budget: StreamBudget
    losses: int
    reconnects: int
    _actions: dict[str, Action]
    _startup: StartUp
    _ready: bool
    _lost_at: float | None
    _in_connect: bool
    _closed: bool
    _resume: asyncio.Task[None] | None

    info: RobotInfo

    if TYPE_CHECKING:

        def _emit(self, event: ev.RobotEvent) -> None: ...
        def _on_packet(self, raw: RawPacket) -> None: ...
        def stop_all_motors(self) -> None: ...  # noqa: D102

    async def connect(self, *, open_link: Callable[..., Any] | None = None) -> None:
        """Connect and run the start-up sequence, trying until it works.

        Raises :class:`RobotError` only when ``connect_timeout_s`` runs out (the link is closed
        then). ``open_link`` replaces :meth:`Link.open` (same signature), e.g. with an in-memory
        network's opener (:class:`driver.memlink.MemoryNetwork`) for offline, virtual-time runs.
        """
        if self._closed:
            raise RobotError("this Robot was disconnected; make a new one")
        loop = asyncio.get_running_loop()
        deadline = None if self.connect_timeout_s is None else loop.time() + self.connect_timeout_s
        if self.link is None:
            self.link = await (open_link or Link.open)(
                _ROLE_ENGINE, self.local_addr, peer=self.address, on_packet=self._on_packet,
                on_state=self._on_link_state, lost_after=self.lost_after, retry_initial=self.reconnect_initial_s,
                retry_max=self.reconnect_max_s, name=self.name,
            )
        where = f"{self.address[0]}:{self.address[1]}"
        self._in_connect = True
        try:
            while True:
                remaining = None if deadline is None else deadline - loop.time()
                try:
                    if remaining is not None and remaining <= 0:
                        raise LinkError(f"no answer from {where} within {self.connect_timeout_s:.1f} s")
                    await self.link.connect(timeout=remaining)
                except LinkError as exc:
                    raise RobotError(f"cannot connect to the robot at {where}: {exc}") from exc
                try:
                    await self._startup.run(deadline, stop_on_cliff=self.stop_on_cliff)
                    break
                except StartUpRefused as exc:
                    raise RobotError(f"cannot drive the robot at {where}: {exc}") from None
                except StartUpFailed as exc:
                    if deadline is not None and loop.time() >= deadline:
                        raise RobotError(f"cannot connect to the robot at {where}: {exc}") from None
                    log.warning("%s: %s; starting again", self.name, exc)
        except BaseException:
            self.link.close()
            raise
        finally:
            self._in_connect = False
        self._ready = True
        self.link.input_clock = self._input_clock
        self._emit(ev.Connected(loop.time(), firmware_version=self.info.firmware_version))
        log.info("%s: connected to %s, firmware %d, serial 0x%08x", self.name, where,
                 self.info.firmware_version, self.info.serial_number)

    def _begin_start_up(self) -> None:
        """A new connection: forget the old mirror and wait for the start-up answers afresh
        (taking each in as it arrives, not on the input clock: the sequence is a chain of them)."""
        if self.link is not None:
            self.link.input_clock = None
        self._startup.begin()
        self.state = None
        self.attitude.reset()
        self.cubes.reset()  # a new connection: the robot has no cube connected
        self.cube_motion.clear()  # ...and none streams
        self.anim_budget.reset()  # ...and an empty animation buffer with its counters at zero

    async def _reconnected(self) -> None:
        """After the robot answered again: the start-up sequence, then Reconnected (or start over)."""
        assert self.link is not None
        try:
            await self._startup.run(None, stop_on_cliff=self.stop_on_cliff)
        except StartUpFailed as exc:
            # Refused (the robot fell back to factory firmware): said loudly, and tried again
            # with the link's backoff, in case someone puts the normal firmware back.
            level = logging.ERROR if isinstance(exc, StartUpRefused) else logging.WARNING
            log.log(level, "%s: %s; starting again", self.name, exc)
            self.link.restart()
            return
        loop = asyncio.get_running_loop()
        self._ready = True
        self.link.input_clock = self._input_clock
        self.reconnects += 1
        down = loop.time() - self._lost_at if self._lost_at is not None else 0.0
        self._lost_at = None
        log.info("%s: reconnected to %s:%d after %.1f s, firmware %d", self.name, *self.address, down,
                 self.info.firmware_version)
        self._emit(ev.Reconnected(loop.time(), firmware_version=self.info.firmware_version, lost_for_s=down))

    async def disconnect(self) -> None:
        """Stop the motors, say goodbye, and close the link; send nothing after that, try no more."""
        self._closed = True
        if self._resume is not None:
            self._resume.cancel()
            self._resume = None
        if self.link is None:
            return
        if self.connected:
            with contextlib.suppress(Exception):
                self.stop_all_motors()
        for action in list(self._actions.values()):
            action.cancel("disconnected")
        await self.link.disconnect()
        self._ready = False

    @property
    def connected(self) -> bool:
        """True while the link is up and the start-up sequence has run on it."""
        return self._ready and self.link is not None and self.link.state is _LINKSTATE_CONNECTED

    def _on_link_state(self, old: LinkState, new: LinkState) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        if new is _LINKSTATE_CONNECTED:
            self._begin_start_up()
            if self._in_connect or self._closed:
                return  # connect() runs the start-up itself
            if old is _LINKSTATE_LOST:
                self._emit(ev.RobotRecovered(now))
            if self._resume is not None:
                self._resume.cancel()
            self._resume = loop.create_task(self._reconnected(), name=f"{self.name}-reconnect")
            self._resume.add_done_callback(self._resume_done)
            return
        if old is _LINKSTATE_CONNECTED:
            self._startup.fail("the robot was lost during the start-up sequence")
            if self._resume is not None:
                self._resume.cancel()
                self._resume = None
        if new is _LINKSTATE_LOST:
            was_up = self._ready
            self._ready = False
            for action in list(self._actions.values()):
                action.cancel("robot lost")
            if was_up:
                self.losses += 1
                self._lost_at = now
                self._emit(ev.RobotLost(now, silent_for_s=self.lost_after))
        elif new in (_LINKSTATE_CLOSED, _LINKSTATE_IDLE) and old is not _LINKSTATE_CONNECTING:
            if self._ready or new is _LINKSTATE_CLOSED:
                self._ready = False
                self._emit(ev.Disconnected(now))

    def _resume_done(self, task: asyncio.Task[None]) -> None:
        if self._resume is task:
            self._resume = None
        if not task.cancelled() and task.exception() is not None:
            log.error("%s: reconnecting failed", self.name, exc_info=task.exception())

    def _why_not_ready(self) -> str:
        if self._closed:
            return "disconnected"
        return "the robot is lost; reconnecting" if self._lost_at is not None else "not connected"

    def _send_start_up(self, msg: Any) -> None:
        assert self.link is not None
        self.link.send(m.encode(msg))
