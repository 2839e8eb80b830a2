"""The Robot keeps its robot: connecting until it answers, and reconnecting after silence or a reboot.

Our Robot against our simulated Cozmo over loopback UDP, in one process (the daemon-level tests,
with both as separate programs, are in test_reconnect_e2e.py).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from driver import events as ev
from driver.hardware import HEAD_CALIBRATED_S
from driver.robot import ActionCancelled, Robot, RobotError
from driver.sim.script import parse_script
from driver.sim.server import SimulatedCozmo

from .conftest import eventually, run
from .daemon_harness import free_udp_port

pytestmark = pytest.mark.e2e


class _Recorder:
    """Robot events with the mirror as each listener call saw it."""

    def __init__(self, robot: Robot) -> None:
        self.robot = robot
        self.events: list[tuple[str, float, Any]] = []
        robot.add_listener(self._on)

    def _on(self, event: ev.RobotEvent) -> None:
        if event.kind in ("robot_lost", "robot_recovered", "reconnected", "connected", "disconnected"):
            self.events.append((event.kind, event.at, self.robot.state))

    def kinds(self) -> list[str]:
        return [k for k, _, _ in self.events]


def test_a_short_lost_after_holds_through_the_robots_calibration() -> None:
    """After SyncTime a robot calibrates its motors for about 1.3 s and sends no state meanwhile,
    only its answers to pings: with ``lost_after`` shorter than the usual ping interval the link
    pings often enough to hear it, instead of losing it again and again during start-up."""
    async def body() -> None:
        sim = await SimulatedCozmo(port=0).start()
        robot = Robot(*sim.address, lost_after=0.3)
        try:
            await robot.connect()
            await eventually(lambda: sim.counts["EnableStopOnCliff"] == 1, timeout=10)  # the start-up's last message
            await eventually(lambda: robot.state is not None, timeout=5)
            assert robot.losses == 0
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body(), timeout=30)


def test_a_silent_robot_is_lost_failing_its_actions_and_comes_back_through_the_start_up_sequence() -> None:
    async def body() -> None:
        sim = await SimulatedCozmo(port=0).start()
        robot = Robot(*sim.address, lost_after=0.6, reconnect_initial_s=0.2, reconnect_max_s=0.4)
        await robot.connect()
        rec = _Recorder(robot)
        try:
            await eventually(lambda: sim.counts["EnableStopOnCliff"] == 1)  # the start-up's last message
            slow = robot.set_head_angle(0.7, max_speed=0.2)  # still turning when the robot goes quiet
            loop = asyncio.get_running_loop()
            sim.go_silent(1.5)
            t0 = loop.time()
            await robot.wait_for("robot_lost", timeout=3)
            assert 0.4 <= loop.time() - t0 <= 0.9
            assert slow.done() and isinstance(slow.error, ActionCancelled) and not robot.connected
            with pytest.raises(RobotError, match="lost; reconnecting"):
                robot.move_head(0.5)  # while lost a command fails at once; none is kept for later
            with pytest.raises(RobotError, match="lost; reconnecting"):
                robot.set_head_angle(0.2)
            await robot.wait_for("reconnected", timeout=4)
            back = t0 + 1.5
            assert loop.time() - back < 0.4 + 0.3  # one backoff step (0.4 s) and the start-up
            assert rec.kinds() == ["robot_lost", "robot_recovered", "reconnected"]
            _, recovered_at, state_then = rec.events[1]
            assert state_then is None, "the mirror is reset when the robot answers again"
            assert rec.events[2][2] is not None and rec.events[2][2].received_at > recovered_at
            assert robot.connected and robot.reconnects == 1 and robot.losses == 1
            await eventually(lambda: sim.counts["EnableStopOnCliff"] == 2)
            for name in ("SetOrigin", "SyncTime", "EnableAnimationState"):
                assert sim.counts[name] == 2, name  # the start-up sequence ran again
            assert sim.counts["MoveHead"] == 0
            await robot.set_head_angle(-0.1)  # and it works as before
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body(), timeout=30)


def test_a_rebooted_robot_is_found_again_with_a_fresh_state_stream() -> None:
    async def body() -> None:
        sim = await SimulatedCozmo(port=0).start()
        robot = Robot(*sim.address, lost_after=0.5, reconnect_initial_s=0.2, reconnect_max_s=0.4)
        await robot.connect()
        try:
            await asyncio.sleep(1.0)
            before = robot.state
            assert before is not None and before.proprioception.robot_time_ms >= 2000  # calibrated, then 1 s
            await robot.set_lift_height(80)
            sim.reboot(boot_s=0.8)
            assert sim.body.lift.position != pytest.approx(80, abs=3.0)  # forgot everything it did
            event = await robot.wait_for("reconnected", timeout=5)
            assert isinstance(event, ev.Reconnected) and event.firmware_version == 2381
            after = robot.state
            # a new stream from the new robot: its clock starts again, the first state after calibration
            assert after is not None and after.proprioception.robot_time_ms <= 1500, "a new stream from the new robot"
            assert sim.connections == 2 and sim.counts["SyncTime"] == 2
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body(), timeout=30)


def test_connect_keeps_trying_until_the_robot_appears() -> None:
    port = free_udp_port()

    async def body() -> float:
        loop = asyncio.get_running_loop()
        robot = Robot("127.0.0.1", port, reconnect_initial_s=0.1, reconnect_max_s=0.3)
        connecting = asyncio.ensure_future(robot.connect())
        await asyncio.sleep(1.5)
        assert not connecting.done()
        sim = await SimulatedCozmo("127.0.0.1", port).start()
        started = loop.time()
        try:
            await asyncio.wait_for(connecting, 3)
            took = loop.time() - started
            assert robot.connected and robot.stats.resets_sent >= 6
            return took
        finally:
            await robot.disconnect()
            await sim.stop()

    # one backoff step, the robot's calibration, the start-up
    assert run(body(), timeout=20) < 0.3 + HEAD_CALIBRATED_S + 0.3


def test_connect_gives_up_when_its_time_runs_out_and_says_where() -> None:
    port = free_udp_port()

    async def body() -> None:
        loop = asyncio.get_running_loop()
        robot = Robot("127.0.0.1", port, connect_timeout_s=1.2, reconnect_initial_s=0.2)
        t0 = loop.time()
        with pytest.raises(RobotError, match=rf"cannot connect to the robot at 127\.0\.0\.1:{port}: .*1\.2 s"):
            await robot.connect()
        assert 1.1 <= loop.time() - t0 < 2.0
        assert robot.link is not None and robot.link.state.value == "closed"
        with pytest.raises(ValueError, match="connect_timeout_s"):
            Robot("127.0.0.1", port, connect_timeout_s=0)
        with pytest.raises(ValueError, match="backoff"):
            Robot("127.0.0.1", port, reconnect_initial_s=5, reconnect_max_s=1)

    run(body(), timeout=20)


def test_a_robot_that_answers_the_handshake_but_not_the_start_up_is_tried_again() -> None:
    async def body() -> None:
        sim = await SimulatedCozmo(port=0).start()
        mute = {"on": True}
        original = sim.send

        def send(msg: Any) -> None:  # the robot's identity goes missing the first time round
            if mute["on"] and type(msg).__name__ == "FirmwareSignature":
                mute["on"] = False
                return
            original(msg)

        sim.send = send  # type: ignore[method-assign]
        robot = Robot(*sim.address, startup_timeout_s=0.5, reconnect_initial_s=0.1)
        try:
            await robot.connect()
            assert robot.connected and sim.connections == 2
            await eventually(lambda: sim.counts["EnableAnimationState"] == 1)
            assert sim.counts["GetManufacturingInfo"] == 2  # only the second connection got that far
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body(), timeout=20)


def test_disconnect_stops_the_retrying() -> None:
    async def body() -> None:
        sim = await SimulatedCozmo(port=0).start()
        robot = Robot(*sim.address, lost_after=0.4, reconnect_initial_s=0.1, reconnect_max_s=0.1)
        await robot.connect()
        sim.go_silent(30)
        await robot.wait_for("robot_lost", timeout=3)
        assert robot.link is not None
        await eventually(lambda: robot.stats.resets_sent >= 3)
        await robot.disconnect()
        sent = robot.stats.resets_sent
        await asyncio.sleep(0.5)
        assert robot.stats.resets_sent == sent and robot.link.state.value == "closed"
        assert sim.counts["Disconnect"] == 0  # nobody to say goodbye to
        await sim.stop()

    run(body(), timeout=20)


def test_a_scripted_timeline_runs_on_through_a_silence_and_a_reboot_without_starting_over() -> None:
    script = parse_script(
        """
        - {at: 2.0, event: silent, for: 1.0}
        - {at: 4.0, event: reboot, for: 0.5}
        - {at: 7.0, event: poke}
        """
    )

    async def body() -> None:
        sim = await SimulatedCozmo(port=0, script=script).start()
        robot = Robot(*sim.address, lost_after=0.5, reconnect_initial_s=0.2, reconnect_max_s=0.4)
        rec = _Recorder(robot)
        pokes: list[float] = []
        robot.add_listener(lambda e: pokes.append(e.at) if e.kind == "poked" else None)
        loop = asyncio.get_running_loop()
        await robot.connect()
        t0 = sim.connected_since
        assert t0 is not None and loop.time() - t0 >= HEAD_CALIBRATED_S  # connect() waited for the calibration
        try:
            await eventually(lambda: pokes, timeout=10)
            assert 6.9 <= pokes[0] - t0 <= 7.5, "times count from the first connection, through reconnects"
            assert rec.kinds() == ["connected", "robot_lost", "robot_recovered", "reconnected",
                                   "robot_lost", "robot_recovered", "reconnected"]
            await asyncio.sleep(1.0)
            assert len(pokes) == 1 and robot.losses == 2, "no step ran twice"
            assert sim.connections == 3
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body(), timeout=30)
