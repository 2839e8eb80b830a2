"""The .bin reader/writer: round trips, PyCozmo compatibility, and hostile input."""

from __future__ import annotations

import io
import shutil
import struct
import subprocess
from dataclasses import replace
from pathlib import Path

import flatbuffers
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driver.animation import binfmt
from driver.animation.binfmt import BinFormatError, read_bin, scan_clip_names
from driver.animation.binwrite import write_bin
from driver.animation.clip import Clip, Event, HeadAngle, PlaybackHints
from driver.animation.CozmoAnim import AnimClip as fb_AnimClip
from driver.animation.CozmoAnim import AnimClips as fb_AnimClips
from driver.animation.CozmoAnim import HeadAngle as fb_HeadAngle
from driver.animation.CozmoAnim import Keyframes as fb_Keyframes
from tests.test_clip_model import clips, every_track_clip


def _sample_file() -> bytes:
    return write_bin([every_track_clip(), Clip("anim_second", head_angle=(HeadAngle(0, 10, 5),)), Clip("empty")])


def test_round_trip_every_keyframe_type():
    original = [every_track_clip(), Clip("empty")]
    data = write_bin(original)
    decoded = read_bin(data, source="mem.bin")
    assert decoded == original
    assert decoded[0].source == "mem.bin"
    assert write_bin(decoded) == data


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(clips(), max_size=3, unique_by=lambda c: c.name))
def test_round_trip_random_clips(original):
    data = write_bin(original)
    decoded = read_bin(data)
    assert decoded == original
    assert write_bin(decoded) == data


def test_playback_hints_are_not_stored_in_bin():
    clip = replace(Clip("hinted", event=(Event(0, "e"),)), playback=PlaybackHints(extendable=True))
    assert read_bin(write_bin([clip]))[0].playback == PlaybackHints()


def test_scan_names_reads_names_in_order(tmp_path):
    path = tmp_path / "lib.bin"
    path.write_bytes(_sample_file())
    assert scan_clip_names(path) == ["anim_every_track_01", "anim_second", "empty"]
    assert scan_clip_names(str(path)) == scan_clip_names(path.read_bytes())
    assert [c.name for c in read_bin(path)] == scan_clip_names(path)
    assert read_bin(path)[0].source == str(path)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # PyCozmo uses an old flatbuffers call
def test_pycozmo_reads_our_files_and_we_read_pycozmos():
    anim_encoder = pytest.importorskip("pycozmo.anim_encoder")
    # PyCozmo insists on 19 parameters per eye, as in the app's files.
    full = every_track_clip()
    full = replace(full, procedural_face=full.procedural_face[:1])
    theirs = anim_encoder.AnimClips.from_fb_stream(io.BytesIO(write_bin([full, Clip("empty")])))
    assert [c.name for c in theirs.clips] == ["anim_every_track_01", "empty"]
    assert len(theirs.clips[0].keyframes) == full.keyframe_count

    # A file written by PyCozmo's own writer (which always writes all ten vectors).
    head = anim_encoder.AnimHeadAngle(trigger_time_ms=10, duration_ms=90, angle_deg=-7, variability_deg=1)
    lift = anim_encoder.AnimLiftHeight(trigger_time_ms=0, duration_ms=50, height_mm=60)
    out = io.BytesIO()
    anim_encoder.AnimClips([anim_encoder.AnimClip("from_pycozmo", [head, lift])]).to_fb_stream(out)
    (clip,) = read_bin(out.getvalue())
    assert clip.name == "from_pycozmo"
    assert clip.head_angle == (HeadAngle(10, 90, -7, 1),)
    assert (clip.lift_height[0].height_mm, clip.lift_height[0].duration_time_ms) == (60, 50)


# --------------------------------------------------------------------------- hostile input


def _only_format_errors(fn, data: bytes) -> None:  # noqa: ANN001
    try:
        fn(data)
    except BinFormatError:
        pass


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=512))
def test_random_bytes_raise_only_format_errors(data):
    _only_format_errors(read_bin, data)
    _only_format_errors(scan_clip_names, data)


