"""The robot's attitude from the head's IMU (driver/attitude.py), on virtual time.

Each reading is a real RobotState message turned into a sample the way the Robot does it, with
the IMU in the head's frame as a real Cozmo reports it. Readings come every 30 ms, as a real
robot's do. The last test feeds the RobotStates of a real robot's capture.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from driver import events as ev
from driver.attitude import Attitude, describe
from driver.capture import FROM_ROBOT, entries, read_capture
from driver.protocol import messages as m
from driver.samples import RobotStateSample, RobotStatus, state_from_message

G = 9810.0
STEP = 0.030  # a real robot's RobotState period
HEAD_RANGE_DEG = (-25.0, 44.5)
CAPTURE = Path("cozmo-stack/cozmo-stack/tests/Cozmo.Protocol.Tests/Fixtures/hw_fw2457_first120.log")


@dataclass
class Pose:
    """How the body lies and moves, and what the firmware says about it."""

    pitch_deg: float = 0.0  # body nose-up
    side: float = 0.0  # fraction of gravity on the body's y (left is +)
    head_deg: float = 0.0
    yaw_rate: float = 0.0  # body turn rate, rad/s (left +)
    head_rate: float = 0.0  # head motion, rad/s (up +)
    extra_gyro: tuple[float, float, float] = (0.0, 0.0, 0.0)
    accel: tuple[float, float, float] | None = None  # a raw head-frame reading instead of gravity
    wheels: tuple[float, float] = (0.0, 0.0)
    flags: RobotStatus = RobotStatus(0)
    noise: float = 0.0
    rng: random.Random = field(default_factory=lambda: random.Random(3))


def reading(pose: Pose, t: float) -> RobotStateSample:
    """The RobotState a real Cozmo would send: gravity and rotation as its head-mounted IMU sees them.

    The head's total pitch is the body's plus the head angle, so gravity lands on the head's x
    and z by that angle; the body's yaw shows on the head's z and x, the head's own motion on y
    (nose-up is a negative turn about y, as on the real robot)."""
    total = math.radians(pose.pitch_deg + pose.head_deg)
    flat = math.sqrt(max(0.0, 1.0 - pose.side ** 2))
    accel = pose.accel or (G * flat * math.sin(total), G * pose.side, G * flat * math.cos(total))
    if pose.noise:
        accel = tuple(a + pose.rng.gauss(0.0, pose.noise) for a in accel)  # type: ignore[assignment]
    head = math.radians(pose.head_deg)
    gyro = (pose.yaw_rate * math.sin(head) + pose.extra_gyro[0], -pose.head_rate + pose.extra_gyro[1],
            pose.yaw_rate * math.cos(head) + pose.extra_gyro[2])
    msg = m.RobotState(timestamp=int(t * 1000), head_angle_rad=head, accel_x=accel[0], accel_y=accel[1],
                       accel_z=accel[2], gyro_x=gyro[0], gyro_y=gyro[1], gyro_z=gyro[2],
                       lwheel_speed_mmps=pose.wheels[0], rwheel_speed_mmps=pose.wheels[1], status=int(pose.flags))
    return state_from_message(msg, t)


class Run:
    """An Attitude fed on a virtual clock; remembers every event with its time."""

    def __init__(self) -> None:
        self.attitude = Attitude()
        self.t = 0.0
        self.events: list[ev.RobotEvent] = []

    def feed(self, pose: Pose, seconds: float) -> list[ev.RobotEvent]:
        """``seconds`` of readings of ``pose``; the events they caused."""
        new: list[ev.RobotEvent] = []
        for _ in range(round(seconds / STEP)):
            new += self.attitude.update(reading(pose, self.t))
            self.t = round(self.t + STEP, 6)
        self.events += new
        return new

    def until(self, pose: Pose, done: object, limit: float = 5.0) -> float:
        """Feed ``pose`` until ``done()`` holds (for at most ``limit`` s); the time of the reading that made it so."""
        deadline = self.t + limit
        while self.t < deadline + 1e-9:
            self.events += self.attitude.update(reading(pose, self.t))
            self.t = round(self.t + STEP, 6)
            if done():  # type: ignore[operator]
                return round(self.t - STEP, 6)
        raise AssertionError(f"not reached within {limit} s; events {self.events}")


def turns(events: Iterable[ev.RobotEvent]) -> list[str]:
    return [e.orientation for e in events if isinstance(e, ev.OrientationChanged)]


HELD = RobotStatus.IS_PICKED_UP


# ----------------------------------------------------------------------------- level, head anywhere


@pytest.mark.parametrize("head_deg", [-25.0, -10.0, 0.0, 20.0, 35.0, 44.5])
def test_level_on_its_treads_with_the_head_anywhere(head_deg: float) -> None:
    run = Run()
    assert run.feed(Pose(head_deg=head_deg, noise=300.0), 5.0) == []
    assert run.attitude.state == "upright"
    assert abs(run.attitude.pitch_deg) < 1.5  # the head's tilt is not the body's


def test_a_head_sweeping_through_its_range_changes_nothing() -> None:
    run = Run()
    lo, hi = HEAD_RANGE_DEG
    for i in range(200):  # up and down twice, at about 3 rad/s like the real head, gyro y showing it
        phase = (i % 100) / 50.0
        frac = phase if phase <= 1.0 else 2.0 - phase
        rate = math.radians(hi - lo) / 1.5 * (1 if phase <= 1.0 else -1)
        run.feed(Pose(head_deg=lo + frac * (hi - lo), head_rate=rate), STEP)
        assert abs(run.attitude.pitch_deg) < 1.0
    run.feed(Pose(head_deg=hi), 1.0)
    assert run.events == [] and run.attitude.state == "upright"


# ----------------------------------------------------------------------------- the off-treads states


def test_picked_up_is_in_the_air_at_once_and_put_down_on_the_treads_at_once() -> None:
    run = Run()
    run.feed(Pose(head_deg=-25), 0.5)
    lifted = run.t
    assert turns(run.feed(Pose(head_deg=-25, pitch_deg=5, flags=HELD), STEP)) == ["in_air"]
    assert run.events[-1].at == lifted
    run.feed(Pose(head_deg=-25, pitch_deg=5, flags=HELD), 1.0)
    landed = run.t
    now = run.feed(Pose(head_deg=-25), STEP)
    assert now == [ev.OrientationChanged(landed, "upright", "in_air"), ev.ReturnedToTreads(landed, "in_air")]
    assert describe(now[0]) == "now upright (was in air)" and describe(now[1]) == "back on its treads (was in air)"


@pytest.mark.parametrize("head_deg", [-25.0, 0.0, 40.0])
def test_on_its_back_one_second_after_the_pitch_enters_the_band(head_deg: float) -> None:
    """On its back the lift props the body at 74.5°; with the head up 40° the IMU tilts 114.5°,
    which would read as lying on its face if the head were taken for the body."""
    run = Run()
    run.feed(Pose(head_deg=head_deg), 0.3)
    on_back = Pose(pitch_deg=74.5, head_deg=head_deg, flags=HELD)
    entered = run.until(on_back, lambda: abs(run.attitude.pitch_deg - 74.5) <= 15.0)
    changed = run.until(on_back, lambda: run.attitude.state != "in_air")
    assert run.attitude.state == "on_back"
    assert 1.0 <= changed - entered < 1.0 + STEP
    assert turns(run.events) == ["in_air", "on_back"]  # held first, then laid down


@pytest.mark.parametrize(("stay_s", "expected"), [(0.75, ["in_air"]), (1.05, ["in_air", "on_back", "in_air"])])
def test_a_shorter_stay_on_the_back_is_not_reported(stay_s: float, expected: list[str]) -> None:
    run = Run()
    run.feed(Pose(), 0.3)
    on_back = Pose(pitch_deg=74.5, flags=HELD)
    run.until(on_back, lambda: abs(run.attitude.pitch_deg - 74.5) <= 15.0)
    run.feed(on_back, stay_s)
    run.feed(Pose(pitch_deg=0.0, flags=HELD), 1.0)
    assert turns(run.events) == expected


@pytest.mark.parametrize(("pose", "expected"), [
    (Pose(pitch_deg=-95.0, head_deg=30.0, flags=HELD), "on_face"),
    (Pose(side=1.0, head_deg=-25.0, flags=HELD), "on_right_side"),
    (Pose(side=-1.0, head_deg=44.5, flags=HELD), "on_left_side"),
])
def test_face_and_sides_a_quarter_second_after_the_reading_says_so(pose: Pose, expected: str) -> None:
    run = Run()
    run.feed(Pose(head_deg=pose.head_deg), 0.3)
    test = (lambda: run.attitude.pitch_deg < -80.0) if expected == "on_face" else \
        (lambda: abs(abs(run.attitude.accel[1]) - 9800.0) < 3000.0)  # type: ignore[index]
    seen = run.until(pose, test)
    changed = run.until(pose, lambda: run.attitude.state == expected)
    assert 0.25 <= changed - seen < 0.25 + STEP
    assert turns(run.events) == ["in_air", expected]
    # laid flat again but still held: in the air after the debounce; then put down: on its treads
    held = Pose(head_deg=pose.head_deg, flags=HELD)
    level = run.until(held, lambda: abs(run.attitude.pitch_deg) <= 45.0 and abs(run.attitude.accel[1]) < 6800)  # type: ignore[index]
    in_air = run.until(held, lambda: run.attitude.state == "in_air")
    assert 0.25 <= in_air - level < 0.25 + STEP
    assert turns(run.feed(Pose(head_deg=pose.head_deg), STEP)) == ["upright"]


def test_put_down_from_a_side_is_on_the_treads_at_once() -> None:
    run = Run()
    run.until(Pose(side=1.0, flags=HELD), lambda: run.attitude.state == "on_right_side")
    stood = run.t
    run.until(Pose(), lambda: run.attitude.state != "on_right_side")
    assert run.t - stood <= 0.5  # as soon as the sideways reading leaves the band, no debounce
    assert isinstance(run.events[-1], ev.ReturnedToTreads) and run.events[-1].previous == "on_right_side"


def test_falling_needs_the_robot_off_its_treads() -> None:
    run = Run()
    run.feed(Pose(), 0.3)
    assert run.feed(Pose(accel=(0.0, 0.0, 0.0), flags=RobotStatus.IS_FALLING), 0.5) == []  # level and not held
    assert run.attitude.state == "upright"
    run.feed(Pose(flags=HELD), 0.3)
    dropped = run.t
    now = run.feed(Pose(accel=(0.0, 0.0, 0.0), flags=HELD | RobotStatus.IS_FALLING), STEP)
    assert turns(now) == ["falling"] and now[0].at == dropped  # at once
    assert turns(run.feed(Pose(), STEP)) == ["upright"]  # landed on its treads


@pytest.mark.parametrize(("stay_s", "expected"), [(0.09, ["in_air"]), (0.3, ["in_air", "on_right_side", "in_air"])])
def test_a_short_side_excursion_is_not_reported(stay_s: float, expected: list[str]) -> None:
    run = Run()
    run.feed(Pose(), 0.3)
    run.until(Pose(side=1.0, flags=HELD), lambda: run.attitude.treads.candidate == "on_right_side")
    run.feed(Pose(side=1.0, flags=HELD), stay_s)
    run.feed(Pose(flags=HELD), 1.0)  # the filter takes three readings to leave the band
    assert turns(run.events) == expected


def test_a_reading_that_flaps_between_two_ways_of_lying_is_not_reported() -> None:
    run = Run()
    for i in range(round(10.0 / STEP)):  # held, flipped between on its back and level at 5 Hz
        run.feed(Pose(pitch_deg=74.5 if (i // 3) % 2 else 0.0, flags=HELD), STEP)
    assert turns(run.events) == ["in_air"]


def test_noise_and_handling_on_the_treads_never_flap() -> None:
    run = Run()
    rng = random.Random(11)
    for _ in range(600):  # 18 s of a table being bumped: up to 30° of tilt, noisy readings
        run.feed(Pose(pitch_deg=rng.uniform(-30, 30), side=rng.uniform(-0.4, 0.4), head_deg=rng.uniform(-25, 44.5),
                      noise=800.0, rng=rng), STEP)
    assert run.events == [] and run.attitude.state == "upright"


def test_nothing_is_classified_while_the_head_calibrates() -> None:
    run = Run()
    run.feed(Pose(), 0.3)
    run.attitude.motor_calibration(2, started=True)  # the lift calibrating does not matter
    run.attitude.motor_calibration(3, started=True)
    assert run.feed(Pose(pitch_deg=74.5, flags=HELD), 2.0) == []  # its angle is unknown meanwhile
    run.attitude.motor_calibration(3, started=False)
    run.until(Pose(pitch_deg=74.5, flags=HELD), lambda: run.attitude.state == "on_back")


# ----------------------------------------------------------------------------- shaken


@pytest.mark.parametrize(("seconds", "strength", "settle_s"), [(1.0, "soft", 0.66), (3.0, "medium", 0.78),
                                                             (6.0, "hard", 0.78)])
def test_shaken_reports_its_strength_when_it_stops(seconds: float, strength: str, settle_s: float) -> None:
    run = Run()
    run.feed(Pose(), 0.3)
    start = run.t
    swing = 20000.0
    for i in range(round(seconds / STEP)):  # swung round a circle at 3 Hz, rocking as it goes
        phase = 2 * math.pi * 3.0 * i * STEP
        run.feed(Pose(accel=(swing * math.sin(phase), swing * math.cos(phase), G), flags=HELD,
                      extra_gyro=(4.0 * math.cos(phase), 0.0, 0.0)), STEP)
        assert not any(isinstance(e, ev.Shaken) for e in run.events)
    assert run.attitude.shaking
    stopped = run.t
    run.until(Pose(flags=HELD), lambda: not run.attitude.shaking)
    shaken = [e for e in run.events if isinstance(e, ev.Shaken)]
    assert len(shaken) == 1 and shaken[0].strength == strength and shaken[0].value == strength
    # the filtered magnitude (0.95 old + 0.05 new; 22 276 swinging, 9810 still) passes 16 000 on
    # the 14th swinging reading (0.39 s in) and falls under 13 000 on the 27th still one (0.78 s;
    # after only a second of shaking it had not reached its top: the 23rd)
    assert shaken[0].at - stopped == pytest.approx(settle_s, abs=0.01)
    assert shaken[0].duration_s == pytest.approx(seconds - 0.39 + settle_s, abs=0.02) and start < stopped
    assert "on_left_side" not in turns(run.events) and "on_right_side" not in turns(run.events)
    assert not any(isinstance(e, ev.PlacedOnSlope) for e in run.events)  # it was never still


def test_rough_handling_below_the_threshold_is_no_shake() -> None:
    run = Run()
    for i in range(200):
        phase = 2 * math.pi * 3.0 * i * STEP
        run.feed(Pose(accel=(11000 * math.sin(phase), 11000 * math.cos(phase), G), flags=HELD), STEP)
    assert not run.attitude.shaking and not [e for e in run.events if isinstance(e, ev.Shaken)]


# ----------------------------------------------------------------------------- placed on a slope


def test_held_still_nose_up_is_placed_on_a_slope_once() -> None:
    run = Run()
    run.feed(Pose(head_deg=30.0), 0.3)
    held = Pose(pitch_deg=25.0, head_deg=30.0, flags=HELD)
    run.feed(Pose(pitch_deg=25.0, head_deg=30.0, flags=HELD, extra_gyro=(0.3, 0.0, 0.0)), 0.6)  # being tilted
    last_moved = run.t - STEP
    found = run.until(held, lambda: any(isinstance(e, ev.PlacedOnSlope) for e in run.events))
    assert 0.4 < found - last_moved <= 0.4 + STEP
    slope = [e for e in run.events if isinstance(e, ev.PlacedOnSlope)][0]
    assert slope.pitch_deg == pytest.approx(25.0, abs=0.5)
    run.feed(held, 2.0)
    assert len([e for e in run.events if isinstance(e, ev.PlacedOnSlope)]) == 1


@pytest.mark.parametrize(("pose", "after_s", "expected"), [
    (Pose(pitch_deg=20.0), 0.0, True),  # put down on a slope: still within 1.5 s of the put-down
    (Pose(pitch_deg=20.0, head_deg=-25.0), 1.2, False),  # kept moving past the 1.5 s
    (Pose(pitch_deg=8.0), 0.0, False),  # nearly level
    (Pose(pitch_deg=60.0), 0.0, False),  # too steep
    (Pose(pitch_deg=20.0, extra_gyro=(0.0, 0.0, 0.02)), 0.0, False),  # never still
])
def test_placed_on_a_slope_after_a_put_down(pose: Pose, after_s: float, expected: bool) -> None:
    run = Run()
    run.feed(Pose(pitch_deg=pose.pitch_deg, head_deg=pose.head_deg, flags=HELD, extra_gyro=(0.5, 0.0, 0.0)), 1.0)
    moving = Pose(pitch_deg=pose.pitch_deg, head_deg=pose.head_deg, extra_gyro=(0.5, 0.0, 0.0))
    run.feed(moving, after_s)  # on the ground, still settling
    run.feed(pose, 2.0)
    assert any(isinstance(e, ev.PlacedOnSlope) for e in run.events) is expected


def test_put_down_flat_after_being_held_tilted_is_no_slope() -> None:
    run = Run()
    run.feed(Pose(pitch_deg=40.0, flags=HELD, extra_gyro=(0.5, 0.0, 0.0)), 1.0)
    run.feed(Pose(extra_gyro=(0.5, 0.0, 0.0)), 0.1)  # set down flat
    run.feed(Pose(), 2.0)
    assert not any(isinstance(e, ev.PlacedOnSlope) for e in run.events)


# ----------------------------------------------------------------------------- unexpected movement


def _pushed(run: Run, pose: Pose, limit: float = 2.0) -> ev.UnexpectedMovement:
    run.until(pose, lambda: any(isinstance(e, ev.UnexpectedMovement) for e in run.events), limit=limit)
    found = [e for e in run.events if isinstance(e, ev.UnexpectedMovement)]
    assert len(found) == 1
    return found[0]


def test_a_turn_in_place_that_does_not_turn_counts_up_to_the_event() -> None:
    run = Run()
    start = run.t
    event = _pushed(run, Pose(wheels=(-40.0, 40.0)))
    assert (event.side, event.movement, event.value) == ("left", "turned_but_stopped", "left")
    assert round((event.at - start) / STEP) + 1 == 11  # more than ten counts
    assert describe(event) == "pushed from the left (turned but stopped)"


def test_turned_against_the_wheels_counts_double() -> None:
    run = Run()
    start = run.t
    event = _pushed(run, Pose(wheels=(50.0, -50.0), yaw_rate=1.0, head_deg=44.5))
    assert (event.side, event.movement) == ("right", "turned_in_opposite_direction")
    assert round((event.at - start) / STEP) + 1 == 6


def test_an_arc_that_does_not_turn_was_blocked_in_front_or_behind() -> None:
    assert _pushed(Run(), Pose(wheels=(20.0, 80.0))).side == "front"
    assert _pushed(Run(), Pose(wheels=(-20.0, -80.0))).side == "back"


def test_driving_as_the_wheels_say_is_never_unexpected() -> None:
    run = Run()
    run.feed(Pose(wheels=(100.0, 100.0)), 3.0)  # straight
    run.feed(Pose(wheels=(-40.0, 40.0), yaw_rate=80.0 / 46.0), 3.0)  # turning in place, gyro agrees
    # a slow turn with the head up: the body's yaw shows only partly on the head's z
    run.feed(Pose(wheels=(-5.0, 15.0), yaw_rate=0.2, head_deg=44.5), 3.0)
    run.feed(Pose(wheels=(5.0, 5.0)), 1.0)  # barely moving
    assert run.events == []


def test_held_on_the_charger_or_at_a_cliff_the_count_starts_again() -> None:
    for flag in (RobotStatus.IS_PICKED_UP, RobotStatus.IS_ON_CHARGER, RobotStatus.CLIFF_DETECTED):
        run = Run()
        run.feed(Pose(wheels=(-40.0, 40.0)), 8 * STEP)
        run.feed(Pose(wheels=(-40.0, 40.0), flags=flag), STEP)
        run.feed(Pose(wheels=(-40.0, 40.0)), 8 * STEP)
        assert not any(isinstance(e, ev.UnexpectedMovement) for e in run.events), flag
    run = Run()
    run.feed(Pose(wheels=(-40.0, 40.0)), 8 * STEP)
    run.feed(Pose(), 8 * STEP)  # wheels still: the count decays
    run.feed(Pose(wheels=(-40.0, 40.0)), 8 * STEP)
    assert not any(isinstance(e, ev.UnexpectedMovement) for e in run.events)


# ----------------------------------------------------------------------------- a real robot


def _capture_states(path: Path) -> list[RobotStateSample]:
    """The RobotStates a real robot sent, read with the driver's capture reader, each stamped with
    the time the host received it (bursts of two in one frame included)."""
    return [state_from_message(e.message, e.t) for e in entries(read_capture(path))
            if e.direction == FROM_ROBOT and e.name == "RobotState"]


def test_a_real_robot_on_its_treads_with_its_head_moving(real_data: Path) -> None:
    """A real Cozmo (firmware 2457) on its charger, head from its low stop (−25°) up to 23°.

    Its accelerometer reads about (−3300, 1000, 9700) with the head down: a body-frame reading
    of that would say 19° nose-down. The attitude stays on the treads, and its pitch follows the
    robot's own IMU-derived pose pitch as the head rises."""
    states = _capture_states(real_data / CAPTURE)
    assert len(states) == 28
    heads = [math.degrees(s.proprioception.head_angle_rad) for s in states]
    assert heads[0] == pytest.approx(-25.0, abs=0.1) and max(heads) > 22.0
    assert min(s.proprioception.imu.accel_x_mmps2 for s in states) < -3000  # gravity on the head's x
    attitude = Attitude()
    for sample in states:
        assert attitude.update(sample) == []
        assert attitude.state == "upright" and not attitude.shaking
        assert abs(attitude.pitch_deg) < 7.0  # level: it stands a little nose-up on the charger
    # the firmware's own pitch starts from 0 at SyncTime and settles within the half second;
    # once both have settled they agree
    assert attitude.pitch_deg == pytest.approx(math.degrees(states[-1].proprioception.pose.pitch_rad), abs=1.0)
