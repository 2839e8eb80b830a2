"""The simulator's start-up against a real robot's: after SyncTime, lift and head calibrate, the
cubes advertise, and the first RobotState comes with the head's "done" about 1.3 s later.

The real figures come from a firmware-2457 capture in ../shared/real_data (the test skips
without it); the simulator's are measured over UDP by our Robot, from the moment the simulated
robot received SyncTime.
"""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import pytest

from driver.capture import FROM_ROBOT, TO_ROBOT, entries, read_capture
from driver.hardware import HEAD_CALIBRATED_S
from driver.protocol.frame import decode_frame
from driver.robot import Robot
from driver.sim.server import SimulatedCozmo

from .conftest import run

pytestmark = pytest.mark.e2e

FIRST120 = "cozmo-stack/cozmo-stack/tests/Cozmo.Protocol.Tests/Fixtures/hw_fw2457_first120.log"


def _milestones(seen: list[tuple[float, str, Any]], sync_at: float) -> dict[str, float]:
    """Seconds after SyncTime of each start-up milestone in a list of (time, name, message) from the robot."""
    def first(pred: Any) -> float:
        return next(t for t, name, msg in seen if pred(name, msg)) - sync_at

    def calibration(motor: int, started: bool) -> Any:
        return lambda name, msg: (name == "MotorCalibration" and int(msg.motor_id) == motor
                                  and bool(msg.calib_started) == started)

    state = next(msg for _, name, msg in seen if name == "RobotState")
    return {
        "ack": first(lambda name, msg: name == "SyncTimeAck"),
        "lift started": first(calibration(2, True)),
        "head started": first(calibration(3, True)),
        "lift done": first(calibration(2, False)),
        "head done": first(calibration(3, False)),
        "first state": first(lambda name, msg: name == "RobotState"),
        "first state's timestamp": int(state.timestamp) / 1000.0,
        "first advert": first(lambda name, msg: name == "ObjectAvailable"),
    }


def _real(path: Path) -> dict[str, float]:
    listed = [e for e in entries(read_capture(path)) if e.message is not None and not e.resent]
    sync_at = next(e.t for e in listed if e.direction == TO_ROBOT and e.name == "SyncTime")
    return _milestones([(e.t, e.name, e.message) for e in listed if e.direction == FROM_ROBOT], sync_at)


def test_the_simulated_start_up_keeps_a_real_robots_time(real_data: Path) -> None:
    real = _real(real_data / FIRST120)
    assert real["first state"] == pytest.approx(1.318, abs=0.01)  # the capture, read right

    async def body() -> dict[str, float]:
        sim = await SimulatedCozmo(port=0).start()  # calibrates, as a real robot does
        loop = asyncio.get_running_loop()
        synced: list[float] = []
        sim.add_message_listener(lambda msg: synced.append(loop.time()) if msg.NAME == "SyncTime" else None)
        robot = Robot(*sim.address, lost_after=2.0)
        seen: list[tuple[float, str, Any]] = []
        robot.add_message_listener(lambda msg: seen.append((loop.time(), msg.NAME, msg)))
        try:
            await robot.connect()
            await asyncio.sleep(0.3)
            assert robot.state is not None and not robot.attitude.head_calibrating
            return _milestones(seen, synced[0])
        finally:
            await robot.disconnect()
            await sim.stop()

    simulated = run(body())
    # within a frame or two of the real robot's (the simulator ticks every 30 ms; the host adds its own delays)
    tolerance = {"ack": 0.04, "lift started": 0.05, "head started": 0.05, "lift done": 0.08, "head done": 0.08,
                 "first state": 0.08, "first state's timestamp": 0.05, "first advert": 0.08}  # tick after 1.318 s
    for key, allowed in tolerance.items():
        assert simulated[key] == pytest.approx(real[key], abs=allowed), (key, simulated[key], real[key])
    for timeline in (real, simulated):
        assert timeline["lift done"] < timeline["head done"] <= timeline["first state"] + 0.001
        assert timeline["first advert"] < timeline["first state"]


def test_without_calibration_the_simulator_streams_at_once() -> None:
    """For tests whose subject is not the start-up: a connection without the 1.3 s wait."""
    async def body() -> float:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address, lost_after=2.0)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        try:
            await robot.connect()
            return loop.time() - t0
        finally:
            await robot.disconnect()
            await sim.stop()

    assert run(body()) < 1.0


def test_a_driver_started_while_the_robot_calibrates_waits_for_it() -> None:
    """Each start-up step may take half a second here, the calibration takes 1.3 s: the driver
    sees the calibration reports and waits for the first state instead of starting over."""
    async def body() -> float:
        sim = await SimulatedCozmo(port=0).start()
        robot = Robot(*sim.address, startup_timeout_s=0.5)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        try:
            await robot.connect()
            assert sim.connections == 1 and sim.counts["SyncTime"] == 1, "started over"
            return loop.time() - t0
        finally:
            await robot.disconnect()
            await sim.stop()

    assert run(body()) >= HEAD_CALIBRATED_S


