"""One end of a Cozmo connection as a state machine: no sockets, no event loop, no threads.

The handshake, reliable delivery (selective-repeat ARQ over :mod:`.arq`), pings, loss of the peer,
reconnecting with backoff and the sequencing of clocked animation frames all live here, and
nothing here waits or writes. Whoever drives a :class:`Session` feeds it what happens and carries
out what it asks, with time passed in as plain seconds:

- ``receive_datagram(data, addr, now)`` for every datagram that arrives;
- ``handle_timer(now)`` when ``next_timer()`` (an absolute time, or None) comes;
- ``datagrams_to_send(now)`` after either of those and after queueing packets with ``send``:
  the ``(bytes, address)`` pairs to write, in order;
- ``next_event()`` until it returns None: delivered packets, state changes, retry steps.

Three drivers exist: :class:`driver.link.Link` on an asyncio loop over a UDP socket or the
in-memory network of virtual-time runs (:mod:`driver.memlink`), and the frame release thread
(:mod:`driver.frame_clock`), which writes clocked frames this session prepared at their exact time.
A test drives a session directly with recorded datagrams and made-up times.

What the session guarantees to the layer above:

- sequenced packets are delivered exactly once and in order, whatever the network does (window
  62, each unacknowledged packet resent on its own timeout derived from the measured round trip);
- out-of-band packets are delivered at once and never resent; datagrams from anyone but the peer
  are dropped, malformed ones counted and dropped;
- the engine end pings every ``ping_interval`` (at least three times per ``lost_after``: a robot
  that sends nothing else, calibrating its motors after SyncTime for about 1.3 s, still answers
  pings), measures the round trip, and declares the peer LOST when nothing arrives for
  ``lost_after`` seconds. It then starts again by itself: a Reset at
  once, then again after ``retry_initial`` seconds, the wait doubling up to ``retry_max`` (the same
  schedule as a first connect), until the robot answers with a new Connect;
- the robot end accepts a Reset from a new engine when it has none (or from its own engine, which
  starts a new connection), and drops an engine that stays silent for ``lost_after``;
- packets sent while not connected are discarded and counted (``stats.discarded_packets``): a
  command meant for a connection that is gone must not reach the next one.

Sequence numbers: the engine's Reset frame stands for its packet 0, so its first sequenced packet
is number 1, and a robot end that accepts a Reset expects 1 next (a real robot acknowledges 0 in
its Connect frame before the engine sent anything; recorded real engines number from 1). The
robot's own numbering starts at 0 with its Connect.

Clocked frames: :meth:`Session.stage_frame` sequences and encodes one animation frame ahead of its
release time. Until it is released, newly sent sequenced packets wait behind it (they would
otherwise overtake its numbers). A stage either goes out from :meth:`datagrams_to_send` once its
time has come, or is handed to a release thread (``external``), which claims it under ``guard``
(the same lock the session takes to cancel stages) and reports it with :meth:`stage_released`.
"""

from __future__ import annotations

import struct
from collections import deque
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from .arq import WINDOW_SIZE, Outstanding, ReceiveWindow, RttEstimator, SendWindow
from .frame import (
    OOB_SEQ,
    DecodeError,
    Frame,
    FrameType,
    PacketType,
    RawPacket,
    decode_frame,
    encode_frame,
)
from .linkstate import (
    STAGE_CANCELLED,
    STAGE_PENDING,
    STAGE_SENT,
    Address,
    Backoff,
    LinkError,
    LinkState,
    LinkStats,
    PacketReceived,
    Retrying,
    Role,
    SessionEvent,
    Stage,
    StateChanged,
)
from .packing import pack_frames

__all__ = ["ENGINE_FIRST_SEQ", "Session"]

#: Ping packet body: time_sent_ms f64, counter u32, last u32, unknown u8 (mirrors the message table).
_PING = struct.Struct("<dIIB")
#: A clocked frame released later than this counts in ``LinkStats.late_releases``.
_LATE_RELEASE_S = 0.001
#: The engine's first sequenced packet after a Reset (the Reset frame itself is number 0).
ENGINE_FIRST_SEQ = 1


