"""Sleep: one sleeper for the ``sleep`` node and the Sleep and Nap behaviour classes.

The node and both classes build :class:`SleepUntilWoken` from one declaration of its
parameters (:data:`SLEEPER_PARAMS`): ``max_s``, ``wake_on``, ``face``, ``get_in``, the sleeping
``loop`` and how it peeks and wakes for a face, with the spellings Anki's behaviour files use
(``maxSleep_s``, ``napDuration_s``, ``wakeOn``, ``animTriggers`` …) as aliases, so a personality
names them the same way wherever it sleeps.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from py_trees.behaviour import Behaviour
from py_trees.common import Status

from brain.context import BrainContext
from driver.events import EVENT_KINDS
from driver.hardware import HEAD_MIN_DEG, LIFT_MIN_MM

from .actions import ContextBehaviour, FireEmotionEvent, _cancel
from .behavior_class import EMOTION_EVENT, TRIGGER_ALIASES, BehaviorClass, BehaviorSpec
from .composites import Sequence as SequenceNode
from .lights import BackpackLights
from .params import Param
from .status import RUNNING, SUCCESS

__all__ = ["SLEEPER_CLASSES", "Awake", "SLEEPER_PARAMS", "WAKE_EVENT_KINDS", "SleepUntilWoken", "sleeper_node"]

log = logging.getLogger(__name__)

#: A sleep interrupted this long ago (s) or less is not started again: its wake-up plays instead.
RESUME_WAKE_S = 30.0

#: Robot events that wake a sleeping robot.
WAKE_EVENT_KINDS: tuple[str, ...] = ("poked", "picked_up", "button", "cube_tapped", "cliff", "falling_started")

#: The sleeper's parameters, for the ``sleep`` node and the Sleep and Nap classes alike.
SLEEPER_PARAMS: dict[str, Param] = {
    "max_s": Param("number", minimum=0.0, doc="wake by itself after this long (seconds); none: only an event",
                   aliases=("maxSleep_s", "napDuration_s", "duration_s")),
    "wake_on": Param("str_list", default=list(WAKE_EVENT_KINDS), choices=tuple(sorted(EVENT_KINDS)),
                     doc="event kinds that wake it", aliases=("wakeOn",)),
    "face": Param("str", default="asleep", doc="the procedural face it sleeps with (held still: no blinks)"),
    "get_in": Param("triggers", default=["GoToSleepGetIn"], doc="the falling-asleep animation trigger "
                    "(the first of a list; [] for none)", aliases=("animTriggers", *TRIGGER_ALIASES)),
    "loop": Param("triggers", default=["GoToSleepSleeping"], doc="the sleeping loop, played over and over "
                  "while asleep: slow breathing (the first of a list; [] for none)"),
    "peek_every_s": Param("number", default=90.0, minimum=0.0, doc="asleep, it lifts its head to look about "
                          "this often (seconds; 0: never), and at once after motion close in front"),
    "peek_s": Param("number", default=4.0, minimum=0.5, doc="how long one look lasts (seconds)"),
    "wake_face_mm": Param("number", default=800.0, minimum=0.0, doc="a face this close (mm) seen while it looks "
                          "wakes it (0: faces never do)"),
    "wake_face_s": Param("number", default=2.0, minimum=0.0, doc="how long that face must stay in view (seconds)"),
}

#: The sleeping loop starts again at most this often (s).
LOOP_MIN_S = 1.0
#: The head's angle while asleep (all the way down) and while it lifts its head to look (degrees).
SLEEP_HEAD_DEG = HEAD_MIN_DEG
PEEK_HEAD_DEG = 15.0


class SleepUntilWoken(ContextBehaviour):
    """Sleep: get-in, then the sleeping loop with head and lift down and dim lights, until woken.

    It writes the brain's arousal: asleep when it starts (the behaviour that put it to sleep
    is the reason); drowsy when something woke it (``woken by poked``, ``nap over``): it is waking
    up, and the wake-up that follows (the Wake behaviour) makes it awake, while the ``sleeping``
    condition keeps the branch that put it to sleep going until then. Interrupted (a reaction
    that does not resume it, such as a pick-up), it is drowsy too, ``interrupted``. Started again
    while drowsy, within :data:`RESUME_WAKE_S` of it (the sleep or the wake-up after it was
    broken off), it does not fall asleep again but ends at once, so the wake-up plays.

    Asleep it shows the ``face`` held still (no blinks, no glances) and plays the ``loop`` clip
    over and over once the get-in is done: slow breathing. Something that happens wakes it in
    proportion, as a pet's light sleep: robot events of ``wake_on`` kinds (a poke, a pick-up, the
    button, a cube tap …) at once; a face only once it has been seen close by (``wake_face_mm``)
    for ``wake_face_s``. The head is down, so the camera sees the table: every ``peek_every_s``,
    and at once after motion on the floor close in front, it lifts its head for ``peek_s`` to look
    (longer while a close face is in view), then lays it down again; distant motion does nothing.

    With ``max_s`` it also wakes after that long (a nap). A robot that was sleepy when it fell
    asleep (its sleep debt at the personality's sleepy level, :mod:`brain.arousal`) also wakes by
    itself once the debt is paid (``rested``) or after the personality's ``nap_max_s`` (``nap
    over``), except in quiet hours, which it sleeps through; put to sleep for another reason (the
    quiet hours) it sleeps on until an event. Animations that cannot play are skipped: it sleeps
    anyway.

    A reaction that suspends it (see :mod:`brain.nodes.reactions`) does not wake it: it keeps
    sleeping through, and if the reaction resumes it, it notices the event that caused the
    reaction (a poke) and wakes then.
    """

    continues_after_suspend = True

    def __init__(self, name: str, ctx: BrainContext, *, wake_on: Sequence[str] = WAKE_EVENT_KINDS,
                 max_s: float | None = None, face: str = "asleep", get_in: str | None = "GoToSleepGetIn",
                 loop: str | None = "GoToSleepSleeping", peek_every_s: float = 90.0, peek_s: float = 4.0,
                 wake_face_mm: float = 800.0, wake_face_s: float = 2.0) -> None:
        super().__init__(name, ctx)
        self.wake_on = tuple(wake_on)
        self.max_s = max_s
        self.face = face
        self.get_in = get_in
        self.loop = loop
        self.peek_every_s = peek_every_s
        self.peek_s = peek_s
        self.wake_face_mm = wake_face_mm
        self.wake_face_s = wake_face_s
        self.fell_asleep_at = 0.0
        self.woken_by: Any = None
        self.paused_s = 0.0
        self.peeks = 0
        self._anim: Any = None
        self._waking = False
        self._tired = False
        self._peek_until: float | None = None
        self._next_peek = math.inf
        self._motion_seen = 0.0
        self._face_since: float | None = None
        self._loop_at = 0.0

    def initialise(self) -> None:
        self.fell_asleep_at = now = self.ctx.now()
        self.paused_s = 0.0
        self.woken_by = None
        self.peeks = 0
        self._peek_until = self._face_since = None
        self._next_peek = now + self.peek_every_s if self.peek_every_s > 0 else math.inf
        self._motion_seen = now
        self._loop_at = 0.0
        a = self.ctx.arousal
        # Drowsy is waking up: started again within RESUME_WAKE_S of it (a reaction broke off the
        # sleep or the wake-up after it), it does not fall asleep again but ends at once, so the
        # wake-up plays (again). Asleep again without being tired, nothing but an event would
        # end the sleep.
        self._waking = a.state == "drowsy" and self.fell_asleep_at - a.since <= RESUME_WAKE_S
        if self._waking:
            self.feedback_message = ("waking up after an interruption" if a.why == "interrupted"
                                     else f"still waking up ({a.why})")
            return
        self._tired = a.sleepy
        a.fall_asleep(self.fell_asleep_at, self.parent.name if self.parent is not None else self.name)
        if self.get_in:
            self._play(self.get_in)
        anims = self.ctx.animations
        if anims is not None:
            try:
                anims.set_face_expression(self.face)
                anims.set_idle_motion(still=True)  # the sleeping face: no blinks, no glances
            except Exception as exc:
                log.debug("%s: no %r face (%s)", self.name, self.face, exc)
        robot = self.ctx.robot
        if robot is not None:
            try:
                robot.set_head_angle(math.radians(SLEEP_HEAD_DEG))
                robot.set_lift_height(LIFT_MIN_MM)
                BackpackLights("sleep", self.ctx, pattern="sleep").update()
            except Exception as exc:
                log.debug("%s: could not settle the robot (%s)", self.name, exc)

    def update(self) -> Status:
        if self._waking:
            return SUCCESS
        for kind in self.wake_on:
            for event in self.ctx.recent_events(kind, since=self.fell_asleep_at):
                if getattr(event, "value", True) is False and kind != "button":
                    continue
                self.woken_by = event
                self.feedback_message = f"woken by {kind}"
                return SUCCESS
        now = self.ctx.now()
        if self._face_close(now):
            self.feedback_message = "woken by a face"
            return SUCCESS
        slept = now - self.fell_asleep_at - self.paused_s
        if self.max_s is not None and slept >= self.max_s:
            self.feedback_message = "nap over"
            return SUCCESS
        rhythm = self.ctx.rhythm
        if self._tired and not (rhythm is not None and rhythm.quiet):
            a = self.ctx.arousal
            if a.rested:
                self.feedback_message = "rested"
                return SUCCESS
            if slept >= a.params.nap_max_s:
                self.feedback_message = "nap over"
                return SUCCESS
        self._look_or_breathe(now)
        self.feedback_message = "looking up, still asleep" if self._peek_until is not None else "sleeping"
        return RUNNING

    def _face_close(self, now: float) -> bool:
        """Whether a face close by has been in view, seen since it fell asleep, for ``wake_face_s``."""
        if self.wake_face_mm <= 0:
            return False
        close = any(f.distance_mm <= self.wake_face_mm and f.last_seen >= self.fell_asleep_at
                    for f in self.ctx.world.faces_in_view())
        if not close:
            self._face_since = None
            return False
        if self._face_since is None:
            self._face_since = now
        return now - self._face_since >= self.wake_face_s

    def _look_or_breathe(self, now: float) -> None:
        """Lift the head to look when it is time (or motion came close), lay it down after; between
        looks, the sleeping loop plays over and over."""
        motion = self.ctx.world.motion
        if motion is not None and motion.where == "ground" and motion.at > self._motion_seen:
            self._motion_seen = motion.at
            if self._peek_until is None:
                self._next_peek = now
        if self._peek_until is None and now >= self._next_peek:
            self._peek_until = now + self.peek_s
            self.peeks += 1
            self._stop_anim()
            self._head(PEEK_HEAD_DEG)
        elif self._peek_until is not None and now >= self._peek_until and self._face_since is None:
            self._peek_until = None
            self._next_peek = now + self.peek_every_s if self.peek_every_s > 0 else math.inf
            self._head(SLEEP_HEAD_DEG)
        if (self._peek_until is None and self.loop and (self._anim is None or self._anim.done())
                and now >= self._loop_at):
            self._loop_at = now + LOOP_MIN_S  # a clip that ends at once is not asked for every tick
            self._play(self.loop)

    def _play(self, trigger: str) -> None:
        anims = self.ctx.animations
        if anims is None:
            return
        try:
            self._anim = anims.play_trigger(trigger)
        except Exception as exc:
            log.debug("%s: no %s animation (%s)", self.name, trigger, exc)
            self._anim = None
            if trigger == self.loop:
                self.loop = None  # not in the resources: sleep without it rather than ask every tick

    def _head(self, degrees: float) -> None:
        if self.ctx.robot is not None:
            try:
                self.ctx.robot.set_head_angle(math.radians(degrees))
            except Exception as exc:
                log.debug("%s: could not move the head (%s)", self.name, exc)

    def _stop_anim(self) -> None:
        if self._anim is not None and not self._anim.done():
            _cancel(self._anim)
        self._anim = None

    def on_suspend(self, now: float) -> None:
        """The reaction plays its own animation: drop the get-in or the loop."""
        self._stop_anim()

    def on_resume(self, now: float, paused_s: float) -> None:
        """A nap's length does not count the time spent reacting."""
        self.paused_s += paused_s

    def terminate(self, new_status: Status) -> None:
        self._stop_anim()
        self._peek_until = None
        if self.ctx.animations is not None:
            self.ctx.animations.set_idle_motion(still=False)
        a = self.ctx.arousal
        if new_status is SUCCESS and not self._waking:
            a.set("drowsy", self.ctx.now(), self.feedback_message)
        elif new_status is not RUNNING and a.state == "asleep":
            a.set("drowsy", self.ctx.now(), "interrupted")


