"""The real daemon (`cozmo-brain run --sim`) against the real simulator, as a user runs it."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import REPO, SAMPLE_RESOURCES

pytestmark = pytest.mark.e2e

PERSONALITY = """\
name: probe
root:
  type: selector
  children:
    - type: sequence
      name: answer the button
      children:
        - {type: recent_event, params: {kind: button, within_s: 3}}
        - {type: face, params: {expression: happy}}
        - {type: wait, params: {seconds: 1}}
    - type: sequence
      name: idle
      children:
        - {type: look_around, params: {seconds: 2}}
        - {type: random_wait, params: {min: 0.2, max: 0.6}}
reactions:
  RobotPickedUp: {type: face, params: {expression: scared}, priority: 100}
  CliffDetected: {type: set_head_angle, params: {degrees: -20}, priority: 90}
"""

SCRIPT = """\
- {at: 2, event: pick_up, for: 1}
- {at: 4, event: button}
- {at: 6, event: cliff, for: 0.5}
"""


def _run(tmp_path: Path, *extra: str, duration: str = "8") -> subprocess.CompletedProcess[str]:
    args = [sys.executable, "-m", "brain", "run", "--sim", "--no-vision", "--duration", duration, *extra]
    if SAMPLE_RESOURCES.is_dir():
        args += ["--resources", str(SAMPLE_RESOURCES)]
    return subprocess.run(args, capture_output=True, text=True, timeout=60, cwd=tmp_path)


def test_run_reacts_to_scripted_events_and_stops_cleanly(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(PERSONALITY)
    (tmp_path / "s.yaml").write_text(SCRIPT)
    proc = _run(tmp_path, "--personality", "p.yaml", "--sim-script", "s.yaml")
    log = proc.stderr
    assert proc.returncode == 0, log
    assert "personality probe loaded (2 reactions)" in log
    assert "safety: picked up - all motors stopped" in log
    assert "reaction RobotPickedUp" in log
    assert "doing selector > answer the button" in log
    assert "safety: cliff - all motors stopped" in log
    assert "reaction CliffDetected" in log
    # pick-up happened while idling: the safety stop comes before the reaction, then idling resumes
    assert log.index("safety: picked up") < log.index("reaction RobotPickedUp") \
        < log.index("doing selector > answer the button")
    assert log.rindex("doing selector > idle") > log.index("reaction RobotPickedUp finished")
    assert re.search(r"\b0 missed", log), log
    # and how its animation stream went: the reactions' clips were sent
    frames = re.search(r"animation frames: (\d+) sent, \d+ quiet \(nothing new\), \d+ held for the robot's buffer, "
                       r"\d+ missed, \d+ prepared after their time; \d+ released over 1 ms late", log)
    assert frames and int(frames.group(1)) > 0, log
    assert "sim: engine disconnected" in log


def test_a_broken_personality_stops_run_at_start_with_file_line_and_key(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(PERSONALITY.replace("seconds: 1}", "seconds: lots}"))
    proc = _run(tmp_path, "--personality", "bad.yaml", duration="3")
    assert proc.returncode == 1
    assert "bad.yaml:10: root.children[0].children[2].params.seconds: expected a number" in proc.stderr


def test_a_broken_personality_is_reported_before_any_network(tmp_path: Path) -> None:
    """No simulator is started and no robot contacted: the error comes at once, not after a connect timeout."""
    (tmp_path / "bad.yaml").write_text(PERSONALITY.replace("seconds: 1}", "seconds: lots}"))
    for target in (["--robot", "127.0.0.1:9"], ["--sim"]):  # nothing answers on port 9: a connect would wait 5 s
        args = [sys.executable, "-m", "brain", "run", *target, "--personality", "bad.yaml",
                "--resources", str(REPO / "resources")]
        started = time.monotonic()
        proc = subprocess.run(args, capture_output=True, text=True, timeout=60, cwd=tmp_path)
        elapsed = time.monotonic() - started
        assert proc.returncode == 1, proc.stderr
        assert "bad.yaml:10: root.children[0].children[2].params.seconds: expected a number, got 'lots'" \
            in proc.stderr
        assert elapsed < 4.0, elapsed
        for network in ("simulated Cozmo listening", "connected to", "cannot connect", "driver.link"):
            assert network not in proc.stderr, proc.stderr


def test_missing_personality_and_bad_flags(tmp_path: Path) -> None:
    proc = _run(tmp_path, "--personality", "nope.yaml", duration="3")
    assert proc.returncode == 1 and "nope.yaml: personality file not found" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "brain", "run", "--sim", "--robot", "x"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
