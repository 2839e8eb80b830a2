"""The robot's attitude, derived from the head's IMU the way Anki's engine derived it.

Cozmo's accelerometer and gyroscope sit in its *head*: they report in the head's frame, so with
the robot level and the head at −25° gravity reads about (−3650, 0, 9000) mm/s², and a moving
head shows on gyro y. Everything here first turns each RobotState's IMU reading into the body's
frame (x forward, y left, z up), rotating it about y by the head angle of the same RobotState;
only then come the engine's filters, thresholds and debounces (hardware.md §6), so the head can
be anywhere in its range while the robot stands level on its treads.

From the body-frame readings:

* **the off-treads state** (:class:`OffTreadsClassifier`): on its treads (``upright``), held in
  the air, on its back, face, left or right side, or falling; each change is an
  :class:`~driver.events.OrientationChanged`, and coming back to the treads also a
  :class:`~driver.events.ReturnedToTreads`;
* **shaking** (:class:`ShakeDetector`): :class:`~driver.events.Shaken` with its strength;
* **being placed on a slope** (:class:`SlopeDetector`): :class:`~driver.events.PlacedOnSlope`;
* **unexpected movement** (:class:`UnexpectedMovementDetector`): the wheels drive but the body
  does not turn as they say; :class:`~driver.events.UnexpectedMovement` with the side pushed from.

:class:`Attitude` runs the four on every RobotState. It is pure: no I/O, no clock of its own (the
caller passes each reading's time, the sample's host arrival time by default), so tests and
offline runs are exact. Every number is the engine's, gathered in :class:`AttitudeConfig`.

Where this differs from the engine, and why:

* The engine took the pitch from RobotState's ``pose_pitch_rad``; here it is read from the same
  filtered body-frame accelerometer the side test uses (they agree within about a degree on a
  real robot, and one source of truth cannot disagree with itself). The slope test alone takes
  the pitch of the reading itself: it applies only once the gyro has been still for 0.4 s, when
  the reading is gravity alone, and the filtered one would still remember the tilt the robot
  was held at a moment before it was put down flat.
* The engine ran the classifier only once the head had reported a finished calibration; a robot
  streams RobotState only after that anyway, so here the body-frame filters and the classifier
  pause while a head calibration runs (at start-up or the automatic one after a fall: the head
  angle is unknown then) and run otherwise.
* Debounce times are kept in whole milliseconds, as the engine kept them, so "250 ms ago" is
  exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import events as ev
from .hardware import TRACK_MM
from .samples import RobotStateSample, RobotStatus

__all__ = [
    "GRAVITY_MMPS2",
    "Attitude",
    "AttitudeConfig",
    "OffTreadsClassifier",
    "ShakeDetector",
    "SlopeDetector",
    "UnexpectedMovementDetector",
    "describe",
    "head_to_body",
]

#: Standard gravity in the accelerometer's unit (mm/s²). Real units read 9 600–10 700 at rest.
GRAVITY_MMPS2 = 9810.0
#: The head motor (MotorCalibration's motor id 3).
HEAD_MOTOR = 3
# Status bits as plain ints: flag arithmetic on the enum costs more than the rest of a reading.
_PICKED_UP = int(RobotStatus.IS_PICKED_UP)
_FALLING = int(RobotStatus.IS_FALLING)
_PICKING_OR_PLACING = int(RobotStatus.IS_PICKING_OR_PLACING)
_MOVEMENT_RESET = int(RobotStatus.IS_PICKED_UP | RobotStatus.IS_ON_CHARGER | RobotStatus.CLIFF_DETECTED)

Vector = tuple[float, float, float]


@dataclass(frozen=True)
class AttitudeConfig:
    """Anki's engine's numbers (hardware.md §6). Angles in degrees, times in seconds."""

    #: Per-axis accelerometer low-pass: ``new = (1 - k) * old + k * sample``.
    accel_filter: float = 0.1
    #: Low-pass of the accelerometer's magnitude (what shaking is judged by).
    magnitude_filter: float = 0.05
    #: On a side: the filtered sideways reading is within ``side_tolerance`` of ``side_accel``.
    side_accel_mmps2: float = 9800.0
    side_tolerance_mmps2: float = 3000.0
    #: On the face: pitch above the first or below the second.
    face_pitch_deg: tuple[float, float] = (110.0, -80.0)
    #: On the back: pitch within ``back_tolerance_deg`` of ``back_pitch_deg`` (the lift props the
    #: body up: 74.5° on a real robot; the engine used 96.4° for its own simulated robot).
    back_pitch_deg: float = 74.5
    back_tolerance_deg: float = 15.0
    #: Level: |pitch| at most this.
    level_deg: float = 45.0
    #: A new state must stand this long; lying on the back ``on_back_extra_s`` longer, because
    #: the robot passes through it when it rolls from its face onto its treads.
    debounce_s: float = 0.25
    on_back_extra_s: float = 0.75
    #: Shaking starts above ``shake_start`` (filtered magnitude) and lasts while at least ``shake_stop``.
    shake_start_mmps2: float = 16000.0
    shake_stop_mmps2: float = 13000.0
    #: Shaken for less than ``shake_medium_s``: soft; less than ``shake_hard_s``: medium; else hard.
    shake_medium_s: float = 2.5
    shake_hard_s: float = 5.0
    #: Placed on a slope: pitch strictly between these, every gyro axis under ``slope_quiet_radps``
    #: for more than ``slope_quiet_s``, and held now or put down less than ``slope_after_put_down_s`` ago.
    slope_pitch_deg: tuple[float, float] = (10.0, 55.0)
    slope_quiet_radps: float = 0.01
    slope_quiet_s: float = 0.4
    slope_after_put_down_s: float = 1.5
    #: Unexpected movement: wheels driven (|l| + |r| at least ``push_wheels_mmps``), the body
    #: turning slower than ``push_turn_deg_s``; a mismatch with the wheels' own turn rate above
    #: ``push_rate_mismatch_radps`` counts; more than ``push_count`` counts make the event.
    push_wheels_mmps: float = 20.0
    push_turn_deg_s: float = 10.0
    push_rate_mismatch_radps: float = 0.2
    push_count: int = 10
    push_wheel_base_mm: float = TRACK_MM


def head_to_body(v: Vector, head_angle_rad: float) -> Vector:
    """A head-frame vector in the body's frame: rotated about y (left) by the head angle.

    The head pitches about the body's y axis; with the head up by θ its x axis points
    (cos θ, 0, sin θ) in the body. At θ = −25° a level robot's (−4150, 0, 8890) comes back as
    (0, 0, 9810).
    """
    return _rotate(v, math.cos(head_angle_rad), math.sin(head_angle_rad))


def _rotate(v: Vector, c: float, s: float) -> Vector:
    x, y, z = v
    return (x * c - z * s, y, x * s + z * c)


def _ms(t: float) -> int:
    return round(t * 1000.0)


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


# --------------------------------------------------------------------------- the off-treads state


@dataclass
class OffTreadsClassifier:
    """How the robot lies: the engine's decision order, candidate and debounce.

    Each reading offers a *candidate* state with a time from which it counts; the state changes
    once the candidate differs from it and its time is at least ``debounce`` old. Most candidates
    count from now (a change needs 250 ms); lying on the back counts from 750 ms ahead (1 s);
    being picked up from the treads, put down, and falling count from 250 ms ago (at once).

    The order, first match wins: the falling flag; on a side (the sign of y picks which; a side
    already chosen is kept); on the face; on the back; otherwise level and coming from a
    tipped-over state (held level again: in the air), or picked up from the treads (in the air).
    After the falling flag and the last branch: with nothing holding the robot off its treads
    (not picked up, not on a side, back or face) it is back on its treads.
    """

    config: AttitudeConfig = field(default_factory=AttitudeConfig)
    state: str = ev.UPRIGHT
    candidate: str = ev.UPRIGHT
    candidate_ms: int = 0

    def reset(self, state: str = ev.UPRIGHT) -> None:
        """Assume ``state`` with nothing pending (after a reconnect)."""
        self.state = self.candidate = state
        self.candidate_ms = 0

    def _offer(self, candidate: str, at_ms: int) -> None:
        self.candidate, self.candidate_ms = candidate, at_ms

    def update(self, now: float, *, falling: bool, picked_up: bool, side_mmps2: float, pitch_deg: float) -> str | None:
        """Classify one filtered reading at ``now`` (s); returns the new state when it changes."""
        c = self.config
        now_ms, debounce_ms = _ms(now), _ms(c.debounce_s)
        on_side = abs(abs(side_mmps2) - c.side_accel_mmps2) < c.side_tolerance_mmps2
        on_face = pitch_deg > c.face_pitch_deg[0] or pitch_deg < c.face_pitch_deg[1]
        on_back = abs(pitch_deg - c.back_pitch_deg) <= c.back_tolerance_deg
        final = False
        if falling:
            if self.candidate != ev.FALLING:
                self._offer(ev.FALLING, now_ms - debounce_ms)
            final = True
        elif on_side:
            if self.candidate not in (ev.ON_LEFT_SIDE, ev.ON_RIGHT_SIDE):
                self._offer(ev.ON_RIGHT_SIDE if side_mmps2 > 0 else ev.ON_LEFT_SIDE, now_ms)
        elif on_face:
            if self.candidate != ev.ON_FACE:
                self._offer(ev.ON_FACE, now_ms)
        elif on_back:
            if self.candidate != ev.ON_BACK:
                self._offer(ev.ON_BACK, now_ms + _ms(c.on_back_extra_s))
        else:
            tipped = (ev.ON_BACK, ev.ON_LEFT_SIDE, ev.ON_RIGHT_SIDE, ev.ON_FACE, ev.FALLING)
            if abs(pitch_deg) <= c.level_deg and self.candidate in tipped:
                self._offer(ev.IN_AIR, now_ms)
            elif picked_up and self.candidate == ev.UPRIGHT:
                self._offer(ev.IN_AIR, now_ms - debounce_ms)
            final = True
        if final and not (picked_up or on_side or on_back or on_face) and self.candidate != ev.UPRIGHT:
            self._offer(ev.UPRIGHT, now_ms - debounce_ms)
        if self.candidate != self.state and self.candidate_ms + debounce_ms <= now_ms:
            self.state = self.candidate
            return self.state
        return None


# --------------------------------------------------------------------------- shaking


@dataclass
class ShakeDetector:
    """Shaking, judged by the low-passed magnitude of the accelerometer (frame-free).

    A shake starts when the filtered magnitude passes ``shake_start`` and ends when it falls
    below ``shake_stop``; :meth:`update` then returns how long it lasted. Gravity alone reads
    about 10 000 on a real robot, so only real shaking gets there.
    """

    config: AttitudeConfig = field(default_factory=AttitudeConfig)
    magnitude: float | None = None
    started_at: float | None = None

    @property
    def shaking(self) -> bool:
        """True while a shake lasts."""
        return self.started_at is not None

    def strength(self, duration_s: float) -> str:
        """The engine's strength for a shake that lasted ``duration_s``."""
        if duration_s < self.config.shake_medium_s:
            return "soft"
        return "medium" if duration_s < self.config.shake_hard_s else "hard"

    def update(self, now: float, accel: Vector) -> float | None:
        """Feed one raw reading; returns the shake's duration (s) when one ends."""
        k = self.config.magnitude_filter
        raw = math.sqrt(accel[0] ** 2 + accel[1] ** 2 + accel[2] ** 2)
        self.magnitude = raw if self.magnitude is None else (1.0 - k) * self.magnitude + k * raw
        if self.started_at is None:
            if self.magnitude > self.config.shake_start_mmps2:
                self.started_at = now
            return None
        if self.magnitude < self.config.shake_stop_mmps2:
            duration, self.started_at = now - self.started_at, None
            return duration
        return None


