"""Many simulated days at once: ``cozmo-brain simulate --seeds 1-8 --jobs N``.

One day can be lucky: a personality is judged on several, each with its own random seed, and on
the worst of them. Each day runs in a process of its own (a simulated day is CPU-bound and
single-threaded, on its own virtual clock), at most ``--jobs`` at a time, started fresh (``spawn``)
so they share nothing with the command's process; Ctrl-C ends them all at once. Each reports its
liveliness; the command logs one line per day as it finishes and the worst of each measure at the
end (:func:`brain.app.liveliness.worst_of`), and ``--report`` writes them all, with a picture of
each day beside the report (``REPORT.seedN.svg``). Progress shows on a terminal as one updating
line with each running day's share done.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import queue
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from driver.sim.table import DESK, Table

from .day_report import hms, liveliness_line, md_table
from .liveliness import worst_of
from .progress import Progress

__all__ = ["DayJob", "MAX_DAYS", "parse_seeds", "simulate_days"]

log = logging.getLogger("brain.app.simulate")

#: At most this many days in one command.
MAX_DAYS = 1000
#: A worker sends its progress at most this often (wall seconds).
WORKER_PROGRESS_S = 0.5


def parse_seeds(text: str) -> list[int]:
    """``1-8``, ``3``, ``1,4,9`` or ``1-4,10-12`` as a list of seeds; raises ValueError saying why."""
    seeds: list[int] = []
    for part in str(text).split(","):
        part = part.strip()
        low, sep, high = part.partition("-")
        try:
            first = int(low)
            last = int(high) if sep else first
        except ValueError:
            raise ValueError(f"expected seeds such as 1-8 or 1,4,9, got {text!r}") from None
        if first < 0 or last < first:
            raise ValueError(f"expected a range of seeds from low to high, both 0 or more, got {part!r}")
        if len(seeds) + last - first + 1 > MAX_DAYS:
            raise ValueError(f"at most {MAX_DAYS} days at once")
        seeds += [s for s in range(first, last + 1) if s not in seeds]
    return seeds


@dataclass(frozen=True)
class DayJob:
    """One day to simulate in a worker process (everything in it can be pickled)."""

    personality: Path
    roots: list[Path]
    hours: float
    script: list[Any]
    seed: int
    heartbeat_hz: float
    start_clock: str
    verbose: bool
    progress: Any = None  # the queue back to the command: ("progress", seed, share done), ("done", seed, report)
    eyes: str = "sight"
    table: Table | None = DESK
    #: what simulates the day in the worker (a module-level function, so the job pickles):
    #: :func:`brain.app.simulate.run_day`
    runner: Callable[[DayJob], dict[str, Any]] | None = None


def _day_process(job: DayJob) -> None:
    """A worker process: one day, its result sent back on the job's queue."""
    try:
        assert job.runner is not None, "a day job needs its runner"
        result = job.runner(job)
    except Exception as exc:  # reported as that day's failure, with what went wrong
        logging.getLogger(__name__).exception("seed %d failed", job.seed)
        result = {"seed": job.seed, "error": f"{type(exc).__name__}: {exc}"}
    job.progress.put(("done", job.seed, result))


