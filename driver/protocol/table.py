"""The Cozmo message table: every message layout of firmware 2381, written down once.

This module is pure data. It says which messages exist, their ids, their field names, wire
types, array lengths and defaults, and the enumerations their fields use. Nothing here encodes
or decodes; :mod:`driver.protocol.codec` turns the table into message classes and precompiled
codecs at import time, so a layout is never written a second time anywhere else.

Conventions of the wire format (see ``shared/reference/protocol.md``): little-endian, IEEE
floats, ``bool`` is one byte, arrays with a length prefix store the element count, strings are
UTF-8 with a byte-count prefix. Ids 0x00-0xaf travel engine to robot, 0xb0-0xff robot to engine;
ids 0xf0-0xff are out-of-band EVENT packets, every other id is a sequenced COMMAND packet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum, IntFlag
from typing import Union

from .enums import (  # the enumerations the fields use, re-exported
    BodyColor,
    ImageEncoding,
    ImageResolution,
    ImageSendMode,
    MotorId,
    NvEntryTag,
    NvOperation,
    NvResult,
    ObjectType,
    PathEventType,
    RobotStatusFlag,
    UpAxis,
)
from .frame import PacketType

__all__ = [
    "BOOL",
    "F32",
    "F64",
    "FIRMWARE_VERSION",
    "FIRST_ROBOT_ID",
    "FIRST_EVENT_ID",
    "I8",
    "I16",
    "I32",
    "LIGHT_STATE",
    "MESSAGES",
    "STRUCTS",
    "U8",
    "U16",
    "U32",
    "U64",
    "BodyColor",
    "EnumClass",
    "Field",
    "FieldType",
    "FixedArray",
    "ImageEncoding",
    "ImageResolution",
    "ImageSendMode",
    "MessageSpec",
    "MotorId",
    "NvEntryTag",
    "NvOperation",
    "NvResult",
    "ObjectType",
    "PathEventType",
    "RobotStatusFlag",
    "Scalar",
    "String",
    "StructSpec",
    "UpAxis",
    "VarArray",
    "packet_type_for_id",
]

#: The firmware build whose layouts this table records.
FIRMWARE_VERSION = 2381
#: Message ids from here up travel robot to engine.
FIRST_ROBOT_ID = 0xB0
#: Message ids from here up are out-of-band EVENT packets.
FIRST_EVENT_ID = 0xF0


# --------------------------------------------------------------------------------------------
# Wire types


@dataclass(frozen=True)
class Scalar:
    """A fixed-size number: its name in the table, its :mod:`struct` code and its range."""

    name: str
    code: str
    size: int
    default: int | float | bool
    lo: int | float | None = None
    hi: int | float | None = None

    def __repr__(self) -> str:
        return self.name.upper()


U8 = Scalar("u8", "B", 1, 0, 0, 0xFF)
I8 = Scalar("i8", "b", 1, 0, -0x80, 0x7F)
U16 = Scalar("u16", "H", 2, 0, 0, 0xFFFF)
I16 = Scalar("i16", "h", 2, 0, -0x8000, 0x7FFF)
U32 = Scalar("u32", "I", 4, 0, 0, 0xFFFFFFFF)
I32 = Scalar("i32", "i", 4, 0, -0x80000000, 0x7FFFFFFF)
U64 = Scalar("u64", "Q", 8, 0, 0, 0xFFFFFFFFFFFFFFFF)
F32 = Scalar("f32", "f", 4, 0.0)
F64 = Scalar("f64", "d", 8, 0.0)
BOOL = Scalar("bool", "?", 1, False)


@dataclass(frozen=True)
class StructSpec:
    """A nested record with a fixed layout (LightState), usable as a field type."""

    name: str
    fields: tuple[Field, ...]
    doc: str = ""


@dataclass(frozen=True)
class FixedArray:
    """``length`` elements back to back, no prefix. ``u8`` arrays are carried as ``bytes``."""

    element: Scalar | StructSpec
    length: int


@dataclass(frozen=True)
class VarArray:
    """An element count (``u8`` or ``u16``) followed by that many elements."""

    element: Scalar
    length_type: Scalar = U16

    @property
    def max_length(self) -> int:
        """The largest element count the length prefix holds."""
        return (1 << 8 * self.length_type.size) - 1


@dataclass(frozen=True)
class String:
    """A byte count (``u8`` or ``u16``) followed by that many bytes of UTF-8."""

    length_type: Scalar = U16

    @property
    def max_length(self) -> int:
        """The largest byte count the length prefix holds."""
        return (1 << 8 * self.length_type.size) - 1


FieldType = Union[Scalar, StructSpec, FixedArray, VarArray, String]
#: The enumeration a field's integers name: an IntEnum, or an IntFlag for bit sets.
EnumClass = Union[type[IntEnum], type[IntFlag]]


@dataclass(frozen=True)
class Field:
    """One named field. ``default`` None means the wire type's natural zero value."""

    name: str
    type: FieldType
    default: object = None
    enum: EnumClass | None = None
    doc: str = ""


