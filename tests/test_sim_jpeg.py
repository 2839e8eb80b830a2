"""The simulated camera's encoding: the robot's header-less JPEG, grey and colour, and its chunks.

Decoding goes through a rebuild written in the tests (tests/camera_frames.py, tables taken from
libjpeg), through OpenCV, and through PyCozmo 0.8.0's own camera functions; the rebuild itself
is first checked on real camera chunks captured from a robot.
"""

from __future__ import annotations

import io
import json
import struct

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from driver.protocol import messages as m
from driver.protocol.frame import decode_frame
from driver.sim import jpeg
from driver.sim.jpeg import chunk_payload, encode_colour, encode_grey

from .camera_frames import Reassembler, decode, rebuild
from .conftest import REPO, SHARED

_EXCERPT = ("real_data/cozmo-stack/re-analysis/acceptance/hardware/20260924-202748-CONTROL/"
            "frames.CAMERA-excerpt.jsonl")
#: shared/ sits beside the repository (CI) or beside the folder of working copies.
CAMERA_EXCERPT = next((p for p in (SHARED / _EXCERPT, REPO.parents[1] / "shared" / _EXCERPT) if p.is_file()),
                      SHARED / _EXCERPT)


def _scene(h: int = 240, w: int = 320, seed: int = 1) -> np.ndarray:
    """A colour test picture with edges, gradients, flat patches and a little noise."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    img = np.zeros((h, w, 3), np.float32)
    img[..., 0] = 120 + 80 * np.sin(x / 17.0)
    img[..., 1] = 60 + 0.5 * y
    img[..., 2] = 200 - 0.4 * x
    img[h // 4:h // 2, w // 5:w // 2] = (230, 40, 30)   # a red patch
    img[h // 2:3 * h // 4, w // 2:4 * w // 5] = (30, 200, 60)  # a green one
    img += rng.normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def _pillow_q50(grey: np.ndarray) -> np.ndarray:
    buf = io.BytesIO()
    Image.fromarray(grey).save(buf, "JPEG", quality=50, optimize=False)
    return np.asarray(Image.open(io.BytesIO(buf.getvalue())))


def _dht_tables(segment: bytes) -> dict[tuple[int, int], tuple[tuple[int, ...], bytes]]:
    """(class, id) -> (code counts, symbols) for every table in DHT segments."""
    out = {}
    pos = 0
    while pos < len(segment):
        assert segment[pos:pos + 2] == b"\xff\xc4"
        (length,) = struct.unpack(">H", segment[pos + 2:pos + 4])
        body = segment[pos + 4:pos + 2 + length]
        i = 0
        while i < len(body):
            tc, th = body[i] >> 4, body[i] & 15
            bits = tuple(body[i + 1:i + 17])
            vals = bytes(body[i + 17:i + 17 + sum(bits)])
            out[(tc, th)] = (bits, vals)
            i += 17 + sum(bits)
        pos += 2 + length
    return out


def test_tables_are_libjpeg_quality_50_luminance_tables() -> None:
    from .camera_frames import DHT, DQT

    assert DQT[4] == 0  # 8-bit table 0
    assert list(DQT[5:69]) == [int(v) for v in jpeg.QUANT_LUMA.flatten()[jpeg.ZIGZAG]]
    assert list(DQT[5:11]) == [0x10, 0x0B, 0x0C, 0x0E, 0x0C, 0x0A]
    tables = _dht_tables(DHT)
    assert tables[(0, 0)] == (jpeg.DC_LUMA_BITS, jpeg.DC_LUMA_VALS)
    assert tables[(1, 0)] == (jpeg.AC_LUMA_BITS, jpeg.AC_LUMA_VALS)


def test_grey_payload_decodes_as_libjpeg_codes_the_same_picture() -> None:
    grey = cv2.cvtColor(_scene(), cv2.COLOR_RGB2GRAY)
    payload = encode_grey(grey)
    assert payload[0] == 0 and len(payload) % 4 == 0
    ours = decode(payload)
    assert ours.shape == (240, 320)
    # Same tables, same quantiser: the pictures agree up to DCT rounding.
    assert np.abs(ours.astype(int) - _pillow_q50(grey)).mean() < 0.5
    assert np.abs(ours.astype(int) - grey).mean() < 6


def test_pycozmo_rebuilds_our_grey_and_colour_payloads() -> None:
    pycozmo_camera = pytest.importorskip("pycozmo.camera")
    rgb = _scene()
    grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    g = pycozmo_camera.minigray_to_jpeg(np.frombuffer(encode_grey(grey), np.uint8), 320, 240)
    g_img = np.asarray(Image.open(io.BytesIO(bytes(g))).convert("L"))
    assert np.abs(g_img.astype(int) - decode(encode_grey(grey))).mean() < 0.5
    c = pycozmo_camera.minicolor_to_jpeg(np.frombuffer(encode_colour(rgb), np.uint8), 160, 240)
    small = Image.open(io.BytesIO(bytes(c))).convert("RGB")
    assert small.size == (160, 240)  # coded at half width
    c_img = np.asarray(small.resize((320, 240))).astype(int)
    assert np.abs(c_img - rgb).mean() < 10
    # The colours survive: the red patch is red, the green one green.
    red = c_img[70:110, 80:150].mean(axis=(0, 1))
    green = c_img[130:170, 170:250].mean(axis=(0, 1))
    assert red[0] > 180 and red[1] < 90 and red[2] < 90
    assert green[1] > 160 and green[0] < 90 and green[2] < 110


def test_colour_payload_decodes_with_opencv() -> None:
    rgb = _scene()
    payload = encode_colour(rgb)
    assert payload[0] != 0 and len(payload) % 4 == 0
    img = decode(payload)
    assert img.shape == (240, 320, 3)
    assert np.abs(img.astype(int) - rgb).mean() < 10


@settings(max_examples=60, deadline=None)
@given(h=st.integers(1, 70), w=st.integers(1, 50).map(lambda v: 2 * v), seed=st.integers(0, 2**31),
       roughness=st.sampled_from([0.0, 5.0, 40.0, 128.0]))
def test_any_picture_encodes_to_a_decodable_frame(h: int, w: int, seed: int, roughness: float) -> None:
    rng = np.random.default_rng(seed)
    coarse = rng.integers(0, 256, (max(h // 8, 1), max(w // 8, 1), 3)).astype(np.float32)
    smooth = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_LINEAR).reshape(h, w, 3)
    img = np.clip(smooth + rng.normal(0, roughness, (h, w, 3)), 0, 255).astype(np.uint8)
    grey = np.ascontiguousarray(img[..., 1])
    g = encode_grey(grey)
    assert g[0] == 0 and len(g) % 4 == 0
    dg = decode(g, w, h)
    assert dg.shape == (h, w)
    # Same tables and quantiser as libjpeg, so the loss matches Pillow's at quality 50: a DCT
    # rounding may tip one coefficient by a quantiser step (up to ~13 grey levels on a lone 8×8
    # block), which moves the error to the original a little either way; a coding error would
    # give garbage, tens of grey levels off.
    ours = np.abs(dg.astype(int) - grey.astype(int)).mean()
    pillows = np.abs(_pillow_q50(grey).astype(int) - grey.astype(int)).mean()
    assert ours <= pillows + 4.0, (ours, pillows)
    c = encode_colour(img)
    assert c[0] != 0 and len(c) % 4 == 0
    assert decode(c, w, h).shape == (h, w, 3)


def test_chunks_look_like_the_robots() -> None:
    payload = bytes(range(256)) * 10  # 2560 bytes
    chunks = chunk_payload(payload, image_id=77, timestamp=123456)
    assert [len(c.data) for c in chunks] == [1080, 1080, 400]
    assert [c.chunk_id for c in chunks] == [0, 1, 2]
    assert [c.image_chunk_count for c in chunks] == [0, 0, 3]  # the count only on the last chunk
    assert [c.frame_timestamp for c in chunks] == [0, 0, 123456]
    assert {(c.image_id, int(c.image_encoding), int(c.image_resolution), c.status) for c in chunks} == {(77, 8, 4, 2)}
    wire = [m.decode(m.encode(c)) for c in chunks]  # survives the message codec
    assert b"".join(bytes(c.data) for c in wire) == payload
    assert len(chunk_payload(b"\x00" * 100, image_id=1, timestamp=0)) == 1
    with pytest.raises(ValueError, match="255"):
        chunk_payload(b"\x00" * (256 * 1080), image_id=1, timestamp=0)


def _real_camera_chunks() -> list[object]:
    if not CAMERA_EXCERPT.is_file():
        pytest.skip(f"real camera excerpt not found at {CAMERA_EXCERPT}")
    chunks = []
    for line in CAMERA_EXCERPT.read_text().splitlines():
        rec = json.loads(line)
        if rec["dir"] != "in":
            continue
        for pkt in decode_frame(bytes.fromhex(rec["hex"])).packets:
            if pkt.message_id == 0xF2:
                chunks.append(m.decode(pkt))
    return chunks


def test_the_test_rebuild_decodes_real_robot_frames_and_our_format_matches_theirs() -> None:
    ra = Reassembler()
    for chunk in _real_camera_chunks():
        ra.add(chunk)
    assert len(ra.frames) == 4 and ra.dropped == 0  # the orphan tail at the start starts no frame
    for frame in ra.frames:
        assert frame.payload[0] == 0 and len(frame.payload) % 4 == 0  # grey mark; padded to 4 bytes
        jpg, colour = rebuild(frame.payload, 320, 240)
        assert not colour
        img = cv2.imdecode(np.frombuffer(jpg, np.uint8), cv2.IMREAD_GRAYSCALE)
        assert img is not None and img.shape == (240, 320)
        assert 2 < img.mean() < 200 and img.std() > 1  # a real (dark) scene, not a blank
