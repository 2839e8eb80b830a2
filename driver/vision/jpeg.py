"""The robot's header-less ("minimized") JPEG: rebuilding a full JPEG, and making one.

Cozmo's camera sends only the entropy-coded scan of a baseline JPEG, split over ImageChunk
messages. The first byte of the reassembled payload says grey (0) or colour (not 0); the scan
follows with its 0xFF bytes *not* stuffed, and the encoder pads the end with 0xFF bytes. Every
frame uses the same tables: the JPEG standard's luminance quantisation table at 100 % (IJG
quality 50) and its luminance Huffman tables, even for the chroma of colour frames, which are
half width (Y sampled 2×1). Rebuilding a decodable file is therefore: a fixed header with the
frame size patched in, the scan with a zero stuffed after every 0xFF, and the end marker.

The header is built here from the standard's tables (Annex K.1 and K.3 of ITU-T T.81), not
copied from anywhere; a test checks it byte for byte against PyCozmo's rebuild and against the
tables Pillow writes at quality 50.

Pure: no I/O. :func:`rebuild_jpeg` is the hot path (bytes.replace does the stuffing in C, about
a hundred times faster than a byte loop); :func:`minimize_jpeg` is its inverse, used by tests and
by anything that plays the robot's part (it turns a quality-50 baseline grey JPEG back into the
payload the robot would send).
"""

from __future__ import annotations

import struct

from .jpeg_tables import AC_LUMA_BITS, AC_LUMA_VALUES, DC_LUMA_BITS, DC_LUMA_VALUES, LUMA_QUANT, zigzag_order

__all__ = [
    "COLOR_HEADER_SIZE",
    "GRAY_HEADER_SIZE",
    "JpegError",
    "header",
    "is_color_payload",
    "minimize_jpeg",
    "rebuild_jpeg",
]


class JpegError(ValueError):
    """A payload or a JPEG file that cannot be turned into the other form."""


def _segment(marker: int, body: bytes) -> bytes:
    return struct.pack(">BBH", 0xFF, marker, len(body) + 2) + body


