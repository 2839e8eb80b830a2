"""The JSON clip format: lossless against .bin, flatc-compatible, precise errors."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driver.animation.binfmt import read_bin
from driver.animation.binwrite import write_bin
from driver.animation.clip import Clip, HeadAngle, ProceduralFace
from driver.animation.jsonfmt import (
    JsonFormatError,
    clips_from_json,
    clips_to_json,
    read_json_file,
    scan_json_clip_names,
    write_json_file,
)
from tests.test_clip_model import clips, every_track_clip

SCHEMA = Path(__file__).resolve().parents[1] / "driver" / "animation" / "cozmo_anim.fbs"


def test_round_trip_every_keyframe_type(tmp_path):
    original = [every_track_clip(), Clip("empty")]
    path = tmp_path / "clips.json"
    write_json_file(original, path)
    assert read_json_file(path) == original
    assert read_json_file(path)[0].source == str(path)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(clips(), max_size=3, unique_by=lambda c: c.name))
def test_bin_to_json_to_bin_is_byte_identical(original):
    data = write_bin(original)
    text = clips_to_json(read_bin(data))
    assert write_bin(clips_from_json(text)) == data


def test_floats_are_short_yet_exact():
    clip = Clip("f", procedural_face=(ProceduralFace(0, face_angle=0.1, left_eye=(1 / 3, 2.0, -1e-7)),))
    text = clips_to_json([clip])
    assert '"faceAngle": 0.1,' in text
    assert '"leftEye": [0.33333334, 2.0, -1e-07]' in text
    assert clips_from_json(text) == [clip]


def test_layout_mirrors_the_schema():
    data = json.loads(clips_to_json([every_track_clip()]))
    clip = data["clips"][0]
    assert clip["Name"] == "anim_every_track_01"
    assert set(clip["keyframes"]) == {
        "LiftHeightKeyFrame", "ProceduralFaceKeyFrame", "HeadAngleKeyFrame", "RobotAudioKeyFrame",
        "BackpackLightsKeyFrame", "FaceAnimationKeyFrame", "EventKeyFrame", "BodyMotionKeyFrame",
        "RecordHeadingKeyFrame", "TurnToRecordedHeadingKeyFrame",
    }  # fmt: skip
    assert clip["keyframes"]["TurnToRecordedHeadingKeyFrame"][0] == {
        "triggerTime_ms": 600, "durationTime_ms": 400, "offset_deg": -10, "speed_degPerSec": 90,
        "accel_degPerSec2": 500, "decel_degPerSec2": 600, "tolerance_deg": 5, "numHalfRevs": 2,
        "useShortestDir": True,
    }  # fmt: skip


def test_absent_fields_take_schema_defaults_and_short_track_names_work():
    text = json.dumps(
        {
            "clips": [
                {
                    "Name": "short",
                    "keyframes": {
                        "HeadAngle": [{"triggerTime_ms": 5, "angle_deg": 10.0}],
                        "ProceduralFaceKeyFrame": [{}],
                        "TurnToRecordedHeading": [{"speed_degPerSec": 30}],
                        "RobotAudio": [{"audioEventId": [7], "hasAlts": 0}],
                    },
                }
            ]
        }
    )
    (clip,) = clips_from_json(text)
    assert clip.head_angle == (HeadAngle(5, 0, 10),)
    assert clip.procedural_face == (ProceduralFace(0),)
    assert clip.turn_to_recorded_heading[0].accel_deg_per_sec2 == 1000
    assert clip.robot_audio[0].volume == 1.0 and clip.robot_audio[0].has_alts is False


def _error(text: str) -> JsonFormatError:
    with pytest.raises(JsonFormatError) as info:
        clips_from_json(text, source="walk.json")
    return info.value


def test_syntax_error_has_line():
    err = _error('{"clips": [\n  {"Name": "a",\n   "keyframes": {}\n  ,]}')
    assert err.line == 4
    assert str(err).startswith("walk.json:4: ")


def test_value_error_has_line_and_path():
    text = clips_to_json([every_track_clip()]).replace('"angle_deg": 44', '"angle_deg": 300')
    err = _error(text)
    lines = text.splitlines()
    assert '"angle_deg": 300' in lines[err.line - 1]
    assert err.path == "clips[0].keyframes.HeadAngleKeyFrame[1]"
    assert "angle_deg: 300 is outside -128..127" in str(err)


def test_type_error_points_at_the_field():
    text = clips_to_json([every_track_clip()]).replace('"volume": 0.7', '"volume": "loud"')
    err = _error(text)
    assert err.path == "clips[0].keyframes.RobotAudioKeyFrame[0].volume"
    assert '"volume": "loud"' in text.splitlines()[err.line - 1]
    assert "expected a number, got the string 'loud'" in str(err)


@pytest.mark.parametrize(
    "doc, path, fragment",
    [
        ({"clips": [{"Name": "a", "keyframes": {"Sprites": []}}]}, "clips[0].keyframes.Sprites", "unknown track"),
        ({"clips": [{"Name": "a", "keyframes": {"Event": [{}]}}]}, "clips[0].keyframes.Event[0]", "event_id"),
        ({"clips": [{"Name": "a", "keyframes": {"Event": [{"event_id": "e", "x": 1}]}}]},
         "clips[0].keyframes.Event[0].x", "unknown field"),
        ({"clips": [{"keyframes": {}}]}, "clips[0].Name", "expected the clip name"),
        ({"clips": [{"Name": "a", "keyframes": {"HeadAngle": [{"angle_deg": 1.5}]}}]},
         "clips[0].keyframes.HeadAngle[0].angle_deg", "expected an integer"),
        ({"clips": [{"Name": "a", "keyframes": {"Event": [], "EventKeyFrame": []}}]},
         "clips[0].keyframes.EventKeyFrame", "given twice"),
        ({"clips": {}}, "clips", "a list of clips"),
        ({"clip": []}, "clip", "unknown field"),
    ],
)  # fmt: skip
def test_structure_errors_name_the_path(doc, path, fragment):
    err = _error(json.dumps(doc, indent=1))
    assert err.path == path
    assert fragment in str(err)
    assert err.line is not None


def test_scan_names_skips_other_json(tmp_path):
    other = tmp_path / "mood_config.json"
    other.write_text('{"decayGraphs": []}')
    assert scan_json_clip_names(other) == []
    anim = tmp_path / "a.json"
    write_json_file([Clip("one"), Clip("two")], anim)
    assert scan_json_clip_names(anim) == ["one", "two"]
    broken = tmp_path / "b.json"
    broken.write_text('{"clips": [')
    with pytest.raises(JsonFormatError):
        scan_json_clip_names(broken)


def test_unreadable_file(tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(b'{"clips": ["\xff"]}')
    with pytest.raises(JsonFormatError, match="not UTF-8"):
        read_json_file(path)


@pytest.mark.skipif(shutil.which("flatc") is None, reason="flatc (flatbuffers-compiler) is not installed")
def test_flatc_reads_our_json_into_the_same_clips(tmp_path):
    original = [every_track_clip(), Clip("empty")]
    write_json_file(original, tmp_path / "clips.json")
    subprocess.run(
        ["flatc", "--no-warnings", "-b", "-o", str(tmp_path), str(SCHEMA), str(tmp_path / "clips.json")],
        check=True,
        capture_output=True,
    )
    assert read_bin(tmp_path / "clips.bin") == original
