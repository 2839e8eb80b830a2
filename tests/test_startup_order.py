"""Start-up order: the animation clock starts once the personality's tree is built.

Building a tree holds the event loop (tens of milliseconds for the default personality here,
more on a Raspberry Pi or for a large personality); a frame clock already running would see
those frames as missed, a gap in the face the robot shows. The stack is the daemon's own
(:class:`brain.app.startup.BrainStack`) against the simulator over UDP; the build is made slow
by holding the loop inside it, as a slow machine would.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from brain.app.startup import BrainStack
from brain.engine import Brain
from driver.sim.server import SimulatedCozmo

from .conftest import REPO, run

pytestmark = pytest.mark.e2e


def test_the_frame_clock_starts_after_the_tree_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    built = Brain.load

    def slow_load(self: Brain) -> None:
        time.sleep(0.3)  # the loop held, as by a build ten times slower
        built(self)

    monkeypatch.setattr(Brain, "load", slow_load)

    async def body() -> None:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        stack = BrainStack(REPO / "trees" / "default.yaml", [REPO / "resources"], heartbeat_hz=10,
                           preload_sounds=False)
        stack.prepare()
        try:
            await stack.start(sim.address)
            assert stack.controller is not None and stack.controller.running
            await asyncio.sleep(0.3)
            # a clock started before the build misses nine frames here; a loaded test machine may
            # hold the loop past a frame once or twice on its own
            assert stack.controller.stats.missed_frames <= 2, stack.controller.stats
        finally:
            await stack.close()
            await sim.stop()

    run(body())
