"""Asking to play (RequestToPlay) in a simulated day on the virtual clock.

The default personality, asking every minute: alone, nobody answers, so each request ends in
a sad look and the robot grows lonely (Social below nothing); with a person who pokes it now and
then, a request is answered and ends in the answer's clip. What is checked is the day's own record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from brain.app.simulate import run_virtual, simulate
from driver.sim.script import parse_script

from .conftest import REPO

pytestmark = pytest.mark.e2e

REQUEST = "anim_requesttoplay_01"
SAD = {"anim_sad_sigh_01", "anim_sad_droop_01"}
HAPPY = {"anim_hiccup_01", "anim_hiccup_02"}


def _day(tmp_path: Path, seconds: float, script: str) -> dict[str, Any]:
    # answered, it hiccups here (a clip nothing else in the default plays), so the answer is its own
    (tmp_path / "asks.yaml").write_text(f"extends: {REPO / 'trees' / 'default.yaml'}\nname: asks\n"
                                        "parameters: {ask_to_play_every_s: 60, alone_after_s: 30}\n"
                                        "overrides: {request_to_play.params: {acceptAnimTrigger: Hiccup}}\n")
    return run_virtual(simulate(tmp_path / "asks.yaml", [REPO / "resources"], hours=seconds / 3600, seed=2,
                                progress=False, script=parse_script(script))).as_dict()


def _clips(report: dict[str, Any]) -> list[tuple[float, str]]:
    return [(e["t"], e["name"]) for e in report["timeline"] if e["kind"] == "clip"]


def _after(clips: list[tuple[float, str]], t: float, names: set[str], within: float) -> float | None:
    return next((at for at, name in clips if t < at <= t + within and name in names), None)


def test_alone_its_requests_go_unanswered_and_it_grows_lonely(tmp_path: Path) -> None:
    report = _day(tmp_path, 420, "[]")
    clips = _clips(report)
    asks = [t for t, name in clips if name == REQUEST]
    assert len(asks) >= 3, asks
    assert all(b - a >= 60 for a, b in zip(asks, asks[1:], strict=False)), asks
    # 12 s of waiting, then the disappointment (a search for people may cut a request short)
    sad = [(t, _after(clips, t, SAD, 25.0)) for t in asks]
    assert len([t for t, s in sad if s is not None]) >= 2, clips
    assert all(s - t >= 12.0 for t, s in sad if s is not None), sad
    assert not [t for t in asks if _after(clips, t, HAPPY, 25.0) is not None], clips
    assert report["mood"]["Social"]["min"] <= -0.2, report["mood"]["Social"]
    assert report["mood"]["Confident"]["min"] <= -0.2, report["mood"]["Confident"]


def test_a_poke_answers_a_request(tmp_path: Path) -> None:
    # a poke every 15 s for ten minutes: some requests meet one mid-clip (a poke reaction, then
    # play), the others one while waiting (an answer)
    pokes = "\n".join(f"- {{at: {t}, event: poke}}" for t in range(100, 580, 15))
    report = _day(tmp_path, 600, pokes)
    clips = _clips(report)
    asks = [t for t, name in clips if name == REQUEST]
    assert asks, clips
    answered = [t for t in asks if _after(clips, t, HAPPY, 15.0) is not None and _after(clips, t, SAD, 15.0) is None]
    assert answered, [(t, [c for c in clips if t < c[0] < t + 20]) for t in asks]
    assert report["mood"]["Social"]["max"] >= 0.3, report["mood"]["Social"]


def test_a_poke_while_it_asks_is_the_answer(tmp_path: Path) -> None:
    # the same seed replays the same day up to the poke, so the poke lands half a second into the
    # first request: the poke's reaction runs, and the branch goes on to the answer's clip rather
    # than asking again and waiting for another poke
    quiet = _clips(_day(tmp_path, 200, ""))
    first = next(t for t, name in quiet if name == REQUEST)
    clips = _clips(_day(tmp_path, first + 40, f"- {{at: {first + 0.5:.2f}, event: poke}}"))
    assert any(abs(t - first) < 0.05 and name == REQUEST for t, name in clips), (first, clips)
    happy = _after(clips, first, HAPPY, 15.0)
    assert happy is not None and _after(clips, first, SAD, 15.0) is None, [c for c in clips if c[0] > first]
    assert _after(clips, first + 0.1, {REQUEST}, happy - first) is None, [c for c in clips if c[0] > first]
