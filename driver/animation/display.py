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

The encoder runs for every new face, up to 30 times a second, on small hardware: where the
package's compiled code was built (``driver/animation/_compiled.c``) it encodes, in a few
microseconds; otherwise numpy does, vectorised (runs found for the whole picture at once, columns
compared as packed 32-bit words), in about a tenth of a millisecond. The bytes are the same.

:class:`SpriteLibrary` turns the app's face sprite sequences (folders of PNG frames, played by
clips' FaceAnimation keyframes) into such encoded pictures.
"""

from __future__ import annotations

import logging
import os
import re
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from .native import compiled as _compiled
from .roots import ResourceRoots, cozmo_resources_dirs

__all__ = [
    "BLANK_SCREEN",
    "DISPLAY_HEIGHT",
    "DISPLAY_WIDTH",
    "MAX_IMAGE_BYTES",
    "DisplayFormatError",
    "SpriteLibrary",
    "as_pixels",
    "decode",
    "encode",
    "sprite_image",
]

log = logging.getLogger(__name__)

DISPLAY_WIDTH = 128
DISPLAY_HEIGHT = 32
_PIXELS = DISPLAY_WIDTH * DISPLAY_HEIGHT

#: The encoding of an all-dark screen: skip 64 columns, twice.
BLANK_SCREEN = b"\x3f\x3f"
#: The largest encoded picture one DisplayImage packet carries (1037-byte packet payload, less the
#: packet header, the message id and the length field).
MAX_IMAGE_BYTES = 1037 - 3 - 1 - 2

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
    if _compiled is not None:
        return _compiled.encode(px)
    return _encode_numpy(px)


def _encode_numpy(px: np.ndarray) -> bytes:
    """:func:`encode` with numpy, for a (32, 128) boolean picture."""
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


# ---------------------------------------------------------------------------------------------
# Sprite sequences


def sprite_image(path: str | os.PathLike[str], row_offset: int = 0) -> bytes:
    """One sprite frame (a PNG or any image Pillow reads) as encoded DisplayImage bytes.

    A 128 x 32 image is the picture as sent; a 128 x 64 one is the full OLED, of which every other
    row is kept (``row_offset`` 0 keeps rows 0, 2, ...), as for the procedural face. Pixels of
    grey level >= 128 (after dropping any alpha onto black) are lit. Raises
    :class:`DisplayFormatError` naming the file for other sizes, unreadable files and pictures too
    detailed for one DisplayImage.
    """
    from PIL import Image, UnidentifiedImageError  # local: only sprites need Pillow

    name = os.fspath(path)
    try:
        with Image.open(name) as img:
            img.load()
            if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
                rgba = img.convert("RGBA")
                base = Image.new("RGBA", rgba.size, (0, 0, 0, 255))
                grey = np.asarray(Image.alpha_composite(base, rgba).convert("L"))
            else:
                grey = np.asarray(img.convert("L"))
    except (OSError, UnidentifiedImageError) as exc:
        raise DisplayFormatError(f"{name}: cannot read the image: {exc}") from None
    height, width = grey.shape
    if width != DISPLAY_WIDTH or height not in (DISPLAY_HEIGHT, 2 * DISPLAY_HEIGHT):
        raise DisplayFormatError(
            f"{name}: a face sprite must be {DISPLAY_WIDTH}x{DISPLAY_HEIGHT} or "
            f"{DISPLAY_WIDTH}x{2 * DISPLAY_HEIGHT} pixels, got {width}x{height}"
        )
    if height == 2 * DISPLAY_HEIGHT:
        grey = grey[row_offset::2]
    data = encode(grey >= 128)
    if len(data) > MAX_IMAGE_BYTES:
        raise DisplayFormatError(
            f"{name}: encodes to {len(data)} bytes, more than one DisplayImage carries ({MAX_IMAGE_BYTES}); "
            "simplify the picture"
        )
    return data


def _natural_key(path: Path) -> list[Any]:
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", path.name)]


class SpriteLibrary:
    """FaceAnimation sprite sequences -> encoded face pictures, from a resource tree.

    A sequence called ``name`` is the folder ``assets/faceAnimations/<name>/`` of a Cozmo
    resource tree (``roots``: one or several, each the ``cozmo_resources`` directory or its
    parent, searched in order): its PNG files,
    in natural file-name order, are its frames, one per 1/30 s. Converted sequences are cached
    (``cache_size`` of them). Calling the library returns None for a sequence that is missing or
    unreadable, after one warning per sequence, so a clip with a bad sprite still plays the
    rest of its tracks; :meth:`load` raises instead.
    """

    def __init__(self, roots: ResourceRoots, *,
                 cache_size: int = 32) -> None:
        self.folders = [root / "assets" / "faceAnimations" for root in cozmo_resources_dirs(roots)]
        self.cache_size = cache_size
        self._cache: OrderedDict[str, list[bytes]] = OrderedDict()
        self._warned: set[str] = set()

    def names(self) -> list[str]:
        """The sequences available, sorted."""
        return sorted({p.name for folder in self.folders if folder.is_dir() for p in folder.iterdir() if p.is_dir()})

    def load(self, name: str) -> list[bytes]:
        """The frames of sequence ``name``; raises :class:`DisplayFormatError` if missing or bad."""
        cached = self._cache.get(name)
        if cached is not None:
            self._cache.move_to_end(name)
            return cached
        folder = self._find(name)
        if folder is None:
            where = " or ".join(str(folder / name) for folder in self.folders)
            raise DisplayFormatError(f"no sprite sequence {name!r}: expected a folder {where}")
        files = sorted((p for p in folder.iterdir() if p.suffix.lower() == ".png" and p.is_file()), key=_natural_key)
        if not files:
            raise DisplayFormatError(f"sprite sequence {name!r}: no PNG frames in {folder}")
        frames = [sprite_image(f) for f in files]
        self._cache[name] = frames
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return frames

    def __call__(self, name: str) -> list[bytes] | None:
        """The frames of sequence ``name``, or None (with one warning) when it cannot be shown."""
        try:
            return self.load(name)
        except DisplayFormatError as exc:
            if name not in self._warned:
                self._warned.add(name)
                log.warning("face sprite sequence not shown: %s", exc)
            return None

    def _find(self, name: str) -> Path | None:
        if not name or "/" in name or "\\" in name or name in (".", ".."):
            return None
        for folder in self.folders:
            exact = folder / name
            if exact.is_dir():
                return exact
            if folder.is_dir():  # file systems differ on case; the app's names are lower case
                for p in folder.iterdir():
                    if p.is_dir() and p.name.lower() == name.lower():
                        return p
        return None