# --------------------------------------------------------------------------- placed on a slope


@dataclass
class SlopeDetector:
    """Held, or just put down, nose-up on something (a cube, a book) and kept still.

    The engine's test: pitch between 10° and 55°, no gyro axis above 0.01 rad/s for more than
    0.4 s, picked up now or put down less than 1.5 s ago, and on the treads or in the air. The
    test is a level; :meth:`update` reports its rising edge once.
    """

    config: AttitudeConfig = field(default_factory=AttitudeConfig)
    moved_at: float | None = None
    held_at: float | None = None
    active: bool = False

    def update(self, now: float, *, pitch_deg: float, gyro: Vector, picked_up: bool, state: str) -> bool:
        """Feed one reading; True on the reading the robot is found placed on a slope."""
        c = self.config
        quiet = c.slope_quiet_radps
        if self.moved_at is None or not (-quiet <= gyro[0] <= quiet and -quiet <= gyro[1] <= quiet
                                         and -quiet <= gyro[2] <= quiet):
            self.moved_at = now
        if picked_up:
            self.held_at = now
        held = self.held_at is not None and (picked_up or now - self.held_at < c.slope_after_put_down_s)
        wanted = (c.slope_pitch_deg[0] < pitch_deg < c.slope_pitch_deg[1] and now - self.moved_at > c.slope_quiet_s
                  and held and state in (ev.UPRIGHT, ev.IN_AIR))
        edge = wanted and not self.active
        self.active = wanted
        return edge


