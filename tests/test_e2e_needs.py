"""ExpressNeeds from the app's real files, end to end: a robot low on Play says so.

The daemon runs with a resource root of the test's own searched first, whose needs_config.json
starts Play low (0.15, Critical), then the real resource sample and the project's resources. Its
personality tries the real Needs_MildLowEnergyRequest (Energy is full: nothing) and then
Needs_MildLowPlayRequest: the play request's clip (the project's, for the sample names none it
has) reaches the simulator, the energy request's never does. The daemon runs in the test's process on
the virtual clock (:mod:`tests.virtual_daemon`): the subject is what it asks for, not the wire.
"""

from __future__ import annotations

import json
import math
import signal
from pathlib import Path

import pytest

from brain.assets.resource_set import ResourceSet

from .clip_spans import clip_starts, group_heads
from .conftest import eventually
from .daemon_harness import RESOURCES
from .virtual_daemon import run_on_virtual_clock, start_virtual

pytestmark = pytest.mark.e2e


def test_a_robot_low_on_play_asks_and_one_full_of_energy_does_not(tmp_path: Path, sample_resources: Path) -> None:
    mine = tmp_path / "mine"
    (mine / "config" / "engine").mkdir(parents=True)
    (mine / "config" / "engine" / "needs_config.json").write_text(json.dumps({"InitialNeedLevelPlay": 0.15}))
    rs = ResourceSet.load([sample_resources, RESOURCES])

    def heads(trigger: str) -> list[list[int]]:
        return group_heads(rs, trigger)

    (tmp_path / "needs.yaml").write_text(
        "name: needs\n"
        "root:\n"
        "  type: selector\n"
        "  children:\n"
        "    - {behavior: Needs_MildLowEnergyRequest}\n"
        "    - {behavior: Needs_MildLowPlayRequest}\n"
        "    - {type: wait, params: {seconds: 1}}\n")

    async def body() -> None:
        d = await start_virtual(tmp_path, "--personality", "needs.yaml", "--resources", str(mine),
                        "--resources", str(sample_resources), "--resources", str(RESOURCES))
        try:
            await d.line(r"needs: .*mine/config/engine/needs_config.json", timeout=5.0)
            bored = heads("NeedsMildLowPlayRequest")
            await eventually(lambda: clip_starts(d.messages, -math.inf, bored), timeout=15.0, interval=0.1)
            first = clip_starts(d.messages, -math.inf, bored)[0]
            # the cooldown (20 s this low, the file's graph) keeps it from asking again at once
            await eventually(lambda: d.now() - first > 8.0, timeout=12.0, interval=0.1)
            assert len(clip_starts(d.messages, -math.inf, bored)) == 1
            assert not clip_starts(d.messages, -math.inf, heads("NeedsMildLowEnergyRequest"))
        finally:
            d.signal(signal.SIGINT)
            code = await d.wait(20.0)
            await d.close()
        assert code == 0, d.text[-3000:]

    run_on_virtual_clock(body(), timeout=90)
