"""Typed samples of what the robot senses, in the style of the BOW data model.

One sample type per modality, explicit units in every field name, and a timestamp on every
sample: ``robot_time_ms`` is the robot's own clock (milliseconds since SyncTime) and
``received_at`` the host's monotonic clock in seconds when the sample arrived, so latency and
staleness can always be judged. Cozmo's extras (battery, cliff sensors, status flags) sit
beside the standard ones in the same style.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .protocol.table import RobotStatusFlag

#: RobotState.status bits, from the message table (the one place they are written down).
RobotStatus = RobotStatusFlag

#: The lift is an arm of LIFT_ARM_MM on a pivot LIFT_PIVOT_MM above the ground: the robot reports
#: the arm's angle, and the height of the lift's end is LIFT_PIVOT_MM + LIFT_ARM_MM * sin(angle).
LIFT_PIVOT_MM = 45.0
LIFT_ARM_MM = 66.0


def lift_height_mm(angle_rad: float) -> float:
    """The lift's height (mm) for the arm angle the robot reports (rad): −0.198 rad is 32 mm."""
    return LIFT_PIVOT_MM + LIFT_ARM_MM * math.sin(angle_rad)


def lift_angle_rad(height_mm: float) -> float:
    """The arm angle (rad) that puts the lift at ``height_mm`` (heights outside the arm's reach
    give the angle of the nearest reachable one)."""
    s = (height_mm - LIFT_PIVOT_MM) / LIFT_ARM_MM
    return math.asin(-1.0 if s < -1.0 else 1.0 if s > 1.0 else s)


@dataclass(frozen=True, slots=True)
class JointSample:
    """One joint: position and velocity in the unit named by ``unit`` (``rad`` or ``mm``; per second)."""

    name: str
    position: float
    unit: str


@dataclass(frozen=True, slots=True)
class ImuSample:
    """Accelerometer (mm/s²) and gyroscope (rad/s) of the head IMU."""

    accel_x_mmps2: float
    accel_y_mmps2: float
    accel_z_mmps2: float
    gyro_x_radps: float
    gyro_y_radps: float
    gyro_z_radps: float


@dataclass(frozen=True, slots=True)
class PoseSample:
    """Where the robot believes it is, relative to its origin (mm and radians)."""

    x_mm: float
    y_mm: float
    z_mm: float
    angle_rad: float
    pitch_rad: float
    frame_id: int
    origin_id: int


@dataclass(frozen=True, slots=True)
class ProprioceptionSample:
    """The kinematic state: head angle, lift angle and height, wheel speeds, IMU and pose.

    The robot reports the lift as the arm's angle (``lift_angle_rad``); ``lift_height_mm`` is the
    height that angle gives (:func:`lift_height_mm`), for code that thinks in heights, as the
    lift commands do.
    """

    robot_time_ms: int
    received_at: float
    head_angle_rad: float
    lift_angle_rad: float
    lift_height_mm: float
    left_wheel_mmps: float
    right_wheel_mmps: float
    imu: ImuSample
    pose: PoseSample

    @property
    def joints(self) -> tuple[JointSample, ...]:
        """The joints in BOW order with their units."""
        return (
            JointSample("head", self.head_angle_rad, "rad"),
            JointSample("lift", self.lift_angle_rad, "rad"),
            JointSample("wheel_left", self.left_wheel_mmps, "mm/s"),
            JointSample("wheel_right", self.right_wheel_mmps, "mm/s"),
        )


@dataclass(frozen=True, slots=True)
class BatterySample:
    """Battery voltage (V) and charger contact."""

    robot_time_ms: int
    received_at: float
    voltage_v: float
    on_charger: bool
    charging: bool


@dataclass(frozen=True, slots=True)
class TactileSample:
    """Raw touch and cliff sensor readings (unitless ADC counts)."""

    robot_time_ms: int
    received_at: float
    backpack_touch_raw: int
    cliff_raw: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RobotStateSample:
    """Everything one RobotState message says, split by modality."""

    proprioception: ProprioceptionSample
    battery: BatterySample
    tactile: TactileSample
    status: RobotStatus
    path_segment: int

    @property
    def received_at(self) -> float:
        """Host monotonic time of arrival (s)."""
        return self.proprioception.received_at

    def has(self, flag: RobotStatus) -> bool:
        """True when the status flag is set."""
        return bool(self.status & flag)


