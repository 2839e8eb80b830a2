"""Typed samples of what the robot senses, in the style of the BOW data model.

One sample type per modality, explicit units in every field name, and a timestamp on every
sample: ``robot_time_ms`` is the robot's own clock (milliseconds since SyncTime) and
``received_at`` the host's monotonic clock in seconds when the sample arrived, so latency and
staleness can always be judged. Cozmo's extras (battery, cliff sensors, status flags) sit
beside the standard ones in the same style.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

from .frozen import fast_init
from .hardware import LIFT_ARM_MM, LIFT_PIVOT_MM
from .protocol.table import RobotStatusFlag

#: RobotState.status bits, from the message table (the one place they are written down).
RobotStatus = RobotStatusFlag



def lift_height_mm(angle_rad: float) -> float:
    """The lift's height (mm) for the arm angle the robot reports (rad): −0.198 rad is 32 mm."""
    return LIFT_PIVOT_MM + LIFT_ARM_MM * math.sin(angle_rad)


def lift_angle_rad(height_mm: float) -> float:
    """The arm angle (rad) that puts the lift at ``height_mm`` (heights outside the arm's reach
    give the angle of the nearest reachable one)."""
    s = (height_mm - LIFT_PIVOT_MM) / LIFT_ARM_MM
    return math.asin(-1.0 if s < -1.0 else 1.0 if s > 1.0 else s)


@fast_init
@dataclass(frozen=True, slots=True)
class JointSample:
    """One joint: position and velocity in the unit named by ``unit`` (``rad`` or ``mm``; per second)."""

    name: str
    position: float
    unit: str


@fast_init
@dataclass(frozen=True, slots=True)
class ImuSample:
    """Accelerometer (mm/s²) and gyroscope (rad/s) of the IMU, in the *head's* frame (x forward,
    y left, z up with the head level): :mod:`driver.attitude` turns them into the body's."""

    accel_x_mmps2: float
    accel_y_mmps2: float
    accel_z_mmps2: float
    gyro_x_radps: float
    gyro_y_radps: float
    gyro_z_radps: float


@fast_init
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


@fast_init
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


@fast_init
@dataclass(frozen=True, slots=True)
class BatterySample:
    """Battery voltage (V) and charger contact."""

    robot_time_ms: int
    received_at: float
    voltage_v: float
    on_charger: bool
    charging: bool


@fast_init
@dataclass(frozen=True, slots=True)
class TactileSample:
    """Raw touch and cliff sensor readings (unitless ADC counts)."""

    robot_time_ms: int
    received_at: float
    backpack_touch_raw: int
    cliff_raw: tuple[int, ...]


@fast_init
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
        return bool(int(self.status) & int(flag))  # ints: a Flag's & makes a Flag in Python


_ON_CHARGER, _CHARGING = int(RobotStatus.IS_ON_CHARGER), int(RobotStatus.IS_CHARGING)


@functools.lru_cache(maxsize=1024)
def status_flags(raw: int) -> RobotStatus:
    """The status word as flags. Making a Flag from an int runs some dozen Python-level calls, 30
    times a second, for a handful of values a robot ever reports: each is made once."""
    return RobotStatus(raw)


def state_from_message(msg: Any, received_at: float) -> RobotStateSample:
    """Build a sample from a decoded RobotState message (thirty a second: plain attribute reads,
    each a sixth of a ``getattr`` call's cost)."""
    t = int(msg.timestamp)
    raw_status = int(msg.status) & 0x1FFFF
    status = status_flags(raw_status)
    lift = float(msg.lift_angle_rad)
    return RobotStateSample(
        proprioception=ProprioceptionSample(
            robot_time_ms=t,
            received_at=received_at,
            head_angle_rad=float(msg.head_angle_rad),
            lift_angle_rad=lift,
            lift_height_mm=lift_height_mm(lift),
            left_wheel_mmps=float(msg.lwheel_speed_mmps),
            right_wheel_mmps=float(msg.rwheel_speed_mmps),
            imu=ImuSample(
                float(msg.accel_x), float(msg.accel_y), float(msg.accel_z),
                float(msg.gyro_x), float(msg.gyro_y), float(msg.gyro_z),
            ),
            pose=PoseSample(
                float(msg.pose_x), float(msg.pose_y), float(msg.pose_z),
                float(msg.pose_angle_rad), float(msg.pose_pitch_rad),
                int(msg.pose_frame_id), int(msg.pose_origin_id),
            ),
        ),
        battery=BatterySample(
            t, received_at, float(msg.battery_voltage),
            bool(raw_status & _ON_CHARGER), bool(raw_status & _CHARGING),  # ints: a Flag's & costs more
        ),
        tactile=TactileSample(t, received_at, int(msg.backpack_touch_sensor_raw), tuple(msg.cliff_data_raw)),
        status=status,
        path_segment=int(msg.curr_path_segment),
    )
