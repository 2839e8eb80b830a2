"""``cozmo-brain run``: one robot's brain as a long-running service, from start-up to a clean stop.

Start-up (:class:`~brain.app.startup.BrainStack`): config → resource set → personality check →
robot (or the in-process simulator with ``--sim``) → animation controller → brain. A broken
personality (or mood configuration) ends ``run`` at once with exit code 1 and
``file:line: key: message`` lines, before anything touches the network.

While running:

- an edit of the personality file (or of a YAML file beside it) reloads the personality;
  SIGHUP re-reads the config file too, then reloads the personality. What can change live
  changes (``logging.level``, ``heartbeat_hz``, ``personality``); what cannot (the robot's
  address, resources, the frame clock …) is named in one log line. A broken edit is reported
  and the running personality stays.
- a lost robot suspends the personality until the robot is back (see :mod:`brain.engine`); the
  daemon never exits because of it.
- the daemon's own tasks (heartbeat, file watcher, reloader) are supervised: one that dies is
  logged with its traceback and ends the process with exit code 1, for the service manager to
  restart it (:mod:`brain.app.supervise`).
- under systemd (``$NOTIFY_SOCKET``) it reports READY, STATUS, RELOADING, STOPPING and watchdog
  keep-alives (:mod:`brain.app.notify`).

``--dashboard HOST:PORT`` (or ``dashboard.address``) serves the live dashboard from this event
loop (:mod:`brain.dashboard`); it listens before the robot is reached, so the page can say it waits.

``--record FILE`` writes every datagram of the robot's connection to FILE (see
:mod:`driver.capture.recorder`; ``record.max_mb`` and ``record.files`` bound it).

SIGTERM or SIGINT (or the end of ``--duration``) stops it: the tree stops, the controller
stops, the motors stop, the face goes neutral and the link says goodbye once; exit code 0. A
second SIGTERM or SIGINT exits at once with 128 + the signal number.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import functools
import gc
import logging
import os
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, TypeVar

from ..engine import Brain
from ..heartbeat import Snapshot
from .config import Config, ConfigError, load_config, parse_dashboard_address, parse_robot_address
from .notify import Notifier
from .startup import BrainStack, RobotOptions, StartupError
from .supervise import Supervisor, install_exception_handler
from .watch import Stamps, stamps, watch_personality, watched_files

if TYPE_CHECKING:
    from driver.robot import Robot

__all__ = ["Daemon", "RunOptions", "run_command", "run_settings"]

log = logging.getLogger("cozmo_brain")

T = TypeVar("T")

#: Settings that a SIGHUP applies to the running daemon.
LIVE_SETTINGS = ("log_level", "heartbeat_hz", "personality", "vision")
#: Config fields by the name they have in config.yaml (others are shown by their field name).
YAML_NAMES = {
    "robot_host": "robot.host", "robot_port": "robot.port", "lost_after_s": "robot.lost_after_s",
    "reconnect_initial_s": "robot.reconnect_initial_s", "reconnect_max_s": "robot.reconnect_max_s",
    "connect_timeout_s": "robot.connect_timeout_s", "frame_clock_priority": "frame_clock.priority",
    "frame_clock_cpu": "frame_clock.cpu", "log_level": "logging.level",
    "record_max_mb": "record.max_mb", "record_files": "record.files",
    "dashboard_address": "dashboard.address", "dashboard_token": "dashboard.token",
    "dashboard_allow_control": "dashboard.allow_control", "vision": "vision",
}


@dataclass
class RunOptions:
    """What the command line says; it wins over the config file."""

    config: str | None = None
    sim: bool = False
    robot: tuple[str, int] | None = None
    personality: Path | None = None
    resources: list[Path] | None = None
    duration: float | None = None
    sim_script: list[Any] = dataclasses.field(default_factory=list)
    audio: bool = False
    #: write every datagram of the robot's connection here (``--record``)
    record: Path | None = None
    #: -v or -q was given: the config's logging.level does not apply
    log_level_fixed: bool = False
    #: serve the dashboard here (``--dashboard``; else the config's ``dashboard.address``)
    dashboard: tuple[str, int] | None = None
    #: False with ``--no-vision``: the camera stays off whatever the config says
    vision: bool = True
    #: ``--seed``: the brain's and the animation controller's random choices (None: random)
    seed: int | None = None

    def apply(self, cfg: Config) -> Config:
        """``cfg`` with the command line's settings put over it."""
        changes: dict[str, Any] = {}
        if self.personality is not None:
            changes["personality"] = self.personality
        if self.resources is not None:
            changes["resources"] = list(self.resources)
        if self.robot is not None:
            changes["robot_host"], changes["robot_port"] = self.robot
        return dataclasses.replace(cfg, **changes)


