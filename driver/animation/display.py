"""The face display's run-length image format (the DisplayImage message): encode and decode.

Cozmo's OLED is 128 x 64 pixels but is driven as 128 x 32: every animation frame carries a
1-bit 128 x 32 picture, and the robot lights alternate physical rows with it (it moves the
picture between the two row sets now and then against burn-in). The picture travels
column-major, 32 pixels per column, as a stream of one-byte opcodes:

==============  =============================================================================
``00cccccc``    skip ``c + 1`` columns (they stay dark)
``01cccccc``    repeat the previous column ``c + 1`` times
``10nnnnDd``    ``n + 1`` pixels down the current column: lit if ``D`` or ``d`` is set, else
                dark (a skip)
``11nnnnDd``    the same for ``n + 17`` pixels
==============  =============================================================================

The decoder models the robot with one cursor that walks the screen in column-major order.
Pixel opcodes advance it pixel by pixel (a run that reaches the bottom of a column continues at
the top of the next one). A column opcode issued in the middle of a column first finishes that
column (its remaining pixels stay dark) and then skips or repeats whole columns. With this rule
every robot-produced sequence in PyCozmo's fixture set lands exactly on the end of the screen,
and ``b"\\x3f\\x3f"`` (skip 64, skip 64) is a blank screen.

``D`` versus ``d``: both mean "lit" to the robot. The encoder follows the choice PyCozmo makes
(and has verified on hardware): ``d`` for a lit run that ends inside a column and ``D`` for one
that reaches the bottom of it. With that, the encoder's output is byte-for-byte what PyCozmo's
encoder produces, including its two space savers: a column equal to the previous one becomes a
repeat opcode, and a trailing dark run is dropped when a column opcode follows it.

The encoder is vectorised with numpy (runs are found for the whole picture at once, columns are
compared as packed 32-bit words) because it runs for every frame, 30 times a second, on small
hardware.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "BLANK_SCREEN",
    "DISPLAY_HEIGHT",
    "DISPLAY_WIDTH",
    "DisplayFormatError",
    "as_pixels",
    "decode",
    "encode",
]

DISPLAY_WIDTH = 128
DISPLAY_HEIGHT = 32
_PIXELS = DISPLAY_WIDTH * DISPLAY_HEIGHT

#: The encoding of an all-dark screen: skip 64 columns, twice.
BLANK_SCREEN = b"\x3f\x3f"

_OP_SKIP_COLUMNS = 0x00
_OP_REPEAT_COLUMNS = 0x40
_OP_RUN = 0x80
_OP_LONG_RUN = 0xC0
_MAX_COLUMN_COUNT = 64


class DisplayFormatError(ValueError):
    """A picture that is not a 128 x 32 1-bit image, or a byte stream that is not a valid
    DisplayImage encoding. The message names the offending byte or the expected shape."""


def as_pixels(image: Any) -> np.ndarray:
    """Return ``image`` as a (32, 128) boolean array (row-major, ``[y, x]``).

    Accepts a numpy array of shape (32, 128) (bool, or any number type: non-zero is lit) or a
    PIL image of size 128 x 32 (mode "1" as is; other modes are converted to grey and pixels
    >= 128 are lit, without dithering).
    """
    if hasattr(image, "getbands") and hasattr(image, "size"):  # a PIL image, without importing PIL
        if tuple(image.size) != (DISPLAY_WIDTH, DISPLAY_HEIGHT):
            raise DisplayFormatError(
                f"display image must be {DISPLAY_WIDTH}x{DISPLAY_HEIGHT} pixels, got {image.size[0]}x{image.size[1]}"
            )
        if image.mode == "1":
            return np.asarray(image, dtype=bool)
        return np.asarray(image.convert("L")) >= 128
    arr = np.asarray(image)
    if arr.shape != (DISPLAY_HEIGHT, DISPLAY_WIDTH):
        raise DisplayFormatError(
            f"display image must be an array of shape ({DISPLAY_HEIGHT}, {DISPLAY_WIDTH}) "
            f"(rows, columns), got shape {arr.shape}"
        )
    if arr.dtype == bool:
        return arr
    if not (np.issubdtype(arr.dtype, np.number)):
        raise DisplayFormatError(f"display image must hold numbers or booleans, got dtype {arr.dtype}")
    return arr != 0


def _build_op_table() -> np.ndarray:
    """Opcode of a run of 1..32 equal pixels, indexed [lit * 2 + reaches_column_end][length]."""
    table = np.zeros((4, DISPLAY_HEIGHT + 1), dtype=np.uint8)
    for length in range(1, DISPLAY_HEIGHT + 1):
        base = _OP_RUN | ((length - 1) << 2) if length <= 16 else _OP_LONG_RUN | ((length - 17) << 2)
        table[0, length] = table[1, length] = base
        table[2, length] = base | 0x01  # lit, ends inside the column: "d"
        table[3, length] = base | 0x02  # lit, reaches the bottom: "D"
    table.setflags(write=False)
    return table.reshape(-1)


_OP_TABLE = _build_op_table()
# Which runs to emit, indexed [column_code * 4 + lit * 2 + reaches_column_end]. column_code is
# 0 for a data column followed by a data column, 1 for a data column followed by a column opcode
# (its trailing dark run is dropped: the opcode finishes the column anyway), 2 and 3 for a column
# that is skipped or repeated as a whole (none of its runs are sent).
_KEEP_TABLE = np.array([1, 1, 1, 1, 1, 0, 1, 1] + [0] * 8, dtype=bool)
_KEEP_TABLE.setflags(write=False)


def _column_ops(kind_code: int, count: int) -> bytes:
    """Opcodes that skip (or repeat) ``count`` whole columns, 64 at most per opcode."""
    ops = bytes([kind_code | (_MAX_COLUMN_COUNT - 1)]) * (count // _MAX_COLUMN_COUNT)
    if count % _MAX_COLUMN_COUNT:
        ops += bytes([kind_code | (count % _MAX_COLUMN_COUNT - 1)])
    return ops


# Column opcodes by [kind][count] (kind 1 skip, 2 repeat; count 0..128), built once.
_COLUMN_OPS = (
    (),
    tuple(_column_ops(_OP_SKIP_COLUMNS, n) for n in range(DISPLAY_WIDTH + 1)),
    tuple(_column_ops(_OP_REPEAT_COLUMNS, n) for n in range(DISPLAY_WIDTH + 1)),
)


def encode(image: Any) -> bytes:
    """Encode a 128 x 32 picture (see :func:`as_pixels` for what is accepted) as DisplayImage bytes.

    Faces encode to some 15 - 120 bytes. Noisy pictures can take up to 4 KiB, more than one
    DisplayImage message carries (its packet payload is limited to about 1 KiB), so a sender of
    arbitrary pictures should check the length.
    """
    px = as_pixels(image)
    flat = np.ascontiguousarray(px.T).reshape(-1)  # column-major pixel order, as on the wire

    # Columns as 32-bit words: dark ones are skipped, ones equal to their (lit) predecessor repeated.
    words = np.packbits(flat).view(">u4")
    blank = words == 0
    kind = np.zeros(DISPLAY_WIDTH + 1, dtype=np.int8)  # 0 data, 1 skip, 2 repeat; one spare entry
    np.equal(words[1:], words[:-1], out=kind[1:DISPLAY_WIDTH].view(bool))
    kind[1:DISPLAY_WIDTH] <<= 1
    kind[:DISPLAY_WIDTH][blank] = 1
    whole = kind != 0
    column_code = whole[:-1] * np.int8(2) + whole[1:]

    # Runs of equal pixels inside each column, for the whole picture at once.
    change = np.empty(_PIXELS + 1, dtype=bool)
    np.not_equal(flat[1:], flat[:-1], out=change[1:_PIXELS])
    change[:_PIXELS:DISPLAY_HEIGHT] = True
    change[_PIXELS] = True
    bounds = change.nonzero()[0]
    starts, ends = bounds[:-1], bounds[1:]
    lit_end = flat[starts] * 2 + ((ends & (DISPLAY_HEIGHT - 1)) == 0)
    run_cols = starts >> 5
    keep = _KEEP_TABLE[column_code[run_cols] * 4 + lit_end]
    ops = _OP_TABLE[(lit_end * (DISPLAY_HEIGHT + 1) + (ends - starts))[keep]].tobytes()

    # Splice in one column opcode group per stretch of skipped or repeated columns.
    edges = (kind[1:DISPLAY_WIDTH] != kind[: DISPLAY_WIDTH - 1]).nonzero()[0] + 1
    if edges.size == 0 and not whole[0]:
        return ops
    firsts = [0, *edges.tolist()]
    stops = firsts[1:] + [DISPLAY_WIDTH]
    positions = np.searchsorted(run_cols[keep], firsts).tolist()
    kinds = kind[firsts].tolist()
    pieces: list[bytes] = []
    done = 0
    for first, stop, at, k in zip(firsts, stops, positions, kinds, strict=True):
        if k:
            pieces.append(ops[done:at])
            pieces.append(_COLUMN_OPS[k][stop - first])
            done = at
    pieces.append(ops[done:])
    return b"".join(pieces)


def decode(data: bytes | bytearray | memoryview) -> np.ndarray:
    """Decode DisplayImage bytes into a (32, 128) boolean array (``[y, x]``).

    Columns the stream never reaches stay dark. Raises :class:`DisplayFormatError` for a stream
    that writes past the end of the screen or repeats a column before the first one.
    """
    cols = np.zeros((DISPLAY_WIDTH, DISPLAY_HEIGHT), dtype=bool)
    flat = cols.reshape(-1)
    pos = 0  # cursor, in column-major pixel order
    for index, byte in enumerate(bytes(data)):
        op = byte & 0xC0
        if op == _OP_RUN or op == _OP_LONG_RUN:
            count = ((byte >> 2) & 0x0F) + (1 if op == _OP_RUN else 17)
            if pos + count > _PIXELS:
                raise DisplayFormatError(
                    f"byte {index} (0x{byte:02x}): a run of {count} pixels from pixel {pos} goes past "
                    f"the end of the {DISPLAY_WIDTH}x{DISPLAY_HEIGHT} screen"
                )
            if byte & 0x03:
                flat[pos : pos + count] = True
            pos += count
            continue
        count = (byte & 0x3F) + 1
        column = -(-pos // DISPLAY_HEIGHT)  # a column op first finishes a partly drawn column
        if column + count > DISPLAY_WIDTH:
            what = "skip" if op == _OP_SKIP_COLUMNS else "repeat"
            raise DisplayFormatError(
                f"byte {index} (0x{byte:02x}): {what} of {count} columns from column {column} goes past "
                f"the last column ({DISPLAY_WIDTH - 1})"
            )
        if op == _OP_REPEAT_COLUMNS:
            if column == 0:
                raise DisplayFormatError(f"byte {index} (0x{byte:02x}): repeat of the previous column at column 0")
            cols[column : column + count] = cols[column - 1]
        pos = (column + count) * DISPLAY_HEIGHT
    return np.ascontiguousarray(cols.T)