# --------------------------------------------------------------------------- unexpected movement


@dataclass
class UnexpectedMovementDetector:
    """The wheels drive, but the gyro says the body does not turn as they would turn it.

    Per reading with the wheels driven: the body barely turning (under 10°/s) while the wheels
    turn it in place, or while their difference asks for a clearly different turn rate, counts
    one; the body turning against the wheels counts two; turning as they ask takes one off, as
    does a reading with the wheels (nearly) still. More than ``push_count`` makes the event, with
    the side the push came from read off the wheels' average speeds over the counted readings.
    Picked up, on the charger or at a cliff, everything starts again.
    """

    config: AttitudeConfig = field(default_factory=AttitudeConfig)
    count: int = 0
    movement: str = "turned_but_stopped"
    left_sum: float = 0.0
    right_sum: float = 0.0

    def reset(self) -> None:
        """Forget the count."""
        self.count = 0
        self.left_sum = self.right_sum = 0.0

    def _add(self, n: int, left: float, right: float, movement: str) -> None:
        if self.count == 0:
            self.left_sum = self.right_sum = 0.0
        self.count += n
        self.left_sum += n * left
        self.right_sum += n * right
        self.movement = movement

    def update(self, left_mmps: float, right_mmps: float, gyro_z_radps: float) -> tuple[str, str] | None:
        """Feed one reading (wheel speeds, body-frame yaw rate); returns (side, movement) on an event."""
        c = self.config
        if abs(left_mmps) + abs(right_mmps) < c.push_wheels_mmps:
            self.count = max(0, self.count - 1)
            return None
        if abs(gyro_z_radps) < math.radians(c.push_turn_deg_s):
            if (left_mmps > 0) != (right_mmps > 0):
                self._add(1, left_mmps, right_mmps, "turned_but_stopped")
            else:
                wheels_rate = abs(0.5 * (right_mmps - left_mmps) / c.push_wheel_base_mm)
                if abs(wheels_rate - abs(gyro_z_radps)) > c.push_rate_mismatch_radps:
                    self._add(1, left_mmps, right_mmps, "turned_but_stopped")
        elif _sign(right_mmps - left_mmps) != _sign(gyro_z_radps):
            self._add(2, left_mmps, right_mmps, "turned_in_opposite_direction")
        else:
            self.count = max(0, self.count - 1)
            return None
        if self.count <= c.push_count:
            return None
        left, right = self.left_sum / self.count, self.right_sum / self.count
        self.reset()
        left_forward, right_forward = left > 1e-5, right > 1e-5
        if left_forward != right_forward:
            side = "right" if left_forward else "left"
        else:
            side = "front" if left_forward else "back"
        return side, self.movement


