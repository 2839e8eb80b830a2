"""Sleepiness: the sleep debt that builds awake, is paid back asleep and by what happens, and the
personality's ``arousal:`` section that tunes it (how the robot naps over a day is in test_wake_up)."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.arousal import DEFAULT_STIMULI, Arousal, SleepParams
from brain.assets import load_resource_set
from brain.context import BrainContext
from brain.personality import PersonalityError, context_for_check, load_personality
from driver import events as ev
from driver.samples import RobotStatus

from .conftest import REPO

ROOT = "root: {type: wait, params: {seconds: 1}}\n"


def test_the_debt_builds_awake_is_paid_asleep_and_by_stimuli_within_its_bounds() -> None:
    a = Arousal()
    a.configure(SleepParams(sleepy_after_s=100.0, tire_rate=2.0, rest_rate=0.5, initial_debt_s=10.0, reserve_s=600.0,
                            stimuli={"poked": 40.0, "face_seen": 500.0, "picked_up": 50.0}))
    assert a.debt_s == 10.0
    a.update([], 0.0)
    a.update([], 30.0)  # awake 30 s at 2 s a second
    assert a.debt_s == pytest.approx(70.0) and not a.sleepy
    a.update([], 45.0)
    assert a.debt_s == pytest.approx(100.0) and a.sleepy
    a.update([], 1000.0)  # never past twice the sleepy level
    assert a.debt_s == pytest.approx(200.0)
    a.fall_asleep(1000.0, "tired")
    a.update([], 1100.0)  # asleep 100 s at 0.5 s a second
    assert a.debt_s == pytest.approx(150.0)
    a.update([ev.Poked(1100.0), ev.ButtonPressed(1100.0)], 1100.0)  # a poke pays its worth; the button nothing here
    assert a.debt_s == pytest.approx(110.0)
    a.update([ev.StatusChanged(1100.0, RobotStatus.IS_PICKED_UP, False)], 1100.0)  # put down: not a new stimulus
    assert a.debt_s == pytest.approx(110.0)
    a.update([ev.FaceSeen(1100.0, face_id=1)], 1100.0)  # asleep, what it sees pays nothing
    assert a.debt_s == pytest.approx(110.0)
    a.wake(1100.0, "woken by a face")
    a.update([ev.FaceSeen(1100.0, face_id=1)], 1100.0)  # awake it does, below nothing down to the reserve
    assert a.debt_s == -390.0 and a.rested and not a.sleepy
    a.update([ev.FaceSeen(1100.0, face_id=2)], 1100.0)
    assert a.debt_s == -a.params.reserve_s == -600.0
    a.fall_asleep(1100.0, "again")
    a.update([], 1200.0)  # sleep pays nothing below nothing, and takes nothing of the reserve
    assert a.debt_s == -600.0
    # a reload keeps the debt it has; only the first configuration starts from the initial one
    a.update([], 1200.0)
    before = a.debt_s
    a.configure(SleepParams(initial_debt_s=500.0))
    assert a.debt_s == before


def test_on_the_charger_it_is_sleepy_sooner() -> None:
    a = Arousal()
    a.configure(SleepParams(sleepy_after_s=100.0, sleepy_on_charger_s=40.0))
    a.update([], 0.0)
    a.update([], 50.0)
    assert not a.sleepy and a.sleepy_level_s == 100.0
    a.on_charger = True
    assert a.sleepy and a.sleepy_level_s == 40.0 and a.tiring
    a.configure(SleepParams(sleepy_after_s=30.0, sleepy_on_charger_s=40.0))  # never later than off it
    assert a.sleepy_level_s == 30.0


def test_an_arousal_section_tunes_it_and_an_extension_changes_only_what_it_names(tmp_path: Path) -> None:
    base = tmp_path / "base.yaml"
    base.write_text(ROOT + "arousal: {sleepy_after_s: 300, rest_rate: 0.5, stimuli: {poked: 30}}\n")
    ext = tmp_path / "ext.yaml"
    ext.write_text("extends: base.yaml\narousal: {rest_rate: 2, sleepy_on_charger_s: 120}\n")
    params = load_personality(ext, BrainContext()).arousal
    assert (params.sleepy_after_s, params.rest_rate, params.tire_rate) == (300.0, 2.0, 1.0)
    assert params.sleepy_on_charger_s == 120.0
    assert params.stimuli["poked"] == 30.0 and params.stimuli["button"] == DEFAULT_STIMULI["button"]
    # the project's personalities: sleepy tires faster than the default
    ctx = context_for_check(load_resource_set([REPO / "resources"], index_clips=False))
    sleepy = load_personality(REPO / "trees" / "sleepy.yaml", ctx).arousal
    default = load_personality(REPO / "trees" / "default.yaml", ctx).arousal
    assert sleepy.sleepy_after_s < default.sleepy_after_s == SleepParams().sleepy_after_s


def test_arousal_mistakes_are_reported_with_file_line_and_key(tmp_path: Path) -> None:
    p = tmp_path / "p.yaml"
    p.write_text(ROOT + "arousal:\n"
                        "  sleepy_after: 60\n"
                        "  rest_rate: -1\n"
                        "  stimuli: {poke: 10, button: lots}\n")
    with pytest.raises(PersonalityError) as info:
        load_personality(p, BrainContext())
    errors = str(info.value).splitlines()
    assert errors[0].startswith(f"{p}:3: arousal.sleepy_after: unknown key; did you mean 'sleepy_after_s'")
    assert errors[1].startswith(f"{p}:4: arousal.rest_rate: ") and "-1" in errors[1]
    assert errors[2].startswith(f"{p}:5: arousal.stimuli.poke: unknown event kind; did you mean 'poked'")
    assert errors[3].startswith(f"{p}:5: arousal.stimuli.button: ") and "lots" in errors[3]
    assert len(errors) == 4
    p.write_text(ROOT + "arousal: 5\n")
    with pytest.raises(PersonalityError, match=r"p.yaml:2: arousal: expected a mapping"):
        load_personality(p, BrainContext())
