"""The keyframe records of a clip: one frozen dataclass per Cozmo track, and the track enum.

These are the values every file format reads and writes, with the conventions they share
(floats rounded to IEEE single, schema field names, the errors raised for bad values). The
:class:`~driver.animation.clip.Clip` that holds them lives in :mod:`.clip`, which re-exports
everything public here.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar, Union

_F32 = struct.Struct("<f")

#: Names of the per-eye parameters of a procedural face, in file order (Cozmo has 19).
EYE_PARAMETERS: tuple[str, ...] = (
    "center_x",
    "center_y",
    "scale_x",
    "scale_y",
    "angle",
    "lower_inner_radius_x",
    "lower_inner_radius_y",
    "upper_inner_radius_x",
    "upper_inner_radius_y",
    "upper_outer_radius_x",
    "upper_outer_radius_y",
    "lower_outer_radius_x",
    "lower_outer_radius_y",
    "upper_lid_y",
    "upper_lid_angle",
    "upper_lid_bend",
    "lower_lid_y",
    "lower_lid_angle",
    "lower_lid_bend",
)

#: (table, field) pairs the schema marks ``(required)``: files must give them.
REQUIRED_FIELDS = frozenset(
    {
        ("RobotAudio", "audioEventId"),
        ("FaceAnimation", "animName"),
        ("Event", "event_id"),
        ("BodyMotion", "radius_mm"),
    }
)

#: Special values of BodyMotion.radius_mm besides a number of millimetres.
RADIUS_WORDS = ("STRAIGHT", "TURN_IN_PLACE")


class AnimationError(Exception):
    """Base of every error the animation package raises for bad clips or files."""


class ClipError(AnimationError, ValueError):
    """A clip breaks a rule of the model; the message names clip, track and keyframe."""

    def __init__(
        self,
        clip: str,
        message: str,
        track: str | None = None,
        index: int | None = None,
        field: str | None = None,
    ) -> None:
        self.clip = clip
        self.track = track
        self.index = index
        #: The schema name of the offending keyframe field, when one field is at fault.
        self.field = field
        self.reason = message
        where = f"clip {clip!r}"
        if track is not None:
            where += f", track {track}"
        if index is not None:
            where += f", keyframe {index}"
        super().__init__(f"{where}: {message}")


def f32(value: Any) -> Any:
    """Round a number to the nearest IEEE single, as the .bin stores it.

    Values too large for a single become ±inf (validation then rejects them); anything
    that is not a real number is returned unchanged so validation can name it.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    try:
        return _F32.unpack(_F32.pack(value))[0]
    except (OverflowError, struct.error):
        return math.copysign(math.inf, value)


def f32_text(value: float) -> str:
    """The shortest decimal text that reads back as the same 32-bit float (``0.1``, ``1.0``).

    Text formats use it so that files stay readable yet round-trip exactly.
    """
    target = f32(value)
    text = repr(target)
    for digits in range(1, 10):
        candidate = f"{target:.{digits}g}"
        if f32(float(candidate)) == target:
            text = candidate
            break
    if "e" not in text and "." not in text and "n" not in text:
        text += ".0"
    return text


def _f32_tuple(values: Any) -> Any:
    if isinstance(values, (list, tuple)):
        return tuple(f32(v) for v in values)
    return values


def _int_tuple(values: Any) -> Any:
    if isinstance(values, list):
        return tuple(values)
    return values


# --------------------------------------------------------------------------- keyframes


class Keyframe:
    """Common base of all keyframe records.

    Subclasses declare, as class attributes, how their fields map to the schema:
    ``SCHEMA`` is the FlatBuffers table name and ``FIELDS`` lists
    ``(python_name, schema_name, kind)`` where kind is one of the ``_CHECKS`` keys.
    """

    __slots__ = ()
    SCHEMA: ClassVar[str] = ""
    FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = ()
    trigger_time_ms: int
    # Every subclass is a frozen dataclass: its fields by keyword, dataclasses.fields() works.
    __dataclass_fields__: ClassVar[dict[str, Any]]

    if TYPE_CHECKING:

        def __init__(self, **fields: Any) -> None: ...

    @property
    def duration_ms(self) -> int:
        """How long this keyframe's action lasts: ``duration_time_ms`` where it has one, else 0."""
        return getattr(self, "duration_time_ms", 0)

    @property
    def end_ms(self) -> int:
        """When this keyframe's action is over: trigger time plus its duration if any."""
        return self.trigger_time_ms + self.duration_ms


@dataclass(frozen=True, slots=True)
class LiftHeight(Keyframe):
    """Move the lift to ``height_mm`` over ``duration_time_ms``."""

    trigger_time_ms: int
    duration_time_ms: int
    height_mm: int
    height_variability_mm: int = 0

    SCHEMA: ClassVar[str] = "LiftHeight"
    FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("trigger_time_ms", "triggerTime_ms", "uint"),
        ("duration_time_ms", "durationTime_ms", "uint"),
        ("height_mm", "height_mm", "ubyte"),
        ("height_variability_mm", "heightVariability_mm", "ubyte"),
    )