class Awake(ContextBehaviour):
    """The end of a wake-up: the brain's arousal becomes ``awake`` (it was waking up) and the resting
    face opens its eyes again, blinking at the usual pace; always succeeds."""

    def update(self) -> Status:
        a = self.ctx.arousal
        if a.state != "awake":
            a.wake(self.ctx.now(), a.why if a.state == "drowsy" else "woke up")
        anims = self.ctx.animations
        if anims is not None:
            try:
                anims.set_face_expression("neutral")
                anims.set_idle_motion(still=False, pace=1.0)
            except Exception as exc:  # a face is not worth failing the wake-up for
                log.debug("%s: could not open the eyes (%s)", self.name, exc)
        return SUCCESS


def sleeper_node(name: str, ctx: BrainContext, max_s: float | None = None, wake_on: Sequence[str] | None = None,
                 face: str = "asleep", get_in: Sequence[str] | None = ("GoToSleepGetIn",),
                 loop: Sequence[str] | None = ("GoToSleepSleeping",), peek_every_s: float = 90.0,
                 peek_s: float = 4.0, wake_face_mm: float = 800.0, wake_face_s: float = 2.0) -> SleepUntilWoken:
    """The sleeper from validated :data:`SLEEPER_PARAMS` values (the ``sleep`` node's builder)."""
    return SleepUntilWoken(name, ctx, wake_on=list(wake_on) if wake_on else WAKE_EVENT_KINDS, max_s=max_s,
                           face=face, get_in=get_in[0] if get_in else None, loop=loop[0] if loop else None,
                           peek_every_s=peek_every_s, peek_s=peek_s, wake_face_mm=wake_face_mm,
                           wake_face_s=wake_face_s)


