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

A *direct* network (``MemoryNetwork(direct=True)``, what ``cozmo-brain simulate`` uses) opens
:class:`DirectLink` ends: the connection is made, kept alive, lost and made again through the
session and datagrams as on any link, but the packets the layers above send are handed to the
peer whole, with no frame to build, number, acknowledge and parse. Over a simulated day that is
about a quarter of the work, and nobody sees it: the link's own tests are over UDP and the
datagram network.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from typing import Any

from .link import Address, Link, Role
from .protocol.frame import PacketType, RawPacket
from .protocol.linkstate import LinkState, StateChanged

__all__ = ["DirectLink", "MemoryNetwork", "MemoryTransport"]

_FIRST_PORT = 40000
_CONNECTED = LinkState.CONNECTED
#: Packets that are the session's own business: they always travel as datagrams.
_SESSION_PACKETS = frozenset((PacketType.CONNECT, PacketType.DISCONNECT, PacketType.PING))


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
    ``direct`` opens :class:`DirectLink` ends (no latency then). ``delivered`` and ``dropped``
    count datagrams, ``handed_over`` the batches of packets direct links passed, for tests and
    reports.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None, *, latency_s: float = 0.0,
                 direct: bool = False) -> None:
        if latency_s < 0:
            raise ValueError(f"latency must not be negative, got {latency_s}")
        if direct and latency_s:
            raise ValueError("a direct network hands packets over on the next loop turn: it takes no latency")
        self._loop = loop
        self.latency_s = latency_s
        self.direct = direct
        self.delivered = 0
        self.dropped = 0
        self.handed_over = 0
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
        link = DirectLink(role, network=self, **kwargs) if self.direct else Link(role, **kwargs)
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

    def link_at(self, address: Address | None) -> DirectLink | None:
        """The direct link bound at ``address``, if any."""
        transport = self._endpoints.get(address) if address is not None else None
        if transport is None or transport.is_closing():
            return None
        protocol = transport.get_protocol()
        return protocol if isinstance(protocol, DirectLink) else None

    def _hand_over(self, to: DirectLink, packets: list[RawPacket], src: Address) -> None:
        self.handed_over += 1
        self.loop.call_soon(to._take_direct, packets, src)

    def _unbind(self, address: Address, transport: MemoryTransport) -> None:
        if self._endpoints.get(address) is transport:
            del self._endpoints[address]


def _impaired(impairment: Any) -> bool:
    """True when an impairment may do something to a datagram now (an unknown kind always may)."""
    return impairment is not None and bool(getattr(impairment, "active", True))


