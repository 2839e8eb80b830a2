"""Cozmo UDP frames and the packets inside them: encode and decode, no I/O.

A frame is the unit of one UDP datagram. It carries a 7-byte magic id, a frame type,
three sequence fields and zero or more packets. Sequence numbers travel as value + 1
(mod 65536), so the out-of-band marker 0xffff is written as 0. The packet layer stays
raw here (``RawPacket``: a packet type and its body bytes); message codecs live in
:mod:`driver.protocol.messages`, so this module can be fuzzed and benchmarked alone.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import IntEnum

__all__ = [
    "FRAME_ID",
    "FRAME_HEADER_SIZE",
    "MAX_FRAME_SIZE",
    "MAX_PACKET_PAYLOAD",
    "MAX_SEQ",
    "OOB_SEQ",
    "DecodeError",
    "Frame",
    "FrameType",
    "PacketType",
    "RawPacket",
    "decode_frame",
    "encode_frame",
    "is_oob_packet_type",
    "seq_add",
    "seq_diff",
]

FRAME_ID = b"COZ\x03RE\x01"
FRAME_HEADER_SIZE = len(FRAME_ID) + 1 + 2 + 2 + 2
#: Largest datagram the robot accepts.
MAX_FRAME_SIZE = 1051
#: The robot drops frames whose packet payload exceeds this many bytes.
MAX_PACKET_PAYLOAD = 1037
#: Sequence numbers run 0 .. MAX_SEQ-1 and wrap; a multiple of the 62-packet window.
MAX_SEQ = 0xFFFE
#: Marker for "no sequence number" (out-of-band frames); 0 on the wire.
OOB_SEQ = 0xFFFF

_HEADER = struct.Struct("<7sBHHH")
_PKT_HEADER = struct.Struct("<BH")


class DecodeError(ValueError):
    """Raised for any byte string that is not a well-formed frame or packet.

    It is the only exception the decoders raise, so a receive loop can catch exactly
    this and count the datagram as malformed.
    """


class FrameType(IntEnum):
    """The frame type byte that follows the magic id."""

    RESET = 0x01
    RESET_ACK = 0x02
    FIN = 0x03
    ENGINE_ACT = 0x04
    ENGINE = 0x07
    ROBOT = 0x09
    PING = 0x0B


class PacketType(IntEnum):
    """The packet type byte inside ENGINE/ROBOT frames."""

    CONNECT = 0x02
    DISCONNECT = 0x03
    COMMAND = 0x04
    EVENT = 0x05
    KEYFRAME = 0x0A
    PING = 0x0B


_FRAME_TYPES = frozenset(int(t) for t in FrameType)
_PACKET_TYPES = frozenset(int(t) for t in PacketType)

# Enum members read once, as module names: on Python 3.11 reading one through its class goes
# through the enum metaclass's attribute hook, about 0.1 µs, and the link reads them per datagram.
_FRAMETYPE_ENGINE = FrameType.ENGINE
_FRAMETYPE_ENGINE_ACT = FrameType.ENGINE_ACT
_FRAMETYPE_PING = FrameType.PING
_FRAMETYPE_ROBOT = FrameType.ROBOT
_PACKETTYPE_COMMAND = PacketType.COMMAND
_PACKETTYPE_EVENT = PacketType.EVENT
_PACKETTYPE_PING = PacketType.PING


def is_oob_packet_type(packet_type: int) -> bool:
    """Out-of-band packets (EVENT, KEYFRAME, PING) take no sequence number and are never resent."""
    return packet_type >= _PACKETTYPE_EVENT


def seq_add(seq: int, n: int) -> int:
    """Advance a sequence number by ``n`` in the wrapping sequence space."""
    return (seq + n) % MAX_SEQ


def seq_diff(a: int, b: int) -> int:
    """Signed distance ``a - b`` in the wrapping sequence space (result in -MAX_SEQ/2 .. MAX_SEQ/2)."""
    d = (a - b) % MAX_SEQ
    return d - MAX_SEQ if d > MAX_SEQ // 2 else d


@dataclass(slots=True)
class RawPacket:
    """One packet as it sits in a frame: its type and its body.

    For COMMAND and EVENT packets the body starts with the message id byte.
    ``seq`` is filled in by :func:`decode_frame` for sequenced packets (``OOB_SEQ`` otherwise).
    """

    type: int
    body: bytes
    seq: int = OOB_SEQ

    @property
    def is_oob(self) -> bool:
        """True for packets that are never sequenced or resent."""
        return self.type >= _PACKETTYPE_EVENT

    @property
    def message_id(self) -> int | None:
        """The message id of a COMMAND/EVENT packet, else None."""
        if self.type in (_PACKETTYPE_COMMAND, _PACKETTYPE_EVENT) and self.body:
            return self.body[0]
        return None


@dataclass(slots=True)
class Frame:
    """One datagram: type, sequence fields (already decoded from the +1 wire form) and packets."""

    type: int
    first_seq: int = OOB_SEQ
    seq: int = OOB_SEQ
    ack: int = OOB_SEQ
    packets: list[RawPacket] = field(default_factory=list)


def encode_frame(frame: Frame) -> bytes:
    """Serialise a frame. ENGINE/ROBOT frames carry typed, length-prefixed packets; ENGINE_ACT
    and PING frames carry one bare packet body; RESET/FIN/RESET_ACK carry nothing."""
    ftype = frame.type
    parts = [
        _HEADER.pack(
            FRAME_ID,
            ftype,
            (frame.first_seq + 1) & 0xFFFF,
            (frame.seq + 1) & 0xFFFF,
            (frame.ack + 1) & 0xFFFF,
        )
    ]
    if ftype == _FRAMETYPE_ENGINE or ftype == _FRAMETYPE_ROBOT:
        pack = _PKT_HEADER.pack
        for pkt in frame.packets:
            parts.append(pack(pkt.type, len(pkt.body)))
            parts.append(pkt.body)
    elif ftype == _FRAMETYPE_ENGINE_ACT or ftype == _FRAMETYPE_PING:
        if len(frame.packets) != 1:
            raise ValueError(f"a {FrameType(ftype).name} frame carries exactly one packet")
        parts.append(frame.packets[0].body)
    elif frame.packets:
        raise ValueError(f"a {FrameType(ftype).name} frame carries no packets")
    return b"".join(parts)


def decode_frame(data: bytes) -> Frame:
    """Parse one datagram. Raises :class:`DecodeError` (never anything else) on malformed input.

    Sequenced packets get consecutive sequence numbers starting at ``first_seq``; out-of-band
    packets get ``OOB_SEQ``. A packet whose declared length runs past the end of the datagram
    is an error; unknown packet types are an error too (the length cannot be trusted then).
    """
    n = len(data)
    if n < FRAME_HEADER_SIZE:
        raise DecodeError(f"frame too short: {n} bytes, need at least {FRAME_HEADER_SIZE}")
    magic, ftype, first_seq, seq, ack = _HEADER.unpack_from(data, 0)
    if magic != FRAME_ID:
        raise DecodeError(f"bad frame id {magic!r}")
    if ftype not in _FRAME_TYPES:
        raise DecodeError(f"unknown frame type 0x{ftype:02x}")
    first_seq = (first_seq - 1) & 0xFFFF
    seq = (seq - 1) & 0xFFFF
    ack = (ack - 1) & 0xFFFF
    packets: list[RawPacket] = []
    if ftype == _FRAMETYPE_ENGINE or ftype == _FRAMETYPE_ROBOT:
        pos = FRAME_HEADER_SIZE
        pkt_seq = first_seq
        unpack = _PKT_HEADER.unpack_from
        while pos < n:
            if pos + 3 > n:
                raise DecodeError(f"truncated packet header at offset {pos}")
            ptype, plen = unpack(data, pos)
            pos += 3
            if ptype not in _PACKET_TYPES:
                raise DecodeError(f"unknown packet type 0x{ptype:02x} at offset {pos - 3}")
            end = pos + plen
            if end > n:
                raise DecodeError(f"packet length {plen} at offset {pos - 3} runs past the frame end")
            if ptype >= _PACKETTYPE_EVENT:
                packets.append(RawPacket(ptype, data[pos:end], OOB_SEQ))
            else:
                packets.append(RawPacket(ptype, data[pos:end], pkt_seq))
                pkt_seq = (pkt_seq + 1) % MAX_SEQ
            pos = end
    elif ftype == _FRAMETYPE_ENGINE_ACT:
        if n == FRAME_HEADER_SIZE:
            raise DecodeError("empty single-command frame")
        packets.append(RawPacket(_PACKETTYPE_COMMAND, data[FRAME_HEADER_SIZE:], first_seq))
    elif ftype == _FRAMETYPE_PING:
        packets.append(RawPacket(_PACKETTYPE_PING, data[FRAME_HEADER_SIZE:], OOB_SEQ))
    elif n != FRAME_HEADER_SIZE:
        raise DecodeError(f"{FrameType(ftype).name} frame has {n - FRAME_HEADER_SIZE} unexpected bytes")
    return Frame(ftype, first_seq, seq, ack, packets)
