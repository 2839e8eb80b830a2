"""An in-memory datagram network: links that talk without sockets.

The offline simulation (``cozmo-brain simulate``) runs the real Robot against the real simulated
Cozmo on a virtual-time event loop. A UDP socket would tie it to the wall clock and to the
kernel; here each endpoint is an :class:`asyncio.DatagramTransport` whose ``sendto`` hands the
datagram to the protocol bound at the destination address with ``loop.call_soon`` (or
``call_later`` when a latency is set), so delivery follows the loop's own clock, keeps the
asynchronous shape of a real socket (never re-entrant), and costs a function call. The link on
each endpoint drives the same connection state machine (:mod:`driver.protocol.session`) as over
UDP; only the release of clocked frames differs (from the session's timer, as there is no socket
for a release thread to write to).

Addresses look like UDP ones, ``(host, port)``; port 0 picks a free one. Datagrams to an address
nobody is bound to vanish, as UDP datagrams do. :meth:`MemoryNetwork.open_link` has the signature
of :meth:`driver.link.Link.open`, so it can be passed wherever a link opener is accepted
(``SimulatedCozmo.start(open_link=...)``, ``Robot.connect(open_link=...)``).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import Any

from .link import Address, Link, Role

log = logging.getLogger(__name__)

__all__ = ["MemoryNetwork", "MemoryTransport"]

_FIRST_PORT = 40000


class MemoryTransport(asyncio.DatagramTransport):
    """One endpoint of a :class:`MemoryNetwork`, bound to ``address``."""

    def __init__(self, network: MemoryNetwork, protocol: asyncio.DatagramProtocol, address: Address) -> None:
        super().__init__()
        self._network = network
        self._protocol = protocol
        self._address = address
        self._closing = False

    # -- what Link uses

    def sendto(self, data: bytes | bytearray | memoryview, addr: Any = None) -> None:
        """Deliver one datagram to whoever is bound at ``addr``, a (host, port) pair (dropped when nobody is)."""
        if self._closing:
            return
        if not isinstance(addr, tuple) or len(addr) < 2:
            raise ValueError(f"a memory transport is unconnected: sendto needs a (host, port) address, got {addr!r}")
        self._network._send(bytes(data), self._address, (addr[0], addr[1]))

    def is_closing(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closing

    def close(self) -> None:
        """Unbind the address; the protocol hears ``connection_lost(None)`` on the next loop turn."""
        if self._closing:
            return
        self._closing = True
        self._network._unbind(self._address, self)
        self._network.loop.call_soon(self._protocol.connection_lost, None)

    def abort(self) -> None:
        """Same as :meth:`close`: nothing is buffered."""
        self.close()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        """``sockname`` is the bound address; ``peername`` is None (unconnected, like UDP)."""
        if name == "sockname":
            return self._address
        if name == "peername":
            return None
        return default

    def get_protocol(self) -> asyncio.BaseProtocol:  # noqa: D102
        return self._protocol

    def get_write_buffer_size(self) -> int:  # noqa: D102
        return 0

    def __repr__(self) -> str:
        return f"<MemoryTransport {self._address[0]}:{self._address[1]}{' closed' if self._closing else ''}>"


class MemoryNetwork:
    """Endpoints by address on one event loop; datagrams between them never touch a socket.

    ``latency_s`` delays every datagram by that much loop time (0: the next loop turn); either
    way datagrams arrive in the order they were sent, as over a quiet local network (loop timers
    due at the same moment run in no set order, so delayed ones wait in one queue, in order).
    ``delivered`` and ``dropped`` count datagrams, for tests and reports.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None, *, latency_s: float = 0.0) -> None:
        if latency_s < 0:
            raise ValueError(f"latency must not be negative, got {latency_s}")
        self._loop = loop
        self.latency_s = latency_s
        self.delivered = 0
        self.dropped = 0
        self._endpoints: dict[Address, MemoryTransport] = {}
        self._next_port = _FIRST_PORT
        #: delayed datagrams in the order sent, with when each is due (due times never decrease)
        self._in_flight: deque[tuple[float, bytes, Address, Address]] = deque()
        self._timer: asyncio.TimerHandle | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The loop that delivers datagrams (the running loop when none was given)."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        return self._loop

    def bind(self, protocol: asyncio.DatagramProtocol, address: Address = ("127.0.0.1", 0)) -> MemoryTransport:
        """Bind ``protocol`` at ``address`` and tell it so (``connection_made``); returns the transport."""
        host, port = address[0], int(address[1])
        if port == 0:
            while (host, self._next_port) in self._endpoints:
                self._next_port += 1
            port = self._next_port
            self._next_port += 1
        addr = (host, port)
        if addr in self._endpoints:
            raise OSError(f"address {host}:{port} is already bound in this memory network")
        transport = MemoryTransport(self, protocol, addr)
        self._endpoints[addr] = transport
        protocol.connection_made(transport)
        return transport

    async def open_link(self, role: Role, local_addr: Address = ("127.0.0.1", 0), **kwargs: Any) -> Link:
        """A :class:`Link` bound in this network: a drop-in for :meth:`Link.open`."""
        host = local_addr[0] if local_addr[0] not in ("", "0.0.0.0") else "127.0.0.1"
        link = Link(role, **kwargs)
        self.bind(link, (host, local_addr[1]))
        return link

    def _send(self, data: bytes, src: Address, dst: Address) -> None:
        target = self._endpoints.get(dst)
        if target is None:
            self.dropped += 1
            return
        if self.latency_s > 0:
            loop = self.loop
            self._in_flight.append((loop.time() + self.latency_s, data, src, dst))
            if self._timer is None:
                self._timer = loop.call_at(self._in_flight[0][0], self._land)
        else:
            self.loop.call_soon(self._deliver, data, src, dst)

    def _land(self) -> None:
        """Deliver the delayed datagrams now due, in the order sent; wait for the next one."""
        self._timer = None
        loop = self.loop
        now = loop.time()
        while self._in_flight and self._in_flight[0][0] <= now:
            _, data, src, dst = self._in_flight.popleft()
            self._deliver(data, src, dst)
        if self._in_flight and self._timer is None:
            self._timer = loop.call_at(self._in_flight[0][0], self._land)

    def _deliver(self, data: bytes, src: Address, dst: Address) -> None:
        # Look the endpoint up again: it may have closed while the datagram was in flight.
        target = self._endpoints.get(dst)
        if target is None or target.is_closing():
            self.dropped += 1
            return
        self.delivered += 1
        target.get_protocol().datagram_received(data, src)  # type: ignore[attr-defined]

    def _unbind(self, address: Address, transport: MemoryTransport) -> None:
        if self._endpoints.get(address) is transport:
            del self._endpoints[address]
