"""The robot's physical facts, in one place, each with its source.

The robot mirror (:mod:`driver.robot`), the animation timeline, vision's geometry, the simulator's
body and camera, and the brain's behaviours all read these rather than keeping their own copies,
so a correction lands everywhere at once. Sources are those of ``shared/reference/hardware.md``
(§1 physical limits, §2 sensors and camera): VC-cfg is the robot's own configuration header in
Anki's engine, SDK the Cozmo SDK, PC PyCozmo 0.8.0, CS-D the engine's slip detector.

Pure data: numbers and one small dataclass, no behaviour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "ANIM_BUFFER_BYTES",
    "ANIM_BUFFER_FRAMES",
    "AUDIO_FRAME_PLAY_S",
    "CAMERA_FPS",
    "CAMERA_IN_HEAD_MM",
    "CLIFF_RAW_NO_FLOOR",
    "CLIFF_RAW_ON_FLOOR",
    "CLIFF_SENSOR_AHEAD_MM",
    "CALIBRATION_STARTS_S",
    "CHARGER_FLAG_DELAY_S",
    "CHARGE_RAIL_V",
    "CHARGING_MAX_S",
    "CHARGING_MIN_S",
    "DISPLAY_BLANK_AFTER_S",
    "HEAD_CALIBRATED_S",
    "LIFT_CALIBRATED_S",
    "HEAD_MAX_DEG",
    "HEAD_MAX_RAD",
    "HEAD_MIN_DEG",
    "HEAD_ARRIVED_RAD",
    "HEAD_MIN_RAD",
    "HEAD_SETTLE_RAD",
    "LIFT_ARM_MM",
    "LIFT_ARRIVED_MM",
    "LIFT_MAX_MM",
    "LIFT_MIN_MM",
    "LIFT_PIVOT_MM",
    "LIFT_SETTLE_MM",
    "MAX_BODY_ROTATION_ACCEL_RAD_S2",
    "MAX_BODY_ROTATION_DPS",
    "MAX_WHEEL_SPEED_MMPS",
    "NECK_MM",
    "POINT_TURN_ACCEL_RAD_S2",
    "QVGA",
    "RADIO_FRAME_S",
    "ROBOT_STATE_PERIOD_S",
    "TRACK_MM",
    "WHEEL_DIAMETER_MM",
    "WHEEL_GAIN",
    "CameraIntrinsics",
]

# -- head and lift (hardware.md §1; SDK, PC robot.py, VC-cfg)

#: The head's range (degrees; positive = up). The firmware's own config says −24.5 … 45; the SDK,
#: PyCozmo and the app clamp to these, and a real head's low stop reads −0.436 rad.
HEAD_MIN_DEG = -25.0
HEAD_MAX_DEG = 44.5
HEAD_MIN_RAD = math.radians(HEAD_MIN_DEG)
HEAD_MAX_RAD = math.radians(HEAD_MAX_DEG)

#: The lift's range (mm above the ground at its end): 32 rests it down (low dock), 92 carries.
LIFT_MIN_MM = 32.0
LIFT_MAX_MM = 92.0
#: The lift is an arm of LIFT_ARM_MM on a pivot LIFT_PIVOT_MM above the ground: the robot reports
#: the arm's angle, and its end is LIFT_PIVOT_MM + LIFT_ARM_MM * sin(angle) high (VC-cfg).
LIFT_PIVOT_MM = 45.0
LIFT_ARM_MM = 66.0

# -- wheels (hardware.md §1; VC-cfg, CS-D §4)

#: Distance between the treads' centres (mm): what turns wheel speeds into a turn rate. PyCozmo
#: uses 45; the robot's config and the engine's slip detector use 46.
TRACK_MM = 46.0
#: Wheel diameter (mm).
WHEEL_DIAMETER_MM = 29.0
#: The firmware's cap on a wheel's speed (mm/s); the SDK treats 200 as the useful maximum.
MAX_WHEEL_SPEED_MMPS = 220.0
#: The engine's cap on a turn in place (°/s): an animation's TURN_IN_PLACE body keyframe is clamped
#: to it when the clip is loaded, as a STRAIGHT or arc keyframe's speed is to MAX_WHEEL_SPEED_MMPS (VC-cfg).
MAX_BODY_ROTATION_DPS = 300.0
#: An animation's body keyframe of radius 0 is a turn in place whose speed the firmware reads in
#: °/s (not mm/s, as for the other radii), run by its steering controller, closed on its odometry,
#: at this angular acceleration (rad/s²; VC-anim, the firmware's animation controller).
POINT_TURN_ACCEL_RAD_S2 = 50.0
#: The firmware's angular acceleration for a point turn asked with none (TurnInPlaceAtSpeed or a
#: curvature of radius 0 with an acceleration of 0): MAX_BODY_ROTATION_DPS in rad/s times
#: 10000 mm/s² (its wheels' acceleration cap) over MAX_WHEEL_SPEED_MMPS, ≈ 238 rad/s² (VC-cfg).
MAX_BODY_ROTATION_ACCEL_RAD_S2 = math.radians(MAX_BODY_ROTATION_DPS) * 10000.0 / MAX_WHEEL_SPEED_MMPS
#: What share of a DriveWheels speed each wheel reaches, (left, right), driving forward and
#: backward: asked 40/40 mm/s, a real robot reported 27/29; asked -40/-40, -32/-34 (hardware.md
#: §1 "measured wheels", §7.12). The right wheel runs a little faster, so "straight" curves left.
#: The firmware's own turns and paths close the loop on its odometry and reach their targets.
WHEEL_GAIN = {"forward": (27.0 / 40.0, 29.0 / 40.0), "backward": (32.0 / 40.0, 34.0 / 40.0)}

# -- sensors and timing

#: How far ahead of the robot's origin (between the front wheels' axle) its one cliff sensor, at
#: the front underside, looks at the floor (mm). Cozmo has a single live cliff sensor
#: (hardware.md, "Cliff"); the offset is the sensor's place under the front lip.
CLIFF_SENSOR_AHEAD_MM = 30.0
#: What the cliff sensor reads (``cliff_data_raw[0]``; the other three entries of RobotState are
#: always 0): 870–890 over a table or the charger (hardware.md "Cliff", real captures), low where
#: the floor ends (no figure measured; the firmware's own threshold decides CLIFF_DETECTED).
CLIFF_RAW_ON_FLOOR = 880
CLIFF_RAW_NO_FLOOR = 20

#: The robot reports its state every 6 ticks of its 200 Hz control loop (s; VC-cfg, and robot
#: timestamps step by exactly 30 ms in real captures).
ROBOT_STATE_PERIOD_S = 0.030

#: Where a real head and lift come to rest after a move (hardware.md §1 and §7.12, CS-ctl HEAD and
#: LIFT): (offset past the target in the direction of the move, the move's length), going up and
#: going down. The head stops short going up (0.286 rad for 0.30 after 0.72 rad) and sinks past
#: going down (-0.292 for -0.25 after 0.54 rad); the lift overshoots going up (51.7 mm for 50 after
#: 17 mm) and sinks past going down (32.6 mm for 36 after 15.7 mm). A shorter move errs in
#: proportion (the simulator's reading of two measurements each, not a motor model).
HEAD_SETTLE_RAD = ((-0.014, 0.72), (0.042, 0.54))
LIFT_SETTLE_MM = ((1.7, 17.0), (3.4, 15.7))
#: How near its target the driver takes a head or lift to have arrived (with the robot's in-position
#: flag): beyond the settling errors above (2.4 degrees, 3.4 mm), so a real motor's move completes.
HEAD_ARRIVED_RAD = math.radians(3.0)
LIFT_ARRIVED_MM = 4.0

#: Frames leave the robot about every 33 ms (a 30 Hz radio frame), while RobotState is sampled
#: every 30 ms: about one frame in ten carries two states (hardware.md §2, §7.2).
RADIO_FRAME_S = 1.0 / 30.0

#: The animation buffer (hardware.md §4, §7.7): the engine keeps at most 14 audio frames and 8,192
#: bytes (whole messages, tag included) ahead of what AnimationState reports played; the robot
#: drops a frame that does not fit. It plays one audio frame every 33.5 ms (120 frames in 4.0 s
#: measured), a little slower than a host's 30 fps: a stream that does not pace itself by
#: AnimationState runs ahead and overflows.
ANIM_BUFFER_FRAMES = 14
ANIM_BUFFER_BYTES = 8192
AUDIO_FRAME_PLAY_S = 0.0335

#: The start-up motor calibration, in seconds after the engine's SyncTime (hardware.md §3; the real
#: capture hw_fw2457_first120.log: started 64 ms after, lift done at 0.82 s, head done at 1.32 s in
#: the same frame as the first RobotState, whose timestamp reads 1,305 ms). Both motors seek their
#: low stops meanwhile.
CALIBRATION_STARTS_S = 0.064
LIFT_CALIBRATED_S = 0.823
HEAD_CALIBRATED_S = 1.318

#: On the charger the battery field reads the charge rail, not the cell: a constant 4.672 V on a HW1.5
#: robot (hardware.md §2, CS-ctl STATE). IS_ON_CHARGER comes after this long on the contacts (s), and
#: IS_CHARGING lasts at least CHARGING_MIN_S and at most CHARGING_MAX_S (VC-bat).
CHARGE_RAIL_V = 4.672
CHARGER_FLAG_DELAY_S = 0.5
CHARGING_MIN_S = 5.0
CHARGING_MAX_S = 1800.0

#: The robot blanks its screen when no face image came for this long (s; hardware.md §4, the
#: engine's 30 s clamp and PyCozmo's animation controller).
DISPLAY_BLANK_AFTER_S = 30.0

# -- the head's geometry and the camera (hardware.md §2; SDK CameraConfig)

#: The head's pivot (mm) in the robot frame (x forward, y left, z up, origin between the front
#: wheels on the ground).
NECK_MM = (-13.0, 0.0, 49.0)
#: The camera (mm) in the head frame, relative to the pivot (x forward, z up): it tilts with the head.
CAMERA_IN_HEAD_MM = (17.52, 0.0, -8.0)
#: Camera frames a second when streaming QVGA grey (hardware.md "Camera": 14.99 fps measured).
CAMERA_FPS = 15.0


@dataclass(frozen=True, slots=True)
class CameraIntrinsics:
    """A pinhole camera: focal lengths and optical centre in pixels, for one image size.

    The defaults are a typical Cozmo's at QVGA (the SDK's ``CameraConfig``); each robot has its
    own factory calibration, which can be given instead and scaled to other resolutions.
    """

    fx: float = 288.87
    fy: float = 288.36
    cx: float = 155.11
    cy: float = 111.40
    width: int = 320
    height: int = 240

    def scaled(self, width: int, height: int) -> CameraIntrinsics:
        """The same camera at another resolution (x values scale with width, y with height)."""
        sx, sy = width / self.width, height / self.height
        return CameraIntrinsics(self.fx * sx, self.fy * sy, self.cx * sx, self.cy * sy, width, height)

    @property
    def hfov_deg(self) -> float:
        """Horizontal field of view (degrees)."""
        return math.degrees(2 * math.atan(self.width / (2 * self.fx)))

    @property
    def vfov_deg(self) -> float:
        """Vertical field of view (degrees)."""
        return math.degrees(2 * math.atan(self.height / (2 * self.fy)))


#: A typical Cozmo's camera at the resolution it streams (320 × 240).
QVGA = CameraIntrinsics()
