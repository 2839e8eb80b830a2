"""``cozmo-brain simulate``: hours of a personality's life in seconds, offline.

A personality's character shows over hours: how often it naps, whether its idling varies, how
its mood drifts. Watching that in real time is impractical, so this runs the very stack that
``cozmo-brain run --sim`` runs — the simulated Cozmo, the Robot, the 30 fps animation
controller, the Brain with its mood, reactions and heartbeat — on a :class:`VirtualTimeLoop`:
an asyncio event loop whose clock is virtual and which, when nothing is ready to run, jumps
its clock to the next timer instead of waiting. The robot and the simulator talk through an
in-memory network (:mod:`driver.memlink`) instead of UDP sockets: a direct one, where the
connection is made, kept and lost through datagrams as over UDP, but the packets the two sides
send each other are handed over whole, without frames, numbering and acknowledgements (nobody
sees them, and they were a quarter of the work; a silent or rebooting simulator still goes
through the session, so the robot is lost and found as it would be). Every part of the
project reads time through ``loop.time()``, so everything follows the virtual clock; the run
is as fast as the CPU allows and, with the same ``--seed``, the same every time. The simulated
day starts at ``--start HH:MM`` local time (09:00 by default), which the personality's schedule
(quiet hours, night) follows.

The simulator can follow a scripted timeline (``--script``, the format of
:mod:`driver.sim.script`) to put events into the simulated hours. The report
(:mod:`brain.app.day_report`; JSON or Markdown by the file's extension, plus a short summary in
the log) gives the totals, the day's timeline and its liveliness (:mod:`brain.app.liveliness`),
and a picture of the day is written beside it (:mod:`brain.app.day_picture`). ``--seeds 1-8
--jobs N`` runs several days in parallel processes (:mod:`brain.app.days`). Progress shows on a
terminal as one updating line (:mod:`brain.app.progress`).

Limits of virtual time: work handed to a thread would appear to finish instantly (nothing in
the brain does that; over the in-memory network the link releases its clocked frames from loop
timers, not from its release thread), and a heartbeat beat never overruns: its CPU cost is
reported separately, as ``median_beat_ms``. Speed: about 100x real time on one core of a
small 2-core machine, nearly all of it the stack's own work (30 animation frames, 33 robot states
and 10 beats per simulated second: the tree, the controller, the robot's state handling and the
simulated body, none of which stands out).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from driver.sim.table import DESK, Table

from ..rhythm import format_clock, parse_clock, simulated_day_clock
from . import days
from .day_report import MAX_EPISODES, SERIES_POINTS, SimulationReport, SleepEpisode, hms
from .liveliness import WAKE_UP_TRIGGERS, liveliness
from .progress import Progress
from .recorder import Recorder
from .virtual_time import VirtualTimeLoop, run_virtual

log = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_START",
    "MAX_EPISODES",
    "SERIES_POINTS",
    "Recorder",
    "SimulationError",
    "SimulationReport",
    "SleepEpisode",
    "VirtualTimeLoop",
    "run_virtual",
    "simulate",
    "simulate_command",
    "wake_up_clips",
]

#: Wall seconds between progress lines when standard error is not a terminal (a line also marks
#: every simulated hour).
PROGRESS_WALL_S = 5.0
#: How often (simulated seconds) the progress task looks at the clocks.
PROGRESS_CHECK_S = 30.0
#: Rendered faces a simulated day keeps (the daemon keeps 1,024): an 8-hour day asks for several
#: thousand distinct faces in a few minutes, each kept costs about 1.8 KB, and a render ten times
#: a lookup. With 1,024 an hour rendered 5,500 faces instead of 2,900 and ran a tenth slower.
SIMULATED_FACE_CACHE = 16384
#: The simulated local time of day a run starts at, unless ``--start`` says otherwise.
DEFAULT_START = "09:00"
#: Loggers of the stack that speak once per change of behaviour or reaction: quiet unless -v, so
#: the summary stays readable (warnings still show, stamped with the simulated time).
CHATTY_LOGGERS = ("brain", "cozmo_brain", "driver")
REPORT_FORMATS = {".json": "json", ".md": "markdown", ".markdown": "markdown"}


class SimulationError(RuntimeError):
    """The simulation could not run (robot did not connect, personality did not load …)."""


# ----------------------------------------------------------------------------- the run

#: Called with the progress text, whether it is a milestone (a simulated hour) and the share done.
ProgressCallback = Callable[[str, bool, float], Any]


async def simulate(
    personality: Path,
    roots: list[Path],
    *,
    hours: float,
    script: list[Any] | None = None,
    seed: int = 0,
    heartbeat_hz: float = 10.0,
    progress: bool | ProgressCallback = True,
    on_start: Callable[[Any], None] | None = None,
    start_clock: str = DEFAULT_START,
    eyes: str = "sight",
    table: Table | None = DESK,
    watch_sim: Callable[[Any], None] | None = None,
) -> SimulationReport:
    """Run ``personality`` for ``hours`` of loop time against the simulator; returns the report.

    Meant for a :class:`VirtualTimeLoop` (see :func:`run_virtual`); on an ordinary loop it runs
    in real time. The day starts at ``start_clock`` (``HH:MM``) local time. ``progress``: True logs
    a line every simulated hour and every :data:`PROGRESS_WALL_S` wall seconds, a callable gets
    the text, whether it is a milestone and the share done every :data:`PROGRESS_CHECK_S`
    simulated seconds, False shows nothing. ``on_start`` is called with the :class:`brain.engine.Brain` once it is
    loaded and just before its heartbeat starts (benchmarks and tools hook in there). ``eyes``:
    ``sight`` (default) hands the vision what the simulator's camera would see from the room's
    geometry (:mod:`driver.sim.sight`), ``pixels`` renders, encodes and detects every picture,
    ``off`` leaves the robot blind. ``table`` is what the robot stands on (its edges are cliffs; None:
    an endless floor). ``watch_sim`` is called with the
    :class:`~driver.sim.server.SimulatedCozmo` once it listens, before the robot connects (a test
    that records what reached the robot hooks in there). Raises :class:`SimulationError` when
    the stack cannot start.
    """
    from driver.memlink import MemoryNetwork
    from driver.sim.server import SimulatedCozmo

    from ..nodes.registry import BEHAVIOR_CLASSES
    from .startup import BrainStack, StartupError

    if not hours > 0:
        raise SimulationError(f"the simulated time must be positive, got {hours} h")
    if eyes not in EYES:
        raise SimulationError(f"eyes: expected one of {', '.join(EYES)}, got {eyes!r}")
    try:
        start_s = parse_clock(start_clock)
    except ValueError as exc:
        raise SimulationError(f"start: {exc}") from None
    loop = asyncio.get_running_loop()
    wall0 = time.perf_counter()
    stack = BrainStack(personality, roots, heartbeat_hz=heartbeat_hz, seed=seed,
                       day_clock=simulated_day_clock(start_s, loop.time), preload_sounds=False,
                       controller_options={"face_cache": SIMULATED_FACE_CACHE})
    try:
        stack.prepare()
    except StartupError as exc:
        raise SimulationError(str(exc)) from exc
    report = SimulationReport(personality=personality.stem, personality_file=str(personality), seed=seed,
                              heartbeat_hz=heartbeat_hz, scripted_events=len(script or []),
                              start_clock=format_clock(start_s))
    sight: _Eyes | None = None
    net = MemoryNetwork(loop, direct=True)
    sim = SimulatedCozmo("127.0.0.1", 5551, script=list(script or []), table=table, record_limit=0)
    progress_task: asyncio.Task[None] | None = None
    try:
        await sim.start(open_link=net.open_link)
        if watch_sim is not None:
            watch_sim(sim)
        try:
            brain = await stack.start(sim.address, open_link=net.open_link)
        except StartupError as exc:
            raise SimulationError(str(exc)) from exc
        robot, controller = stack.robot, stack.controller
        assert robot is not None and controller is not None
        report.personality = brain.personality.name
        report.schedule = brain.personality.schedule.describe()
        behavior_ids = set(BEHAVIOR_CLASSES) | set(getattr(stack.resources, "behaviors", {}) or {})
        # The day counts from the connection, as the day clock and the script's timeline do: the
        # robot's start-up (calibration, about 1.3 s) is part of it.
        start = sim.connected_since if sim.connected_since is not None else loop.time()
        recorder = Recorder(report, behavior_ids, start)
        recorder.started_up(loop.time())
        recorder.set_duration(hours * 3600.0)
        _attach(brain, sim, controller, recorder)
        sight = _Eyes(eyes, robot, sim)
        if on_start is not None:
            on_start(brain)
        stop = asyncio.Event()
        if progress:
            show = progress if callable(progress) else _log_progress()
            progress_task = loop.create_task(_progress(recorder, start, hours, wall0, show))
        await brain.heartbeat.run(stop, hours * 3600.0 - (loop.time() - start))
        end = loop.time()
        recorder.finish(end)
        report.simulated_s = round(end - start, 3)
        report.liveliness = liveliness(report.timeline, duration_s=report.simulated_s,
                                       wake_clips=wake_up_clips(stack.resources), mood=report.mood)
        hb = brain.heartbeat.stats
        report.beats = hb.beats
        report.median_beat_ms = round(hb.median_tick_ms(), 4)
        report.safety_stops = brain.safety.stops
        report.over_the_edge = len(sim.body.overruns)
        report.face_images = sim.display.images
        report.eyes = sight.report()
        stats = robot.stats
        report.link = {"datagrams": net.delivered, "handed_over": net.handed_over, "sent_packets": stats.sent_packets,
                       "resent_packets": stats.resent_packets, "received_packets": stats.received_packets,
                       "robot_resent_packets": sim.link.stats.resent_packets if sim.link else 0,
                       "animation_frames": controller.stats.frames,
                       "missed_animation_frames": controller.stats.missed_frames}
    finally:
        if progress_task is not None:
            progress_task.cancel()
        if sight is not None:
            await sight.close()
        await stack.close()
        await sim.stop()
    report.wall_s = round(time.perf_counter() - wall0, 3)
    return report


#: How a simulated robot sees (``simulate --pixels``, ``--no-vision``; the room's geometry by default).
EYES = ("sight", "pixels", "off")
EYES_WORDS = {"sight": "the room's geometry", "pixels": "rendered and detected pictures", "off": "none"}


class _Eyes:
    """The robot's vision in a simulated day: how it sees, the sight feed, what it saw."""

    def __init__(self, mode: str, robot: Any, sim: Any) -> None:
        from driver.vision import VisionConfig

        self.mode, self.robot, self.feed = mode, robot, None
        self.seen: dict[str, int] = {"face_seen": 0, "motion_seen": 0}
        if mode == "off":
            return
        robot.add_listener(self._count)
        if mode == "pixels":  # drawn and analysed on the loop's thread: no simulated time, no frame skipped
            sim.camera.in_thread = False
            robot.start_vision(VisionConfig(inline=True))
            return
        from driver.sim.sight import SightFeed

        vision = robot.start_vision(VisionConfig(face_detector=None, motion=False), camera=False)
        self.feed = SightFeed(sim, vision, robot).start()

    def _count(self, event: Any) -> None:
        if event.kind in self.seen:
            self.seen[event.kind] += 1

    def report(self) -> dict[str, Any]:
        """The report's ``eyes`` section."""
        vision = self.robot.vision
        if vision is None:
            return {"mode": self.mode}
        looks = self.feed.looks if self.feed is not None else vision.stats.decoded
        return {"mode": self.mode, "looks": looks, "faces_seen": self.seen["face_seen"],
                "motion_seen": self.seen["motion_seen"]}

    async def close(self) -> None:
        """Stop the feed and the vision."""
        if self.feed is not None:
            await self.feed.stop()
        await self.robot.stop_vision()


