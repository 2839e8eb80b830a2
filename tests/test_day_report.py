"""The day report: the timeline, the liveliness measures, the picture, progress, and many days at once.

Short simulated days on the virtual clock (the real stack, seconds of wall time) and the command
line as a user runs it; the liveliness measures also on small hand-made timelines whose answers
are known.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import multiprocessing.context
import multiprocessing.process
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from brain.app import days as many_days
from brain.app.liveliness import liveliness, worst_of
from brain.app.simulate import run_day, simulate_command

from .conftest import REPO

RESOURCES = REPO / "resources"
DEFAULT = REPO / "trees" / "default.yaml"
SVG = "{http://www.w3.org/2000/svg}"
KINDS = {"behaviour", "clip", "reaction", "stimulus", "sleep", "wake"}

WORLD = """\
- {at: 30, event: poke}
- {at: 100, event: poke}
- {at: 150, event: pick_up, for: 2}
- {at: 200, event: button}
- {at: 250, event: cube_tap, object_id: 1}
- {at: 255, face: zoe, bearing_deg: 170}
- {at: 258, face: zoe, bearing_deg: 175}
- {at: 260, face_leaves: zoe}
- {at: 330, event: poke}
"""


def _args(**kw: Any) -> argparse.Namespace:
    base: dict[str, Any] = dict(hours=0.01, personality=str(DEFAULT), report=None, resources=[str(RESOURCES)],
                                config=None, verbose=0, quiet=False, script=None, seed=7, seeds=None, jobs=None,
                                start=None)
    base.update(kw)
    return argparse.Namespace(**base)


#: The tests that read the six-minute day share one worker, so the day is simulated once.
SHARED_DAY = pytest.mark.xdist_group("day_report")


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """Six minutes of the default personality with pokes, a pick-up, the button and a cube tap, on an
    endless floor: at a table's edge the cliff reaction would hold back a touch that comes during it."""
    folder = tmp_path_factory.mktemp("day")
    (folder / "world.yaml").write_text(WORLD)
    assert simulate_command(_args(hours=0.1, seed=11, report=str(folder / "day.json"), start="10:30",
                                  script=str(folder / "world.yaml"), table="none")) == 0
    return json.loads((folder / "day.json").read_text()), folder


@pytest.mark.e2e
@SHARED_DAY
def test_the_timeline_lists_what_happened_in_time_order(day: tuple[dict[str, Any], Path]) -> None:
    report, _ = day
    timeline = report["timeline"]
    assert [e["t"] for e in timeline] == sorted(e["t"] for e in timeline)
    assert {e["kind"] for e in timeline} <= KINDS and {"behaviour", "clip", "reaction", "stimulus"} <= \
        {e["kind"] for e in timeline}
    assert all(set(e) <= {"t", "kind", "name", "heard"} and isinstance(e["name"], str) for e in timeline)
    # every scripted step, at its time (steps count from the connection, a moment before the day starts)
    stimuli = [(e["t"], e["name"]) for e in timeline if e["kind"] == "stimulus"]
    expected = [(30, "poke"), (100, "poke"), (150, "pick_up"), (200, "button"), (250, "cube_tap"),
                (255, "face zoe"), (258, "face_moves zoe"), (260, "face_leaves zoe"), (330, "poke")]
    assert [name for _, name in stimuli] == [name for _, name in expected]
    assert all(abs(t - at) < 0.5 for (t, _), (at, _) in zip(stimuli, expected, strict=True))
    # the other entries agree with the report's totals, which are counted on their own
    count = {kind: sum(1 for e in timeline if e["kind"] == kind) for kind in KINDS}
    assert count["reaction"] == sum(report["reactions"].values()) >= 6
    assert count["clip"] == sum(report["animations"].values())
    assert count["behaviour"] == sum(report["behavior_starts"].values())
    assert count["sleep"] == report["sleep_count"]
    ended = [e for e in report["sleep_episodes"] if e["ended_by"] != "still asleep at the end"]
    wakes = [e for e in timeline if e["kind"] == "wake"]
    assert [(round(w["t"], 1), w["name"]) for w in wakes] == \
        [(round(e["start_s"] + e["duration_s"], 1), e["ended_by"]) for e in ended]
    reactions = [e["name"] for e in timeline if e["kind"] == "reaction"]
    assert "CliffDetected" not in reactions  # an endless floor: lifted, the cliff sensor's report is no edge
    assert reactions[:2] == ["Poked", "Poked"] and "CubeTapped" in reactions and "RobotPickedUp" in reactions
    assert report["start_clock"] == "10:30"


