"""Selective-repeat ARQ state for the Cozmo link: send window, reorder buffer, RTT estimate.

Pure state machines with no I/O and no clock of their own (time is passed in), so they can be
unit- and property-tested alone and driven by the asyncio link or by a test harness.

The peer's ``ack`` is cumulative: the last sequence number it received in order. The send
window keeps every unacknowledged packet with the time it was last sent; only packets whose own
retransmission timeout has expired are sent again (never the whole window), and the timeout is
derived from measured round-trip times (Jacobson/Karels, as TCP does).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from .frame import MAX_SEQ, OOB_SEQ, RawPacket, seq_diff

__all__ = ["MIN_RTO_S", "WINDOW_SIZE", "RttEstimator", "SendWindow", "ReceiveWindow", "Outstanding"]

#: Packets in flight at most, the robot's own limit.
WINDOW_SIZE = 62


#: The shortest retransmission timeout (s). A robot transmits only on its radio clock, a frame
#: every 33 ms, and acknowledges in its next frame (hardware.md §3): an ack can come a whole frame
#: after the packet, plus the air and the clock's jitter, however steady the measured round
#: trips. Any shorter and every packet sent just after a robot frame is sent twice.
MIN_RTO_S = 0.05


class RttEstimator:
    """Smoothed round-trip time and the retransmission timeout derived from it.

    Starts at ``initial_rto`` (the robot's ~100 ms) until the first sample arrives. The timeout is
    kept within ``[min_rto, max_rto]`` so a burst of fast samples on loopback cannot make resends
    fire before the peer had a chance to ack, and a lossy stretch cannot stall the link.
    """

    def __init__(self, initial_rto: float = 0.1, min_rto: float = MIN_RTO_S, max_rto: float = 1.0) -> None:
        self.min_rto = min_rto
        self.max_rto = max_rto
        self.srtt: float | None = None
        self.rttvar = 0.0
        self.last_sample: float | None = None
        self._rto = initial_rto

    def sample(self, rtt: float) -> None:
        """Feed one round-trip measurement in seconds."""
        if rtt < 0:
            return
        self.last_sample = rtt
        if self.srtt is None:
            self.srtt = rtt
            self.rttvar = rtt / 2
        else:
            self.rttvar = 0.75 * self.rttvar + 0.25 * abs(self.srtt - rtt)
            self.srtt = 0.875 * self.srtt + 0.125 * rtt
        self._rto = min(self.max_rto, max(self.min_rto, self.srtt + 4 * self.rttvar))

    @property
    def rto(self) -> float:
        """Current retransmission timeout in seconds."""
        return self._rto


@dataclass(slots=True)
class Outstanding:
    """A sequenced packet sent but not yet acknowledged."""

    seq: int
    packet: RawPacket
    first_sent: float
    last_sent: float
    sends: int = 1


class SendWindow:
    """Assigns sequence numbers and keeps packets until the peer acknowledges them.

    Packets beyond the window wait in a backlog, in order, so a burst of commands is never lost,
    only delayed until acks open the window.
    """

    def __init__(self, size: int = WINDOW_SIZE, first_seq: int = 0) -> None:
        self.size = size
        self.next_seq = first_seq
        self._in_flight: deque[Outstanding] = deque()
        self._backlog: deque[RawPacket] = deque()

    def __len__(self) -> int:
        return len(self._in_flight)

    @property
    def backlog(self) -> int:
        """Packets waiting for room in the window."""
        return len(self._backlog)

    @property
    def last_assigned(self) -> int:
        """The last sequence number handed out (``next_seq - 1`` in the wrapping space)."""
        return (self.next_seq - 1) % MAX_SEQ

    def queue(self, packet: RawPacket) -> None:
        """Accept a sequenced packet for sending; it gets its number when the window has room."""
        self._backlog.append(packet)

    def take_new(self, now: float) -> list[Outstanding]:
        """Move backlog packets into the window (up to its size) and return them, numbered."""
        out: list[Outstanding] = []
        while self._backlog and len(self._in_flight) < self.size:
            pkt = self._backlog.popleft()
            pkt.seq = self.next_seq
            entry = Outstanding(self.next_seq, pkt, now, now)
            self._in_flight.append(entry)
            out.append(entry)
            self.next_seq = (self.next_seq + 1) % MAX_SEQ
        return out

    def acknowledge(self, ack: int, now: float) -> list[float]:
        """Drop every packet up to and including ``ack``; return RTT samples.

        Only packets sent exactly once give a sample (Karn's rule: a resent packet's ack is
        ambiguous). Acks outside the window (stale, duplicated or from before a reset) are ignored.
        """
        if ack == OOB_SEQ or not self._in_flight:
            return []
        first = self._in_flight[0].seq
        ahead = seq_diff(ack, first)
        if ahead < 0 or ahead >= len(self._in_flight):
            return []
        samples: list[float] = []
        for _ in range(ahead + 1):
            entry = self._in_flight.popleft()
            if entry.sends == 1:
                samples.append(now - entry.first_sent)
        return samples

    def due(self, now: float, rto: float, until_seq: int | None = None) -> list[Outstanding]:
        """Packets whose own timeout expired; marks them as sent again now.

        ``until_seq`` stops before that number: packets numbered but not on the wire yet (a
        clocked frame waiting for its time) are not resent ahead of it.
        """
        out: list[Outstanding] = []
        for entry in self._in_flight:
            if entry.seq == until_seq:
                break
            if entry.last_sent + rto <= now:  # the same sum next_deadline() schedules for
                entry.last_sent = now
                entry.sends += 1
                out.append(entry)
        return out

    def next_deadline(self, rto: float, until_seq: int | None = None) -> float | None:
        """The earliest time a packet in flight (before ``until_seq``) becomes due, or None."""
        earliest: float | None = None
        for entry in self._in_flight:
            if entry.seq == until_seq:
                break
            if earliest is None or entry.last_sent < earliest:
                earliest = entry.last_sent
        return None if earliest is None else earliest + rto

    def reset(self, first_seq: int = 0) -> None:
        """Forget everything (after a reconnect)."""
        self.next_seq = first_seq
        self._in_flight.clear()
        self._backlog.clear()


class ReceiveWindow:
    """Reorders sequenced packets and releases them exactly once, in order.

    Packets up to ``size`` ahead of the next expected number are buffered; older ones are
    duplicates, and ones further ahead cannot be legitimate (the peer's window is that size)
    and are dropped.
    """

    def __init__(self, size: int = WINDOW_SIZE, expected: int = 0) -> None:
        self.size = size
        self.expected = expected
        self._buffer: dict[int, RawPacket] = {}
        self.duplicates = 0
        self.out_of_window = 0

    @property
    def last_in_order(self) -> int:
        """What we acknowledge: the last sequence number received in order."""
        return (self.expected - 1) % MAX_SEQ

    def receive(self, packet: RawPacket) -> list[RawPacket]:
        """Take one sequenced packet; return the packets now deliverable, in order."""
        d = seq_diff(packet.seq, self.expected)
        if d < 0 or packet.seq in self._buffer:
            self.duplicates += 1
            return []
        if d >= self.size:
            self.out_of_window += 1
            return []
        if d > 0:
            self._buffer[packet.seq] = packet
            return []
        out = [packet]
        self.expected = (self.expected + 1) % MAX_SEQ
        buf = self._buffer
        while buf:
            nxt = buf.pop(self.expected, None)
            if nxt is None:
                break
            out.append(nxt)
            self.expected = (self.expected + 1) % MAX_SEQ
        return out

    def reset(self, expected: int = 0) -> None:
        """Forget everything (after a reconnect)."""
        self.expected = expected
        self._buffer.clear()