def wake_up_clips(resources: Any) -> list[str]:
    """The clips of the resource set's wake-up animation triggers (:data:`WAKE_UP_TRIGGERS`)."""
    names: set[str] = set()
    for trigger in WAKE_UP_TRIGGERS:
        group = resources.playable_group_for_trigger(trigger) if resources is not None else None
        if group is not None:
            names.update(member.name for member in group.members)
    return sorted(names)


def _attach(brain: Any, sim: Any, controller: Any, recorder: Recorder) -> None:
    """Hook the recorder to the brain's snapshots and reactions and to the simulator's inbox and steps."""
    from ..nodes.actions import RandomWait, Wait

    loop = asyncio.get_running_loop()
    brain.reactions.on_start.append(lambda reaction: recorder.reaction(reaction.trigger, loop.time()))

    def on_snapshot(snap: Any) -> None:
        active = brain.reactions.active
        mood = snap.mood or {}
        pause = active is None and isinstance(brain.root.tip(), (Wait, RandomWait))
        recorder.beat(snap.at, snap.branch, active.trigger if active is not None else None,
                      mood.get("emotions", {}), str(mood.get("simple_mood", "")),
                      brain.ctx.arousal.asleep, list(snap.events), pause=pause,
                      quiet=brain.rhythm.quiet, why=brain.ctx.arousal.why, needs=dict(brain.ctx.needs.levels))

    def on_message(msg: Any) -> None:
        at = loop.time()
        recorder.message(msg, at)
        if type(msg).__name__ == "StartAnimation":
            pb = controller.current
            name = pb.clip.name if pb is not None and pb.anim_id == msg.anim_id else f"anim #{msg.anim_id}"
            recorder.animation(name, at)

    brain.heartbeat.subscribe("snapshot", on_snapshot)
    sim.add_message_listener(on_message)
    # the simulator's scripted steps: each is a stimulus
    sim.add_step_listener(lambda step: recorder.stimulus(step, loop.time()))


