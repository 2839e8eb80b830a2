"""Whatever wakes it, the robot gets up with its wake-up animation (a simulated day on the virtual clock).

The sleepy personality (the default, bored after 20 s) naps between disturbances: a poke and the
button are handled by reactions that resume the sleeper, which notices them; a pick-up is a
reaction that does not resume it, so the sleep is interrupted. Each ends with a wake-up clip.
"""

from __future__ import annotations

import pytest

from brain.app.simulate import run_virtual, simulate
from driver.sim.script import parse_script

from .conftest import REPO

pytestmark = pytest.mark.e2e

SCRIPT = """
- {at: 100, event: poke}
- {at: 200, event: pick_up, for: 2.5}
- {at: 300, event: button}
"""


def test_every_wake_up_plays_the_wake_up_animation_and_then_it_is_awake() -> None:
    report = run_virtual(simulate(REPO / "trees" / "sleepy.yaml", [REPO / "resources"], hours=380 / 3600, seed=4,
                                  progress=False, script=parse_script(SCRIPT))).as_dict()
    timeline = report["timeline"]
    sleeps = [e["t"] for e in timeline if e["kind"] == "sleep"]
    wakes = [(e["t"], e.get("why", "")) for e in timeline if e["kind"] == "wake"]
    # asleep before each disturbance, woken by each
    for at in (100.0, 200.0, 300.0):
        assert any(t < at for t in sleeps) and any(at <= t < at + 5 for t, _ in wakes), (at, sleeps, wakes)
    live = report["liveliness"]
    assert live["wake_ups"] >= 3 and live["wake_ups_animated"] == live["wake_ups"], live
    # the wake-up clip follows each wake within a few seconds, the pick-up's too
    clips = [e for e in timeline if e["kind"] == "clip"]
    wake_clips = [e["t"] for e in clips if "wakeup" in e["name"]]
    for t, _ in wakes:
        assert any(t - 0.5 <= c <= t + 5 for c in wake_clips), (t, wake_clips)
