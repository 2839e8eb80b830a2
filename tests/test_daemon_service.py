"""The daemon as a service: clean shutdown, systemd notifications, the unit file, supervised tasks.

Every test runs the real daemon in its own process against a simulated Cozmo hosted by the test
(:mod:`tests.daemon_harness`), and looks at what reaches the robot, at the daemon's log and, for
the notifications, at the datagrams it sends to a ``NOTIFY_SOCKET`` the test listens on.
"""

from __future__ import annotations

import asyncio
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from .conftest import run
from .daemon_harness import RESOURCES, free_udp_port, start

pytestmark = pytest.mark.e2e

MOVING = """\
name: mover
root:
  type: sequence
  name: busy
  children:
    - {type: face, params: {expression: happy}}
    - {type: drive, name: drive, params: {left: 40, right: 40, seconds: 60}}
"""


def _neutral() -> np.ndarray:
    from driver.animation.display import decode
    from driver.animation.expressions import expression
    from driver.animation.face_images import FaceRenderer

    return decode(FaceRenderer().display_bytes(expression("neutral")))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_stops_the_robot_and_exits_0_within_2_s(tmp_path: Path, sig: signal.Signals) -> None:
    (tmp_path / "p.yaml").write_text(MOVING)

    async def body() -> None:
        from driver.animation.display import decode

        d = await start(tmp_path, "--personality", "p.yaml", "--resources", str(RESOURCES))
        try:
            await d.line(r"doing busy > drive")
            await d.message("DriveWheels", where=lambda m: m.lwheel_speed_mmps > 0)
            stops_before = len(d.messages("StopAllMotors"))
            t = d.signal(sig)
            code = await d.wait(timeout=10)
            elapsed = d.now() - t
            assert code == 0, d.text
            assert elapsed < 2.0, elapsed
            assert len(d.messages("StopAllMotors", after=t)) >= 1 and stops_before == 0
            assert len(d.messages("Disconnect")) == 1
            last_face = d.messages("DisplayImage", after=t)[-1][1]
            assert np.array_equal(decode(bytes(last_face.image)), _neutral())
            stop_at = d.messages("StopAllMotors", after=t)[0][0]
            assert stop_at < d.messages("Disconnect")[0][0]
            assert f"{sig.name}: stopping" in d.text and "Traceback" not in d.text
        finally:
            await d.close()

    run(body(), timeout=60)


def test_a_second_signal_exits_at_once(tmp_path: Path) -> None:
    """With the robot silent, saying goodbye waits for an acknowledgement; a second SIGTERM does not wait."""
    (tmp_path / "p.yaml").write_text(MOVING)

    async def body() -> None:
        d = await start(tmp_path, "--personality", "p.yaml", "--resources", str(RESOURCES))
        try:
            await d.line(r"doing busy > drive")
            d.sim.go_silent(30)
            d.signal(signal.SIGTERM)
            await d.line(r"SIGTERM: stopping")
            t = d.signal(signal.SIGTERM)
            code = await d.wait(timeout=10)
            assert code == 128 + signal.SIGTERM, d.text
            assert d.now() - t < 1.0
            assert "SIGTERM again: exiting at once" in d.text
        finally:
            await d.close()

    run(body(), timeout=60)


