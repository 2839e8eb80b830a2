"""``cozmo-brain simulate``: hours of a personality's life in seconds, offline.

A personality's character shows over hours: how often it naps, whether its idling varies, how
its mood drifts. Watching that in real time is impractical, so this runs the very stack that
``cozmo-brain run --sim`` runs — the simulated Cozmo, the Robot, the 30 fps animation
controller, the Brain with its mood, reactions and heartbeat — on a :class:`VirtualTimeLoop`:
an asyncio event loop whose clock is virtual and which, when nothing is ready to run, jumps
its clock to the next timer instead of waiting. The robot and the simulator talk through an
in-memory datagram network (:mod:`driver.memlink`) instead of UDP sockets. Every part of the
project reads time through ``loop.time()``, so everything follows the virtual clock; the run
is as fast as the CPU allows and, with the same ``--seed``, the same every time.

The simulator can follow a scripted timeline (``--script``, the format of
:mod:`driver.sim.script`) to put events into the simulated hours. The report (JSON or
Markdown by the file's extension, plus a short summary in the log) gives simulated and wall
time, time and starts per top-level branch and per behaviour, animations that reached the
robot, reactions, the mood's range and a coarse time series, and how often and how long the
robot slept.

Limits of virtual time: work handed to a thread would appear to finish instantly (nothing in
the brain does that; over the in-memory network the link releases its clocked frames from loop
timers, not from its release thread), and a heartbeat beat never overruns: its CPU cost is
reported separately, as ``median_beat_ms``. Speed: about 120–150x real time on one core of a
small machine, most of it the stack's own work (30 animation frames, 33 robot states and 10
beats per simulated second, each through the link's codec and ARQ).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import random
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .virtual_time import VirtualTimeLoop, run_virtual

log = logging.getLogger(__name__)

__all__ = [
    "SimulationError",
    "SimulationReport",
    "VirtualTimeLoop",
    "run_virtual",
    "simulate",
    "simulate_command",
]

#: Wall seconds between progress lines (a line also marks every simulated hour).
PROGRESS_WALL_S = 5.0
#: How often (simulated seconds) the progress task looks at the clocks.
PROGRESS_CHECK_S = 30.0
#: Points in the report's mood time series (at most; a bucket is never shorter than 10 s).
SERIES_POINTS = 60
#: Sleep episodes listed one by one in the report (all are counted).
MAX_EPISODES = 200
#: Loggers of the stack that speak once per change of behaviour or reaction: quiet unless -v, so
#: the summary stays readable (warnings still show, stamped with the simulated time).
CHATTY_LOGGERS = ("brain", "cozmo_brain", "driver")
REPORT_FORMATS = {".json": "json", ".md": "markdown", ".markdown": "markdown"}


class SimulationError(RuntimeError):
    """The simulation could not run (robot did not connect, personality did not load …)."""


# ----------------------------------------------------------------------------- the report


@dataclass
class SleepEpisode:
    """One stretch of sleep: when it began (s after start), how long, and what ended it."""

    start_s: float
    duration_s: float
    ended_by: str


@dataclass
class SimulationReport:
    """What the robot did over the simulated time (times in seconds unless named otherwise)."""

    personality: str
    personality_file: str
    seed: int
    heartbeat_hz: float
    simulated_s: float = 0.0
    wall_s: float = 0.0
    beats: int = 0
    median_beat_ms: float = 0.0
    branch_s: dict[str, float] = field(default_factory=dict)
    branch_starts: dict[str, int] = field(default_factory=dict)
    behavior_s: dict[str, float] = field(default_factory=dict)
    behavior_starts: dict[str, int] = field(default_factory=dict)
    animations: dict[str, int] = field(default_factory=dict)
    reactions: dict[str, int] = field(default_factory=dict)
    mood: dict[str, dict[str, float]] = field(default_factory=dict)
    simple_mood_s: dict[str, float] = field(default_factory=dict)
    mood_series: list[dict[str, Any]] = field(default_factory=list)
    sleep_count: int = 0
    sleep_total_s: float = 0.0
    first_sleep_at_s: float | None = None
    sleep_episodes: list[SleepEpisode] = field(default_factory=list)
    scripted_events: int = 0
    safety_stops: int = 0
    face_images: int = 0
    link: dict[str, Any] = field(default_factory=dict)

    @property
    def speedup(self) -> float:
        """Simulated seconds per wall second."""
        return self.simulated_s / self.wall_s if self.wall_s > 0 else math.inf

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready content, with the speed-up."""
        out = asdict(self)
        out["speedup"] = round(self.speedup, 1) if math.isfinite(self.speedup) else None
        return out

    def to_json(self) -> str:
        """The report as indented JSON."""
        return json.dumps(self.as_dict(), indent=2, sort_keys=False) + "\n"

    def to_markdown(self) -> str:
        """The report as a Markdown document."""
        sim_h = self.simulated_s / 3600.0
        lines = [
            f"# Simulation of `{self.personality}`",
            "",
            f"- personality file: `{self.personality_file}`, seed {self.seed}, heartbeat {self.heartbeat_hz:g} Hz",
            f"- simulated {sim_h:.2f} h ({self.simulated_s:.0f} s) in {self.wall_s:.1f} s wall: "
            f"**{self.speedup:.0f}x** real time",
            f"- {self.beats} beats, median beat {self.median_beat_ms:.3f} ms of CPU",
            f"- scripted events {self.scripted_events}, safety stops {self.safety_stops}, "
            f"face images shown {self.face_images}",
            "",
            "## Sleep",
            "",
            f"Slept {self.sleep_count} time(s), {_hms(self.sleep_total_s)} in total "
            f"({_pct(self.sleep_total_s, self.simulated_s)} of the time); "
            + (f"first fell asleep after {_hms(self.first_sleep_at_s)}." if self.first_sleep_at_s is not None
               else "never fell asleep."),
            "",
        ]
        if self.sleep_episodes:
            lines += ["| start | duration | ended by |", "|---|---|---|"]
            lines += [f"| {_hms(e.start_s)} | {_hms(e.duration_s)} | {e.ended_by} |" for e in self.sleep_episodes]
            lines.append("")
        lines += _table("Time per top-level branch", ("branch", "time", "share", "starts"),
                        [(k, _hms(v), _pct(v, self.simulated_s), self.branch_starts.get(k, 0))
                         for k, v in _by_value(self.branch_s)])
        lines += _table("Behaviours", ("behaviour", "time", "share", "starts"),
                        [(k, _hms(v), _pct(v, self.simulated_s), self.behavior_starts.get(k, 0))
                         for k, v in _by_value(self.behavior_s)])
        lines += _table("Animations that reached the robot", ("clip", "plays"), _by_value(self.animations))
        lines += _table("Reactions", ("trigger", "times"), _by_value(self.reactions))
        lines += _table("Mood", ("emotion", "min", "mean", "max", "final"),
                        [(k, *(f"{v[s]:+.2f}" for s in ("min", "mean", "max", "final")))
                         for k, v in self.mood.items()])
        lines += _table("Simple mood", ("simple mood", "time", "share"),
                        [(k, _hms(v), _pct(v, self.simulated_s)) for k, v in _by_value(self.simple_mood_s)])
        if self.mood_series:
            emotions = list(self.mood)
            lines += _table("Mood over time (bucket means)", ("t", *emotions, "mostly"),
                            [(_hms(p["t_s"]), *(f"{p['emotions'].get(e, 0.0):+.2f}" for e in emotions), p["branch"])
                             for p in self.mood_series])
        lines += _table("Link", ("counter", "value"), list(self.link.items()))
        return "\n".join(lines).rstrip("\n") + "\n"

    def summary_lines(self) -> list[str]:
        """A few lines for the log."""
        out = [
            f"simulated {self.simulated_s / 3600:.2f} h of {self.personality} in {self.wall_s:.1f} s wall "
            f"({self.speedup:.0f}x real time, {self.beats} beats, median beat {self.median_beat_ms:.2f} ms)",
            "time per branch: " + (", ".join(f"{k} {_pct(v, self.simulated_s)}" for k, v in _by_value(self.branch_s))
                                   or "none"),
            "behaviours started: " + (", ".join(f"{k} x{v}" for k, v in _by_value(self.behavior_starts)[:8])
                                      or "none"),
            f"animations: {sum(self.animations.values())} plays of {len(self.animations)} clips; reactions: "
            + (", ".join(f"{k} x{v}" for k, v in _by_value(self.reactions)) or "none"),
            f"slept {self.sleep_count} time(s), {_hms(self.sleep_total_s)} in total"
            + (f", first after {_hms(self.first_sleep_at_s)}" if self.first_sleep_at_s is not None else ""),
            "mood (min/mean/max): " + ", ".join(f"{k} {v['min']:+.2f}/{v['mean']:+.2f}/{v['max']:+.2f}"
                                                for k, v in self.mood.items()),
        ]
        return out


