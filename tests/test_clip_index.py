"""The lazy clip index: names only at build time, decoding on first use, bad files reported."""

from __future__ import annotations

import logging
from pathlib import Path

import flatbuffers
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driver.animation import binfmt
from driver.animation import index as index_module
from driver.animation.binfmt import BinFormatError
from driver.animation.binwrite import write_bin
from driver.animation.clip import Clip, Event, HeadAngle
from driver.animation.convert import save_clips
from driver.animation.CozmoAnim import AnimClip as fb_AnimClip
from driver.animation.CozmoAnim import AnimClips as fb_AnimClips
from driver.animation.CozmoAnim import Keyframes as fb_Keyframes
from driver.animation.index import ClipIndex, UnknownClipError


def _clip(name: str, angle: int = 5) -> Clip:
    return Clip(name, head_angle=(HeadAngle(0, 100, angle),))


def _names_fine_keyframes_broken(names: list[str], fine: tuple[str, ...] = ()) -> bytes:
    """A .bin whose clip names are valid but whose HeadAngle keyframes carry a foreign field
    (except the clips named in ``fine``).

    scan_clip_names accepts it (it never opens keyframe tables); read_bin rejects it.
    """
    b = flatbuffers.Builder(256)
    clip_offsets = []
    for name in names:
        broken = name not in fine
        b.StartObject(5 if broken else 4)  # HeadAngle has 4 fields; a fifth is not Cozmo's
        b.PrependUint32Slot(0, 10, 0)
        if broken:
            b.PrependInt32Slot(4, 99, 0)
        head = b.EndObject()
        fb_Keyframes.KeyframesStartHeadAngleKeyFrameVector(b, 1)
        b.PrependUOffsetTRelative(head)
        vec = b.EndVector()
        fb_Keyframes.KeyframesStart(b)
        fb_Keyframes.KeyframesAddHeadAngleKeyFrame(b, vec)
        kfs = fb_Keyframes.KeyframesEnd(b)
        name_off = b.CreateString(name)
        fb_AnimClip.AnimClipStart(b)
        fb_AnimClip.AnimClipAddName(b, name_off)
        fb_AnimClip.AnimClipAddKeyframes(b, kfs)
        clip_offsets.append(fb_AnimClip.AnimClipEnd(b))
    fb_AnimClips.AnimClipsStartClipsVector(b, len(clip_offsets))
    for off in reversed(clip_offsets):
        b.PrependUOffsetTRelative(off)
    vec = b.EndVector()
    fb_AnimClips.AnimClipsStart(b)
    fb_AnimClips.AnimClipsAddClips(b, vec)
    b.Finish(fb_AnimClips.AnimClipsEnd(b))
    return bytes(b.Output())


