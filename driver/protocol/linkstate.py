"""What one end of a Cozmo connection reports, and the small pieces its state machine is made of.

:class:`~driver.protocol.session.Session` is the state machine; this module holds its vocabulary,
shared with the drivers (:mod:`driver.link`, :mod:`driver.frame_clock`): the roles and states, the
counters, the events a session emits, the reconnect backoff schedule and the clocked-frame stage.
Pure data, no I/O.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import Enum
from typing import Any

from .frame import RawPacket

__all__ = [
    "STAGE_CANCELLED",
    "STAGE_PENDING",
    "STAGE_SENT",
    "Address",
    "Backoff",
    "LinkError",
    "LinkState",
    "LinkStats",
    "PacketReceived",
    "Retrying",
    "Role",
    "SessionEvent",
    "Stage",
    "StateChanged",
]

Address = tuple[str, int]

#: The life of a clocked frame (:class:`Stage`).
STAGE_PENDING, STAGE_SENT, STAGE_CANCELLED = 0, 1, 2


class Role(Enum):
    """Which end of the protocol a session plays."""

    ENGINE = "engine"
    ROBOT = "robot"


class LinkState(Enum):
    """Connection state of a session (and of the link that drives it)."""

    IDLE = "idle"
    CONNECTING = "connecting"
    CONNECTED = "connected"
    LOST = "lost"
    CLOSED = "closed"


class LinkError(ConnectionError):
    """Connecting failed, or the connection was used after it closed."""


@dataclass
class LinkStats:
    """Counters of one connection end, readable at any time."""

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
    #: frames from the peer ignored while (re)connecting because they were not its Connect
    dropped_stale: int = 0
    #: packets sent while not connected, thrown away
    discarded_packets: int = 0
    pings_sent: int = 0
    pongs_received: int = 0
    resets_sent: int = 0
    #: connections made (a robot end counts the Resets it accepted)
    connections: int = 0
    rtt_ms: float | None = None
    rto_ms: float = 100.0
    #: clocked frames released, and how late they went out
    clocked_frames: int = 0
    late_releases: int = 0
    max_release_late_ms: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """Plain dict for logs and snapshots."""
        return asdict(self)


class SessionEvent:
    """Base of what :meth:`Session.next_event` returns."""

    __slots__ = ()


class PacketReceived(SessionEvent):
    """A packet for the layer above (sequenced ones in order, exactly once)."""

    __slots__ = ("packet",)

    def __init__(self, packet: RawPacket) -> None:
        self.packet = packet

    def __repr__(self) -> str:
        return f"PacketReceived({self.packet!r})"


class StateChanged(SessionEvent):
    """The connection state changed; ``reason`` says why, for the log."""

    __slots__ = ("old", "new", "reason")

    def __init__(self, old: LinkState, new: LinkState, reason: str) -> None:
        self.old, self.new, self.reason = old, new, reason

    def __repr__(self) -> str:
        return f"StateChanged({self.old.value} -> {self.new.value}: {self.reason})"


class Retrying(SessionEvent):
    """An unanswered Reset was repeated and the wait before the next one grew: one per backoff step.

    ``attempt`` is the number of Resets sent so far, ``waited_s`` how long the last one went
    unanswered, ``next_in_s`` the wait before the next (it stays at the maximum from then on,
    without further events).
    """

    __slots__ = ("attempt", "waited_s", "next_in_s")

    def __init__(self, attempt: int, waited_s: float, next_in_s: float) -> None:
        self.attempt, self.waited_s, self.next_in_s = attempt, waited_s, next_in_s

    def __repr__(self) -> str:
        return f"Retrying(attempt={self.attempt}, waited={self.waited_s}, next_in={self.next_in_s})"


class Backoff:
    """Waits between connection attempts: ``initial`` seconds, doubling up to ``maximum``."""

    def __init__(self, initial: float = 0.5, maximum: float = 10.0) -> None:
        if not 0 < initial <= maximum:
            raise ValueError(f"backoff needs 0 < initial <= maximum, got {initial} and {maximum}")
        self.initial = initial
        self.maximum = maximum
        self.attempts = 0

    def reset(self) -> None:
        """Start again from the first attempt."""
        self.attempts = 0

    def wait_after(self, attempt: int) -> float:
        """The wait after attempt number ``attempt`` (1 = the first) went unanswered."""
        return min(self.maximum, self.initial * 2.0 ** min(max(attempt - 1, 0), 32))

    def step(self) -> float:
        """Count one attempt; return the wait before the next."""
        self.attempts += 1
        return self.wait_after(self.attempts)


class Stage:
    """One clocked frame: datagrams encoded ahead of time, waiting for loop time ``at``.

    ``state`` goes PENDING -> SENT (by whoever releases it) or PENDING -> CANCELLED (by the
    session), each change under the session's guard, so a frame is never both sent and cancelled.
    ``external`` stages are released by a release thread, the others by ``datagrams_to_send``.
    """

    __slots__ = ("at", "datagrams", "peer", "first_seq", "state", "sent_at", "external")

    def __init__(self, at: float, datagrams: list[bytes], peer: Address, first_seq: int | None,
                 external: bool) -> None:
        self.at = at
        self.datagrams = datagrams
        self.peer = peer
        self.first_seq = first_seq  # its first sequence number (None: out-of-band packets only)
        self.state = STAGE_PENDING
        self.sent_at: float | None = None
        self.external = external
