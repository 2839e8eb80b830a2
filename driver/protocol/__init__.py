"""The Cozmo wire protocol: frames, packets and messages. Pure data in, data out; no I/O.

* :mod:`.frame` - datagrams and the raw packets inside them;
* :mod:`.table` - the message table (every layout, written down once);
* :mod:`.messages` - message classes generated from the table, ``encode``/``decode``
  (typed for checkers by the generated ``messages.pyi``);
* :mod:`.registry` - the classes by name and id, and the packet codec over them;
* :mod:`.codec` - the generator behind :mod:`.messages`; :mod:`.record` - its base classes.
"""

from __future__ import annotations

from . import messages
from .frame import (
    FRAME_HEADER_SIZE,
    FRAME_ID,
    MAX_FRAME_SIZE,
    MAX_PACKET_PAYLOAD,
    MAX_SEQ,
    OOB_SEQ,
    DecodeError,
    Frame,
    FrameType,
    PacketType,
    RawPacket,
    decode_frame,
    encode_frame,
    is_oob_packet_type,
    seq_add,
    seq_diff,
)
from .messages import (
    BY_ID,
    BY_NAME,
    FIRMWARE_VERSION,
    Message,
    RobotStatusFlag,
    UnknownMessage,
    decode,
    decode_packets,
    encode,
    is_oob,
    rgb555,
    rgb555_to_rgb,
)

__all__ = [
    "BY_ID",
    "BY_NAME",
    "FIRMWARE_VERSION",
    "FRAME_HEADER_SIZE",
    "FRAME_ID",
    "MAX_FRAME_SIZE",
    "MAX_PACKET_PAYLOAD",
    "MAX_SEQ",
    "OOB_SEQ",
    "DecodeError",
    "Frame",
    "FrameType",
    "Message",
    "PacketType",
    "RawPacket",
    "RobotStatusFlag",
    "UnknownMessage",
    "decode",
    "decode_frame",
    "decode_packets",
    "encode",
    "encode_frame",
    "is_oob",
    "is_oob_packet_type",
    "messages",
    "rgb555",
    "rgb555_to_rgb",
    "seq_add",
    "seq_diff",
]