def _sleeper(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    values = {name: spec.value(name) for name in SLEEPER_PARAMS}
    children: list[Behaviour] = [sleeper_node("asleep", ctx, **values)]
    event = spec.value("finalEmotionEvent")
    if event:
        children.append(FireEmotionEvent(f"emotion {event}", ctx, event))
    return SequenceNode(spec.behavior_id, memory=True, children=children)


_SLEEP_DOC = ("get-in, then the sleeping loop: head and lift down, dim lights, the face still; runs until a poke, "
              "pick-up, button, cube tap, cliff or fall (`wake_on`), a face close by while it lifts its head to look, "
              "or `max_s`")

#: Sleep and Nap: the same sleeper, a nap ending by itself after 300 s unless told otherwise.
SLEEPER_CLASSES: tuple[BehaviorClass, ...] = (
    BehaviorClass("Sleep", _sleeper, _SLEEP_DOC, {**SLEEPER_PARAMS, "finalEmotionEvent": EMOTION_EVENT}),
    BehaviorClass("Nap", _sleeper, "like Sleep, but wakes by itself after `max_s` (300 s)",
                  {**SLEEPER_PARAMS, "max_s": replace(SLEEPER_PARAMS["max_s"], default=300.0),
                   "finalEmotionEvent": EMOTION_EVENT}),
)