# --------------------------------------------------------------------------- all of it


class Attitude:
    """The robot's attitude from its RobotStates: state, filters and the events they make.

    Feed every RobotState to :meth:`update` (and MotorCalibration reports to
    :meth:`motor_calibration`); it returns the events that reading caused, in order.
    :attr:`state` is how the robot lies now (an orientation name of :mod:`driver.events`),
    :attr:`pitch_deg` the body's filtered pitch (nose up positive), :attr:`shaking` whether a
    shake is going on.
    """

    def __init__(self, config: AttitudeConfig | None = None) -> None:
        self.config = config or AttitudeConfig()
        self.treads = OffTreadsClassifier(self.config)
        self.shake = ShakeDetector(self.config)
        self.slope = SlopeDetector(self.config)
        self.movement = UnexpectedMovementDetector(self.config)
        #: Low-passed body-frame accelerometer (mm/s²), None before the first reading.
        self.accel: Vector | None = None
        #: True between a head calibration's start and end reports.
        self.head_calibrating = False

    @property
    def state(self) -> str:
        """How the robot lies now: ``upright``, ``in_air``, ``on_back``, ``on_face``, ``on_left_side``,
        ``on_right_side`` or ``falling``."""
        return self.treads.state

    @property
    def pitch_deg(self) -> float:
        """The body's pitch from the filtered accelerometer, degrees, nose up positive (0 before any reading)."""
        if self.accel is None:
            return 0.0
        return math.degrees(math.atan2(self.accel[0], self.accel[2]))

    @property
    def shaking(self) -> bool:
        """True while the robot is being shaken."""
        return self.shake.shaking

    def reset(self) -> None:
        """Forget everything (a new connection): on the treads, no filter history."""
        self.treads = OffTreadsClassifier(self.config)
        self.shake = ShakeDetector(self.config)
        self.slope = SlopeDetector(self.config)
        self.movement = UnexpectedMovementDetector(self.config)
        self.accel = None
        self.head_calibrating = False

    def motor_calibration(self, motor_id: int, started: bool) -> None:
        """A MotorCalibration report: while the head calibrates its angle is unknown, so the
        body-frame filters and the classifier wait."""
        if motor_id == HEAD_MOTOR:
            self.head_calibrating = started

    def update(self, sample: RobotStateSample, now: float | None = None) -> list[ev.RobotEvent]:
        """Take one RobotState (at ``now`` seconds, default its arrival time); the events it causes."""
        t = sample.received_at if now is None else now
        p = sample.proprioception
        imu = p.imu
        head_accel = (imu.accel_x_mmps2, imu.accel_y_mmps2, imu.accel_z_mmps2)
        out: list[ev.RobotEvent] = []
        duration = self.shake.update(t, head_accel)
        if duration is not None:
            out.append(ev.Shaken(t, duration_s=duration, strength=self.shake.strength(duration)))
        if self.head_calibrating:
            return out
        cos_head, sin_head = math.cos(p.head_angle_rad), math.sin(p.head_angle_rad)
        body = _rotate(head_accel, cos_head, sin_head)
        k = self.config.accel_filter
        prev = self.accel
        self.accel = body if prev is None else (
            (1 - k) * prev[0] + k * body[0], (1 - k) * prev[1] + k * body[1], (1 - k) * prev[2] + k * body[2])
        status = int(sample.status)
        picked_up = bool(status & _PICKED_UP)
        pitch = self.pitch_deg
        previous = self.treads.state
        changed = self.treads.update(t, falling=bool(status & _FALLING), picked_up=picked_up,
                                     side_mmps2=self.accel[1], pitch_deg=pitch)
        if changed is not None:
            out.append(ev.OrientationChanged(t, orientation=changed, previous=previous))
            if changed == ev.UPRIGHT:
                out.append(ev.ReturnedToTreads(t, previous=previous))
        gyro = _rotate((imu.gyro_x_radps, imu.gyro_y_radps, imu.gyro_z_radps), cos_head, sin_head)
        still_pitch = math.degrees(math.atan2(body[0], body[2]))
        if self.slope.update(t, pitch_deg=still_pitch, gyro=gyro, picked_up=picked_up, state=self.state):
            out.append(ev.PlacedOnSlope(t, pitch_deg=still_pitch))
        if not status & _PICKING_OR_PLACING:
            if status & _MOVEMENT_RESET:
                self.movement.reset()
            else:
                found = self.movement.update(p.left_wheel_mmps, p.right_wheel_mmps, gyro[2])
                if found is not None:
                    out.append(ev.UnexpectedMovement(t, side=found[0], movement=found[1]))
        return out


def describe(event: ev.RobotEvent) -> str:
    """A log line's words for an attitude event: ``now on back (was upright)``, ``shaken hard for 5.6 s`` …"""
    if isinstance(event, ev.OrientationChanged):
        return f"now {event.orientation.replace('_', ' ')} (was {event.previous.replace('_', ' ')})"
    if isinstance(event, ev.ReturnedToTreads):
        return f"back on its treads (was {event.previous.replace('_', ' ')})"
    if isinstance(event, ev.Shaken):
        return f"shaken {event.strength} for {event.duration_s:.1f} s"
    if isinstance(event, ev.PlacedOnSlope):
        return f"placed on a slope of {event.pitch_deg:.0f}°"
    if isinstance(event, ev.UnexpectedMovement):
        return f"pushed from the {event.side} ({event.movement.replace('_', ' ')})"
    return event.kind
