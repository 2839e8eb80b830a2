"""``cozmo-brain run``: one robot's brain, from start-up to a clean stop.

Start-up: config → resource set → robot (or the in-process simulator) → safety layer → animation
controller → mood → personality. Then the heartbeat runs until ``--duration`` ends, SIGINT or
SIGTERM; SIGHUP, or an edit of the personality file, reloads the personality, and a broken edit
keeps the old one running and says why. At the end the motors stop and the link says goodbye.

Reactions run above the personality's own tree (:class:`brain.nodes.reactions.ReactiveRoot`):
a reaction interrupts whatever the tree was doing on the very tick its event is drained. The
interrupted branch is suspended, not reset; when a reaction with ``shouldResumeLast`` ends, the
branch resumes where it was (a memory sequence on its step, the interrupted animation replayed),
and when one without it ends, the tree is evaluated again from its top.

The personality file (and the mood configuration) are validated before anything touches the
network: a broken file ends ``run`` at once with exit code 1 and ``file:line: key: message`` lines.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import signal
from pathlib import Path
from typing import Any

import py_trees

from driver import events as ev
from driver.animation.controller import AnimationController
from driver.robot import Robot, RobotError
from driver.sim.script import ScriptError, load_script
from driver.sim.server import SimulatedCozmo

from .animations import AnimationLibrary
from .config import Config, ConfigError, load_config, parse_robot_address
from .context import BrainContext
from .heartbeat import Heartbeat, Snapshot
from .nodes.reactions import ReactionRunner, ReactiveRoot, branch_of
from .safety import Safety

__all__ = ["Brain", "ReactionRunner", "run_brain", "run_command", "validate_before_start"]

log = logging.getLogger("cozmo_brain")


class Brain:
    """The personality of one robot: context, mood, tree, reactions and the heartbeat."""

    def __init__(self, robot: Robot, resources: Any, personality_path: Path, *, heartbeat_hz: float,
                 controller: AnimationController, seed: int | None = None) -> None:
        loop = asyncio.get_running_loop()
        self.robot = robot
        self.resources = resources
        self.personality_path = personality_path
        self.controller = controller
        self.safety = Safety(robot)
        self.base_mood_config = _mood_config(resources)
        self.ctx = BrainContext(robot=robot, clock=loop.time, resources=resources, rng=random.Random(seed))
        self.ctx.mood = self._new_mood(None)
        self.ctx.animations = AnimationLibrary(
            resources, controller, clock=loop.time, rng=self.ctx.rng,
            simple_mood=lambda: self.ctx.mood.simple_mood().value if self.ctx.mood is not None else None,
            head_angle_deg=self._head_deg,
        )
        self.reactions = ReactionRunner(self.ctx)
        self.personality: Any = None
        self.root = ReactiveRoot("Brain", self.reactions, self.ctx)
        self.heartbeat = Heartbeat(
            None, rate_hz=heartbeat_hz, mood=self.ctx.mood, handlers=[self._on_events],
            describe=self._describe, hazard=lambda: self.safety.hazard, on_snapshot=self._publish,
            clock=loop.time,
        )
        self._remove = robot.add_listener(self.heartbeat.post)
        # The brain starts after the robot's start-up sequence, so it never hears that Connected
        # event; it is told once, so conditions such as "connected within 90 s" (just started:
        # look around before napping) mean what they say.
        info = getattr(robot, "info", None)
        self.heartbeat.post(ev.Connected(loop.time(), firmware_version=getattr(info, "firmware_version", 0)))

    def _head_deg(self) -> float | None:
        state = self.robot.state
        return None if state is None else state.proprioception.head_angle_rad * 57.29577951308232

    def _new_mood(self, overrides: Any) -> Any:
        from .mood import EmotionEvent, Mood

        if self.base_mood_config is None:
            return None
        config = overrides.apply_config(self.base_mood_config) if overrides is not None else self.base_mood_config
        return Mood(config, [EmotionEvent.from_record(e) for e in mood_event_records(self.resources)])

    def load(self) -> None:
        """Load (or reload) the personality; raises PersonalityError and leaves the old one running."""
        from .personality import load_personality

        personality = load_personality(self.personality_path, self.ctx)
        mood = self._new_mood(personality.mood)
        if mood is not None:
            personality.mood.apply_initial(mood, self.ctx.clock())
            if self.personality is not None and self.ctx.mood is not None:
                for emotion, value in self.ctx.mood.values.items():
                    if emotion not in personality.mood.initial:
                        mood.set_value(emotion, value, self.ctx.clock())
        if self.personality is not None:
            self.root.stop(py_trees.common.Status.INVALID)
            self.reactions.clear()
        self.ctx.mood = mood
        self.heartbeat.mood = mood
        self.root.set_tree(personality.root)
        self.personality = personality
        self.heartbeat.set_tree(self.root)
        log.info("personality %s loaded (%d reactions)", personality.name, len(personality.reactions))

    def _on_events(self, events: list[ev.RobotEvent], now: float) -> None:
        for event in events:
            self.ctx.push_event(event)
            if self.personality is None:
                continue
            reaction = self.personality.reaction_for(event)
            if reaction is not None:
                self.reactions.offer(reaction)

    def _describe(self) -> tuple[str, str]:
        tip = self.root.tip()
        names: list[str] = []
        node = tip
        while node is not None and node is not self.root:
            names.append(node.name)
            node = node.parent
        branch = " > ".join(reversed(names))
        if self.reactions.active is not None:
            return f"reaction > {branch_of(self.reactions.active.root)}", f"reaction to {self.reactions.active.trigger}"
        why = self.ctx.branch.get("why") or self.ctx.branch.get("behavior")
        if not why and self.ctx.mood is not None:
            why = f"mood {self.ctx.mood.simple_mood().value}"
        return branch, str(why or "")

    def _publish(self, snap: Snapshot) -> None:
        if log.isEnabledFor(logging.DEBUG):
            log.debug("beat %d: %s | mood %s | events %s | hazard %s", snap.beat, snap.branch, snap.mood,
                      snap.events, snap.hazard)

    def close(self) -> None:
        """Detach from the robot."""
        self._remove()
        self.safety.close()
        self.root.stop(py_trees.common.Status.INVALID)


def mood_event_records(resources: Any) -> list[Any]:
    """The emotion-event records a running mood needs besides its config's own.

    Those are the ``emotionevents/`` files plus the events behaviours and activities define inline
    in their ``eventMapper`` blocks; the mood config's block is parsed with the config itself, so
    it is left out here to avoid defining those events twice.
    """
    mood_record = getattr(resources, "mood", None)
    mood_file = mood_record.origin.path if mood_record is not None else None
    records = list(resources.emotion_events.values())
    records += [e for name, e in getattr(resources, "mapped_events", {}).items()
                if name not in resources.emotion_events and e.origin.path != mood_file]
    return records


def _mood_config(resources: Any) -> Any:
    from .mood import MoodConfig

    record = getattr(resources, "mood", None)
    return MoodConfig.from_record(record) if record is not None else None


def _load_resources(roots: list[Path]) -> Any:
    from .assets.resource_set import ResourceSet

    log.info("loading resources from %s", ", ".join(str(r) for r in roots) or "(none)")
    resources = ResourceSet.load(roots)
    errors = [i for i in resources.issues if getattr(i.severity, "name", str(i.severity)).upper() == "ERROR"]
    log.info("resources: %s in %.2f s%s", ", ".join(f"{v} {k}" for k, v in resources.counts().items() if v),
             resources.load_seconds, f"; {len(errors)} errors (run `cozmo-brain check`)" if errors else "")
    return resources


def validate_before_start(personality: Path, resources: Any) -> list[str]:
    """Every error that would stop the brain from starting, as ``file:line: key: message`` lines.

    Run before the simulator starts or the robot is contacted, so a broken personality (or mood
    configuration) ends ``run`` at once instead of after a connection attempt.
    """
    from .assets import Severity
    from .mood import MoodConfigError
    from .personality import check_personality, format_issue

    errors = [format_issue(i) for i in check_personality(personality, resources) if i.severity >= Severity.ERROR]
    try:
        _mood_config(resources)
    except MoodConfigError as exc:
        errors.append(f"mood configuration: {exc}")
    return errors


async def run_brain(cfg: Config, *, sim: bool, robot_addr: tuple[str, int] | None, personality: Path,
                    roots: list[Path], duration: float | None, sim_script: list[Any], audio: bool = False) -> int:
    """Run one brain until stopped; returns the exit code."""
    from .personality import PersonalityError

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
        resources = _load_resources(roots)
        errors = validate_before_start(personality, resources)
        if errors:
            log.error("cannot load the personality:\n%s", "\n".join(errors))
            return 1
        if sim:
            simulator = await SimulatedCozmo("127.0.0.1", 0, script=sim_script, play_audio=audio).start()
            robot_addr = simulator.address
        assert robot_addr is not None
        robot = Robot(*robot_addr, lost_after=cfg.lost_after_s)
        await robot.connect()
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
    from .personality import PersonalityError

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
    personality = Path(args.personality) if args.personality else cfg.personality
    if not personality.is_file():
        log.error("%s: personality file not found", personality)
        return 1
    roots = [Path(r).expanduser() for r in args.resources] if args.resources else cfg.resource_roots()
    for root in roots:
        if not root.is_dir():
            log.error("%s: resource folder not found", root)
            return 1
    return asyncio.run(run_brain(cfg, sim=args.sim, robot_addr=robot_addr, personality=personality,
                                 roots=roots, duration=args.duration, sim_script=script,
                                 audio=bool(getattr(args, "audio", False))))
