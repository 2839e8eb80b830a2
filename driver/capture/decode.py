"""From captured datagrams to messages: one :class:`Entry` per message, and statistics over them.

Every datagram is decoded with the driver's own frame and message codecs (the same code that
talks to the robot), so a capture shows exactly what the driver would make of it. A frame that
cannot be decoded, and a packet inside a good frame that cannot, become malformed entries naming
the reason; a message id the table does not know becomes an ``UnknownMessage_0x..`` entry with its
payload. Nothing stops the walk.

Frames with no packets are not messages: the connection frames (RESET, RESET_ACK, FIN) get an
entry under their frame name, and bare acknowledgements are only counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import IntFlag
from typing import Any

from ..protocol import messages as m
from ..protocol.frame import OOB_SEQ, DecodeError, FrameType, decode_frame, seq_diff
from .formats import Datagram, Item, Skipped, Unreadable

__all__ = ["MALFORMED", "CaptureStats", "Entry", "decode_datagram", "entries", "plain"]

#: The name of an entry for something that could not be decoded.
MALFORMED = "MALFORMED"
_CONNECTION_FRAMES = {FrameType.RESET: "RESET", FrameType.RESET_ACK: "RESET_ACK", FrameType.FIN: "FIN"}


@dataclass(slots=True)
class Entry:
    """One line of a capture listing: a message (or a connection frame, or something malformed).

    ``t`` is the datagram's time in seconds (see :class:`~driver.capture.formats.Datagram`);
    ``message`` is the decoded message (None for frames and malformed entries); ``error`` says
    why an entry is malformed and ``scope`` what was: a ``datagram`` whose frame does not decode,
    a ``packet`` of a good frame, or a ``line`` of the file that could not be read; ``raw`` holds
    the bytes that could not be decoded, or an unknown message's payload. ``resent`` marks a
    sequenced packet seen before in this connection (the robot repeats every unacknowledged one in
    each frame it sends).
    """

    t: float
    direction: str
    name: str
    where: str
    message: m.Message | None = None
    msg_id: int | None = None
    seq: int | None = None
    error: str | None = None
    scope: str = ""
    raw: bytes = b""
    resent: bool = False

    @property
    def malformed(self) -> bool:
        """True when this entry is something that could not be decoded."""
        return self.error is not None

    @property
    def unknown(self) -> bool:
        """True for a message id the table does not know."""
        return isinstance(self.message, m.UnknownMessage)

    def fields(self) -> dict[str, Any]:
        """The message's fields as plain values (bytes as hex), in wire order."""
        msg = self.message
        if msg is None:
            return {}
        if isinstance(msg, m.UnknownMessage):
            return {"payload": msg.payload.hex()}
        return {name: plain(getattr(msg, name)) for name in msg.FIELDS}