def test_every_truncation_raises_format_error():
    data = _sample_file()
    for n in range(len(data)):
        with pytest.raises(BinFormatError):
            read_bin(data[:n], source="cut.bin")
        try:
            scan_clip_names(data[:n])
        except BinFormatError:
            pass


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_corrupted_bytes_raise_only_format_errors(data):
    buf = bytearray(_sample_file())
    for _ in range(data.draw(st.integers(1, 8))):
        pos = data.draw(st.integers(0, len(buf) - 1))
        buf[pos] = data.draw(st.integers(0, 255))
    _only_format_errors(read_bin, bytes(buf))
    _only_format_errors(scan_clip_names, bytes(buf))


def test_error_names_the_file_and_reason(tmp_path):
    path = tmp_path / "garbage.bin"
    path.write_bytes(b"\xff" * 64)
    with pytest.raises(BinFormatError) as info:
        read_bin(path)
    assert info.value.file == str(path)
    assert "outside the file" in info.value.reason
    assert str(info.value).startswith(f"{path}: ")


def test_missing_file_is_a_format_error(tmp_path):
    with pytest.raises(BinFormatError, match="cannot read"):
        scan_clip_names(tmp_path / "nope.bin")


def test_too_short_file():
    with pytest.raises(BinFormatError, match="too short"):
        read_bin(b"\x04\x00\x00")


def test_non_utf8_name_is_rejected():
    data = bytearray(write_bin([Clip("anim_name_é")]))
    pos = bytes(data).index("é".encode())
    data[pos] = 0xFF
    with pytest.raises(BinFormatError, match="UTF-8"):
        scan_clip_names(bytes(data))


def test_vtable_out_of_range_is_rejected():
    data = bytearray(write_bin([Clip("anim_x")]))
    (root,) = struct.unpack_from("<I", data, 0)
    struct.pack_into("<i", data, root, -100000)  # soffset to a vtable far beyond the end
    with pytest.raises(BinFormatError, match="vtable"):
        read_bin(bytes(data))


def _table_with_extra_field(builder: flatbuffers.Builder, count: int, extra_slot: int) -> int:
    """A table with ``count`` slots whose ``extra_slot`` holds a value (a foreign field)."""
    builder.StartObject(count)
    builder.PrependInt32Slot(extra_slot, 7, 0)
    return builder.EndObject()


def test_foreign_schema_variant_is_detected():
    """Vector's variant of the schema adds tracks and fields Cozmo's does not have."""
    b = flatbuffers.Builder(256)
    extra_track = _table_with_extra_field(b, 1, 0)
    b.StartVector(4, 1, 4)
    b.PrependUOffsetTRelative(extra_track)
    vec = b.EndVector()
    b.StartObject(12)  # Keyframes with two more fields than Cozmo's ten
    b.PrependUOffsetTRelativeSlot(11, vec, 0)
    kfs = b.EndObject()
    name = b.CreateString("vector_anim")
    fb_AnimClip.AnimClipStart(b)
    fb_AnimClip.AnimClipAddName(b, name)
    fb_AnimClip.AnimClipAddKeyframes(b, kfs)
    clip = fb_AnimClip.AnimClipEnd(b)
    fb_AnimClips.AnimClipsStartClipsVector(b, 1)
    b.PrependUOffsetTRelative(clip)
    clips_vec = b.EndVector()
    fb_AnimClips.AnimClipsStart(b)
    fb_AnimClips.AnimClipsAddClips(b, clips_vec)
    b.Finish(fb_AnimClips.AnimClipsEnd(b))
    data = bytes(b.Output())
    for fn in (read_bin, scan_clip_names):
        with pytest.raises(BinFormatError, match="schema does not define"):
            fn(data)


