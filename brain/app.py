"""``cozmo-brain run``: one robot's brain, from start-up to a clean stop.

Start-up: config → resource set → robot (or the in-process simulator) → safety layer → animation
controller → mood → personality. Then the heartbeat runs until ``--duration`` ends, SIGINT or
SIGTERM; SIGHUP, or an edit of the personality file, reloads the personality, and a broken edit
keeps the old one running and says why. At the end the motors stop and the link says goodbye.

Reactions run above the personality's own tree: the brain's root is a priority selector whose
first child runs the active reaction (if any) and whose second is the personality. A reaction
therefore interrupts whatever the tree was doing on the very tick its event is drained, and when
it ends the personality's tree takes over again from its top, which resumes the interrupted
branch when its conditions still hold.
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
from .safety import Safety

log = logging.getLogger("cozmo_brain")


class ReactionRunner(py_trees.behaviour.Behaviour):
    """Runs the active reaction's subtree; FAILURE when there is none, so the personality runs.

    A new reaction replaces the active one only at a strictly higher priority; the same trigger
    firing again while it runs is ignored (a robot held in the air keeps reporting it).
    """

    def __init__(self, ctx: BrainContext) -> None:
        super().__init__(name="Reactions")
        self.ctx = ctx
        self.active: Any = None
        self.handled = 0

    def offer(self, reaction: Any) -> bool:
        """Start ``reaction`` if nothing more important is running; True when it was taken."""
        if self.active is not None:
            if reaction.trigger == self.active.trigger or reaction.priority <= self.active.priority:
                return False
            self.active.root.stop(py_trees.common.Status.INVALID)
        self.active = reaction
        self.handled += 1
        self.ctx.fire_emotion(reaction.trigger)
        log.info("reaction %s (priority %d)", reaction.trigger, reaction.priority)
        return True

    def update(self) -> py_trees.common.Status:
        if self.active is None:
            return py_trees.common.Status.FAILURE
        root = self.active.root
        for _ in root.tick():
            pass
        if root.status in (py_trees.common.Status.SUCCESS, py_trees.common.Status.FAILURE):
            log.info("reaction %s finished (%s)", self.active.trigger, root.status.value)
            self.active = None
            root.stop(py_trees.common.Status.INVALID)
            return py_trees.common.Status.SUCCESS
        return py_trees.common.Status.RUNNING

    def terminate(self, new_status: py_trees.common.Status) -> None:
        if new_status == py_trees.common.Status.INVALID and self.active is not None:
            self.active.root.stop(py_trees.common.Status.INVALID)


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
        self.root = py_trees.composites.Selector("Brain", memory=False)
        self.heartbeat = Heartbeat(
            None, rate_hz=heartbeat_hz, mood=self.ctx.mood, handlers=[self._on_events],
            describe=self._describe, hazard=lambda: self.safety.hazard, on_snapshot=self._publish,
            clock=loop.time,
        )
        self._remove = robot.add_listener(self.heartbeat.post)

    def _head_deg(self) -> float | None:
        state = self.robot.state
        return None if state is None else state.proprioception.head_angle_rad * 57.29577951308232

    def _new_mood(self, overrides: Any) -> Any:
        from .mood import EmotionEvent, Mood

        if self.base_mood_config is None:
            return None
        config = overrides.apply_config(self.base_mood_config) if overrides is not None else self.base_mood_config
        events = [EmotionEvent.from_record(e) for e in self.resources.emotion_events.values()]
        return Mood(config, events)

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
        old = self.personality
        if old is not None:
            self.root.stop(py_trees.common.Status.INVALID)
            self.root.remove_all_children()
        self.ctx.mood = mood
        self.heartbeat.mood = mood
        self.root.add_children([self.reactions, personality.root])
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
            return branch, f"reaction to {self.reactions.active.trigger}"
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


async def run_brain(cfg: Config, *, sim: bool, robot_addr: tuple[str, int] | None, personality: Path,
                    roots: list[Path], duration: float | None, sim_script: list[Any]) -> int:
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
        if sim:
            simulator = await SimulatedCozmo("127.0.0.1", 0, script=sim_script).start()
            robot_addr = simulator.address
        assert robot_addr is not None
        robot = Robot(*robot_addr, lost_after=cfg.lost_after_s)
        await robot.connect()
        controller = AnimationController(robot)
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
                                 roots=roots, duration=args.duration, sim_script=script))


def simulate_command(args: argparse.Namespace) -> int:
    """``cozmo-brain simulate``: offline, faster-than-real-time runs are not available yet."""
    log.error("`cozmo-brain simulate` is not available in this version; use `cozmo-brain run --sim --duration S`")
    return 1
