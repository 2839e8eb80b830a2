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

The report and the recorder that fills it are in :mod:`brain.app.simulate_report`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .simulate_report import MAX_EPISODES as MAX_EPISODES
from .simulate_report import SERIES_POINTS as SERIES_POINTS
from .simulate_report import Recorder, SimulationReport, _hms
from .simulate_report import SleepEpisode as SleepEpisode
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
#: Loggers of the stack that speak once per change of behaviour or reaction: quiet unless -v, so
#: the summary stays readable (warnings still show, stamped with the simulated time).
CHATTY_LOGGERS = ("brain", "cozmo_brain", "driver")
REPORT_FORMATS = {".json": "json", ".md": "markdown", ".markdown": "markdown"}


class SimulationError(RuntimeError):
    """The simulation could not run (robot did not connect, personality did not load …)."""


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
