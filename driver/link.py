"""The Cozmo link on asyncio: a thin driver of the connection state machine.

All protocol logic (handshake, reliable delivery, pings, loss of the peer, reconnecting with
backoff, clocked-frame sequencing) lives in :class:`driver.protocol.session.Session`, which does no
I/O. A :class:`Link` carries it out on the event loop: datagrams from its transport go into the
session, what the session wants sent goes to the transport, one loop timer wakes it at
``next_timer()``, and its events become ``on_packet`` / ``on_state`` calls and log lines. One class
serves both ends: the engine end (our brain talking to a robot) and the robot end (the simulator).

The transport is a UDP socket (:meth:`Link.open`) or an endpoint of the in-memory network of
virtual-time runs (:mod:`driver.memlink`). Everything runs on ``call_soon``/``call_at`` — no
polling loop — so a link costs nothing while idle and several links share one loop. Packets sent
in one loop iteration go out together in one frame (one flush per turn). The one exception to
"all on the loop" is the release of clocked animation frames: :meth:`Link.frame_at` has the session
encode a frame ahead of time and a :class:`~driver.frame_clock.ReleaseClock` thread write it at its
exact time (see :mod:`driver.frame_clock`). The socket can be read on the animation clock's
ticks rather than as each datagram arrives (:mod:`driver.link_input`).

Reconnect: an engine link that loses its robot (nothing heard for ``lost_after``) reports LOST and
keeps sending Resets with backoff until the robot answers; it logs once per backoff step.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import socket
import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from .frame_clock import (
    FRAME_CLOCK_SWITCH_INTERVAL_S,
    RELEASE_NAPS_S,
    DatagramTap,
    ReleaseClock,
    tune_thread_switching,
)
from .link_input import ClockedInput
from .protocol.arq import WINDOW_SIZE, RttEstimator
from .protocol.frame import PacketType, RawPacket
from .protocol.linkstate import (
    Address,
    LinkError,
    LinkState,
    LinkStats,
    PacketReceived,
    Retrying,
    Role,
    Stage,
    StateChanged,
)
from .protocol.session import Session

log = logging.getLogger(__name__)

#: A session deadline this much later than the armed timer leaves the timer where it is (s).
_REARM_S = 0.002
#: While the socket is read on a clock, a session deadline (ping, ack, resend) this little before
#: the next read is served at that read (s): the longest gap between two reads of a dozing clock
#: beside a still robot (three frame slots), so the link's timer never wakes the process on its
#: own while reads go on. (The robot's sequenced packets, which are owed an ack, come during its
#: start-up, when datagrams are read as they arrive; on the clock it sends out-of-band events.)
_ALIGN_TO_READ_S = 0.105

__all__ = [
    "FRAME_CLOCK_SWITCH_INTERVAL_S",
    "RELEASE_NAPS_S",
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


# Enum members read once, as module names: on Python 3.11 reading one through its class goes
# through the enum metaclass's attribute hook, about 0.1 µs, and the link reads them per datagram.
_LINKSTATE_CLOSED = LinkState.CLOSED
_LINKSTATE_CONNECTED = LinkState.CONNECTED
_LINKSTATE_IDLE = LinkState.IDLE
_LINKSTATE_LOST = LinkState.LOST
_PACKETTYPE_DISCONNECT = PacketType.DISCONNECT
_ROLE_ENGINE = Role.ENGINE
_ROLE_ROBOT = Role.ROBOT


class Impairment(Protocol):
    """A hook between the link and the socket, used by the simulator to inject network faults."""

    def outgoing(self, data: bytes, addr: Address, send: Callable[[bytes, Address], None]) -> None:
        """Pass (or drop, duplicate, delay) one outgoing datagram."""

    def incoming(self, data: bytes, addr: Address, deliver: Callable[[bytes, Address], None]) -> None:
        """Pass (or drop, duplicate, delay) one incoming datagram."""


PacketHandler = Callable[[RawPacket], None]
StateHandler = Callable[[LinkState, LinkState], None]


class Link(ClockedInput, asyncio.DatagramProtocol):
    """One end of a Cozmo connection on the event loop.

    Create it with :meth:`open` (or :meth:`driver.memlink.MemoryNetwork.open_link`), then for the
    engine role ``await link.connect()``; the robot role waits for the engine's Reset.
    ``on_packet`` receives every delivered packet (in order for sequenced ones); ``on_state``
    every state change (old, new). ``retry_initial``/``retry_max`` shape the backoff between
    Resets (connecting and reconnecting); ``reconnect=False`` makes a lost engine link stay lost.
    ``threaded_release`` lets :meth:`frame_at` use a release thread (False: the loop releases);
    ``release_naps_s`` is how long before a frame's time that thread starts napping,
    ``release_priority`` its SCHED_FIFO priority (None: normal scheduling) and ``release_cpu``
    its CPU (None: any). They can be changed until the first clocked frame. ``clocked=True``
    sends only when the owner calls :meth:`flush` (the simulated robot does, once per radio
    frame, as a real robot transmits), when the session's timer fires (a resend, an ack nothing
    carried in time) and, at once, the robot's Connect.
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
        retry_initial: float = 0.5,
        retry_max: float = 10.0,
        reconnect: bool = True,
        impairment: Impairment | None = None,
        name: str = "",
        threaded_release: bool = True,
        release_naps_s: float = RELEASE_NAPS_S,
        release_priority: int | None = None,
        release_cpu: int | None = None,
        tap: DatagramTap | None = None,
        clocked: bool = False,
    ) -> None:
        self.role = role
        self.clocked = clocked
        #: called with (True, datagram) for every datagram sent and (False, datagram) for every one
        #: received, as it goes to or comes from the socket (from the release thread too)
        self.tap = tap
        self.on_packet = on_packet
        self.on_state = on_state
        self.impairment = impairment
        self.name = name or role.value
        self._stage_lock = threading.Lock()
        self.session = Session(role, peer=peer, lost_after=lost_after, ping_interval=ping_interval,
                               ack_delay=ack_delay, window=window, retry_initial=retry_initial,
                               retry_max=retry_max, reconnect=reconnect, guard=self._stage_lock)
        self.threaded_release = threaded_release
        self.release_naps_s = release_naps_s
        self.release_priority = release_priority
        self.release_cpu = release_cpu
        self._transport: asyncio.DatagramTransport | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._flush_handle: asyncio.Handle | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0
        self._state_changed: asyncio.Event | None = None
        self._dispatching = False
        self._clock: ReleaseClock | None = None
        #: stages the release thread sent and the loop has not taken in yet (see :meth:`_noted`)
        self._released_stages: deque[Stage] = deque()
        self._capture: list[RawPacket] | None = None
        #: the clocked reading's (:mod:`driver.link_input`)
        self._input_clock: Callable[[float], float] | None = None
        self._sock: socket.socket | None = None
        self._polling = False
        self._poll_timer: asyncio.TimerHandle | None = None
        self._drained_at = -math.inf
        self._reading = False

    # ------------------------------------------------------------------ the session's view

    @property
    def state(self) -> LinkState:
        """The connection state."""
        return self.session.state

    @property
    def peer(self) -> Address | None:
        """The other end's address (None for a robot end nobody is connected to)."""
        return self.session.peer

    @property
    def stats(self) -> LinkStats:
        """Counters (sent, resent, dropped, RTT, clocked frames)."""
        self._take_released()
        return self.session.stats

    @property
    def rtt(self) -> RttEstimator:
        """The round-trip estimate."""
        return self.session.rtt

    @property
    def lost_after(self) -> float:
        """Seconds of silence after which the peer counts as lost."""
        return self.session.lost_after

    @property
    def in_flight(self) -> int:
        """Sequenced packets sent and not yet acknowledged, plus those waiting for window room."""
        return self.session.in_flight

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    async def open(cls, role: Role, local_addr: Address = ("0.0.0.0", 0), **kwargs: Any) -> Link:
        """Bind a UDP socket and return a link on it (port 0 picks a free port)."""
        loop = asyncio.get_running_loop()
        link = cls(role, **kwargs)
        try:  # an address in figures (as usual) needs no resolver thread
            found = socket.getaddrinfo(*local_addr, type=socket.SOCK_DGRAM, flags=socket.AI_NUMERICHOST)
        except socket.gaierror:
            found = await loop.getaddrinfo(*local_addr, type=socket.SOCK_DGRAM)
        family, _, _, _, where = found[0]
        sock = socket.socket(family, socket.SOCK_DGRAM)
        try:
            sock.setblocking(False)
            sock.bind(where)
            await loop.create_datagram_endpoint(lambda: link, sock=sock)
        except BaseException:
            sock.close()
            raise
        link._sock = sock
        return link

    @property
    def local_address(self) -> Address:
        """The bound (host, port) of the transport."""
        assert self._transport is not None
        return self._transport.get_extra_info("sockname")[:2]

    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # noqa: D102
        self._transport = transport  # type: ignore[assignment]
        self._loop = asyncio.get_running_loop()
        self._state_changed = asyncio.Event()

    def connection_lost(self, exc: Exception | None) -> None:  # noqa: D102
        self._cancel_timers()
        self.session.close()
        self._dispatch()

    async def connect(self, peer: Address | None = None, timeout: float | None = 5.0) -> None:
        """Engine role: start a new connection and wait until the robot answers.

        Resets go out with backoff (``retry_initial`` doubling to ``retry_max``). Raises
        :class:`LinkError` when ``timeout`` seconds pass without an answer (None: wait for ever);
        the link is then idle again.
        """
        if self._transport is None or self.session.state is _LINKSTATE_CLOSED:
            raise LinkError("link is closed")
        loop = self._loop
        assert loop is not None and self._state_changed is not None
        self.session.connect(loop.time(), peer)
        self._after_input()
        deadline = None if timeout is None else loop.time() + timeout
        while self.session.state is not _LINKSTATE_CONNECTED:
            if self.session.state in (_LINKSTATE_IDLE, _LINKSTATE_CLOSED):
                raise LinkError("the connection was closed while connecting")
            remaining = None if deadline is None else deadline - loop.time()
            if remaining is not None and remaining <= 0:
                self.session.forget("no answer")
                self._after_input()
                assert self.peer is not None
                raise LinkError(f"no answer from {self.peer[0]}:{self.peer[1]} within {timeout:.1f} s")
            self._state_changed.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._state_changed.wait(), remaining)

    def restart(self) -> None:
        """Engine role: drop the connection and start a new one now (Resets with backoff, no waiting)."""
        assert self._loop is not None
        self.session.connect(self._loop.time())
        self._after_input()

    def forget(self, reason: str = "forgotten") -> None:
        """Drop the connection without a word to the peer (a robot that reboots forgets its engine)."""
        self.session.forget(reason)
        self._after_input()

    async def disconnect(self, timeout: float = 0.5) -> None:
        """Send Disconnect (when connected), wait briefly for its ack, then send nothing more and close."""
        if self._transport is None or self.session.state is _LINKSTATE_CLOSED:
            return
        if self.session.state is _LINKSTATE_CONNECTED:
            self.send(RawPacket(_PACKETTYPE_DISCONNECT, b""))
            self.flush()
            assert self._loop is not None
            deadline = self._loop.time() + timeout
            while self.session.in_flight and self.session.state is _LINKSTATE_CONNECTED \
                    and self._loop.time() < deadline:
                await asyncio.sleep(0.01)
        self.close()

    def close(self) -> None:
        """Stop all timers and close the transport at once."""
        if self.session.state is _LINKSTATE_CLOSED and self._transport is None:
            return
        self._cancel_timers()
        self.session.close()
        if self._clock is not None:
            self._clock.close()
            self._clock = None
        if self._transport is not None:
            self._transport.close()
            self._transport = None
        self._dispatch()

    # ------------------------------------------------------------------ sending

    def send(self, packet: RawPacket) -> None:
        """Queue a packet; it leaves with this loop turn's flush (discarded while not connected)."""
        if self._capture is not None:
            if self.session.state is _LINKSTATE_CLOSED:
                raise LinkError("link is closed")
            self._capture.append(packet)
            return
        self.session.send(packet)
        if self._flush_handle is None and self._loop is not None and self.session.pending_output \
                and not self.clocked:
            self._flush_handle = self._loop.call_soon(self._flush)

    def flush(self) -> None:
        """Send what is queued now rather than on the next loop turn (for clocked senders)."""
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        self._transmit()

    @contextlib.contextmanager
    def frame_at(self, at: float) -> Iterator[None]:
        """Gather every packet sent inside the block into one frame that goes out at loop time ``at``.

        The frame is sequenced and encoded when the block ends, and released at ``at`` by the
        link's release thread (or at once when ``at`` has passed). What was queued before the
        block goes out first; sequenced packets sent after it wait until it is released. Blocks
        do not nest. While not connected the packets are discarded, like any others.
        """
        self.begin_frame()
        try:
            yield
        finally:
            self.end_frame(at)

    def begin_frame(self) -> None:
        """Start gathering a frame, as entering a :meth:`frame_at` block does. Every call is
        followed by :meth:`end_frame` (in a ``finally``): the animation controller sends thirty
        frames a second this way, without the generator a ``with`` block costs."""
        if self._capture is not None:
            raise LinkError("frame_at blocks do not nest")
        self._capture = []

    def end_frame(self, at: float, *, early: bool = False) -> None:
        """End the frame :meth:`begin_frame` started: it goes out at loop time ``at``.

        ``early``: the frame may go before ``at``, as soon as the frames staged before it went:
        from the loop at once when none waits, else right behind the last one, in the release
        thread's same wake-up. For a frame the robot keeps in its buffer until its own audio
        clock comes to it (a frame of an animation it has open, hardware.md §4), the time it
        arrives changes nothing it shows, and neither thread wakes for it.
        """
        captured = self._capture
        self._capture = None
        if captured is not None:
            self._stage(captured, at, early)

    def _stage(self, packets: list[RawPacket], at: float, early: bool = False) -> None:
        loop = self._loop
        if loop is None or not packets:
            return
        self._take_released()
        now = loop.time()
        by_thread = self.session.state is _LINKSTATE_CONNECTED
        if early:
            behind = self.session.pending_until
            at = now if behind is None else max(now, behind)
            # nothing waits: the loop sends it now; else the thread sends it after what waits
            by_thread = by_thread and behind is not None
        clock = self._release_clock() if by_thread else None
        stage = self.session.stage_frame(packets, at, now, external=clock is not None)
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        self._transmit()  # what was queued before the frame (and the frame itself, if it is due)
        if stage is not None and clock is not None:
            clock.submit(stage)

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
                                   naps_s=self.release_naps_s, priority=self.release_priority,
                                   cpu=self.release_cpu, name=self.name, tap=self.tap, note_released=self._noted)
        return self._clock

    def _noted(self, stage: Stage) -> bool:
        """In the release thread, after it sent ``stage``: keep the report for the loop's next turn;
        True (wake the loop now) only when packets wait behind the frame.

        Reading the session from the thread is safe here: both reads are of a flag and a length.
        """
        self._released_stages.append(stage)
        return self.session.pending_output or self.session.backlog > 0

    def _take_released(self) -> None:
        """On the loop: account for the frames the release thread sent since the last turn."""
        released = self._released_stages
        while released:
            self.session.stage_released(released.popleft())

    def _released(self, stage: Stage) -> None:
        """On the loop, after the release thread sent a frame: what waited behind it goes now."""
        self._take_released()  # ``stage`` among them (noted before the thread woke the loop)
        if self.session.pending_output:
            self.flush()

    # ------------------------------------------------------------------ the transport

    def datagram_received(self, data: bytes, addr: Address) -> None:  # noqa: D102
        if self.tap is not None:
            self.tap(False, data)
        if self.impairment is not None:
            self.impairment.incoming(data, addr, self._on_datagram)
        else:
            self._on_datagram(data, addr)

    def _on_datagram(self, data: bytes, addr: Address) -> None:
        if self._loop is None:
            return
        if self._released_stages:
            self._take_released()
        self.session.receive_datagram(data, addr, self._loop.time())
        self._after_input()

    def error_received(self, exc: Exception) -> None:  # noqa: D102
        log.debug("%s: socket error %s", self.name, exc)

    def _after_input(self) -> None:
        """After the session took something in: deliver its events, schedule its output and timer."""
        self._dispatch()
        if self._loop is None:
            return
        if self.session.pending_output and self._flush_handle is None and not self.clocked:
            self._flush_handle = self._loop.call_soon(self._flush)
        if not self._reading:  # (a clocked read arms the timer once, after its last datagram)
            self._arm()

    def _flush(self) -> None:
        self._flush_handle = None
        self._transmit()

    def _transmit(self) -> None:
        if self._loop is None:
            return
        for data, addr in self.session.datagrams_to_send(self._loop.time()):
            self._raw_send(data, addr)
        self._arm()

    def _raw_send(self, data: bytes, addr: Address) -> None:
        if self._transport is None or self._transport.is_closing():
            return
        if self.impairment is not None:
            self.impairment.outgoing(data, addr, self._sendto)
        else:
            self._transport.sendto(data, addr)
            if self.tap is not None:
                self.tap(True, data)

    def _sendto(self, data: bytes, addr: Address) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.sendto(data, addr)
            if self.tap is not None:
                self.tap(True, data)

    # ------------------------------------------------------------------ the timer

    def _arm(self) -> None:
        """Keep one loop timer at the session's next deadline.

        A deadline that moved later (an ack took the packet whose resend was due next) moves the
        timer with it: left where it was, it woke the process for nothing, about 14 times a
        second in an animating daemon, and a wake-up costs far more than re-arming. One within
        ``_REARM_S`` of the armed one is left as it is (it then re-arms itself).
        """
        when = self.session.next_timer()
        timer = self._timer
        if when is None:
            if timer is not None:
                timer.cancel()
                self._timer = None
            return
        loop = self._loop
        assert loop is not None
        if self._polling:
            # Reading on a clock: a deadline shortly before the next read waits for it, so that
            # one wake-up serves both (a ping, an ack, a resend at most this late).
            poll, clock = self._poll_timer, self._input_clock
            read_at = poll.when() if poll is not None else clock(loop.time()) if clock is not None else when
            if when < read_at <= when + _ALIGN_TO_READ_S:
                when = read_at
        if timer is not None:
            if self._timer_at <= when < self._timer_at + _REARM_S:
                return
            timer.cancel()
        self._timer = loop.call_at(when, self._on_timer)
        self._timer_at = when

    def _on_timer(self) -> None:
        self._timer = None
        assert self._loop is not None
        # Reading on a clock, an ack may wait unread in the socket: take it in before deciding
        # what to resend (nothing to do when this wake-up's read came first).
        self.poll_input()
        self._take_released()
        self.session.handle_timer(self._loop.time())
        self._dispatch()
        self._transmit()

    def _cancel_timers(self) -> None:
        for handle in (self._flush_handle, self._timer, self._poll_timer):
            if handle is not None:
                handle.cancel()
        self._flush_handle = self._timer = self._poll_timer = None
        self._polling = False

    # ------------------------------------------------------------------ events

    def _dispatch(self) -> None:
        """Hand the session's events to the handlers, in order (handlers may send, re-entrantly)."""
        if self._dispatching:
            return  # the outer call is draining; it picks up what this one would have
        self._dispatching = True
        try:
            session = self.session
            while (event := session.next_event()) is not None:
                if isinstance(event, PacketReceived):
                    self._deliver(event.packet)
                elif isinstance(event, StateChanged):
                    self._on_state_changed(event)
                elif isinstance(event, Retrying):
                    peer = self.peer or ("?", 0)
                    log.info("%s: no answer from %s:%d yet (try %d); next try in %.1f s",
                             self.name, peer[0], peer[1], event.attempt, event.next_in_s)
        finally:
            self._dispatching = False

    def _deliver(self, packet: RawPacket) -> None:
        """Hand one received packet to ``on_packet``; a handler that raises is logged, the link goes on."""
        if self.on_packet is not None:
            try:
                self.on_packet(packet)
            except Exception:  # a bad handler must not take the link down
                log.exception("%s: packet handler failed", self.name)

    def _on_state_changed(self, event: StateChanged) -> None:
        old, new = event.old, event.new
        if new is _LINKSTATE_LOST and self.role is _ROLE_ENGINE:
            log.warning("%s: %s: robot lost; reconnecting", self.name, event.reason)
        elif new is _LINKSTATE_CONNECTED and self.role is _ROLE_ROBOT:
            log.info("%s: %s", self.name, event.reason)
            if self.clocked and self._flush_handle is None and self._loop is not None:
                # the one answer a real robot gives off its radio clock: Connect, within a
                # millisecond of the Reset (hardware.md §3)
                self._flush_handle = self._loop.call_soon(self._flush)
        elif new is _LINKSTATE_IDLE and old is _LINKSTATE_CONNECTED:
            log.info("%s: %s", self.name, event.reason)
        else:
            log.debug("%s: %s -> %s (%s)", self.name, old.value, new.value, event.reason)
        self._read_on_clock(new is _LINKSTATE_CONNECTED)  # a lost robot's Reset is heard at once
        if self._state_changed is not None:
            self._state_changed.set()
        if self.on_state is not None:
            try:
                self.on_state(old, new)
            except Exception:
                log.exception("%s: state handler failed", self.name)