def simulate_days(personality: Path, roots: list[Path], *, hours: float, script: list[Any], seeds: list[int],
                  jobs: int | None, heartbeat_hz: float, start_clock: str, report_path: Path | None,
                  verbose: bool, runner: Callable[[DayJob], dict[str, Any]], progress_every_s: float = 5.0,
                  eyes: str = "sight", table: Table | None = DESK) -> int:
    """Run one day per seed in ``jobs`` processes; log each day and the worst; write the report. Exit code.

    Each day is a process of its own (started fresh, ``spawn``), at most ``jobs`` at a time; they
    send their progress and their report back on one queue. A process that dies without a report
    (killed, out of memory) is that day's failure; an interrupt ends every running day at once.
    ``runner`` simulates one day in a worker; progress shows at most every ``progress_every_s``.
    """
    workers = max(1, min(len(seeds), jobs or os.cpu_count() or 1))
    log.info("simulating %s for %g h from %s: %d day(s), seeds %s, in %d process(es)%s", personality, hours,
             start_clock, len(seeds), ",".join(map(str, seeds)), workers,
             f" with {len(script)} scripted events" if script else "")
    wall0 = time.perf_counter()
    context = multiprocessing.get_context("spawn")
    inbox: Any = context.Queue()
    results: dict[int, dict[str, Any]] = {}
    todo = list(seeds)
    running: dict[int, Any] = {}
    shares: dict[int, float] = {}
    dead_since: dict[int, float] = {}
    with Progress(log, every_s=progress_every_s) as shown:
        try:
            while todo or running:
                while todo and len(running) < workers:
                    seed = todo.pop(0)
                    job = DayJob(personality, roots, hours, script, seed, heartbeat_hz, start_clock, verbose, inbox,
                                 eyes, table, runner)
                    running[seed] = context.Process(target=_day_process, args=(job,), name=f"day-{seed}", daemon=True)
                    running[seed].start()
                try:
                    kind, seed, payload = inbox.get(timeout=0.25)
                except queue.Empty:
                    kind, seed, payload = "", -1, None
                if kind == "progress":
                    shares[seed] = payload
                elif kind == "done" and seed in running:
                    running.pop(seed).join()
                    shares.pop(seed, None)
                    results[seed] = payload
                    _log_day(payload, len(results), len(seeds))
                now = time.perf_counter()
                for seed, process in list(running.items()):
                    # a day that ended without sending its report (give a report on its way 5 s)
                    if process.exitcode is not None and now - dead_since.setdefault(seed, now) > 5.0:
                        running.pop(seed)
                        results[seed] = {"seed": seed, "error": f"the process ended with code {process.exitcode} "
                                                                "without a report"}
                        _log_day(results[seed], len(results), len(seeds))
                if shares:
                    shown.show(f"days {len(results)}/{len(seeds)} done in {time.perf_counter() - wall0:.0f} s wall; "
                               + ", ".join(f"seed {s} {100 * v:.0f}%" for s, v in sorted(shares.items())))
        finally:
            # An interrupt may land inside a start: a process it left unstarted has nothing to
            # stop, and stopping it would raise, replacing the interrupt (exit 1, not 130).
            started = [process for process in running.values() if process.pid is not None]
            for process in started:
                process.terminate()
            for process in started:
                process.join(5.0)
    wall = time.perf_counter() - wall0
    days = [results[s] for s in seeds]
    summary = summarise(days, personality_file=str(personality), hours=hours, start_clock=start_clock,
                        scripted_events=len(script), workers=workers, wall_s=wall)
    for line in worst_lines(summary):
        log.info("%s", line)
    if report_path is not None and not write_days_report(summary, days, report_path):
        return 1
    return 1 if any("error" in d for d in days) else 0


def _log_day(day: dict[str, Any], finished: int, total: int) -> None:
    if "error" in day:
        log.error("day %d/%d (seed %d) failed: %s", finished, total, day["seed"], day["error"])
        return
    log.info("day %d/%d (seed %d) in %.0f s wall: %s", finished, total, day["seed"], day["wall_s"],
             liveliness_line(day["liveliness"]))


def summarise(days: list[dict[str, Any]], **about: Any) -> dict[str, Any]:
    """The many-days report: what ran, each day's liveliness, and the worst of each measure."""
    ok = [d for d in days if "error" not in d]
    per_day = [{"seed": d["seed"], "error": d["error"]} if "error" in d else
               {"seed": d["seed"], "simulated_s": d["simulated_s"], "wall_s": d["wall_s"], "speedup": d["speedup"],
                "sleep_count": d["sleep_count"], "over_the_edge": d.get("over_the_edge", 0),
                "liveliness": d["liveliness"],
                "behavior_starts": d.get("behavior_starts", {})} for d in days]
    first = ok[0] if ok else {}
    return {"personality": first.get("personality"), **about, "schedule": first.get("schedule"),
            "seeds": [d["seed"] for d in days], "days": per_day,
            "worst": worst_of([(d["seed"], d["liveliness"]) for d in ok])}


