"""A real third-party client, PyCozmo 0.8.0's Client, drives our simulated Cozmo."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from driver.sim.server import SimulatedCozmo

from .conftest import run

pycozmo = pytest.importorskip("pycozmo", reason="PyCozmo is a test-only dependency ([test] extra)")

pytestmark = pytest.mark.e2e


def _drive_with_pycozmo(addr: tuple[str, int], out: dict[str, Any]) -> None:
    cli = pycozmo.Client(robot_addr=addr)
    try:
        cli.start()
        cli.connect()
        cli.wait_for_robot(timeout=5)
        out["ready"] = True
        states: list[Any] = []
        stamps: list[int] = []
        cli.add_handler(pycozmo.event.EvtRobotStateUpdated, lambda c: states.append(time.monotonic()))
        cli.conn.add_handler(pycozmo.protocol_encoder.RobotState, lambda c, pkt: stamps.append(pkt.timestamp))
        # As on a real robot, states begin once lift and head have calibrated (about 1.3 s).
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline and len(states) < 5:
            time.sleep(0.05)
        time.sleep(0.2)
        out["states"] = len(states)
        out["stamps"] = list(stamps)
        cli.set_head_angle(0.6)
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and abs(cli.head_angle.radians - 0.6) > 0.02:
            time.sleep(0.05)
        out["head"] = cli.head_angle.radians
    except Exception as exc:  # reported by the test below
        out["error"] = repr(exc)
    finally:
        cli.disconnect()
        cli.stop()


def test_pycozmo_client_connects_gets_state_and_moves_the_head() -> None:
    async def body() -> None:
        sim = await SimulatedCozmo(port=0).start()
        out: dict[str, Any] = {}
        th = threading.Thread(target=_drive_with_pycozmo, args=(sim.address, out), daemon=True)
        th.start()
        while th.is_alive():
            await asyncio.sleep(0.05)
        await sim.stop()
        assert "error" not in out, out.get("error")
        assert out.get("ready") is True
        assert out["states"] >= 5  # ~33 Hz RobotState
        assert 1200 <= out["stamps"][0] <= 1500  # the first after calibration, as a real robot's (1,305 ms)
        # the robot's own clock: timestamps step by exactly 30 ms, whenever the host's loop ran the tick
        steps = [b - a for a, b in zip(out["stamps"], out["stamps"][1:], strict=False)]
        assert len(steps) >= 4 and all(step > 0 and step % 30 == 0 for step in steps), steps
        assert out["head"] == pytest.approx(0.6, abs=0.02)
        assert sim.body.head.position == pytest.approx(0.6, abs=0.02)
        assert sim.counts["SetHeadAngle"] == 1 and sim.counts["GetManufacturingInfo"] >= 1

    run(body(), timeout=60)