class Daemon:
    """One ``run``: start-up, the running service (reload, supervision, notifications), shutdown."""

    def __init__(self, cfg: Config, options: RunOptions, *, notifier: Notifier | None = None,
                 open_link: Callable[..., Any] | None = None, handle_signals: bool = True,
                 inline: bool = False) -> None:
        """``open_link`` replaces the UDP link to the robot (the in-memory network of a run on a
        virtual clock; see :meth:`driver.robot.Robot.connect`). ``handle_signals`` False leaves the
        process's signals alone: a host running the daemon inside its own process passes what
        would have been a signal to :meth:`deliver`. ``inline`` does on the loop's thread what
        would otherwise go to a worker thread (each camera frame's analysis as it arrives, a
        reload's parse and build), so that it keeps step with a virtual clock (in real time a
        thread of its own keeps the loop free)."""
        self.options = options
        self.cfg = options.apply(cfg)
        self.notifier = notifier or Notifier.from_environ()
        self.open_link = open_link
        self.handle_signals = handle_signals
        self.inline = inline
        self.stop = asyncio.Event()
        self.exit_code = 0
        self.brain: Brain | None = None
        self.supervisor = Supervisor(self._task_failed)
        self._reload = asyncio.Event()
        self._reread_config = False
        self._stopping = False
        self._reported_suspended = False
        #: told the outcome of every personality reload: None, or the errors (``file:line: key: message``)
        self.reload_listeners: list[Callable[[str | None], None]] = []
        self._reload_waiters: list[asyncio.Future[str | None]] = []
        #: the personality's files as the last reload read them: a file that reload brought in is
        #: watched from that state, so an edit made before the watcher's next look still counts
        self._loaded_stamps: Stamps = {}
        self.dashboard: Any = None
        #: the face detector of the last vision started (kept for the next: building one takes a while)
        self._face_detector: Any = None

    # ------------------------------------------------------------------ the run

    async def run(self) -> int:
        """Run until stopped; returns the exit code."""
        loop = asyncio.get_running_loop()
        install_exception_handler(loop)
        if self.handle_signals:
            self._install_signals(loop)
        cfg = self.cfg
        stack = BrainStack(
            cfg.personality, cfg.resource_roots(), heartbeat_hz=cfg.heartbeat_hz, robot=RobotOptions.from_config(cfg),
            controller_options={"release_priority": cfg.frame_clock_priority or None,
                                "release_cpu": cfg.frame_clock_cpu},
            sound_cache=cfg.sound_cache, seed=self.options.seed)
        simulator: Any = None
        recorder: Any = None
        try:
            stack.prepare()
            if self.stop.is_set():
                return self.exit_code
            address = (cfg.robot_host, cfg.robot_port)
            if self.options.sim:
                from driver.sim.server import SimulatedCozmo

                simulator = await SimulatedCozmo("127.0.0.1", 0, script=self.options.sim_script, record_limit=0,
                                                 play_audio=self.options.audio).start()
                address = simulator.address
            if not await self._open_dashboard(simulator):
                return 1
            open_link = self.open_link
            if self.options.record is not None:
                recorder = self._recorder(self.options.record, address)
                if recorder is None:
                    return 1
                from driver.link import Link

                open_link = functools.partial(open_link or Link.open, tap=recorder.engine_tap)
            self.notifier.status(f"connecting to the robot at {address[0]}:{address[1]}", force=True)
            brain = await self._unless_stopped(stack.start(
                address, open_link=open_link, before_connect=self._start_vision,
                before_build=functools.partial(_set_aside_heap, "started")))
            if brain is None:
                log.info("stopped before the robot answered")
                return self.exit_code
            self.brain = brain
            if self.dashboard is not None:
                self.dashboard.attach(brain)
            self._serve(brain)
            await self.stop.wait()
            self.notifier.stopping("stopping")
            hb = brain.heartbeat.stats
            log.info("stopped after %d beats (median beat %.2f ms, %d missed); %d reactions; safety stops: %d",
                     hb.beats, hb.median_tick_ms(), hb.missed, brain.reactions.handled, brain.safety.stops)
            _log_frames(brain)
            return self.exit_code
        except StartupError as exc:
            log.error("%s", exc)
            return 1
        finally:
            self.notifier.stopping()
            if self.dashboard is not None:
                await self.dashboard.close()
            await self.supervisor.close()
            await stack.close()
            if simulator is not None:
                await simulator.stop()
            if recorder is not None:
                recorder.close()
                log.info("recorded %d datagrams to %s", recorder.datagrams, self.options.record)
            self.notifier.close()

    def _start_vision(self, robot: Robot, detector: Any = None, *, asked: bool = False) -> None:
        """Stream the camera into vision as the settings say (the Robot switches it on once connected
        and again after a reconnect). Called before the robot is contacted: loading the face
        detector takes a third of a second, which would otherwise hold the loop while states stream.
        ``detector``, a stopped pipeline's face detector, is used again when faces are still wanted.
        ``asked``: the dashboard switched the camera on, whatever ``vision.enabled`` says."""
        settings = self.cfg.vision
        if not asked and (not self.options.vision or not settings.enabled):
            log.info("vision off (%s)", "--no-vision" if not self.options.vision else "vision.enabled is false")
            return
        from driver.vision import VisionConfig

        config = VisionConfig(face_detector="dlib_hog" if settings.faces else None,
                              face_search_interval_s=settings.face_interval_s,
                              face_search_still_interval_s=settings.face_still_interval_s, motion=settings.motion,
                              motion_interval_s=settings.motion_interval_s, inline=self.inline)
        kept = detector is not None and settings.faces
        vision = robot.start_vision(config, color=settings.color, face_detector=detector if kept else "config")
        self._face_detector = vision.face_detector or detector
        log.info("vision on: %s camera, faces %s%s, motion %s", "colour" if settings.color else "grey",
                 _every(settings.face_interval_s) if settings.faces else "off",
                 " (the face detector kept)" if kept else "",
                 _every(settings.motion_interval_s) if settings.motion else "off")

    def _camera_on(self) -> None:
        """The dashboard's "camera on": the camera and its vision as the settings say, with the
        face detector the last vision had (the dashboard's "camera off" stopped it)."""
        if self.brain is not None:
            self._start_vision(self.brain.robot, self._face_detector, asked=True)

    async def _restart_vision(self, brain: Brain) -> None:
        """New vision settings from a re-read config: stop the camera and its vision, start them as
        now set. The face detector is handed on: building it again would hold the running daemon
        for half a second."""
        await brain.robot.stop_vision()
        self._start_vision(brain.robot, self._face_detector)

    def _recorder(self, path: Path, address: tuple[str, int]) -> Any:
        """The recording of the robot's traffic for ``--record`` (None, said why, when it cannot be written)."""
        from driver.capture.recorder import CaptureRecorder

        cfg = self.cfg
        try:
            recorder = CaptureRecorder(path, max_bytes=int(cfg.record_max_mb * 1e6), keep=cfg.record_files,
                                       peer=f"{address[0]}:{address[1]}")
        except OSError as exc:
            log.error("--record %s: cannot write: %s", path, exc.strerror or exc)
            return None
        log.info("recording the robot's traffic to %s (%g MB a file, %d older files kept)", path,
                 cfg.record_max_mb, cfg.record_files)
        return recorder

    async def _open_dashboard(self, simulator: Any) -> bool:
        """Serve the dashboard if asked (``--dashboard``, ``dashboard.address``); False (said why) if it cannot."""
        cfg = self.cfg
        address = self.options.dashboard
        if address is None and cfg.dashboard_address is not None:
            address = parse_dashboard_address(cfg.dashboard_address, "dashboard.address")
        if address is None:
            return True
        from ..dashboard import DashboardError, open_dashboard

        try:
            self.dashboard = await open_dashboard(
                *address, token=cfg.dashboard_token, allowed=self.options.sim or cfg.dashboard_allow_control,
                simulator=simulator, reload=self.reload_now, clock=asyncio.get_running_loop().time,
                camera_on=self._camera_on)
        except DashboardError as exc:
            log.error("%s", exc)
            return False
        self.reload_listeners.append(self.dashboard.reloaded)
        return True

    async def reload_now(self) -> str | None:
        """Reload the personality (as SIGHUP does, without re-reading the config); None or the errors."""
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._reload_waiters.append(future)
        self._reload.set()
        return await future

    def _serve(self, brain: Brain) -> None:
        """Start the heartbeat, the file watcher and the reloader, and tell systemd the daemon is up."""
        hb = brain.heartbeat
        hb.subscribe("snapshot", self._report)
        hb.subscribe("on_time", lambda period: self.notifier.watchdog(slack_s=period / 2))
        self.supervisor.spawn(self._beat(brain), "heartbeat", may_end=True)
        self.supervisor.spawn(self._watch(brain), "personality watcher")
        self.supervisor.spawn(self._reloader(brain), "reloader")
        duration = self.options.duration
        seed = self.options.seed
        log.info("running %s at %.0f Hz%s%s", self.cfg.personality.name, hb.rate_hz,
                 f" for {duration:.0f} s" if duration else " (Ctrl-C stops)", "" if seed is None else f", seed {seed}")
        self.notifier.ready(f"running {brain.personality.name}")

    def _report(self, snap: Snapshot) -> None:
        """STATUS= after each beat: a suspension and its end at once, other changes at most once a second."""
        suspended = snap.branch.startswith("suspended (")
        self.notifier.status(_status_line(snap.branch, snap.why), force=suspended != self._reported_suspended)
        self._reported_suspended = suspended

    async def _beat(self, brain: Brain) -> None:
        await brain.heartbeat.run(self.stop, self.options.duration)
        self.stop.set()

    async def _unless_stopped(self, work: Awaitable[T]) -> T | None:
        """``await work``, unless a stop comes first (then ``work`` is cancelled and None returned)."""
        task = asyncio.ensure_future(work)
        stopped = asyncio.ensure_future(self.stop.wait())
        await asyncio.wait({task, stopped}, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            stopped.cancel()
            return task.result()
        task.cancel()
        try:
            await task
        except (asyncio.CancelledError, Exception) as exc:
            log.debug("start-up cancelled: %r", exc)
        return None

    def _task_failed(self, name: str) -> None:
        self.exit_code = 1
        self.stop.set()

    # ------------------------------------------------------------------ signals

    def deliver(self, sig: signal.Signals) -> None:
        """What the daemon does when ``sig`` reaches it: SIGINT or SIGTERM stop it, SIGHUP reloads.

        The signal handlers call this; a host running the daemon in its own process (with
        ``handle_signals`` False) calls it in their place, on the loop's thread.
        """
        if sig is signal.SIGHUP:
            self._on_hangup()
        elif sig in (signal.SIGINT, signal.SIGTERM):
            self._on_stop_signal(sig)
        else:
            raise ValueError(f"the daemon does not handle {sig.name}")

    def _install_signals(self, loop: asyncio.AbstractEventLoop) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self._on_stop_signal, sig)
        loop.add_signal_handler(signal.SIGHUP, self._on_hangup)

    def _on_stop_signal(self, sig: signal.Signals) -> None:
        if self._stopping:  # two signals reached the loop together
            if self.handle_signals:
                _exit_now(sig, None)
            return
        self._stopping = True
        log.info("%s: stopping (a second signal exits at once)", sig.name)
        self.notifier.stopping("stopping")
        self.stop.set()
        if self.handle_signals:
            for s in (signal.SIGINT, signal.SIGTERM):
                # A plain handler, not through the loop: it runs even while the loop is stuck.
                signal.signal(s, _exit_now)

    def _on_hangup(self) -> None:
        log.info("SIGHUP: re-reading the configuration and reloading the personality")
        self._reread_config = True
        self._reload.set()

    # ------------------------------------------------------------------ reload

    async def _watch(self, brain: Brain) -> None:
        """Ask for a reload when a file of the personality changes (see
        :func:`~brain.app.watch.watch_personality`)."""

        def changed() -> None:
            log.info("personality files changed; reloading")
            self._reload.set()

        await watch_personality(brain, lambda: self._loaded_stamps, changed)

    async def _reloader(self, brain: Brain) -> None:
        from ..personality import PersonalityError

        while True:
            await self._reload.wait()
            self._reload.clear()
            waiters, self._reload_waiters = self._reload_waiters, []
            self.notifier.reloading()
            if self._reread_config:
                self._reread_config = False
                if self._apply_config(brain):
                    await self._restart_vision(brain)
            error: str | None = None
            try:
                if self.inline:
                    personality = brain.build()
                else:  # parsed and built beside the loop, which goes on sending frames meanwhile
                    personality = await asyncio.get_running_loop().run_in_executor(None, brain.build)
                brain.install(personality)
                status = f"running {brain.personality.name}"
            except PersonalityError as exc:
                log.error("reload failed, keeping the running personality:\n%s", exc)
                status = f"reload failed, running {brain.personality.name}"
                error = str(exc)
            self._loaded_stamps = stamps(watched_files(brain))
            gc.collect()  # the replaced tree, held in cycles; only what was not set aside is walked
            self.notifier.ready(status)
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(error)
            for listener in list(self.reload_listeners):
                listener(error)

    def _apply_config(self, brain: Brain) -> bool:
        """Re-read the config file; apply what can change live, name what needs a restart.

        True when the vision settings changed (the caller restarts the vision, which takes a wait).
        """
        try:
            new = self.options.apply(load_config(self.options.config))
        except ConfigError as exc:
            log.error("config not re-read, keeping the running settings: %s", exc)
            return False
        old, self.cfg = self.cfg, new
        changed = [f.name for f in dataclasses.fields(Config)
                   if f.name != "source" and getattr(old, f.name, None) != getattr(new, f.name, None)]
        applied = []
        if "log_level" in changed and not self.options.log_level_fixed:
            logging.getLogger().setLevel(new.log_level)
            applied.append(f"logging.level {new.log_level}")
        if "heartbeat_hz" in changed:
            brain.set_rate(new.heartbeat_hz)
            applied.append(f"heartbeat_hz {new.heartbeat_hz:g}")
        if "personality" in changed:
            brain.personality_path = new.personality
            applied.append(f"personality {new.personality}")
        if "vision" in changed:
            applied.append("vision")
        restart = [YAML_NAMES.get(name, name) for name in changed if name not in LIVE_SETTINGS]
        where = new.source or old.source or "defaults"
        log.info("config %s re-read: %s", where, ", ".join(applied) if applied else "nothing to change live")
        if restart:
            log.warning("config %s: %s changed; takes effect after a restart", where, ", ".join(restart))
        return "vision" in changed


