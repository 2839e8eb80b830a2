"""The daemon keeps its robot: ``cozmo-brain run --robot`` against ``cozmo-brain sim``, each its own process.

The simulator is killed and restarted on the same port, goes silent, reboots; the daemon must
reconnect by itself, stop the motors and tick the personality against it again. Every line both
programs log is stamped by a reader thread in this process as it arrives, so times are measured
outside the (loaded) programs. The simulator's per-connection summary line tells what reached it
on each connection.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from .conftest import REPO
from .daemon_harness import free_udp_port

pytestmark = pytest.mark.e2e

_SUMMARY = re.compile(r"sim: connection (\d+) from \S+ (?:ended|still open at the stop) after [\d.]+ s: "
                      r"\d+ messages \((.*)\)")


class Program:
    """A ``python -m brain`` subprocess whose log lines are stamped (monotonic time) as they arrive."""

    def __init__(self, *args: str) -> None:
        self.started = time.monotonic()
        self.proc = subprocess.Popen([sys.executable, "-m", "brain", *args], cwd=REPO, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.lines: list[tuple[float, str]] = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self._cond:
                self.lines.append((time.monotonic(), line.rstrip("\n")))
                self._cond.notify_all()

    def wait_for(self, pattern: str, timeout: float, after: float = 0.0) -> tuple[float, str]:
        """The first line matching ``pattern`` stamped at or after ``after``; fails after ``timeout`` s."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for stamp, line in self.lines:
                    if stamp >= after and rx.search(line):
                        return stamp, line
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    raise AssertionError(f"no line matching {pattern!r} within {timeout} s; log:\n{self.log()}")
                self._cond.wait(min(left, 0.1))

    def matching(self, pattern: str) -> list[tuple[float, str]]:
        rx = re.compile(pattern)
        with self._cond:
            return [(t, line) for t, line in self.lines if rx.search(line)]

    def log(self) -> str:
        with self._cond:
            return "\n".join(line for _, line in self.lines)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self._reader.join(5)
        return code


def _config(tmp_path: Path, **robot: float) -> str:
    path = tmp_path / "config.yaml"
    path.write_text("robot:\n" + "".join(f"  {k}: {v}\n" for k, v in robot.items()), encoding="utf-8")
    return str(path)


def _received(summary: str) -> dict[str, int]:
    """Messages by name from the simulator's summary of one connection."""
    m = _SUMMARY.search(summary)
    assert m is not None, summary
    return {name: int(n) for name, n in (item.rsplit(" ", 1) for item in m.group(2).split(", ")) if n.isdigit()}


def _assert_driven(received: dict[str, int], seconds: float) -> None:
    """The start-up sequence ran on this connection and the animation stream (30 fps) flowed."""
    for name in ("GetManufacturingInfo", "SetOrigin", "SyncTime", "EnableStopOnCliff", "EnableAnimationState"):
        assert received.get(name, 0) >= 1, (name, received)
    frames = received.get("OutputSilence", 0) + received.get("OutputAudio", 0)
    assert frames >= 30 * seconds * 0.6, (frames, received)


def test_a_simulator_killed_and_restarted_on_its_port_is_driven_again_within_3_s(tmp_path: Path) -> None:
    port = free_udp_port()
    # Backoff capped at 1 s: the default cap (10 s) would let the daemon sleep up to 10 s past the
    # robot's return; with a 1 s cap it tries every second, which the 3 s promise needs.
    cfg = _config(tmp_path, lost_after_s=1.0, reconnect_max_s=1.0)
    sim = Program("sim", "--host", "127.0.0.1", "--port", str(port))
    daemon = Program("run", "--robot", f"127.0.0.1:{port}", "--config", cfg, "--duration", "120")
    sim2: Program | None = None
    try:
        sim.wait_for("listening on", 30)
        daemon.wait_for(rf"connected to 127\.0\.0\.1:{port}", 30)
        time.sleep(2.0)  # the personality runs
        sim.proc.kill()
        killed = time.monotonic()
        sim.stop()
        lost, _ = daemon.wait_for("robot lost; reconnecting", 5, after=killed)
        assert lost - killed < 1.0 + 1.0
        time.sleep(max(0.0, killed + 10.0 - time.monotonic()))
        sim2 = Program("sim", "--host", "127.0.0.1", "--port", str(port))
        # the robot is back once the new simulator listens (its own start-up, a Python process
        # importing on a loaded machine, is not the daemon's reconnect time)
        returned, _ = sim2.wait_for("listening on", 30)
        back, line = daemon.wait_for(rf"reconnected to 127\.0\.0\.1:{port}", 10, after=sim2.started)
        assert back - returned <= 3.0, line
        # the brain: motors stopped, the tree ticked again from its top, all within 3 s of the return
        resumed, _ = daemon.wait_for(r"robot back \(reconnected\): motors stopped", 5, after=back)
        ticking, line = daemon.wait_for(r"heartbeat: doing ", 5, after=resumed)
        assert ticking - returned <= 3.0, line
        assert daemon.matching("no answer from .* next try in 1.0 s"), "it kept trying while the robot was away"
        time.sleep(2.0)
        assert sim2.stop(signal.SIGINT) == 0
        _, summary = sim2.wait_for("sim: connection 1 from", 5)
        received = _received(summary)
        _assert_driven(received, seconds=1.5)
        assert received.get("StopAllMotors", 0) >= 1, received
        assert daemon.proc.poll() is None, daemon.log()
    finally:
        code = daemon.stop()
        for program in (sim, sim2):
            if program is not None:
                program.stop(signal.SIGKILL)
    assert code == 0, daemon.log()


