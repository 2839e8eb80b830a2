"""Motors that come to rest as a real robot's do (hardware.md §1 and §7.12): the head stops short
going up and sinks past going down, the lift overshoots going up and sinks past going down, and
the driver's head and lift actions still complete on them; wheels driven with DriveWheels fall
short of the asked speed, each side by its own share, while the firmware's turns arrive and its
point turns at speed hold their rate."""

from __future__ import annotations

import asyncio
import math

import pytest

from brain.app.simulate import run_virtual
from driver.hardware import HEAD_SETTLE_RAD, LIFT_SETTLE_MM, MAX_BODY_ROTATION_DPS, TRACK_MM
from driver.memlink import MemoryNetwork
from driver.protocol import messages as m
from driver.robot import Robot
from driver.samples import lift_angle_rad
from driver.sim.body import Body
from driver.sim.server import SimulatedCozmo

from .conftest import run


def _settle(joint: object, start: float, target: float) -> float:
    body = Body()
    j = getattr(body, str(joint))
    j.position = start
    j.command_target(target, 10.0 if joint == "head" else 200.0)
    for _ in range(200):
        j.step(0.03)
    assert j.in_position and not j.moving
    return float(j.position)


@pytest.mark.parametrize(("joint", "start", "target", "rest"), [
    ("head", -0.42, 0.30, 0.286),   # CS-ctl HEAD: up, stops short
    ("head", 0.29, -0.25, -0.292),  # down, sinks past
    ("lift", 33.0, 50.0, 51.7),     # CS-ctl LIFT: up, overshoots
    ("lift", 51.7, 36.0, 32.6),     # down, sinks past
])
def test_a_real_robots_measured_moves_come_to_rest_where_its_did(joint: str, start: float, target: float,
                                                                 rest: float) -> None:
    assert _settle(joint, start, target) == pytest.approx(rest, abs=0.0015 if joint == "head" else 0.15)


def test_a_short_move_errs_in_proportion_and_a_stop_never_passes_a_limit() -> None:
    up, per = HEAD_SETTLE_RAD[0]
    assert _settle("head", 0.0, 0.1) == pytest.approx(0.1 + up * 0.1 / per, abs=1e-6)
    assert _settle("head", 0.2, 0.2) == pytest.approx(0.2)  # no move, no error
    assert _settle("lift", 40.0, 32.0) == pytest.approx(32.0)  # the low stop holds it
    down, per = LIFT_SETTLE_MM[1]
    assert _settle("lift", 80.0, 70.0) == pytest.approx(70.0 - down * 10.0 / per, abs=1e-6)


@pytest.mark.e2e
def test_head_and_lift_actions_complete_on_motors_that_do_not_land_exactly() -> None:
    async def body() -> tuple[float, float]:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address)
        try:
            await robot.connect()
            await robot.set_head_angle(0.29, max_speed=10.0)
            await robot.set_head_angle(-0.25, max_speed=10.0)  # sinks 2.4 degrees past
            await robot.set_lift_height(51.7)
            await robot.set_lift_height(36.0)  # sinks 3.4 mm past
            state = robot.state
            assert state is not None
            return state.proprioception.head_angle_rad, state.proprioception.lift_height_mm
        finally:
            await robot.disconnect()
            await sim.stop()

    head, lift = run(body(), timeout=30)
    assert head == pytest.approx(-0.292, abs=0.01) and math.isclose(lift, 32.6, abs_tol=0.6)


async def _wheels(sim_kwargs: dict[str, bool]) -> dict[str, tuple[float, float]]:
    """Drive 40/40 and -40/-40 for a second each and turn 90 degrees, over the memory network on
    the virtual clock; the wheel speeds the robot reported at the end of each drive, and the turn's
    error (degrees) with the time it took."""
    net = MemoryNetwork(latency_s=0.002)
    sim = await SimulatedCozmo("127.0.0.1", 5551, calibrate=False).start(open_link=net.open_link)
    sim.body.wheel_lag = sim_kwargs.get("wheel_lag", True)
    robot = Robot("127.0.0.1", 5551)
    await robot.connect(open_link=net.open_link)
    out: dict[str, tuple[float, float]] = {}
    try:
        for name, speed in (("forward", 40.0), ("backward", -40.0)):
            robot.drive_wheels(speed, speed)
            await asyncio.sleep(1.0)
            assert robot.state is not None
            p = robot.state.proprioception
            out[name] = (p.left_wheel_mmps, p.right_wheel_mmps)
        robot.drive_wheels(0.0, 0.0)
        await asyncio.sleep(0.5)
        start = robot.state.proprioception.pose.angle_rad
        t0 = asyncio.get_running_loop().time()
        await robot.turn_in_place(math.radians(90))
        turned = math.degrees(robot.state.proprioception.pose.angle_rad - start)
        out["turn"] = (turned - 90.0, asyncio.get_running_loop().time() - t0)
    finally:
        await robot.disconnect()
        await sim.stop()
    return out


