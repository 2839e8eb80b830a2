"""Drives of a set length go their length, although the wheels run below the speed asked.

The simulated robot's wheels, like a real robot's, settle below the DriveWheels speed (and
differently per side), so a drive timed as distance / speed ends some 30 % short. On the virtual
clock, ``simulate`` runs a personality that drives at the table's edge; after its clip (whose
keyframes rock the robot back a little) the cliff reaction backs away by its
``backUpDistance_mm``, measured by the robot's own odometry, beat by beat.
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
    xs: list[float] = []

    def watch(brain: Any) -> None:
        def beat(snap: Any) -> None:
            state = brain.robot.state
            if state is not None:
                xs.append(state.proprioception.pose.x_mm)
        brain.heartbeat.subscribe("snapshot", beat)

    report = run_virtual(simulate(tmp_path / "edge.yaml", [REPO / "resources"], hours=30 / 3600, seed=1,
                                  progress=False, on_start=watch, table=Table(400.0, 400.0))).as_dict()
    assert [e for e in report["timeline"] if e["kind"] == "reaction" and e["name"] == "CliffDetected"]
    edge = xs.index(max(xs[:100]))  # where the first drive ahead stopped at the edge
    back = edge + 1
    while back < len(xs) - 1 and xs[back + 1] <= xs[back]:
        back += 1  # ... and where backing away ended
    assert back < len(xs) - 1, "it did not drive ahead again after backing away"
    start = back
    while xs[start - 1] > xs[start]:
        start -= 1  # the back-up drive began here, after the clip (whose own keyframes back it off a bit)
    assert start > edge + 5 and xs[start] < xs[edge] - 10.0, (edge, start)
    assert 97.0 <= xs[start] - xs[back] <= 112.0, (xs[start], xs[back])  # (a timed drive went some 80 mm)
