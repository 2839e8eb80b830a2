"""The personality engine of one robot: context, mood, tree, reactions and the heartbeat.

:class:`Brain` ties a connected :class:`~driver.robot.Robot` to a personality. Reactions run above
the personality's own tree (:class:`brain.nodes.reactions.ReactiveRoot`): a reaction interrupts
whatever the tree was doing on the very tick its event is drained. The interrupted branch is
suspended, not reset; when a reaction with ``shouldResumeLast`` ends, the branch resumes where it
was (a memory sequence on its step, the interrupted animation replayed), and when one without it
ends, the tree is evaluated again from its top.

When the robot is lost (:class:`driver.events.RobotLost`, or the link closes) the brain stops what
the animation controller plays (:meth:`~driver.animation.controller.AnimationController.stop_all`),
stops the tree and its reactions, and suspends the heartbeat's ticking; the heartbeat itself keeps
beating. When the robot is back (:class:`driver.events.Reconnected`: the Robot ran its start-up
sequence again and the robot streams state) the motors are stopped and the tree starts again from
its top, in the very beat that drains the event, so conditions and reactions can react to
``reconnected``. Suspension and resumption
happen on a beat, like every other change of the tree.

The brain keeps the personality's schedule (:mod:`brain.rhythm`) on a day clock (the host's local
time, or a simulated day): conditions see the quiet hours and the night, reactions hear them begin
and end, and during quiet hours the robot plays no sound and does not drive, whatever the tree asks.

The application (``brain.app``) builds a Brain for ``run`` and for ``simulate``; nothing here knows
about command lines, signals or the simulator.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import py_trees

from driver import events as ev
from driver.animation.controller import AnimationController
from driver.animation.timeline import FPS
from driver.robot import Robot, RobotError

from .animations import AnimationLibrary
from .arousal import TIRING_PACE
from .context import BrainContext
from .cube_lights import CubeLights
from .heartbeat import Heartbeat, Snapshot
from .needs import NeedsConfig, load_needs_config
from .nodes.explain import choice_path, explain_branch
from .nodes.reactions import ReactiveRoot, branch_of
from .reactions import ReactionRunner
from .rhythm import DayRhythm, HeldWheels, host_time_of_day
from .safety import Safety
from .voice import voice_pitch

if TYPE_CHECKING:
    from .personality.loader import Personality

__all__ = ["Brain", "mood_event_records"]

#: Robot events after which the robot is not there; the tree is suspended until it is back.
LOST_EVENTS = (ev.RobotLost, ev.Disconnected)
#: Robot events that say it is back, started up again.
BACK_EVENTS = (ev.Reconnected,)
#: Animation tracks held during quiet hours: no sound, no driving (face, head, lift and lights play).
QUIET_TRACKS = ("audio", "body")

log = logging.getLogger("cozmo_brain")


class Brain:
    """The personality of one robot: context, mood, tree, reactions and the heartbeat."""

    def __init__(self, robot: Robot, resources: Any, personality_path: Path, *, heartbeat_hz: float,
                 controller: AnimationController, seed: int | None = None,
                 day_clock: Callable[[], float] | None = None) -> None:
        loop = asyncio.get_running_loop()
        self.robot = robot
        self.resources = resources
        self.personality_path = personality_path
        self.controller = controller
        self.safety = Safety(robot)
        self.base_mood_config = _mood_config(resources)
        #: the personality's schedule on the local clock (the host's, unless ``day_clock`` is given)
        self.rhythm = DayRhythm(day_clock or host_time_of_day)
        self._quiet_lock: Any = None
        held = HeldWheels(robot, lambda: "quiet hours" if self.rhythm.quiet else None)
        self.ctx = BrainContext(robot=held, clock=loop.time, resources=resources, rng=random.Random(seed),
                                rhythm=self.rhythm)
        self.ctx.mood = self._new_mood(None)
        self.ctx.needs.configure(_needs_config(resources))
        self.ctx.cube_lights = CubeLights.from_resources(robot, resources)
        #: whether the cubes show that the robot sleeps (see _cubes_sleep)
        self._cubes_asleep = False
        self.ctx.animations = AnimationLibrary(
            resources, controller, clock=loop.time, rng=self.ctx.rng,
            simple_mood=lambda: self.ctx.mood.simple_mood().value if self.ctx.mood is not None else None,
            head_angle_deg=self._head_deg, voice_pitch=self._voice_pitch,
        )
        self.reactions = ReactionRunner(self.ctx)
        self.personality: Any = None
        #: the files the running personality and the last attempt to load one were read from: a
        #: running daemon reloads when one of them changes
        self.personality_files: tuple[Path, ...] = (personality_path,)
        self.root = ReactiveRoot("Brain", self.reactions, self.ctx)
        #: the decisions on the running branch the log last explained (see _explain)
        self._choices: frozenset[tuple[int, int]] = frozenset()
        #: whether the face shows it is tiring (see _tired_look)
        self._tired = False
        self.heartbeat = Heartbeat(
            None, rate_hz=heartbeat_hz, mood=self.ctx.mood, describe=self._describe, explain=self._explain,
            hazard=lambda: self.safety.hazard, clock=loop.time,
        )
        self._fit_beats()
        self.heartbeat.align = controller.next_beat_after
        self.heartbeat.before_beat = robot.poll_input
        self.heartbeat.subscribe("events", self._on_events)
        self.heartbeat.subscribe("snapshot", self._publish)
        self._remove = robot.add_listener(self.heartbeat.post)
        # The brain starts after the robot's start-up sequence, so it never hears that Connected
        # event; it is told once, so conditions such as "connected within 90 s" (just started:
        # look around before napping) mean what they say.
        info = getattr(robot, "info", None)
        self.heartbeat.post(ev.Connected(loop.time(), firmware_version=getattr(info, "firmware_version", 0)))

    def _voice_pitch(self) -> float:
        """The mood's colour on the voice (semitones) right now."""
        return voice_pitch(self.ctx.mood.simple_mood().value) if self.ctx.mood is not None else 0.0

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
        self.install(self.build())

    def build(self) -> Personality:
        """Read the personality file and build its tree, touching nothing that runs.

        Parsing and building hold the interpreter for tens of milliseconds; a reload calls this
        from a worker thread while the loop goes on ticking the running tree and sending frames,
        then :meth:`install` on the loop. Raises PersonalityError (the files it read are then
        watched for the fix, with those of the running personality).
        """
        from .personality import PersonalityError, load_personality

        running = self.personality.files if self.personality is not None else ()
        try:
            return load_personality(self.personality_path, self.ctx)
        except PersonalityError as exc:
            self.personality_files = tuple(dict.fromkeys([*exc.files, *running])) or (self.personality_path,)
            raise

    def install(self, personality: Personality) -> None:
        """Run ``personality`` (from :meth:`build`) in place of the running one: on the loop."""
        self.personality_files = personality.files
        mood = self._new_mood(personality.mood)
        if mood is not None:
            personality.mood.apply_initial(mood, self.ctx.clock())
            if self.personality is not None and self.ctx.mood is not None:
                for emotion, value in self.ctx.mood.values().items():
                    if emotion not in personality.mood.initial:
                        mood.set_value(emotion, value, self.ctx.clock())
        if self.personality is not None:
            self.root.stop(py_trees.common.Status.INVALID)
            self.reactions.clear()
        self.ctx.mood = mood
        self.heartbeat.mood = mood
        self.root.set_tree(personality.root)
        self.personality = personality
        self.rhythm.schedule = personality.schedule
        self.ctx.arousal.configure(personality.arousal)
        self.heartbeat.set_tree(self.root)
        log.info("personality %s loaded (%d reactions); %s", personality.name, len(personality.reactions),
                 personality.schedule.describe())

    @property
    def suspended(self) -> str | None:
        """Why the tree is not ticked (the robot is lost), or None."""
        return self.heartbeat.suspended

    def _on_events(self, events: list[ev.RobotEvent], now: float) -> None:
        for event in [*self._day(now), *events]:
            if isinstance(event, LOST_EVENTS):
                self._suspend(event)
            elif isinstance(event, BACK_EVENTS):
                self._resume(event)
            self.ctx.push_event(event)
            if self.personality is None or self.heartbeat.suspended is not None:
                continue
            reaction = self.personality.reaction_for(event)
            if reaction is not None and not self.ctx.held_reactions.get(reaction.trigger):
                self.reactions.offer(reaction)
        state = self.robot.state
        self.ctx.world.update(events, now, state.proprioception.pose if state is not None else None)
        self.ctx.arousal.on_charger = state is not None and state.battery.on_charger
        self.ctx.arousal.update(events, now)
        self.ctx.needs.update(now, connected=self.heartbeat.suspended is None,
                              on_charger=self.ctx.arousal.on_charger, events=events)
        self._tired_look()
        self._cubes_sleep(events, now)

    def _cubes_sleep(self, events: list[ev.RobotEvent], now: float) -> None:
        """The cubes follow the robot's sleep, as in the app: asleep, they play ``Sleep`` and then
        stay dark (``SleepNoFade``); awake again, ``WakeUp`` and then their ``Connected`` glow."""
        lights = self.ctx.cube_lights
        if lights is None:
            return
        lights.update(events, now)
        asleep = self.ctx.arousal.state == "asleep"
        if asleep != self._cubes_asleep:
            self._cubes_asleep = asleep
            lights.play("Sleep" if asleep else "WakeUp", now)
            lights.set_base("SleepNoFade" if asleep else "Connected", now)

    def _tired_look(self) -> None:
        """An awake robot nearing sleepy looks it: heavy eyelids, slow blinks; back when rested.
        Asleep or waking up, the sleep behaviours own the face."""
        a, anims = self.ctx.arousal, self.ctx.animations
        if a.state != "awake" or anims is None:
            self._tired = False
            return
        if a.tiring != self._tired:
            self._tired = a.tiring
            anims.set_idle_motion(pace=TIRING_PACE if self._tired else 1.0)
            try:
                anims.set_face_expression("sleepy" if self._tired else "neutral")
            except Exception as exc:  # a face is not worth a beat
                log.debug("no tired face: %s", exc)

    def set_rate(self, rate_hz: float) -> None:
        """Beat ``rate_hz`` times a second from the next beat on (a re-read config's ``heartbeat_hz``)."""
        self.heartbeat.set_rate(rate_hz)
        self._fit_beats()

    def _fit_beats(self) -> None:
        """Tell the animation controller how many frame slots a beat spans.

        Beats come on the frame ticks, so that one wake-up serves the beat, the frame and the input;
        when a beat spans whole frames, the controller prepares the frames between two of them a
        read ahead (see :mod:`driver.animation.controller`, "Frames a read ahead"), and must never
        prepare one past a beat: at another rate the count changes, and at one that spans no
        whole number of frames there is none to keep to.
        """
        slots = self.heartbeat.period * FPS
        self.controller.beat_on(round(slots) if abs(slots - round(slots)) < 1e-6 else 1)

    def _day(self, now: float) -> list[ev.RobotEvent]:
        """Read the day clock; keep the robot quiet (sounds and wheels held) during quiet hours.

        The hold is a lock on the animation controller's audio and body tracks, taken again when
        something released it (everything stops when the robot is lost), and :class:`HeldWheels`
        between the tree and the robot's wheel commands.
        """
        changes = self.rhythm.update(now)
        lock = self._quiet_lock
        if self.rhythm.quiet and (lock is None or lock.released):
            self._quiet_lock = self.controller.lock(QUIET_TRACKS, owner=self.rhythm)
            if lock is None:
                log.info("quiet hours until %s: no sounds, no driving", self.rhythm.quiet_until())
                try:  # a turn or a drive begun before stops now
                    self.robot.drive_wheels(0.0, 0.0)
                except RobotError as exc:
                    log.debug("could not stop the wheels for the quiet hours: %s", exc)
        elif not self.rhythm.quiet and lock is not None:
            lock.release()
            self._quiet_lock = None
            log.info("quiet hours over")
        return changes

    def _suspend(self, event: ev.RobotEvent) -> None:
        if self.heartbeat.suspended is not None:
            return
        self.heartbeat.suspended = "waiting for the robot"
        self.root.stop(py_trees.common.Status.INVALID)
        self.reactions.clear()
        # Clips, queue and track locks go; the frame clock stays (it sends nothing while the robot
        # is away and streams the idle face again, with a fresh face image, once it is back).
        self.controller.stop_all(event.kind)
        log.warning("%s: animations stopped, personality suspended until the robot is back", event.kind)

    def _resume(self, event: ev.RobotEvent) -> None:
        if self.heartbeat.suspended is None:
            return
        try:
            self.robot.stop_all_motors()
        except RobotError as exc:  # the link went away again; the next loss suspends anew
            log.warning("could not stop the motors after %s: %s", event.kind, exc)
        self.heartbeat.suspended = None
        log.info("robot back (%s): motors stopped, personality resumes", event.kind)

    def _describe(self) -> str:
        """The running branch, from the top of the personality to the node running now."""
        if self.reactions.active is not None:
            return f"reaction > {branch_of(self.reactions.active.root)}"
        tip = self.root.tip()
        names: list[str] = []
        node = tip
        while node is not None and node is not self.root:
            names.append(node.name)
            node = node.parent
        return " > ".join(reversed(names))

    def _explain(self) -> str:
        """Why the branch runs now: the reaction's trigger, or the decisions on it that changed, in words.

        Empty when no selector or chooser decided anything new (a sequence moved on to its next
        step): the last explanation still holds.
        """
        if self.reactions.active is not None:
            self._choices = frozenset()
            return f"reaction to {self.reactions.active.trigger}"
        tree = self.root.tree
        if tree is None:
            return ""
        path = choice_path(tree)
        new = [choice for choice in path if choice not in self._choices]
        self._choices = frozenset(path)
        return " ".join(explain_branch(tree, only=new)) if new else ""

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


def _needs_config(resources: Any) -> NeedsConfig:
    """The needs config of the resource roots (the defaults without one, or without roots)."""
    roots = getattr(resources, "roots", None)
    if not roots:
        return NeedsConfig()
    config, path = load_needs_config(roots)
    if path is not None:
        log.info("needs: %s", path)
    return config