@pytest.mark.e2e
@SHARED_DAY
def test_liveliness_of_the_day(day: tuple[dict[str, Any], Path]) -> None:
    report, _ = day
    live = report["liveliness"]
    # computed from the saved timeline alone: the same again
    assert liveliness(report["timeline"], duration_s=report["simulated_s"],
                      wake_clips=["anim_wakeup_getout_01", "anim_wakeup_stretch_01"], mood=report["mood"]) == live
    assert live["awake_share"] == pytest.approx(1.0 - report["sleep_total_s"] / report["simulated_s"], abs=1e-3)
    # every touch got its reaction at once; a face arriving behind the robot is judged apart (the
    # robot never saw it: unanswered), not the same face moving, nor leaving
    assert live["stimuli"] == 6 and live["stimuli_answered_1s"] == 6 and live["unanswered"] == []
    assert live["faces_awake"] == 1 and live["faces_answered"] == 0
    assert [m["name"] for m in live["faces_unanswered"]] == ["face zoe"]
    assert 3 <= live["distinct_behaviours_per_awake_hour"] == live["distinct_behaviours"]
    assert live["largest_behaviour"] in report["behavior_s"] and 0 < live["largest_behaviour_share"] < 1
    assert live["clips_awake"] <= sum(report["animations"].values())
    assert live["wake_ups"] == sum(1 for e in report["timeline"] if e["kind"] == "wake")
    for emotion, values in report["mood"].items():
        assert live["emotions"][emotion] == {"min": values["min"], "max": values["max"],
                                             "range": round(values["max"] - values["min"], 4)}
    # the needs decay by the minute while it is connected, Energy faster than Repair (Play too, but
    # play fills it back to full, and a full need holds a while)
    needs = report["needs"]
    assert set(needs) == {"Repair", "Energy", "Play"}
    assert needs["Energy"]["min"] < needs["Repair"]["min"] < 1.0 and needs["Play"]["min"] < 1.0


@pytest.mark.e2e
@SHARED_DAY
def test_the_picture_of_the_day_is_written_beside_the_report(day: tuple[dict[str, Any], Path]) -> None:
    report, folder = day
    svg = ET.parse(folder / "day.svg").getroot()
    assert svg.tag == f"{SVG}svg" and float(svg.get("width", 0)) > 0
    titles = [t.text for t in svg.iter(f"{SVG}title")]
    texts = [t.text for t in svg.iter(f"{SVG}text")]
    assert "10:30" in texts and "awake / asleep" in texts
    assert len(list(svg.iter(f"{SVG}polyline"))) == len(report["mood"])  # one curve per emotion
    stimuli = [t for t in titles if t and " s: " in t]
    assert len(stimuli) == sum(1 for e in report["timeline"] if e["kind"] == "stimulus")
    assert ("asleep" in titles) == (report["sleep_count"] > 0)
    assert report["liveliness"]["largest_behaviour"] in titles  # its band