def test_the_motors_calibrate_once_per_boot() -> None:
    """The engine lost and found again: the robot, still powered, streams at once; after a
    reboot it calibrates again."""
    async def body() -> list[float]:
        sim = await SimulatedCozmo(port=0).start()
        robot = Robot(*sim.address, lost_after=0.5, reconnect_initial_s=0.1, reconnect_max_s=0.2)
        loop = asyncio.get_running_loop()
        took: list[float] = []
        try:
            t0 = loop.time()
            await robot.connect()
            took.append(loop.time() - t0)
            for cause in (lambda: sim.go_silent(0.8), lambda: sim.reboot(boot_s=0.3)):
                cause()
                await robot.wait_for("robot_lost", timeout=3)
                await robot.wait_for("robot_recovered", timeout=5)
                t0 = loop.time()
                await robot.wait_for("reconnected", timeout=5)
                took.append(loop.time() - t0)
            return took
        finally:
            await robot.disconnect()
            await sim.stop()

    first, after_silence, after_reboot = run(body(), timeout=30)
    assert first >= HEAD_CALIBRATED_S and after_reboot >= HEAD_CALIBRATED_S - 0.1
    assert after_silence < 0.5


def test_states_step_30_ms_on_frames_33_ms_apart_some_carrying_two() -> None:
    """hardware.md §7.2: a real robot samples every 30 ms and sends a frame every 33 ms."""
    async def body() -> tuple[list[int], list[float]]:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address)
        loop = asyncio.get_running_loop()
        got: list[tuple[float, int]] = []
        try:
            await robot.connect()
            robot.add_message_listener(
                lambda msg: got.append((loop.time(), int(msg.timestamp))) if msg.NAME == "RobotState" else None)
            await asyncio.sleep(3.0)
        finally:
            await robot.disconnect()
            await sim.stop()
        return [b[1] - a[1] for a, b in zip(got, got[1:], strict=False)], [b[0] - a[0] for a, b in zip(got, got[1:],
                                                                                                       strict=False)]

    steps, gaps = run(body())
    assert len(steps) >= 80 and all(step % 30 == 0 for step in steps) and steps.count(30) >= 0.9 * len(steps)
    together = sum(gap < 0.003 for gap in gaps)  # two states handled from one datagram
    frames = sorted(gap for gap in gaps if gap >= 0.003)
    assert 0.05 * len(steps) <= together <= 0.2 * len(steps), together
    assert 0.030 <= frames[len(frames) // 2] <= 0.037  # the median frame gap: about 33 ms


def test_the_robot_acknowledges_in_its_own_frames_and_nothing_is_sent_twice() -> None:
    """hardware.md §3: a real robot transmits on its radio clock, acknowledging what the engine
    sent in its next regular frame; the engine must wait that long before it resends."""
    async def body() -> tuple[list[int], Any, float]:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address)
        loop = asyncio.get_running_loop()
        sizes: list[int] = []
        try:
            await robot.connect()
            assert robot.link is not None
            robot.link.tap = lambda out, data: None if out else sizes.append(len(decode_frame(data).packets))
            started = loop.time()
            for i in range(150):  # a command every 20 ms for 3 s, at every phase of the robot's frame
                robot.set_head_angle(math.radians(10 + i % 20))
                await asyncio.sleep(0.02)
            took = loop.time() - started
            robot.link.tap = None  # the goodbye is acknowledged at once, by a frame of its own
        finally:
            await robot.disconnect()
            await sim.stop()
        return sizes, robot.stats, took

    sizes, stats, took = run(body())
    assert stats.sent_packets >= 150
    assert stats.resent_packets == 0, stats
    # about one datagram per 33 ms frame, each with the robot's states: no frame of bare acks
    assert len(sizes) <= took / 0.033 * 1.15 + 5 and sizes.count(0) == 0, (len(sizes), took, sizes.count(0))


def test_the_start_up_goes_in_the_official_order() -> None:
    """hardware.md §3: ManufacturingID asked first, then SyncTime and the animation controller's
    set-up in one batch; the robot's AnimationState then comes beside its very first states."""
    async def body() -> tuple[list[str], list[str]]:
        sim = await SimulatedCozmo(port=0).start()
        robot = Robot(*sim.address)
        seen: list[str] = []
        robot.add_message_listener(lambda msg: seen.append(msg.NAME))
        try:
            await robot.connect()
            await asyncio.sleep(0.2)
            return [type(msg).__name__ for msg in sim.received], seen
        finally:
            await robot.disconnect()
            await sim.stop()

    received, seen = run(body())
    start = [name for name in received if name in ("GetManufacturingInfo", "SetOrigin", "SyncTime",
                                                   "EnableAnimationState", "EnableStopOnCliff")]
    assert start == ["GetManufacturingInfo", "GetManufacturingInfo", "SetOrigin", "SyncTime", "EnableAnimationState",
                     "EnableStopOnCliff"]
    first_state = seen.index("RobotState")
    assert "AnimationState" in seen[first_state:first_state + 3]