def _by_value(d: dict[str, Any]) -> list[tuple[str, Any]]:
    return sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))


def _pct(part: float, whole: float) -> str:
    return f"{100.0 * part / whole:.1f}%" if whole > 0 else "-"


def _hms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _table(title: str, header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> list[str]:
    out = [f"## {title}", ""]
    if not rows:
        return [*out, "(none)", ""]
    out.append("| " + " | ".join(header) + " |")
    out.append("|" + "---|" * len(header))
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return [*out, ""]


# ----------------------------------------------------------------------------- recording


class Recorder:
    """Turns the brain's per-beat snapshots and the simulator's messages into a report.

    Each beat is charged with the time until the next beat. The *top-level branch* is the
    personality root's child on the active path (``needs``, ``idle`` …) or ``reactions``; the
    *behaviour* is the deepest node on the path named after a Cozmo behaviour (``LookAround``,
    ``Sleep`` …), else the active leaf (``play_animation IdleBreathe``), or ``reaction X``.
    A behaviour *starts* when the beat's behaviour differs from the previous beat's.
    """

    def __init__(self, report: SimulationReport, behavior_ids: set[str], start: float) -> None:
        self.report = report
        self.behavior_ids = behavior_ids
        self.start = start
        self.branch_s: defaultdict[str, float] = defaultdict(float)
        self.behavior_s: defaultdict[str, float] = defaultdict(float)
        self.simple_mood_s: defaultdict[str, float] = defaultdict(float)
        self.branch_starts: Counter[str] = Counter()
        self.behavior_starts: Counter[str] = Counter()
        self.animations: Counter[str] = Counter()
        self.reactions: Counter[str] = Counter()
        self.mood_min: dict[str, float] = {}
        self.mood_max: dict[str, float] = {}
        self.mood_sum: defaultdict[str, float] = defaultdict(float)
        self.mood_final: dict[str, float] = {}
        self.mood_beats = 0
        self.series: list[dict[str, Any]] = []
        self.bucket_s = 10.0
        self._bucket: tuple[float, defaultdict[str, float], int, Counter[str]] | None = None
        self._last: tuple[float, str, str, str] | None = None  # at, branch, behaviour, simple mood
        self._asleep_since: float | None = None
        self._wake_event: str | None = None
        self.current = ""

    def set_duration(self, seconds: float) -> None:
        """Size the mood-series buckets for a run of ``seconds``."""
        self.bucket_s = max(10.0, seconds / SERIES_POINTS)

    def beat(self, at: float, branch_path: str, reaction: str | None, emotions: dict[str, float],
             simple_mood: str, sleeping: bool, events: list[str]) -> None:
        """Account for one heartbeat."""
        top, behaviour = self.classify(branch_path, reaction)
        self._charge(at)
        if self._last is None or self._last[1] != top:
            self.branch_starts[top] += 1
        if self._last is None or self._last[2] != behaviour:
            self.behavior_starts[behaviour] += 1
        self._last = (at, top, behaviour, simple_mood)
        self.current = f"{top} > {behaviour}" if behaviour != top else top
        self.mood_beats += 1
        for emotion, value in emotions.items():
            self.mood_min[emotion] = min(value, self.mood_min.get(emotion, value))
            self.mood_max[emotion] = max(value, self.mood_max.get(emotion, value))
            self.mood_sum[emotion] += value
        self.mood_final = dict(emotions)
        self._series(at, emotions, top)
        self._sleep(at, sleeping, events)

    def classify(self, branch_path: str, reaction: str | None) -> tuple[str, str]:
        """(top-level branch, behaviour) for one beat's active path."""
        if reaction is not None:
            return "reactions", f"reaction {reaction}"
        parts = branch_path.split(" > ") if branch_path else []
        if not parts:
            return "nothing", "nothing"
        top = parts[1] if len(parts) > 1 else parts[0]
        for name in reversed(parts):
            if name in self.behavior_ids:
                return top, name
        return top, parts[-1]

    def reaction(self, trigger: str) -> None:
        """A reaction was taken."""
        self.reactions[trigger] += 1

    def animation(self, clip: str) -> None:
        """An animation reached the robot."""
        self.animations[clip] += 1

    def _charge(self, now: float) -> None:
        if self._last is None:
            return
        at, top, behaviour, simple = self._last
        dt = max(0.0, now - at)
        self.branch_s[top] += dt
        self.behavior_s[behaviour] += dt
        self.simple_mood_s[simple] += dt

    def _series(self, at: float, emotions: dict[str, float], top: str) -> None:
        t = at - self.start
        if self._bucket is None or t >= self._bucket[0] + self.bucket_s:
            self._close_bucket()
            b0 = math.floor(t / self.bucket_s) * self.bucket_s
            self._bucket = (b0, defaultdict(float), 0, Counter())
        b0, sums, n, tops = self._bucket
        for emotion, value in emotions.items():
            sums[emotion] += value
        tops[top] += 1
        self._bucket = (b0, sums, n + 1, tops)

    def _close_bucket(self) -> None:
        if self._bucket is None or self._bucket[2] == 0:
            return
        b0, sums, n, tops = self._bucket
        self.series.append({"t_s": round(b0, 1), "emotions": {k: round(v / n, 4) for k, v in sums.items()},
                            "branch": tops.most_common(1)[0][0]})
        self._bucket = None

    def _sleep(self, at: float, sleeping: bool, events: list[str]) -> None:
        r = self.report
        if sleeping and self._asleep_since is None:
            self._asleep_since = at
            self._wake_event = None
            r.sleep_count += 1
            if r.first_sleep_at_s is None:
                r.first_sleep_at_s = round(at - self.start, 2)
        elif self._asleep_since is not None:
            # What woke it is the last robot event seen while asleep (a reaction to it may
            # run first, with the sleep suspended); without one, a timer or the tree ended it.
            for kind in events:
                self._wake_event = kind
            if not sleeping:
                self._end_sleep(at, self._wake_event or "timer or tree")

    def _end_sleep(self, at: float, why: str) -> None:
        assert self._asleep_since is not None
        duration = at - self._asleep_since
        self.report.sleep_total_s += duration
        if len(self.report.sleep_episodes) < MAX_EPISODES:
            self.report.sleep_episodes.append(
                SleepEpisode(round(self._asleep_since - self.start, 2), round(duration, 2), why))
        self._asleep_since = None

    def finish(self, end: float) -> None:
        """Close the books at ``end`` (loop time) and fill the report."""
        self._charge(end)
        if self._asleep_since is not None:
            self._end_sleep(end, "still asleep at the end")
        self._close_bucket()
        r = self.report
        r.branch_s = {k: round(v, 2) for k, v in self.branch_s.items()}
        r.behavior_s = {k: round(v, 2) for k, v in self.behavior_s.items()}
        r.simple_mood_s = {k: round(v, 2) for k, v in self.simple_mood_s.items()}
        r.branch_starts = dict(self.branch_starts)
        r.behavior_starts = dict(self.behavior_starts)
        r.animations = dict(self.animations)
        r.reactions = dict(self.reactions)
        r.sleep_total_s = round(r.sleep_total_s, 2)
        r.mood = {e: {"min": round(self.mood_min[e], 4), "mean": round(self.mood_sum[e] / self.mood_beats, 4),
                      "max": round(self.mood_max[e], 4), "final": round(self.mood_final.get(e, 0.0), 4)}
                  for e in self.mood_min}
        r.mood_series = self.series


# ----------------------------------------------------------------------------- the run


async def simulate(
    personality: Path,
    roots: list[Path],
    *,
    hours: float,
    script: list[Any] | None = None,
    seed: int = 0,
    heartbeat_hz: float = 10.0,
    progress: bool = True,
    on_start: Callable[[Any], None] | None = None,
) -> SimulationReport:
    """Run ``personality`` for ``hours`` of loop time against the simulator; returns the report.

    Meant for a :class:`VirtualTimeLoop` (see :func:`run_virtual`); on an ordinary loop it runs
    in real time. ``on_start`` is called with the :class:`brain.engine.Brain` once it is loaded and
    just before its heartbeat starts (benchmarks and tools hook in there). Raises
    :class:`SimulationError` when the stack cannot start.
    """
    from driver.memlink import MemoryNetwork
    from driver.sim.server import SimulatedCozmo

    from ..nodes.registry import BEHAVIOR_CLASSES
    from .startup import BrainStack, StartupError

    if not hours > 0:
        raise SimulationError(f"the simulated time must be positive, got {hours} h")
    loop = asyncio.get_running_loop()
    wall0 = time.perf_counter()
    stack = BrainStack(personality, roots, heartbeat_hz=heartbeat_hz, seed=seed)
    try:
        stack.prepare()
    except StartupError as exc:
        raise SimulationError(str(exc)) from exc
    report = SimulationReport(personality=personality.stem, personality_file=str(personality), seed=seed,
                              heartbeat_hz=heartbeat_hz, scripted_events=len(script or []))
    net = MemoryNetwork(loop)
    sim = SimulatedCozmo("127.0.0.1", 5551, script=list(script or []))
    progress_task: asyncio.Task[None] | None = None
    try:
        await sim.start(open_link=net.open_link)
        try:
            brain = await stack.start(sim.address, open_link=net.open_link)
        except StartupError as exc:
            raise SimulationError(str(exc)) from exc
        robot, controller = stack.robot, stack.controller
        assert robot is not None and controller is not None
        report.personality = brain.personality.name
        behavior_ids = set(BEHAVIOR_CLASSES) | set(getattr(stack.resources, "behaviors", {}) or {})
        start = loop.time()
        recorder = Recorder(report, behavior_ids, start)
        recorder.set_duration(hours * 3600.0)
        _attach(brain, sim, controller, recorder)
        if on_start is not None:
            on_start(brain)
        stop = asyncio.Event()
        if progress:
            progress_task = loop.create_task(_progress(recorder, start, hours, wall0))
        await brain.heartbeat.run(stop, hours * 3600.0)
        end = loop.time()
        recorder.finish(end)
        report.simulated_s = round(end - start, 3)
        hb = brain.heartbeat.stats
        report.beats = hb.beats
        report.median_beat_ms = round(hb.median_tick_ms(), 4)
        report.safety_stops = brain.safety.stops
        report.face_images = sim.display.images
        stats = robot.stats
        report.link = {"datagrams": net.delivered, "sent_packets": stats.sent_packets,
                       "resent_packets": stats.resent_packets, "received_packets": stats.received_packets,
                       "robot_resent_packets": sim.link.stats.resent_packets if sim.link else 0,
                       "animation_frames": controller.stats.frames,
                       "missed_animation_frames": controller.stats.missed_frames}
    finally:
        if progress_task is not None:
            progress_task.cancel()
        await stack.close()
        await sim.stop()
    report.wall_s = round(time.perf_counter() - wall0, 3)
    return report


def _attach(brain: Any, sim: Any, controller: Any, recorder: Recorder) -> None:
    """Hook the recorder to the brain's snapshots and reactions and to the simulator's inbox."""
    hb = brain.heartbeat
    publish = hb.on_snapshot
    brain.reactions.on_start.append(lambda reaction: recorder.reaction(reaction.trigger))

    def on_snapshot(snap: Any) -> None:
        if publish is not None:
            publish(snap)
        active = brain.reactions.active
        mood = snap.mood or {}
        recorder.beat(snap.at, snap.branch, active.trigger if active is not None else None,
                      mood.get("emotions", {}), str(mood.get("simple_mood", "")),
                      bool(brain.ctx.branch.get("sleeping")), list(snap.events))

    def on_message(msg: Any) -> None:
        if type(msg).__name__ == "StartAnimation":
            pb = controller.current
            name = pb.clip.name if pb is not None and pb.anim_id == msg.anim_id else f"anim #{msg.anim_id}"
            recorder.animation(name)

    hb.on_snapshot = on_snapshot
    sim.on_message = on_message


async def _progress(recorder: Recorder, start: float, hours: float, wall0: float) -> None:
    """A log line every simulated hour, and every few wall seconds in between."""
    loop = asyncio.get_running_loop()
    total = hours * 3600.0
    next_hour = 3600.0
    last_wall = wall0
    while True:
        await asyncio.sleep(PROGRESS_CHECK_S)
        t = loop.time() - start
        wall = time.perf_counter()
        if t >= next_hour or wall - last_wall >= PROGRESS_WALL_S:
            while next_hour <= t:
                next_hour += 3600.0
            last_wall = wall
            r = recorder.report
            log.info("simulated %s of %s (%.0f%%) in %.0f s wall, %.0fx; now %s; slept %d time(s)",
                     _hms(t), _hms(total), 100.0 * t / total, wall - wall0, t / max(wall - wall0, 1e-9),
                     recorder.current or "-", r.sleep_count)


# ----------------------------------------------------------------------------- logging


class _VirtualStamp(logging.Filter):
    """Prefixes log lines with the simulated time, so a run's log reads on its own clock."""

    def __init__(self, loop: asyncio.AbstractEventLoop, start: float) -> None:
        super().__init__()
        self.loop = loop
        self.start = start

    def filter(self, record: logging.LogRecord) -> bool:  # noqa: D102
        if not getattr(record, "_sim_stamped", False):
            record.msg = f"[sim {_hms(self.loop.time() - self.start)}] {record.msg}"
            record._sim_stamped = True
        return True


class _QuietAndStamped:
    """During a run: chatty loggers down to WARNING (unless verbose), simulated time on each line."""

    def __init__(self, loop: asyncio.AbstractEventLoop, verbose: bool) -> None:
        self.stamp = _VirtualStamp(loop, loop.time())
        self.verbose = verbose
        self.levels: dict[str, int] = {}

    def __enter__(self) -> _QuietAndStamped:
        if not self.verbose:
            own = logging.getLogger(__name__)
            keep = own.getEffectiveLevel()
            for name in (*CHATTY_LOGGERS, __name__):
                self.levels[name] = logging.getLogger(name).level
            for name in CHATTY_LOGGERS:
                logging.getLogger(name).setLevel(logging.WARNING)
            own.setLevel(keep)  # progress lines stay as loud as before
        for handler in logging.getLogger().handlers:
            handler.addFilter(self.stamp)
        return self

    def __exit__(self, *exc: object) -> None:
        for name, level in self.levels.items():
            logging.getLogger(name).setLevel(level)
        for handler in logging.getLogger().handlers:
            handler.removeFilter(self.stamp)


# ----------------------------------------------------------------------------- command line


def simulate_command(args: argparse.Namespace) -> int:
    """``cozmo-brain simulate --hours H [--personality FILE] [--report FILE] [--script FILE] [--seed N]``."""
    from driver.sim.script import ScriptError, load_script

    from .config import ConfigError, load_config

    hours = getattr(args, "hours", None)
    if hours is None or not hours > 0 or not math.isfinite(hours):
        log.error("--hours must be a positive number of hours, got %r", hours)
        return 2
    report_path = Path(args.report) if getattr(args, "report", None) else None
    if report_path is not None and report_path.suffix.lower() not in REPORT_FORMATS:
        log.error("%s: the report's extension says its format: one of %s", report_path,
                  ", ".join(sorted(REPORT_FORMATS)))
        return 2
    try:
        cfg = load_config(getattr(args, "config", None))
        script_file = getattr(args, "script", None)
        script = load_script(script_file) if script_file else []
    except (ConfigError, ScriptError) as exc:
        log.error("%s", exc)
        return 1
    try:
        personality = cfg.select_personality(getattr(args, "personality", None))
        roots = cfg.resource_roots(getattr(args, "resources", None))
    except ConfigError as exc:
        log.error("%s", exc)
        return 1
    seed = getattr(args, "seed", None)
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 31)
    verbose = bool(getattr(args, "verbose", 0))
    log.info("simulating %s for %g h (seed %d)%s", personality, hours, seed,
             f" with {len(script)} scripted events" if script else "")

    async def main() -> SimulationReport:
        with _QuietAndStamped(asyncio.get_running_loop(), verbose):
            return await simulate(personality, roots, hours=hours, script=script, seed=seed,
                                  heartbeat_hz=cfg.heartbeat_hz)

    try:
        report = run_virtual(main())
    except SimulationError as exc:
        log.error("%s", exc)
        return 1
    for line in report.summary_lines():
        log.info("%s", line)
    if report_path is not None:
        text = report.to_json() if REPORT_FORMATS[report_path.suffix.lower()] == "json" else report.to_markdown()
        try:
            report_path.parent.mkdir(parents=True, exist_ok=True)
            report_path.write_text(text, encoding="utf-8")
        except OSError as exc:
            log.error("%s: cannot write the report: %s", report_path, exc.strerror or exc)
            return 1
        log.info("report written to %s", report_path)
    return 0
