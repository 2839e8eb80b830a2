"""The robot's camera encoding: header-less ("minimized") baseline JPEG, grey and colour.

The robot sends only the entropy-coded scan of a baseline JPEG that uses one quantisation table
(the JPEG standard's Annex K.1 luminance table, i.e. IJG quality 50) and one pair of Huffman
tables (Annex K.3's luminance DC and AC tables) for every component. The payload is one marker
byte (0 = grey, anything else = colour), then the scan with 0xFF bytes *not* stuffed, padded with
0xFF to a multiple of four bytes. A receiver drops the padding and the marker byte, stuffs a 0x00
after every 0xFF, and puts a fixed header (SOI, JFIF, that DQT, an SOF0 with the frame's size,
those DHTs, an SOS) in front and FF D9 behind.

Grey frames are W×H with one component. Colour frames are coded at half width (QVGA → 160×240)
with Y sampled 2×1 and Cb, Cr 1×1, all three on the *luminance* tables. No stock encoder can do
that (Pillow and OpenCV always code chroma with the chrominance tables), so this module holds a
small baseline encoder of its own: a vectorised DCT and quantisation, and entropy coding done
with numpy arrays rather than a per-coefficient Python loop, so a QVGA frame costs a few
milliseconds. The same encoder serves grey frames, so both paths share one set of tables.

Nothing here does I/O; :func:`chunk_payload` cuts a payload into ImageChunk messages the way a
real robot does (``image_chunk_count`` only on the last chunk, the frame time stamp too).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from ..protocol import messages as m
from ..protocol.table import ImageEncoding, ImageResolution
from ..vision import jpeg_tables as tables
from ..vision.jpeg_tables import LUMA_QUANT, zigzag_order

#: The standard's tables the robot codes every frame with (one copy, shared with the driver's rebuild).
QUANT_LUMA = np.array(LUMA_QUANT, dtype=np.float32).reshape(8, 8)
DC_LUMA_BITS = tables.DC_LUMA_BITS
DC_LUMA_VALS = tables.DC_LUMA_VALUES
AC_LUMA_BITS = tables.AC_LUMA_BITS
AC_LUMA_VALS = tables.AC_LUMA_VALUES

#: Largest data slice per ImageChunk; the robot's chunks seen on hardware carry 1080..1084 bytes.
CHUNK_BYTES = 1080
#: The payload's first byte: 0 marks a grey frame, anything else colour.
GREY_MARK = 0x00
COLOUR_MARK = 0x01
#: ImageChunk.status as real robots send it (meaning unknown; decoders ignore it).
CHUNK_STATUS = 2

#: Frame sizes (width, height) by ImageResolution, as the receiver reads them.
RESOLUTIONS: dict[int, tuple[int, int]] = {
    ImageResolution.VERIFICATION_SNAPSHOT: (16, 16),
    ImageResolution.QQQQVGA: (40, 30),
    ImageResolution.QQQVGA: (80, 60),
    ImageResolution.QQVGA: (160, 120),
    ImageResolution.QVGA: (320, 240),
    ImageResolution.CVGA: (400, 296),
    ImageResolution.VGA: (640, 480),
}


def _huffman_codes(bits: tuple[int, ...], vals: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Canonical Huffman codes (Annex C): per symbol, the code and its length (0 = no code)."""
    codes = np.zeros(256, dtype=np.int64)
    lengths = np.zeros(256, dtype=np.int64)
    code = 0
    k = 0
    for length, count in enumerate(bits, start=1):
        for _ in range(count):
            codes[vals[k]] = code
            lengths[vals[k]] = length
            code += 1
            k += 1
        code <<= 1
    return codes, lengths


def _dct_matrix() -> np.ndarray:
    """The orthonormal 8-point DCT-II matrix; D @ B @ D.T is the JPEG forward DCT of block B."""
    d = np.zeros((8, 8), dtype=np.float64)
    for u in range(8):
        c = np.sqrt(0.125) if u == 0 else 0.5
        for x in range(8):
            d[u, x] = c * np.cos((2 * x + 1) * u * np.pi / 16)
    return d.astype(np.float32)


ZIGZAG = np.array(zigzag_order(), dtype=np.intp)
_DC_CODE, _DC_LEN = _huffman_codes(DC_LUMA_BITS, DC_LUMA_VALS)
_AC_CODE, _AC_LEN = _huffman_codes(AC_LUMA_BITS, AC_LUMA_VALS)
_DCT = _dct_matrix()
_RECIP_Q = (1.0 / QUANT_LUMA).astype(np.float32)
_EOB, _ZRL = 0x00, 0xF0