def _log_progress() -> ProgressCallback:
    """Progress as log lines: every simulated hour, and every :data:`PROGRESS_WALL_S` wall seconds."""
    last = time.perf_counter()

    def show(text: str, milestone: bool, done: float) -> None:
        nonlocal last
        now = time.perf_counter()
        if milestone or now - last >= PROGRESS_WALL_S:
            last = now
            log.info("%s", text)

    return show


async def _progress(recorder: Recorder, start: float, hours: float, wall0: float, show: ProgressCallback) -> None:
    """Hands ``show`` the progress every :data:`PROGRESS_CHECK_S` simulated seconds (a milestone each hour)."""
    loop = asyncio.get_running_loop()
    total = hours * 3600.0
    next_hour = 3600.0
    checks = 0
    while True:
        checks += 1
        await asyncio.sleep(max(0.0, start + checks * PROGRESS_CHECK_S - loop.time()))
        t = loop.time() - start
        wall = time.perf_counter() - wall0
        milestone = t >= next_hour
        while next_hour <= t:
            next_hour += 3600.0
        show(f"simulated {hms(t)} of {hms(total)} ({100.0 * t / total:.0f}%) in {wall:.0f} s wall, "
             f"{t / max(wall, 1e-9):.0f}x; now {recorder.current or '-'}; slept {recorder.report.sleep_count} "
             f"time(s)", milestone, t / total)


