"""Cozmo messages: one class per entry of the message table, and the packet codec.

Usage::

    from driver.protocol import messages as m

    raw = m.encode(m.SetHeadAngle(angle_rad=0.3))   # -> frame.RawPacket(COMMAND, b"\\x37" + payload)
    msg = m.decode(raw)                              # -> SetHeadAngle(angle_rad=0.30000001192..., ...)

Every class here is generated at import from :mod:`driver.protocol.table` (the only place a
layout is written down) by :mod:`driver.protocol.codec`. Classes take their fields positionally
or by keyword, with the table's defaults; instances compare equal by type and fields.

Decoding rules, chosen so that a receive loop never dies on bad data:

* unknown message ids become :class:`UnknownMessage` (not an error);
* a body longer than the table's layout decodes the declared fields and ignores the rest
  (layouts grow between firmware versions);
* a body too short for its layout, a length prefix running past the end, bad UTF-8 or an
  unknown packet type raise :class:`~driver.protocol.frame.DecodeError`, naming the message and
  what was expected. :func:`decode` raises nothing else, for any bytes.

Floats travel as IEEE f32 (Ping's time as f64), so a decoded value is the f32 nearest to the
value sent: ``SetHeadAngle(0.3)`` comes back as ``0.30000001192...``.

Decoded enum fields stay plain ints (a newer firmware may send values the enums do not know);
compare them with the IntEnums, which are ints too. The message id, not the packet type,
selects the class: a COMMAND packet carrying an event id still decodes.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType
from typing import Any, ClassVar

from . import table as _table
from .codec import ENCODE_ERRORS, Message, Record, build, explain_encode_error
from .frame import DecodeError, Frame, PacketType, RawPacket
from .table import (
    FIRMWARE_VERSION,
    BodyColor,
    ImageEncoding,
    ImageResolution,
    ImageSendMode,
    MotorId,
    NvEntryTag,
    NvOperation,
    NvResult,
    ObjectType,
    PathEventType,
    RobotStatusFlag,
    UpAxis,
)

_BUILT = build(_table.MESSAGES, _table.STRUCTS)

#: Every message class by name (packet-level ones included).
BY_NAME: MappingProxyType[str, type[Message]] = MappingProxyType(dict(_BUILT.messages))
#: Message classes by id byte (COMMAND and EVENT packets).
BY_ID: MappingProxyType[int, type[Message]] = MappingProxyType(
    {cls.ID: cls for cls in _BUILT.messages.values() if cls.ID is not None}
)
#: Packet-level message classes (no id byte) by packet type.
BY_PACKET_TYPE: MappingProxyType[int, type[Message]] = MappingProxyType(
    {int(cls.PACKET_TYPE): cls for cls in _BUILT.messages.values() if cls.ID is None}
)
#: Nested record classes by name (LightState).
STRUCTS: MappingProxyType[str, type[Record]] = MappingProxyType(dict(_BUILT.structs))

globals().update(_BUILT.structs)
globals().update(_BUILT.messages)

_ID_DECODERS: tuple[Any, ...] = tuple(_BUILT.decoders_by_id.get(i) for i in range(256))
_PACKET_DECODERS: dict[int, Any] = dict(_BUILT.decoders_by_packet_type)
_COMMAND = int(PacketType.COMMAND)
_EVENT = int(PacketType.EVENT)


class UnknownMessage(Message):
    """A packet whose message id is not in the table, kept raw so it can be logged or forwarded."""

    __slots__ = ("packet_type", "msg_id", "payload")
    FIELDS: ClassVar[tuple[str, ...]] = ("packet_type", "msg_id", "payload")

    def __init__(self, packet_type: int, msg_id: int, payload: bytes = b"") -> None:
        self.packet_type = packet_type
        self.msg_id = msg_id
        self.payload = bytes(payload)

    @property  # type: ignore[override]
    def ID(self) -> int:  # noqa: N802  # mirrors the class attribute of known messages
        return self.msg_id

    @property  # type: ignore[override]
    def NAME(self) -> str:  # noqa: N802
        return f"UnknownMessage_0x{self.msg_id:02x}"

    @property  # type: ignore[override]
    def PACKET_TYPE(self) -> int:  # noqa: N802
        return self.packet_type

    @property  # type: ignore[override]
    def FROM_ROBOT(self) -> bool:  # noqa: N802
        return self.msg_id >= _table.FIRST_ROBOT_ID

    def _encode(self) -> bytes:
        return bytes((self.msg_id,)) + self.payload

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not UnknownMessage:
            return NotImplemented
        return (self.packet_type, self.msg_id, self.payload) == (
            other.packet_type,  # type: ignore[attr-defined]
            other.msg_id,  # type: ignore[attr-defined]
            other.payload,  # type: ignore[attr-defined]
        )

    def __repr__(self) -> str:
        return (
            f"UnknownMessage(packet_type={self.packet_type!r}, msg_id=0x{self.msg_id:02x}, "
            f"payload={self.payload!r})"
        )


def encode(msg: Message) -> RawPacket:
    """One message as a packet ready for :func:`~driver.protocol.frame.encode_frame`.

    Raises ValueError naming the message and field when a value does not fit its wire type
    (for example 300 in a u8, or 4 items where the table says 5).
    """
    try:
        return RawPacket(msg.PACKET_TYPE, msg._encode())
    except ENCODE_ERRORS as exc:
        raise explain_encode_error(msg, exc, _BUILT.structs) from exc


def encode_body(msg: Message) -> bytes:
    """Only the packet body (id byte + payload for COMMAND/EVENT messages)."""
    try:
        return msg._encode()
    except ENCODE_ERRORS as exc:
        raise explain_encode_error(msg, exc, _BUILT.structs) from exc


def decode(raw: RawPacket) -> Message:
    """The message in one packet. Raises only :class:`DecodeError` (see the module notes)."""
    body = raw.body
    if body.__class__ is not bytes:
        try:
            body = bytes(body)
        except (TypeError, ValueError) as exc:
            raise DecodeError(f"packet body must be bytes, got {type(body).__name__}") from exc
    ptype = raw.type
    if ptype == _COMMAND or ptype == _EVENT:
        if not body:
            raise DecodeError(f"empty {PacketType(ptype).name} packet: expected a message id byte")
        dec = _ID_DECODERS[body[0]]
        if dec is None:
            return UnknownMessage(ptype, body[0], body[1:])
        return dec(body)
    dec = _PACKET_DECODERS.get(ptype)
    if dec is None:
        raise DecodeError(f"unknown packet type {ptype!r}")
    return dec(body)


def decode_packets(frame: Frame) -> list[Message]:
    """Every message of a decoded frame, in order.

    Raises :class:`DecodeError` at the first malformed packet. A receive loop that wants to keep
    the good packets of a frame with one bad packet calls :func:`decode` per packet instead and
    decides itself whether to skip, count or log.
    """
    return [decode(p) for p in frame.packets]


def is_oob(msg: Message) -> bool:
    """Out-of-band messages (events, pings, keyframes) are never sequenced or resent."""
    return msg.PACKET_TYPE >= PacketType.EVENT


def messages_from_robot() -> list[type[Message]]:
    """The classes the robot sends, in table order (for simulators and documentation)."""
    return [cls for cls in BY_NAME.values() if cls.FROM_ROBOT]


def messages_to_robot() -> list[type[Message]]:
    """The classes the engine sends, in table order."""
    return [cls for cls in BY_NAME.values() if not cls.FROM_ROBOT]


# --------------------------------------------------------------------------------------------
# Colours


def rgb555(r: int, g: int, b: int, *, ir: bool = False) -> int:
    """Pack 8-bit red, green, blue into the lights' 15-bit colour (R 0x7c00, G 0x03e0, B 0x001f).

    Components are rounded to the nearest 5-bit level; ``ir`` sets bit 0x8000 (the IR LED).
    """
    for name, c in (("r", r), ("g", g), ("b", b)):
        if not 0 <= c <= 255:
            raise ValueError(f"rgb555: {name}={c!r}, expected 0..255")
    value = ((r * 31 + 127) // 255) << 10 | ((g * 31 + 127) // 255) << 5 | (b * 31 + 127) // 255
    return value | 0x8000 if ir else value


def rgb555_to_rgb(value: int) -> tuple[int, int, int]:
    """Unpack a 15-bit light colour into 8-bit red, green, blue (the IR bit is ignored)."""
    r, g, b = (value >> 10) & 0x1F, (value >> 5) & 0x1F, value & 0x1F
    return (r * 255 + 15) // 31, (g * 255 + 15) // 31, (b * 255 + 15) // 31


def all_messages() -> Iterable[type[Message]]:
    """Every message class in table order."""
    return BY_NAME.values()


__all__ = [
    "BY_ID",
    "BY_NAME",
    "BY_PACKET_TYPE",
    "FIRMWARE_VERSION",
    "STRUCTS",
    "BodyColor",
    "DecodeError",
    "ImageEncoding",
    "ImageResolution",
    "ImageSendMode",
    "Message",
    "MotorId",
    "NvEntryTag",
    "NvOperation",
    "NvResult",
    "ObjectType",
    "PathEventType",
    "Record",
    "RobotStatusFlag",
    "UnknownMessage",
    "UpAxis",
    "all_messages",
    "decode",
    "decode_packets",
    "encode",
    "encode_body",
    "is_oob",
    "messages_from_robot",
    "messages_to_robot",
    "rgb555",
    "rgb555_to_rgb",
    *_BUILT.structs,
    *_BUILT.messages,
]
