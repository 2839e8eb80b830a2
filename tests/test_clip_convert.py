"""Format dispatch and the `anim convert` entry point."""

from __future__ import annotations

import logging

import pytest

from driver.animation.binfmt import BinFormatError, read_bin, write_bin
from driver.animation.clip import Clip, Event, HeadAngle
from driver.animation.convert import ConvertError, convert, load_clips, save_clips
from tests.test_clip_model import every_track_clip

CLIPS = [every_track_clip(), Clip("anim two/odd name", head_angle=(HeadAngle(0, 100, 5),)), Clip("empty")]


@pytest.mark.parametrize("suffix", [".bin", ".json"])
def test_save_and_load_multi_clip_formats(tmp_path, suffix):
    path = tmp_path / f"lib{suffix}"
    assert save_clips(CLIPS, path) == [path]
    assert load_clips(path) == CLIPS


def test_bin_json_bin_through_convert_is_byte_identical(tmp_path):
    src = tmp_path / "in.bin"
    src.write_bytes(write_bin(CLIPS))
    assert convert(src, tmp_path / "mid.json") == 0
    assert convert(tmp_path / "mid.json", tmp_path / "out.bin") == 0
    assert (tmp_path / "out.bin").read_bytes() == src.read_bytes()


def test_multi_clip_to_text_writes_a_directory_and_back(tmp_path):
    src = tmp_path / "in.bin"
    src.write_bytes(write_bin(CLIPS))
    assert convert(src, tmp_path / "texts") == 0
    files = sorted(p.name for p in (tmp_path / "texts").iterdir())
    assert files == ["anim_every_track_01.cozanim", "anim_two_odd_name.cozanim", "empty.cozanim"]
    assert 'name "anim two/odd name"' in (tmp_path / "texts" / "anim_two_odd_name.cozanim").read_text()
    assert convert(tmp_path / "texts", tmp_path / "back.bin") == 0
    assert sorted(c.name for c in read_bin(tmp_path / "back.bin")) == sorted(c.name for c in CLIPS)
    assert {c.name: c for c in read_bin(tmp_path / "back.bin")} == {c.name: c for c in CLIPS}


def test_single_clip_to_a_text_file(tmp_path):
    src = tmp_path / "one.json"
    save_clips(CLIPS[:1], src)
    assert convert(src, tmp_path / "anim_every_track_01.cozanim") == 0
    assert load_clips(tmp_path / "anim_every_track_01.cozanim") == CLIPS[:1]


def test_errors_return_1_and_log(tmp_path, caplog):
    src = tmp_path / "in.bin"
    src.write_bytes(write_bin(CLIPS))
    caplog.set_level(logging.ERROR, logger="driver.animation.convert")
    assert convert(src, tmp_path / "out.txt") == 1
    assert "unknown animation file extension '.txt'" in caplog.text
    assert convert(src, tmp_path / "many.cozanim") == 1
    assert "holds exactly one clip, got 3" in caplog.text
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"nonsense")
    assert convert(bad, tmp_path / "x.json") == 1
    assert f"{bad}: " in caplog.text
    assert convert(tmp_path / "missing.bin", tmp_path / "x.json") == 1
    empty = tmp_path / "nothing"
    empty.mkdir()
    assert convert(empty, tmp_path / "x.bin") == 1
    assert "no animation clips found" in caplog.text


def test_load_dispatch_errors(tmp_path):
    with pytest.raises(ConvertError):
        load_clips(tmp_path / "clip.yaml")
    (tmp_path / "x.bin").write_bytes(b"")
    with pytest.raises(BinFormatError):
        load_clips(tmp_path / "x.bin")


def test_text_directory_target_is_created(tmp_path):
    written = save_clips([Clip("e1", event=(Event(0, "a"),))], tmp_path / "new" / "dir")
    assert [p.name for p in written] == ["e1.cozanim"]
