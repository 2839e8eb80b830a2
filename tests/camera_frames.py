"""Receiving camera frames in tests: reassemble ImageChunks and rebuild a standard JPEG.

Written from the description of the robot's format and kept apart from driver/sim/jpeg.py on
purpose: the quantisation and Huffman tables come from a JPEG that Pillow
(libjpeg) writes at quality 50, not from the simulator's constants, so a wrong table on either
side shows up as a frame that does not decode.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from PIL import Image

SIZES = {1: (40, 30), 2: (80, 60), 3: (160, 120), 4: (320, 240), 5: (400, 296), 6: (640, 480)}


def _segments(jpeg: bytes) -> dict[int, list[bytes]]:
    """Marker segments of a JPEG up to its scan: marker -> whole segments (marker and length included)."""
    out: dict[int, list[bytes]] = {}
    pos = 2
    while pos < len(jpeg):
        marker = jpeg[pos + 1]
        (length,) = struct.unpack(">H", jpeg[pos + 2:pos + 4])
        out.setdefault(marker, []).append(jpeg[pos:pos + 2 + length])
        if marker == 0xDA:
            break
        pos += 2 + length
    return out


def _libjpeg_tables() -> tuple[bytes, bytes]:
    """The DQT and DHT segments libjpeg writes for a grey image at quality 50."""
    buf = io.BytesIO()
    Image.fromarray(np.zeros((8, 8), np.uint8)).save(buf, "JPEG", quality=50, optimize=False)
    segs = _segments(buf.getvalue())
    return b"".join(segs[0xDB]), b"".join(segs[0xC4])


DQT, DHT = _libjpeg_tables()


def rebuild(payload: bytes, width: int, height: int) -> tuple[bytes, bool]:
    """Turn a minimized payload into a standard JPEG; returns (jpeg, is_colour)."""
    colour = payload[0] != 0
    scan = payload.rstrip(b"\xff")[1:].replace(b"\xff", b"\xff\x00")
    if colour:
        width //= 2
        comps = [(1, 0x21), (2, 0x11), (3, 0x11)]
    else:
        comps = [(1, 0x11)]
    sof = struct.pack(">BBHBHHB", 0xFF, 0xC0, 8 + 3 * len(comps), 8, height, width, len(comps))
    sof += b"".join(bytes((cid, hv, 0)) for cid, hv in comps)
    sos = struct.pack(">BBHB", 0xFF, 0xDA, 6 + 2 * len(comps), len(comps))
    sos += b"".join(bytes((cid, 0x00)) for cid, _ in comps) + bytes((0, 63, 0))
    app0 = b"\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    return b"\xff\xd8" + app0 + DQT + sof + DHT + sos + scan + b"\xff\xd9", colour


def decode(payload: bytes, width: int = 320, height: int = 240) -> np.ndarray:
    """Decode a minimized payload with OpenCV: grey H×W, or colour H×W×3 RGB widened to full width."""
    jpeg, colour = rebuild(payload, width, height)
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR if colour else cv2.IMREAD_GRAYSCALE)
    if img is None:
        raise ValueError("OpenCV could not decode the rebuilt JPEG")
    if colour:
        img = cv2.resize(cv2.cvtColor(img, cv2.COLOR_BGR2RGB), (width, height), interpolation=cv2.INTER_LINEAR)
    return img


@dataclass
class Frame:
    """One reassembled frame as the chunks described it."""

    image_id: int
    timestamp: int
    resolution: int
    chunks: int
    payload: bytes


class Reassembler:
    """Chunks in arrival order → complete frames (chunk 0 starts one, the counted last chunk ends it)."""

    def __init__(self) -> None:
        self.frames: list[Frame] = []
        self.dropped = 0
        self._parts: list[bytes] = []
        self._id: int | None = None

    def add(self, msg: Any) -> None:
        """Take one ImageChunk message."""
        if msg.chunk_id == 0:
            if self._id is not None:
                self.dropped += 1
            self._parts, self._id = [], msg.image_id
        elif self._id != msg.image_id or msg.chunk_id != len(self._parts):
            if self._id is not None:
                self.dropped += 1
            self._parts, self._id = [], None
            return
        self._parts.append(bytes(msg.data))
        if msg.image_chunk_count and msg.chunk_id == msg.image_chunk_count - 1:
            self.frames.append(Frame(msg.image_id, msg.frame_timestamp, int(msg.image_resolution),
                                     msg.image_chunk_count, b"".join(self._parts)))
            self._parts, self._id = [], None