def plain(value: object) -> Any:
    """A field value as JSON can hold it: records as dicts, bytes as hex, tuples as lists."""
    if isinstance(value, m.Record):
        return {k: plain(v) for k, v in value.to_dict().items()}
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, IntFlag):
        return int(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def decode_datagram(d: Datagram) -> list[Entry]:
    """The entries of one datagram: its messages in order, or why it could not be decoded."""
    try:
        frame = decode_frame(d.data)
    except DecodeError as exc:
        return [Entry(d.t, d.direction, MALFORMED, d.where, error=f"frame: {exc}", scope="datagram", raw=d.data)]
    if not frame.packets:
        name = _CONNECTION_FRAMES.get(FrameType(frame.type)) if frame.type in _CONNECTION_FRAMES else None
        return [Entry(d.t, d.direction, name, d.where)] if name else []
    out: list[Entry] = []
    for raw in frame.packets:
        seq = None if raw.seq == OOB_SEQ else raw.seq
        msg_id = raw.message_id
        try:
            msg = m.decode(raw)
        except DecodeError as exc:
            out.append(Entry(d.t, d.direction, MALFORMED, d.where, msg_id=msg_id, seq=seq, error=str(exc),
                             scope="packet", raw=bytes(raw.body)))
            continue
        out.append(Entry(d.t, d.direction, msg.NAME, d.where, message=msg, msg_id=msg_id, seq=seq,
                         raw=msg.payload if isinstance(msg, m.UnknownMessage) else b""))
    return out


def entries(items: Iterable[Item], stats: CaptureStats | None = None) -> Iterator[Entry]:
    """Every entry of a capture's items in order; unreadable lines become malformed entries.

    ``stats``, when given, counts everything on the way (datagrams, frames, skipped packets).
    Sequenced packets seen before in the same connection are marked ``resent``.
    """
    highest: dict[str, int] = {}
    for item in items:
        if isinstance(item, Skipped):
            if stats is not None:
                stats.skipped += 1
            continue
        if isinstance(item, Unreadable):
            entry = Entry(item.t if item.t is not None else float("nan"), "", MALFORMED, item.where,
                          error=item.reason, scope="line")
            if stats is not None:
                stats.add(entry)
            yield entry
            continue
        decoded = decode_datagram(item)
        for entry in decoded:
            if entry.name in _CONNECTION_FRAMES.values():
                highest.clear()  # a new connection numbers its packets afresh
            elif entry.seq is not None:
                last = highest.get(entry.direction)
                if last is not None and seq_diff(entry.seq, last) <= 0:
                    entry.resent = True
                else:
                    highest[entry.direction] = entry.seq
        if stats is not None:
            stats.add_datagram(item, decoded)
        yield from decoded


@dataclass
class _Series:
    """Counts and timing of one message name in one direction."""

    count: int = 0
    first: float = float("nan")
    last: float = float("nan")
    max_gap: float = 0.0

    @property
    def rate_hz(self) -> float | None:
        """Messages per second between the first and the last of them (None for fewer than two)."""
        span = self.last - self.first
        return (self.count - 1) / span if self.count > 1 and span > 0 else None

    def add(self, t: float) -> None:
        if self.count and t == t and self.last == self.last:
            self.max_gap = max(self.max_gap, t - self.last)
        if self.count == 0 or self.first != self.first:
            self.first = t
        self.last = t
        self.count += 1


@dataclass
class CaptureStats:
    """What a capture holds.

    Messages per name and direction with their rate (over their own span, from the first to the
    last of them) and the longest gap between two of them; datagrams and frame types per
    direction; the longest silence of each side; and what could not be decoded.
    ``malformed_datagrams`` are datagrams whose frame does not decode; ``malformed_packets`` are
    packets of a good frame whose message does not; ``unreadable`` are lines or records of the file
    itself that could not be read; ``skipped`` are packets of other traffic in a packet capture.
    Resent packets are counted in ``resent`` only, not again under their message.
    """

    messages: dict[tuple[str, str], _Series] = field(default_factory=dict)
    datagrams: Counter[str] = field(default_factory=Counter)
    frame_types: Counter[tuple[str, str]] = field(default_factory=Counter)
    silences: dict[str, _Series] = field(default_factory=dict)
    malformed_datagrams: int = 0
    malformed_packets: int = 0
    unknown_messages: int = 0
    resent: int = 0
    unreadable: int = 0
    skipped: int = 0
    first: float = float("nan")
    last: float = float("nan")

    def add_datagram(self, d: Datagram, decoded: list[Entry]) -> None:
        """Count one datagram and the entries it gave."""
        self.datagrams[d.direction] += 1
        self.silences.setdefault(d.direction, _Series()).add(d.t)
        self._span(d.t)
        if not (decoded and decoded[0].scope == "datagram"):
            self.frame_types[(d.direction, _frame_name(d.data[7]))] += 1
        for entry in decoded:
            self.add(entry)

    def add(self, entry: Entry) -> None:
        """Count one entry (messages by name; malformed and unknown ones apart)."""
        if entry.malformed:
            if entry.scope == "datagram":
                self.malformed_datagrams += 1
            elif entry.scope == "packet":
                self.malformed_packets += 1
            else:
                self.unreadable += 1
            return
        if entry.resent:
            self.resent += 1
            return
        if entry.unknown:
            self.unknown_messages += 1
        self.messages.setdefault((entry.name, entry.direction), _Series()).add(entry.t)

    def _span(self, t: float) -> None:
        if t != t:
            return
        if self.first != self.first or t < self.first:
            self.first = t
        if self.last != self.last or t > self.last:
            self.last = t

    @property
    def duration(self) -> float:
        """Seconds from the first datagram to the last (0 for fewer than two)."""
        return self.last - self.first if self.first == self.first else 0.0

    @property
    def malformed(self) -> int:
        """Everything that could not be decoded or read."""
        return self.malformed_datagrams + self.malformed_packets + self.unreadable

    def counts(self) -> dict[str, int]:
        """Messages per name, both directions together."""
        out: Counter[str] = Counter()
        for (name, _), series in self.messages.items():
            out[name] += series.count
        return dict(sorted(out.items()))

    def as_dict(self) -> dict[str, Any]:
        """Everything as plain values (for ``--json``)."""
        return {
            "duration_s": round(self.duration, 6),
            "datagrams": dict(self.datagrams),
            "frames": {f"{d} {t}": n for (d, t), n in sorted(self.frame_types.items())},
            "messages": [
                {"name": name, "dir": direction, "count": s.count,
                 "rate_hz": None if s.rate_hz is None else round(s.rate_hz, 3),
                 "max_gap_ms": round(1000 * s.max_gap, 3) if s.count > 1 else None}
                for (name, direction), s in sorted(self.messages.items())
            ],
            "longest_silence_ms": {d: round(1000 * s.max_gap, 3) for d, s in sorted(self.silences.items())},
            "malformed_datagrams": self.malformed_datagrams,
            "malformed_packets": self.malformed_packets,
            "unknown_messages": self.unknown_messages,
            "resent": self.resent,
            "unreadable": self.unreadable,
            "skipped": self.skipped,
        }


def _frame_name(ftype: int) -> str:
    try:
        return FrameType(ftype).name
    except ValueError:
        return f"0x{ftype:02x}"

