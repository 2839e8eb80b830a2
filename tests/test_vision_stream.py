"""The camera stream: ImageChunk reassembly, the header-less JPEG rebuild, decoding; real chunks and fuzzing."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from PIL import Image

from driver.protocol import messages as m
from driver.vision.chunks import MAX_CHUNK_BYTES, ChunkReassembler, CompletedFrame, DropReason
from driver.vision.jpeg import (
    COLOR_HEADER_SIZE,
    GRAY_HEADER_SIZE,
    JpegError,
    header,
    minimize_jpeg,
    rebuild_jpeg,
)
from driver.vision.sample import CorruptFrame, decode_frame

from .vision_support import astronaut_face, chunk_messages, robot_messages, robot_payload, scene

pycozmo_camera = pytest.importorskip("pycozmo.camera", reason="PyCozmo 0.8.0 (the test extra) is the reference")


def _frames(chunks: list[Any], reassembler: ChunkReassembler | None = None) -> list[CompletedFrame]:
    r = reassembler or ChunkReassembler()
    out = []
    for i, msg in enumerate(chunks):
        frame = r.add_message(msg, i * 0.01)
        if frame is not None:
            out.append(frame)
    return out


# ---------------------------------------------------------------------------------- real chunks


def test_real_chunks_rebuild_to_clean_320x240_frames_like_pycozmo_decodes_them() -> None:
    decoded = []
    for excerpt, expected_ids in (("CAMERA", [0x21F6, 0x21F7, 0x21F8, 0x21F9]), ("ANIM", [0x217A])):
        r = ChunkReassembler()
        chunks = [msg for _, msg in robot_messages(excerpt) if isinstance(msg, m.ImageChunk)]
        frames = _frames(chunks, r)
        assert [f.image_id for f in frames] == expected_ids
        # the excerpt starts with the orphan tail of an image whose chunk 0 is not in it: one drop
        assert dict(r.dropped) == {DropReason.MISSED_START: 1}
        for frame in frames:
            assert (frame.width, frame.height) == (320, 240)
            assert frame.robot_time_ms > 0  # stamped on the last chunk only, and kept
            pixels = decode_frame(frame).pixels  # strict decoding: any libjpeg warning would raise
            assert pixels.shape == (240, 320) and pixels.dtype == np.uint8
            # PyCozmo's own rebuild, decoded by Pillow, gives the same picture
            theirs = pycozmo_camera.minigray_to_jpeg(np.frombuffer(frame.payload, np.uint8), 320, 240)
            reference = np.asarray(Image.open(io.BytesIO(theirs.tobytes())).convert("L"))
            assert np.array_equal(pixels, reference)
            decoded.append(pixels)
    assert len(decoded) == 5
    # dark real scenes with structure, not flat grey bands (no golden file exists for these frames)
    means = [float(p.mean()) for p in decoded]
    stds = [float(p.std()) for p in decoded]
    assert means[:4] == pytest.approx([11.27, 11.41, 11.17, 11.08], abs=0.01)
    assert means[4] == pytest.approx(20.19, abs=0.01)
    assert min(stds) > 4.0 and max(p.max() for p in decoded) > 150


def test_a_lost_real_chunk_drops_that_frame_and_the_next_one_still_comes_whole() -> None:
    chunks = [msg for _, msg in robot_messages("CAMERA") if isinstance(msg, m.ImageChunk)]
    lost = [c for c in chunks if not (c.image_id == 0x21F7 and c.chunk_id == 1)]  # 0x21F7's last chunk
    r = ChunkReassembler()
    assert [f.image_id for f in _frames(lost, r)] == [0x21F6, 0x21F8, 0x21F9]
    assert r.dropped == {DropReason.MISSED_START: 1, DropReason.MISSING_CHUNK: 1}

    swapped = list(chunks)
    i = next(k for k, c in enumerate(swapped) if c.image_id == 0x21F8 and c.chunk_id == 0)
    swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]  # 0x21F8's chunks out of order
    r = ChunkReassembler()
    assert [f.image_id for f in _frames(swapped, r)] == [0x21F6, 0x21F7, 0x21F9]
    assert r.dropped_total == 2 and r.completed == 3


# ---------------------------------------------------------------------------------- reassembly rules


def _payload() -> bytes:
    return robot_payload(scene(faces=((astronaut_face(), 100, 40, 120),)))


def test_frames_of_several_chunks_join_in_order_and_the_count_may_come_only_at_the_end() -> None:
    payload = _payload()
    assert len(payload) > 2 * 1080  # a picture needs several chunks
    chunks = chunk_messages(payload, 7, 1234)
    r = ChunkReassembler()
    frames = _frames(chunks + chunk_messages(payload, 8, 1300), r)
    assert [(f.image_id, f.robot_time_ms, f.chunks) for f in frames] == [(7, 1234, len(chunks)), (8, 1300, len(chunks))]
    assert frames[0].payload == payload
    # a sender that fills the count on every chunk is fine too
    every = [m.ImageChunk(**{**_fields(c), "image_chunk_count": len(chunks)}) for c in chunks]
    assert _frames(every)[0].payload == payload


def _fields(c: Any) -> dict[str, Any]:
    return {k: getattr(c, k) for k in ("frame_timestamp", "image_id", "chunk_debug", "image_encoding",
                                        "image_resolution", "image_chunk_count", "chunk_id", "status", "data")}


def test_duplicates_oversize_bad_counts_unknown_sizes_and_stale_frames_are_dropped_and_counted() -> None:
    payload = _payload()
    good = chunk_messages(payload, 1, 500)
    dup = [good[0], good[1], good[1], *good[2:]]
    r = ChunkReassembler()
    assert _frames(dup, r) == [] and r.dropped == {DropReason.MISSING_CHUNK: 1}

    big = m.ImageChunk(image_id=2, chunk_id=0, image_encoding=8, image_resolution=4,
                       data=b"\x00" * (MAX_CHUNK_BYTES + 1))
    r = ChunkReassembler()
    assert _frames([big, *chunk_messages(payload, 2, 600)[1:]], r) == []
    assert r.dropped == {DropReason.OVERSIZE: 1}  # the rest of that frame is not counted again

    short = [*good[:-1], m.ImageChunk(**{**_fields(good[-1]), "image_chunk_count": len(good) - 1})]
    r = ChunkReassembler()  # the last chunk says there are fewer chunks than arrived
    assert _frames(short, r) == [] and r.dropped == {DropReason.BAD_COUNT: 1}

    vga = [m.ImageChunk(**{**_fields(c), "image_resolution": 13}) for c in good]
    raw = [m.ImageChunk(**{**_fields(c), "image_encoding": 1, "image_id": 2}) for c in good]
    r = ChunkReassembler()
    assert _frames(vga + raw, r) == [] and r.dropped[DropReason.UNSUPPORTED] == 2

    r = ChunkReassembler()
    late = _frames(chunk_messages(payload, 5, 900) + chunk_messages(payload, 4, 850), r)
    assert [f.image_id for f in late] == [5] and r.dropped == {DropReason.STALE: 1}
    r.reset()  # a new connection: the robot's clock starts again
    assert [f.image_id for f in _frames(chunk_messages(payload, 6, 100), r)] == [6]

    # the robot's clock restarts within one connection (it rebooted faster than the link noticed):
    # a frame far behind the last one starts the count again instead of every later frame being stale
    r = ChunkReassembler()
    frames = _frames(chunk_messages(payload, 7, 60_000) + chunk_messages(payload, 8, 40)
                     + chunk_messages(payload, 9, 73), r)
    assert [f.image_id for f in frames] == [7, 8, 9] and r.dropped == {}


# ---------------------------------------------------------------------------------- the JPEG rebuild


def test_the_header_is_the_robots_and_the_rebuild_matches_pycozmo_byte_for_byte() -> None:
    assert (GRAY_HEADER_SIZE, COLOR_HEADER_SIZE) == (324, 334)
    payload = _payload()
    ours, color = rebuild_jpeg(payload, 320, 240)
    theirs = pycozmo_camera.minigray_to_jpeg(np.frombuffer(payload, np.uint8), 320, 240).tobytes()
    assert not color and ours == theirs[:len(ours)] and not theirs[len(ours):].strip(b"\x00")
    flat_color = b"\x01" + bytes.fromhex("28a28a") * 300  # 300 all-zero 16x8 MCUs
    ours, color = rebuild_jpeg(flat_color, 320, 240)
    theirs = pycozmo_camera.minicolor_to_jpeg(np.frombuffer(flat_color, np.uint8), 160, 240).tobytes()
    assert color and ours == theirs[:len(ours)]
    assert header(320, 240)[0x5E:0x62] == bytes((0, 240, 1, 64))


def test_a_robot_style_grey_frame_decodes_pixel_identical_to_the_original_jpeg() -> None:
    picture = scene(faces=((astronaut_face(), 60, 20, 200),), noise=4.0, seed=1)
    buf = io.BytesIO()
    Image.fromarray(picture).save(buf, "JPEG", quality=50, optimize=False)
    payload = minimize_jpeg(buf.getvalue()) + b"\xff\xff"
    frame = _frames(chunk_messages(payload, 3, 10))[0]
    decoded = decode_frame(frame)
    assert not decoded.color and decoded.pixels.shape == (240, 320)
    assert np.array_equal(decoded.pixels, np.asarray(Image.open(buf).convert("L")))


def test_a_colour_frame_is_widened_to_the_full_size() -> None:
    flat_color = b"\x01" + bytes.fromhex("28a28a") * 300 + b"\xff"
    frame = _frames(chunk_messages(flat_color, 1, 10))[0]
    decoded = decode_frame(frame)
    assert decoded.color and decoded.pixels.shape == (240, 320, 3) and decoded.gray.shape == (240, 320)
    assert np.all(decoded.pixels == 128)


def test_only_jpegs_with_the_robots_tables_can_be_minimized() -> None:
    buf = io.BytesIO()
    Image.fromarray(scene()).save(buf, "JPEG", quality=75)
    with pytest.raises(JpegError, match="quantisation"):
        minimize_jpeg(buf.getvalue())
    with pytest.raises(JpegError, match="SOI"):
        minimize_jpeg(b"not a jpeg")


def test_a_corrupt_payload_is_reported_as_corrupt_not_decoded_to_grey_bands() -> None:
    payload = bytearray(_payload())
    payload[200:260] = bytes(60)  # a damaged stretch of the scan
    frame = _frames(chunk_messages(bytes(payload), 9, 10))[0]
    with pytest.raises(CorruptFrame, match="image 9"):
        decode_frame(frame)
    half = _frames(chunk_messages(bytes(payload[: len(payload) // 2]), 10, 20))[0]
    with pytest.raises(CorruptFrame):
        decode_frame(half)
    with pytest.raises(JpegError):
        rebuild_jpeg(b"\x00\xff\xff", 320, 240)


# ---------------------------------------------------------------------------------- fuzzing

_chunk = st.fixed_dictionaries({
    "image_id": st.integers(0, 3),
    "chunk_id": st.integers(0, 4),
    "chunk_count": st.integers(0, 5),
    "frame_timestamp": st.integers(0, 2**32 - 1),
    "encoding": st.sampled_from([8, 8, 8, 9, 1, -1, 127]),
    "resolution": st.sampled_from([4, 4, 4, 0, 13, -128, 99]),
    "data": st.binary(max_size=64) | st.binary(min_size=MAX_CHUNK_BYTES - 2, max_size=MAX_CHUNK_BYTES + 2),
})


def _c(image_id: int, chunk_id: int, chunk_count: int) -> dict[str, Any]:
    return {"image_id": image_id, "chunk_id": chunk_id, "chunk_count": chunk_count, "frame_timestamp": 0,
            "encoding": 8, "resolution": 4, "data": bytes([image_id, chunk_id])}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_chunk, max_size=40))
# another image's chunk 1 is no part of this frame; late chunks of a dropped frame come between
@example([_c(1, 0, 0), _c(2, 1, 2)])
@example([_c(2, 0, 0), _c(1, 0, 0), _c(2, 0, 0), _c(2, 1, 0), _c(1, 1, 2)])
def test_any_sequence_of_chunks_yields_whole_frames_or_counted_drops(chunks: list[dict[str, Any]]) -> None:
    r = ChunkReassembler()
    # the chunks since the last frame boundary, in arrival order, each with the drops it caused
    run: list[tuple[dict[str, Any], int]] = []
    completed = used = 0
    for i, c in enumerate(chunks):
        dropped = r.dropped_total
        frame = r.add(received_at=float(i), **c)
        run.append((c, r.dropped_total - dropped))
        if frame is None:
            continue
        completed += 1
        # a frame is exactly chunks 0..n-1 of one image, in order, the last of them the last
        # input so far; between them come only late chunks of a frame already dropped, ignored
        # without a new drop
        n = frame.chunks
        mine = [k for k, (t, _) in enumerate(run) if t["image_id"] == frame.image_id][-n:]
        assert mine[-1] == len(run) - 1
        tail = [run[k][0] for k in mine]
        assert [t["chunk_id"] for t in tail] == list(range(n))
        between = [run[k] for k in range(mine[0], len(run)) if k not in mine]
        assert all(t["image_id"] != frame.image_id and new_drops == 0 for t, new_drops in between)
        assert tail[-1]["chunk_count"] == n
        assert frame.payload == b"".join(t["data"] for t in tail)
        assert all(len(t["data"]) <= MAX_CHUNK_BYTES for t in tail)
        used += n
        run.clear()
    assert r.completed == completed and r.chunks == len(chunks)
    # every chunk that ended no frame belongs to a dropped frame or to the frame still open
    assert r.dropped_total <= len(chunks) - used


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=3000), st.sampled_from([(320, 240), (160, 120), (16, 16)]))
def test_any_payload_rebuilds_or_is_refused_and_decoding_raises_only_corrupt_frame(
        payload: bytes, size: tuple[int, int]) -> None:
    try:
        jpeg, _ = rebuild_jpeg(payload, *size)
    except JpegError:
        return
    assert jpeg.startswith(b"\xff\xd8") and jpeg.endswith(b"\xff\xd9")
    frame = CompletedFrame(1, 0, 8, 4, size[0], size[1], payload, 1, 0.0, 0.0)
    try:
        decoded = decode_frame(frame)
    except CorruptFrame:
        return
    assert decoded.pixels.shape[:2] == (size[1], size[0])


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_damaging_a_real_style_payload_never_raises_anything_but_corrupt_frame(data: st.DataObject) -> None:
    payload = bytearray(_PAYLOAD)
    for _ in range(data.draw(st.integers(1, 5))):
        pos = data.draw(st.integers(0, len(payload) - 1))
        payload[pos] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(2, len(payload)))
    frame = CompletedFrame(1, 0, 8, 4, 320, 240, bytes(payload[:cut]), 1, 0.0, 0.0)
    try:
        pixels = decode_frame(frame).pixels
    except CorruptFrame:
        return
    # a damaged first byte may turn the grey mark into the colour one: either decodes to QVGA
    assert pixels.shape == ((240, 320) if payload[0] == 0 else (240, 320, 3))


_PAYLOAD = robot_payload(scene(noise=20.0, seed=3))
