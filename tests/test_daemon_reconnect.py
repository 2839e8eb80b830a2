"""The brain's side of a lost robot: suspended while it is gone, back to work when it returns.

The simulator hosted by the test goes ``silent`` or ``reboot``s (its timeline events, run through
its own scripted-step path) under a running daemon. While the robot is gone the personality is
suspended: the heartbeat beats on (STATUS says so, keep-alives continue) and the daemon does not
exit. When the Robot has reconnected, the motors are stopped, and the tree, started again from
its top, sees the ``reconnected`` event: its "hello again" branch puts the head at 35° before
going back to work.
"""

from __future__ import annotations

import inspect
import math
import signal
from pathlib import Path

import pytest

from driver.robot import Robot
from driver.sim.script import parse_script

from .conftest import REPO, run
from .daemon_harness import RESOURCES, free_udp_port, start

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif("reconnect_initial_s" not in inspect.signature(Robot).parameters,
                       reason="this Robot does not reconnect by itself yet"),
]

KEEPER = """\
name: keeper
root:
  type: selector
  name: top
  children:
    - type: sequence
      name: hello again
      children:
        - {type: recent_event, params: {kind: reconnected, within_s: 1.5}}
        - {type: set_head_angle, params: {degrees: 35}}
        - {type: wait, params: {seconds: 1.5}}
    - type: sequence
      name: work
      children:
        - {type: set_head_angle, params: {degrees: -10}}
        - {type: drive, name: drive, params: {left: 30, right: 30, seconds: 60}}
"""


def _head(degrees: float) -> object:
    return lambda msg: math.isclose(math.degrees(msg.angle_rad), degrees, abs_tol=0.01)


@pytest.mark.parametrize("step", ["{at: 0, event: silent, for: 2.5}", "{at: 0, event: reboot}"])
def test_a_lost_robot_suspends_the_personality_until_it_is_back(tmp_path: Path, step: str) -> None:
    (tmp_path / "p.yaml").write_text(KEEPER)
    port = free_udp_port()
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"robot: {{host: 127.0.0.1, port: {port}, lost_after_s: 1.0}}\npersonality: p.yaml\n"
                   f"resources: [{RESOURCES}]\n")
    (event,) = parse_script(f"- {step}\n")

    async def body() -> None:
        d = await start(tmp_path, "--config", str(cfg), robot=False, port=port, notify=True,
                        env={"WATCHDOG_USEC": "1000000"})
        try:
            await d.line(r"doing top > work > drive")
            await d.message("DriveWheels", where=lambda m: m.lwheel_speed_mmps > 0)
            t0 = d.now()
            d.sim.run_step(event)
            lost_at = await d.line(r"robot_lost: animations stopped, personality suspended", after=t0, timeout=5)
            back_at = await d.line(r"robot back \(reconnected\): motors stopped, personality resumes",
                                   after=lost_at, timeout=15)
            if event.event == "silent":  # gone for 1.5 s: the heartbeat beat on without ticking the tree
                assert back_at - lost_at > 1.0
                assert d.lines(r"personality suspended: waiting for the robot", after=t0)
                assert [n for t, n in d.notes if t0 < t < back_at and n == "STATUS=suspended (waiting for the robot)"]
                assert len([t for t, n in d.notes if lost_at < t < back_at and n == "WATCHDOG=1"]) >= 2, d.notes
                log = d.text
                gone = log[log.index("robot_lost: animations stopped"):log.index("robot back (reconnected)")]
                assert "doing top" not in gone  # the tree was not ticked
            # (times at the simulator are compared with t0: the log reaches the test later than UDP does)
            hello, _ = await d.message("SetHeadAngle", after=t0, where=_head(35), timeout=5)
            stops = d.messages("StopAllMotors", after=t0, before=hello)
            assert stops, "the motors were not stopped before the tree resumed"
            await d.line(r"doing top > hello again", after=back_at)
            work, _ = await d.message("SetHeadAngle", after=hello, where=_head(-10), timeout=5)
            await d.message("DriveWheels", after=work, where=lambda m: m.lwheel_speed_mmps > 0, timeout=5)
            assert d.proc.returncode is None  # a lost robot never ends the daemon
            d.signal(signal.SIGTERM)
            assert await d.wait() == 0
            assert d.text.count("robot_lost: animations stopped") == 1
        finally:
            await d.close()

    run(body(), timeout=90)


def test_the_default_personality_says_hello_again(tmp_path: Path) -> None:
    port = free_udp_port()
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"robot: {{host: 127.0.0.1, port: {port}, lost_after_s: 1.0}}\nresources: [{RESOURCES}]\n")
    (event,) = parse_script("- {at: 0, event: silent, for: 2}\n")

    async def body() -> None:
        d = await start(tmp_path, "--config", str(cfg), "--personality", str(REPO / "trees" / "default.yaml"),
                        robot=False, port=port)
        try:
            await d.line(r"doing freeplay")
            t0 = d.now()
            d.sim.run_step(event)
            back_at = await d.line(r"robot back \(reconnected\)", after=t0, timeout=15)
            await d.line(r"reaction Reconnected", after=back_at, timeout=5)
            await d.message("StartAnimation", after=back_at, timeout=5)
            d.signal(signal.SIGTERM)
            assert await d.wait() == 0
        finally:
            await d.close()

    run(body(), timeout=60)
