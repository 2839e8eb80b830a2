"""A broken mood configuration stops `run` and `simulate` at start, named by file, line and field.

The resource loader is the one reader of ``mood_config.json``: what it reports as an error in the
mood config (a decay graph it left out, an event it could not read) would change the running mood
silently, so the daemon refuses to start on it, as on a broken personality.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO

pytestmark = pytest.mark.e2e

RISING = {"decayGraphs": [
    {"emotionType": "default", "nodes": [{"x": 0, "y": 1}, {"x": 150, "y": 0}]},
    {"emotionType": "Social", "nodes": [{"x": 0, "y": 0.5}, {"x": 10, "y": 1}]},
]}


@pytest.mark.parametrize("command", [["run", "--sim", "--duration", "3"], ["simulate", "--hours", "0.01"]])
def test_a_broken_mood_config_stops_the_daemon_at_start(tmp_path: Path, command: list[str]) -> None:
    mood = tmp_path / "cozmo_resources" / "config" / "engine" / "mood_config.json"
    mood.parent.mkdir(parents=True)
    mood.write_text(json.dumps(RISING, indent=2), encoding="utf-8")
    args = [sys.executable, "-m", "brain", *command, "--resources", str(tmp_path),
            "--resources", str(REPO / "resources")]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    # line 25 of the two-space JSON is the second graph's second "y"
    assert f"mood configuration: {mood}:25: decayGraphs[1].nodes[1].y: a TimeRatio graph must not rise, " \
           "got 1 after 0.5; decay graph not loaded" in proc.stderr, proc.stderr
    assert "simulated Cozmo listening" not in proc.stderr
