"""The simulated charger as a real robot's (hardware.md §2, §7.9): the flag lags the contacts by
0.5 s, the battery field reads the charge rail while on them, and charging stops once the cell is
full (after 5 s at least) or after 30 minutes."""

from __future__ import annotations

import asyncio

import pytest

from driver import events as ev
from driver.hardware import CHARGE_RAIL_V, CHARGING_MAX_S
from driver.robot import Robot
from driver.samples import RobotStatus
from driver.sim.body import BATTERY_FULL_V, Body
from driver.sim.server import SimulatedCozmo

from .conftest import eventually, run


def _status(body: Body) -> RobotStatus:
    return RobotStatus(body.status())


def test_the_flags_lag_the_contacts_and_charging_ends_when_the_cell_is_full() -> None:
    body = Body(battery_v=3.8)
    body.on_charger = True
    for _ in range(15):  # 0.45 s on the contacts: no flag yet, but the rail shows at once
        body.step(0.03)
    assert RobotStatus.IS_ON_CHARGER not in _status(body) and body.reported_battery_v == CHARGE_RAIL_V
    body.step(0.06)
    assert {RobotStatus.IS_ON_CHARGER, RobotStatus.IS_CHARGING} <= set(_status(body))
    body.on_charger = False
    body.step(0.03)
    assert not {RobotStatus.IS_ON_CHARGER, RobotStatus.IS_CHARGING} & set(_status(body))
    assert body.reported_battery_v == pytest.approx(3.8, abs=0.01)

    full = Body(battery_v=BATTERY_FULL_V)  # a full cell still charges 5 s, then only the flag stays
    full.on_charger = True
    for _ in range(int(4.0 / 0.1)):
        full.step(0.1)
    assert RobotStatus.IS_CHARGING in _status(full)
    for _ in range(int(2.0 / 0.1)):
        full.step(0.1)
    assert RobotStatus.IS_CHARGING not in _status(full) and RobotStatus.IS_ON_CHARGER in _status(full)

    empty = Body(battery_v=3.3)  # never full this side of 30 minutes: charging stops then anyway
    empty.on_charger = True
    for _ in range(int(CHARGING_MAX_S / 10) + 2):
        empty.step(10.0)
    assert RobotStatus.IS_CHARGING not in _status(empty) and empty.battery_v < BATTERY_FULL_V


@pytest.mark.e2e
def test_the_robot_hears_the_charger_half_a_second_after_the_contacts() -> None:
    async def body() -> None:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address, lost_after=2.0)
        loop = asyncio.get_running_loop()
        flags: list[tuple[float, bool]] = []
        robot.add_listener(lambda e: flags.append((loop.time(), bool(e.value)))
                           if isinstance(e, ev.StatusChanged) and e.kind == "on_charger" else None)
        try:
            await robot.connect()
            await asyncio.sleep(0.2)
            assert robot.state is not None and robot.state.battery.voltage_v < 4.3
            placed = loop.time()
            sim.set_on_charger(True)
            await eventually(lambda: flags, timeout=3.0)
            assert flags[0][1] and flags[0][0] - placed >= 0.45, flags[0][0] - placed
            assert robot.state.battery.voltage_v == pytest.approx(CHARGE_RAIL_V, abs=0.01)
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body())
