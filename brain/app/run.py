"""``cozmo-brain run``: one robot's brain, from start-up to a clean stop.

Start-up: config → resource set → robot (or the in-process simulator) → safety layer → animation
controller → mood → personality. Then the heartbeat runs until ``--duration`` ends, SIGINT or
SIGTERM; SIGHUP, or an edit of the personality file, reloads the personality, and a broken edit
keeps the old one running and says why. At the end the motors stop and the link says goodbye.

The personality file (and the mood configuration) are validated before anything touches the
network: a broken file ends ``run`` at once with exit code 1 and ``file:line: key: message`` lines.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
from pathlib import Path
from typing import Any

from driver.animation.controller import AnimationController
from driver.robot import Robot, RobotError
from driver.sim.script import ScriptError, load_script
from driver.sim.server import SimulatedCozmo

from ..engine import Brain, load_resources, validate_before_start
from .config import Config, ConfigError, load_config, parse_robot_address

__all__ = ["run_brain", "run_command"]

log = logging.getLogger("cozmo_brain")


async def run_brain(cfg: Config, *, sim: bool, robot_addr: tuple[str, int] | None, personality: Path,
                    roots: list[Path], duration: float | None, sim_script: list[Any], audio: bool = False) -> int:
    """Run one brain until stopped; returns the exit code."""
    from ..personality import PersonalityError

    simulator: SimulatedCozmo | None = None
    robot: Robot | None = None
    controller: AnimationController | None = None
    brain: Brain | None = None
    stop = asyncio.Event()
    reload_requested = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig, action in ((signal.SIGINT, stop.set), (signal.SIGTERM, stop.set), (signal.SIGHUP, reload_requested.set)):
        try:
            loop.add_signal_handler(sig, action)
        except (NotImplementedError, RuntimeError, ValueError):
            pass
    try:
        resources = load_resources(roots)
        errors = validate_before_start(personality, resources)
        if errors:
            log.error("cannot load the personality:\n%s", "\n".join(errors))
            return 1
        if sim:
            simulator = await SimulatedCozmo("127.0.0.1", 0, script=sim_script, play_audio=audio).start()
            robot_addr = simulator.address
        assert robot_addr is not None
        robot = Robot(*robot_addr, lost_after=cfg.lost_after_s, reconnect_initial_s=cfg.reconnect_initial_s,
                      reconnect_max_s=cfg.reconnect_max_s, connect_timeout_s=cfg.connect_timeout_s)
        if not await _connect_unless_stopped(robot, stop):
            return 0
        controller = AnimationController(robot, resources=roots, release_priority=cfg.frame_clock_priority or None,
                                         release_cpu=cfg.frame_clock_cpu)
        controller.start()
        brain = Brain(robot, resources, personality, heartbeat_hz=cfg.heartbeat_hz, controller=controller)
        try:
            brain.load()
        except PersonalityError as exc:
            log.error("cannot load the personality:\n%s", exc)
            return 1
        watcher = loop.create_task(_watch_file(personality, reload_requested, stop))
        reloader = loop.create_task(_reload_on_request(brain, reload_requested, stop))
        log.info("running %s at %.0f Hz%s", personality.name, cfg.heartbeat_hz,
                 f" for {duration:.0f} s" if duration else " (Ctrl-C stops)")
        try:
            await brain.heartbeat.run(stop, duration)
        finally:
            watcher.cancel()
            reloader.cancel()
        hb = brain.heartbeat.stats
        log.info("stopped after %d beats (median beat %.2f ms, %d missed); %d reactions; safety stops: %d",
                 hb.beats, hb.median_tick_ms(), hb.missed, brain.reactions.handled, brain.safety.stops)
        return 0
    except RobotError as exc:
        log.error("%s", exc)
        return 1
    finally:
        if brain is not None:
            brain.close()
        if controller is not None:
            await controller.stop()
        if robot is not None:
            await robot.disconnect()
        if simulator is not None:
            await simulator.stop()


async def _connect_unless_stopped(robot: Robot, stop: asyncio.Event) -> bool:
    """Connect (trying for as long as the config allows); False when a stop signal came first."""
    connecting = asyncio.ensure_future(robot.connect())
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({connecting, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    if not connecting.done():
        connecting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await connecting
        log.info("stopped before the robot answered")
        return False
    connecting.result()  # raises RobotError when connect_timeout_s ran out
    return True


async def _watch_file(path: Path, changed: asyncio.Event, stop: asyncio.Event, interval: float = 1.0) -> None:
    """Set ``changed`` when the personality file (or a YAML beside it) is modified."""
    def stamp() -> float:
        try:
            files = [path, *path.parent.glob("*.yaml")]
            return max(p.stat().st_mtime for p in files if p.exists())
        except OSError:
            return 0.0

    last = stamp()
    while not stop.is_set():
        await asyncio.sleep(interval)
        now = stamp()
        if now != last:
            last = now
            log.info("personality files changed; reloading")
            changed.set()


async def _reload_on_request(brain: Brain, requested: asyncio.Event, stop: asyncio.Event) -> None:
    from ..personality import PersonalityError

    while not stop.is_set():
        await requested.wait()
        requested.clear()
        try:
            brain.load()
        except PersonalityError as exc:
            log.error("reload failed, keeping the running personality:\n%s", exc)


def run_command(args: argparse.Namespace) -> int:
    """``cozmo-brain run``."""
    try:
        cfg = load_config(args.config)
        robot_addr = None if args.sim else (
            parse_robot_address(args.robot, cfg.robot_port) if args.robot else (cfg.robot_host, cfg.robot_port))
        script = load_script(args.sim_script) if args.sim_script else []
    except (ConfigError, ScriptError) as exc:
        log.error("%s", exc)
        return 1
    if args.sim_script and not args.sim:
        log.error("--sim-script needs --sim")
        return 2
    if args.duration is not None and args.duration <= 0:
        log.error("--duration must be positive")
        return 2
    if not (args.verbose or args.quiet):
        logging.getLogger().setLevel(cfg.log_level)
    try:
        personality = cfg.select_personality(args.personality)
        roots = cfg.resource_roots(args.resources)
    except ConfigError as exc:
        log.error("%s", exc)
        return 1
    return asyncio.run(run_brain(cfg, sim=args.sim, robot_addr=robot_addr, personality=personality,
                                 roots=roots, duration=args.duration, sim_script=script,
                                 audio=bool(getattr(args, "audio", False))))