@pytest.mark.e2e
def test_the_markdown_report_shows_liveliness_and_links_the_picture(tmp_path: Path) -> None:
    assert simulate_command(_args(hours=0.01, report=str(tmp_path / "out" / "d.md"), start="23:50")) == 0
    text = (tmp_path / "out" / "d.md").read_text()
    assert "![The day: awake and asleep, behaviours, mood, stimuli](d.svg)" in text
    assert "## Liveliness" in text and "| distinct behaviours per awake hour |" in text
    assert "| stimuli answered within 1 s | 0 / 0 |" in text and "from 23:50 local time" in text
    ET.parse(tmp_path / "out" / "d.svg")  # well-formed
    assert simulate_command(_args(report=str(tmp_path / "r.md"), start="7pm")) == 2


# ----------------------------------------------------------------------------- the measures


def _t(*entries: tuple[float, str, str]) -> list[dict[str, Any]]:
    return [{"t": t, "kind": kind, "name": name} for t, kind, name in entries]


def test_liveliness_on_a_hand_made_day() -> None:
    timeline = _t((0, "behaviour", "A"), (0, "clip", "c1"), (100, "behaviour", "pause"), (150, "behaviour", "B"),
                  (150, "clip", "c1"), (160, "clip", "c1"), (200, "behaviour", "Sleep"), (200, "sleep", "Sleep"),
                  (200, "clip", "getin"), (300, "clip", "getin"), (1000, "stimulus", "poke"),
                  (1000.1, "reaction", "Poked"), (1000.1, "behaviour", "reaction Poked"), (1003, "clip", "wake1"),
                  (1004, "behaviour", "Wake"), (1004, "wake", "poked"), (1010, "behaviour", "A"),
                  (1010, "clip", "c2"), (2000, "stimulus", "button"), (2000.5, "behaviour", "B"),
                  (2100, "stimulus", "face ann"), (2121, "reaction", "Greet"), (2200, "stimulus", "face bob"),
                  (2300, "stimulus", "face cid"), (2335, "reaction", "Greet"),
                  (2500, "stimulus", "face_leaves x"), (3000, "behaviour", "Sleep"), (3000, "sleep", "Sleep"),
                  (3500, "stimulus", "face dee"))
    timeline[10]["heard"] = 1000.1  # the poke reached the brain in the beat of its reaction
    timeline[18]["heard"] = 2000.1  # the button too, but nothing answered it within 0.25 s
    timeline[20]["heard"] = 2120.0  # ann: found after 20 s of looking, greeted 1 s later
    timeline[23]["heard"] = 2334.0  # cid: found too late (34 s); bob never; dee came while it slept
    mood = {"Happy": {"min": -0.25, "max": 0.5}}
    live = liveliness(timeline, duration_s=4000.0, wake_clips=["wake1"], mood=mood)
    # asleep 200-1004 and 3000-4000: awake 100 + ... = 4000 - 804 - 1000
    assert live["awake_share"] == pytest.approx(2196 / 4000, abs=1e-4) and live["awake_s"] == 2196.0
    # one awake hour of 2196 s: A, B, Wake (the pause does not count; the reaction ran while asleep)
    assert live["distinct_behaviours_per_awake_hour"] == 3 and live["distinct_behaviours"] == 3
    # A: 0-100 and 1010-2000.5 (1090.5 s) of the 2146 s spent in behaviours (50 s of pause left out)
    assert live["largest_behaviour"] == "A"
    assert live["largest_behaviour_share"] == pytest.approx(1090.5 / 2146, abs=1e-4)
    # clips started awake: c1, c1, c1, c2 (the get-ins and wake1 started while asleep)
    assert (live["clips_awake"], live["clip_repeats"]) == (4, 2) and live["clip_repeat_share"] == 0.5
    assert (live["stimuli"], live["stimuli_answered_1s"]) == (2, 1)
    assert live["unanswered"] == [{"t": 2000.0, "name": "button", "heard": 2000.1}]
    assert (live["faces_awake"], live["faces_answered"], live["faces_answered_share"]) == (3, 1, 0.3333)
    assert [m["name"] for m in live["faces_unanswered"]] == ["face bob", "face cid"]
    assert (live["wake_ups"], live["wake_ups_animated"]) == (1, 1)
    assert (live["naps"], live["longest_nap_s"], live["woke_by_itself"]) == (2, 1000.0, 0)
    assert live["emotions"] == {"Happy": {"min": -0.25, "max": 0.5, "range": 0.75}}
    # a wake-up without its clip, and a poke never heard
    del timeline[10]["heard"]
    live = liveliness([e for e in timeline if e["name"] != "wake1"], duration_s=4000.0, wake_clips=["wake1"],
                      mood=mood)
    assert (live["wake_ups"], live["wake_ups_animated"]) == (1, 0) and live["stimuli_answered_1s"] == 0


