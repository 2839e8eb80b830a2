"""Format dispatch and the `anim convert` entry point."""

from __future__ import annotations

import io
import json
import logging

import pytest

from brain.app.cli import main
from driver.animation.binfmt import BinFormatError, read_bin
from driver.animation.binwrite import write_bin
from driver.animation.clip import BackpackLights, Clip, Event, HeadAngle
from driver.animation.convert import ConvertError, convert, load_clips, save_clips
from driver.animation.timeline import light_colors
from driver.protocol.messages import rgb555
from tests.conftest import REPO
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


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # PyCozmo uses an old flatbuffers call
def test_light_colours_written_as_0_255_by_another_tool_convert_play_and_are_warned(tmp_path, caplog, capsys):
    """PyCozmo writes backpack light colours as 0-255 where Anki's files have fractions of full brightness."""
    enc = pytest.importorskip("pycozmo.anim_encoder")
    lights = enc.AnimBackpackLights(trigger_time_ms=0, duration_ms=500, left=enc.AnimLight(255, 0, 0, 0),
                                    front=enc.AnimLight(0, 128, 255, 0), middle=enc.AnimLight(255, 255, 255, 0))
    out = io.BytesIO()
    enc.AnimClips([enc.AnimClip("anim_from_pycozmo_01", [lights])]).to_fb_stream(out)
    animations = tmp_path / "mine" / "cozmo_resources" / "assets" / "animations"
    animations.mkdir(parents=True)
    src = animations / "from_pycozmo.bin"
    src.write_bytes(out.getvalue())

    caplog.set_level(logging.WARNING, logger="driver.animation.convert")
    assert convert(src, tmp_path / "mid.json") == 0
    assert "Left (255, 0, 0, 0) is outside 0..1: read as a 0-255 colour" in caplog.text
    written = json.loads((tmp_path / "mid.json").read_text())
    assert '"Left": [255.0, 0.0, 0.0, 0.0]' in json.dumps(written)  # kept as written
    assert convert(tmp_path / "mid.json", tmp_path / "back.bin") == 0
    (clip,) = read_bin(src)
    assert read_bin(tmp_path / "back.bin") == [clip]

    # played as the colours meant: the same as the fractions Anki's files would carry
    meant = BackpackLights(0, 500, left=(1.0, 0.0, 0.0, 0.0), front=(0.0, 128 / 255, 1.0, 0.0),
                           middle=(1.0, 1.0, 1.0, 0.0))
    assert light_colors(clip.backpack_lights[0]) == light_colors(meant)
    assert light_colors(meant)[0] == rgb555(255, 0, 0)

    assert main(["check", "--resources", str(tmp_path / "mine"), "--resources", str(REPO / "resources"), "-q"]) == 0
    report = capsys.readouterr().out
    assert "warning: [1] assets/animations/from_pycozmo.bin: anim_from_pycozmo_01: BackpackLights" in report
    assert "read as a 0-255 colour" in report
