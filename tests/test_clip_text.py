"""The .cozanim text format: semantics, exact round trips and file:line:column errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from driver.animation.clip import (
    BackpackLights,
    BodyMotion,
    Clip,
    ClipError,
    Event,
    HeadAngle,
    LiftHeight,
    Parameter,
    PlaybackHints,
    ProceduralFace,
    RecordHeading,
    RobotAudio,
    TurnToRecordedHeading,
)
from driver.animation.sound_ids import audio_event_id
from driver.animation.textfmt import (
    TextFormatError,
    clip_from_text,
    clip_to_text,
    read_text_file,
    scan_text_clip_name,
    write_text_file,
)
from tests.test_clip_model import clips, every_track_clip

DOC = Path(__file__).resolve().parents[1] / "docs" / "animation-text-format.md"


def parse(text: str, name: str = "wave.cozanim") -> Clip:
    return clip_from_text(text, source=name)


# --------------------------------------------------------------------------- round trips


def test_round_trip_every_keyframe_type():
    clip = every_track_clip()
    hinted = Clip(
        clip.name,
        **{t: getattr(clip, t) for t in ("head_angle", "lift_height", "procedural_face", "robot_audio",
                                          "backpack_lights", "face_animation", "event", "body_motion",
                                          "record_heading", "turn_to_recorded_heading")},
        playback=PlaybackHints(
            extendable=True,
            truncatable=True,
            no_looping=True,
            bpm=96.5,
            description="Waves  hello # twice",
            parameters=(Parameter("speed", 0.5, 1, 2), Parameter("head_multiplier")),
        ),
    )  # fmt: skip
    text = clip_to_text(hinted)
    assert parse(text) == hinted


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clips(unique_times=True, with_hints=True))
def test_round_trip_random_clips(clip):
    assert parse(clip_to_text(clip)) == clip


def test_file_name_is_the_clip_name(tmp_path):
    clip = Clip("anim_nod_01", head_angle=(HeadAngle(0, 100, 10),))
    path = tmp_path / "anim_nod_01.cozanim"
    write_text_file(clip, path)
    text = path.read_text()
    assert "\nname " not in text
    assert read_text_file(path) == clip
    assert scan_text_clip_name(path) == "anim_nod_01"
    other = tmp_path / "renamed.cozanim"
    write_text_file(clip, other)
    assert "name anim_nod_01" in other.read_text()
    assert scan_text_clip_name(other) == "anim_nod_01"
    assert read_text_file(other).name == "anim_nod_01"


def test_writer_refuses_two_keyframes_of_one_track_at_one_time():
    with pytest.raises(ClipError, match="two keyframes at 10 ms"):
        clip_to_text(Clip("dup", event=(Event(10, "a"), Event(10, "b"))))


def test_empty_clip_round_trips():
    assert parse(clip_to_text(Clip("nothing"))) == Clip("nothing")


# --------------------------------------------------------------------------- semantics

NOD = """\
# a nod
controls head lift      // two tracks
frequency 10

no parameters

head lift
-10  45
20   -     # the lift holds
-5   32
"""


def test_frequency_rows_and_implicit_durations():
    clip = parse(NOD)
    assert clip.name == "wave"
    assert clip.head_angle == (HeadAngle(0, 100, -10), HeadAngle(100, 100, 20), HeadAngle(200, 100, -5))
    assert clip.lift_height == (LiftHeight(0, 200, 45), LiftHeight(200, 100, 32))


def test_time_in_seconds_explicit_durations_and_defaults():
    text = """\
controls head audio events

no parameters

time   head  head_ms  audio_id  audio_volume  event
0      -5    300      1,2       -             -
0.25   30    -        -         -             "greet done"
0.5004 -     -        []        0.5           -
"""
    clip = parse(text)
    assert clip.head_angle == (HeadAngle(0, 300, -5), HeadAngle(250, 250, 30))
    assert clip.robot_audio == (RobotAudio(0, (1, 2)), RobotAudio(500, (), 0.5))
    assert clip.event == (Event(250, "greet done"),)


def test_audio_ids_may_be_sound_names_standing_for_their_wwise_ids():
    text = """\
controls audio
frequency 10

no parameters

audio_id
vo_yawn
vo_chirp_up,17
"""
    clip = parse(text)
    assert clip.robot_audio == (RobotAudio(0, (audio_event_id("vo_yawn"),)),
                                RobotAudio(100, (audio_event_id("vo_chirp_up"), 17)))
    assert audio_event_id("vo_yawn") == 2505266898  # FNV-1 32 of "vo_yawn"
    assert parse(clip_to_text(clip)) == clip  # written back as numbers


def test_wheels_columns():
    text = """\
controls wheels
name anim_wheels

no parameters

