"""Backing up is blind (the one cliff sensor looks ahead), so it keeps off the edges the robot met.

The daemon runs on the virtual clock against the simulator standing on a table (whose edges are
cliffs, and whose rim holds the robot's middle as if it could not fall) with a personality that
drives ahead and reacts to cliffs. The robot drives head-on into the table's edge; the cliff
reaction's clip turns it away from the edge, and the back-up that follows runs towards the edge it
has just met: it must stop short of it instead of running the robot's middle over it.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from driver.sim.body import Table

from .test_e2e_default import RESOURCES
from .virtual_daemon import run_on_virtual_clock, start_virtual

pytestmark = pytest.mark.e2e

EDGY = """\
name: edgy
reactions:
  CliffDetected: {behavior: ReactToCliff, params: {backUpDistance_mm: 100}, priority: 100}
root:
  type: sequence
  children:
    - {type: drive, params: {left: 40, right: 40, seconds: 8}}
    - {type: running}
"""
EDGE_X = 200.0  # a 400 mm square table centred on the robot's start


def test_the_back_up_after_a_cliff_stops_short_of_the_edge_met(tmp_path: Path) -> None:
    personality = tmp_path / "edgy.yaml"
    personality.write_text(EDGY)

    async def body() -> tuple[float, float]:
        world = await start_virtual(tmp_path, "--personality", str(personality), "--resources", str(RESOURCES),
                                    "--duration", "60", ready=r"running \S+ at 10 Hz")
        b = world.sim.body
        b.table = Table(2 * EDGE_X, 2 * EDGE_X)
        try:
            start = world.now()
            await world.line(r"reaction CliffDetected \(priority", timeout=15.0, after=start)
            met = b.x_mm
            furthest = b.x_mm
            while not world.lines(r"reaction CliffDetected finished", after=start) or world.now() - start < 1.0:
                furthest = max(furthest, b.x_mm)
                await asyncio.sleep(0.02)
                assert world.now() - start < 20.0, "the reaction did not finish"
            await world.line(r"doing reaction > ReactToCliff > back up", timeout=1.0, after=start)
            return met, furthest
        finally:
            world.signal(signal.SIGINT)
            code = await world.wait(20.0)
            await world.close()
            assert code == 0, world.text

    met, furthest = run_on_virtual_clock(body(), timeout=120)
    assert met >= EDGE_X - 40.0, f"the cliff came at x={met:.0f} mm, far from the edge"
    assert furthest <= EDGE_X - 15.0, f"the middle came to x={furthest:.0f} mm, the edge is at {EDGE_X:.0f}"
