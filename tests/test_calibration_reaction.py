"""ReactToMotorCalibration: the robot holds still while a motor calibrates, and not for good.

The daemon runs on the virtual clock against the simulator with a personality whose tree changes
the backpack lights twice a second; the reaction to MotorCalibration must hold that tree back
until the calibrating motor reports done, and give up after its ``timeout_s`` (with a warning in
the log) when the motor never does. The lights the simulator receives show when the tree ran.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from driver.sim.calibration import HEAD_MOTOR

from .conftest import eventually
from .test_e2e_default import RESOURCES
from .virtual_daemon import VirtualDaemon, run_on_virtual_clock, start_virtual

pytestmark = pytest.mark.e2e

BLINKING = """\
name: blinking
reactions:
  MotorCalibration: {behavior: ReactToMotorCalibration, params: {timeout_s: 4}, priority: 90}
root:
  type: sequence
  children:
    - {type: backpack_lights, params: {colors: [red]}}
    - {type: wait, params: {seconds: 0.25}}
    - {type: backpack_lights, params: {colors: [blue]}}
    - {type: wait, params: {seconds: 0.25}}
"""


def _lights_between(world: VirtualDaemon, start: float, end: float) -> int:
    return sum(1 for t, name, _ in world.received if name == "AnimBackpackLights" and start < t <= end)


async def _blinking(tmp_path: Path) -> VirtualDaemon:
    personality = tmp_path / "blinking.yaml"
    personality.write_text(BLINKING)
    world = await start_virtual(tmp_path, "--personality", str(personality), "--resources", str(RESOURCES),
                                "--duration", "60", ready=r"running \S+ at 10 Hz")
    await asyncio.sleep(2.0)
    assert _lights_between(world, world.now() - 1.0, world.now()) >= 3, "the tree does not blink"
    return world


async def _stop(world: VirtualDaemon) -> None:
    world.signal(signal.SIGINT)
    code = await world.wait(20.0)
    await world.close()
    assert code == 0, world.text


def test_the_tree_waits_while_the_head_calibrates_and_goes_on_when_it_is_done(tmp_path: Path) -> None:
    async def body() -> None:
        world = await _blinking(tmp_path)
        try:
            world.sim._calibration_report(HEAD_MOTOR, started=True)
            asked = world.now()
            await asyncio.sleep(1.5)
            assert _lights_between(world, asked + 0.3, world.now()) == 0, "the tree ran while the head calibrated"
            world.sim._calibrated(HEAD_MOTOR)
            done = world.now()
            await eventually(lambda: _lights_between(world, done, world.now()) >= 2, timeout=2.0, interval=0.05)
            assert "did not finish" not in world.text
        finally:
            await _stop(world)

    run_on_virtual_clock(body(), timeout=120)


def test_a_calibration_that_never_ends_holds_the_robot_only_until_the_timeout(tmp_path: Path) -> None:
    async def body() -> None:
        world = await _blinking(tmp_path)
        try:
            world.sim._calibration_report(HEAD_MOTOR, started=True)  # and never done
            asked = world.now()
            await asyncio.sleep(3.5)
            assert _lights_between(world, asked + 0.3, world.now()) == 0, "the tree ran while the head calibrated"
            await eventually(lambda: _lights_between(world, asked, world.now()) >= 2, timeout=3.0, interval=0.05)
            resumed = min(t for t, name, _ in world.received if name == "AnimBackpackLights" and t > asked)
            assert 3.9 <= resumed - asked <= 4.6, f"the tree went on {resumed - asked:.2f} s after the calibration"
            assert "motor calibration did not finish within 4 s" in world.text
        finally:
            await _stop(world)

    run_on_virtual_clock(body(), timeout=120)
