"""Which firmware the driver drives: 2381 and 2457 alike; factory firmware refused, saying why."""

from __future__ import annotations

import asyncio
import logging

import pytest

from driver.robot import Robot, RobotError
from driver.sim.server import SimulatedCozmo

from .conftest import run

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("version", [2381, 2457])
def test_anki_and_ddl_firmware_are_driven_alike(version: int, caplog: pytest.LogCaptureFixture) -> None:
    async def body() -> None:
        sim = await SimulatedCozmo(port=0, firmware_version=version, calibrate=False).start()
        robot = Robot(*sim.address)
        try:
            await robot.connect()
            assert robot.info.firmware_version == version
            await robot.set_head_angle(0.2)
        finally:
            await robot.disconnect()
            await sim.stop()

    with caplog.at_level(logging.WARNING, logger="driver.robot"):
        run(body())
    assert "some messages may differ" not in caplog.text


@pytest.mark.parametrize("version", [10501, 10502, 10700])
def test_factory_firmware_is_refused_at_once_with_what_to_do(version: int) -> None:
    async def body() -> None:
        sim = await SimulatedCozmo(port=0, firmware_version=version, calibrate=False).start()
        robot = Robot(*sim.address, connect_timeout_s=20)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        try:
            with pytest.raises(RobotError, match=rf"factory/recovery firmware {version}.*Connect the Cozmo app"):
                await robot.connect()
            assert loop.time() - t0 < 2.0 and sim.connections == 1  # not tried again and again
            assert sim.counts["SyncTime"] == 0  # nothing it would misread was sent
        finally:
            await sim.stop()

    run(body())
