"""The Cozmo UDP link on asyncio: connection state machine, reliable delivery, pings, loss of robot.

One class serves both ends of the protocol: the engine end (our brain talking to a robot) and the
robot end (the simulator). Everything runs on the event loop with ``call_soon``/``call_at``
timers — no polling loop — so a link costs nothing while idle and several links can share one
loop. The one exception is the release of clocked frames (below).

What it guarantees to the layer above:
- sequenced packets are delivered exactly once and in order, whatever the network does
  (selective-repeat ARQ, window 62, per-packet timeouts from the measured round-trip time);
- out-of-band packets are delivered at once and never resent;
- datagrams from anyone but the peer are dropped, malformed ones are counted and dropped;
- the engine end pings every 0.5 s, measures the round trip, and reports the robot lost when
  nothing arrives for ``lost_after`` seconds.

Clocked frames
    The animation controller must put one frame on the air every 1/30 s, evenly. The event loop
    cannot promise that: its timers wake ~1 ms late by design (millisecond poll timeouts), and
    any callback that holds the loop for a few ms holds the frame too. So a frame is prepared on
    the loop a few ms early and handed over with :meth:`Link.frame_at`: its packets get their
    sequence numbers and are encoded to datagrams on the loop at once, and a small
    :class:`ReleaseClock` thread (one per link, started on first use) writes those ready-made
    bytes to the socket at the exact time. The thread touches nothing but the bytes, a flag and
    the socket; windows, resends and acks stay on the loop. While a frame waits for its time,
    newly sent sequenced packets wait behind it (they would otherwise overtake its sequence
    numbers); they go out right after it. Links without a real socket (the in-memory network
    of virtual-time runs) release frames from a loop timer instead.

    A thread that wakes on time still needs the GIL to send. CPython hands the GIL to a waiting
    thread only every ``sys.getswitchinterval()`` (5 ms by default), so a program that wants
    sub-millisecond frames while its loop is busy calls :func:`tune_thread_switching` once at
    start-up (never done on import: it is a process-wide setting).

    The thread must also get a CPU at once when it wakes. Linux's fair scheduler may queue it
    behind a busy event-loop thread for a whole time slice (~3 ms measured), so for frames that
    are on time while the loop works, either give the thread a real-time priority
    (``release_priority``, SCHED_FIFO: needs root, CAP_SYS_NICE or an RLIMIT_RTPRIO such as
    systemd's ``LimitRTPRIO=``) or a CPU of its own (``release_cpu``, with the program keeping
    its loop thread off that CPU). Both are explicit choices of the program, not defaults.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
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

__all__ = [
    "FRAME_CLOCK_SWITCH_INTERVAL_S",
    "RELEASE_SPIN_S",
    "Address",
    "DatagramTap",
    "Impairment",
    "Link",
    "LinkError",
    "LinkState",
    "LinkStats",
    "ReleaseClock",
    "Role",
    "tune_thread_switching",
]

Address = tuple[str, int]

#: Ping packet body: time_sent_ms f64, counter u32, last u32, unknown u8 (mirrors the message table).
_PING = struct.Struct("<dIIB")

#: The release thread sleeps until this long before a frame's time, then naps and spins to it
#: (see :meth:`ReleaseClock._wait_until`). Long sleeps may overshoot by a millisecond or two on a
#: loaded or virtualised machine; the naps are not late.
RELEASE_SPIN_S = 0.003
#: The switch interval :func:`tune_thread_switching` sets by default: a thread woken for a frame
#: gets the GIL within about this long even while the event loop is busy.
FRAME_CLOCK_SWITCH_INTERVAL_S = 0.0002
#: A release later than this counts in ``LinkStats.late_releases``.
_LATE_RELEASE_S = 0.001
#: The release thread's naps near a frame's time, and the stretch it spins at the end.
_NAP_S = 0.0002
_SPIN_TAIL_S = 0.0003


def tune_thread_switching(interval_s: float = FRAME_CLOCK_SWITCH_INTERVAL_S) -> float:
    """Lower the interpreter's thread switch interval so clocked frames go out on time; returns
    the previous interval.

    A process-wide setting, so it is for a program's entry point (the daemon, a benchmark), not
    for a library: with the default 5 ms a frame thread can wait that long for the GIL whenever
    the event loop is busy. Shorter than the ~0.5 ms slices an event loop typically runs between
    system calls, it also stops the loop from winning the GIL back again and again while the
    frame thread waits (the "convoy effect"). It costs nothing while only one thread runs Python.
    """
    if not 0 < interval_s <= 0.1:
        raise ValueError(f"switch interval must be in (0, 0.1] s, got {interval_s!r}")
    previous = sys.getswitchinterval()
    sys.setswitchinterval(interval_s)
    log.debug("thread switch interval %.2f ms (was %.2f ms)", interval_s * 1e3, previous * 1e3)
    return previous


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
    #: clocked frames (:meth:`Link.frame_at`) released, and how late the release thread was
    clocked_frames: int = 0
    late_releases: int = 0
    max_release_late_ms: float = 0.0

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
#: Sees every datagram at the socket: (True, data) sent, (False, data) received (``run --record``).
DatagramTap = Callable[[bool, bytes], None]

_PENDING, _SENT, _CANCELLED = 0, 1, 2


class _Stage:
    """One clocked frame: datagrams encoded on the loop, waiting for their release time.

    ``state`` goes PENDING -> SENT (by whoever releases it) or PENDING -> CANCELLED (by the loop),
    each change under the link's stage lock, so a frame is never both sent and cancelled.
    """

    __slots__ = ("at", "datagrams", "peer", "first_seq", "state", "sent_at")

    def __init__(self, at: float, datagrams: list[bytes], peer: Address, first_seq: int | None) -> None:
        self.at = at  # loop time
        self.datagrams = datagrams
        self.peer = peer
        self.first_seq = first_seq  # its first sequence number (None: out-of-band packets only)
        self.state = _PENDING
        self.sent_at: float | None = None  # loop time


class ReleaseClock:
    """A small thread that writes ready-made datagrams to a socket at exact times.

    Why a thread: a thread asleep in the kernel is not held up by whatever the event loop is
    running, so it can send at the planned instant. It sleeps until ``spin_s`` before the time
    (sleeps may overshoot on a loaded machine), then naps and spins to it. It sends only bytes
    prepared on the loop, each stage under ``lock`` and only while the stage is still pending,
    and reports every release back to the loop with ``call_soon_threadsafe(on_released, stage)``.
    """

    def __init__(self, sock: socket.socket, lock: threading.Lock, loop: asyncio.AbstractEventLoop,
                 on_released: Callable[[_Stage], None], send_later: Callable[[bytes, Address], None], *,
                 spin_s: float = RELEASE_SPIN_S, priority: int | None = None, cpu: int | None = None,
                 name: str = "link", tap: DatagramTap | None = None) -> None:
        self.spin_s = spin_s
        self._tap = tap
        #: SCHED_FIFO priority asked for (None: normal scheduling); ``realtime`` says if it was granted
        self.priority = priority
        self.realtime = False
        #: the CPU the thread is pinned to (None: any)
        self.cpu = cpu
        self._sock = sock
        self._lock = lock
        self._loop = loop
        self._on_released = on_released
        self._send_later = send_later
        self._cond = threading.Condition()
        self._queue: deque[_Stage] = deque()
        self._closed = False
        # loop time = monotonic time + offset (the same clock for asyncio's default loop)
        self._offset = loop.time() - time.monotonic()
        self._thread = threading.Thread(target=self._run, name=f"{name}-frame-clock", daemon=True)
        self._thread.start()

    def submit(self, stage: _Stage) -> None:
        """Release ``stage`` at its time (stages are released in the order submitted)."""
        with self._cond:
            self._queue.append(stage)
            self._cond.notify()

    def close(self, timeout: float = 0.05) -> None:
        """Stop the thread (pending stages are dropped; cancel them first) and close its socket."""
        with self._cond:
            self._closed = True
            self._queue.clear()
            self._cond.notify()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def _run(self) -> None:
        if self.priority:
            self._raise_priority(self.priority)
        if self.cpu is not None:
            try:
                os.sched_setaffinity(0, {self.cpu})  # this thread only
            except (OSError, AttributeError, ValueError) as exc:
                log.warning("frame clock: cannot run on CPU %d (%s)", self.cpu, exc)
                self.cpu = None
        try:
            while True:
                with self._cond:
                    while not self._queue and not self._closed:
                        self._cond.wait()
                    if self._closed:
                        return
                    stage = self._queue[0]
                    at = stage.at - self._offset  # monotonic time of the release
                    while not self._closed and stage.state == _PENDING:
                        rest = at - self.spin_s - time.monotonic()
                        if rest <= 0:
                            break
                        self._cond.wait(rest)
                    if self._closed:
                        return
                self._wait_until(stage, at)
                self._release(stage)
                with self._cond:
                    if self._queue and self._queue[0] is stage:
                        self._queue.popleft()
                try:
                    self._loop.call_soon_threadsafe(self._on_released, stage)
                except RuntimeError:  # the loop is closed: nobody is left to tell
                    return
        finally:
            self._sock.close()

    def _wait_until(self, stage: _Stage, at: float) -> None:
        """The last ``spin_s`` before monotonic time ``at``: short naps, then a short spin.

        Why not one long sleep: a CPU left idle for milliseconds may take a millisecond or more to
        wake (deep idle states, a virtual machine's halted CPU), while one that naps briefly does
        not. Why not a long spin: the spin needs the GIL; held for longer than the switch
        interval while the loop wants it, it is taken away, and the scheduler may then leave this
        thread waiting behind the busy loop thread for a whole time slice. So the thread naps
        (without the GIL) in steps of at most :data:`_NAP_S`, holds the GIL only for a moment
        after each, and spins only for the last stretch, shorter than the switch interval.
        """
        tail = min(_SPIN_TAIL_S, 0.6 * sys.getswitchinterval())
        while stage.state == _PENDING:
            rest = at - time.monotonic()
            if rest <= tail:
                break
            time.sleep(min(rest - tail, _NAP_S))
        while stage.state == _PENDING and time.monotonic() < at:
            pass

    def _raise_priority(self, priority: int) -> None:
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))  # this thread only
        except (OSError, AttributeError, ValueError) as exc:
            log.warning("frame clock: real-time priority %d not granted (%s); frames may be late while "
                        "the event loop or other programs keep the CPUs busy", priority, exc)
        else:
            self.realtime = True

    def _release(self, stage: _Stage) -> None:
        with self._lock:
            if stage.state != _PENDING:
                return
            stage.sent_at = time.monotonic() + self._offset
            for i, data in enumerate(stage.datagrams):
                try:
                    self._sock.sendto(data, stage.peer)
                    if self._tap is not None:
                        self._tap(True, data)
                except BlockingIOError:
                    # The socket buffer is full: let the loop's transport queue the rest, in order.
                    for rest in stage.datagrams[i:]:
                        self._loop.call_soon_threadsafe(self._send_later, rest, stage.peer)
                    break
                except OSError as exc:  # like a lost datagram: the ARQ resends what matters
                    log.debug("frame clock: send failed: %s", exc)
            stage.state = _SENT



class Link(asyncio.DatagramProtocol):
    """One end of a Cozmo UDP connection.

    Create it with :meth:`open`, then for the engine role ``await link.connect()``; for the robot
    role the link waits for the engine's Reset. ``on_packet`` receives every delivered packet (in
    order for sequenced ones); ``on_state`` every state change (old, new). ``threaded_release``
    lets :meth:`frame_at` use a :class:`ReleaseClock` thread (False: release from a loop timer);
    ``release_spin_s`` is that thread's spin margin, ``release_priority`` its SCHED_FIFO
    priority (None: normal scheduling) and ``release_cpu`` the CPU it is pinned to (None: any).
    They can be changed until the first clocked frame.
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
        threaded_release: bool = True,
        release_spin_s: float = RELEASE_SPIN_S,
        release_priority: int | None = None,
        release_cpu: int | None = None,
        tap: DatagramTap | None = None,
    ) -> None:
        self.role = role
        #: called with (True, datagram) for every datagram sent and (False, datagram) for every one
        #: received, as it goes to or comes from the socket (from the release thread too)
        self.tap = tap
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
        self.threaded_release = threaded_release
        self.release_spin_s = release_spin_s
        self.release_priority = release_priority
        self.release_cpu = release_cpu
        # clocked frames not yet released, oldest first (loop side), and what guards their state
        self._stages: deque[_Stage] = deque()
        self._stage_lock = threading.Lock()
        self._clock: ReleaseClock | None = None
        self._capture: list[RawPacket] | None = None

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
        self._cancel_stages()
        if self._clock is not None:
            self._clock.close()
            self._clock = None
        if self._transport is not None:
            self._transport.close()
        self._set_state(LinkState.CLOSED)

    # ------------------------------------------------------------------ sending

    def send(self, packet: RawPacket) -> None:
        """Queue a packet: sequenced ones go through the window, out-of-band ones go out next flush."""
        if self._closing:
            raise LinkError("link is closed")
        if self._capture is not None:
            self._capture.append(packet)
            return
        if packet.type >= PacketType.EVENT:
            self._oob.append(packet)
        else:
            self._send.queue(packet)
        self._schedule_flush()

    def flush(self) -> None:
        """Send what is queued now rather than on the next loop turn (for clocked senders)."""
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        self._flush()

    @contextlib.contextmanager
    def frame_at(self, at: float) -> Iterator[None]:
        """Gather every packet sent inside the block into one frame that goes out at loop time ``at``.

        The frame is sequenced and encoded when the block ends, and released at ``at`` by the
        link's release thread (or at once when ``at`` has passed). What was queued before the
        block goes out first; sequenced packets sent after it wait until it is released. Blocks
        do not nest. Before the handshake the packets take the ordinary path.
        """
        if self._capture is not None:
            raise LinkError("frame_at blocks do not nest")
        self._capture = captured = []
        try:
            yield
        finally:
            self._capture = None
            self._stage(captured, at)

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
        # New sequence numbers must not overtake a clocked frame still waiting for its time.
        fresh = [] if self._stages_pending() else self._send.take_new(now)
        oob, self._oob = self._oob, []
        self._emit(resend + fresh, oob)
        self._arm_rtx()

    def _emit(self, seqd: list[Outstanding], oob: list[RawPacket]) -> None:
        for frame in self._frames(seqd, oob, self._ack_pending):
            self._send_frame(frame)

    def _frames(self, seqd: list[Outstanding], oob: list[RawPacket], with_ack: bool) -> list[Frame]:
        """Pack packets into frames: each frame holds one contiguous run of sequence numbers."""
        ftype = FrameType.ENGINE if self.role is Role.ENGINE else FrameType.ROBOT
        ack = self._recv.last_in_order
        # Frames without sequenced packets name the next number on the wire: a clocked frame's
        # numbers are assigned already but not sent yet.
        wire_next = self._send.next_seq
        for st in self._stages:
            if st.state == _PENDING and st.first_seq is not None:
                wire_next = st.first_seq
                break
        wire_last = (wire_next - 1) % 0xFFFE
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
                frames.append(Frame(ftype, wire_next, wire_last, ack, [pkt]))
        if not frames and with_ack:
            frames.append(Frame(ftype, wire_next, wire_last, ack, []))
        return frames

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
            if self.tap is not None:
                self.tap(True, data)

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

    # ------------------------------------------------------------------ clocked frames

    def _stage(self, packets: list[RawPacket], at: float) -> None:
        """Sequence and encode one frame now; have it released at loop time ``at``."""
        if not packets:
            return
        loop = self._loop
        if self._closing or loop is None or self.peer is None or self.state not in (LinkState.CONNECTED,
                                                                                    LinkState.LOST):
            for pkt in packets:  # before the handshake: the ordinary rules (hold or drop)
                self.send(pkt)
            return
        now = loop.time()
        if not self._stages_pending():
            self.flush()  # what was queued before the frame goes out now, ahead of it
        oob: list[RawPacket] = []
        for pkt in packets:
            if pkt.type >= PacketType.EVENT:
                oob.append(pkt)
            else:
                self._send.queue(pkt)  # behind anything still waiting, so numbers stay in order
        entries = self._send.take_new(max(at, now))
        frames = self._frames(entries, oob, False)
        self.stats.sent_frames += len(frames)
        self.stats.sent_packets += sum(len(f.packets) for f in frames)
        stage = _Stage(at, [encode_frame(f) for f in frames], self.peer, entries[0].seq if entries else None)
        if self._send.backlog:
            self._schedule_flush()  # a full window kept some packets back: they follow later
        if not stage.datagrams:
            return
        self._stages.append(stage)
        clock = self._release_clock()
        if clock is not None:
            clock.submit(stage)
        elif at <= now:
            self._release_on_loop(stage)
        else:
            loop.call_at(at, self._release_on_loop, stage)
        self._arm_rtx()

    def _release_clock(self) -> ReleaseClock | None:
        """The link's release thread, started on first use; None where frames go from the loop."""
        if self._clock is not None:
            return self._clock
        if not self.threaded_release or self.impairment is not None or self._transport is None:
            return None
        sock = self._transport.get_extra_info("socket")
        if sock is None or self._loop is None:  # not a real socket (the in-memory network)
            return None
        self._clock = ReleaseClock(sock.dup(), self._stage_lock, self._loop, self._released, self._sendto,
                                   spin_s=self.release_spin_s, priority=self.release_priority,
                                   cpu=self.release_cpu, name=self.name, tap=self.tap)
        return self._clock

    def _release_on_loop(self, stage: _Stage) -> None:
        with self._stage_lock:
            if stage.state != _PENDING:
                return
            stage.state = _SENT
        assert self._loop is not None
        stage.sent_at = self._loop.time()
        for data in stage.datagrams:
            self._raw_send(data)
        self._released(stage)

    def _released(self, stage: _Stage) -> None:
        """On the loop, after a frame went out: account for it and send what waited behind it."""
        if stage.state != _SENT or self._closing:
            return
        self.stats.clocked_frames += 1
        if stage.sent_at is not None:
            late = stage.sent_at - stage.at
            if late > _LATE_RELEASE_S:
                self.stats.late_releases += 1
            self.stats.max_release_late_ms = max(self.stats.max_release_late_ms, late * 1000.0)
        if self._send.backlog and not self._stages_pending():
            self.flush()

    def _stages_pending(self) -> bool:
        """True while a clocked frame waits for its time (released ones are dropped from the front)."""
        stages = self._stages
        while stages and stages[0].state != _PENDING:
            stages.popleft()
        return bool(stages)

    def _cancel_stages(self) -> None:
        with self._stage_lock:
            for stage in self._stages:
                if stage.state == _PENDING:
                    stage.state = _CANCELLED
        self._stages.clear()

    # ------------------------------------------------------------------ receiving

    def datagram_received(self, data: bytes, addr: Address) -> None:  # noqa: D102
        if self.tap is not None:
            self.tap(False, data)
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
        self._cancel_stages()
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
