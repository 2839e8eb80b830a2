"""Backing up is blind (the one cliff sensor looks ahead), so it keeps off the edges the robot met.

The daemon runs on the virtual clock against the simulator standing on a table (whose edges are
cliffs, and whose rim holds the robot's middle as if it could not fall) with a personality that
drives ahead into the table's edge (the edge met: the cliff reaction backs away from it), turns
about, backs towards that edge a little and drives off the other way. There the floor ends (a
cliff the test makes under the sensor), and the reaction's back-up runs towards the edge met
first: it must stop short of it instead of running the robot's middle over it.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from driver.sim.table import Table

from .test_e2e_default import RESOURCES
from .virtual_daemon import run_on_virtual_clock, start_virtual

pytestmark = pytest.mark.e2e

EDGY = """\
name: edgy
reactions:
  CliffDetected: {behavior: ReactToCliff, params: {backUpDistance_mm: 100, animTriggers: []}, priority: 100}
root:
  type: selector
  children:
    - type: cooldown   # once: into the table's edge, where the cliff reaction takes over
      params: {seconds: 600}
      child: {type: drive, name: to the edge, params: {left: 40, right: 40, seconds: 10}}
    - type: sequence
      children:
        - {type: turn, name: about, params: {degrees: 180}}
        - {type: drive, name: back a little, params: {left: -40, right: -40, seconds: 2}}
        - {type: drive, name: away, params: {left: 40, right: 40, seconds: 4}}
        - {type: running}
"""
EDGE_X = 200.0  # a 400 mm square table centred on the robot's start


def test_the_back_up_after_a_cliff_stops_short_of_the_edge_met(tmp_path: Path) -> None:
    personality = tmp_path / "edgy.yaml"
    personality.write_text(EDGY)

    async def body() -> tuple[float, float, float]:
        world = await start_virtual(tmp_path, "--personality", str(personality), "--resources", str(RESOURCES),
                                    "--duration", "90", ready=r"running \S+ at 10 Hz")
        b = world.sim.body
        b.table = Table(2 * EDGE_X, 2 * EDGE_X)
        try:
            start = world.now()
            await world.line(r"reaction CliffDetected \(priority", timeout=15.0, after=start)
            met = b.x_mm
            await world.line(r"doing .*\baway\b", timeout=40.0, after=start)
            await asyncio.sleep(0.1)
            b.cliff = True  # the floor ends under the sensor, driving away from the edge met
            second = world.now()
            await world.line(r"reaction CliffDetected \(priority", timeout=5.0, after=second)
            at = b.x_mm
            await asyncio.sleep(0.3)
            b.cliff = False
            furthest = b.x_mm
            while not world.lines(r"reaction CliffDetected finished", after=second) or world.now() - second < 1.0:
                furthest = max(furthest, b.x_mm)
                await asyncio.sleep(0.02)
                assert world.now() - second < 20.0, "the reaction did not finish"
            await world.line(r"doing reaction > ReactToCliff > back up", timeout=1.0, after=second)
            return met, at, furthest
        finally:
            world.signal(signal.SIGINT)
            code = await world.wait(20.0)
            await world.close()
            assert code == 0, world.text

    met, at, furthest = run_on_virtual_clock(body(), timeout=120)
    assert met >= EDGE_X - 40.0, f"the cliff came at x={met:.0f} mm, far from the edge"
    assert at + 100.0 > EDGE_X + 10.0, f"the second cliff came at x={at:.0f} mm: a back-up of 100 mm stays clear anyway"
    assert furthest <= EDGE_X - 15.0, f"the middle came to x={furthest:.0f} mm, the edge is at {EDGE_X:.0f}"
