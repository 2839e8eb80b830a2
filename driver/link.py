"""The Cozmo UDP link on asyncio: connection state machine, reliable delivery, pings, loss of robot.

One class serves both ends of the protocol: the engine end (our brain talking to a robot) and the
robot end (the simulator). Everything runs on the event loop with ``call_soon``/``call_at``
timers — no threads, no polling loop — so a link costs nothing while idle and several links can
share one loop.

What it guarantees to the layer above:
- sequenced packets are delivered exactly once and in order, whatever the network does
  (selective-repeat ARQ, window 62, per-packet timeouts from the measured round-trip time);
- out-of-band packets are delivered at once and never resent;
- datagrams from anyone but the peer are dropped, malformed ones are counted and dropped;
- the engine end pings every 0.5 s, measures the round trip, and reports the robot lost when
  nothing arrives for ``lost_after`` seconds.
"""

from __future__ import annotations

import asyncio
import logging
import struct
from collections.abc import Callable
from dataclasses import asdict, dataclass
from enum import Enum
from typing import Any, Protocol

from .protocol.arq import WINDOW_SIZE, Outstanding, ReceiveWindow, RttEstimator, SendWindow
from .protocol.frame import (
    MAX_PACKET_PAYLOAD,
    OOB_SEQ,
    DecodeError,
    Frame,
    FrameType,
    PacketType,
    RawPacket,
    decode_frame,
    encode_frame,
)

log = logging.getLogger(__name__)

__all__ = ["Address", "Impairment", "Link", "LinkError", "LinkState", "LinkStats", "Role"]

Address = tuple[str, int]

#: Ping packet body: time_sent_ms f64, counter u32, last u32, unknown u8 (mirrors the message table).
_PING = struct.Struct("<dIIB")


class Role(Enum):
    """Which end of the protocol this link plays."""

    ENGINE = "engine"
    ROBOT = "robot"


class LinkState(Enum):
    """Connection state of a link."""

    IDLE = "idle"
    CONNECTING = "connecting"
    CONNECTED = "connected"
    LOST = "lost"
    CLOSED = "closed"


class LinkError(ConnectionError):
    """Connecting failed, or the link was used after it closed."""


@dataclass
class LinkStats:
    """Counters of one link, readable at any time (``link.stats``)."""

    sent_frames: int = 0
    sent_packets: int = 0
    resent_packets: int = 0
    received_frames: int = 0
    received_packets: int = 0
    delivered_packets: int = 0
    duplicate_packets: int = 0
    dropped_malformed: int = 0
    dropped_foreign: int = 0
    dropped_out_of_window: int = 0
    pings_sent: int = 0
    pongs_received: int = 0
    rtt_ms: float | None = None
    rto_ms: float = 100.0

    def as_dict(self) -> dict[str, Any]:
        """Plain dict for logs and snapshots."""
        return asdict(self)


class Impairment(Protocol):
    """A hook between the link and the socket, used by the simulator to inject network faults."""

    def outgoing(self, data: bytes, addr: Address, send: Callable[[bytes, Address], None]) -> None:
        """Pass (or drop, duplicate, delay) one outgoing datagram."""

    def incoming(self, data: bytes, addr: Address, deliver: Callable[[bytes, Address], None]) -> None:
        """Pass (or drop, duplicate, delay) one incoming datagram."""


PacketHandler = Callable[[RawPacket], None]
StateHandler = Callable[["LinkState", "LinkState"], None]


