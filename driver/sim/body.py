"""The simulated Cozmo's body: head, lift, wheels, pose, orientation, battery and the status flags.

Pure state stepped by ``step(dt)``; the simulator's network side feeds it commands and reads
RobotState from it. The lift is modelled by its height; RobotState carries the arm's angle, as a
real robot's does (see :func:`driver.samples.lift_angle_rad`).
Motions respect the robot's physical limits (:mod:`driver.hardware`) and move with a
trapezoid-free but speed-limited approach, which is what behaviours can observe through
RobotState. The motors are not ideal, as a real robot's are not: head and lift come to rest a
little off their targets, and wheels driven with DriveWheels fall short of the asked speed, each
side by its own share (the firmware's turns and paths reach their targets).

The IMU sits in the head, as on a real Cozmo: :meth:`Body.accel` and :meth:`Body.gyro` report in
the head's frame, so gravity moves between x and z as the head tilts, a moving head shows on gyro
y and the body's turning on gyro z (and x, with the head tilted).

The robot may stand on a :class:`Table` (centred where it starts): its one cliff sensor, at the
front underside, sees the edge when it looks past it, and the firmware's stop-on-cliff stops the
wheels driving forward there. Going over the edge is not modelled: the robot's middle stops at it,
as if the table had a rim; each time the middle reaches the rim (where a real robot would have gone
over) is kept in :attr:`Body.overruns`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..attitude import GRAVITY_MMPS2, Vector
from ..events import ON_BACK, ON_FACE, ON_LEFT_SIDE, ON_RIGHT_SIDE, UPRIGHT
from ..hardware import (
    CHARGE_RAIL_V,
    CHARGER_FLAG_DELAY_S,
    CHARGING_MAX_S,
    CHARGING_MIN_S,
    CLIFF_RAW_NO_FLOOR,
    CLIFF_RAW_ON_FLOOR,
    CLIFF_SENSOR_AHEAD_MM,
    HEAD_MAX_RAD,
    HEAD_MIN_RAD,
    HEAD_SETTLE_RAD,
    LIFT_ARM_MM,
    LIFT_MAX_MM,
    LIFT_MIN_MM,
    LIFT_PIVOT_MM,
    LIFT_SETTLE_MM,
    MAX_BODY_ROTATION_DPS,
    MAX_WHEEL_SPEED_MMPS,
    TRACK_MM,
    WHEEL_GAIN,
)
from ..protocol.table import RobotStatusFlag
from .table import Table

HEAD_TOLERANCE_RAD = math.radians(1.0)
LIFT_TOLERANCE_MM = 1.0
#: Pitch of the body (degrees, nose up) when it lies on its back (propped up by the lift) or on its face.
ON_BACK_PITCH_DEG = 74.5
ON_FACE_PITCH_DEG = -95.0
#: The ways the body can be laid down (:meth:`Body.set_orientation`).
POSES: tuple[str, ...] = (UPRIGHT, ON_BACK, ON_FACE, ON_LEFT_SIDE, ON_RIGHT_SIDE)
#: A shake: the hand swings the robot round a horizontal circle of this acceleration (mm/s²) and
#: rate (Hz), and rocks it by up to this rate (rad/s).
SHAKE_ACCEL_MMPS2 = 20000.0
SHAKE_HZ = 3.0
SHAKE_GYRO_RADPS = 4.0
#: After the body is picked up, put down or laid another way, the hands that did it turn it at
#: this rate (rad/s) for this long (s): a real robot is never moved without its gyro seeing it.
HANDLING_GYRO_RADPS = 1.0
HANDLING_S = 0.5
#: A fist bump: a knuckle knocks the raised lift up by BUMP_LIFT_MM and jolts the body back
#: (BUMP_ACCEL_MMPS2 along x, rocking at BUMP_GYRO_RADPS) for BUMP_S.
BUMP_LIFT_MM = 3.0
BUMP_ACCEL_MMPS2 = 6000.0
BUMP_GYRO_RADPS = 0.6
BUMP_S = 0.15


#: The simulated cell is full at this voltage: charging stops there (after CHARGING_MIN_S at least).
BATTERY_FULL_V = 4.2

#: RobotState.status bits, from the message table (the one place they are written down).
Status = RobotStatusFlag
# The bits as plain ints, for the status word built 30 times a second.
_IS_MOVING = int(Status.IS_MOVING)
_ARE_WHEELS_MOVING = int(Status.ARE_WHEELS_MOVING)
_IS_CARRYING_BLOCK = int(Status.IS_CARRYING_BLOCK)
_IS_PICKED_UP = int(Status.IS_PICKED_UP)
_IS_FALLING = int(Status.IS_FALLING)
_IS_ANIMATING = int(Status.IS_ANIMATING)
_IS_PATHING = int(Status.IS_PATHING)
_LIFT_IN_POS = int(Status.LIFT_IN_POS)
_HEAD_IN_POS = int(Status.HEAD_IN_POS)
_IS_ON_CHARGER = int(Status.IS_ON_CHARGER)
_IS_CHARGING = int(Status.IS_CHARGING)
_CLIFF_DETECTED = int(Status.CLIFF_DETECTED)


def clamp(x: float, lo: float, hi: float) -> float:
    """Limit ``x`` to ``[lo, hi]``."""
    return lo if x < lo else hi if x > hi else x


def wrap_angle(a: float) -> float:
    """Angle in (-pi, pi]."""
    return math.atan2(math.sin(a), math.cos(a))


def lift_mm_per_rad(height_mm: float) -> float:
    """How many mm of lift height one radian of arm rotation gives at this height."""
    s = clamp((height_mm - LIFT_PIVOT_MM) / LIFT_ARM_MM, -0.99, 0.99)
    return LIFT_ARM_MM * math.cos(math.asin(s))


@dataclass
class Joint:
    """One positional motor (head or lift) moving toward a target at a bounded speed."""

    position: float
    lo: float
    hi: float
    tolerance: float
    target: float | None = None
    speed: float = 0.0  # units/s while going to target, or continuous speed when target is None
    velocity: float = 0.0
    action_id: int | None = None
    #: where a real motor comes to rest after a move: ((offset, per move length) going up, going
    #: down), the offset counted past the target in the move's direction (see driver.hardware)
    settle: tuple[tuple[float, float], tuple[float, float]] = ((0.0, 1.0), (0.0, 1.0))
    #: where this move comes to rest (the target, off by the motor's settling error)
    rest: float | None = None

    def command_target(self, target: float, speed: float, action_id: int | None = None) -> None:
        """Go to ``target`` (clamped to the joint's range) at up to ``speed`` units/s; the joint
        comes to rest where a real motor would, a little short of it or past it."""
        self.target = clamp(target, self.lo, self.hi)
        self.speed = abs(speed) if speed else 1.0
        self.action_id = action_id
        travel = self.target - self.position
        offset, per = self.settle[0] if travel >= 0 else self.settle[1]
        past = math.copysign(min(abs(offset), abs(offset) * abs(travel) / per), offset)
        self.rest = clamp(self.target + (past if travel >= 0 else -past), self.lo, self.hi)

    def command_speed(self, speed: float) -> None:
        """Move continuously at ``speed`` units/s until a limit (0 stops)."""
        self.target = self.rest = None
        self.speed = speed
        self.action_id = None

    def step(self, dt: float) -> None:
        """Advance the joint by ``dt`` seconds."""
        before = self.position
        if self.target is not None:
            goal = self.target if self.rest is None else self.rest
            delta = goal - self.position
            max_step = self.speed * dt
            if abs(delta) <= max_step:
                self.position = goal
            else:
                self.position += math.copysign(max_step, delta)
        elif self.speed:
            self.position = clamp(self.position + self.speed * dt, self.lo, self.hi)
        self.velocity = (self.position - before) / dt if dt > 0 else 0.0

    @property
    def in_position(self) -> bool:
        """True when not moving: at its target, or stopped."""
        if self.target is not None:
            if self.rest is not None:  # a move: in position once it has come to rest
                return self.position == self.rest
            return abs(self.target - self.position) <= self.tolerance
        return self.speed == 0.0 or self.position in (self.lo, self.hi)

    @property
    def moving(self) -> bool:
        """True while the joint is changing position."""
        return abs(self.velocity) > 1e-6


@dataclass
class PathSegment:
    """One segment of a path to follow: a straight line, an arc or a point turn."""

    kind: str  # "line", "arc", "turn"
    x: float = 0.0
    y: float = 0.0
    angle: float = 0.0
    speed: float = 100.0
    cx: float = 0.0
    cy: float = 0.0
    radius: float = 0.0
    start_angle: float = 0.0
    sweep: float = 0.0


@dataclass
class Body:
    """Everything physical about the simulated robot, stepped in simulated time."""

    head: Joint = field(default_factory=lambda: Joint(0.0, HEAD_MIN_RAD, HEAD_MAX_RAD, HEAD_TOLERANCE_RAD,
                                                      settle=HEAD_SETTLE_RAD))
    lift: Joint = field(default_factory=lambda: Joint(LIFT_MIN_MM, LIFT_MIN_MM, LIFT_MAX_MM, LIFT_TOLERANCE_MM,
                                                      settle=LIFT_SETTLE_MM))
    x_mm: float = 0.0
    y_mm: float = 0.0
    z_mm: float = 0.0
    angle_rad: float = 0.0
    left_cmd: float = 0.0
    right_cmd: float = 0.0
    left_speed: float = 0.0
    right_speed: float = 0.0
    wheel_accel: float = 1000.0
    #: DriveWheels speeds fall short per side as a real robot's do (WHEEL_GAIN); False: ideal wheels
    wheel_lag: bool = True
    battery_v: float = 4.1
    picked_up: bool = False
    cliff: bool = False
    falling: bool = False
    #: On the charger's contacts (the flag IS_ON_CHARGER follows CHARGER_FLAG_DELAY_S later)
    on_charger: bool = False
    charging: bool = False
    #: How long it has been on the contacts, and charging (s)
    contact_s: float = 0.0
    charge_s: float = 0.0
    animating: bool = False
    carrying_block: bool = False
    stop_on_cliff: bool = False
    table: Table | None = None
    at_edge: bool = False
    #: where and when (s, x, y) the middle reached the table's rim, each time it came to it from the table
    overruns: list[tuple[float, float, float]] = field(default_factory=list)
    on_rim: bool = False
    orientation: str = UPRIGHT
    orientation_until: float | None = None
    shake_until: float | None = None
    handled_until: float = 0.0
    handled_pose: tuple[str, bool] = (UPRIGHT, False)
    #: the floor under the treads slopes nose-up by this much (°): the body's pitch when it stands on it
    slope_deg: float = 0.0
    #: a fist bump jolts the body until then (s)
    bump_until: float = 0.0
    gyro_z: float = 0.0
    turn_target: float | None = None
    turn_speed: float = 0.0
    turn_tolerance: float = math.radians(2.0)
    turn_action_id: int | None = None
    #: the wheels run a turn in place of the firmware's steering controller (closed loop: no WHEEL_GAIN)
    spinning: bool = False
    path: list[PathSegment] = field(default_factory=list)
    path_index: int = 0
    path_active: bool = False
    time_s: float = 0.0

    # ---------------------------------------------------------------- commands

    def drive(self, left: float, right: float, accel: float = 0.0) -> None:
        """Set wheel speeds in mm/s (clamped to the firmware's cap); cancels a turn or path in progress."""
        self.turn_target = None
        self.path_active = False
        self.spinning = False
        self.left_cmd = clamp(left, -MAX_WHEEL_SPEED_MMPS, MAX_WHEEL_SPEED_MMPS)
        self.right_cmd = clamp(right, -MAX_WHEEL_SPEED_MMPS, MAX_WHEEL_SPEED_MMPS)
        self.wheel_accel = accel if accel > 0 else 1000.0

    def spin(self, rate: float, accel: float) -> None:
        """Turn in place at ``rate`` rad/s (counter-clockwise when positive) until told otherwise,
        reached at ``accel`` rad/s²: an animation's body keyframe of radius 0, TurnInPlaceAtSpeed. The
        firmware's steering controller runs it on its odometry, so the treads reach their speeds, and
        clamps the rate to MAX_BODY_ROTATION_DPS (VC-cfg)."""
        cap = math.radians(MAX_BODY_ROTATION_DPS)
        rate = clamp(rate, -cap, cap)
        self.drive(-rate * TRACK_MM / 2, rate * TRACK_MM / 2, accel * TRACK_MM / 2)
        self.spinning = True

    def turn_in_place(self, angle: float, speed: float, tolerance: float, absolute: bool,
                      action_id: int | None = None) -> None:
        """Rotate by (or to, when ``absolute``) ``angle`` radians at ``speed`` rad/s."""
        self.path_active = False
        self.spinning = False
        target = angle if absolute else self.angle_rad + angle
        self.turn_target = target
        self.turn_speed = abs(speed) if speed else math.pi
        self.turn_tolerance = tolerance if tolerance > 0 else math.radians(2.0)
        self.turn_action_id = action_id

    def stop_all(self) -> None:
        """StopAllMotors: wheels, head and lift stop where they are."""
        self.turn_target = None
        self.spinning = False
        self.path_active = False
        self.left_cmd = self.right_cmd = 0.0
        self.left_speed = self.right_speed = 0.0
        self.head.command_speed(0.0)
        self.lift.command_speed(0.0)

    def set_orientation(self, orientation: str, duration: float | None = None) -> None:
        """Lay the robot on its back, face or a side, or stand it up (``upright``).

        Off its treads the robot is off the floor as far as its sensors know: the firmware reports
        it picked up, the cliff sensors see nothing, the wheels stop. With ``duration`` it is
        stood upright again after that many seconds.
        """
        if orientation not in POSES:
            raise ValueError(f"unknown orientation {orientation!r}; expected one of {', '.join(POSES)}")
        self.orientation = orientation
        self.orientation_until = self.time_s + duration if duration and orientation != UPRIGHT else None
        if orientation != UPRIGHT:
            self.stop_all()
            self.cliff = False

    def shake(self, duration: float) -> None:
        """Pick the robot up, shake it for ``duration`` seconds, then put it back down."""
        self.picked_up = True
        self.shake_until = self.time_s + duration
        self.stop_all()

    def fist_bump(self) -> None:
        """A knuckle knocks the raised lift: the lift is pushed up a little and the body jolts back."""
        self.lift.position = min(self.lift.hi, self.lift.position + BUMP_LIFT_MM)
        self.bump_until = self.time_s + BUMP_S

    @property
    def shaking(self) -> bool:
        """True while the robot is being shaken."""
        return self.shake_until is not None

    @property
    def off_treads(self) -> bool:
        """True when held in the air or lying on its back, face or side."""
        return self.picked_up or self.orientation != UPRIGHT

    def start_path(self, segments: list[PathSegment]) -> None:
        """Follow the given path segments in order."""
        self.turn_target = None
        self.spinning = False
        self.path = list(segments)
        self.path_index = 0
        self.path_active = bool(segments)

    # ---------------------------------------------------------------- physics

    @property
    def turn_done(self) -> bool:
        """True when no turn is in progress."""
        return self.turn_target is None

    def step(self, dt: float) -> list[str]:
        """Advance ``dt`` seconds; return the names of things that finished (for events)."""
        finished: list[str] = []
        self.time_s += dt
        if self.orientation_until is not None and self.time_s >= self.orientation_until:
            self.set_orientation(UPRIGHT)
        if self.shake_until is not None and self.time_s >= self.shake_until:
            self.shake_until = None
            self.picked_up = False
        if (self.orientation, self.picked_up) != self.handled_pose:
            self.handled_pose = (self.orientation, self.picked_up)
            self.handled_until = self.time_s + HANDLING_S
        head_was_moving = self.head.target is not None and not self.head.in_position
        lift_was_moving = self.lift.target is not None and not self.lift.in_position
        self.head.step(dt)
        self.lift.step(dt)
        if head_was_moving and self.head.in_position:
            finished.append("head")
        if lift_was_moving and self.lift.in_position:
            finished.append("lift")
        if self.sees_cliff and self.stop_on_cliff and (self.left_cmd > 0 or self.right_cmd > 0):
            self.left_cmd = self.right_cmd = 0.0
        if self.turn_target is not None:
            err = wrap_angle(self.turn_target - self.angle_rad)
            if abs(err) <= self.turn_tolerance:
                self.turn_target = None
                self.left_cmd = self.right_cmd = 0.0
                finished.append("turn")
            else:
                w = math.copysign(min(self.turn_speed, abs(err) / dt if dt else self.turn_speed), err)
                v = w * TRACK_MM / 2
                self.left_cmd, self.right_cmd = -v, v
        elif self.path_active:
            if self._follow_path(dt):
                finished.append("path")
        left, right = self._wheel_targets()
        self.left_speed = _approach(self.left_speed, left, self.wheel_accel * dt)
        self.right_speed = _approach(self.right_speed, right, self.wheel_accel * dt)
        if not self.off_treads:
            v = (self.left_speed + self.right_speed) / 2
            w = (self.right_speed - self.left_speed) / TRACK_MM
            self.x_mm += v * math.cos(self.angle_rad + w * dt / 2) * dt
            self.y_mm += v * math.sin(self.angle_rad + w * dt / 2) * dt
            self.angle_rad = wrap_angle(self.angle_rad + w * dt)
            self.gyro_z = w
            if self.table is not None and self._on_table(self.table):
                finished.append("over the edge")
        else:
            self.gyro_z = 0.0
        if self.on_charger:
            self.contact_s += dt
            # the flags follow the contacts with a lag; charging goes on until the cell is full
            # (at least CHARGING_MIN_S) or CHARGING_MAX_S have passed (hardware.md §2)
            self.charging = self.charger_flag and self.charge_s < CHARGING_MAX_S and (
                self.battery_v < BATTERY_FULL_V or self.charge_s < CHARGING_MIN_S)
            if self.charging:
                self.charge_s += dt
                self.battery_v = min(BATTERY_FULL_V, self.battery_v + dt * 0.0005)
        else:
            self.contact_s = self.charge_s = 0.0
            self.charging = False
            self.battery_v = max(3.3, self.battery_v - dt * 0.00002)
        return finished

    def _on_table(self, table: Table) -> bool:
        """Keep the robot's middle on the table; the cliff sensor sees the edge when it looks past it.
        True when the middle has just come to the rim (a real robot would have gone over)."""
        half_w, half_d = table.width_mm / 2, table.depth_mm / 2
        self.x_mm = clamp(self.x_mm, -half_w, half_w)
        self.y_mm = clamp(self.y_mm, -half_d, half_d)
        came = False
        on_rim = abs(self.x_mm) >= half_w or abs(self.y_mm) >= half_d
        if on_rim and not self.on_rim:
            self.overruns.append((self.time_s, self.x_mm, self.y_mm))
            came = True
        self.on_rim = on_rim
        ahead_x = self.x_mm + CLIFF_SENSOR_AHEAD_MM * math.cos(self.angle_rad)
        ahead_y = self.y_mm + CLIFF_SENSOR_AHEAD_MM * math.sin(self.angle_rad)
        self.at_edge = not table.holds(ahead_x, ahead_y)
        return came

    @property
    def charger_flag(self) -> bool:
        """IS_ON_CHARGER: on the contacts for CHARGER_FLAG_DELAY_S (a real robot's flag lags contact)."""
        return self.on_charger and self.contact_s >= CHARGER_FLAG_DELAY_S - 1e-9

    @property
    def reported_battery_v(self) -> float:
        """What RobotState's battery field reads: the charge rail on the contacts, else the cell."""
        return CHARGE_RAIL_V if self.on_charger else self.battery_v

    @property
    def sees_cliff(self) -> bool:
        """True when the cliff sensor sees no floor: a scripted cliff or the table's edge."""
        return self.cliff or self.at_edge

    def _follow_path(self, dt: float) -> bool:
        """Drive toward the current segment's end; True when the whole path is done."""
        seg = self.path[self.path_index]
        if seg.kind == "turn":
            err = wrap_angle(seg.angle - self.angle_rad)
            done = abs(err) < math.radians(2)
            if not done:
                w = math.copysign(min(abs(seg.speed) / (TRACK_MM / 2) if seg.speed else math.pi, abs(err) / dt), err)
                self.left_cmd, self.right_cmd = -w * TRACK_MM / 2, w * TRACK_MM / 2
        else:
            tx, ty = seg.x, seg.y
            dx, dy = tx - self.x_mm, ty - self.y_mm
            dist = math.hypot(dx, dy)
            done = dist < 2.0
            if not done:
                heading = math.atan2(dy, dx)
                err = wrap_angle(heading - self.angle_rad)
                speed = min(abs(seg.speed) or 100.0, dist / dt if dt else 100.0, MAX_WHEEL_SPEED_MMPS)
                w = clamp(4.0 * err, -3.0, 3.0)
                v = speed * max(0.0, math.cos(err))
                self.left_cmd = v - w * TRACK_MM / 2
                self.right_cmd = v + w * TRACK_MM / 2
        if done:
            self.path_index += 1
            if self.path_index >= len(self.path):
                self.path_active = False
                self.left_cmd = self.right_cmd = 0.0
                return True
        return False

    def _wheel_targets(self) -> tuple[float, float]:
        """The speeds the wheels settle at: DriveWheels' open loop falls short per side (hardware.md
        §7.12), while the firmware's turns and paths close the loop on their own and reach theirs."""
        if not self.wheel_lag or self.spinning or self.turn_target is not None or self.path_active:
            return self.left_cmd, self.right_cmd
        return self.left_cmd * _gain(self.left_cmd, 0), self.right_cmd * _gain(self.right_cmd, 1)

    # ---------------------------------------------------------------- sensing

    @property
    def wheels_moving(self) -> bool:
        """True while either wheel turns."""
        return abs(self.left_speed) > 0.5 or abs(self.right_speed) > 0.5

    def status(self) -> int:
        """The RobotState.status word for the current body state (plain ints: 30 times a second, a
        Flag's ``|`` costs more than the rest of the word)."""
        s = 0
        wheels = self.wheels_moving
        if wheels or self.head.moving or self.lift.moving:
            s |= _IS_MOVING
        if wheels:
            s |= _ARE_WHEELS_MOVING
        if self.carrying_block:
            s |= _IS_CARRYING_BLOCK
        if self.off_treads:
            s |= _IS_PICKED_UP
        if self.falling:
            s |= _IS_FALLING
        if self.animating:
            s |= _IS_ANIMATING
        if self.path_active:
            s |= _IS_PATHING
        if self.lift.in_position:
            s |= _LIFT_IN_POS
        if self.head.in_position:
            s |= _HEAD_IN_POS
        if self.charger_flag:
            s |= _IS_ON_CHARGER
        if self.charging:
            s |= _IS_CHARGING
        if self.sees_cliff or self.off_treads:  # held or tipped over, the sensor sees no floor either
            s |= _CLIFF_DETECTED
        return s

    def body_accel(self) -> Vector:
        """What an accelerometer fixed to the body would read (mm/s²; x forward, y left, z up):
        gravity as the body lies, a slight tilt while held, nothing in free fall, and the swing
        of a shake."""
        g = GRAVITY_MMPS2
        if self.falling:
            return (0.0, 0.0, 0.0)
        if self.orientation in (ON_BACK, ON_FACE):
            pitch = math.radians(ON_BACK_PITCH_DEG if self.orientation == ON_BACK else ON_FACE_PITCH_DEG)
            return (g * math.sin(pitch), 0.0, g * math.cos(pitch))
        if self.orientation == ON_RIGHT_SIDE:
            return (0.0, g, 0.0)
        if self.orientation == ON_LEFT_SIDE:
            return (0.0, -g, 0.0)
        if self.shaking:
            phase = 2 * math.pi * SHAKE_HZ * self.time_s
            return (SHAKE_ACCEL_MMPS2 * math.sin(phase), SHAKE_ACCEL_MMPS2 * math.cos(phase), g)
        if self.picked_up:
            return (600.0, 300.0, 9500.0)
        if self.time_s < self.bump_until:
            return (-BUMP_ACCEL_MMPS2, 0.0, g)
        if self.slope_deg:
            slope = math.radians(self.slope_deg)
            return (g * math.sin(slope), 0.0, g * math.cos(slope))
        return (0.0, 0.0, g)

    def body_gyro(self) -> Vector:
        """What a gyroscope fixed to the body would read (rad/s): the turn on the treads, the
        rocking of a shake, the hands that just moved it."""
        if self.shaking:
            return (SHAKE_GYRO_RADPS * math.cos(2 * math.pi * SHAKE_HZ * self.time_s), 0.0, 0.0)
        if self.time_s < self.handled_until:
            return (0.0, -HANDLING_GYRO_RADPS, 0.0)
        if self.time_s < self.bump_until:
            return (0.0, -BUMP_GYRO_RADPS, self.gyro_z)
        return (0.0, 0.0, self.gyro_z)

    def accel(self) -> Vector:
        """The accelerometer as RobotState carries it: in the head's frame (mm/s²)."""
        return _body_to_head(self.body_accel(), self.head.position)

    def gyro(self) -> Vector:
        """The gyroscope as RobotState carries it: in the head's frame (rad/s). Raising the head
        turns it nose-up, a negative turn about y (left)."""
        x, y, z = _body_to_head(self.body_gyro(), self.head.position)
        return (x, y - self.head.velocity, z)

    @property
    def pitch_rad(self) -> float:
        """The body's pitch (nose up), as the firmware reports it from the IMU."""
        x, _, z = self.body_accel()
        return math.atan2(x, z) if (x or z) else 0.0

    def cliff_raw(self) -> tuple[int, int, int, int]:
        """Raw cliff sensor values as a real robot reports them: only the first is a sensor (about
        880 over a table, low with no floor under it); the other three always read 0."""
        return (CLIFF_RAW_NO_FLOOR if self.sees_cliff or self.off_treads else CLIFF_RAW_ON_FLOOR, 0, 0, 0)


def _body_to_head(v: Vector, head_angle_rad: float) -> Vector:
    """A body-frame vector in the frame of a head raised by ``head_angle_rad``."""
    x, y, z = v
    c, s = math.cos(head_angle_rad), math.sin(head_angle_rad)
    return (x * c + z * s, y, -x * s + z * c)


def _gain(cmd: float, side: int) -> float:
    return WHEEL_GAIN["forward" if cmd >= 0 else "backward"][side]


def _approach(current: float, target: float, max_delta: float) -> float:
    if abs(target - current) <= max_delta:
        return target
    return current + math.copysign(max_delta, target - current)
