"""Drives of a set length go their length, although the wheels run below the speed asked.

The simulated robot's wheels, like a real robot's, settle below the DriveWheels speed (and
differently per side), so a drive timed as distance / speed ends some 30 % short. On the virtual
clock, ``simulate`` runs a personality that drives at the table's edge; the cliff reaction backs
away by its ``backUpDistance_mm``, measured by the robot's own odometry, beat by beat (before its
clip, whose keyframes rock the robot back a little more).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from brain.app.simulate import run_virtual, simulate
from driver.sim.table import Table

from .conftest import REPO

pytestmark = pytest.mark.e2e

EDGE = """\
extends: {default}
name: edge
behaviors:
  ReactToCliff: {{backUpDistance_mm: 100}}
root: {{type: drive, params: {{left: 60, right: 60, seconds: 60}}}}
"""


def test_the_cliff_reaction_backs_away_as_far_as_it_says(tmp_path: Path) -> None:
    (tmp_path / "edge.yaml").write_text(EDGE.format(default=REPO / "trees" / "default.yaml"))
    beats: list[tuple[str, float]] = []

    def watch(brain: Any) -> None:
        def beat(snap: Any) -> None:
            state = brain.robot.state
            if state is not None:
                beats.append((snap.branch, state.proprioception.pose.x_mm))
        brain.heartbeat.subscribe("snapshot", beat)

    report = run_virtual(simulate(tmp_path / "edge.yaml", [REPO / "resources"], hours=30 / 3600, seed=1,
                                  progress=False, on_start=watch, table=Table(400.0, 400.0))).as_dict()
    assert [e for e in report["timeline"] if e["kind"] == "reaction" and e["name"] == "CliffDetected"]
    backing = [i for i, (branch, _) in enumerate(beats) if branch.endswith("ReactToCliff > back up")]
    assert backing, "no back-up"
    first, last = backing[0], backing[0]
    while last + 1 < len(beats) and beats[last + 1][0].endswith("back up"):
        last += 1
    edge_x, end_x = beats[first - 1][1], beats[last + 1][1]
    assert edge_x >= 200.0 - 30.0 - 8.0, edge_x  # it met the edge (the sensor 30 mm ahead of the middle)
    assert 97.0 <= edge_x - end_x <= 112.0, (edge_x, end_x)  # (a timed drive went some 80 mm)
    assert beats[last + 1][0].endswith(("play_animation ReactToCliff", "ReactToCliff")), beats[last + 1][0]


SLANT = """\
extends: {default}
name: slant
root:
  type: sequence
  children:
    - {{type: turn, params: {{degrees: 149}}}}
    - {{type: drive, params: {{left: 60, right: 60, seconds: 30}}}}
    - {{type: running}}
"""


def test_an_edge_met_at_a_slant_is_backed_away_from_before_the_clip_turns_the_robot(tmp_path: Path) -> None:
    """Met at a slant (here 59 degrees off square, as a robot driving about meets a table's edge), an
    edge is no longer straight behind the robot once the reaction's clip has turned it (its "turns
    away" swings 72 degrees counter-clockwise): a back-up then ran its blind tail over the edge. The
    reaction backs up first, the way it came, and then plays its clip: the middle never reaches the
    rim. (With the back-up after the clip, the middle reached it twice in these 40 s.)"""
    (tmp_path / "slant.yaml").write_text(SLANT.format(default=REPO / "trees" / "default.yaml"))
    report = run_virtual(simulate(tmp_path / "slant.yaml", [REPO / "resources"], hours=40 / 3600, seed=2,
                                  progress=False, table=Table(900.0, 200.0)))
    clips = [e["name"] for e in report.as_dict()["timeline"] if e["kind"] == "clip"]
    assert [c for c in clips if "reacttocliff" in c][:1] == ["anim_reacttocliff_02"], clips  # the clip that turns
    assert report.over_the_edge == 0
