"""Quiet hours and the night: the schedule in YAML, the day clock, and a simulated night kept quiet.

The night runs through ``simulate`` (the real stack on a virtual clock, the simulated day starting
at ``start_clock``), and what reached the simulated robot is what is checked: no sound frames and
no wheel commands while it is quiet, even from a tree that keeps asking for both.
"""

from __future__ import annotations

import io
import math
import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from brain.app.simulate import run_virtual, simulate
from brain.context import BrainContext
from brain.personality import PersonalityError, load_personality
from brain.rhythm import DayRhythm, HeldWheels, Schedule, TimeRange, parse_clock, parse_range
from driver import events as ev
from driver.hardware import HEAD_CALIBRATED_S
from driver.robot import RobotError

from .conftest import REPO

RESOURCES = REPO / "resources"
DEFAULT = REPO / "trees" / "default.yaml"
HOUSEHOLD = REPO / "trees" / "household.yaml"
#: The audio event id of the test's noisy clip.
SOUND_ID = 4242


# ----------------------------------------------------------------------------- the schedule


def _errors(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(PersonalityError) as info:
        load_personality(path, BrainContext())
    return str(info.value).splitlines()


def test_a_schedule_reads_times_with_or_without_quotes_and_ranges_past_midnight(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("root: {type: wait, params: {seconds: 1}}\n"
                    "schedule:\n"
                    "  quiet_hours: [21:00-22:00, '13:30-14:00']\n"
                    "  bedtime: 22:00\n"
                    "  wake_up: 07:15\n")
    schedule = load_personality(path, BrainContext()).schedule
    assert schedule.quiet_hours == (TimeRange(21 * 3600, 22 * 3600), TimeRange(13 * 3600 + 1800, 14 * 3600))
    assert (schedule.bedtime_s, schedule.wake_up_s) == (22 * 3600, 7 * 3600 + 900)
    at = parse_clock
    assert [schedule.is_night(at(t)) for t in ("21:59", "22:00", "03:00", "07:14", "07:15")] == \
        [False, True, True, True, False]
    assert [schedule.is_quiet(at(t)) for t in ("13:29", "13:30", "20:59", "21:00", "07:15")] == \
        [False, True, False, True, False]
    assert schedule.describe() == "quiet 21:00-22:00, 13:30-14:00; night 22:00-07:15"
    assert not Schedule().is_quiet(0) and Schedule().describe() == "no quiet hours"


def test_schedule_mistakes_are_reported_with_file_line_and_key(tmp_path: Path) -> None:
    p = tmp_path / "p.yaml"
    errors = _errors(tmp_path, "root: {type: wait, params: {seconds: 1}}\n"
                               "schedule:\n"
                               "  quiet_hours: 21:00 to 22:00\n"
                               "  bedtime: 25:00\n"
                               "  wakeup: 07:00\n")
    assert errors == [
        f"{p}:5: schedule.wakeup: unknown key; did you mean 'wake_up'? (expected quiet_hours, bedtime, wake_up)",
        f"{p}:3: schedule.quiet_hours: expected a range of the day as HH:MM-HH:MM, got '21:00 to 22:00'",
        f"{p}:4: schedule.bedtime: expected a time of day as HH:MM (00:00 to 23:59), got '25:00'",
    ]
    errors = _errors(tmp_path, "root: {type: wait, params: {seconds: 1}}\nschedule: {bedtime: 22:00}\n")
    assert errors == [f"{p}:2: schedule.bedtime: a night needs both bedtime and wake_up: wake_up is missing"]
    errors = _errors(tmp_path, "root: {type: wait, params: {seconds: 1}}\nschedule: {quiet_hours: [09:00-09:00]}\n")
    assert errors == [f"{p}:2: schedule.quiet_hours[0]: a range needs two different times, got 09:00 twice"]
    errors = _errors(tmp_path, "root: {type: time_of_day, params: {from: '7', to: 08:00}}\n")
    assert errors == [f"{p}:1: root.params.from: expected a time of day as HH:MM (00:00 to 23:59), got '7'"]


def test_conditions_read_the_day_clock(tmp_path: Path) -> None:
    from py_trees.common import Status

    path = tmp_path / "p.yaml"
    path.write_text("schedule: {quiet_hours: 12:00-13:00, bedtime: 23:00, wake_up: 06:00}\n"
                    "root:\n"
                    "  type: parallel\n"
                    "  children:\n"
                    "    - {type: failure_is_success, child: quiet_hours, id: quiet}\n"
                    "    - {type: failure_is_success, child: night, id: night}\n"
                    "    - {type: failure_is_success, child: {type: time_of_day, params: {from: 22:30, to: 00:30}},"
                    " id: late}\n")
    now = [0.0]
    ctx = BrainContext()
    personality = load_personality(path, ctx)
    ctx.rhythm = DayRhythm(lambda: now[0], personality.schedule)
    seen = {}
    for clock in ("12:30", "22:45", "23:30", "00:15", "05:00", "09:00"):
        now[0] = parse_clock(clock)
        ctx.rhythm.update(0.0)
        personality.root.tick_once()
        seen[clock] = "".join(name[0] for name in ("quiet", "night", "late")
                              if personality.nodes[name].decorated.status is Status.SUCCESS)
    assert seen == {"12:30": "q", "22:45": "l", "23:30": "qnl", "00:15": "qnl", "05:00": "qn", "09:00": ""}
    ctx.rhythm = None  # offline (check, tree): the conditions cannot tell
    personality.root.tick_once()
    assert personality.nodes["quiet"].decorated.feedback_message == "no day clock"


def test_an_extension_changes_one_part_of_its_base_schedule(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("root: {type: wait, params: {seconds: 1}}\n"
                                        "schedule: {quiet_hours: 12:00-13:00, bedtime: 22:00, wake_up: 07:00}\n")
    (tmp_path / "child.yaml").write_text("extends: base.yaml\nschedule: {wake_up: 08:30}\n")
    schedule = load_personality(tmp_path / "child.yaml", BrainContext()).schedule
    assert schedule == Schedule((TimeRange(12 * 3600, 13 * 3600),), 22 * 3600, 8 * 3600 + 1800)


def test_the_day_clock_turns_pages_as_events_and_holds_the_wheels_meanwhile() -> None:
    now = [parse_clock("21:59")]
    rhythm = DayRhythm(lambda: now[0], Schedule((parse_range("21:00-21:30"),), parse_clock("22:00"),
                                                parse_clock("06:00")))
    assert rhythm.update(1.0) == [] and not rhythm.quiet  # the first look only takes the state in
    now[0] = parse_clock("22:00")
    changes = rhythm.update(2.0)
    assert changes == [ev.NightChanged(2.0, value=True), ev.QuietHoursChanged(2.0, value=True)]
    assert rhythm.quiet and rhythm.night and rhythm.quiet_until() == "06:00"
    assert rhythm.update(3.0) == []
    now[0] = parse_clock("06:00") + 86400.0  # the clock may run on past midnight
    assert rhythm.update(4.0) == [ev.NightChanged(4.0, value=False), ev.QuietHoursChanged(4.0, value=False)]

    sent: list[tuple[str, Any]] = []

    class Wheels:
        def drive_wheels(self, left: float, right: float) -> None:
            sent.append(("drive", (left, right)))

        def turn_in_place(self, angle: float) -> None:
            sent.append(("turn", angle))

        def set_head_angle(self, angle: float) -> None:
            sent.append(("head", angle))

    why: list[str | None] = ["quiet hours"]
    held = HeldWheels(Wheels(), lambda: why[0])
    with pytest.raises(RobotError, match="quiet hours: the wheels are held"):
        held.drive_wheels(50.0, 50.0)
    with pytest.raises(RobotError):
        held.turn_in_place(1.0)
    held.drive_wheels(0.0, 0.0)  # stopping always goes through
    held.set_head_angle(0.3)  # so does everything but the wheels
    why[0] = None
    held.turn_in_place(1.0)
    assert sent == [("drive", (0.0, 0.0)), ("head", 0.3), ("turn", 1.0)]


# ----------------------------------------------------------------------------- a simulated night


def _noisy_resources(tmp_path: Path) -> Path:
    """A resource root with one clip that drives and plays a sound (and the sound)."""
    root = tmp_path / "res" / "cozmo_resources"
    (root / "assets" / "animations").mkdir(parents=True)
    (root / "assets" / "animations" / "anim_test_noisy_01.cozanim").write_text(
        "controls head wheels audio\n\nno parameters\n\n"
        "time  head  body_speed  body_radius  audio_id   audio_volume\n"
        "0     10    60          STRAIGHT     4242       1\n"
        "0.6   -5    -           -            -          -\n"
        "1.2   -     -           -            -          -\n")
    rate = 22050
    t = np.arange(rate) / rate
    pcm = (0.5 * np.sin(2 * np.pi * 440.0 * t) * 32767).astype("<i2")
    (root / "sound" / "custom").mkdir(parents=True)
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    (root / "sound" / "custom" / f"{SOUND_ID}.wav").write_bytes(buf.getvalue())
    return root


NOISY = """\
name: noisy
schedule: {bedtime: "22:00", wake_up: "22:02"}
root:
  type: sequence
  children:              # asks for sound and wheels all the time, quiet hours or not
    - {type: play_clip, params: {clip: anim_test_noisy_01}}
    - type: failure_is_success
      child: {type: drive, params: {left: 40, right: 40, seconds: 0.5}}
    - type: failure_is_success
      child: {type: turn, params: {degrees: 30}}
"""


def _day(personality: Path, roots: list[Path], *, start: str, minutes: float, script: list[Any] | None = None,
         seed: int = 5) -> dict[str, Any]:
    report = run_virtual(simulate(personality, roots, hours=minutes / 60.0, seed=seed, progress=False,
                                  start_clock=start, script=script))
    return report.as_dict()


def _in(spans: list[list[float]], t: float) -> bool:
    return any(a <= t < b for a, b in spans)


@pytest.mark.e2e
def test_a_night_keeps_a_noisy_personality_silent_and_still(tmp_path: Path) -> None:
    """From 21:58 to 22:04 with a night from 22:00 to 22:02: sound and driving before and after, none between."""
    (tmp_path / "noisy.yaml").write_text(NOISY)
    day = _day(tmp_path / "noisy.yaml", [_noisy_resources(tmp_path), RESOURCES], start="21:58", minutes=6)
    quiet = day["quiet"]
    assert quiet["spans"] == [[pytest.approx(120.0, abs=0.15), pytest.approx(240.0, abs=0.15)]]
    assert quiet["seconds"] == pytest.approx(120.0, abs=0.2)
    # outside the night the clip is heard and the robot drives: the counts below are not empty by luck
    assert quiet["outside"]["sound_frames"] > 100 and quiet["outside"]["wheel_commands"] > 50
    assert quiet["sound_frames"] == 0 and quiet["wheel_commands"] == 0
    # the clip kept playing during the night (its head moves are not held), just silently and in place
    night_clips = [e for e in day["timeline"] if e["kind"] == "clip" and _in(quiet["spans"], e["t"])]
    assert len(night_clips) > 20 and {e["name"] for e in night_clips} == {"anim_test_noisy_01"}
    assert day["schedule"] == "night 22:00-22:02" and day["start_clock"] == "21:58"


@pytest.mark.e2e
def test_the_default_personality_goes_to_sleep_in_quiet_hours_and_reacts_softly(tmp_path: Path) -> None:
    """The household personality from 20:59: awake, asleep on its own at 21:00; a poke gets a sleepy look."""
    from driver.sim.script import parse_script

    script = parse_script("- {at: 150, event: poke}\n- {at: 200, event: button}\n")
    day = _day(HOUSEHOLD, [RESOURCES], start="20:59", minutes=4, script=script)
    timeline = day["timeline"]
    sleeps = [e["t"] for e in timeline if e["kind"] == "sleep"]
    assert sleeps and 60.0 <= sleeps[0] <= 60.5  # at 21:00; not bored yet (it gets bored after 90 s)
    # asleep, only the touches: the desk's edge may have met it while it was up, not after
    assert [e["name"] for e in timeline if e["kind"] == "reaction" and e["t"] >= sleeps[0]] == \
        ["Poked", "ButtonPressed"]
    after_poke = next(e for e in timeline if e["kind"] == "clip" and e["t"] >= 150.0)
    assert after_poke["name"].startswith("anim_sleepy_") and after_poke["t"] < 150.5
    assert sleeps[-1] > 200.0  # back to sleep after each disturbance
    assert day["quiet"]["sound_frames"] == 0 and day["quiet"]["wheel_commands"] == 0
    assert day["liveliness"]["stimuli_answered_1s"] == day["liveliness"]["stimuli"] == 2


@pytest.mark.e2e
def test_at_the_end_of_the_night_it_gets_up_with_the_wake_up_animation() -> None:
    day = _day(HOUSEHOLD, [RESOURCES], start="06:59", minutes=3)
    timeline = day["timeline"]
    assert timeline[0]["kind"] == "behaviour" and timeline[0]["name"] == "Sleep"
    # asleep from the first beat, once the robot has calibrated and started up
    assert [e["t"] for e in timeline if e["kind"] == "sleep"][0] == pytest.approx(HEAD_CALIBRATED_S, abs=0.1)
    reaction = next(e for e in timeline if e["kind"] == "reaction")
    assert reaction["name"] == "QuietHoursOver" and reaction["t"] == pytest.approx(60.0, abs=0.15)
    wake = next(e for e in timeline if e["kind"] == "wake")
    assert 60.0 < wake["t"] < 66.0
    live = day["liveliness"]
    assert live["wake_ups"] == live["wake_ups_animated"] == live["woke_by_itself"] == 1
    assert math.isclose(live["awake_share"], 1.0 - day["sleep_total_s"] / day["simulated_s"], abs_tol=1e-3)
    # up afterwards, not straight back to sleep: rested by the night, it is not sleepy
    assert [e["t"] for e in timeline if e["kind"] == "sleep" and e["t"] > HEAD_CALIBRATED_S + 0.1] == []
