"""Mood interludes: how the robot feels shows now and then, chosen by Anki's scoring on the mood.

``simulate`` runs a personality that extends the default one and starts in a given mood, for a few
simulated minutes; what is checked is the day's own record: a sad robot sighs, a happy one
wiggles, a bored one yawns (and then wants to play more), a robot in a middling mood is neither
glad nor sad, and no interlude comes twice within the personality's repeat time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from brain.app.simulate import run_virtual, simulate

from .conftest import REPO

pytestmark = pytest.mark.e2e

INTERLUDES = ("happy", "sad", "frustrated", "bored")


def _day(tmp_path: Path, initial: str, minutes: float) -> dict[str, Any]:
    personality = tmp_path / "moody.yaml"
    personality.write_text(f"extends: {REPO / 'trees' / 'default.yaml'}\nname: moody\n"
                           f"mood: {{initial: {initial}}}\n")
    report = run_virtual(simulate(personality, [REPO / "resources"], hours=minutes / 60, seed=4, progress=False,
                                  table=None))
    return dict(report.as_dict())


def _interludes(report: dict[str, Any]) -> list[tuple[float, str]]:
    return [(e["t"], e["name"]) for e in report["timeline"] if e["kind"] == "behaviour" and e["name"] in INTERLUDES]


@pytest.mark.parametrize(("initial", "shown", "clip"), [
    ("{Happy: -0.7, Excited: 0.3, Social: 0.3}", "sad", "anim_sad"),
    ("{Happy: 0.8, Excited: 0.3, Social: 0.3}", "happy", "anim_happy"),
])
def test_a_strong_mood_shows_in_an_interlude(tmp_path: Path, initial: str, shown: str, clip: str) -> None:
    report = _day(tmp_path, initial, 2.5)
    seen = _interludes(report)
    assert seen and seen[0][1] == shown, seen
    clips = [e["name"] for e in report["timeline"] if e["kind"] == "clip" and e["t"] >= seen[0][0]]
    assert clips and clips[0].startswith(clip), clips[:3]


def test_a_middling_mood_shows_neither_joy_nor_sorrow(tmp_path: Path) -> None:
    # (left alone, the mood sinks towards nothing, and a bored yawn may come: that one is about time alone)
    report = _day(tmp_path, "{Happy: 0.0, Excited: 0.3, Social: 0.3, Confident: 0.0}", 2.5)
    assert [name for _, name in _interludes(report) if name != "bored"] == []


def test_alone_it_gets_bored_and_no_interlude_repeats_soon(tmp_path: Path) -> None:
    report = _day(tmp_path, "{Happy: 0.0, Excited: 0.0, Social: 0.0}", 25)
    seen = _interludes(report)
    assert "bored" in [name for _, name in seen], seen
    last: dict[str, float] = {}
    for t, name in seen:
        assert name not in last or t - last[name] >= 600, seen  # mood_repeat_s
        last[name] = t
    starts = [t for t, _ in seen]
    assert all(b - a >= 150 for a, b in zip(starts, starts[1:], strict=False)), seen  # mood_every_s
