"""The generated message classes by name, id and packet type, and the packet codec over them.

:mod:`driver.protocol.messages` is the public face: it re-exports everything here together with
the classes themselves (``m.RobotState``, ...). The classes are built at import from the table,
so a type checker cannot see them; ``messages.pyi``, generated from the table by
``tools/gen_message_stubs.py``, declares them. This module holds what can be typed as written,
so the checker reads it rather than a stub.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import MappingProxyType
from typing import ClassVar

from . import table as _table
from .codec import ENCODE_ERRORS, build, explain_encode_error
from .frame import DecodeError, Frame, PacketType, RawPacket
from .record import Decoder, Message, Record, Struct
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
STRUCTS: MappingProxyType[str, type[Struct]] = MappingProxyType(dict(_BUILT.structs))

_ID_DECODERS: Sequence[Decoder | None] = tuple(_BUILT.decoders_by_id.get(i) for i in range(256))
_PACKET_DECODERS: dict[int, Decoder] = dict(_BUILT.decoders_by_packet_type)
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

    # The table's messages know these per class; an unknown message only per instance, so here
    # they are read-only properties over the class attributes of Message (a deliberate override).
    @property
    def ID(self) -> int:  # type: ignore[override]  # noqa: N802
        return self.msg_id

    @property
    def NAME(self) -> str:  # type: ignore[override]  # noqa: N802
        return f"UnknownMessage_0x{self.msg_id:02x}"

    @property
    def PACKET_TYPE(self) -> int:  # type: ignore[override]  # noqa: N802
        return self.packet_type

    @property
    def FROM_ROBOT(self) -> bool:  # type: ignore[override]  # noqa: N802
        return self.msg_id >= _table.FIRST_ROBOT_ID

    def _encode(self) -> bytes:
        return bytes((self.msg_id,)) + self.payload

    def __eq__(self, other: object) -> bool:
        if type(other) is not UnknownMessage:
            return NotImplemented
        return (self.packet_type, self.msg_id, self.payload) == (other.packet_type, other.msg_id, other.payload)

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
    "Struct",
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
]
