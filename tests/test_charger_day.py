"""The charger in a simulated day (virtual clock): a low battery asks for it, and on it the robot sleeps sooner.

A low battery is not a reason to nap: off the charger the default personality asks to be put
on it every minute (its request clip, red lights) and stays up; put on the charger it stops
asking. On the charger it is sleepy at a lower sleep debt, so left alone there it falls
asleep sooner than the same robot off it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.app.simulate import run_virtual, simulate
from driver.sim.script import parse_script

from .conftest import REPO

pytestmark = pytest.mark.e2e

REQUEST = "anim_chargerdocking_request_01"


def _day(personality: Path, seconds: float, script: str, seed: int = 5) -> dict:
    return run_virtual(simulate(personality, [REPO / "resources"], hours=seconds / 3600, seed=seed,
                                progress=False, script=parse_script(script))).as_dict()


def test_a_low_battery_asks_for_the_charger_instead_of_napping_and_stops_on_it() -> None:
    report = _day(REPO / "trees" / "default.yaml", 400, """
- {at: 30, event: battery, volts: 3.5}
- {at: 300, event: on_charger}
""")
    asks = [e["t"] for e in report["timeline"] if e["kind"] == "clip" and e["name"] == REQUEST]
    # the first within a few seconds of the battery going low, then about every minute until the charger
    assert asks and 30 <= asks[0] <= 36, asks
    assert len([t for t in asks if t < 300]) >= 4, asks
    assert all(b - a >= 59 for a, b in zip(asks, asks[1:], strict=False)), asks
    assert not [t for t in asks if t > 305], asks
    assert report["sleep_count"] == 0, report["sleep_episodes"]


def test_on_the_charger_it_falls_asleep_sooner(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(f"extends: {REPO / 'trees' / 'default.yaml'}\n"
                                     "arousal: {sleepy_after_s: 300, sleepy_on_charger_s: 150}\n")
    off = _day(tmp_path / "p.yaml", 420, "[]")
    on = _day(tmp_path / "p.yaml", 420, "- {at: 1, event: on_charger}")
    # asleep once the debt reaches the level: 300 s of being up off the charger, 150 s on it
    assert off["first_sleep_at_s"] is None or off["first_sleep_at_s"] >= 300, off["first_sleep_at_s"]
    assert on["first_sleep_at_s"] is not None and 150 <= on["first_sleep_at_s"] < 300, on["first_sleep_at_s"]


def test_a_person_who_comes_while_the_battery_is_low_is_greeted_and_then_asked() -> None:
    # eyes on (the room's geometry), as in a visited day: the person is in front, close by, in
    # the picture only with the head up (its waits between requests keep the head up)
    report = run_virtual(simulate(REPO / "trees" / "default.yaml", [REPO / "resources"], hours=280 / 3600,
                                  seed=3, progress=False, eyes="sight", script=parse_script("""
- {at: 20, event: battery, volts: 3.5}
- {at: 170, face: ann, bearing_deg: 4, distance_m: 0.46, height_m: 0.25}
- {at: 260, face_leaves: ann}
"""))).as_dict()
    live = report["liveliness"]
    assert live["faces_awake"] == 1 and live["faces_answered"] == 1, live["faces_unanswered"]
    asks = [e["t"] for e in report["timeline"] if e["kind"] == "clip" and e["name"] == REQUEST]
    assert [t for t in asks if t > 170], asks   # still asks with someone there