# Enum members read once, as module names: on Python 3.11 reading one through its class goes
# through the enum metaclass's attribute hook, about 0.1 µs, and the link reads them per datagram.
_FRAMETYPE_ENGINE = FrameType.ENGINE
_FRAMETYPE_FIN = FrameType.FIN
_FRAMETYPE_PING = FrameType.PING
_FRAMETYPE_RESET = FrameType.RESET
_FRAMETYPE_ROBOT = FrameType.ROBOT
_LINKSTATE_CLOSED = LinkState.CLOSED
_LINKSTATE_CONNECTED = LinkState.CONNECTED
_LINKSTATE_CONNECTING = LinkState.CONNECTING
_LINKSTATE_IDLE = LinkState.IDLE
_LINKSTATE_LOST = LinkState.LOST
_PACKETTYPE_CONNECT = PacketType.CONNECT
_PACKETTYPE_DISCONNECT = PacketType.DISCONNECT
_PACKETTYPE_EVENT = PacketType.EVENT
_PACKETTYPE_PING = PacketType.PING
_ROLE_ENGINE = Role.ENGINE
_ROLE_ROBOT = Role.ROBOT


class Session:
    """The connection state machine of one end (see the module docstring for how to drive it).

    ``guard`` is entered around every change of a stage's state; a driver with a release thread
    passes a lock it also holds while releasing.
    """

    def __init__(
        self,
        role: Role,
        *,
        peer: Address | None = None,
        lost_after: float = 3.0,
        ping_interval: float = 0.5,
        ack_delay: float = 0.005,
        window: int = WINDOW_SIZE,
        retry_initial: float = 0.5,
        retry_max: float = 10.0,
        reconnect: bool = True,
        guard: AbstractContextManager[Any] | None = None,
    ) -> None:
        self.role = role
        self.peer = peer
        self.lost_after = lost_after
        self.ping_interval = min(ping_interval, lost_after / 3.0)
        self.ack_delay = ack_delay
        #: engine: start again by itself after a loss
        self.reconnect = reconnect
        self.backoff = Backoff(retry_initial, retry_max)
        self.state = _LINKSTATE_IDLE
        self.stats = LinkStats()
        self.rtt = RttEstimator()
        self._first_seq = ENGINE_FIRST_SEQ if role is _ROLE_ENGINE else 0
        self._send = SendWindow(window, self._first_seq)
        self._recv = ReceiveWindow(window)
        self._oob: list[RawPacket] = []
        self._ready: list[tuple[bytes, Address]] = []  # encoded, to go out at the next datagrams_to_send
        self._events: deque[SessionEvent] = deque()
        self._stages: deque[Stage] = deque()
        self._guard: AbstractContextManager[Any] = guard if guard is not None else nullcontext()
        self._want_flush = False
        self._last_rx = 0.0
        self._ack_at: float | None = None
        self._ping_at: float | None = None
        self._retry_at: float | None = None
        self._waited = 0.0
        self._reported_wait: float | None = None
        self._ping_counter = 0

    # ------------------------------------------------------------------ what the driver reads

    def next_event(self) -> SessionEvent | None:
        """The oldest event not yet taken, or None."""
        return self._events.popleft() if self._events else None

    def next_timer(self) -> float | None:
        """When :meth:`handle_timer` (and then :meth:`datagrams_to_send`) must run next, or None."""
        # The earliest of a few deadlines, compared one by one: the link asks after everything it
        # takes in or sends, dozens of times a second.
        state = self.state
        if state is _LINKSTATE_CONNECTED:
            t = self._lost_at()
            ping, ack = self._ping_at, self._ack_at
            if ping is not None and ping < t:
                t = ping
            if ack is not None and ack < t:
                t = ack
            rtx = self._send.next_deadline(self.rtt.rto, self._unreleased_seq())
            if rtx is not None and rtx < t:
                t = rtx
            for stage in self._stages:
                if stage.state == STAGE_PENDING:
                    if not stage.external and stage.at < t:
                        t = stage.at
                    break
            return t
        if state is _LINKSTATE_CLOSED:
            return None
        return self._retry_at

    @property
    def pending_output(self) -> bool:
        """True when :meth:`datagrams_to_send` has something to send now."""
        return self._want_flush or bool(self._ready)

    @property
    def quiet(self) -> bool:
        """True when :meth:`datagrams_to_send` can have nothing to send until a timer or a send
        says otherwise: nothing queued, unacknowledged, owed an ack or waiting for its time."""
        return not (self._want_flush or self._ready or self._oob or self._ack_at is not None
                    or len(self._send) or self._send.backlog or self._stages)

    @property
    def backlog(self) -> int:
        """Sequenced packets queued and not yet sent (waiting for window room or a clocked frame)."""
        return self._send.backlog

    @property
    def in_flight(self) -> int:
        """Sequenced packets sent and not yet acknowledged, plus those waiting for window room."""
        return len(self._send) + self._send.backlog

    @property
    def stages_pending(self) -> bool:
        """True while a clocked frame waits for its time (released ones are dropped from the front)."""
        stages = self._stages
        while stages and stages[0].state != STAGE_PENDING:
            stages.popleft()
        return bool(stages)

    @property
    def pending_until(self) -> float | None:
        """The release time of the last clocked frame still waiting for its time (None: none waits)."""
        return self._stages[-1].at if self.stages_pending else None

    @property
    def ack(self) -> int:
        """What this end acknowledges: the peer's last sequence number received in order."""
        return self._recv.last_in_order

    # ------------------------------------------------------------------ what the layer above asks

    def connect(self, now: float, peer: Address | None = None) -> None:
        """Engine: start a new connection (a Reset now, repeated with backoff until the robot answers)."""
        if self.role is not _ROLE_ENGINE:
            raise LinkError("only the engine end initiates a connection")
        if self.state is _LINKSTATE_CLOSED:
            raise LinkError("the connection is closed")
        if peer is not None:
            self.peer = (peer[0], peer[1])
        if self.peer is None:
            raise LinkError("no robot address given")
        self._drop_connection()
        self._start_retrying(now)
        self._set_state(_LINKSTATE_CONNECTING, f"connecting to {self.peer[0]}:{self.peer[1]}")
        self._attempt(now)

    def forget(self, reason: str) -> None:
        """Drop the connection and the peer's claim on it, without a word to the peer (a reboot)."""
        if self.state is _LINKSTATE_CLOSED:
            return
        self._drop_connection()
        self._retry_at = None
        if self.role is _ROLE_ROBOT:
            self.peer = None
        self._set_state(_LINKSTATE_IDLE, reason)

    def close(self) -> None:
        """Closed for good: nothing goes out or comes in any more."""
        if self.state is _LINKSTATE_CLOSED:
            return
        self._drop_connection()
        self._retry_at = None
        self._set_state(_LINKSTATE_CLOSED, "closed")

    def send(self, packet: RawPacket) -> None:
        """Queue a packet: sequenced ones go through the window, out-of-band ones with the next frame."""
        if self.state is not _LINKSTATE_CONNECTED:
            if self.state is _LINKSTATE_CLOSED:
                raise LinkError("the connection is closed")
            self.stats.discarded_packets += 1
            return
        if packet.type >= _PACKETTYPE_EVENT:
            self._oob.append(packet)
        else:
            self._send.queue(packet)
        self._want_flush = True

    def stage_frame(self, packets: list[RawPacket], at: float, now: float, *, external: bool = False) -> Stage | None:
        """Sequence and encode one frame now, to be released at ``at``; None when there is nothing to send.

        What was queued before the frame is encoded first and leaves with the next
        :meth:`datagrams_to_send`, which the driver calls before handing an ``external`` stage to
        its release thread.
        """
        if not packets:
            return None
        if self.state is not _LINKSTATE_CONNECTED or self.peer is None:
            if self.state is _LINKSTATE_CLOSED:
                raise LinkError("the connection is closed")
            self.stats.discarded_packets += len(packets)
            return None
        if not self.stages_pending:
            self._ready.extend((data, self.peer) for data in self._pack(now))
        oob: list[RawPacket] = []
        for pkt in packets:
            if pkt.type >= _PACKETTYPE_EVENT:
                oob.append(pkt)
            else:
                self._send.queue(pkt)  # behind anything still waiting, so numbers stay in order
        entries = self._send.take_new(max(at, now))
        frames = self._frames(entries, oob, False)
        self.stats.sent_frames += len(frames)
        self.stats.sent_packets += sum(len(f.packets) for f in frames)
        if self._send.backlog:
            self._want_flush = True  # a full window kept some packets back: they follow later
        if not frames:
            return None
        stage = Stage(at, [encode_frame(f) for f in frames], self.peer, entries[0].seq if entries else None, external)
        self._stages.append(stage)
        return stage

    def stage_released(self, stage: Stage) -> None:
        """A release thread sent ``stage``: account for it; what waited behind it may now go."""
        if stage.state != STAGE_SENT or self.state is _LINKSTATE_CLOSED:
            return
        self._account(stage)
        if self._send.backlog and not self.stages_pending:
            self._want_flush = True

    # ------------------------------------------------------------------ what happens

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        """Take one datagram from ``addr``."""
        if self.state is _LINKSTATE_CLOSED:
            return
        addr = (addr[0], addr[1])
        try:
            frame = decode_frame(data)
        except DecodeError:
            self.stats.dropped_malformed += 1
            return
        if self.role is _ROLE_ROBOT and frame.type == _FRAMETYPE_RESET:
            if self.peer is None or self.state is not _LINKSTATE_CONNECTED or addr == self.peer:
                self._accept_reset(addr, now)
            else:
                self.stats.dropped_foreign += 1
            return
        if self.peer is None or addr != self.peer:
            self.stats.dropped_foreign += 1
            return
        if self.state is not _LINKSTATE_CONNECTED:
            if (self.role is _ROLE_ROBOT or self._retry_at is None
                    or not any(p.type == _PACKETTYPE_CONNECT for p in frame.packets)):
                # Not connected (yet): only the answer to our Reset counts; the rest is stale.
                self.stats.dropped_stale += 1
                return
        self._last_rx = now
        self.stats.received_frames += 1
        if frame.type == _FRAMETYPE_FIN:
            self._peer_closed(now, "the peer closed the connection")
            return
        if frame.ack != OOB_SEQ:
            samples = self._send.acknowledge(frame.ack, now)
            if samples:
                for s in samples:
                    self.rtt.sample(s)
                self._update_rtt_stats()
            if self._send.backlog:
                self._want_flush = True
        for pkt in frame.packets:
            self.stats.received_packets += 1
            if pkt.type == _PACKETTYPE_PING:
                self._on_ping(pkt, now)
            elif pkt.type >= _PACKETTYPE_EVENT:
                self._deliver(pkt)
            else:
                if self._ack_at is None:
                    self._ack_at = now + self.ack_delay
                recv = self._recv
                before, before_oow = recv.duplicates, recv.out_of_window
                for ready in recv.receive(pkt):
                    if ready.type == _PACKETTYPE_DISCONNECT:
                        self._deliver(ready)
                        # Acknowledge the goodbye at once (the peer waits for it), then forget.
                        goodbye = [(encode_frame(f), addr) for f in self._frames([], [], True)]
                        self._peer_closed(now, "the peer disconnected")
                        self._ready.extend(goodbye)
                        self._want_flush = True
                        return
                    if ready.type == _PACKETTYPE_CONNECT and self.role is _ROLE_ENGINE:
                        self._on_connect(now)
                    self._deliver(ready)
                self.stats.duplicate_packets += recv.duplicates - before
                self.stats.dropped_out_of_window += recv.out_of_window - before_oow

    def heard(self, now: float, packets: int) -> None:
        """The peer's ``packets`` came in at ``now`` by another way than a datagram (a direct
        in-memory link, :mod:`driver.memlink`): the peer is alive, and they count as received."""
        if self.state is not _LINKSTATE_CONNECTED:
            return
        self._last_rx = now
        stats = self.stats
        stats.received_frames += 1
        stats.received_packets += packets
        stats.delivered_packets += packets

    def handle_timer(self, now: float) -> None:
        """Do what is due at ``now``: notice a silent peer, repeat a Reset, ping."""
        state = self.state
        if state is _LINKSTATE_CONNECTED:
            if now >= self._lost_at():
                if self.role is _ROLE_ENGINE:
                    self._lose(now, f"no frames from the robot for {self.lost_after:.1f} s")
                else:
                    self.forget(f"engine silent for {self.lost_after:.1f} s, dropping the connection")
                return
            if self._ping_at is not None and now >= self._ping_at:
                self._ping(now)
                self._ping_at = now + self.ping_interval
        elif self._retry_at is not None and now >= self._retry_at:
            self._attempt(now)

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        """Everything to write now, in order: Resets and pings, due clocked frames, then packets and acks."""
        out = self._ready
        self._ready = []
        peer = self.peer
        if self.state is _LINKSTATE_CONNECTED and peer is not None:
            if self._stages:
                self._release_due(now, out)
            out.extend((data, peer) for data in self._pack(now))
        else:
            self._oob.clear()
        self._want_flush = False
        return out

    # ------------------------------------------------------------------ internals: receiving

    def _deliver(self, pkt: RawPacket) -> None:
        self.stats.delivered_packets += 1
        self._events.append(PacketReceived(pkt))

    def _on_ping(self, pkt: RawPacket, now: float) -> None:
        if self.role is _ROLE_ROBOT:
            # The robot echoes pings back, out of band, inside a robot frame.
            self._oob.append(RawPacket(_PACKETTYPE_PING, pkt.body))
            self._want_flush = True
            return
        if len(pkt.body) < _PING.size:
            return
        sent_ms = _PING.unpack_from(pkt.body)[0]
        rtt = now - sent_ms / 1000.0
        if 0 <= rtt < 30:
            self.stats.pongs_received += 1
            self.rtt.sample(rtt)
            self._update_rtt_stats()

    def _update_rtt_stats(self) -> None:
        if self.rtt.srtt is not None:
            self.stats.rtt_ms = self.rtt.srtt * 1000.0
        self.stats.rto_ms = self.rtt.rto * 1000.0

    def _on_connect(self, now: float) -> None:
        """Engine: the robot's Connect arrived; the connection is up."""
        if self.state is _LINKSTATE_CONNECTED:
            return
        self._retry_at = None
        self.backoff.reset()
        self._ping_at = now  # the first ping at once: it measures the round trip
        self.stats.connections += 1
        self._set_state(_LINKSTATE_CONNECTED, "the robot answered")

    def _accept_reset(self, addr: Address, now: float) -> None:
        """Robot end: an engine says hello; start a fresh connection and answer Connect."""
        if self.state is _LINKSTATE_CONNECTED:
            self._set_state(_LINKSTATE_IDLE, "the engine started a new connection")
        self.peer = addr
        self._drop_connection()
        self._recv.reset(ENGINE_FIRST_SEQ)
        self._last_rx = now
        # Connect must be the first sequenced packet, before anything the state change triggers.
        self._send.queue(RawPacket(_PACKETTYPE_CONNECT, b""))
        self._want_flush = True
        self.stats.connections += 1
        self._set_state(_LINKSTATE_CONNECTED, f"reset from {addr[0]}:{addr[1]}")

    def _peer_closed(self, now: float, reason: str) -> None:
        if self.role is _ROLE_ENGINE:
            self._lose(now, reason)
        else:
            self.forget(reason)

    # ------------------------------------------------------------------ internals: connection

    def _lost_at(self) -> float:
        # One expression for the deadline and its check, so a timer set for it always finds it due.
        return self._last_rx + self.lost_after

    def _lose(self, now: float, reason: str) -> None:
        """Engine: the connection is gone; reconnect with backoff (unless told not to)."""
        self._drop_connection()
        self._retry_at = None
        self._set_state(_LINKSTATE_LOST, reason)
        if self.reconnect:
            self._start_retrying(now)
            self._attempt(now)

    def _start_retrying(self, now: float) -> None:
        self.backoff.reset()
        self._reported_wait = None
        self._retry_at = now

    def _attempt(self, now: float) -> None:
        """Send one Reset; schedule the next; report a new backoff step."""
        assert self.peer is not None
        self._ready.append((encode_frame(Frame(_FRAMETYPE_RESET, 0, 0, OOB_SEQ)), self.peer))
        self.stats.resets_sent += 1
        waited = self._waited
        wait = self.backoff.step()
        self._waited = wait
        self._retry_at = now + wait
        if self.backoff.attempts >= 2 and wait != self._reported_wait:
            self._reported_wait = wait
            self._events.append(Retrying(self.backoff.attempts, waited, wait))

    def _drop_connection(self) -> None:
        """Forget the windows, queued packets, timers and clocked frames of the current connection."""
        with self._guard:
            for stage in self._stages:
                if stage.state == STAGE_PENDING:
                    stage.state = STAGE_CANCELLED
        self._stages.clear()
        self._send.reset(self._first_seq)
        self._recv.reset()
        self._oob.clear()
        self._ready.clear()
        self._want_flush = False
        self._ack_at = None
        self._ping_at = None

    def _set_state(self, new: LinkState, reason: str) -> None:
        old = self.state
        if old is new:
            return
        self.state = new
        self._events.append(StateChanged(old, new, reason))

    # ------------------------------------------------------------------ internals: sending

    def _ping(self, now: float) -> None:
        body = _PING.pack(now * 1000.0, self._ping_counter & 0xFFFFFFFF, 0, 0)
        self._ping_counter += 1
        self.stats.pings_sent += 1
        frame = Frame(_FRAMETYPE_PING, OOB_SEQ, OOB_SEQ, self._recv.last_in_order, [RawPacket(_PACKETTYPE_PING, body)])
        assert self.peer is not None
        self._ready.append((encode_frame(frame), self.peer))

    def _pack(self, now: float) -> list[bytes]:
        """Resends that are due, new packets (unless a clocked frame holds them back), out-of-band
        packets, and a bare ack when one is due and nothing else carries it."""
        resend = self._send.due(now, self.rtt.rto, self._unreleased_seq())
        self.stats.resent_packets += len(resend)
        # New sequence numbers must not overtake a clocked frame still waiting for its time.
        fresh = [] if self.stages_pending else self._send.take_new(now)
        oob, self._oob = self._oob, []
        ack_due = self._ack_at is not None and now >= self._ack_at
        frames = self._frames(resend + fresh, oob, ack_due)
        if not frames:
            return []
        self._ack_at = None  # every frame carries the ack
        self.stats.sent_frames += len(frames)
        self.stats.sent_packets += sum(len(f.packets) for f in frames)
        return [encode_frame(f) for f in frames]

    def _frames(self, seqd: list[Outstanding], oob: list[RawPacket], with_ack: bool) -> list[Frame]:
        """Pack packets into frames (:func:`.packing.pack_frames`)."""
        if not seqd and not oob and not with_ack:
            return []  # nothing to send (most calls: the link asks after everything it takes in)
        ftype = _FRAMETYPE_ENGINE if self.role is _ROLE_ENGINE else _FRAMETYPE_ROBOT
        # Frames without sequenced packets name the next number on the wire: a clocked frame's
        # numbers are assigned already but not sent yet.
        wire_next = self._send.next_seq
        for st in self._stages:
            if st.state == STAGE_PENDING and st.first_seq is not None:
                wire_next = st.first_seq
                break
        return pack_frames(seqd, oob, with_ack, ftype=ftype, ack=self._recv.last_in_order,
                           next_seq=self._send.next_seq, wire_next=wire_next)

    def _unreleased_seq(self) -> int | None:
        """The first sequence number of a clocked frame still waiting (None: none waits)."""
        for stage in self._stages:
            if stage.state == STAGE_PENDING and stage.first_seq is not None:
                return stage.first_seq
        return None

    def _release_due(self, now: float, out: list[tuple[bytes, Address]]) -> None:
        """Clocked frames no release thread took whose time has come, in order."""
        with self._guard:
            for stage in self._stages:
                if stage.state != STAGE_PENDING:
                    continue
                if stage.external or stage.at > now:
                    break
                stage.state = STAGE_SENT
                stage.sent_at = now
                out.extend((data, stage.peer) for data in stage.datagrams)
                self._account(stage)

    def _account(self, stage: Stage) -> None:
        self.stats.clocked_frames += 1
        if stage.sent_at is not None:
            late = stage.sent_at - stage.at
            if late > _LATE_RELEASE_S:
                self.stats.late_releases += 1
            self.stats.max_release_late_ms = max(self.stats.max_release_late_ms, late * 1000.0)