@dataclass(frozen=True, slots=True)
class ProceduralFace(Keyframe):
    """Show procedurally drawn eyes: whole-face transform plus per-eye parameters."""

    trigger_time_ms: int
    face_angle: float = 0.0
    face_center_x: float = 0.0
    face_center_y: float = 0.0
    face_scale_x: float = 1.0
    face_scale_y: float = 1.0
    left_eye: tuple[float, ...] = ()
    right_eye: tuple[float, ...] = ()

    SCHEMA: ClassVar[str] = "ProceduralFace"
    FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("trigger_time_ms", "triggerTime_ms", "uint"),
        ("face_angle", "faceAngle", "float"),
        ("face_center_x", "faceCenterX", "float"),
        ("face_center_y", "faceCenterY", "float"),
        ("face_scale_x", "faceScaleX", "float"),
        ("face_scale_y", "faceScaleY", "float"),
        ("left_eye", "leftEye", "eye"),
        ("right_eye", "rightEye", "eye"),
    )

    def __post_init__(self) -> None:
        for name in ("face_angle", "face_center_x", "face_center_y", "face_scale_x", "face_scale_y"):
            object.__setattr__(self, name, f32(getattr(self, name)))
        object.__setattr__(self, "left_eye", _f32_tuple(self.left_eye))
        object.__setattr__(self, "right_eye", _f32_tuple(self.right_eye))


@dataclass(frozen=True, slots=True)
class HeadAngle(Keyframe):
    """Tilt the head to ``angle_deg`` over ``duration_time_ms``."""

    trigger_time_ms: int
    duration_time_ms: int
    angle_deg: int
    angle_variability_deg: int = 0

    SCHEMA: ClassVar[str] = "HeadAngle"
    FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("trigger_time_ms", "triggerTime_ms", "uint"),
        ("duration_time_ms", "durationTime_ms", "uint"),
        ("angle_deg", "angle_deg", "byte"),
        ("angle_variability_deg", "angleVariability_deg", "ubyte"),
    )


@dataclass(frozen=True, slots=True)
class RobotAudio(Keyframe):
    """Play one of ``audio_event_id`` (Wwise event ids), chosen by ``probability``."""

    trigger_time_ms: int
    audio_event_id: tuple[int, ...]
    volume: float = 1.0
    probability: tuple[float, ...] = ()
    has_alts: bool = True

    SCHEMA: ClassVar[str] = "RobotAudio"
    FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("trigger_time_ms", "triggerTime_ms", "uint"),
        ("audio_event_id", "audioEventId", "longs"),
        ("volume", "volume", "float"),
        ("probability", "probability", "probs"),
        ("has_alts", "hasAlts", "bool"),
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "audio_event_id", _int_tuple(self.audio_event_id))
        object.__setattr__(self, "volume", f32(self.volume))
        object.__setattr__(self, "probability", _f32_tuple(self.probability))


@dataclass(frozen=True, slots=True)
class BackpackLights(Keyframe):
    """Set the five backpack LEDs; each colour is ``(r, g, b, a)`` floats in 0..1."""

    trigger_time_ms: int
    duration_time_ms: int
    left: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0)
    right: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0)
    front: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0)
    middle: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0)
    back: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0)

    SCHEMA: ClassVar[str] = "BackpackLights"
    FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("trigger_time_ms", "triggerTime_ms", "uint"),
        ("duration_time_ms", "durationTime_ms", "uint"),
        ("left", "Left", "rgba"),
        ("right", "Right", "rgba"),
        ("front", "Front", "rgba"),
        ("middle", "Middle", "rgba"),
        ("back", "Back", "rgba"),
    )
    #: The LED attribute names in schema order.
    LEDS: ClassVar[tuple[str, ...]] = ("left", "right", "front", "middle", "back")

    def __post_init__(self) -> None:
        for name in self.LEDS:
            object.__setattr__(self, name, _f32_tuple(getattr(self, name)))


@dataclass(frozen=True, slots=True)
class FaceAnimation(Keyframe):
    """Play the sprite sequence ``anim_name`` on the face display."""

    trigger_time_ms: int
    anim_name: str

    SCHEMA: ClassVar[str] = "FaceAnimation"
    FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("trigger_time_ms", "triggerTime_ms", "uint"),
        ("anim_name", "animName", "str"),
    )


@dataclass(frozen=True, slots=True)
class Event(Keyframe):
    """Tell the engine that ``event_id`` happened at this point of the clip."""

    trigger_time_ms: int
    event_id: str

    SCHEMA: ClassVar[str] = "Event"
    FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("trigger_time_ms", "triggerTime_ms", "uint"),
        ("event_id", "event_id", "str"),
    )