time_ms wheels           record_heading turn_speed_dps turn_shortest
0       50 STRAIGHT      1              -              -
100     -  -             -              90             1
300     20 TURN_IN_PLACE -              -              -
"""
    clip = parse(text)
    assert clip.name == "anim_wheels"
    assert clip.body_motion == (BodyMotion(0, 300, "STRAIGHT", 50), BodyMotion(300, 0, "TURN_IN_PLACE", 20))
    assert clip.record_heading == (RecordHeading(0),)
    assert clip.turn_to_recorded_heading == (TurnToRecordedHeading(100, 200, 90, use_shortest_dir=True),)


def test_lights_columns_and_an_end_row():
    text = """\
controls lights

no parameters

time_ms lights                        left_a
0       1 0 0 0 1 0 0 0 1 1 1 1 0 0 0 0.5
300     - - - - - - - - - - - - - - - -      # nothing but the end of the clip
"""
    assert parse(text).backpack_lights == (
        BackpackLights(0, 300, (1, 0, 0, 0.5), (0, 1, 0, 1), (0, 0, 1, 1), (1, 1, 1, 1), (0, 0, 0, 1)),
    )


def test_face_columns():
    text = """\
controls face
frequency 10

no parameters

face_anim face_angle face_center_x face_center_y face_scale_x face_scale_y l_center_x
blink     -          -             -             -            -            -
-         5          0             0             1            1            -3
"""
    clip = parse(text)
    assert clip.face_animation[0].anim_name == "blink"
    assert clip.procedural_face == (ProceduralFace(100, 5, 0, 0, 1, 1, (-3.0,), ()),)


def test_crlf_and_comment_only_lines_inside_sections():
    text = NOD.replace("frequency 10\n", "# options continue\nfrequency 10\n").replace("\n", "\r\n")
    assert parse(text) == parse(NOD)


def test_playback_options_and_parameters_reach_the_clip():
    text = NOD.replace("frequency 10\n", "frequency 10\nextendable\nno_looping\nbpm 120\ndescription  A  nod \n")
    text = text.replace("no parameters", "speed 0.5 1 2\nentry_ms")
    hints = parse(text).playback
    assert (hints.extendable, hints.truncatable, hints.no_looping, hints.bpm) == (True, False, True, 120.0)
    assert hints.description == "A  nod"
    assert hints.parameters == (Parameter("speed", 0.5, 1.0, 2.0), Parameter("entry_ms"))
    assert hints.parameter("speed").default == 1.0


def test_documented_examples_parse_and_round_trip():
    blocks = re.findall(r"```cozanim\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) >= 5
    for i, block in enumerate(blocks):
        clip = parse(block, f"example{i}.cozanim")
        assert clip.keyframe_count > 0
        assert parse(clip_to_text(clip)) == clip


# --------------------------------------------------------------------------- errors

BASE = """\
controls head lift
frequency 10

no parameters

