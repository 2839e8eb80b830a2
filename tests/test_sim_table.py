"""The simulated table: its edge is a cliff to the front sensor, and the robot stays on it."""

from __future__ import annotations

import math

import pytest

from driver.hardware import CLIFF_SENSOR_AHEAD_MM
from driver.samples import RobotStatus
from driver.sim.body import Body
from driver.sim.table import Table


def _drive(body: Body, seconds: float, left: float = 100.0, right: float = 100.0) -> None:
    body.drive(left, right)
    for _ in range(round(seconds / 0.01)):
        body.step(0.01)


def test_driving_to_the_edge_shows_a_cliff_and_stop_on_cliff_stops_the_wheels_there() -> None:
    body = Body(table=Table(400.0, 300.0), stop_on_cliff=True)
    assert body.cliff_raw() == (880, 0, 0, 0)  # one live sensor, as on a real robot, over the table
    _drive(body, 3.0)  # 300 mm ahead; the edge is 200 mm away
    assert body.sees_cliff and body.status() & RobotStatus.CLIFF_DETECTED
    assert body.cliff_raw()[0] < 100
    # stopped where the sensor first looked past the edge (and the wheels' few mm of braking)
    assert 200 - CLIFF_SENSOR_AHEAD_MM <= body.x_mm <= 200 - CLIFF_SENSOR_AHEAD_MM + 8, body.x_mm
    assert body.left_speed == body.right_speed == 0.0
    _drive(body, 0.5, -100.0, -100.0)  # backing away: the floor is back
    assert not body.sees_cliff and body.x_mm < 200 - CLIFF_SENSOR_AHEAD_MM - 20


def test_without_stop_on_cliff_the_robot_still_stays_on_the_table() -> None:
    body = Body(table=Table(400.0, 300.0))
    body.angle_rad = math.pi / 2
    _drive(body, 4.0)
    assert body.sees_cliff and body.y_mm == pytest.approx(150.0)


def test_turning_away_from_the_edge_clears_the_cliff() -> None:
    body = Body(table=Table(400.0, 300.0), stop_on_cliff=True)
    _drive(body, 3.0)
    body.turn_in_place(math.pi, math.pi, math.radians(2), absolute=False)
    for _ in range(300):
        body.step(0.01)
    assert not body.sees_cliff


def test_no_table_is_an_endless_floor() -> None:
    body = Body(stop_on_cliff=True)
    _drive(body, 3.0)  # 300 mm asked; the wheels reach 27/40 and 29/40 of it (hardware.md §1)
    assert not body.sees_cliff and math.hypot(body.x_mm, body.y_mm) == pytest.approx(210.0, abs=10)


@pytest.mark.parametrize("text", ["900", "axb", "900x600x3", "", "50x50"])
def test_a_bad_table_is_refused_saying_what_was_expected(text: str) -> None:
    with pytest.raises(ValueError, match="expected WIDTHxDEPTH|too small"):
        Table.parse(text)


def test_a_table_is_read_from_its_size_in_millimetres() -> None:
    assert Table.parse("900x600") == Table(900.0, 600.0)
    assert Table.parse("1200X800mm") == Table(1200.0, 800.0)


def test_each_time_the_middle_reaches_the_rim_is_kept_as_an_overrun() -> None:
    """The rim holds the middle where a real robot would have gone over: each arrival at it from the
    table counts once, however long the wheels push on; leaving it and coming back counts again."""
    body = Body(table=Table(400.0, 300.0))
    _drive(body, 2.8)
    assert body.sees_cliff and body.overruns == []  # the sensor looks past the edge; the middle is on the table
    _drive(body, 2.0)
    assert [round(x) for _, x, _ in body.overruns] == [200] and body.on_rim
    _drive(body, 2.0)  # pushing on at the rim
    assert len(body.overruns) == 1
    _drive(body, 1.0, -100.0, -100.0)
    assert not body.on_rim
    _drive(body, 2.0)
    assert len(body.overruns) == 2 and body.overruns[1][0] > body.overruns[0][0]