# ----------------------------------------------------------------------------- logging


class _VirtualStamp(logging.Filter):
    """Prefixes log lines with the simulated time, so a run's log reads on its own clock."""

    def __init__(self, loop: asyncio.AbstractEventLoop, start: float) -> None:
        super().__init__()
        self.loop = loop
        self.start = start

    def filter(self, record: logging.LogRecord) -> bool:  # noqa: D102
        if not getattr(record, "_sim_stamped", False):
            record.msg = f"[sim {hms(self.loop.time() - self.start)}] {record.msg}"
            record._sim_stamped = True
        return True


class QuietAndStamped:
    """During a run: chatty loggers down to WARNING (unless verbose), simulated time on each line."""

    def __init__(self, loop: asyncio.AbstractEventLoop, verbose: bool) -> None:
        self.stamp = _VirtualStamp(loop, loop.time())
        self.verbose = verbose
        self.levels: dict[str, int] = {}

    def __enter__(self) -> QuietAndStamped:
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


def run_day(job: days.DayJob) -> dict[str, Any]:
    """Simulate one day (in a worker process); its report as a dict, or ``{"seed", "error"}``."""
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.DEBUG if job.verbose else logging.WARNING, stream=sys.stderr,
                            format=f"%(asctime)s %(levelname)-7s seed {job.seed} %(name)s: %(message)s",
                            datefmt="%H:%M:%S")
    last = 0.0

    def progress(text: str, milestone: bool, done: float) -> None:
        nonlocal last
        now = time.perf_counter()
        if job.progress is not None and now - last >= days.WORKER_PROGRESS_S:
            last = now
            job.progress.put(("progress", job.seed, done))

    async def main() -> Any:
        with QuietAndStamped(asyncio.get_running_loop(), job.verbose):
            return await simulate(job.personality, job.roots, hours=job.hours, script=job.script, seed=job.seed,
                                  heartbeat_hz=job.heartbeat_hz, start_clock=job.start_clock, progress=progress,
                                  eyes=job.eyes, table=job.table)

    try:
        report = run_virtual(main())
    except SimulationError as exc:
        return {"seed": job.seed, "error": str(exc)}
    return dict(report.as_dict())