class DirectLink(Link):
    """A link of a direct :class:`MemoryNetwork`: the connection as over a wire, packets handed over whole.

    The handshake, pings, the loss of the peer and reconnecting go through the session as
    datagrams, as on any link. What the layers above send is handed to the peer's ``on_packet``
    as it is, in order and on time: a sent packet with this loop turn's flush (a clocked end's
    whenever it transmits: at its :meth:`flush`, or with a session datagram such as its Connect,
    frame blocks included once due), a :meth:`frame_at` block at its
    time, and nothing sent later overtakes a block waiting for its time. The peer takes them on
    the next loop turn, as it would a datagram, and counts them as received (which also keeps it
    from thinking this end silent).

    Packets take the session's way instead (numbered, acknowledged, resent) whenever handing them
    over would not be what a wire does: while an impairment is on at either end (a silent
    simulator must not hear them; loss and reordering are the session's to repair), while a tap
    watches the datagrams, and while packets sent that way wait for their acknowledgement, so
    that none is overtaken. A batch for a connection that ended before its time is dropped, as
    the session drops what it had queued.
    """

    def __init__(self, role: Role, *, network: MemoryNetwork, **kwargs: Any) -> None:
        super().__init__(role, **kwargs)
        self._network = network
        #: batches of packets not handed over yet, with their times (which never decrease)
        self._outbox: deque[tuple[float, list[RawPacket]]] = deque()
        self._release_handle: asyncio.Handle | None = None
        self._release_at = math.inf

    def send(self, packet: RawPacket) -> None:
        """Queue a packet for the peer (see the class docstring for which way it goes)."""
        loop = self._loop
        if (self._capture is not None or packet.type in _SESSION_PACKETS or loop is None
                or self.session.state is not _CONNECTED):
            super().send(packet)
            return
        now = loop.time()
        outbox = self._outbox
        if outbox and outbox[-1][0] <= now:
            outbox[-1][1].append(packet)
        else:
            outbox.append((now, [packet]))
        if not self.clocked:
            self._arm_release()

    def close(self) -> None:  # noqa: D102
        self._drop_outbox()
        super().close()

    def _stage(self, packets: list[RawPacket], at: float, early: bool = False) -> None:
        loop = self._loop
        if not packets or loop is None or self.session.state is not _CONNECTED:
            super()._stage(packets, at, early)
            return
        outbox = self._outbox
        now = loop.time()
        at = max(now if early else at, now, outbox[-1][0] if outbox else -math.inf)
        outbox.append((at, list(packets)))
        if not self.clocked:
            self._arm_release()

    def _arm_release(self) -> None:
        """Keep one loop callback at the time of the first batch."""
        outbox, loop = self._outbox, self._loop
        if not outbox or loop is None:
            return
        at = outbox[0][0]
        if self._release_handle is not None:
            if self._release_at <= at:
                return
            self._release_handle.cancel()
        self._release_at = at
        if at > loop.time():
            self._release_handle = loop.call_at(at, self._on_release)
        else:
            self._release_handle = loop.call_soon(self._on_release)

    def _on_release(self) -> None:
        self._release_handle = None
        self._release_at = math.inf
        self._transmit()
        self._arm_release()

    def _transmit(self) -> None:
        # Whenever the link sends (its flush, the session's timer, a clocked end's Connect going
        # out at once), what is due goes with it, as queued packets go with a datagram.
        self._release()
        if not self.session.quiet:  # (the session's datagrams are rare here: pings, mostly)
            super()._transmit()

    def _release(self) -> None:
        """Hand over (or give the session, to go with this transmission) every batch that is due."""
        outbox, loop = self._outbox, self._loop
        if not outbox or loop is None:
            return
        if self.session.state is not _CONNECTED:
            self._drop_outbox()
            return
        now = loop.time()
        while outbox and outbox[0][0] <= now:
            _, packets = outbox.popleft()
            peer = self._direct_peer()
            if peer is None:
                for packet in packets:
                    self.session.send(packet)
                continue
            stats = self.session.stats
            stats.sent_frames += 1
            stats.sent_packets += len(packets)
            self._network._hand_over(peer, packets, self.local_address)

    def _direct_peer(self) -> DirectLink | None:
        """The peer to hand packets to now, or None when they must go the session's way."""
        session = self.session
        if self.tap is not None or session.in_flight or _impaired(self.impairment):
            return None
        peer = self._network.link_at(session.peer)
        if peer is None or peer.tap is not None or _impaired(peer.impairment):
            return None
        return peer

    def _take_direct(self, packets: list[RawPacket], src: Address) -> None:
        """On the loop, a batch from the peer at ``src``: to ``on_packet``, in order."""
        session, loop = self.session, self._loop
        if loop is None or session.state is not _CONNECTED or session.peer != src:
            session.stats.dropped_stale += len(packets)
            return
        if _impaired(self.impairment):
            # switched on since they left: they go again the session's way, as a resend would
            sender = self._network.link_at(src)
            if sender is not None:
                sender._send_framed(packets)
            return
        session.heard(loop.time(), len(packets))
        for packet in packets:
            self._deliver(packet)

    def _send_framed(self, packets: list[RawPacket]) -> None:
        if self.session.state is _CONNECTED:
            for packet in packets:
                self.session.send(packet)
            super()._transmit()

    def _drop_outbox(self) -> None:
        if self._outbox:
            self.session.stats.discarded_packets += sum(len(p) for _, p in self._outbox)
            self._outbox.clear()
        if self._release_handle is not None:
            self._release_handle.cancel()
            self._release_handle = None
            self._release_at = math.inf

    def _on_state_changed(self, event: StateChanged) -> None:
        if event.new is not _CONNECTED:
            self._drop_outbox()
        super()._on_state_changed(event)
