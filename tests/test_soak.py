"""Soak: the default personality for a simulated working day, on the virtual clock.

The whole stack (simulator, link, robot, animation controller, brain) runs for eight simulated
hours with something happening every 40 minutes. What a daemon meant to run for days must show
over such a stretch: it keeps reacting to every interaction, it falls asleep and wakes up again
and again, its heartbeat stays cheap, and its memory stops growing once its bounded buffers are
full. About five minutes of wall time, so it is marked ``soak`` (``pytest -m soak``).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from brain.app.simulate import run_virtual, simulate
from driver.sim.script import parse_script

from .conftest import REPO

# A simulated working day: minutes of wall time, more on a loaded machine than the suite-wide limit allows.
pytestmark = [pytest.mark.soak, pytest.mark.timeout(1200)]

HOURS = 8.0
#: One interaction every 40 minutes, cycling through these (time offsets inside the cycle).
CYCLE = [
    "{event: poke}",
    "{event: pick_up, for: 3}",
    "{event: button}",
    "{event: cube_tap, object_id: 1, taps: 2}",
    "{orientation: on_back, for: 5}",
    "{event: cliff, for: 1.5}",
]
REACTION_OF = ["Poked", "RobotPickedUp", "ButtonPressed", "DoubleTapDetected", "RobotOnBack", "CliffDetected"]


def _rss_mb() -> float:
    """This process's resident memory in MB (Linux), or NaN elsewhere."""
    try:
        with open(f"/proc/{os.getpid()}/statm") as f:
            pages = int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return float("nan")
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def test_a_simulated_day_reacts_to_everything_sleeps_wakes_and_stays_bounded() -> None:
    if not Path("/proc/self/statm").exists():
        pytest.skip("memory is sampled from /proc (Linux)")
    steps = [f"- {{at: {600 + 2400 * i}, {CYCLE[i % len(CYCLE)][1:]}" for i in range(int(HOURS * 3600 - 600) // 2400)]
    script = parse_script("\n".join(steps), "soak timeline")
    rss: list[tuple[float, float]] = []
    brains: list[Any] = []

    def watch(brain: Any) -> None:
        brains.append(brain)

        async def sample() -> None:
            while True:
                await asyncio.sleep(1800.0)  # virtual: every simulated half hour
                rss.append((asyncio.get_running_loop().time(), _rss_mb()))

        asyncio.get_running_loop().create_task(sample())

    report = run_virtual(simulate(REPO / "trees" / "default.yaml", [REPO / "resources"], hours=HOURS,
                                  script=script, seed=11, progress=False, on_start=watch))

    assert report.simulated_s == pytest.approx(HOURS * 3600, rel=1e-3)
    assert report.beats >= int(HOURS * 3600 * 10 * 0.99)
    # every interaction got its reaction
    expected: dict[str, int] = {}
    for i in range(len(steps)):
        expected[REACTION_OF[i % len(CYCLE)]] = expected.get(REACTION_OF[i % len(CYCLE)], 0) + 1
    for trigger, count in expected.items():
        assert report.reactions.get(trigger, 0) >= count, (trigger, report.reactions)
    # it keeps a rhythm: asleep when left alone, awake again after each interaction
    assert report.sleep_count >= len(steps)
    woken_by = [e.ended_by for e in report.sleep_episodes if e.ended_by != "still asleep at the end"]
    assert len(woken_by) >= len(steps) - 1, report.sleep_episodes
    assert len(report.animations) >= 10  # a varied day, not one clip on repeat
    # the heartbeat stays cheap
    assert report.median_beat_ms < 1.0
    # memory levels off: what grew after the first two hours is small
    assert len(rss) >= int(HOURS * 2) - 1
    after_2h = [mb for t, mb in rss if t >= 2 * 3600]
    assert max(after_2h) - after_2h[0] < 15.0, rss
    # the brain's own memories stay bounded
    ctx = brains[0].ctx
    # a day fills the event memory, so its bound is what keeps it small: each memory has one
    assert ctx.events.maxlen is not None and len(ctx.events) == ctx.events.maxlen <= 1024
    filed = ctx._by_kind
    assert filed and all(d.maxlen is not None and d.maxlen <= 1024 for d in filed.values())
    assert len(filed) <= 64  # one memory per event kind, not per event
