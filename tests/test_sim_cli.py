"""``cozmo-brain sim`` as a user runs it, and scripted timelines' error messages."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import pytest

from driver.robot import Robot
from driver.sim.script import ScriptError, parse_script

from .conftest import run


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.e2e
def test_sim_command_serves_a_robot_and_stops_after_duration() -> None:
    port = _free_udp_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "brain", "sim", "--host", "127.0.0.1", "--port", str(port), "--duration", "4"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        async def body() -> float:
            robot = Robot("127.0.0.1", port, reconnect_initial_s=0.1, reconnect_max_s=0.2, connect_timeout_s=15)
            await robot.connect()  # keeps trying while the process starts and binds
            await robot.set_head_angle(0.4)
            angle = robot.state.proprioception.head_angle_rad  # type: ignore[union-attr]
            await robot.disconnect()
            return angle

        assert run(body(), timeout=20) == pytest.approx(0.4, abs=0.03)
        t0 = time.monotonic()
        out, err = proc.communicate(timeout=10)
        assert proc.returncode == 0, err
        assert time.monotonic() - t0 < 6
        assert "listening on 127.0.0.1" in err
    finally:
        proc.kill()


def test_sim_rejects_bad_fault_settings_with_usage_exit() -> None:
    proc = subprocess.run([sys.executable, "-m", "brain", "sim", "--loss", "1.5", "--duration", "0.1"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert "loss must be a probability" in proc.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- {at: 1, event: levitate}", "<script>:1: step 0: unknown event 'levitate'"),
        ("- {event: poke}", "missing 'at'"),
        ("- {at: 1, event: poke}\n- {at: -2, event: poke}", "<script>:2: step 1: 'at' must be a number"),
        ("- {at: 1, event: battery}", "needs 'volts'"),
        ("- {at: 1, event: poke, colour: red}", "unknown field(s) colour"),
        ("at: 1", "expected a list of steps"),
        ("- [1, 2", "not valid YAML"),
    ],
)
def test_script_errors_name_line_and_problem(text: str, message: str) -> None:
    with pytest.raises(ScriptError) as info:
        parse_script(text)
    assert message in str(info.value)


def test_script_steps_are_sorted_and_typed() -> None:
    steps = parse_script("- {at: 8, event: cliff}\n- {at: 5, event: cube_tap, taps: 2}\n")
    assert [(s.at, s.event) for s in steps] == [(5.0, "cube_tap"), (8.0, "cliff")]
    assert steps[0].args == {"object_id": 1, "taps": 2}