def worst_lines(summary: dict[str, Any]) -> list[str]:
    """The worst of the days, for the log."""
    worst = summary["worst"]
    n = len([d for d in summary["days"] if "error" not in d])

    def w(name: str, fmt: str = "{:.1%}") -> str:
        v = worst.get(name)
        return "-" if not v else f"{fmt.format(v['worst'])} (seed {v['seed']})"

    emotions = ", ".join(f"{k} {v['worst']:.2f} (seed {v['seed']})" for k, v in worst.get("emotion_range", {}).items())
    nap = worst.get("longest_nap_s")
    edges = [(d.get("over_the_edge", 0), d["seed"]) for d in summary["days"] if "error" not in d]
    most = max(edges, default=(0, None))
    return [f"{n} day(s) in {summary['wall_s']:.0f} s wall; the worst of them: awake {w('awake_share')}, "
            f"behaviours per awake hour {w('distinct_behaviours_per_awake_hour', '{:.1f}')}, largest behaviour "
            f"{w('largest_behaviour_share')}, clip repeats {w('clip_repeat_share', '{:.2%}')}, answered within 1 s "
            f"{w('stimuli_answered_share')}, faces answered {w('faces_answered_share')}, "
            f"animated wake-ups {w('wake_ups_animated_share')}, longest nap "
            + ("-" if not nap else f"{hms(nap['worst'])} (seed {nap['seed']})")
            + (f", over the table's edge {most[0]} times (seed {most[1]})" if most[0]
               else ", never over the table's edge"),
            f"narrowest emotion ranges: {emotions or '-'}"]


def write_days_report(summary: dict[str, Any], days: list[dict[str, Any]], path: Path) -> bool:
    """The many-days report as JSON or Markdown (by extension), each day's picture beside it."""
    from .day_picture import day_svg

    pictures: dict[int, str] = {}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        for day in days:
            if "error" not in day:
                picture = path.with_name(f"{path.stem}.seed{day['seed']}.svg")
                picture.write_text(day_svg(day), encoding="utf-8")
                pictures[day["seed"]] = picture.name
        for entry in summary["days"]:
            if entry["seed"] in pictures:
                entry["picture"] = pictures[entry["seed"]]
        text = json.dumps(summary, indent=2) + "\n" if path.suffix.lower() == ".json" else days_markdown(summary)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        log.error("%s: cannot write the report: %s", getattr(exc, "filename", None) or path, exc.strerror or exc)
        return False
    log.info("report written to %s", path)
    return True


def _pc(value: Any, digits: int = 1) -> str:
    return "-" if value is None else f"{100.0 * float(value):.{digits}f}%"


def days_markdown(summary: dict[str, Any]) -> str:
    """The many-days report as Markdown: one row per day, then the worst."""
    lines = [f"# {len(summary['days'])} simulated days of `{summary['personality']}`", "",
             f"- {summary['hours']:g} h each from {summary['start_clock']}, {summary['scripted_events']} scripted "
             f"events, schedule: {summary.get('schedule') or 'none'}",
             f"- {summary['workers']} process(es), {summary['wall_s']:.0f} s wall", ""]
    header = ("seed", "awake", "behaviours / awake h", "largest behaviour", "clip repeats", "answered within 1 s",
              "faces answered", "animated wake-ups", "longest nap", "narrowest emotion range", "over the edge",
              "picture")
    rows = []
    for day in summary["days"]:
        if "error" in day:
            rows.append((day["seed"], f"failed: {day['error']}", *[""] * (len(header) - 2)))
            continue
        live = day["liveliness"]
        low = min(live["emotions"].items(), key=lambda kv: kv[1]["range"], default=None)
        rows.append((day["seed"], _pc(live["awake_share"]), f"{live['distinct_behaviours_per_awake_hour']:g}",
                     f"{_pc(live['largest_behaviour_share'])} ({live['largest_behaviour'] or '-'})",
                     _pc(live["clip_repeat_share"], 2), f"{live['stimuli_answered_1s']} / {live['stimuli']}",
                     f"{live.get('faces_answered', 0)} / {live.get('faces_awake', 0)}",
                     f"{live['wake_ups_animated']} / {live['wake_ups']}", hms(live["longest_nap_s"]),
                     f"{low[0]} {low[1]['range']:.2f}" if low else "-", day.get("over_the_edge", 0),
                     f"[svg]({day['picture']})" if day.get("picture") else "-"))
    lines += md_table("Days", header, rows)
    lines += ["## Worst of the days", "", *[f"- {line}" for line in worst_lines(summary)], ""]
    return "\n".join(lines)