@pytest.fixture
def library(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    (a / "sub").mkdir(parents=True)
    b.mkdir()
    (a / "one.bin").write_bytes(write_bin([_clip("c1"), _clip("c2")]))
    (a / "sub" / "two.bin").write_bytes(write_bin([_clip("c3")]))
    (a / "garbage.bin").write_bytes(b"\x01\x02\x03 not flatbuffers at all")
    (a / "lazy.bin").write_bytes(_names_fine_keyframes_broken(["lazy1", "lazy2"]))
    (b / "dup.bin").write_bytes(write_bin([_clip("c1", angle=40), _clip("b_only")]))
    save_clips([Clip("from_json", event=(Event(0, "e"),))], b / "j.json")
    save_clips([Clip("from_text", event=(Event(0, "e"),))], b / "from_text.cozanim")
    (b / "config.json").write_text('{"decayGraphs": []}')
    (b / "notes.txt").write_text("not a clip")
    return a, b


def test_build_indexes_names_without_decoding(library, caplog):
    a, b = library
    caplog.set_level(logging.WARNING, logger="driver.animation.index")
    idx = ClipIndex.build([a, b])
    assert idx.names() == sorted(["c1", "c2", "c3", "lazy1", "lazy2", "b_only", "from_json", "from_text"])
    assert idx.files_scanned == 8
    assert idx.files_decoded == 0
    assert not any(idx.is_loaded(n) for n in idx)
    assert idx.location("c3").file == a / "sub" / "two.bin"
    assert idx.location("c2").position == 1
    # The garbage file is skipped, reported once, and logged once.
    assert [(p.name, "outside the file" in r or "misaligned" in r) for p, r in idx.errors] == [("garbage.bin", True)]
    assert caplog.text.count("garbage.bin") == 1


def test_keyframes_are_decoded_only_on_first_use(library):
    a, b = library
    idx = ClipIndex.build([a, b])
    # lazy.bin's keyframes are broken, its names are not: building did not decode it.
    assert "lazy1" in idx and not any(p.name == "lazy.bin" for p, _ in idx.errors)
    with pytest.raises(BinFormatError):
        idx.get("lazy1")
    assert [p.name for p, _ in idx.errors].count("lazy.bin") == 1
    with pytest.raises(BinFormatError):
        idx.get("lazy1")  # the failure is remembered, not re-reported
    assert [p.name for p, _ in idx.errors].count("lazy.bin") == 1
    with pytest.raises(BinFormatError, match="lazy2"):
        idx.get("lazy2")  # another clip of the file: decoded (and failing) on its own
    reasons = [r.split(".")[0] for p, r in idx.errors if p.name == "lazy.bin"]
    assert reasons == ["clips[0] ('lazy1')", "clips[1] ('lazy2')"]
    assert idx.files_decoded == 0


def test_a_bin_files_clip_is_decoded_alone(tmp_path):
    """Of a .bin file only the clip asked for is read: a broken neighbour does not stop it."""
    (tmp_path / "mixed.bin").write_bytes(_names_fine_keyframes_broken(["bad", "good"], fine=("good",)))
    idx = ClipIndex.build([tmp_path])
    assert idx.get("good").head_angle == (HeadAngle(10, 0, 0),)
    assert idx.is_loaded("good") and not idx.is_loaded("bad") and not idx.errors
    with pytest.raises(BinFormatError, match="bad"):
        idx.get("bad")
    assert idx.get("good") is idx.get("good") and idx.files_decoded == 1


def test_get_decodes_a_file_once_and_caches(library):
    a, b = library
    idx = ClipIndex.build([a, b])
    c1 = idx.get("c1")
    assert c1 == _clip("c1") and c1.source == str(a / "one.bin")
    assert idx.files_decoded == 1 and not idx.is_loaded("c2")
    assert idx.get("c2") == _clip("c2") and idx.is_loaded("c2")
    assert idx.get("c1") is c1
    assert idx.files_decoded == 1
    assert idx.get("from_text").event == (Event(0, "e"),)
    assert idx.get("from_json").name == "from_json"
    assert idx.files_decoded == 3


def test_first_root_wins_and_duplicates_are_reported(library):
    a, b = library
    idx = ClipIndex.build([a, b])
    assert idx.get("c1").head_angle[0].angle_deg == 5
    assert [(d.name, d.kept.name, d.ignored.name) for d in idx.duplicates] == [("c1", "one.bin", "dup.bin")]
    flipped = ClipIndex.build([b, a])
    assert flipped.get("c1").head_angle[0].angle_deg == 40


@pytest.mark.parametrize("source_first", [True, False])
def test_a_text_source_and_its_build_in_one_root_are_one_clip(tmp_path, caplog, source_first):
    # resources/ keeps src/animations/*.cozanim beside the .bin files built from them
    root = tmp_path / "resources"
    src, built = (root / "a_src", root / "b_built") if source_first else (root / "b_src", root / "a_built")
    src.mkdir(parents=True)
    built.mkdir()
    save_clips([_clip("anim_x_01", angle=1)], src / "anim_x_01.cozanim")
    save_clips([_clip("anim_y_01", angle=1)], src / "anim_y_01.cozanim")
    (built / "x.bin").write_bytes(write_bin([_clip("anim_x_01", angle=2), _clip("anim_x_02")]))
    caplog.set_level(logging.INFO, logger="driver.animation.index")
    idx = ClipIndex.build([root])
    assert idx.names() == ["anim_x_01", "anim_x_02", "anim_y_01"]
    assert idx.duplicates == [] and "already defined" not in caplog.text
    assert idx.sources_with_build == 1
    assert idx.location("anim_x_01").file == built / "x.bin"  # the build is used, wherever it is in the walk
    assert idx.get("anim_x_01").head_angle[0].angle_deg == 2
    assert idx.location("anim_y_01").file == src / "anim_y_01.cozanim"  # a source without a build still counts
    assert "1 sources beside their build" in caplog.text


def test_a_text_source_in_another_root_is_a_clash_not_a_build(tmp_path):
    user, own = tmp_path / "user", tmp_path / "own"
    user.mkdir()
    own.mkdir()
    save_clips([_clip("anim_x_01", angle=1)], user / "anim_x_01.cozanim")
    (own / "x.bin").write_bytes(write_bin([_clip("anim_x_01", angle=2)]))
    idx = ClipIndex.build([user, own])
    assert idx.get("anim_x_01").head_angle[0].angle_deg == 1  # the user's root comes first and wins
    assert [(d.kept.name, d.ignored.name) for d in idx.duplicates] == [("anim_x_01.cozanim", "x.bin")]
    assert idx.sources_with_build == 0


def test_unknown_names_and_missing_roots(library, tmp_path):
    a, _ = library
    idx = ClipIndex.build([a, tmp_path / "does_not_exist"])
    with pytest.raises(UnknownClipError, match="no animation clip named 'nope'"):
        idx.get("nope")
    with pytest.raises(KeyError):
        idx.location("nope")
    assert any("no such file" in r for _, r in idx.errors)


def test_a_single_file_can_be_a_root(library):
    a, _ = library
    idx = ClipIndex.build([a / "one.bin"])
    assert idx.names() == ["c1", "c2"]


def test_progress_is_logged_for_big_trees(library, caplog, monkeypatch):
    a, b = library
    monkeypatch.setattr(index_module, "PROGRESS_EVERY", 2)
    caplog.set_level(logging.INFO, logger="driver.animation.index")
    ClipIndex.build([a, b])
    assert "clip index: 2/8 files" in caplog.text
    assert "clip index: 8 clips in 8 files" in caplog.text


# --------------------------------------------------------------------------- the fast name scan


def _app_like_file() -> bytes:
    """Several clips with keyframes on most tracks, like the app's files."""
    clips = []
    for i in range(4):
        clips.append(Clip(
            f"anim_{i}_é" if i == 2 else f"anim_{i}",
            head_angle=tuple(HeadAngle(t * 100, 100, t) for t in range(3)),
            event=(Event(0, "TAP"),),
        ))
    return write_bin(clips)


def _verifier_names(data: bytes) -> list[str] | None:
    try:
        return [name for name, _ in binfmt._Verifier(data, "x").clips(names_only=True)]
    except Exception:  # noqa: BLE001 - any failure is a rejection
        return None


def test_fast_scan_reads_valid_files_without_the_verifier(tmp_path, monkeypatch):
    path = tmp_path / "app.bin"
    path.write_bytes(_app_like_file())

    def no_verifier(*_args: object) -> None:
        raise AssertionError("a valid file went through the slow path")

    monkeypatch.setattr(binfmt, "_Verifier", no_verifier)
    assert binfmt.scan_clip_names(path) == ["anim_0", "anim_1", "anim_2_é", "anim_3"]
    assert binfmt.scan_clip_names(write_bin([])) == []


def test_fast_scan_agrees_with_the_verifier_on_every_truncation():
    data = _app_like_file()
    for n in range(len(data) + 1):
        quick = binfmt._quick_clip_names(data[:n])
        if quick is not None:
            assert quick == _verifier_names(data[:n]), n
    assert binfmt._quick_clip_names(data) == _verifier_names(data) == ["anim_0", "anim_1", "anim_2_é", "anim_3"]


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_fast_scan_never_accepts_what_the_verifier_rejects(data):
    buf = bytearray(_app_like_file())
    # The names and table headers sit near the start (the builder writes back to front).
    limit = min(len(buf), 400) - 1
    for _ in range(data.draw(st.integers(1, 6))):
        buf[data.draw(st.integers(0, limit))] = data.draw(st.integers(0, 255))
    raw = bytes(buf)
    quick = binfmt._quick_clip_names(raw)
    expected = _verifier_names(raw)
    if quick is not None:
        assert quick == expected
    # Whatever the fast path decides, the public function gives the verifier's verdict.
    if expected is None:
        with pytest.raises(BinFormatError):
            binfmt.scan_clip_names(raw)
    else:
        assert binfmt.scan_clip_names(raw) == expected


def test_bad_files_are_still_reported_and_skipped(tmp_path):
    good = write_bin([_clip("good")])
    (tmp_path / "a_truncated.bin").write_bytes(good[: len(good) // 2])
    (tmp_path / "b_random.bin").write_bytes(bytes(range(7, 250, 3)))
    (tmp_path / "c_vector.bin").write_bytes(_vector_variant())
    (tmp_path / "d_good.bin").write_bytes(good)
    idx = ClipIndex.build([tmp_path])
    assert idx.names() == ["good"]
    reasons = {p.name: r for p, r in idx.errors}
    assert set(reasons) == {"a_truncated.bin", "b_random.bin", "c_vector.bin"}
    assert "schema does not define" in reasons["c_vector.bin"]
    assert idx.files_scanned == 4 and idx.build_seconds > 0


def _vector_variant() -> bytes:
    """A clip whose keyframes table has more tracks than Cozmo's ten (as Vector's schema does)."""
    b = flatbuffers.Builder(128)
    b.StartObject(12)
    b.PrependInt32Slot(11, 1, 0)
    kfs = b.EndObject()
    name = b.CreateString("vector_anim")
    fb_AnimClip.AnimClipStart(b)
    fb_AnimClip.AnimClipAddName(b, name)
    fb_AnimClip.AnimClipAddKeyframes(b, kfs)
    clip = fb_AnimClip.AnimClipEnd(b)
    fb_AnimClips.AnimClipsStartClipsVector(b, 1)
    b.PrependUOffsetTRelative(clip)
    vec = b.EndVector()
    fb_AnimClips.AnimClipsStart(b)
    fb_AnimClips.AnimClipsAddClips(b, vec)
    b.Finish(fb_AnimClips.AnimClipsEnd(b))
    return bytes(b.Output())


def test_locations_are_paths_and_symlinked_folders_are_not_followed(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "r.bin").write_bytes(write_bin([_clip("r")]))
    root = tmp_path / "root"
    root.mkdir()
    (root / "x.BIN").write_bytes(write_bin([_clip("x")]))
    (root / "link").symlink_to(real, target_is_directory=True)
    idx = ClipIndex.build([str(root)])
    assert idx.names() == ["x"]  # upper-case extension accepted, the linked folder not walked
    loc = idx.location("x")
    assert isinstance(loc.file, Path) and loc.file == root / "x.BIN" and loc.position == 0
    assert idx.get("x") == _clip("x")