def test_awake_hours_are_counted_in_awake_time() -> None:
    """Two and a half awake hours around a nap: 3 behaviours in the first, 1 in the second, 3 in the half
    (weighted by length, the half hour counts half: 2.2, where a plain mean of the three would say 2.33)."""
    timeline = _t((0, "behaviour", "A"), (1800, "behaviour", "B"), (2000, "behaviour", "Sleep"),
                  (2000, "sleep", "Sleep"), (5000, "wake", "timer or tree"), (5000, "behaviour", "C"),
                  (6600, "behaviour", "D"), (10800, "behaviour", "E"), (11000, "behaviour", "D"),
                  (11500, "behaviour", "F"))
    live = liveliness(timeline, duration_s=12000.0, wake_clips=[], mood={})
    # awake hour 1: 0-2000 and 5000-6600 → A, B, C; hour 2: 6600-10200 → D; the last 1800 s: D, E, F
    assert live["distinct_behaviours_per_awake_hour"] == pytest.approx((3 * 3600 + 1 * 3600 + 3 * 1800) / 9000)
    assert live["woke_by_itself"] == 1 and live["wake_ups"] == 1 and live["wake_ups_animated"] == 0


def test_an_answer_counts_from_when_the_brain_heard_the_stimulus() -> None:
    """Something that started before the brain heard the poke (0.5 s after it) was not its answer."""
    timeline = _t((0, "behaviour", "A"), (10, "stimulus", "poke"), (10.2, "behaviour", "B"), (20, "behaviour", "C"))
    timeline[1]["heard"] = 10.5
    live = liveliness(timeline, duration_s=30.0, wake_clips=[], mood={})
    assert (live["stimuli"], live["stimuli_answered_1s"]) == (1, 0)


def test_the_worst_of_several_days() -> None:
    def day(awake: float, largest: float, happy: float, answered: float | None) -> dict[str, Any]:
        return {"awake_share": awake, "distinct_behaviours_per_awake_hour": 10.0, "largest_behaviour_share": largest,
                "clip_repeat_share": 0.0, "stimuli_answered_share": answered, "wake_ups_animated_share": None,
                "longest_nap_s": 60.0, "emotions": {"Happy": {"min": 0.0, "max": happy, "range": happy}}}

    worst = worst_of([(1, day(0.7, 0.2, 0.5, 1.0)), (2, day(0.4, 0.3, 0.6, None)), (3, day(0.9, 0.1, 0.2, 0.5))])
    assert worst["awake_share"] == {"worst": 0.4, "seed": 2, "min": 0.4, "max": 0.9}
    assert worst["largest_behaviour_share"]["worst"] == 0.3 and worst["largest_behaviour_share"]["seed"] == 2
    assert worst["stimuli_answered_share"] == {"worst": 0.5, "seed": 3, "min": 0.5, "max": 1.0}
    assert worst["wake_ups_animated_share"] is None  # no day had a wake-up
    assert worst["emotion_range"] == {"Happy": {"worst": 0.2, "seed": 3}}


# ----------------------------------------------------------------------------- the command line