def test_foreign_field_inside_a_keyframe_is_detected():
    b = flatbuffers.Builder(256)
    b.StartObject(5)  # a HeadAngle with a fifth field
    b.PrependUint32Slot(0, 10, 0)
    b.PrependInt32Slot(4, 99, 0)
    head = b.EndObject()
    data = _wrap_head_vector(b, [head])
    assert scan_clip_names(data) == ["c"]  # names are fine; the keyframe is not
    with pytest.raises(BinFormatError, match="HeadAngleKeyFrame\\[0\\]: HeadAngle has a field #4"):
        read_bin(data)


def _wrap_head_vector(b: flatbuffers.Builder, heads: list[int]) -> bytes:
    fb_Keyframes.KeyframesStartHeadAngleKeyFrameVector(b, len(heads))
    for h in reversed(heads):
        b.PrependUOffsetTRelative(h)
    vec = b.EndVector()
    fb_Keyframes.KeyframesStart(b)
    fb_Keyframes.KeyframesAddHeadAngleKeyFrame(b, vec)
    kfs = fb_Keyframes.KeyframesEnd(b)
    name = b.CreateString("c")
    fb_AnimClip.AnimClipStart(b)
    fb_AnimClip.AnimClipAddName(b, name)
    fb_AnimClip.AnimClipAddKeyframes(b, kfs)
    clip = fb_AnimClip.AnimClipEnd(b)
    fb_AnimClips.AnimClipsStartClipsVector(b, 1)
    b.PrependUOffsetTRelative(clip)
    clips_vec = b.EndVector()
    fb_AnimClips.AnimClipsStart(b)
    fb_AnimClips.AnimClipsAddClips(b, clips_vec)
    b.Finish(fb_AnimClips.AnimClipsEnd(b))
    return bytes(b.Output())


def _head(b: flatbuffers.Builder, t: int, angle: int) -> int:
    fb_HeadAngle.HeadAngleStart(b)
    fb_HeadAngle.HeadAngleAddTriggerTimeMs(b, t)
    fb_HeadAngle.HeadAngleAddAngleDeg(b, angle)
    return fb_HeadAngle.HeadAngleEnd(b)


def test_model_violations_in_a_file_become_format_errors():
    b = flatbuffers.Builder(256)
    later, earlier = _head(b, 100, 5), _head(b, 50, 6)
    data = _wrap_head_vector(b, [later, earlier])
    with pytest.raises(BinFormatError) as info:
        read_bin(data, source="order.bin")
    assert "track HeadAngle, keyframe 1" in str(info.value)
    assert "earlier than" in str(info.value)


def test_table_referenced_twice_is_rejected():
    """Sharing one table between many parents could make decoding explode."""
    b = flatbuffers.Builder(256)
    head = _head(b, 0, 1)
    data = _wrap_head_vector(b, [head, head])
    with pytest.raises(BinFormatError, match="referenced twice"):
        read_bin(data)


def test_oversized_vector_length_is_rejected():
    data = bytearray(write_bin([Clip("x")]))
    (root,) = struct.unpack_from("<I", data, 0)
    # The clips vector length lives just before the first clip offset; find it via the root's field.
    (soff,) = struct.unpack_from("<i", data, root)
    (field_off,) = struct.unpack_from("<H", data, root - soff + 4)
    vec_at = root + field_off
    (rel,) = struct.unpack_from("<I", data, vec_at)
    struct.pack_into("<I", data, vec_at + rel, 0x7FFFFFFF)
    with pytest.raises(BinFormatError, match="runs past the end"):
        scan_clip_names(bytes(data))


def test_oversized_file_is_refused_without_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(binfmt, "MAX_FILE_SIZE", 16)
    path = tmp_path / "big.bin"
    path.write_bytes(_sample_file())
    with pytest.raises(BinFormatError, match="too large"):
        scan_clip_names(path)


@pytest.mark.skipif(shutil.which("flatc") is None, reason="flatc (flatbuffers-compiler) is not installed")
def test_generated_code_matches_the_schema():
    script = Path(__file__).resolve().parents[1] / "tools" / "regen_flatbuffers.sh"
    result = subprocess.run(["bash", str(script), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