@dataclass(frozen=True, slots=True)
class BodyMotion(Keyframe):
    """Drive the treads: ``speed`` along an arc of ``radius_mm`` for ``duration_time_ms``.

    ``radius_mm`` is a string as in the schema: ``"STRAIGHT"``, ``"TURN_IN_PLACE"`` or a
    number of millimetres (its text is kept exactly, e.g. ``"-45.5"``).
    """

    trigger_time_ms: int
    duration_time_ms: int
    radius_mm: str
    speed: int

    SCHEMA: ClassVar[str] = "BodyMotion"
    FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("trigger_time_ms", "triggerTime_ms", "uint"),
        ("duration_time_ms", "durationTime_ms", "uint"),
        ("radius_mm", "radius_mm", "radius"),
        ("speed", "speed", "short"),
    )

    @property
    def radius_value(self) -> float | None:
        """The radius as a number of mm, or None for STRAIGHT / TURN_IN_PLACE."""
        if self.radius_mm in RADIUS_WORDS:
            return None
        return float(self.radius_mm)


@dataclass(frozen=True, slots=True)
class RecordHeading(Keyframe):
    """Remember the robot's current heading for a later TurnToRecordedHeading."""

    trigger_time_ms: int

    SCHEMA: ClassVar[str] = "RecordHeading"
    FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = (("trigger_time_ms", "triggerTime_ms", "uint"),)


@dataclass(frozen=True, slots=True)
class TurnToRecordedHeading(Keyframe):
    """Turn back to the recorded heading (plus ``offset_deg``) with the given profile."""

    trigger_time_ms: int
    duration_time_ms: int
    speed_deg_per_sec: int
    offset_deg: int = 0
    accel_deg_per_sec2: int = 1000
    decel_deg_per_sec2: int = 1000
    tolerance_deg: int = 2
    num_half_revs: int = 0
    use_shortest_dir: bool = False

    SCHEMA: ClassVar[str] = "TurnToRecordedHeading"
    FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("trigger_time_ms", "triggerTime_ms", "uint"),
        ("duration_time_ms", "durationTime_ms", "uint"),
        ("offset_deg", "offset_deg", "short"),
        ("speed_deg_per_sec", "speed_degPerSec", "short"),
        ("accel_deg_per_sec2", "accel_degPerSec2", "short"),
        ("decel_deg_per_sec2", "decel_degPerSec2", "short"),
        ("tolerance_deg", "tolerance_deg", "ushort"),
        ("num_half_revs", "numHalfRevs", "ushort"),
        ("use_shortest_dir", "useShortestDir", "bool"),
    )


AnyKeyframe = Union[
    LiftHeight,
    ProceduralFace,
    HeadAngle,
    RobotAudio,
    BackpackLights,
    FaceAnimation,
    Event,
    BodyMotion,
    RecordHeading,
    TurnToRecordedHeading,
]


class Track(str, Enum):
    """The ten keyframe tracks of a Cozmo clip, valued by their schema table name."""

    LIFT_HEIGHT = "LiftHeight"
    PROCEDURAL_FACE = "ProceduralFace"
    HEAD_ANGLE = "HeadAngle"
    ROBOT_AUDIO = "RobotAudio"
    BACKPACK_LIGHTS = "BackpackLights"
    FACE_ANIMATION = "FaceAnimation"
    EVENT = "Event"
    BODY_MOTION = "BodyMotion"
    RECORD_HEADING = "RecordHeading"
    TURN_TO_RECORDED_HEADING = "TurnToRecordedHeading"

    @property
    def attr(self) -> str:
        """The Clip attribute holding this track's keyframes."""
        return _TRACK_ATTR[self]

    @property
    def keyframe_type(self) -> type[Keyframe]:
        """The keyframe class of this track."""
        return KEYFRAME_TYPES[self]

    @property
    def vector_name(self) -> str:
        """The field name of this track in the schema's ``Keyframes`` table."""
        return self.value + "KeyFrame"


#: Track -> keyframe class, in the schema's ``Keyframes`` field order.
KEYFRAME_TYPES: dict[Track, type[Keyframe]] = {
    Track.LIFT_HEIGHT: LiftHeight,
    Track.PROCEDURAL_FACE: ProceduralFace,
    Track.HEAD_ANGLE: HeadAngle,
    Track.ROBOT_AUDIO: RobotAudio,
    Track.BACKPACK_LIGHTS: BackpackLights,
    Track.FACE_ANIMATION: FaceAnimation,
    Track.EVENT: Event,
    Track.BODY_MOTION: BodyMotion,
    Track.RECORD_HEADING: RecordHeading,
    Track.TURN_TO_RECORDED_HEADING: TurnToRecordedHeading,
}

_TRACK_ATTR: dict[Track, str] = {
    Track.LIFT_HEIGHT: "lift_height",
    Track.PROCEDURAL_FACE: "procedural_face",
    Track.HEAD_ANGLE: "head_angle",
    Track.ROBOT_AUDIO: "robot_audio",
    Track.BACKPACK_LIGHTS: "backpack_lights",
    Track.FACE_ANIMATION: "face_animation",
    Track.EVENT: "event",
    Track.BODY_MOTION: "body_motion",
    Track.RECORD_HEADING: "record_heading",
    Track.TURN_TO_RECORDED_HEADING: "turn_to_recorded_heading",
}