def _cli(*args: str, cwd: Path, stderr_tty: bool = False) -> tuple[int, str]:
    cmd = [sys.executable, "-m", "brain", "simulate", "--resources", str(RESOURCES), *args]
    env = dict(os.environ, PYTHONPATH=str(REPO), COLUMNS="200")
    if not stderr_tty:
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
        return proc.returncode, proc.stderr
    master, slave = pty.openpty()
    proc2 = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    out = b""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed its end
                break
            if not chunk:
                break
            out += chunk
        elif proc2.poll() is not None:
            break
    os.close(master)
    return proc2.wait(timeout=30), out.decode("utf-8", "replace")


@pytest.mark.e2e
def test_many_days_in_parallel_processes_and_the_worst_of_them(tmp_path: Path) -> None:
    code, err = _cli("--hours", "0.02", "--seeds", "3-4", "--jobs", "2", "--report", str(tmp_path / "days.json"),
                     cwd=tmp_path)
    assert code == 0, err
    assert "day 1/2 (seed " in err and "day 2/2 (seed " in err and "the worst of them: awake " in err
    summary = json.loads((tmp_path / "days.json").read_text())
    assert summary["seeds"] == [3, 4] and summary["workers"] == 2 and summary["personality"] == "default"
    days = {d["seed"]: d for d in summary["days"]}
    for seed, d in days.items():
        assert d["simulated_s"] == pytest.approx(72.0, abs=0.2)
        ET.parse(tmp_path / d["picture"])  # each day's picture, well-formed
        assert d["picture"] == f"days.seed{seed}.svg"
    awake = {seed: d["liveliness"]["awake_share"] for seed, d in days.items()}
    low = min(awake, key=lambda s: (awake[s], s))
    assert summary["worst"]["awake_share"]["worst"] == awake[low] and summary["worst"]["awake_share"]["seed"] == low
    # the times a day went over the table's edge: none in these, said so in the worst of them and a column
    assert [d["over_the_edge"] for d in days.values()] == [0, 0] and "never over the table's edge" in err
    assert "| over the edge |" in many_days.days_markdown(summary)
    # a day in a worker is the very day a single run of that seed lives
    code, err = _cli("--hours", "0.02", "--seed", "4", "--report", str(tmp_path / "one.json"), cwd=tmp_path)
    assert code == 0, err
    one = json.loads((tmp_path / "one.json").read_text())
    assert one["liveliness"] == days[4]["liveliness"] and one["over_the_edge"] == days[4]["over_the_edge"]


def test_an_interrupt_ends_every_running_day_at_once(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "brain", "simulate", "--resources", str(RESOURCES), "--hours", "4", "--seeds", "1-3",
           "--jobs", "2"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(REPO)), stderr=subprocess.PIPE,
                            text=True)
    assert proc.stderr is not None
    children: list[int] = []
    deadline = time.monotonic() + 120
    while len(children) < 2 and time.monotonic() < deadline:  # both days started
        time.sleep(0.2)
        children = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _parent(p) == proc.pid
                    and "spawn_main" in (p / "cmdline").read_bytes().decode(errors="replace")]
    assert len(children) == 2
    proc.send_signal(signal.SIGINT)  # the command alone, as a kill -INT would
    started = time.monotonic()
    assert proc.wait(timeout=30) == 130
    assert time.monotonic() - started < 10.0
    assert "interrupted" in proc.stderr.read()
    assert not [pid for pid in children if Path(f"/proc/{pid}").exists()
                and (Path(f"/proc/{pid}") / "stat").read_text().split()[2] != "Z"]


