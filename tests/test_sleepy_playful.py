"""Sleepy against playful: the same 18 minutes alone, two different days.

The two packaged variants of the default change only parameters (how fast it tires, how long a
visit keeps it up, how often it asks to play and explores, how it idles). On the virtual clock,
with one seed, the playful robot is up more of the time, asks to play and explores more, and
does more different things per awake hour; the sleepy one naps more. What is compared is each
day's own record. The two days run side by side in processes of their own (as ``simulate
--seeds`` runs its days), so the test takes one day's time, not two.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest

from brain.app.simulate import run_virtual, simulate

from .conftest import REPO

pytestmark = pytest.mark.e2e


def _day(name: str) -> dict[str, Any]:
    return run_virtual(simulate(REPO / "trees" / f"{name}.yaml", [REPO / "resources"], hours=0.3, seed=6,
                                progress=False)).as_dict()


def _count(report: dict[str, Any], behaviour: str) -> int:
    return sum(1 for e in report["timeline"] if e["kind"] == "behaviour" and e["name"] == behaviour)


def test_sleepy_and_playful_live_different_days() -> None:
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        sleepy, playful = pool.map(_day, ("sleepy", "playful"))
    s, p = sleepy["liveliness"], playful["liveliness"]
    assert p["awake_share"] >= s["awake_share"] + 0.3, (s["awake_share"], p["awake_share"])
    assert sleepy["sleep_count"] > playful["sleep_count"], (sleepy["sleep_count"], playful["sleep_count"])
    assert _count(playful, "RequestToPlay") > _count(sleepy, "RequestToPlay")
    assert _count(playful, "Explore") > _count(sleepy, "Explore")
    assert p["distinct_behaviours"] > s["distinct_behaviours"], (s["distinct_behaviours"], p["distinct_behaviours"])
