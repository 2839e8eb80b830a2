"""Simulated days with eyes: the room's people reach the brain through the simulator's sight.

``simulate`` runs the default personality (with shorter waits for being alone, in a file that
extends it) over a few simulated minutes in virtual time, with people arriving and leaving
and a ball rolling. What is checked is the day's own record (the report's timeline): each
person arriving while the robot is awake is greeted or looked at, soon when they stand in the
camera's view, after a search when they do not; the robot does not nap while someone is
there; the ball makes it pounce; the same script without eyes has none of this.
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

# The ball rolls for 30 s: motion shows only while the camera holds still (as on a real robot), and a
# robot that is searching or breathing when it starts holds still only between its moves.
SCRIPT = """
- {at: 20, face: alice, bearing_deg: 10, distance_m: 0.6, height_m: 0.25}
- {at: 200, face_leaves: alice}
- {at: 240, face: bob, bearing_deg: 45}
- {at: 330, face_leaves: bob}
- {at: 400, motion: ground, bearing_deg: 0, for: 30}
"""
SOCIAL = ("AcknowledgeFace", "InteractWithFaces")


def _day(tmp_path: Path, eyes: str) -> dict[str, Any]:
    personality = tmp_path / "eyes.yaml"
    personality.write_text(f"extends: {REPO / 'trees' / 'default.yaml'}\nname: eyes\n"
                           "parameters: {alone_after_s: 20, search_cooldown_s: 2}\n")
    report = run_virtual(simulate(personality, [REPO / "resources"], hours=0.13, seed=3, progress=False,
                                  script=parse_script(SCRIPT), eyes=eyes))
    return dict(report.as_dict())


def _first(timeline: list[dict[str, Any]], names: tuple[str, ...], after: float) -> float | None:
    return next((e["t"] for e in timeline if e["kind"] == "behaviour" and e["name"] in names and e["t"] >= after),
                None)


def test_people_are_greeted_or_looked_at_and_kept_company(tmp_path: Path) -> None:
    report = _day(tmp_path, "sight")
    timeline = report["timeline"]
    assert report["eyes"]["mode"] == "sight" and report["eyes"]["faces_seen"] >= 2
    alice = _first(timeline, SOCIAL, 20)
    # she stands in the camera's view; a robot on the move may glimpse her first, turn, then see her
    assert alice is not None and alice - 20 <= 2.5, alice
    assert _first(timeline, ("AcknowledgeFace",), 20) == alice  # and is greeted first
    bob = _first(timeline, SOCIAL, 240)
    assert bob is not None and bob - 240 <= 30.0, bob  # 45° aside: found by a search
    sleeps = [e["t"] for e in timeline if e["kind"] == "sleep"]
    assert not [t for t in sleeps if 20 <= t <= 200 or 240 <= t <= 330], sleeps  # no nap in company
    assert _first(timeline, ("PounceOnMotion",), 400) is not None


def test_without_eyes_nobody_is_seen(tmp_path: Path) -> None:
    report = _day(tmp_path, "off")
    assert report["eyes"] == {"mode": "off"}
    assert _first(report["timeline"], (*SOCIAL, "PounceOnMotion"), 0) is None


def test_pixels_render_and_detect_every_picture(tmp_path: Path) -> None:
    pytest.importorskip("skimage", reason="the face photographs come from scikit-image ([test] extra)")
    script = parse_script("- {at: 5, face: alice, bearing_deg: 5, distance_m: 0.6, height_m: 0.25}\n")
    report = run_virtual(simulate(REPO / "trees" / "default.yaml", [REPO / "resources"], hours=0.01, seed=3,
                                  progress=False, script=script, eyes="pixels")).as_dict()
    assert report["eyes"]["mode"] == "pixels" and report["eyes"]["faces_seen"] >= 1
    assert report["eyes"]["looks"] >= 14 * 36  # about 15 pictures a second, none skipped
    greeted = _first(report["timeline"], SOCIAL, 5)
    assert greeted is not None and greeted - 5 <= 3.0, greeted


def _greeting_s(tmp_path: Path, leaves_at: float) -> tuple[float, str]:
    """How long the greeting of a person who comes at 20 s (in the picture's edge) and leaves at
    ``leaves_at`` lasts, from the behaviour's start to the next one's, and the clip it played."""
    personality = tmp_path / "eyes.yaml"
    personality.write_text(f"extends: {REPO / 'trees' / 'default.yaml'}\nname: eyes\n")
    script = ("- {at: 20, face: alice, bearing_deg: 20, distance_m: 0.6, height_m: 0.25}\n"
              f"- {{at: {leaves_at}, face_leaves: alice}}\n")
    timeline = run_virtual(simulate(personality, [REPO / "resources"], hours=50 / 3600, seed=3, progress=False,
                                    script=parse_script(script), eyes="sight")).as_dict()["timeline"]
    behaviours = [e for e in timeline if e["kind"] == "behaviour" and e["t"] >= 20]
    i = next(i for i, e in enumerate(behaviours) if e["name"] == "AcknowledgeFace")
    start, end = behaviours[i]["t"], behaviours[i + 1]["t"]
    clips = [e["name"] for e in timeline if e["kind"] == "clip" and start <= e["t"] < end]
    return end - start, ",".join(clips)


def test_a_greeting_plays_out_when_the_face_is_lost_while_it_plays(tmp_path: Path) -> None:
    # She steps out of sight a second after she came: the vision loses her face while the robot
    # greets her, and the greeting goes on as if she had stayed (it is under way; only its start
    # needed a new face), not cut off for a look at where she was.
    stays, clips = _greeting_s(tmp_path, 45)
    leaves, clips_leaving = _greeting_s(tmp_path, 21)
    assert "greetface" in clips, clips
    assert clips_leaving == clips and abs(leaves - stays) < 0.5, (stays, leaves, clips, clips_leaving)


def test_a_person_close_in_front_is_seen_whatever_the_idle_was_doing() -> None:
    # close in front (0.5 m): in the picture only with the head tilted up, so the idle must not
    # leave the head down for long; arrivals at odd moments of the idle, each answered within 30 s
    # (the script places a person in front of the heading of that moment: one who comes while an
    # idle clip turns the body stands aside once the turn ends, and may wait longer; seed 11 had one).
    # Seed 12's first comes at 137 s as a search turns past her: the scan's turns carry the head up
    # (a pause clip leaves it at 4°, where a face this close is above the picture), so it sees her.
    script = "\n".join(f"- {{at: {t}, face: p{i}, bearing_deg: 0, distance_m: 0.5, height_m: 0.25}}\n"
                       f"- {{at: {t + 45}, face_leaves: p{i}}}"
                       for i, t in enumerate(range(137, 1100, 160)))
    report = run_virtual(simulate(REPO / "trees" / "default.yaml", [REPO / "resources"], hours=0.32, seed=12,
                                  progress=False, script=parse_script(script))).as_dict()
    live = report["liveliness"]
    assert live["faces_awake"] >= 5, live
    assert live["faces_answered"] == live["faces_awake"], live["faces_unanswered"]


def test_one_search_turns_a_whole_circle(tmp_path: Path) -> None:
    """The packaged FindFaces scan, with nobody about: within its 30 s the body turns all the way round.

    So nobody standing anywhere around the robot is missed by one search, whichever way it turns
    first. Measured on the simulated body's odometry over the first search of a personality that
    only searches.
    """
    (tmp_path / "scanner.yaml").write_text("name: scanner\nroot: {behavior: FindFaces}\n")
    headings: list[tuple[float, float]] = []

    def watch(brain: Any) -> None:
        def beat(snap: Any) -> None:
            state = brain.robot.state
            if state is not None:
                headings.append((brain.ctx.now(), state.proprioception.pose.angle_rad))
        brain.heartbeat.subscribe("snapshot", beat)

    run_virtual(simulate(tmp_path / "scanner.yaml", [REPO / "resources"], hours=40 / 3600, seed=1,
                         progress=False, on_start=watch, table=None))
    assert headings
    start = headings[0][0]
    turned, last = 0.0, headings[0][1]
    for t, angle in headings:
        if t - start > 30.0:
            break
        turned += math.atan2(math.sin(angle - last), math.cos(angle - last))
        last = angle
    assert abs(math.degrees(turned)) >= 360.0, math.degrees(turned)