@pytest.mark.parametrize("launched", [False, True], ids=["before the launch", "after the launch"])
def test_an_interrupt_inside_a_days_start_still_ends_the_others_as_an_interrupt(
        launched: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # The second day's start is interrupted (as a Ctrl-C landing there would): before its process
    # was launched, or once it was; the interrupt goes on up (the command's exit 130) and no day
    # is left running. Unguarded, stopping the unstarted process raised AttributeError instead.
    real_start = multiprocessing.context.SpawnProcess.start
    started: list[multiprocessing.process.BaseProcess] = []

    def start(process: multiprocessing.process.BaseProcess) -> None:
        if started:
            if launched:
                real_start(process)
                started.append(process)
            raise KeyboardInterrupt
        real_start(process)
        started.append(process)

    monkeypatch.setattr(multiprocessing.context.SpawnProcess, "start", start)
    with pytest.raises(KeyboardInterrupt):
        many_days.simulate_days(REPO / "trees" / "default.yaml", [RESOURCES], hours=4.0, script=[], seeds=[1, 2, 3],
                           jobs=2, heartbeat_hz=10.0, start_clock="09:00", report_path=None, verbose=False,
                           runner=run_day)
    assert len(started) == (2 if launched else 1)
    assert all(process.exitcode is not None for process in started)  # stopped and reaped


def _parent(proc_dir: Path) -> int | None:
    try:
        return int((proc_dir / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def test_many_days_usage_errors(caplog: pytest.LogCaptureFixture) -> None:
    assert simulate_command(_args(seeds="4-1", seed=None)) == 2
    assert "--seeds: expected a range of seeds from low to high" in caplog.text
    assert simulate_command(_args(seeds="1-2")) == 2  # and --seed 7
    assert "--seed and --seeds: give one of them" in caplog.text
    assert simulate_command(_args(jobs=2)) == 2
    assert simulate_command(_args(seeds="x", seed=None)) == 2
    assert simulate_command(_args(seeds="1-2", seed=None, jobs=0)) == 2


@pytest.mark.e2e
def test_progress_is_one_updating_line_on_a_terminal(tmp_path: Path) -> None:
    code, out = _cli("--hours", "0.05", "--seed", "1", cwd=tmp_path, stderr_tty=True)
    assert code == 0, out
    progress = list(re.finditer(r"simulated \d:\d\d:\d\d of 0:03:00 \(\d+%\)", out))
    assert progress, out
    # each is drawn over the line before it (carriage return, erase to the end), never as a line of its own
    assert all(out[m.start() - 4:m.start()] == "\r\x1b[K" for m in progress), out
    assert "simulated 0.05 h of default in" in out  # the summary still comes as log lines


def test_the_visited_day_is_the_tools_output_with_faces_in_view() -> None:
    """tests/data/visited_day.yaml is what tools/gen_visits.py writes; a person comes every 20-40 minutes."""
    import importlib.util

    from driver.sim.script import load_script

    spec = importlib.util.spec_from_file_location("gen_visits", REPO / "tools" / "gen_visits.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    path = REPO / "tests" / "data" / "visited_day.yaml"
    assert path.read_text() == gen.visits()
    steps = load_script(path)
    assert steps[-1].at < 8 * 3600
    arrivals = [s.at for s in steps if s.event == "face" and "distance_m" in s.args]
    visits = sorted({*arrivals, *(s.at for s in steps if s.event in ("poke", "pick_up", "cube_tap", "button")
                                  and not any(a <= s.at <= a + 400 for a in arrivals))})
    assert len(visits) >= 12
    assert all(20 * 60 <= b - a <= 40 * 60 + 400 for a, b in zip(visits, visits[1:], strict=False))
    assert all(abs(s.args["bearing_deg"]) <= 20 for s in steps if s.event == "face")
    assert {"poke", "pick_up", "cube_tap", "button", "face", "face_leaves"} <= {s.event for s in steps}


def test_a_bad_table_is_a_usage_error_saying_what_was_expected(caplog: pytest.LogCaptureFixture) -> None:
    assert simulate_command(_args(table="90cm")) == 2
    assert "--table: expected WIDTHxDEPTH in millimetres such as 900x600, got '90cm'" in caplog.text
    assert simulate_command(_args(table="40x40")) == 2
    assert "--table: a table of 40 x 40 mm is too small for the robot" in caplog.text