def _build_header(color: bool) -> bytes:
    app0 = _segment(0xE0, b"JFIF\x00" + bytes((1, 1, 0)) + struct.pack(">HH", 1, 1) + b"\x00\x00")
    dqt = _segment(0xDB, b"\x00" + bytes(LUMA_QUANT[i] for i in zigzag_order()))
    if color:  # Y sampled 2x1, Cb and Cr 1x1, all on quantisation table 0
        components = bytes((1, 0x21, 0, 2, 0x11, 0, 3, 0x11, 0))
    else:
        components = bytes((1, 0x11, 0))
    # height and width are placeholders: rebuild_jpeg patches them (offsets 0x5E..0x61)
    sof0 = _segment(0xC0, struct.pack(">BHHB", 8, 0, 0, len(components) // 3) + components)
    dht = _segment(0xC4, b"\x00" + bytes(DC_LUMA_BITS) + DC_LUMA_VALUES
                   + b"\x10" + bytes(AC_LUMA_BITS) + AC_LUMA_VALUES)
    count = len(components) // 3
    sos = _segment(0xDA, bytes((count,)) + b"".join(bytes((cid, 0x00)) for cid in range(1, count + 1))
                   + bytes((0, 63, 0)))
    return b"\xff\xd8" + app0 + dqt + sof0 + dht + sos


_GRAY_HEADER = _build_header(color=False)
_COLOR_HEADER = _build_header(color=True)
GRAY_HEADER_SIZE = len(_GRAY_HEADER)
COLOR_HEADER_SIZE = len(_COLOR_HEADER)
#: Where SOF0's height and width sit in both headers (big-endian u16 each).
_SIZE_OFFSET = 0x5E
_EOI = b"\xff\xd9"


def header(width: int, height: int, *, color: bool = False) -> bytes:
    """The fixed header for a ``width`` × ``height`` frame (colour: the half-width stored size)."""
    if not (0 < width < 65536 and 0 < height < 65536):
        raise JpegError(f"frame size {width}x{height} is outside 1..65535")
    base = _COLOR_HEADER if color else _GRAY_HEADER
    return base[:_SIZE_OFFSET] + struct.pack(">HH", height, width) + base[_SIZE_OFFSET + 4:]


def is_color_payload(payload: bytes) -> bool:
    """True when a reassembled payload holds a colour frame (its first byte is not 0)."""
    return bool(payload) and payload[0] != 0


def rebuild_jpeg(payload: bytes, width: int, height: int) -> tuple[bytes, bool]:
    """Turn a reassembled minimized payload into a JPEG file; returns (jpeg, colour).

    ``width`` × ``height`` is the camera resolution (320×240 for QVGA). A colour payload becomes a
    half-width JPEG (160×240 for QVGA) that the decoder must widen again. Raises
    :class:`JpegError` when the payload holds no scan at all; a damaged scan still rebuilds and
    is caught by the decoder.
    """
    color = is_color_payload(payload)
    scan = bytes(payload).rstrip(b"\xff")[1:]
    if not scan:
        raise JpegError(f"payload of {len(payload)} bytes holds no scan data")
    stored_width = width // 2 if color else width
    return header(stored_width, height, color=color) + scan.replace(b"\xff", b"\xff\x00") + _EOI, color


def _segments(jpeg: bytes) -> tuple[dict[int, list[bytes]], int]:
    """The marker segments before the scan (marker → bodies) and the scan's start offset."""
    if jpeg[:2] != b"\xff\xd8":
        raise JpegError("not a JPEG file (no SOI marker)")
    found: dict[int, list[bytes]] = {}
    pos = 2
    while pos + 4 <= len(jpeg):
        if jpeg[pos] != 0xFF:
            raise JpegError(f"expected a marker at byte {pos}")
        marker = jpeg[pos + 1]
        (length,) = struct.unpack_from(">H", jpeg, pos + 2)
        body = jpeg[pos + 4:pos + 2 + length]
        found.setdefault(marker, []).append(body)
        pos += 2 + length
        if marker == 0xDA:
            return found, pos
    raise JpegError("no start-of-scan marker")


def minimize_jpeg(jpeg: bytes, *, color_flag: int = 0) -> bytes:
    """The payload the robot would send for a baseline JPEG that uses the robot's tables.

    Checks that the file has exactly the robot's quantisation and Huffman tables, no restart
    markers, and a single scan; returns ``color_flag`` as the first byte (0 for grey) followed
    by the unstuffed scan. Raises :class:`JpegError` for any other JPEG.
    """
    segments, start = _segments(jpeg)
    robot = _segments(_COLOR_HEADER if color_flag else _GRAY_HEADER)[0]
    if b"".join(segments.get(0xDB, [])) != robot[0xDB][0]:
        raise JpegError("the JPEG's quantisation table is not the robot's (Pillow: quality=50)")
    tables = sorted(table for body in segments.get(0xC4, []) for table in _split_dht(body))
    if tables != sorted(_split_dht(robot[0xC4][0])):
        raise JpegError("the JPEG's Huffman tables are not the standard luminance tables")
    if 0xDD in segments:
        raise JpegError("the JPEG uses restart intervals; the robot's stream has none")
    end = jpeg.rfind(_EOI)
    if end < start:
        raise JpegError("no end-of-image marker after the scan")
    scan = jpeg[start:end]
    if b"\xff" in scan.replace(b"\xff\x00", b""):
        raise JpegError("the scan holds markers (restart markers or a second scan)")
    return bytes((color_flag,)) + scan.replace(b"\xff\x00", b"\xff")


def _split_dht(body: bytes) -> list[bytes]:
    """One DHT body holding several tables → one body per table (encoders write either form)."""
    tables: list[bytes] = []
    pos = 0
    while pos < len(body):
        count = sum(body[pos + 1:pos + 17])
        tables.append(body[pos:pos + 17 + count])
        pos += 17 + count
    return tables