class Link(asyncio.DatagramProtocol):
    """One end of a Cozmo UDP connection.

    Create it with :meth:`open`, then for the engine role ``await link.connect()``; for the robot
    role the link waits for the engine's Reset. ``on_packet`` receives every delivered packet (in
    order for sequenced ones); ``on_state`` every state change (old, new).
    """

    def __init__(
        self,
        role: Role,
        *,
        peer: Address | None = None,
        on_packet: PacketHandler | None = None,
        on_state: StateHandler | None = None,
        lost_after: float = 3.0,
        ping_interval: float = 0.5,
        ack_delay: float = 0.005,
        window: int = WINDOW_SIZE,
        impairment: Impairment | None = None,
        name: str = "",
    ) -> None:
        self.role = role
        self.peer = peer
        self.on_packet = on_packet
        self.on_state = on_state
        self.lost_after = lost_after
        self.ping_interval = ping_interval
        self.ack_delay = ack_delay
        self.impairment = impairment
        self.name = name or role.value
        self.stats = LinkStats()
        self.state = LinkState.IDLE
        self.rtt = RttEstimator()
        self._send = SendWindow(window)
        self._recv = ReceiveWindow(window)
        self._oob: list[RawPacket] = []
        self._transport: asyncio.DatagramTransport | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._flush_handle: asyncio.Handle | None = None
        self._rtx_handle: asyncio.TimerHandle | None = None
        self._ack_handle: asyncio.TimerHandle | None = None
        self._ping_handle: asyncio.TimerHandle | None = None
        self._watch_handle: asyncio.TimerHandle | None = None
        self._ack_pending = False
        self._last_rx = 0.0
        self._ping_counter = 0
        self._connected_evt: asyncio.Event | None = None
        self._closing = False

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    async def open(cls, role: Role, local_addr: Address = ("0.0.0.0", 0), **kwargs: Any) -> Link:
        """Bind a UDP socket and return a link on it (port 0 picks a free port)."""
        loop = asyncio.get_running_loop()
        link = cls(role, **kwargs)
        await loop.create_datagram_endpoint(lambda: link, local_addr=local_addr)
        return link

    @property
    def local_address(self) -> Address:
        """The bound (host, port) of the socket."""
        assert self._transport is not None
        return self._transport.get_extra_info("sockname")[:2]

    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # noqa: D102
        self._transport = transport  # type: ignore[assignment]
        self._loop = asyncio.get_running_loop()
        self._connected_evt = asyncio.Event()
        self._schedule_watch()

    def connection_lost(self, exc: Exception | None) -> None:  # noqa: D102
        self._cancel_timers()
        if self.state is not LinkState.CLOSED:
            self._set_state(LinkState.CLOSED)

    async def connect(self, peer: Address | None = None, timeout: float = 5.0) -> None:
        """Engine role: send Reset until the robot answers with Connect; raise LinkError on timeout."""
        if self.role is not Role.ENGINE:
            raise LinkError("only the engine end initiates a connection")
        if self._transport is None or self._closing:
            raise LinkError("link is closed")
        if peer is not None:
            self.peer = peer
        if self.peer is None:
            raise LinkError("no robot address given")
        assert self._loop is not None and self._connected_evt is not None
        self._reset_arq()
        self._connected_evt.clear()
        self._set_state(LinkState.CONNECTING)
        deadline = self._loop.time() + timeout
        while not self._connected_evt.is_set():
            self._raw_send(encode_frame(Frame(FrameType.RESET, 0, 0, OOB_SEQ)))
            remaining = deadline - self._loop.time()
            if remaining <= 0:
                self._set_state(LinkState.IDLE)
                raise LinkError(f"no answer from {self.peer[0]}:{self.peer[1]} within {timeout:.1f} s")
            try:
                await asyncio.wait_for(self._connected_evt.wait(), min(0.5, remaining))
            except asyncio.TimeoutError:
                continue
        self._schedule_ping()

    async def disconnect(self, timeout: float = 0.5) -> None:
        """Send Disconnect, wait (briefly) for its ack, then send nothing more and close."""
        if self._transport is None or self._closing:
            return
        if self.state in (LinkState.CONNECTED, LinkState.LOST) and self.peer is not None:
            self.send(RawPacket(PacketType.DISCONNECT, b""))
            assert self._loop is not None
            deadline = self._loop.time() + timeout
            while (len(self._send) or self._send.backlog) and self._loop.time() < deadline:
                await asyncio.sleep(0.01)
        self.close()

    def close(self) -> None:
        """Stop all timers and close the socket at once."""
        if self._closing:
            return
        self._closing = True
        self._cancel_timers()
        if self._transport is not None:
            self._transport.close()
        self._set_state(LinkState.CLOSED)

    # ------------------------------------------------------------------ sending

    def send(self, packet: RawPacket) -> None:
        """Queue a packet: sequenced ones go through the window, out-of-band ones go out next flush."""
        if self._closing:
            raise LinkError("link is closed")
        if packet.type >= PacketType.EVENT:
            self._oob.append(packet)
        else:
            self._send.queue(packet)
        self._schedule_flush()

    def flush(self) -> None:
        """Send what is queued now rather than on the next loop turn (for clocked senders)."""
        if self._flush_handle is not None:
            self._flush_handle.cancel()
        self._flush()

    @property
    def in_flight(self) -> int:
        """Sequenced packets sent and not yet acknowledged, plus those waiting for window room."""
        return len(self._send) + self._send.backlog

    def _schedule_flush(self) -> None:
        if self._flush_handle is None and self._loop is not None:
            self._flush_handle = self._loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_handle = None
        if self._closing or self.peer is None or self.state not in (LinkState.CONNECTED, LinkState.LOST):
            # Nothing may go out before the handshake; sequenced packets wait in the backlog.
            self._oob.clear()
            return
        assert self._loop is not None
        now = self._loop.time()
        resend = self._send.due(now, self.rtt.rto)
        self.stats.resent_packets += len(resend)
        fresh = self._send.take_new(now)
        oob, self._oob = self._oob, []
        self._emit(resend + fresh, oob)
        self._arm_rtx()

    def _emit(self, seqd: list[Outstanding], oob: list[RawPacket]) -> None:
        """Pack packets into frames: each frame holds one contiguous run of sequence numbers."""
        ftype = FrameType.ENGINE if self.role is Role.ENGINE else FrameType.ROBOT
        ack = self._recv.last_in_order
        frames: list[Frame] = []
        run: list[RawPacket] = []
        size = 0
        prev: int | None = None
        for entry in sorted(seqd, key=lambda e: _unwrap(e.seq, self._send.next_seq)):
            plen = 3 + len(entry.packet.body)
            if run and (entry.seq != (prev + 1) % 0xFFFE or size + plen > MAX_PACKET_PAYLOAD):  # type: ignore[operator]
                frames.append(Frame(ftype, run[0].seq, run[-1].seq, ack, run))
                run, size = [], 0
            run.append(entry.packet)
            size += plen
            prev = entry.seq
        if run:
            frames.append(Frame(ftype, run[0].seq, run[-1].seq, ack, run))
        for pkt in oob:
            plen = 3 + len(pkt.body)
            last = frames[-1] if frames else None
            if last is not None and _payload(last) + plen <= MAX_PACKET_PAYLOAD:
                last.packets.append(pkt)
            else:
                frames.append(Frame(ftype, self._send.next_seq, self._send.last_assigned, ack, [pkt]))
        if not frames and self._ack_pending:
            frames.append(Frame(ftype, self._send.next_seq, self._send.last_assigned, ack, []))
        for frame in frames:
            self._send_frame(frame)

    def _send_frame(self, frame: Frame) -> None:
        self._ack_pending = False
        if self._ack_handle is not None:
            self._ack_handle.cancel()
            self._ack_handle = None
        self.stats.sent_frames += 1
        self.stats.sent_packets += len(frame.packets)
        self._raw_send(encode_frame(frame))

    def _raw_send(self, data: bytes) -> None:
        if self._transport is None or self.peer is None or self._transport.is_closing():
            return
        if self.impairment is not None:
            self.impairment.outgoing(data, self.peer, self._sendto)
        else:
            self._sendto(data, self.peer)

    def _sendto(self, data: bytes, addr: Address) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.sendto(data, addr)

    def _arm_rtx(self) -> None:
        deadline = self._send.next_deadline(self.rtt.rto)
        if self._rtx_handle is not None:
            if deadline is not None and abs(self._rtx_handle.when() - deadline) < 1e-4:
                return
            self._rtx_handle.cancel()
            self._rtx_handle = None
        if deadline is not None and self._loop is not None:
            self._rtx_handle = self._loop.call_at(deadline, self._on_rtx)

    def _on_rtx(self) -> None:
        self._rtx_handle = None
        self._flush()

    # ------------------------------------------------------------------ receiving

    def datagram_received(self, data: bytes, addr: Address) -> None:  # noqa: D102
        if self.impairment is not None:
            self.impairment.incoming(data, addr, self._on_datagram)
        else:
            self._on_datagram(data, addr)

    def _on_datagram(self, data: bytes, addr: Address) -> None:
        if self._closing:
            return
        addr = (addr[0], addr[1])
        try:
            frame = decode_frame(data)
        except DecodeError as exc:
            self.stats.dropped_malformed += 1
            log.debug("%s: dropped malformed datagram from %s: %s", self.name, addr, exc)
            return
        if self.role is Role.ROBOT and frame.type == FrameType.RESET:
            if self.peer is None or self.state not in (LinkState.CONNECTED,) or addr == self.peer:
                self._accept_reset(addr)
            else:
                self.stats.dropped_foreign += 1
            return
        if self.peer is None or addr != self.peer:
            self.stats.dropped_foreign += 1
            return
        assert self._loop is not None
        self._last_rx = self._loop.time()
        self.stats.received_frames += 1
        if self.state is LinkState.LOST:
            self._set_state(LinkState.CONNECTED)
        if frame.type == FrameType.FIN:
            self._peer_disconnected()
            return
        if self.role is Role.ROBOT and self.state is not LinkState.CONNECTED:
            return
        if frame.ack != OOB_SEQ:
            samples = self._send.acknowledge(frame.ack, self._last_rx)
            if samples:
                for s in samples:
                    self.rtt.sample(s)
                self._update_rtt_stats()
            if self._send.backlog:
                self._schedule_flush()
            self._arm_rtx()
        for pkt in frame.packets:
            self.stats.received_packets += 1
            if pkt.type == PacketType.PING:
                self._on_ping(pkt)
            elif pkt.type >= PacketType.EVENT:
                self._deliver(pkt)
            else:
                self._ack_pending = True
                before = self._recv.duplicates
                before_oow = self._recv.out_of_window
                for ready in self._recv.receive(pkt):
                    if ready.type == PacketType.DISCONNECT:
                        self._deliver(ready)
                        self._peer_disconnected()
                        return
                    if ready.type == PacketType.CONNECT and self.role is Role.ENGINE:
                        self._on_connected()
                    self._deliver(ready)
                self.stats.duplicate_packets += self._recv.duplicates - before
                self.stats.dropped_out_of_window += self._recv.out_of_window - before_oow
        if self._ack_pending and self._ack_handle is None and self._loop is not None:
            self._ack_handle = self._loop.call_later(self.ack_delay, self._send_ack)

    def _deliver(self, pkt: RawPacket) -> None:
        self.stats.delivered_packets += 1
        if self.on_packet is not None:
            try:
                self.on_packet(pkt)
            except Exception:  # a bad handler must not take the link down
                log.exception("%s: packet handler failed", self.name)

    def _send_ack(self) -> None:
        self._ack_handle = None
        if self._ack_pending and not self._closing:
            self._flush()
            if self._ack_pending:
                self._emit([], [])

    def _on_ping(self, pkt: RawPacket) -> None:
        if self.role is Role.ROBOT:
            # The robot echoes pings back, out of band, inside a robot frame.
            self.send(RawPacket(PacketType.PING, pkt.body))
            return
        if len(pkt.body) < _PING.size or self._loop is None:
            return
        sent_ms = _PING.unpack_from(pkt.body)[0]
        rtt = self._loop.time() - sent_ms / 1000.0
        if 0 <= rtt < 30:
            self.stats.pongs_received += 1
            self.rtt.sample(rtt)
            self._update_rtt_stats()

    def _update_rtt_stats(self) -> None:
        if self.rtt.srtt is not None:
            self.stats.rtt_ms = self.rtt.srtt * 1000.0
        self.stats.rto_ms = self.rtt.rto * 1000.0

    # ------------------------------------------------------------------ state

    def _on_connected(self) -> None:
        if self.state is not LinkState.CONNECTED:
            self._set_state(LinkState.CONNECTED)
        if self._connected_evt is not None:
            self._connected_evt.set()

    def _accept_reset(self, addr: Address) -> None:
        """Robot role: a (new) engine says hello; start a fresh connection and answer Connect."""
        assert self._loop is not None
        log.info("%s: reset from %s:%d", self.name, addr[0], addr[1])
        self.peer = addr
        self._reset_arq()
        self._last_rx = self._loop.time()
        # Connect must be the first sequenced packet, before anything the state change triggers.
        self._send.queue(RawPacket(PacketType.CONNECT, b""))
        self._set_state(LinkState.CONNECTED)
        self._schedule_flush()

    def _peer_disconnected(self) -> None:
        log.info("%s: peer disconnected", self.name)
        self._reset_arq()
        if self.role is Role.ROBOT:
            self.peer = None
        self._set_state(LinkState.IDLE)
        if self._ping_handle is not None:
            self._ping_handle.cancel()
            self._ping_handle = None

    def _reset_arq(self) -> None:
        self._send.reset()
        self._recv.reset()
        self._oob.clear()
        self._ack_pending = False
        for h in (self._rtx_handle, self._ack_handle):
            if h is not None:
                h.cancel()
        self._rtx_handle = self._ack_handle = None

    def _set_state(self, new: LinkState) -> None:
        old = self.state
        if old is new:
            return
        self.state = new
        log.debug("%s: %s -> %s", self.name, old.value, new.value)
        if self.on_state is not None:
            try:
                self.on_state(old, new)
            except Exception:
                log.exception("%s: state handler failed", self.name)

    # ------------------------------------------------------------------ timers

    def _schedule_ping(self) -> None:
        if self._loop is None or self._closing or self.role is not Role.ENGINE:
            return
        self._ping()

    def _ping(self) -> None:
        if self._closing or self.state not in (LinkState.CONNECTED, LinkState.LOST) or self._loop is None:
            self._ping_handle = None
            return
        body = _PING.pack(self._loop.time() * 1000.0, self._ping_counter & 0xFFFFFFFF, 0, 0)
        self._ping_counter += 1
        self.stats.pings_sent += 1
        frame = Frame(FrameType.PING, OOB_SEQ, OOB_SEQ, self._recv.last_in_order, [RawPacket(PacketType.PING, body)])
        self._raw_send(encode_frame(frame))
        self._ping_handle = self._loop.call_later(self.ping_interval, self._ping)

    def _schedule_watch(self) -> None:
        if self._loop is not None and not self._closing:
            self._watch_handle = self._loop.call_later(min(0.1, self.lost_after / 10), self._watch)

    def _watch(self) -> None:
        """Notice a silent peer: the engine reports the robot lost; the robot drops the engine."""
        assert self._loop is not None
        if self.state is LinkState.CONNECTED and self._loop.time() - self._last_rx > self.lost_after:
            if self.role is Role.ENGINE:
                log.warning("%s: no frames from the robot for %.1f s: robot lost", self.name, self.lost_after)
                self._set_state(LinkState.LOST)
            else:
                log.info("%s: engine silent for %.1f s, dropping the connection", self.name, self.lost_after)
                self._peer_disconnected()
        self._schedule_watch()

    def _cancel_timers(self) -> None:
        for h in (self._flush_handle, self._rtx_handle, self._ack_handle, self._ping_handle, self._watch_handle):
            if h is not None:
                h.cancel()
        self._flush_handle = self._rtx_handle = self._ack_handle = self._ping_handle = self._watch_handle = None

    def error_received(self, exc: Exception) -> None:  # noqa: D102
        log.debug("%s: socket error %s", self.name, exc)


def _payload(frame: Frame) -> int:
    return sum(3 + len(p.body) for p in frame.packets)


def _unwrap(seq: int, next_seq: int) -> int:
    """Order sequence numbers by age relative to ``next_seq`` across the wrap."""
    return (seq - next_seq) % 0xFFFE