@dataclass(frozen=True)
class MessageSpec:
    """One message: packet type, id byte (None for packet-level messages) and fields in wire order."""

    name: str
    packet_type: PacketType
    id: int | None
    fields: tuple[Field, ...] = field(default=())
    doc: str = ""

    @property
    def from_robot(self) -> bool:
        """True for messages the robot sends (ids 0xb0 and up, and the Connect packet)."""
        if self.id is None:
            return self.packet_type == PacketType.CONNECT
        return self.id >= FIRST_ROBOT_ID


def packet_type_for_id(msg_id: int) -> PacketType:
    """The packet type a message id travels in: EVENT for 0xf0-0xff, COMMAND otherwise."""
    return PacketType.EVENT if msg_id >= FIRST_EVENT_ID else PacketType.COMMAND


# --------------------------------------------------------------------------------------------
# Table helpers (terse constructors keep the table readable)


def _f(name: str, ftype: FieldType, default: object = None, *, enum: EnumClass | None = None,
       doc: str = "") -> Field:
    return Field(name, ftype, default, enum, doc)


def _msg(msg_id: int, name: str, *fields: Field, doc: str = "") -> MessageSpec:
    return MessageSpec(name, packet_type_for_id(msg_id), msg_id, tuple(fields), doc)


def _packet(ptype: PacketType, name: str, *fields: Field, doc: str = "") -> MessageSpec:
    return MessageSpec(name, ptype, None, tuple(fields), doc)


LIGHT_STATE = StructSpec(
    "LightState",
    (
        _f("on_color", U16, doc="RGB555 colour while on; 0x8000 adds IR"),
        _f("off_color", U16, doc="RGB555 colour while off"),
        _f("on_frames", U8),
        _f("off_frames", U8),
        _f("transition_on_frames", U8),
        _f("transition_off_frames", U8),
        _f("offset", I16),
    ),
    doc="One LED's blink pattern: colours and 30 fps frame counts for each phase.",
)

#: Nested record types, for the codec builder.
STRUCTS: tuple[StructSpec, ...] = (LIGHT_STATE,)

_SPEED = (_f("speed_mmps", F32), _f("accel_mmps2", F32), _f("decel_mmps2", F32))


# --------------------------------------------------------------------------------------------
# The table

