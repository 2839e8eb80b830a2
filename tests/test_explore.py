"""Exploring the table in a simulated day on the virtual clock: short drives, never off the edge.

The default personality, made to explore often, on a small table and on the usual desk. Each
drive ends at the table's edge at the latest: the cliff sensor sees it, the wheels stop and the
cliff reaction backs away, so the robot stays on the table all day; exploring makes it braver and
the edges less so. What is checked is the day's own record and the robot's odometry.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from brain.app.simulate import run_virtual, simulate
from brain.world import EDGE_HALF_MM
from driver.hardware import CLIFF_SENSOR_AHEAD_MM
from driver.samples import RobotStatus
from driver.sim.table import DESK, Table

from .conftest import REPO

pytestmark = pytest.mark.e2e


def _day(tmp_path: Path, table: Table | None, seconds: float = 600) -> tuple[dict[str, Any], list[tuple[float, float]]]:
    (tmp_path / "explorer.yaml").write_text(f"extends: {REPO / 'trees' / 'default.yaml'}\nname: explorer\n"
                                            "parameters: {explore_weight: 20, explore_cooldown_s: 5, look_weight: 0}\n")
    poses: list[tuple[float, float]] = []

    def watch(brain: Any) -> None:
        def beat(snap: Any) -> None:
            state = brain.robot.state
            if state is not None:
                pose = state.proprioception.pose
                poses.append((pose.x_mm, pose.y_mm))
        brain.heartbeat.subscribe("snapshot", beat)

    report = run_virtual(simulate(tmp_path / "explorer.yaml", [REPO / "resources"], hours=seconds / 3600, seed=4,
                                  progress=False, on_start=watch, table=table)).as_dict()
    return report, poses


def test_on_a_small_table_it_explores_to_the_edges_and_never_over_them(tmp_path: Path) -> None:
    table = Table(300.0, 240.0)
    report, poses = _day(tmp_path, table)
    names = [e["name"] for e in report["timeline"] if e["kind"] == "behaviour"]
    assert names.count("Explore") >= 5, names
    cliffs = [e for e in report["timeline"] if e["kind"] == "reaction" and e["name"] == "CliffDetected"]
    assert len(cliffs) >= 2, cliffs
    assert poses and all(abs(x) <= 150.0 + 1 and abs(y) <= 120.0 + 1 for x, y in poses)
    spread = max(x for x, _ in poses) - min(x for x, _ in poses)
    assert spread >= 100.0, spread  # it went about, not round in place
    brave = report["mood"]["Brave"]
    assert brave["max"] >= 0.2 and brave["min"] < 0.0, brave


def test_on_an_endless_floor_there_is_no_edge(tmp_path: Path) -> None:
    report, poses = _day(tmp_path, None, 300)
    assert not [e for e in report["timeline"] if e["kind"] == "reaction" and e["name"] == "CliffDetected"]
    assert "Explore" in {e["name"] for e in report["timeline"] if e["kind"] == "behaviour"}


def _edges_met_again(tmp_path: Path, clearance_mm: float) -> tuple[int, int]:
    """Cliff stops in 10 simulated minutes on the desk of a default that does nothing but explore,
    and how many of them were at an edge met before (within EDGE_HALF_MM of an earlier stop's place,
    where the cliff sensor looked, from the robot's odometry)."""
    path = tmp_path / f"edges{clearance_mm:g}.yaml"
    path.write_text(f"extends: {REPO / 'trees' / 'default.yaml'}\nname: edges\n"
                    f"root: {{behavior: Explore, params: {{edgeClearance_mm: {clearance_mm}}}}}\n")
    places: list[tuple[float, float]] = []
    cliff = [False]

    def watch(brain: Any) -> None:
        def beat(snap: Any) -> None:
            state = brain.robot.state
            now = state is not None and bool(state.status & RobotStatus.CLIFF_DETECTED)
            if now and not cliff[0]:
                pose = state.proprioception.pose
                places.append((pose.x_mm + CLIFF_SENSOR_AHEAD_MM * math.cos(pose.angle_rad),
                               pose.y_mm + CLIFF_SENSOR_AHEAD_MM * math.sin(pose.angle_rad)))
            cliff[0] = now
        brain.heartbeat.subscribe("snapshot", beat)

    report = run_virtual(simulate(path, [REPO / "resources"], hours=600 / 3600, seed=4, progress=False,
                                  table=DESK, on_start=watch)).as_dict()
    stops = len([e for e in report["timeline"] if e["kind"] == "reaction" and e["name"] == "CliffDetected"])
    again = sum(1 for i, p in enumerate(places) if any(math.dist(p, q) < EDGE_HALF_MM for q in places[:i]))
    return stops, again


def test_it_keeps_away_from_the_edges_it_met(tmp_path: Path) -> None:
    """The world model remembers where the floor ended; later legs end clear of those places: the
    careless explorer comes back to the stretch of edge it met, the careful one goes elsewhere."""
    careless = _edges_met_again(tmp_path, 0)
    careful = _edges_met_again(tmp_path, 100)
    assert careless[0] >= 6 and careless[1] >= 4 and careful[1] <= 1, (careless, careful)


def test_it_explores_with_the_head_up_where_faces_are(tmp_path: Path) -> None:
    """Each leg raises a head lower than the face band into it, so a person it drives past is seen;
    the tree here lowers the head to the floor before every Explore."""
    path = tmp_path / "heads.yaml"
    path.write_text(f"extends: {REPO / 'trees' / 'default.yaml'}\nname: heads\n"
                    "root:\n  type: sequence\n  children:\n"
                    "    - {type: set_head_angle, params: {degrees: -20}}\n"
                    "    - {behavior: Explore, params: {duration_s: 8}}\n")
    sims: list[Any] = []
    moving: list[float] = []

    def watch(brain: Any) -> None:
        def beat(snap: Any) -> None:
            body = sims[0].body
            if abs(body.left_speed) + abs(body.right_speed) > 20.0:  # turning or driving
                moving.append(math.degrees(body.head.position))
        brain.heartbeat.subscribe("snapshot", beat)

    run_virtual(simulate(path, [REPO / "resources"], hours=120 / 3600, seed=4, progress=False, on_start=watch,
                         watch_sim=sims.append, table=None))
    assert len(moving) >= 100, len(moving)
    up = [a for a in moving if 8.0 <= a <= 27.0]
    assert len(up) >= 0.7 * len(moving), f"{len(up)} of {len(moving)} looks while moving had the head up"
