"""Asleep, the robot breathes, looks up now and then, and wakes in proportion to what happens.

A simulated day on the virtual clock with eyes (the simulator hands the vision what its camera
sees): a personality that tires in a minute and hardly rests, so it sleeps through the script
unless something wakes it. Motion close in front makes it lift its head to look; motion further
away does not; a person sitting close by is seen at the next look and wakes it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from brain.app.simulate import run_virtual, simulate
from driver.sim.script import parse_script

from .conftest import REPO

pytestmark = pytest.mark.e2e

SCRIPT = """
- {at: 230, motion: ground, bearing_deg: 0, distance_m: 0.15, for: 3}
- {at: 262, motion: ground, bearing_deg: 0, distance_m: 0.4, for: 3}
- {at: 340, face: alice, bearing_deg: 5, distance_m: 0.6, height_m: 0.25}
"""


def test_asleep_it_breathes_looks_up_now_and_then_and_a_face_close_by_wakes_it(tmp_path: Path) -> None:
    (tmp_path / "deep.yaml").write_text(f"extends: {REPO / 'trees' / 'default.yaml'}\n"
                                        "arousal: {sleepy_after_s: 60, rest_rate: 0.05}\n")
    beats: list[tuple[float, str, float]] = []
    motion: list[tuple[float, str]] = []

    def watch(brain: Any) -> None:
        def beat(snap: Any) -> None:
            state = brain.robot.state
            head = math.degrees(state.proprioception.head_angle_rad) if state is not None else 0.0
            beats.append((snap.at, brain.ctx.arousal.state, head))
            seen = brain.ctx.world.motion
            if seen is not None and (not motion or motion[-1] != (seen.at, seen.where)):
                motion.append((seen.at, seen.where))
        brain.heartbeat.subscribe("snapshot", beat)

    report = run_virtual(simulate(tmp_path / "deep.yaml", [REPO / "resources"], hours=480 / 3600, seed=3,
                                  progress=False, script=parse_script(SCRIPT), on_start=watch)).as_dict()
    timeline = report["timeline"]
    sleeps = [e["t"] for e in timeline if e["kind"] == "sleep"]
    wakes = [(e["t"], e["name"]) for e in timeline if e["kind"] == "wake"]
    assert sleeps and sleeps[0] < 200, sleeps
    asleep_at = sleeps[0]
    # nothing wakes it before the face: not the motion close by, not the motion further away
    assert not [w for w in wakes if asleep_at < w[0] < 340], wakes
    # the person is seen at its next look (every 90 s, 4 s each) and wakes it, not sooner than the face
    woken = [(t, why) for t, why in wakes if t >= 340]
    assert woken and woken[0][1] == "woken by a face" and woken[0][0] <= 340 + 90 + 10, wakes
    woke_at = woken[0][0]

    def up_between(a: float, b: float) -> bool:
        return any(state == "asleep" and head > 0.0 for t, state, head in beats if a <= t <= b)

    # asleep its head is down but for its looks: one at once after the motion close in front ...
    assert any(230 <= t <= 234 and where == "ground" for t, where in motion), motion
    assert up_between(230, 236)
    # ... none after the motion further away, which its camera saw too (the previous look ended long before)
    assert any(262 <= t <= 266 and where != "ground" for t, where in motion), motion
    assert not up_between(262, 275)
    # and between looks, down at the bottom
    assert all(head < -15.0 for t, state, head in beats if state == "asleep" and 300 <= t <= 320)
    # between get-in and wake-up the sleeping loop plays over and over: slow breathing
    loops = [e["t"] for e in timeline if e["kind"] == "clip" and "sleeping" in e["name"]
             and asleep_at < e["t"] < woke_at]
    assert len(loops) >= (woke_at - asleep_at) / 10.0, loops
    # and the wake-up clip follows the wake
    assert any("wakeup" in e["name"] and woke_at - 0.5 <= e["t"] <= woke_at + 5 for e in timeline
               if e["kind"] == "clip")