def state_from_message(msg: object, received_at: float) -> RobotStateSample:
    """Build a sample from a decoded RobotState message."""
    g = msg.__getattribute__
    t = int(g("timestamp"))
    status = RobotStatus(int(g("status")) & 0x1FFFF)
    lift = float(g("lift_angle_rad"))
    return RobotStateSample(
        proprioception=ProprioceptionSample(
            robot_time_ms=t,
            received_at=received_at,
            head_angle_rad=float(g("head_angle_rad")),
            lift_angle_rad=lift,
            lift_height_mm=lift_height_mm(lift),
            left_wheel_mmps=float(g("lwheel_speed_mmps")),
            right_wheel_mmps=float(g("rwheel_speed_mmps")),
            imu=ImuSample(
                float(g("accel_x")), float(g("accel_y")), float(g("accel_z")),
                float(g("gyro_x")), float(g("gyro_y")), float(g("gyro_z")),
            ),
            pose=PoseSample(
                float(g("pose_x")), float(g("pose_y")), float(g("pose_z")),
                float(g("pose_angle_rad")), float(g("pose_pitch_rad")),
                int(g("pose_frame_id")), int(g("pose_origin_id")),
            ),
        ),
        battery=BatterySample(
            t, received_at, float(g("battery_voltage")),
            bool(status & RobotStatus.IS_ON_CHARGER), bool(status & RobotStatus.IS_CHARGING),
        ),
        tactile=TactileSample(t, received_at, int(g("backpack_touch_sensor_raw")), tuple(g("cliff_data_raw"))),
        status=status,
        path_segment=int(g("curr_path_segment")),
    )


# ---------------------------------------------------------------------------- orientation

#: The robot's orientations, by their stable event names. Cozmo's engine called these OnTreads,
#: OnBack, OnFace, OnLeftSide and OnRightSide.
UPRIGHT = "upright"
ON_BACK = "on_back"
ON_FACE = "on_face"
ON_LEFT_SIDE = "on_left_side"
ON_RIGHT_SIDE = "on_right_side"
ORIENTATIONS: tuple[str, ...] = (UPRIGHT, ON_BACK, ON_FACE, ON_LEFT_SIDE, ON_RIGHT_SIDE)
#: Standard gravity in the accelerometer's unit (mm/s²).
GRAVITY_MMPS2 = 9810.0


@dataclass(frozen=True, slots=True)
class OrientationZones:
    """Where each orientation begins (``enter``) and where it is given up (``stay``), in degrees.

    The gravity direction is read as a pitch (nose up is positive: atan2(x, z)) and a sideways
    component (y / |g|, left is +y, so +1 means lying on the right side). Every ``stay`` band is
    wider than its ``enter`` band: a reading hovering at a border does not flap between two
    orientations. Cozmo's engine used similar figures: upright within 45° of level, on the back
    at 74.5° ± 15° of pitch (the lift props the body up), on the face beyond −80° or 110°, on a
    side at 9800 ± 3000 mm/s² sideways.
    """

    upright_enter_deg: float = 35.0
    upright_stay_deg: float = 45.0
    back_enter_deg: tuple[float, float] = (55.0, 110.0)
    back_stay_deg: tuple[float, float] = (45.0, 120.0)
    face_enter_deg: tuple[float, float] = (-70.0, 125.0)   # pitch below the first or above the second
    face_stay_deg: tuple[float, float] = (-60.0, 115.0)
    side_enter: float = 0.8    # |y| / |g|
    side_stay: float = 0.65
    flat_side_max: float = 0.5  # |y| / |g| allowed while upright, on the back or on the face