# ----------------------------------------------------------------------------- command line


def simulate_command(args: argparse.Namespace) -> int:
    """``cozmo-brain simulate --hours H [--personality FILE] [--report FILE] [--script FILE]
    [--seed N | --seeds A-B [--jobs N]] [--start HH:MM] [--pixels | --no-vision]``."""
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
    start_clock = getattr(args, "start", None) or DEFAULT_START
    try:
        start_clock = format_clock(parse_clock(start_clock))
    except ValueError as exc:
        log.error("--start: %s", exc)
        return 2
    seeds_text, jobs = getattr(args, "seeds", None), getattr(args, "jobs", None)
    seeds: list[int] | None = None
    if seeds_text is not None:
        try:
            seeds = days.parse_seeds(seeds_text)
        except ValueError as exc:
            log.error("--seeds: %s", exc)
            return 2
        if getattr(args, "seed", None) is not None:
            log.error("--seed and --seeds: give one of them")
            return 2
    if jobs is not None and (seeds is None or jobs < 1):
        log.error("--jobs needs --seeds and a number of processes of at least 1, got %r", jobs)
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
    verbose = bool(getattr(args, "verbose", 0))
    eyes = "pixels" if getattr(args, "pixels", False) else "off" if getattr(args, "no_vision", False) else "sight"
    table_text = getattr(args, "table", None)
    try:
        table = DESK if table_text is None else None if table_text.lower() == "none" else Table.parse(table_text)
    except ValueError as exc:
        log.error("--table: %s", exc)
        return 2
    if seeds is not None:
        return days.simulate_days(personality, roots, hours=hours, script=script, seeds=seeds, jobs=jobs,
                                  heartbeat_hz=cfg.heartbeat_hz, start_clock=start_clock, report_path=report_path,
                                  verbose=verbose, runner=run_day, progress_every_s=PROGRESS_WALL_S, eyes=eyes,
                                  table=table)
    seed = getattr(args, "seed", None)
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 31)
    log.info("simulating %s for %g h from %s (seed %d)%s; eyes: %s", personality, hours, start_clock, seed,
             f" with {len(script)} scripted events" if script else "", EYES_WORDS[eyes])

    async def main() -> SimulationReport:
        with QuietAndStamped(asyncio.get_running_loop(), verbose), \
                Progress(log, every_s=PROGRESS_WALL_S) as shown:
            return await simulate(personality, roots, hours=hours, script=script, seed=seed,
                                  heartbeat_hz=cfg.heartbeat_hz, start_clock=start_clock, eyes=eyes, table=table,
                                  progress=lambda text, milestone, done: shown.show(text, milestone=milestone))

    try:
        report = run_virtual(main())
    except SimulationError as exc:
        log.error("%s", exc)
        return 1
    for line in report.summary_lines():
        log.info("%s", line)
    if report_path is not None:
        return 0 if write_report(report, report_path) else 1
    return 0


def write_report(report: SimulationReport, path: Path) -> bool:
    """Write ``report`` to ``path`` (JSON or Markdown by its extension) and the picture of the day
    beside it (``path`` with ``.svg``); False (logged) when a file cannot be written."""
    from .day_picture import day_svg

    picture = path.with_suffix(".svg")
    markdown = REPORT_FORMATS[path.suffix.lower()] == "markdown"
    text = report.to_markdown(picture.name) if markdown else report.to_json()
    for target, content in ((path, text), (picture, day_svg(report.as_dict()))):
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        except OSError as exc:
            log.error("%s: cannot write the report: %s", target, exc.strerror or exc)
            return False
    log.info("report written to %s", path)
    log.info("picture of the day written to %s", picture)
    return True
