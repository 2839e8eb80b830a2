"""``cozmo-brain sim`` as a user runs it, and scripted timelines' error messages."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from driver.robot import Robot
from driver.sim.script import ScriptError, parse_script

from .conftest import run
from .daemon_harness import free_udp_port


def _wait_for_line(proc: subprocess.Popen[str], needle: str, timeout: float) -> list[str]:
    """Read the process's stderr until a line holds ``needle``; the lines read so far.

    A reader thread keeps a slow start (a loaded machine) from blocking the test for ever; the
    failure names what the process said, so a crash or a port already taken is plain.
    """
    lines: list[str] = []
    seen = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if needle in line:
                seen.set()
        seen.set()  # end of output: let the waiter look at what came

    threading.Thread(target=read, daemon=True).start()
    seen.wait(timeout)
    assert any(needle in line for line in lines), f"no {needle!r} within {timeout} s; stderr: {''.join(lines)!r}"
    return lines


@pytest.mark.e2e
def test_sim_command_serves_a_robot_and_stops_after_duration() -> None:
    port = free_udp_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "brain", "sim", "--host", "127.0.0.1", "--port", str(port), "--duration", "4"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        # The robot binds its own socket only once the simulator listens: an ephemeral port that
        # happened to be the one just freed would otherwise leave the simulator nowhere to bind.
        lines = _wait_for_line(proc, f"listening on 127.0.0.1:{port}", timeout=30)

        async def body() -> float:
            robot = Robot("127.0.0.1", port, reconnect_initial_s=0.1, reconnect_max_s=0.2, connect_timeout_s=5)
            await robot.connect()
            await robot.set_head_angle(0.4)
            angle = robot.state.proprioception.head_angle_rad  # type: ignore[union-attr]
            await robot.disconnect()
            return angle

        assert run(body(), timeout=20) == pytest.approx(0.4, abs=0.03), "".join(lines)
        t0 = time.monotonic()
        proc.wait(timeout=10)
        assert proc.returncode == 0, "".join(lines)
        assert time.monotonic() - t0 < 6
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