class OrientationDetector:
    """Turns a stream of accelerometer readings into confirmed orientation changes.

    Why it is built this way: the accelerometer is noisy, the robot is handled, and every change
    starts a reaction, so a false change is costly. Readings are low-pass filtered (time constant
    ``filter_tau_s``); readings whose magnitude is far from 1 g (shaking, a throw, free fall) are
    no evidence of anything; each orientation has a narrower band to enter than to stay in
    (:class:`OrientationZones`); and a new orientation must hold for ``hold_s`` (on the back:
    ``hold_on_back_s``, because lying on the back is also what the robot passes through when it
    rolls from its face to its treads) before :meth:`update` reports it.

    Pure and clock-free: the caller passes each reading's time, so tests and offline runs are
    exact. Axes are the robot's body frame: x forward, y left, z up; upright reads (0, 0, +g).
    """

    def __init__(self, *, hold_s: float = 0.25, hold_on_back_s: float = 0.75, filter_tau_s: float = 0.08,
                 zones: OrientationZones | None = None, initial: str = UPRIGHT) -> None:
        if initial not in ORIENTATIONS:
            raise ValueError(f"unknown orientation {initial!r}; expected one of {', '.join(ORIENTATIONS)}")
        self.hold_s = hold_s
        self.hold_on_back_s = hold_on_back_s
        self.filter_tau_s = filter_tau_s
        self.zones = zones or OrientationZones()
        self.orientation = initial
        self.candidate: str | None = None
        self.candidate_since = 0.0
        self.changed_at: float | None = None
        self._filtered: tuple[float, float, float] | None = None
        self._last_t: float | None = None

    def reset(self, orientation: str = UPRIGHT) -> None:
        """Forget the history (e.g. after a reconnect) and assume ``orientation``."""
        self.orientation = orientation
        self.candidate = None
        self._filtered = None
        self._last_t = None

    def _filter(self, t: float, ax: float, ay: float, az: float) -> tuple[float, float, float]:
        last, prev = self._last_t, self._filtered
        self._last_t = t
        if prev is None or last is None or not 0.0 < t - last <= 1.0:
            self._filtered = (ax, ay, az)
        else:
            k = 1.0 - math.exp(-(t - last) / self.filter_tau_s) if self.filter_tau_s > 0 else 1.0
            self._filtered = (prev[0] + k * (ax - prev[0]), prev[1] + k * (ay - prev[1]), prev[2] + k * (az - prev[2]))
        return self._filtered

    def classify(self, ax: float, ay: float, az: float) -> str | None:
        """The orientation a (filtered) reading shows, given the current one; None when unclear.

        The current orientation is kept while the reading is inside its ``stay`` band; another
        is named only when the reading is inside that one's ``enter`` band.
        """
        g = math.sqrt(ax * ax + ay * ay + az * az)
        if not 0.6 * GRAVITY_MMPS2 <= g <= 1.4 * GRAVITY_MMPS2:
            return None
        side = ay / g
        pitch = math.degrees(math.atan2(ax, az))
        if self._inside(self.orientation, side, pitch, stay=True):
            return self.orientation
        for orientation in (ON_RIGHT_SIDE, ON_LEFT_SIDE, ON_FACE, ON_BACK, UPRIGHT):
            if self._inside(orientation, side, pitch, stay=False):
                return orientation
        return None

    def _inside(self, orientation: str, side: float, pitch: float, *, stay: bool) -> bool:
        z = self.zones
        if orientation in (ON_LEFT_SIDE, ON_RIGHT_SIDE):
            limit = z.side_stay if stay else z.side_enter
            return side >= limit if orientation == ON_RIGHT_SIDE else side <= -limit
        if abs(side) > (z.side_enter if stay else z.flat_side_max):
            return False
        if orientation == UPRIGHT:
            return abs(pitch) <= (z.upright_stay_deg if stay else z.upright_enter_deg)
        if orientation == ON_BACK:
            low, high = z.back_stay_deg if stay else z.back_enter_deg
            return low <= pitch <= high
        low, high = z.face_stay_deg if stay else z.face_enter_deg
        return pitch <= low or pitch >= high

    def update(self, t: float, ax: float, ay: float, az: float) -> str | None:
        """Feed one reading (time in seconds, mm/s²); returns the new orientation when one is confirmed."""
        seen = self.classify(*self._filter(t, ax, ay, az))
        if seen is None or seen == self.orientation:
            self.candidate = None
            return None
        if seen != self.candidate:
            self.candidate, self.candidate_since = seen, t
            return None
        hold = self.hold_on_back_s if seen == ON_BACK else self.hold_s
        if t - self.candidate_since < hold:
            return None
        self.orientation, self.candidate, self.changed_at = seen, None, t
        return seen