def _blocks(plane: np.ndarray) -> np.ndarray:
    """Cut a plane (its sides multiples of 8) into 8×8 blocks: shape (rows, cols, 8, 8)."""
    h, w = plane.shape
    return plane.reshape(h // 8, 8, w // 8, 8).swapaxes(1, 2)


def _pad_to(plane: np.ndarray, h: int, w: int) -> np.ndarray:
    """Grow a plane to h×w by repeating its last row and column (what baseline encoders do)."""
    ph, pw = h - plane.shape[0], w - plane.shape[1]
    if ph or pw:
        plane = np.pad(plane, ((0, ph), (0, pw)), mode="edge")
    return plane


def _quantised(blocks: np.ndarray) -> np.ndarray:
    """Level shift, DCT and quantise (..., 8, 8) float blocks; returns int32 (N, 64) in zig-zag order."""
    b = blocks.reshape(-1, 8, 8).astype(np.float32) - 128.0
    coef = _DCT @ b @ _DCT.T
    q = np.rint(coef * _RECIP_Q).astype(np.int32)
    return q.reshape(-1, 64)[:, ZIGZAG]


def _size_category(v: np.ndarray) -> np.ndarray:
    """Bits needed for |v| (the JPEG "SSSS" category): 0 for 0, 1 for ±1, 2 for ±2..3, …"""
    a = np.abs(v).astype(np.int64)
    s = np.zeros(a.shape, dtype=np.int64)
    nz = a > 0
    s[nz] = np.floor(np.log2(a[nz])).astype(np.int64) + 1
    return s


def _amplitude(v: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The amplitude bits that follow a Huffman code: v itself, or v − 1 in s bits when negative."""
    v = v.astype(np.int64)
    return np.where(v >= 0, v, v + (np.int64(1) << s) - 1)


def entropy_code(zz: np.ndarray, component: np.ndarray) -> bytes:
    """Huffman-code quantised blocks (N, 64, zig-zag order) in scan order, every one on the luminance tables.

    ``component`` gives each block's component index; DC values are predicted per component.
    Returns the scan bytes without 0xFF stuffing, the last byte padded with 1 bits.
    """
    n = zz.shape[0]
    # DC: the difference to the previous block of the same component.
    dc = zz[:, 0].astype(np.int64)
    diff = np.empty(n, dtype=np.int64)
    for c in np.unique(component):
        sel = np.flatnonzero(component == c)
        diff[sel] = np.diff(dc[sel], prepend=0)
    s = _size_category(diff)
    dc_val = (_DC_CODE[s] << s) | _amplitude(diff, s)
    dc_len = _DC_LEN[s] + s
    # AC: every non-zero coefficient, with the run of zeros in front of it.
    blk, pos = np.nonzero(zz[:, 1:])
    k = pos + 1
    first = np.ones(blk.size, dtype=bool)
    first[1:] = blk[1:] != blk[:-1]
    prev = np.where(first, 0, np.concatenate(([0], k[:-1])))
    run = k - prev - 1
    v = zz[blk, k]
    s = _size_category(v)
    sym = ((run & 15) << 4) | s
    ac_val = (_AC_CODE[sym] << s) | _amplitude(v, s)
    ac_len = _AC_LEN[sym] + s
    # ZRL (16 zeros) for runs of 16 or more, placed just before their coefficient.
    zrl_n = run >> 4
    zrl_blk = np.repeat(blk, zrl_n)
    zrl_key = np.repeat(2 * k - 1, zrl_n)
    # EOB after the last non-zero coefficient unless that is the 63rd.
    last = np.full(n, 0, dtype=np.int64)
    if blk.size:
        ends = np.flatnonzero(np.concatenate((blk[1:] != blk[:-1], [True])))
        last[blk[ends]] = k[ends]
    eob_blk = np.flatnonzero(last < 63)
    keys = np.concatenate((
        np.arange(n, dtype=np.int64) * 130,
        blk * 130 + 2 * k,
        zrl_blk * 130 + zrl_key,
        eob_blk * 130 + 129,
    ))
    nz, ne = zrl_blk.size, eob_blk.size
    vals = np.concatenate((dc_val, ac_val, np.full(nz, _AC_CODE[_ZRL]), np.full(ne, _AC_CODE[_EOB])))
    lens = np.concatenate((dc_len, ac_len, np.full(nz, _AC_LEN[_ZRL]), np.full(ne, _AC_LEN[_EOB])))
    order = np.argsort(keys, kind="stable")
    return _pack_bits(vals[order], lens[order])


def _pack_bits(vals: np.ndarray, lens: np.ndarray) -> bytes:
    """Write each value's low ``len`` bits (at most 32), most significant first; pad the last byte with 1s.

    Each code is placed into 32-bit words by its bit offset (one word, or split over two); codes
    never overlap, so a weighted bincount adds the pieces up exactly (sums stay below 2**32).
    """
    if not lens.size:
        return b""
    ends = np.cumsum(lens)
    starts = ends - lens
    total = int(ends[-1])
    word = starts >> 5
    off = starts & 31
    spill = off + lens - 32  # > 0: the code runs into the next word by this many bits
    head = np.where(spill > 0, vals >> np.maximum(spill, 0), vals << np.maximum(-spill, 0))
    tail = np.where(spill > 0, (vals << np.maximum(32 - spill, 0)) & 0xFFFFFFFF, 0)
    nwords = (total + 31) // 32 + 1
    words = np.bincount(word, weights=head.astype(np.float64), minlength=nwords)
    words += np.bincount(word + 1, weights=tail.astype(np.float64), minlength=nwords)[:nwords]
    data = bytearray(words.astype(np.uint64).astype(">u4").tobytes()[:(total + 7) // 8])
    pad = (-total) % 8
    if pad:
        data[-1] |= (1 << pad) - 1
    return bytes(data)


def _scan(zz: np.ndarray, component: np.ndarray) -> bytes:
    """Entropy-code, making sure the scan does not end in 0xFF (the receiver strips trailing 0xFF)."""
    data = entropy_code(zz, component)
    if data.endswith(b"\xff"):
        # Only a non-zero last coefficient in the last block can end the scan in ones: drop it.
        zz = zz.copy()
        zz[-1, 63] = 0
        data = entropy_code(zz, component)
    return data


def _finish(mark: int, scan: bytes) -> bytes:
    """Marker byte + scan, padded with 0xFF to a multiple of 4 bytes as the robot's encoder does."""
    payload = bytes((mark,)) + scan
    return payload + b"\xff" * ((-len(payload)) % 4)


def encode_grey(image: np.ndarray) -> bytes:
    """A grey uint8 H×W image → the robot's minimized payload (marker 0, then the scan)."""
    h, w = image.shape
    plane = _pad_to(image, -(-h // 8) * 8, -(-w // 8) * 8)
    blocks = _blocks(plane)
    zz = _quantised(blocks)
    return _finish(GREY_MARK, _scan(zz, np.zeros(zz.shape[0], dtype=np.int64)))


def encode_colour(image: np.ndarray) -> bytes:
    """An RGB uint8 H×W×3 image → the robot's minimized colour payload, coded at half width.

    The receiver decodes a (W/2)×H JPEG and widens it again, as the robot's colour frames are.
    """
    h, w, _ = image.shape
    hw = max(w // 2, 1)
    half = cv2.resize(image, (hw, h), interpolation=cv2.INTER_AREA)
    ycc = cv2.cvtColor(half, cv2.COLOR_RGB2YCrCb).astype(np.float32)  # JFIF's YCbCr, Cr first
    mh, mw = -(-h // 8) * 8, -(-hw // 16) * 16
    if (mh, mw) != (h, hw):
        ycc = np.pad(ycc, ((0, mh - h), (0, mw - hw), (0, 0)), mode="edge")
    chroma = ycc[:, :, 1:].reshape(mh, mw // 2, 2, 2).mean(axis=2)  # 2×1 subsampling
    rows, cols = mh // 8, mw // 16
    yq = _quantised(_blocks(ycc[:, :, 0])).reshape(rows, cols, 2, 64)
    cbq = _quantised(_blocks(chroma[:, :, 1])).reshape(rows, cols, 1, 64)
    crq = _quantised(_blocks(chroma[:, :, 0])).reshape(rows, cols, 1, 64)
    zz = np.concatenate((yq, cbq, crq), axis=2).reshape(-1, 64)
    component = np.tile(np.array([0, 0, 1, 2], dtype=np.int64), rows * cols)
    return _finish(COLOUR_MARK, _scan(zz, component))


def chunk_payload(payload: bytes, *, image_id: int, timestamp: int,
                  resolution: int = ImageResolution.QVGA, chunk_bytes: int = CHUNK_BYTES) -> list[Any]:
    """Cut a minimized payload into ImageChunk messages, as the robot sends them.

    Every chunk says JPEG_MINIMIZED_GRAY (colour frames too: the first payload byte tells them
    apart). Only the last chunk carries ``image_chunk_count`` and the frame's time stamp; the
    others have 0 there, as captured from a real robot.
    """
    pieces = [payload[i:i + chunk_bytes] for i in range(0, len(payload), chunk_bytes)] or [b""]
    count = len(pieces)
    if count > 255:
        raise ValueError(f"a frame of {len(payload)} bytes needs {count} chunks; at most 255 fit")
    out = []
    for i, piece in enumerate(pieces):
        last = i == count - 1
        out.append(m.ImageChunk(
            frame_timestamp=timestamp & 0xFFFFFFFF if last else 0,
            image_id=image_id & 0xFFFFFFFF,
            chunk_debug=0,
            image_encoding=ImageEncoding.JPEG_MINIMIZED_GRAY,
            image_resolution=resolution,
            image_chunk_count=count if last else 0,
            chunk_id=i,
            status=CHUNK_STATUS,
            data=piece,
        ))
    return out


__all__ = [
    "AC_LUMA_BITS",
    "AC_LUMA_VALS",
    "CHUNK_BYTES",
    "DC_LUMA_BITS",
    "DC_LUMA_VALS",
    "QUANT_LUMA",
    "RESOLUTIONS",
    "ZIGZAG",
    "chunk_payload",
    "encode_colour",
    "encode_grey",
    "entropy_code",
]
