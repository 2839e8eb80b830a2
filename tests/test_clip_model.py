"""The clip model: defaults, derived values, float rounding and validation errors.

Also home of the sample clips and hypothesis strategies the format tests share.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import strategies as st

from driver.animation.clip import (
    EYE_PARAMETERS,
    BackpackLights,
    BodyMotion,
    Clip,
    ClipError,
    Event,
    FaceAnimation,
    HeadAngle,
    LiftHeight,
    Parameter,
    PlaybackHints,
    ProceduralFace,
    RecordHeading,
    RobotAudio,
    Track,
    TurnToRecordedHeading,
    f32,
    f32_text,
)
from driver.animation.textfmt import PARAMETERS

# --------------------------------------------------------------------------- shared samples


def every_track_clip(name: str = "anim_every_track_01") -> Clip:
    """One clip with keyframes on all ten tracks, using non-default values everywhere."""
    return Clip(
        name,
        lift_height=(LiftHeight(0, 100, 50, 3), LiftHeight(400, 250, 92)),
        procedural_face=(
            ProceduralFace(33, 1.5, 2.0, -3.0, 1.1, 0.9, tuple(i / 7 for i in range(19)), (0.1,) * 19),
            ProceduralFace(66, right_eye=(0.25, -0.5)),
        ),
        head_angle=(HeadAngle(0, 100, -20, 2), HeadAngle(100, 200, 44)),
        robot_audio=(RobotAudio(0, (3_123_456_789, 5), 0.7, (0.5, 0.25), False), RobotAudio(500, (42,))),
        backpack_lights=(
            BackpackLights(0, 500, (1, 0, 0, 1), (0, 1, 0, 0.5), (0, 0, 1, 1), (0.5, 0.5, 0.5, 1), (0, 0, 0, 0)),
        ),
        face_animation=(FaceAnimation(10, "anim_face sprite #2"),),
        event=(Event(20, "DEVICE_AUDIO_TRIGGER"), Event(700, "")),
        body_motion=(BodyMotion(0, 300, "STRAIGHT", 50), BodyMotion(300, 300, "-45.5", -20)),
        record_heading=(RecordHeading(0),),
        turn_to_recorded_heading=(
            TurnToRecordedHeading(600, 400, 90, -10, 500, 600, 5, 2, True),
            TurnToRecordedHeading(1000, 100, -30),
        ),
    )


def _times(unique: bool, max_size: int = 3) -> st.SearchStrategy[list[int]]:
    base = st.lists(st.integers(0, 4_000_000), max_size=max_size, unique=unique)
    return base.map(sorted)


_f32 = st.floats(allow_nan=False, allow_infinity=False, width=32)
_unit = st.floats(0.0, 1.0, width=32)
_text = st.text(max_size=12)
_radius = st.one_of(
    st.sampled_from(["STRAIGHT", "TURN_IN_PLACE"]),
    st.integers(-1000, 1000).map(str),
    st.floats(-1e4, 1e4, allow_nan=False).map(repr),
)


@st.composite
def clips(draw: st.DrawFn, unique_times: bool = False, with_hints: bool = False) -> Clip:
    """Random valid clips covering every field of every keyframe type."""

    def frames(build):  # noqa: ANN001, ANN202 - local helper
        return tuple(build(t) for t in draw(_times(unique_times)))

    rgba = st.tuples(_unit, _unit, _unit, _unit)
    eye = st.lists(_f32, max_size=len(EYE_PARAMETERS)).map(tuple)
    hints = PlaybackHints()
    if with_hints:
        names = draw(st.lists(st.sampled_from(sorted(PARAMETERS)), unique=True, max_size=3))
        params = []
        for n in names:
            if draw(st.booleans()):
                lo, mid, hi = sorted(draw(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=3, max_size=3)))
                params.append(Parameter(n, lo, mid, hi))
            else:
                params.append(Parameter(n))
        hints = PlaybackHints(
            extendable=draw(st.booleans()),
            truncatable=draw(st.booleans()),
            no_looping=draw(st.booleans()),
            bpm=draw(st.none() | st.floats(1.0, 400.0)),
            description=draw(st.text(max_size=20)),
            parameters=tuple(params),
        )
    return Clip(
        draw(st.text(min_size=1, max_size=16)),
        lift_height=frames(
            lambda t: LiftHeight(
                t, draw(st.integers(0, 2**32 - 1)), draw(st.integers(0, 255)), draw(st.integers(0, 255))
            )
        ),
        procedural_face=frames(lambda t: ProceduralFace(t, *(draw(_f32) for _ in range(5)), draw(eye), draw(eye))),
        head_angle=frames(
            lambda t: HeadAngle(t, draw(st.integers(0, 5000)), draw(st.integers(-128, 127)), draw(st.integers(0, 255)))
        ),
        robot_audio=frames(
            lambda t: RobotAudio(
                t,
                tuple(draw(st.lists(st.integers(0, 2**32 - 1), max_size=3))),
                draw(_unit),
                tuple(draw(st.lists(_unit, max_size=3))),
                draw(st.booleans()),
            )
        ),
        backpack_lights=frames(
            lambda t: BackpackLights(t, draw(st.integers(0, 5000)), *(draw(rgba) for _ in range(5)))
        ),
        face_animation=frames(lambda t: FaceAnimation(t, draw(_text))),
        event=frames(lambda t: Event(t, draw(_text))),
        body_motion=frames(
            lambda t: BodyMotion(t, draw(st.integers(0, 5000)), draw(_radius), draw(st.integers(-32768, 32767)))
        ),
        record_heading=frames(RecordHeading),
        turn_to_recorded_heading=frames(
            lambda t: TurnToRecordedHeading(
                t,
                draw(st.integers(0, 5000)),
                draw(st.integers(-32768, 32767)),
                draw(st.integers(-32768, 32767)),
                draw(st.integers(-32768, 32767)),
                draw(st.integers(-32768, 32767)),
                draw(st.integers(0, 65535)),
                draw(st.integers(0, 65535)),
                draw(st.booleans()),
            )
        ),
        playback=hints,
    )


# --------------------------------------------------------------------------- model behaviour


def test_schema_defaults():
    face = ProceduralFace(0)
    assert (face.face_angle, face.face_center_x, face.face_center_y) == (0.0, 0.0, 0.0)
    assert (face.face_scale_x, face.face_scale_y) == (1.0, 1.0)
    assert face.left_eye == face.right_eye == ()
    turn = TurnToRecordedHeading(0, 100, 90)
    assert (turn.offset_deg, turn.accel_deg_per_sec2, turn.decel_deg_per_sec2) == (0, 1000, 1000)
    assert (turn.tolerance_deg, turn.num_half_revs, turn.use_shortest_dir) == (2, 0, False)
    audio = RobotAudio(0, [1, 2])
    assert (audio.audio_event_id, audio.volume, audio.probability, audio.has_alts) == ((1, 2), 1.0, (), True)


def test_duration_and_tracks_used():
    clip = every_track_clip()
    assert clip.duration_ms == 1100  # the last turn: 1000 + 100
    assert clip.tracks_used() == frozenset(Track)
    small = Clip("small", head_angle=[HeadAngle(100, 250, 10)], event=[Event(500, "x")])
    assert small.tracks_used() == {Track.HEAD_ANGLE, Track.EVENT}
    assert small.duration_ms == 500
    assert Clip("empty").duration_ms == 0
    assert [kf.trigger_time_ms for kf in small.all_keyframes()] == [100, 500]
    assert small.keyframe_count == 2


def test_floats_are_stored_as_f32_so_formats_compare_equal():
    a = ProceduralFace(0, face_angle=0.1, left_eye=[0.1, 1 / 3])
    assert a.face_angle == f32(0.1) != 0.1
    assert a == ProceduralFace(0, face_angle=f32(0.1), left_eye=(f32(0.1), f32(1 / 3)))
    assert BackpackLights(0, 0, left=[0.3, 0.3, 0.3, 1]).left == tuple(f32(v) for v in (0.3, 0.3, 0.3, 1))


@pytest.mark.parametrize(
    "value, text",
    [(0.1, "0.1"), (1.0, "1.0"), (-3.0, "-3.0"), (1 / 3, "0.33333334"), (1e-8, "1e-08"), (3.4e38, "3.4e+38")],
)
def test_f32_text_is_shortest_exact(value, text):
    assert f32_text(value) == text
    assert f32(float(text)) == f32(value)


@pytest.mark.parametrize(
    "kwargs, track, index, fragment",
    [
        (dict(head_angle=(HeadAngle(100, 0, 1), HeadAngle(50, 0, 2))), "HeadAngle", 1, "earlier than"),
        (dict(head_angle=(HeadAngle(0, 0, 200),)), "HeadAngle", 0, "angle_deg: 200 is outside -128..127"),
        (dict(lift_height=(LiftHeight(0, 0, 300),)), "LiftHeight", 0, "height_mm: 300 is outside 0..255"),
        (dict(lift_height=(LiftHeight(-1, 0, 30),)), "LiftHeight", 0, "triggerTime_ms: -1 is outside"),
        (dict(backpack_lights=(BackpackLights(0, 0, left=(math.inf, 0, 0, 1)),)), "BackpackLights", 0, "finite"),
        (dict(backpack_lights=(BackpackLights(0, 0, back=(1, 0, 0)),)), "BackpackLights", 0, "expected 4 values"),
        (dict(procedural_face=(ProceduralFace(0, left_eye=(0.0,) * 20),)), "ProceduralFace", 0, "at most 19"),
        (dict(procedural_face=(ProceduralFace(0, face_angle=math.nan),)), "ProceduralFace", 0, "finite"),
        (dict(procedural_face=(ProceduralFace(0, face_scale_x=1e39),)), "ProceduralFace", 0, "finite"),
        (dict(body_motion=(BodyMotion(0, 0, "CURVY", 5),)), "BodyMotion", 0, "STRAIGHT, TURN_IN_PLACE or a number"),
        (dict(body_motion=(BodyMotion(0, 0, "STRAIGHT", 40000),)), "BodyMotion", 0, "speed: 40000"),
        (dict(robot_audio=(RobotAudio(0, (2**32,)),)), "RobotAudio", 0, "audio event ids"),
        (dict(robot_audio=(RobotAudio(0, (-1,)),)), "RobotAudio", 0, "audio event ids"),
        (dict(robot_audio=(RobotAudio(0, (1,), volume=1.5),)), "RobotAudio", 0, "outside 0..1"),
        (dict(robot_audio=(RobotAudio(0, (1,), probability=(2.0,)),)), "RobotAudio", 0, "outside 0..1"),
        (dict(event=(Event(0, 12),)), "Event", 0, "expected a string"),
        (
            dict(turn_to_recorded_heading=(TurnToRecordedHeading(0, 0, 5, tolerance_deg=-1),)),
            "TurnToRecordedHeading",
            0,
            "tolerance_deg",
        ),
        (dict(record_heading=(HeadAngle(0, 0, 0),)), "RecordHeading", 0, "expected a RecordHeading"),
    ],
)
def test_validation_names_clip_track_and_keyframe(kwargs, track, index, fragment):
    with pytest.raises(ClipError) as info:
        Clip("anim_bad", **kwargs)
    err = info.value
    assert (err.clip, err.track, err.index) == ("anim_bad", track, index)
    assert fragment in str(err)
    assert str(err).startswith(f"clip 'anim_bad', track {track}, keyframe {index}: ")


def test_clip_name_must_be_a_nonempty_string():
    with pytest.raises(ClipError, match="non-empty"):
        Clip("")


def test_equal_trigger_times_are_allowed_in_the_model():
    clip = Clip("same", event=(Event(10, "a"), Event(10, "b")))
    assert len(clip.event) == 2


def test_clips_are_immutable_and_source_is_not_compared():
    clip = every_track_clip()
    assert replace(clip, source="elsewhere.bin") == clip
    with pytest.raises(AttributeError):
        clip.name = "other"  # type: ignore[misc]


def test_light_colours_above_1_are_valid_and_warned() -> None:
    """Other tools write 0-255 colours: the clip keeps them (a file converts without loss) and says so."""
    clip = Clip("anim_lights_01", backpack_lights=(BackpackLights(40, 0, left=(255, 0, 0, 0)),))
    (warning,) = clip.warnings()
    assert warning == ("anim_lights_01: BackpackLights keyframe 0 (40 ms) Left (255, 0, 0, 0) is outside 0..1: "
                       "read as a 0-255 colour")
    assert Clip("anim_lights_02", backpack_lights=(BackpackLights(0, 0, left=(1, 0.5, 0, 1)),)).warnings() == []
    # a negative channel is no 0-255 colour: it is clamped, and the warning says so
    (negative,) = Clip("anim_lights_03", backpack_lights=(BackpackLights(0, 0, left=(-0.5, 0.5, 0, 1)),)).warnings()
    assert negative.endswith("Left (-0.5, 0.5, 0, 1) is outside 0..1: clamped to 0..1")