def test_wheels_fall_short_of_drive_wheels_per_side_and_turns_still_arrive() -> None:
    real = run_virtual(_wheels({}))
    assert real["forward"] == pytest.approx((27.0, 29.0), abs=0.5)  # hardware.md §1: asked 40/40
    assert real["backward"] == pytest.approx((-32.0, -34.0), abs=0.5)  # asked -40/-40
    error, took = real["turn"]
    assert abs(error) < 3.0 and took < 2.0  # the firmware's turn closes its own loop
    ideal = run_virtual(_wheels({"wheel_lag": False}))
    assert ideal["forward"] == pytest.approx((40.0, 40.0)) and ideal["backward"] == pytest.approx((-40.0, -40.0))


def test_the_lift_arm_turns_at_the_asked_radians_per_second() -> None:
    """SetLiftHeight's speed is the arm's, in rad/s (hardware.md §1): the simulator turns it into mm/s
    where the arm is, so half a second at 0.5 rad/s swings the arm about a quarter of a radian."""

    async def main() -> list[float]:
        net = MemoryNetwork(latency_s=0.002)
        sim = await SimulatedCozmo("127.0.0.1", 5551, calibrate=False).start(open_link=net.open_link)
        robot = Robot("127.0.0.1", 5551)
        await robot.connect(open_link=net.open_link)
        try:
            angles = []
            robot.set_lift_height(92.0, max_speed=0.5)
            for _ in range(2):
                await asyncio.sleep(0.5)
                assert robot.state is not None
                angles.append(lift_angle_rad(robot.state.proprioception.lift_height_mm))
            return angles
        finally:
            await robot.disconnect()
            await sim.stop()

    first, second = run_virtual(main())
    assert second - first == pytest.approx(0.25, abs=0.03), (first, second)


async def _point_turns() -> dict[str, tuple[float, float, float]]:
    """Each motion command below held for 0.6 s after 0.4 s to reach its speed, over the memory
    network on the virtual clock: the wheel speeds the robot reported (left, right, mm/s) and the
    rate it turned at meanwhile (rad/s, from its pose)."""
    net = MemoryNetwork(latency_s=0.002)
    sim = await SimulatedCozmo("127.0.0.1", 5551, calibrate=False).start(open_link=net.open_link)
    robot = Robot("127.0.0.1", 5551)
    await robot.connect(open_link=net.open_link)
    commands = {
        "at 1 rad/s": m.TurnInPlaceAtSpeed(speed_rad_per_sec=1.0, accel_rad_per_sec2=0.0),
        "at -2 rad/s, slowly reached": m.TurnInPlaceAtSpeed(speed_rad_per_sec=-2.0, accel_rad_per_sec2=8.0),
        "too fast": m.TurnInPlaceAtSpeed(speed_rad_per_sec=20.0, accel_rad_per_sec2=0.0),
        "at 0: a stop": m.TurnInPlaceAtSpeed(speed_rad_per_sec=0.0, accel_rad_per_sec2=0.0),
        "curvature of radius 0": m.DriveWheelsCurvature(speed_mmps=1.5, accel_mmps2=0.0, curvature_radius_mm=0),
        "curvature of radius 100": m.DriveWheelsCurvature(speed_mmps=50.0, accel_mmps2=0.0,
                                                          curvature_radius_mm=100),
        "its wheels driven": m.DriveWheels(lwheel_speed_mmps=50.0 * (1 - TRACK_MM / 200),
                                           rwheel_speed_mmps=50.0 * (1 + TRACK_MM / 200)),
    }
    out: dict[str, tuple[float, float, float]] = {}
    try:
        for name, command in commands.items():
            robot.send(command)
            await asyncio.sleep(0.4)
            assert robot.state is not None
            start = robot.state.proprioception.pose.angle_rad
            await asyncio.sleep(0.6)
            p = robot.state.proprioception
            turned = math.remainder(p.pose.angle_rad - start, math.tau)
            out[name] = (p.left_wheel_mmps, p.right_wheel_mmps, turned / 0.6)
    finally:
        await robot.disconnect()
        await sim.stop()
    return out


def test_a_point_turn_at_speed_runs_closed_loop_at_its_rate_in_radians_until_stopped() -> None:
    """TurnInPlaceAtSpeed and DriveWheelsCurvature of radius 0 are the firmware's point turn (VC-cfg,
    hardware.md §1): a rate in rad/s its steering controller holds on the odometry, so the treads
    reach ±rate·track/2 with no DriveWheels shortfall, clamped to 300 °/s; a rate of 0 stops. Any
    other radius is an arc in mm/s, its wheels driven as DriveWheels drives them (open loop)."""
    half = TRACK_MM / 2
    turns = run_virtual(_point_turns())
    assert turns["at 1 rad/s"] == pytest.approx((-half, half, 1.0), abs=0.05)
    assert turns["at -2 rad/s, slowly reached"] == pytest.approx((2 * half, -2 * half, -2.0), abs=0.05)
    top = math.radians(MAX_BODY_ROTATION_DPS)
    assert turns["too fast"] == pytest.approx((-top * half, top * half, top), abs=0.05)
    assert turns["at 0: a stop"] == pytest.approx((0.0, 0.0, 0.0), abs=0.05)
    assert turns["curvature of radius 0"] == pytest.approx((-1.5 * half, 1.5 * half, 1.5), abs=0.05)
    left, right, rate = turns["curvature of radius 100"]
    assert turns["curvature of radius 100"] == pytest.approx(turns["its wheels driven"], abs=0.5)
    assert 0 < left < right and rate == pytest.approx((right - left) / TRACK_MM, abs=0.05)