MESSAGES: tuple[MessageSpec, ...] = (
    # Packet-level messages: no id byte, the packet type alone names them.
    _packet(PacketType.CONNECT, "Connect", doc="The robot accepts the connection (answer to Reset)."),
    _packet(PacketType.DISCONNECT, "Disconnect", doc="The engine ends the connection."),
    _packet(
        PacketType.PING, "Ping",
        _f("time_sent_ms", F64), _f("counter", U32), _f("last", U32), _f("unknown", U8),
        doc="Keep-alive every 0.5 s; the robot echoes it, which gives the round-trip time.",
    ),
    _packet(PacketType.KEYFRAME, "Keyframe", doc="Marks an animation keyframe boundary."),

    # Engine -> robot.
    _msg(0x03, "LightStateCenter",
         _f("states", FixedArray(LIGHT_STATE, 3), doc="top, middle, bottom backpack lights"),
         _f("unknown", U8),
         doc="Blink patterns for the three middle backpack lights."),
    _msg(0x04, "CubeLights", _f("states", FixedArray(LIGHT_STATE, 4)),
         doc="Blink patterns for the four lights of the cube selected with CubeId."),
    _msg(0x05, "SetPropSlot", _f("factory_id", U32, doc="0 empties the slot (disconnects its cube)"),
         _f("slot", U8, doc="0-4: the object id the cube gets while connected"),
         doc="Connect the accessory with this factory id in a slot; the robot connects only when asked."),
    _msg(0x08, "StreamObjectAccel", _f("object_id", U32), _f("enable", BOOL),
         doc="Ask for ObjectAccel readings from a cube."),
    _msg(0x0A, "SetAccessoryDiscovery", _f("enable", BOOL),
         doc="Turn reporting of nearby accessories (ObjectAvailable) on or off."),
    _msg(0x0B, "SetHeadLight", _f("enable", BOOL), doc="The infrared head light."),
    _msg(0x10, "CubeId", _f("object_id", U32), _f("rotation_period_frames", U8),
         doc="Selects the cube the next CubeLights applies to."),
    _msg(0x11, "LightStateSide",
         _f("states", FixedArray(LIGHT_STATE, 2), doc="left, right (red only)"),
         _f("unknown", U8),
         doc="Blink patterns for the two side backpack lights."),
    _msg(0x25, "GetManufacturingInfo", doc="Start-up: the robot answers with ManufacturingID."),
    _msg(0x32, "DriveWheels",
         _f("lwheel_speed_mmps", F32), _f("rwheel_speed_mmps", F32),
         _f("lwheel_accel_mmps2", F32), _f("rwheel_accel_mmps2", F32),
         doc="Run both wheels at the given speeds until told otherwise."),
    _msg(0x33, "DriveWheelsCurvature",
         _f("speed_mmps", F32), _f("accel_mmps2", F32),
         _f("curvature_radius_mm", I16, 0x7FFF, doc="32767 drives straight, 0 turns on the spot"),
         doc="Drive along an arc (or straight, or on the spot) until told otherwise."),
    _msg(0x34, "MoveLift", _f("speed_rad_per_sec", F32), doc="Move the lift at a speed until stopped."),
    _msg(0x35, "MoveHead", _f("speed_rad_per_sec", F32), doc="Move the head at a speed until stopped."),
    _msg(0x36, "SetLiftHeight",
         _f("height_mm", F32), _f("max_speed_rad_per_sec", F32, 3.0),
         _f("accel_rad_per_sec2", F32, 20.0), _f("duration_sec", F32), _f("action_id", U8),
         doc="Move the lift to a height; AcknowledgeAction(action_id) precedes the motion."),
    _msg(0x37, "SetHeadAngle",
         _f("angle_rad", F32), _f("max_speed_rad_per_sec", F32, 15.0),
         _f("accel_rad_per_sec2", F32, 20.0), _f("duration_sec", F32), _f("action_id", U8),
         doc="Move the head to an angle; AcknowledgeAction(action_id) precedes the motion."),
    _msg(0x39, "TurnInPlace",
         _f("angle_rad", F32), _f("speed_rad_per_sec", F32), _f("accel_rad_per_sec2", F32),
         _f("angle_tolerance_rad", F32), _f("unknown4", U8), _f("unknown5", U8),
         _f("is_absolute", BOOL), _f("action_id", U8),
         doc="Turn the body by (or to) an angle."),
    _msg(0x3A, "TurnInPlaceAtSpeed", _f("speed_rad_per_sec", F32), _f("accel_rad_per_sec2", F32),
         doc="Spin on the spot until stopped."),
    _msg(0x3B, "StopAllMotors", doc="Stop wheels, head and lift."),
    _msg(0x3C, "ClearPath", _f("unknown", U16), doc="Forget the queued path segments."),
    _msg(0x3D, "AppendPathSegLine",
         _f("from_x", F32), _f("from_y", F32), _f("to_x", F32), _f("to_y", F32), *_SPEED,
         doc="Queue a straight path segment."),
    _msg(0x3E, "AppendPathSegArc",
         _f("center_x", F32), _f("center_y", F32), _f("radius_mm", F32),
         _f("start_angle_rad", F32), _f("sweep_rad", F32), *_SPEED,
         doc="Queue an arc path segment."),
    _msg(0x3F, "AppendPathSegPointTurn",
         _f("x", F32), _f("y", F32), _f("angle_rad", F32), _f("angle_tolerance_rad", F32),
         *_SPEED, _f("unknown", BOOL),
         doc="Queue a turn on the spot as a path segment."),
    _msg(0x40, "TrimPath", _f("head", U8), _f("tail", U8),
         doc="Drop segments from the front and back of the queued path."),
    _msg(0x41, "ExecutePath", _f("event_id", U16), _f("unknown", BOOL),
         doc="Follow the queued path; progress comes back as PathFollowingEvent(event_id)."),
    _msg(0x45, "SetOrigin",
         _f("unknown0", U32), _f("pose_frame_id", U32), _f("pose_origin_id", U32, 1),
         _f("pose_x", F32), _f("pose_y", F32), _f("unknown5", U32, 0x80000000),
         doc="Start-up: reset the pose frame; RobotState streaming starts after SyncTime."),
    _msg(0x4A, "IMURequest", _f("length_ms", U32),
         doc="Ask for a burst of raw IMU readings (IMURawDataChunk) lasting this long."),
    _msg(0x4B, "SyncTime", _f("timestamp", U32), _f("unknown", U32),
         doc="Start-up: align the robot clock; answered by SyncTimeAck, later RobotState starts."),
    _msg(0x4C, "EnableCamera",
         _f("image_send_mode", I8, ImageSendMode.STREAM, enum=ImageSendMode),
         _f("image_resolution", I8, ImageResolution.QVGA, enum=ImageResolution),
         doc="Start or stop the camera stream (ImageChunk events)."),
    _msg(0x57, "SetCameraParams",
         _f("gain", F32), _f("exposure_ms", U16), _f("auto_exposure_enabled", BOOL),
         doc="Camera gain and exposure."),
    _msg(0x58, "StartMotorCalibration", _f("head", BOOL), _f("lift", BOOL),
         doc="Recalibrate head and/or lift; progress comes back as MotorCalibration."),
    _msg(0x60, "EnableStopOnCliff", _f("enable", BOOL),
         doc="Let the robot stop its wheels by itself at a cliff."),
    _msg(0x64, "SetRobotVolume", _f("level", U16, doc="0-65535"), doc="Speaker volume."),
    _msg(0x66, "EnableColorImages", _f("enable", BOOL),
         doc="Colour camera images (they arrive at half width)."),
    _msg(0x81, "NvStorageOp",
         _f("tag", U32, NvEntryTag.INVALID, enum=NvEntryTag), _f("length", I32),
         _f("op", U8, enum=NvOperation), _f("unknown", U8), _f("data", VarArray(U8)),
         doc="Read, write or erase an entry of the robot's non-volatile storage."),
    _msg(0x8D, "AbortAnimation", doc="Drop the animation being streamed."),
    _msg(0x8E, "OutputAudio", _f("samples", FixedArray(U8, 744), doc="u-law codes"),
         doc="One animation frame (1/30 s) of speaker audio."),
    _msg(0x8F, "OutputSilence", doc="One animation frame with no audio."),
    _msg(0x91, "RecordHeading", doc="Remember the current heading (for TurnToRecordedHeading)."),
    _msg(0x92, "TurnToRecordedHeading", doc="Turn back to the remembered heading."),
    _msg(0x93, "AnimHead", _f("duration_ms", U8), _f("variability_deg", I8), _f("angle_deg", I8),
         doc="Animation keyframe: head angle."),
    _msg(0x94, "AnimLift", _f("duration_ms", U8), _f("variability_mm", U8), _f("height_mm", U8),
         doc="Animation keyframe: lift height."),
    _msg(0x97, "DisplayImage", _f("image", VarArray(U8), doc="run-length encoded 128x32 image"),
         doc="One face image for the OLED display."),
    _msg(0x98, "AnimBackpackLights",
         _f("colors", FixedArray(U16, 5), doc="RGB555: left, front, middle, back, right"),
         doc="Animation keyframe: backpack light colours."),
    _msg(0x99, "AnimBody", _f("speed", I16),
         _f("unknown", I16, 0x7FFF, doc="curvature radius; 32767 means straight ahead"),
         doc="Animation keyframe: body motion."),
    _msg(0x9A, "EndAnimation", doc="Marks the end of a streamed animation."),
    _msg(0x9B, "StartAnimation", _f("anim_id", U8),
         doc="Marks the start of a streamed animation (AnimationStarted echoes anim_id)."),
    _msg(0x9F, "EnableAnimationState", doc="Ask for AnimationState events; needed before animating."),
    _msg(0xA9, "ShutdownRobot", doc="Power the robot off."),
    _msg(0xAE, "WifiOff", _f("enable", BOOL), doc="Turn the robot's Wi-Fi access point off."),
    _msg(0xAF, "FirmwareUpdate", _f("chunk_id", U16), _f("data", FixedArray(U8, 1024)),
         doc="One chunk of a firmware image."),

    # Robot -> engine, sequenced.
    _msg(0xB0, "DebugData",
         _f("format_id", U16, doc="key into the log string tables' formatTable"),
         _f("unused", U16), _f("name_id", U16, doc="key into the nameTable"), _f("level", I8),
         _f("args", VarArray(U32, U8)),
         doc="A compact log line from the robot's firmware."),
    _msg(0xB4, "ObjectMoved",
         _f("timestamp", U32), _f("object_id", U32),
         _f("active_accel_x", F32), _f("active_accel_y", F32), _f("active_accel_z", F32),
         _f("axis_of_accel", U8, UpAxis.UNKNOWN, enum=UpAxis),
         doc="A cube started moving."),
    _msg(0xB5, "ObjectStoppedMoving", _f("timestamp", U32), _f("object_id", U32),
         doc="A cube came to rest."),
    _msg(0xB6, "ObjectTapped",
         _f("timestamp", U32), _f("object_id", U32), _f("num_taps", U8), _f("tap_time", U8),
         _f("tap_neg", I8), _f("tap_pos", I8),
         doc="A cube was tapped."),
    _msg(0xB9, "ObjectTapFiltered",
         _f("timestamp", U32), _f("object_id", U32), _f("time", U8), _f("intensity", U8),
         doc="A cube tap after the firmware's filtering."),
    _msg(0xC0, "CliffEvent",
         _f("timestamp", U32),
         _f("detected_flags", U8, doc="a bit per cliff sensor; Cozmo's one sensor sets bits 0 and 1"),
         _f("did_stop_for_cliff", BOOL),
         doc="A cliff was seen (held 500 ms to rule out a pick-up) or cleared (flags 0)."),
    _msg(0xC1, "PotentialCliff", doc="A cliff reading while stop-on-cliff is off."),
    _msg(0xC2, "SyncTimeAck", doc="Start-up: the robot's answer to SyncTime, about 30 ms later."),
    _msg(0xC3, "RobotPoked", doc="Someone poked the robot."),
    _msg(0xC4, "AcknowledgeAction", _f("action_id", U8),
         doc="The robot accepted a head/lift action; sent before the motion."),
    _msg(0xC6, "PathFollowingEvent",
         _f("event_id", U16), _f("event_type", U8, enum=PathEventType),
         doc="Progress of a path started with ExecutePath."),
    _msg(0xC7, "IMURawDataChunk",
         _f("accel", FixedArray(I16, 3), doc="mm/s², head frame"),
         _f("gyro", FixedArray(I16, 3), doc="mrad/s, head frame"),
         _f("order", U8, doc="0 for the first reading of a burst, 2 for the last"),
         _f("timestamp", U8),
         doc="One raw IMU reading of a burst asked for with IMURequest."),
    _msg(0xC9, "HardwareInfo", _f("serial_number_head", U32), _f("unknown1", U8), _f("unknown2", U8),
         doc="Start-up: the head's serial number."),
    _msg(0xCA, "AnimationStarted", _f("anim_id", U8), doc="A streamed animation started playing."),
    _msg(0xCB, "AnimationEnded", _f("anim_id", U8), doc="A streamed animation finished playing."),
    _msg(0xCD, "NvStorageOpResult",
         _f("tag", U32, NvEntryTag.INVALID, enum=NvEntryTag), _f("length", I32),
         _f("op", U8, enum=NvOperation), _f("result", I8, enum=NvResult), _f("data", VarArray(U8)),
         doc="Answer to NvStorageOp."),
    _msg(0xCE, "ObjectPowerLevel",
         _f("object_id", U32), _f("missed_packets", U32), _f("battery_level", U8),
         doc="A cube's battery level."),
    _msg(0xD0, "ObjectConnectionState",
         _f("object_id", U32), _f("factory_id", U32),
         _f("object_type", I32, ObjectType.INVALID, enum=ObjectType), _f("connected", BOOL),
         doc="A cube connected or disconnected."),
    _msg(0xD1, "MotorCalibration",
         _f("motor_id", U8, enum=MotorId), _f("calib_started", BOOL), _f("auto_started", BOOL),
         doc="A motor started or finished calibrating."),
    _msg(0xD4, "RobotStopped", _f("reason", U8), doc="The firmware stopped the motors by itself (at a cliff)."),
    _msg(0xD7, "ObjectUpAxisChanged",
         _f("timestamp", U32), _f("object_id", U32), _f("axis", U8, UpAxis.UNKNOWN, enum=UpAxis),
         doc="A cube was turned onto another face."),
    _msg(0xD8, "MotorAutoEnabled", _f("motor_id", U8, enum=MotorId), _f("enabled", BOOL),
         doc="The firmware switched a motor off or on by itself (the lift, when someone forces it)."),
    _msg(0xDB, "ButtonPressed", _f("pressed", BOOL), doc="The backpack button (hardware v5 and later)."),
    _msg(0xDD, "FallingStarted", _f("timestamp", U32), doc="The robot is in free fall."),
    _msg(0xDE, "FallingStopped",
         _f("timestamp", U32), _f("duration_ms", U32), _f("impact_intensity", F32),
         doc="The robot landed."),
    _msg(0xEC, "WiFiFlashID", _f("flash_id", U32), doc="Start-up: the id of the Wi-Fi chip's flash."),
    _msg(0xED, "ManufacturingID",
         _f("serial_number", U32),
         _f("body_hw_version", U32, doc="5 on production units, 7 on development units"),
         _f("body_color", I32, BodyColor.UNKNOWN, enum=BodyColor),
         doc="Start-up: answer to GetManufacturingInfo (body serial, hardware version, colour)."),
    _msg(0xEE, "FirmwareSignature", _f("unknown", U16), _f("signature", String()),
         doc='Start-up: JSON describing the firmware build, with "version": 2381.'),
    _msg(0xEF, "FirmwareUpdateResult", _f("byte_count", U32), _f("chunk_id", U16), _f("status", U8),
         doc="Progress of a firmware update."),

    # Robot -> engine, out-of-band events.
    _msg(0xF0, "RobotState",
         _f("timestamp", U32), _f("pose_frame_id", U32), _f("pose_origin_id", U32),
         _f("pose_x", F32), _f("pose_y", F32), _f("pose_z", F32),
         _f("pose_angle_rad", F32), _f("pose_pitch_rad", F32),
         _f("lwheel_speed_mmps", F32), _f("rwheel_speed_mmps", F32),
         _f("head_angle_rad", F32),
         _f("lift_angle_rad", F32, doc="-0.198 with the lift down; height = 45 + 66 sin(angle) mm"),
         _f("accel_x", F32), _f("accel_y", F32), _f("accel_z", F32),
         _f("gyro_x", F32), _f("gyro_y", F32), _f("gyro_z", F32),
         _f("battery_voltage", F32),
         _f("status", U32, enum=RobotStatusFlag),
         _f("cliff_data_raw", FixedArray(U16, 4)),
         _f("backpack_touch_sensor_raw", U16),
         _f("curr_path_segment", U8),
         doc="Proprioception, IMU, battery and status bits, about every 30 ms."),
    _msg(0xF1, "AnimationState",
         _f("timestamp", U32), _f("num_anim_bytes_played", I32), _f("num_audio_frames_played", I32),
         _f("enabled_anim_tracks", U8), _f("tag", U8), _f("client_drop_count", U8),
         doc="How far the robot got through the streamed animation; paces the 30 fps stream."),
    _msg(0xF2, "ImageChunk",
         _f("frame_timestamp", U32), _f("image_id", U32), _f("chunk_debug", U32),
         _f("image_encoding", I8, enum=ImageEncoding),
         _f("image_resolution", I8, enum=ImageResolution),
         _f("image_chunk_count", U8), _f("chunk_id", U8), _f("status", U16),
         _f("data", VarArray(U8)),
         doc="One piece of a camera image; chunks 0..image_chunk_count-1 share an image_id."),
    _msg(0xF3, "ObjectAvailable",
         _f("factory_id", U32), _f("object_type", I32, ObjectType.INVALID, enum=ObjectType),
         _f("rssi", I8),
         doc="An accessory advertised itself nearby."),
    _msg(0xF4, "ImageImuData",
         _f("image_id", U32), _f("rate_x", F32), _f("rate_y", F32), _f("rate_z", F32),
         _f("line_2_number", U8),
         doc="Gyro rates while an image was captured (for motion blur)."),
    _msg(0xF5, "ObjectAccel",
         _f("timestamp", U32), _f("object_id", U32),
         _f("accel_x", F32), _f("accel_y", F32), _f("accel_z", F32),
         doc="A cube's accelerometer reading (after StreamObjectAccel)."),
)
