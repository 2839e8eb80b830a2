"""Reading a link's socket on a clock rather than as each datagram arrives.

The robot sends about 30 datagrams a second, each of which would wake the process on its own;
the animation clock and the heartbeat wake it 30 and 10 times a second anyway. :class:`ClockedInput`
is that part of :class:`driver.link.Link`: with an input clock set, a connected link on a UDP
socket leaves the socket out of the event loop's selector and reads what waits at the clock's
times, so one wake-up serves all three.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

from .protocol.linkstate import Address, LinkState

if TYPE_CHECKING:
    from .protocol.session import Session

__all__ = ["ClockedInput"]

_LINKSTATE_CONNECTED = LinkState.CONNECTED
#: Reads asked for within this long of a read to the end are one wake-up's: the first serves them.
_SAME_WAKE_S = 0.001


class ClockedInput:
    """The clocked reading of a :class:`~driver.link.Link` (a mixin: the link provides the rest)."""

    session: Session
    _loop: asyncio.AbstractEventLoop | None
    _transport: asyncio.DatagramTransport | None
    #: None: datagrams are taken in as they arrive. Set (see :attr:`input_clock`): while
    #: connected, the socket is read only by :meth:`poll_input` and a timer at the times this
    #: gives (the next read's time after a read at the given time).
    _input_clock: Callable[[float], float] | None
    _sock: socket.socket | None
    _polling: bool
    _poll_timer: asyncio.TimerHandle | None
    #: loop time the socket was last read to the end (-inf: never)
    _drained_at: float
    #: True while :meth:`poll_input` takes datagrams in (the link arms its timer after them)
    _reading: bool

    if TYPE_CHECKING:
        def datagram_received(self, data: bytes, addr: Address) -> None: ...  # noqa: D102
        def error_received(self, exc: Exception) -> None: ...  # noqa: D102
        def _arm(self) -> None: ...

    def poll_input(self) -> None:
        """Take in every datagram waiting on the socket (when input is read on a clock:
        :attr:`input_clock`; otherwise nothing waits and this returns at once)."""
        if not self._polling:
            return
        loop = self._loop
        assert loop is not None
        if loop.time() - self._drained_at < _SAME_WAKE_S:
            # Read to the end moments ago, in this same wake-up (the read timer, the frame tick and
            # the beat share one): nothing worth another system call and its exception.
            if self._poll_timer is None:
                self._arm_poll()
            return
        sock = self._sock
        assert sock is not None
        taken = False
        self._reading = True
        try:
            while self._polling:
                try:
                    data, addr = sock.recvfrom(65536)
                except (BlockingIOError, InterruptedError):
                    break
                except OSError as exc:
                    self.error_received(exc)
                    break
                self.datagram_received(data, addr)  # as the transport would hand it over
                taken = True
        finally:
            self._reading = False
        self._drained_at = loop.time()
        self._arm_poll()
        if taken:
            self._arm()  # the session's timer, once for all the datagrams just taken in

    @property
    def input_on_clock(self) -> bool:
        """True while the socket is read only on the input clock (nothing is taken in between)."""
        return self._polling

    @property
    def input_clock(self) -> Callable[[float], float] | None:
        """Read the socket on a clock rather than as datagrams arrive (None: as they arrive).

        The robot sends about 30 datagrams a second, each of which would wake the process on its
        own; the animation clock and the heartbeat wake it 30 and 10 times a second anyway. With
        a clock set (the animation controller sets its frame ticks), a connected link on a UDP
        socket leaves the socket out of the event loop's selector and reads everything waiting
        in :meth:`poll_input`, which the frame tick and the heartbeat call first thing, and in a
        timer at ``clock(time of the last read)``, on the same ticks: one wake-up serves all
        three. A datagram then waits at most about a frame (33 ms) to be read; an impairment or a
        tap sees it when it is read. Disconnected or lost, datagrams are read as they arrive.
        """
        return self._input_clock

    @input_clock.setter
    def input_clock(self, clock: Callable[[float], float] | None) -> None:
        self._input_clock = clock
        self._read_on_clock(self.session.state is _LINKSTATE_CONNECTED)

    def _arm_poll(self) -> None:
        """Keep one timer at the next read's time. Reads at one tick (the frame's, the beat's)
        give the same time: the timer armed for it stays, rather than a cancelled handle per read
        left in the loop's heap."""
        clock = self._input_clock
        when = clock(self._loop.time()) if self._polling and self._loop is not None and clock is not None else None
        timer = self._poll_timer
        if timer is not None:
            if when is not None and timer.when() == when and not timer.cancelled():
                return
            timer.cancel()
            self._poll_timer = None
        if when is not None:
            assert self._loop is not None
            self._poll_timer = self._loop.call_at(when, self._on_poll_timer)

    def _on_poll_timer(self) -> None:
        self._poll_timer = None
        self.poll_input()

    def _read_on_clock(self, on: bool) -> None:
        """Read the socket on the clock (connected, a clock set, a real socket) or as datagrams arrive."""
        transport = self._transport
        on = on and self._input_clock is not None and self._sock is not None and transport is not None \
            and not transport.is_closing()
        if on == self._polling:
            return
        self._polling = on
        if transport is not None and not transport.is_closing():
            if on:
                transport.pause_reading()  # type: ignore[attr-defined]
            else:
                transport.resume_reading()  # type: ignore[attr-defined]
        self._arm_poll()