def _status_line(branch: str, why: str) -> str:
    return f"{branch or 'idle'}{f' - {why}' if why else ''}"


def _exit_now(signum: int, frame: FrameType | None) -> None:
    os.write(2, f"{signal.Signals(signum).name} again: exiting at once\n".encode())
    os._exit(128 + signum)


def run_command(args: argparse.Namespace) -> int:
    """``cozmo-brain run``."""
    settings = run_settings(args)
    if isinstance(settings, int):
        return settings
    cfg, options = settings

    async def main() -> int:
        return await Daemon(cfg, options).run()

    return asyncio.run(main())


def run_settings(args: argparse.Namespace) -> tuple[Config, RunOptions] | int:
    """The config and the options ``run``'s command line gives, or the exit code when they are
    wrong (said in the log). Sets the root logger's level from the config unless -v or -q did."""
    try:
        cfg = load_config(args.config)
        robot = None if args.sim or not args.robot else parse_robot_address(args.robot, cfg.robot_port)
        script: list[Any] = []
        if args.sim_script:
            from driver.sim.script import ScriptError, load_script

            try:
                script = load_script(args.sim_script)
            except ScriptError as exc:
                raise ConfigError(str(exc)) from None
    except ConfigError as exc:
        log.error("%s", exc)
        return 1
    if args.sim_script and not args.sim:
        log.error("--sim-script needs --sim")
        return 2
    if args.duration is not None and args.duration <= 0:
        log.error("--duration must be positive")
        return 2
    dashboard = None
    if getattr(args, "dashboard", None):
        try:
            dashboard = parse_dashboard_address(args.dashboard)
        except ConfigError as exc:
            log.error("%s", exc)
            return 2
    fixed = bool(args.verbose or args.quiet)
    if not fixed:
        logging.getLogger().setLevel(cfg.log_level)
    try:
        personality = cfg.select_personality(args.personality)
        roots = cfg.resource_roots(args.resources)
    except ConfigError as exc:
        log.error("%s", exc)
        return 1
    options = RunOptions(
        config=args.config, sim=args.sim, robot=robot, personality=personality if args.personality else None,
        resources=roots if args.resources else None, duration=args.duration, sim_script=script,
        audio=bool(getattr(args, "audio", False)), log_level_fixed=fixed, dashboard=dashboard,
        record=Path(args.record) if getattr(args, "record", None) else None, vision=getattr(args, "vision", True),
        seed=getattr(args, "seed", None))
    return cfg, options


