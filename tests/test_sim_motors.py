"""Motors that come to rest as a real robot's do (hardware.md §1 and §7.12): the head stops short
going up and sinks past going down, the lift overshoots going up and sinks past going down, and
the driver's head and lift actions still complete on them."""

from __future__ import annotations

import math

import pytest

from driver.hardware import HEAD_SETTLE_RAD, LIFT_SETTLE_MM
from driver.robot import Robot
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
