"""One start-up path for a robot's brain, shared by ``run`` and ``simulate``.

The steps are always the same: load the resource set, validate the personality (and the mood
configuration) before anything touches the network, connect the robot, start the 30 fps
animation controller, build the :class:`~brain.engine.Brain` and load the personality into it;
at the end, the reverse. ``run`` and ``simulate`` differ only in what is around these steps:
the transport (UDP, or an in-memory network), the clock (real, or virtual), signals, and how
they report. :class:`BrainStack` holds the steps; the simulator, when there is one, is the
caller's (``run --sim`` starts it between :meth:`BrainStack.prepare` and
:meth:`BrainStack.start`, so a broken personality is reported before it listens).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from driver.animation.controller import AnimationController
from driver.robot import Robot, RobotError

from ..engine import Brain

__all__ = ["BrainStack", "RobotOptions", "StartupError", "load_resources", "validate_before_start"]

log = logging.getLogger("cozmo_brain")

#: Config fields that go to the Robot as keyword arguments of the same name.
RECONNECT_SETTINGS = ("reconnect_initial_s", "reconnect_max_s", "connect_timeout_s")


class StartupError(RuntimeError):
    """The brain cannot start; the message says why (with ``file:line: key: message`` lines)."""


def load_resources(roots: list[Path]) -> Any:
    """The resource set of ``roots``, with a log line of what it holds and how many errors."""
    from ..assets.resource_set import ResourceSet

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
    from ..assets import Severity
    from ..personality import check_personality, format_issue

    errors = [format_issue(i) for i in check_personality(personality, resources) if i.severity >= Severity.ERROR]
    mood = getattr(resources, "mood", None)
    if mood is not None:  # what the loader left out of the mood config would change the mood silently
        errors += [f"mood configuration: {format_issue(i)}" for i in resources.issues
                   if i.severity >= Severity.ERROR and i.file == str(mood.origin)]
    return errors


@dataclass
class RobotOptions:
    """How to reach the robot and when to call it lost (``Config``'s ``robot.*`` settings)."""

    lost_after_s: float = 3.0
    #: further Robot keyword arguments (reconnect back-off, connect time-out) as the Robot takes them
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_config(cls, cfg: Any) -> RobotOptions:
        """The robot settings of a :class:`brain.app.config.Config` (those this Robot takes)."""
        takes = inspect.signature(Robot).parameters
        extra = {name: getattr(cfg, name) for name in RECONNECT_SETTINGS if hasattr(cfg, name) and name in takes}
        return cls(lost_after_s=cfg.lost_after_s, extra=extra)


class BrainStack:
    """Resources, robot, animation controller and brain of one robot, started and stopped in order.

    ``prepare()`` loads and validates (no network), ``await start(address)`` connects and loads
    the personality and returns the running :class:`~brain.engine.Brain`, ``await close()``
    stops everything that was started (whatever step start-up reached). ``controller_options``
    go to :class:`~driver.animation.controller.AnimationController` (e.g. the frame clock's
    priority and CPU); ``seed`` makes the brain's and the controller's choices reproducible;
    ``day_clock`` (seconds after local midnight) replaces the host's local time for the
    personality's schedule (``simulate`` runs a simulated day). ``preload_sounds`` False leaves
    every sound to be converted when a clip first asks for it: on a virtual clock that costs no
    simulated time, so converting the voice at every pitch up front would be work nobody sees.
    ``sound_cache`` is the folder where converted sounds are kept between runs (None: none).
    """

    def __init__(self, personality: Path, roots: list[Path], *, heartbeat_hz: float,
                 robot: RobotOptions | None = None, controller_options: dict[str, Any] | None = None,
                 seed: int | None = None, resource_loader: Callable[[list[Path]], Any] = load_resources,
                 day_clock: Callable[[], float] | None = None, preload_sounds: bool = True,
                 sound_cache: Path | None = None) -> None:
        self.personality = personality
        self.roots = roots
        self.heartbeat_hz = heartbeat_hz
        self.robot_options = robot or RobotOptions()
        self.controller_options = dict(controller_options or {})
        self.seed = seed
        self.resource_loader = resource_loader
        self.day_clock = day_clock
        self.preload_sounds = preload_sounds
        self.sound_cache = sound_cache
        self.resources: Any = None
        self.robot: Robot | None = None
        self.controller: AnimationController | None = None
        self.brain: Brain | None = None

    def prepare(self) -> None:
        """Load the resource set and validate the personality; raises :class:`StartupError`."""
        self.resources = self.resource_loader(self.roots)
        errors = validate_before_start(self.personality, self.resources)
        if errors:
            raise StartupError("cannot load the personality:\n" + "\n".join(errors))

    async def start(self, address: tuple[str, int], *, open_link: Callable[..., Any] | None = None,
                    before_connect: Callable[[Robot], None] | None = None,
                    before_build: Callable[[], None] | None = None) -> Brain:
        """Connect to the robot at ``address`` and start the brain; raises :class:`StartupError`.

        ``open_link`` replaces the UDP link (see :meth:`driver.robot.Robot.connect`).
        ``before_connect`` gets the Robot before it is contacted: work that would hold the event
        loop for a while (loading the face detector) is done there, not while the robot streams.
        ``before_build`` is called once the robot answered, just before the personality's tree is
        built (the daemon sets its heap aside from the collector there).
        """
        from ..personality import PersonalityError

        if self.resources is None:
            self.prepare()
        self.robot = Robot(*address, lost_after=self.robot_options.lost_after_s, **self.robot_options.extra)
        self.controller = AnimationController(self.robot, resources=self.roots, seed=self.seed,
                                              **self.controller_options)
        # before the robot is contacted: the personality starts as soon as the robot answers
        if self.preload_sounds:
            preload_voice(self.controller, self.sound_cache)
        if before_connect is not None:
            before_connect(self.robot)
        try:
            if open_link is None:
                await self.robot.connect()
            else:
                await self.robot.connect(open_link=open_link)
        except RobotError as exc:
            raise StartupError(str(exc)) from exc
        self.brain = Brain(self.robot, self.resources, self.personality, heartbeat_hz=self.heartbeat_hz,
                           controller=self.controller, seed=self.seed, day_clock=self.day_clock)
        if before_build is not None:
            before_build()
        try:
            self.brain.load()
        except PersonalityError as exc:
            raise StartupError(f"cannot load the personality:\n{exc}") from exc
        # the frame clock once the tree is built: building holds the loop for tens of milliseconds,
        # which a running clock would see as frames missed
        self.controller.start()
        return self.brain

    async def close(self) -> None:
        """Stop the brain, the controller and the vision, leave the robot still with a neutral face and
        its camera off, say goodbye.

        Each step only if start-up reached it; the robot gets its last commands only while it is
        connected (a lost robot is just told goodbye).
        """
        if self.brain is not None:
            self.brain.close()
        if self.controller is not None:
            await self.controller.stop()
        if self.robot is not None:
            # the camera off while the robot is still there, and the vision's account in the log
            await self.robot.stop_vision()
            if self.robot.connected:
                try:
                    self.robot.stop_all_motors()
                    self.robot.display_image(neutral_face_image())
                except RobotError as exc:
                    log.debug("could not stop the robot: %s", exc)
            await self.robot.disconnect()


def preload_voice(controller: AnimationController, cache: Path | None = None) -> None:
    """Convert the resources' sounds now, at every pitch the mood can give the voice, so no clip waits
    for a conversion on the event loop while the robot runs (before the frame clock starts).
    With a ``cache`` folder the conversions of earlier runs are read from it and new ones kept
    there (:mod:`driver.animation.sound_cache`).

    The resampling's scratch memory is handed back to the system afterwards: freed but kept by the
    allocator, it was a megabyte of the daemon's resident size for the rest of its life.
    """
    import time

    from driver.animation.sounds import SoundLibrary

    from ..voice import VOICE_PITCH, voice_pitch

    library = controller.audio_resolver
    if not isinstance(library, SoundLibrary):
        return
    started = time.perf_counter()
    if cache is not None:
        from driver.animation.sound_cache import SoundCache

        library.disk_cache = SoundCache(cache)
    pitches = {0.0, *(voice_pitch(mood) for mood in VOICE_PITCH)}
    count = library.preload(pitches)
    give_back_free_memory()
    if count:
        disk = library.disk_cache
        kept = f" ({disk.hits} from {disk.folder}, {disk.writes} converted and kept there)" if disk is not None else ""
        log.info("%d sounds ready at %d pitches in %.2f s%s", count, len(pitches), time.perf_counter() - started,
                 kept)


def give_back_free_memory() -> None:
    """Return the heap's free pages to the system where the C library can (glibc's
    ``malloc_trim``); elsewhere nothing happens."""
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)


def neutral_face_image() -> bytes:
    """The neutral procedural face, encoded for the robot's display."""
    from driver.animation.expressions import expression
    from driver.animation.face_images import FaceRenderer

    return FaceRenderer().display_bytes(expression("neutral"))
