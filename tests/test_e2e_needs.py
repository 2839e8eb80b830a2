"""ExpressNeeds from the app's real files, end to end over UDP: a robot low on Play says so.

The daemon runs with a resource root of the test's own searched first, whose needs_config.json
starts Play low (0.15, Critical), then the real resource sample and the project's resources. Its
personality tries the real Needs_MildLowEnergyRequest (Energy is full: nothing) and then
Needs_MildLowPlayRequest: the play request's clip (the project's, for the sample names none it
has) reaches the simulator, the energy request's never does.
"""

from __future__ import annotations

import json
import math
import signal
from pathlib import Path

import pytest

from brain.assets.resource_set import ResourceSet

from .conftest import eventually, run
from .daemon_harness import RESOURCES, Daemon, start

pytestmark = pytest.mark.e2e


def _in_order(seq: list[int], part: list[int]) -> bool:
    """Whether ``part`` occurs in ``seq`` in order (a long head move arrives as several keyframes)."""
    it = iter(seq)
    return all(any(x == want for x in it) for want in part)


def _clips_started(d: Daemon, clips: list[list[int]]) -> list[float]:
    """When each clip whose head keyframes are one of ``clips`` began reaching the simulator."""
    starts = [t for t, _ in d.messages("StartAnimation")]
    found = []
    for i, begin in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else math.inf
        heads = [round(m.angle_deg) for _, m in d.messages("AnimHead", begin, end)]
        if heads and any(c and _in_order(heads, c) and heads[-1] == c[-1] for c in clips):
            found.append(begin)
    return found


def test_a_robot_low_on_play_asks_and_one_full_of_energy_does_not(tmp_path: Path, sample_resources: Path) -> None:
    mine = tmp_path / "mine"
    (mine / "config" / "engine").mkdir(parents=True)
    (mine / "config" / "engine" / "needs_config.json").write_text(json.dumps({"InitialNeedLevelPlay": 0.15}))
    rs = ResourceSet.load([sample_resources, RESOURCES])

    def heads(trigger: str) -> list[list[int]]:
        group = rs.playable_group_for_trigger(trigger)
        assert group is not None, trigger
        return [[round(k.angle_deg) for k in rs.clips.get(m.name).head_angle] for m in group.members]

    (tmp_path / "needs.yaml").write_text(
        "name: needs\n"
        "root:\n"
        "  type: selector\n"
        "  children:\n"
        "    - {behavior: Needs_MildLowEnergyRequest}\n"
        "    - {behavior: Needs_MildLowPlayRequest}\n"
        "    - {type: wait, params: {seconds: 1}}\n")

    async def body() -> None:
        d = await start(tmp_path, "--personality", "needs.yaml", "--resources", str(mine),
                        "--resources", str(sample_resources), "--resources", str(RESOURCES))
        try:
            await d.line(r"needs: .*mine/config/engine/needs_config.json", timeout=5.0)
            bored = heads("NeedsMildLowPlayRequest")
            await eventually(lambda: _clips_started(d, bored), timeout=15.0, interval=0.1)
            first = _clips_started(d, bored)[0]
            # the cooldown (20 s this low, the file's graph) keeps it from asking again at once
            await eventually(lambda: d.now() - first > 8.0, timeout=12.0, interval=0.1)
            assert len(_clips_started(d, bored)) == 1
            assert not _clips_started(d, heads("NeedsMildLowEnergyRequest"))
        finally:
            d.signal(signal.SIGINT)
            code = await d.wait(20.0)
            await d.close()
        assert code == 0, d.text[-3000:]

    run(body(), timeout=90)