def _every(interval_s: float) -> str:
    """How often a detector runs, for the log: ``every frame`` or ``every 0.3 s``."""
    return "every frame" if interval_s <= 0 else f"every {interval_s:g} s"


def _set_aside_heap(why: str) -> None:
    """Leave everything alive now out of the garbage collector's full walks.

    A running daemon holds some 50,000 objects from its start (modules, resources, the robot,
    the dashboard) that live as long as it does. Every full collection walked them all again,
    holding the interpreter 20-50 ms here (more on a Raspberry Pi), and the frame-release thread
    cannot send while it is held: with the dashboard's history growing beat by beat such a
    collection came every minute or two. Frozen (``gc.freeze``), they are skipped, and full walks
    see only what came after. Nothing is collected first (that walk alone is such a pause, as
    the first frames go out; what little start-up left as garbage stays). Called just before the
    personality's tree is built, so the tree (a few thousand objects) stays outside: a reload
    frees the tree it replaced with a collection that walks only what was not set aside, about
    2 ms instead of the 30 ms of a walk over everything (:meth:`Daemon._reloader`).
    """
    gc.freeze()
    log.debug("heap %s: %d objects kept out of the collector's walks", why, gc.get_freeze_count())


def _log_frames(brain: Any) -> None:
    """At the stop, how the 30 fps animation stream went: what a user needs to tell a robot that
    stuttered from one that had nothing to show (frames not sent because nothing changed)."""
    ctl = brain.controller.stats
    link = brain.robot.link
    released = ""
    if link is not None:
        ls = link.stats
        released = f"; {ls.late_releases} released over 1 ms late (worst {ls.max_release_late_ms:.1f} ms)"
    log.info("animation frames: %d sent, %d quiet (nothing new), %d held for the robot's buffer, %d missed, "
             "%d prepared after their time%s", ctl.frames, ctl.quiet_frames, ctl.held_frames, ctl.missed_frames,
             ctl.late_frames, released)