head lift
-10  45
20   -
"""


def header(new: str) -> str:
    """BASE with its body header line replaced."""
    return BASE.replace("\nhead lift\n", "\n" + new)


def error(text: str) -> TextFormatError:
    with pytest.raises(TextFormatError) as info:
        parse(text)
    return info.value


def at(err: TextFormatError) -> tuple[int, int]:
    return err.line, err.column


@pytest.mark.parametrize(
    "text, line, column, fragment",
    [
        # sections
        ("", 1, 1, "missing Options section"),
        (BASE.replace("\nno parameters\n", "\n\nno parameters\n"), 4, 1, "two blank lines in a row"),
        ("controls head\nfrequency 10\n", 3, 1, "missing Parameters section"),
        ("controls head\n\nno parameters\n", 4, 1, "missing Body section"),
        (BASE + "\nhead\n", 10, 1, "a fourth section"),
        # options
        ("controls head\nloop\n\nno parameters\n\nhead\n1\n", 2, 1, "unknown option 'loop'"),
        ("  frequency 10\n\nno parameters\n\nhead\n1\n", 1, 1, "must have a `controls` line"),
        ("controls head legs\n\nno parameters\n\ntime_ms head\n0 1\n", 1, 15, "unknown track 'legs'"),
        ("controls head head\n\nno parameters\n\ntime_ms head\n0 1\n", 1, 15, "listed twice"),
        (BASE.replace("frequency 10", "frequency 10 20"), 2, 14, "takes 1 value, got 2"),
        (BASE.replace("frequency 10", "frequency"), 2, 11, "takes 1 value, got 0"),
        (BASE.replace("frequency 10", "frequency fast"), 2, 11, "non-numeric value 'fast'"),
        (BASE.replace("frequency 10", "frequency -1"), 2, 11, "must be positive"),
        (BASE.replace("frequency 10", "frequency 10\nextendable yes"), 3, 12, "takes 0 values, got 1"),
        (BASE.replace("frequency 10", "frequency 10\nbpm 1\nbpm 2"), 4, 1, "given twice (first on line 3)"),
        # parameters
        (BASE.replace("no parameters", "speeed 1 2 3"), 4, 1, "unknown parameter 'speeed'"),
        (BASE.replace("no parameters", "speed 1 2"), 4, 11, "MIN DEFAULT MAX (3 values) or none, got 2"),
        (BASE.replace("no parameters", "speed 1 x 3"), 4, 9, "non-numeric value 'x'"),
        (BASE.replace("no parameters", "speed 1 5 3"), 4, 9, "MIN <= DEFAULT <= MAX"),
        (BASE.replace("no parameters", "speed\nspeed"), 5, 1, "given twice"),
        (BASE.replace("no parameters", "# nothing"), 4, 1, "write `no parameters`"),
        # header
        (header("head lift neck\n"), 6, 11, "unknown column 'neck'"),
        (header("head lift head_angle_deg\n"), 6, 11, "duplicate column head_angle_deg"),
        (header("head\n"), 6, 5, "missing column for controlled track `lift`"),
        (header("head lift event\n"), 6, 11, "belongs to track `events`"),
        (header("head lift_ms\n"), 6, 13, "missing column lift_height_mm"),
        (header("time_ms head lift\n"), 6, 1, "both a time_ms column and the frequency option"),
        (BASE.replace("frequency 10\n", ""), 5, 1, "no time: add a `time`"),
        (BASE.replace("frequency 10\n", "").replace("\nhead lift\n", "\ntime time_ms head lift\n"), 5, 6,
         "only one time column"),
        ("controls face\nfrequency 1\n\nno parameters\n\nface_angle face_center_x face_center_y face_scale_x "
         "face_scale_y l_center_x l_scale_x\n", 6, 86, "missing column l_center_y"),
        # rows
        (BASE.replace("20   -\n", "20   -  7\n"), 8, 9, "wrong value count: the header has 2 columns, this row 3"),
        (BASE.replace("20   -\n", "20\n"), 8, 3, "wrong value count"),
        (BASE.replace("20   -\n", "up   -\n"), 8, 1, "non-numeric value 'up' in column head_angle_deg"),
        (BASE.replace("20   -\n", "2.5  -\n"), 8, 1, "takes whole numbers, got 2.5"),
        (BASE.replace("20   -\n", '"20" -\n'), 8, 1, "non-numeric value '20'"),
        (BASE.replace("20   -\n", "300  -\n"), 8, 1, "angle_deg: 300 is outside -128..127"),
        (BASE.replace("frequency 10\n", "").replace("head lift\n-10  45\n20   -\n",
                                                    "time_ms head lift\n0 -10 45\n0 20 -\n"), 7, 1,
         "time 0 is not after the previous row's (0 ms)"),
        (BASE.replace("frequency 10\n", "").replace("head lift\n-10  45\n20   -\n",
                                                    "time head lift\n0.1 -10 45\n0.1004 20 -\n"), 7, 1,
         "not after the previous row's (100 ms)"),
        (BASE.replace("frequency 10\n", "").replace("head lift\n-10  45\n20   -\n",
                                                    "time_ms head lift\n0.5 -10 45\n"), 6, 1, "whole number of ms"),
        (BASE.replace("frequency 10\n", "").replace("head lift\n-10  45\n20   -\n",
                                                    "time head lift\n-1 -10 45\n"), 6, 1, "is negative"),
        (header("head head_ms lift\n").replace("-10  45\n20   -\n", "-10 100 45\n-  30  -\n"), 8, 4,
         "value for head_ms in a row without a head_angle_deg keyframe"),
        ("controls wheels\nfrequency 1\n\nno parameters\n\nwheels\n10 -\n", 7, 4, "partial keyframe: body_radius"),
        ("controls wheels\nfrequency 1\n\nno parameters\n\nwheels\n10 CURVY\n", 7, 4, "non-numeric value 'CURVY'"),
        ("controls wheels\nfrequency 1\n\nno parameters\n\nrecord_heading\nyes\n", 7, 1, "takes 1 (a keyframe"),
        ("controls audio\nfrequency 1\n\nno parameters\n\naudio_id audio_alts\n1 maybe\n", 7, 3, "takes 0 or 1"),
        ("controls audio\nfrequency 1\n\nno parameters\n\naudio_id\n1,x-1\n", 7, 1, "or sound names, got 'x-1'"),
        ("controls face\nfrequency 1\n\nno parameters\n\nface_angle face_center_x face_center_y face_scale_x "
         "face_scale_y l_center_x l_center_y\n0 0 0 1 1 - 3\n", 7, 11, "must not have gaps"),
        ('controls events\nfrequency 1\n\nno parameters\n\nevent\n"open\n', 7, 1, "bad quoted string"),
    ],
)  # fmt: skip
def test_errors_report_line_and_column(text, line, column, fragment):
    err = error(text)
    assert fragment in err.reason, err
    assert at(err) == (line, column), err
    assert str(err).startswith(f"wave.cozanim:{line}:{column}: ")


def test_unreadable_file(tmp_path):
    path = tmp_path / "x.cozanim"
    path.write_bytes(b"controls head\xff\n")
    with pytest.raises(TextFormatError, match="not UTF-8"):
        read_text_file(path)
    with pytest.raises(TextFormatError, match="cannot read"):
        read_text_file(tmp_path / "missing.cozanim")