def _unit(*args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "brain", "service", "print-unit", *args],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _keys(unit: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in unit.splitlines():
        if "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            out.setdefault(key, []).append(value)
    return out


def test_print_unit_writes_a_unit_for_this_installation(tmp_path: Path) -> None:
    cfg = tmp_path / "my config.yaml"
    cfg.write_text("heartbeat_hz: 10\n")
    keys = _keys(_unit("--config", str(cfg), "--robot", "10.0.0.7:5551", "--user", "cozmo"))
    exec_start = shlex.split(keys["ExecStart"][0])
    assert Path(exec_start[0]).parent == Path(sys.executable).absolute().parent
    assert exec_start[1:] == ["run", "--robot", "10.0.0.7:5551", "--config", str(cfg.absolute())]
    for key, value in [("Type", "notify"), ("NotifyAccess", "main"), ("Restart", "on-failure"),
                       ("KillSignal", "SIGTERM"), ("User", "cozmo"), ("ExecReload", "/bin/kill -HUP $MAINPID")]:
        assert keys[key] == [value], (key, keys.get(key))
    for key in ("LimitRTPRIO", "WatchdogSec", "TimeoutStopSec"):
        assert int(keys[key][0]) > 0
    assert "DynamicUser" not in keys
    default = _keys(_unit())
    assert default["DynamicUser"] == ["yes"] and "User" not in default
    assert shlex.split(default["ExecStart"][0])[1:] == ["run"]
    bad = subprocess.run([sys.executable, "-m", "brain", "service", "print-unit", "--robot", "host:99999"],
                         capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "port must be 1..65535" in bad.stderr


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    unit = tmp_path / "cozmo-brain.service"
    unit.write_text(_unit("--config", str(tmp_path / "c.yaml")))
    proc = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr.strip() == "", proc.stderr


IDLE = """\
name: idler
root:
  type: sequence
  name: idle
  children:
    - {type: set_head_angle, name: look up, params: {degrees: 20}}
    - {type: wait, name: rest, params: {seconds: 120}}
"""


def test_the_daemon_notifies_systemd(tmp_path: Path) -> None:
    """Run as the unit's ExecStart runs it: READY, STATUS, WATCHDOG at half WATCHDOG_USEC, RELOADING, STOPPING."""
    (tmp_path / "p.yaml").write_text(IDLE)
    port = free_udp_port()
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"robot: {{host: 127.0.0.1, port: {port}}}\npersonality: p.yaml\nresources: [{RESOURCES}]\n")
    exec_start = shlex.split(_keys(_unit("--config", str(cfg)))["ExecStart"][0])

    async def body() -> None:
        d = await start(tmp_path, command=exec_start, robot=False, port=port, notify=True,
                        env={"WATCHDOG_USEC": "600000"})
        try:
            ready_at, _ = await d.note(r"^READY=1")
            connecting = [n for t, n in d.notes if t <= ready_at and n.startswith("STATUS=connecting to the robot")]
            assert connecting, d.notes
            await d.note(r"^STATUS=idle > rest", after=ready_at)
            await asyncio.sleep(3.0)
            beats = [t for t, n in d.notes if n == "WATCHDOG=1"]
            gaps = np.diff(beats)
            assert len(beats) >= 8, d.notes
            assert 0.25 <= float(np.median(gaps)) <= 0.36 and gaps.max() < 0.6, gaps  # 0.3 s: half of 0.6 s

            t = d.signal(signal.SIGHUP)
            reloading_at, note = await d.note(r"^RELOADING=1", after=t)
            usec = int(re.search(r"MONOTONIC_USEC=(\d+)", note).group(1))  # type: ignore[union-attr]
            assert abs(usec / 1e6 - time.monotonic()) < 2.0
            ready_again, _ = await d.note(r"^READY=1", after=reloading_at)
            # the log line and the notification travel by different pipes: either may be read first
            await d.line(r"personality idler loaded", after=t)

            t = d.signal(signal.SIGTERM)
            stopping_at, _ = await d.note(r"^STOPPING=1", after=t)
            assert await d.wait() == 0
            assert not [n for at, n in d.notes if at > stopping_at + 0.2 and n == "WATCHDOG=1"]
            kinds = [n.split("=")[0] for _, n in d.notes]
            assert kinds.count("STOPPING") == 1
        finally:
            await d.close()

    run(body(), timeout=60)


def test_a_daemon_task_that_dies_ends_the_process_with_its_traceback(tmp_path: Path) -> None:
    """The personality file becomes a symlink loop: the watcher cannot look at it and dies; so does the daemon."""
    folder = tmp_path / "personality"
    folder.mkdir()
    p = folder / "p.yaml"
    p.write_text(IDLE)

    async def body() -> None:
        d = await start(tmp_path, "--personality", str(p), "--resources", str(RESOURCES))
        try:
            await d.line(r"doing idle > rest")
            p.unlink()
            os.symlink(p.name, p)  # p.yaml -> p.yaml
            code = await d.wait(timeout=15)
            assert code == 1, d.text
            log = d.text
            assert re.search(r"task 'personality watcher' died: OSError: \[Errno 40\] Too many levels of symbolic "
                             r"links: '\S*p\.yaml'; stopping with exit code 1", log), log
            assert "Traceback (most recent call last)" in log and "in _watch" in log
            assert len(d.messages("Disconnect")) == 1  # still a clean goodbye
            assert re.search(r"stopped after \d+ beats", log)
        finally:
            await d.close()

    run(body(), timeout=60)


def test_no_notify_socket_means_no_notifications(tmp_path: Path) -> None:
    from brain.app.notify import Notifier

    n = Notifier.from_environ({})
    n.ready("x")
    n.status("y")
    n.watchdog()
    n.stopping()
    assert not n.enabled and n.sent == 0 and n.watchdog_interval_s is None
    other = Notifier.from_environ({"NOTIFY_SOCKET": "@x", "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"})
    assert other.enabled and other.watchdog_interval_s is None  # the watchdog is another process's
    mine = Notifier.from_environ({"NOTIFY_SOCKET": "@x", "WATCHDOG_USEC": "1000000",
                                  "WATCHDOG_PID": str(os.getpid())})
    assert mine.watchdog_interval_s == pytest.approx(0.5)
    assert math.isinf(-mine._last_watchdog)


def test_a_stop_while_the_robot_does_not_answer_exits_0_at_once(tmp_path: Path) -> None:
    """Start-up waits for the robot (STATUS says so); SIGTERM meanwhile ends it cleanly, without waiting on."""
    (tmp_path / "p.yaml").write_text(IDLE)

    async def body() -> None:
        port = free_udp_port()  # nothing listens there
        # no vision: building its face detector holds the daemon for half a second (more under
        # load), signals included, and is not what this test is about
        d = await start(tmp_path, "--robot", f"127.0.0.1:{port}", "--personality", "p.yaml", "--resources",
                        str(RESOURCES), "--no-vision", robot=False, notify=True, ready=r"loading resources")
        try:
            await d.note(rf"^STATUS=connecting to the robot at 127\.0\.0\.1:{port}$", timeout=15)
            await asyncio.sleep(0.5)
            t = d.signal(signal.SIGTERM)
            # at once: it stops trying to reach the robot, not after the next try or when the
            # start-up gives up (the exit itself may take a while longer on a loaded machine)
            stopped = await d.line(r"stopped before the robot answered", after=t, timeout=10)
            assert stopped - t < 2.0
            assert await d.wait(timeout=10) == 0, d.text
            assert not [n for _, n in d.notes if n.startswith("READY=1")]
            assert [n for _, n in d.notes if n.startswith("STOPPING=1")]
        finally:
            await d.close()

    run(body(), timeout=60)