def test_a_silent_then_rebooting_simulator_is_driven_again_each_time_at_the_next_try(tmp_path: Path) -> None:
    port = free_udp_port()
    script = tmp_path / "timeline.yaml"
    script.write_text("- {at: 3, event: silent, for: 4}\n- {at: 12, event: reboot, for: 3}\n", encoding="utf-8")
    cfg = _config(tmp_path, lost_after_s=1.0)  # the default backoff: 0.5 s doubling to 10 s
    sim = Program("sim", "--host", "127.0.0.1", "--port", str(port), "--script", str(script))
    daemon = Program("run", "--robot", f"127.0.0.1:{port}", "--config", cfg, "--duration", "120")
    try:
        sim.wait_for("listening on", 30)
        daemon.wait_for(rf"connected to 127\.0\.0\.1:{port}", 30)
        silent, _ = sim.wait_for("scripted silent", 10)
        back = silent + 4.0
        again, line = daemon.wait_for("reconnected to", 10, after=silent)
        assert back - 0.2 <= again <= back + 3.0, line
        ticking, line = daemon.wait_for("heartbeat: doing ", 5, after=again)
        assert ticking <= back + 3.0, line
        rebooted, _ = sim.wait_for("sim: rebooting", 15)
        booted, _ = sim.wait_for("sim: booted", 5)
        assert booted - rebooted == pytest.approx(3.0, abs=0.5)
        lost, _ = daemon.wait_for("robot lost", 5, after=rebooted)
        # Lost a second after the reboot, the daemon tries again 0.5, 1.5 and 3.5 s later (the
        # default backoff): the last try comes 1.5 s after the boot, then the start-up sequence
        # (2.8-2.9 s in all here). No try is more than the backoff's step then (2 s) after the
        # boot; with the start-up, 3.5 s bounds it on a loaded machine too.
        again2, line = daemon.wait_for("reconnected to", 10, after=booted)
        assert again2 - booted <= 3.5, line
        ticking, line = daemon.wait_for("heartbeat: doing ", 5, after=again2)
        assert ticking - booted <= 3.5, line
        time.sleep(2.0)
        assert sim.stop(signal.SIGINT) == 0
        summaries = [line for _, line in sim.matching("sim: connection")]
        numbers = [m.group(1) for m in map(_SUMMARY.search, summaries) if m is not None]
        assert numbers == ["1", "2", "3"], summaries  # a new connection after each loss
        for summary in summaries[1:]:
            received = _received(summary)
            _assert_driven(received, seconds=1.5)
            assert received.get("StopAllMotors", 0) >= 1, received  # stopped on the way back
        assert len(daemon.matching("robot lost")) == 2 and len(daemon.matching("reconnected to")) == 2
    finally:
        code = daemon.stop()
        sim.stop(signal.SIGKILL)
    assert code == 0, daemon.log()


def test_run_against_nobody_keeps_trying_logs_each_backoff_step_once_and_stops_on_sigterm(tmp_path: Path) -> None:
    port = free_udp_port()
    cfg = _config(tmp_path, reconnect_initial_s=0.25, reconnect_max_s=1.0)
    daemon = Program("run", "--robot", f"127.0.0.1:{port}", "--config", cfg, "--duration", "60")
    try:
        daemon.wait_for("next try in 1.0 s", 30)
        time.sleep(4.0)  # four more tries at the 1 s step: no more lines about them
        steps = [float(re.search(r"next try in ([\d.]+) s", line).group(1))  # type: ignore[union-attr]
                 for _, line in daemon.matching("no answer from")]
        assert steps == [0.5, 1.0], daemon.log()
        assert daemon.proc.poll() is None
        stopped = time.monotonic()
        assert daemon.stop() == 0
        assert time.monotonic() - stopped < 3.0
        daemon.wait_for("stopped before the robot answered", 1)
    finally:
        daemon.stop(signal.SIGKILL)


def test_run_with_a_connect_timeout_exits_1_and_says_why(tmp_path: Path) -> None:
    port = free_udp_port()
    cfg = _config(tmp_path, connect_timeout_s=2.0)
    daemon = Program("run", "--robot", f"127.0.0.1:{port}", "--config", cfg, "--duration", "60")
    try:
        code = daemon.proc.wait(30)
        daemon.stop()
        assert code == 1, daemon.log()
        _, line = daemon.wait_for("cannot connect", 1)
        assert f"cannot connect to the robot at 127.0.0.1:{port}: no answer from 127.0.0.1:{port} within 2.0 s" in line
        loaded, _ = daemon.wait_for("resources:", 1)
        assert daemon.lines[-1][0] - loaded < 2.0 + 6.0  # gives up after its 2 s (room for a loaded machine)
    finally:
        daemon.stop(signal.SIGKILL)
