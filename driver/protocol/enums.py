"""The enumerations the Cozmo message table's fields use (firmware 2381).

Pure data, as :mod:`driver.protocol.table` is: the table names these as the ``enum`` of its
fields and re-exports them, so the rest of the code may import them from either module.
"""

from __future__ import annotations

from enum import IntEnum, IntFlag

__all__ = [
    "BodyColor",
    "ImageEncoding",
    "ImageResolution",
    "ImageSendMode",
    "MotorId",
    "NvEntryTag",
    "NvOperation",
    "NvResult",
    "ObjectType",
    "PathEventType",
    "RobotStatusFlag",
    "UpAxis",
]


class RobotStatusFlag(IntFlag):
    """Bits of ``RobotState.status``; cliff, pick-up, falling and charger exist only as these."""

    NONE = 0
    IS_MOVING = 0x1
    IS_CARRYING_BLOCK = 0x2
    IS_PICKING_OR_PLACING = 0x4
    IS_PICKED_UP = 0x8
    IS_BODY_ACC_MODE = 0x10
    IS_FALLING = 0x20
    IS_ANIMATING = 0x40
    IS_PATHING = 0x80
    LIFT_IN_POS = 0x100
    HEAD_IN_POS = 0x200
    IS_ANIM_BUFFER_FULL = 0x400
    IS_ANIMATING_IDLE = 0x800
    IS_ON_CHARGER = 0x1000
    IS_CHARGING = 0x2000
    CLIFF_DETECTED = 0x4000
    ARE_WHEELS_MOVING = 0x8000
    IS_CHARGER_OOS = 0x10000


class BodyColor(IntEnum):
    """Body colour reported in ManufacturingID."""

    UNKNOWN = -1
    WHITE_V10 = 0
    RESERVED = 1
    WHITE_V15 = 2
    CE_LM_V15 = 3  # collector's edition, liquid metal
    LE_BL_V16 = 4  # limited edition, blue
    DEV = 5


class UpAxis(IntEnum):
    """Which cube axis points up."""

    X_NEGATIVE = 0
    X_POSITIVE = 1
    Y_NEGATIVE = 2
    Y_POSITIVE = 3
    Z_NEGATIVE = 4
    Z_POSITIVE = 5
    NUM_AXES = 6
    UNKNOWN = 7


class ObjectType(IntEnum):
    """Object kinds in ObjectAvailable / ObjectConnectionState (only the ones a robot reports)."""

    INVALID = -1
    UNKNOWN = 0
    LIGHTCUBE1 = 1
    LIGHTCUBE2 = 2
    LIGHTCUBE3 = 3
    LIGHTCUBE_GHOST = 4
    CHARGER_BASIC = 13


class ImageEncoding(IntEnum):
    """Pixel encoding of camera ImageChunks."""

    NONE = 0
    RAW_GRAY = 1
    RAW_RGB = 2
    YUYV = 3
    BAYER = 4
    JPEG_GRAY = 5
    JPEG_COLOR = 6
    JPEG_COLOR_HALF_WIDTH = 7
    JPEG_MINIMIZED_GRAY = 8
    JPEG_MINIMIZED_COLOR = 9


class ImageResolution(IntEnum):
    """Camera resolutions; the robot streams QVGA (320x240)."""

    VERIFICATION_SNAPSHOT = 0
    QQQQVGA = 1
    QQQVGA = 2
    QQVGA = 3
    QVGA = 4
    CVGA = 5
    VGA = 6
    SVGA = 7
    XGA = 8
    SXGA = 9
    UXGA = 10
    QXGA = 11
    QUXGA = 12
    COUNT = 13
    NONE = 14


class ImageSendMode(IntEnum):
    """Whether the camera streams, sends one picture, or is off."""

    OFF = 0
    STREAM = 1
    SINGLE_SHOT = 2


class MotorId(IntEnum):
    """Motors named in MotorCalibration."""

    LEFT_WHEEL = 0
    RIGHT_WHEEL = 1
    LIFT = 2
    HEAD = 3


class PathEventType(IntEnum):
    """Progress of a path started with ExecutePath."""

    STARTED = 0
    INTERRUPTED = 1
    COMPLETED = 2


class NvOperation(IntEnum):
    """Operation on the robot's non-volatile storage."""

    READ = 0
    WRITE = 1
    ERASE = 2
    WIPE_ALL = 3


class NvResult(IntEnum):
    """Outcome of a non-volatile storage operation (negative = failure)."""

    OKAY = 0
    SCHEDULED = 1
    NO_DO = 2
    MORE = 3
    NOT_FOUND = -1
    NO_ROOM = -2
    ERROR = -3
    TIMEOUT = -4
    BUSY = -5
    BAD_ARGS = -6
    NO_MEM = -7
    LOOP = -8
    CORRUPT = -9


class NvEntryTag(IntEnum):
    """Well-known keys of the robot's non-volatile storage."""

    INVALID = 0xFFFFFFFF
    GAME_SKILL_LEVELS = 0x180000
    ONBOARDING_DATA = 0x181000
    GAME_UNLOCKS = 0x182000
    FACE_ENROLL_DATA = 0x183000
    FACE_ALBUM_DATA = 0x184000
    NURTURE_GAME_DATA = 0x194000
    INVENTORY_DATA = 0x195000
    LAB_ASSIGNMENTS = 0x196000
    SAVED_CUBE_IDS = 0x197000
    BIRTH_CERTIFICATE = 0x80000000
    CAMERA_CALIB = 0x80000001
    IMU_INFO = 0x80000006
