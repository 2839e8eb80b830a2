"""Benchmark: what a simulated second costs ``simulate``, and where it goes, in one run.

    python tests/bench/day.py [--minutes M] [--seed N] [--script FILE | --alone] [--eyes sight|off]

Runs what ``cozmo-brain simulate`` runs for one day (:func:`brain.app.simulate.simulate` on the
virtual clock: the default personality, the project's resources, the simulated Cozmo with its
room and table, joined by the direct in-memory network), by default with the visited day's
timeline (``tests/data/visited_day.yaml``) for its first ``--minutes`` simulated minutes.

Printed:

- the CPU time after start-up (resources loaded, robot connected) per simulated second, and
  what an 8-hour day costs at that rate, beside the target (an 8-hour day in 2 minutes
  of wall time: 4.17 ms per simulated second);
- where a simulated second goes, from a second run of the same day (the same seed replays it)
  with every event-loop callback timed in CPU time of the loop's thread and summed by what it
  is (the timing costs a little itself, so that run's own total is printed): the heartbeat (the
  tree's tick apart from the rest of the beat: events, mood, the snapshot and its subscribers,
  among them the day's recorder), the animation controller's 30 fps frame, the simulator's radio
  frame (its body, sensors, script and the RobotState it sends), packets handed to the robot
  (decoding, the state sample, the attitude filter, vision) and to the simulator (animation
  frames, commands), everything else, and the event loop's own share (the CPU spent outside
  any callback: its timers, queues and selector); and callbacks per simulated second.

There is no PyCozmo column: PyCozmo has no offline simulation to compare with. The figures
move with the machine (four 8-hour visited days, two at a time, took 253 to 390 s each within one
hour on a 2-core virtual machine); compare runs made side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from brain.app.simulate import run_virtual, simulate  # noqa: E402
from driver.sim.script import load_script  # noqa: E402

#: The target: an 8-hour day in 2 minutes of wall time.
TARGET_MS_PER_S = 120.0 * 1000.0 / (8 * 3600.0)

PARTS = ("heartbeat: the tree's tick", "heartbeat: the rest of the beat", "animation controller",
         "simulator's radio frame", "packets to the robot", "packets to the simulator", "other callbacks")


def _part(callback: Callable[..., Any]) -> str:
    """Which part of the stack a loop callback belongs to."""
    owner = getattr(callback, "__self__", None)
    if type(owner).__name__ == "DirectLink" or type(owner).__name__.endswith("Link"):
        return "packets to the robot" if getattr(owner.role, "name", "") == "ENGINE" else "packets to the simulator"
    func = getattr(callback, "__func__", callback)
    module = getattr(func, "__module__", "") or ""
    if module == "brain.heartbeat":
        return "heartbeat: the rest of the beat"
    if module.startswith("driver.animation.controller"):
        return "animation controller"
    if module.startswith("driver.sim.server") and "radio_frame" in getattr(func, "__qualname__", ""):
        return "simulator's radio frame"
    return "other callbacks"


class _Meter:
    """Times every event-loop callback (``asyncio.Handle._run``) and the tree's ticks, in CPU time
    of the loop's thread."""

    def __init__(self) -> None:
        self.spent: Counter[str] = Counter()
        self.calls = 0
        self.on = False
        self._run = asyncio.events.Handle._run

    def install(self) -> None:
        run, spent, clock = self._run, self.spent, time.thread_time
        meter = self

        def timed(handle: asyncio.Handle) -> None:
            if not meter.on:
                run(handle)
                return
            t0 = clock()
            run(handle)
            spent[_part(handle._callback)] += clock() - t0  # type: ignore[attr-defined]
            meter.calls += 1

        asyncio.events.Handle._run = timed  # type: ignore[method-assign]

    def uninstall(self) -> None:
        asyncio.events.Handle._run = self._run  # type: ignore[method-assign]

    def time_tree(self, brain: Any) -> None:
        tree = brain.heartbeat.tree
        tick, spent, clock = tree.tick_once, self.spent, time.thread_time

        def timed_tick() -> None:
            t0 = clock()
            tick()
            dt = clock() - t0
            spent["heartbeat: the tree's tick"] += dt
            spent["heartbeat: the rest of the beat"] -= dt

        tree.tick_once = timed_tick


def _day(args: argparse.Namespace, script: list[Any], meter: _Meter | None) -> tuple[Any, float, float]:
    """One run: the report, and the CPU and wall seconds after start-up."""
    marks: dict[str, float] = {}

    def on_start(brain: Any) -> None:
        if meter is not None:
            meter.time_tree(brain)
            meter.on = True
        marks["cpu"], marks["wall"] = time.process_time(), time.perf_counter()

    if meter is not None:
        meter.install()
    try:
        report = run_virtual(simulate(ROOT / "trees" / "default.yaml", [ROOT / "resources"], hours=args.minutes / 60,
                                      seed=args.seed, script=script, progress=False, on_start=on_start,
                                      eyes=args.eyes))
    finally:
        if meter is not None:
            meter.uninstall()
    return report, time.process_time() - marks["cpu"], time.perf_counter() - marks["wall"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=20.0, help="simulated minutes (default 20)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--script", type=Path, default=ROOT / "tests" / "data" / "visited_day.yaml",
                    help="the timeline (default: the visited day)")
    ap.add_argument("--alone", action="store_true", help="no timeline: nobody comes")
    ap.add_argument("--eyes", choices=("sight", "off"), default="sight")
    args = ap.parse_args()
    if not args.minutes > 0:
        ap.error("--minutes must be positive")
    logging.basicConfig(level=logging.ERROR)
    script = [] if args.alone else load_script(args.script)
    report, cpu, wall = _day(args, script, None)
    sim_s = report.simulated_s
    per_s = 1000.0 * cpu / sim_s
    where = "nobody comes" if args.alone else f"timeline {args.script.name}"
    print(f"default personality, {where}, seed {args.seed}, eyes {args.eyes}: {sim_s / 60:.0f} simulated minutes "
          f"in {wall:.1f} s of wall time after start-up ({sim_s / wall:.0f}x real time)")
    print(f"CPU after start-up: {cpu:.1f} s = {per_s:.2f} ms per simulated second; an 8-hour day at this rate: "
          f"{per_s * 8 * 3600 / 1000 / 60:.1f} min of CPU (target: 2 min, {TARGET_MS_PER_S:.2f} ms per simulated "
          f"second; {per_s / TARGET_MS_PER_S:.1f}x over)")
    meter = _Meter()
    timed, timed_cpu, _ = _day(args, script, meter)
    if timed.beats != report.beats:
        print(f"(the timed run differs from the first: {timed.beats} beats against {report.beats})")
    total_ms = 1000.0 * timed_cpu / sim_s
    print(f"\nwhere a simulated second goes (the timed run: {total_ms:.2f} ms of CPU per simulated second):")
    for part in PARTS:
        ms = 1000.0 * meter.spent[part] / sim_s
        print(f"  {part:<34} {ms:6.2f} ms  {100 * ms / total_ms:5.1f} %")
    loop_ms = total_ms - 1000.0 * sum(meter.spent.values()) / sim_s
    print(f"  {'the event loop itself':<34} {loop_ms:6.2f} ms  {100 * loop_ms / total_ms:5.1f} %")
    print(f"\n{meter.calls / sim_s:.0f} loop callbacks per simulated second; {report.beats} beats, "
          f"median beat {report.median_beat_ms:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
