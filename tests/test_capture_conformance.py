"""The simulator's start-up and state stream against a real robot's, through the user's tools:
``capture show`` of ``run --sim --record`` beside ``capture show`` of a real firmware-2457
capture (``hw_fw2457_first120.log`` in ../shared/real_data; the test skips without it).

Held side by side: the order of the start-up (SyncTime, its ack, the motor calibration, the cube
adverts, the first RobotState), the time from SyncTime to the first state and that state's
timestamp, the 30 ms timestamp step, the share of states that share a frame, and the state rate.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import REPO

FIRST120 = "cozmo-stack/cozmo-stack/tests/Cozmo.Protocol.Tests/Fixtures/hw_fw2457_first120.log"

pytestmark = pytest.mark.e2e


def _brain(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "brain", *args], capture_output=True, text=True, timeout=90, cwd=cwd)


def _figures(capture: Path) -> dict[str, Any]:
    """What ``capture show`` and ``capture show --stats --json`` say of a capture's start-up and stream."""
    shown = _brain("capture", "show", str(capture), cwd=REPO)
    assert shown.returncode == 0, shown.stderr
    rows: list[tuple[float, str, str, str]] = []  # time, direction, name, the rest
    for line in shown.stdout.splitlines():
        parts = line.split()
        if len(parts) < 3 or "resent" in parts[2:4]:  # a packet sent again is not another message
            continue
        words = [w for w in parts[2:] if not w.startswith("#")]
        if words:
            rows.append((float(parts[0]), parts[1], words[0], line))
    firsts: dict[str, float] = {}
    for t, direction, name, _ in rows:
        firsts.setdefault(f"{name} {direction}", t)
    sync = firsts["SyncTime to_robot"]
    states = [(t, int(line.split("timestamp=")[1].split()[0])) for t, d, name, line in rows
              if name == "RobotState" and d == "from_robot"]
    stats = json.loads(_brain("capture", "show", str(capture), "--stats", "--json", cwd=REPO).stdout)
    rate = next(r["rate_hz"] for r in stats["messages"] if r["name"] == "RobotState" and r["dir"] == "from_robot")
    calibrations = [t for t, d, name, _ in rows if name == "MotorCalibration"]
    return {
        "order": sorted(("SyncTimeAck", "MotorCalibration", "ObjectAvailable", "RobotState"),
                        key=lambda n: firsts[f"{n} from_robot"]),
        "first state after SyncTime s": firsts["RobotState from_robot"] - sync,
        "first state's timestamp ms": states[0][1],
        "calibration reports": len(calibrations),
        "steps": {b[1] - a[1] for a, b in zip(states, states[1:], strict=False)},
        "shared frames": sum(b[0] == a[0] for a, b in zip(states, states[1:], strict=False)) / len(states),
        "state rate Hz": rate,
    }


def test_the_simulators_start_up_and_stream_read_like_a_real_robots(real_data: Path, tmp_path: Path) -> None:
    real = _figures(real_data / FIRST120)
    assert real["first state's timestamp ms"] == 1305  # the capture, read right
    record = tmp_path / "sim.jsonl"
    done = _brain("run", "--sim", "--duration", "4", "--record", str(record), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    simulated = _figures(record)

    assert simulated["order"] == real["order"] == ["SyncTimeAck", "MotorCalibration", "ObjectAvailable",
                                                   "RobotState"]
    assert simulated["calibration reports"] == real["calibration reports"] == 4
    assert simulated["first state after SyncTime s"] == pytest.approx(real["first state after SyncTime s"], abs=0.1)
    # the first 30 ms tick at or after the 1.318 s calibration: 1,318-1,348 ms (the real one read 1,305)
    assert simulated["first state's timestamp ms"] == pytest.approx(real["first state's timestamp ms"], abs=50)
    assert real["steps"] == {30}  # a loaded host may stall the simulator a whole period: never less
    assert 30 in simulated["steps"] and all(step % 30 == 0 for step in simulated["steps"])
    assert 0.03 <= real["shared frames"] <= 0.2 and 0.03 <= simulated["shared frames"] <= 0.2
    # (a host stall shows in the steps: whole periods skipped; the figures say which)
    assert simulated["state rate Hz"] == pytest.approx(real["state rate Hz"], rel=0.1), (simulated, real)
