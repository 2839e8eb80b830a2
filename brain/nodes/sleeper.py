"""Sleep: one sleeper for the ``sleep`` node and the Sleep and Nap behaviour classes.

The node and both classes build :class:`SleepUntilWoken` from one declaration of its
parameters (:data:`SLEEPER_PARAMS`): ``max_s``, ``wake_on``, ``face`` and ``get_in``, with the
spellings Anki's behaviour files use (``maxSleep_s``, ``napDuration_s``, ``wakeOn``,
``animTriggers`` …) as aliases, so a personality names them the same way wherever it sleeps.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from py_trees.behaviour import Behaviour
from py_trees.common import Status
from py_trees.composites import Sequence as SequenceNode

from brain.context import BrainContext
from driver.events import EVENT_KINDS

from .actions import BackpackLights, ContextBehaviour, FireEmotionEvent, _cancel
from .behavior_class import EMOTION_EVENT, TRIGGER_ALIASES, BehaviorClass, BehaviorSpec
from .params import Param

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
}


class SleepUntilWoken(ContextBehaviour):
    """Sleep: sleepy face, head down, lift down, dim lights; RUNNING until a wake event.

    It writes the brain's arousal: asleep when it starts (the behaviour that put it to sleep
    is the reason); drowsy when something woke it (``woken by poked``, ``nap over``): it is waking
    up, and the wake-up that follows (the Wake behaviour) makes it awake, while the ``sleeping``
    condition keeps the branch that put it to sleep going until then. Interrupted (a reaction
    that does not resume it, such as a pick-up), it is drowsy too, ``interrupted``: started again
    within :data:`RESUME_WAKE_S` it does not fall asleep again but ends at once, so the wake-up
    after it still plays.

    Wake events are robot events of ``wake_on`` kinds (a poke, a pick-up, the button, a cube
    tap …) that arrive after it fell asleep. With ``max_s`` it also wakes after that long (a
    nap). A robot that was sleepy when it fell asleep (its sleep debt at the personality's
    sleepy level, :mod:`brain.arousal`) also wakes by itself once the debt is paid (``rested``) or
    after the personality's ``nap_max_s`` (``nap over``), except in quiet hours, which it sleeps
    through; put to sleep for another reason (a low battery, the quiet hours) it sleeps on until
    an event. A get-in animation is asked for if given; if it cannot play, it sleeps anyway.

    A reaction that suspends it (see :mod:`brain.nodes.reactions`) does not wake it: it keeps
    sleeping through, and if the reaction resumes it, it notices the event that caused the
    reaction (a poke) and wakes then.
    """

    continues_after_suspend = True

    def __init__(self, name: str, ctx: BrainContext, *, wake_on: Sequence[str] = WAKE_EVENT_KINDS,
                 max_s: float | None = None, face: str = "asleep", get_in: str | None = "GoToSleepGetIn") -> None:
        super().__init__(name, ctx)
        self.wake_on = tuple(wake_on)
        self.max_s = max_s
        self.face = face
        self.get_in = get_in
        self.fell_asleep_at = 0.0
        self.woken_by: Any = None
        self.paused_s = 0.0
        self._anim: Any = None
        self._waking = False
        self._tired = False

    def initialise(self) -> None:
        self.fell_asleep_at = self.ctx.now()
        self.paused_s = 0.0
        self.woken_by = None
        a = self.ctx.arousal
        self._waking = (a.state == "drowsy" and a.why == "interrupted"
                        and self.fell_asleep_at - a.since <= RESUME_WAKE_S)
        if self._waking:
            self.feedback_message = "waking up after an interruption"
            return
        self._tired = a.sleepy
        a.fall_asleep(self.fell_asleep_at, self.parent.name if self.parent is not None else self.name)
        anims = self.ctx.animations
        if anims is not None:
            try:
                if self.get_in:
                    self._anim = anims.play_trigger(self.get_in)
            except Exception as exc:
                log.debug("%s: no get-in animation (%s)", self.name, exc)
            try:
                anims.set_face_expression(self.face)
                anims.set_idle_motion(still=True)  # the sleeping face: no blinks, no glances
            except Exception as exc:
                log.debug("%s: no %r face (%s)", self.name, self.face, exc)
        robot = self.ctx.robot
        if robot is not None:
            try:
                robot.set_head_angle(math.radians(-25.0))  # all the way down
                robot.set_lift_height(32.0)
                BackpackLights("sleep", self.ctx, pattern="sleep").update()
            except Exception as exc:
                log.debug("%s: could not settle the robot (%s)", self.name, exc)

    def update(self) -> Status:
        if self._waking:
            return Status.SUCCESS
        for kind in self.wake_on:
            for event in self.ctx.recent_events(kind, since=self.fell_asleep_at):
                if getattr(event, "value", True) is False and kind != "button":
                    continue
                self.woken_by = event
                self.feedback_message = f"woken by {kind}"
                return Status.SUCCESS
        slept = self.ctx.now() - self.fell_asleep_at - self.paused_s
        if self.max_s is not None and slept >= self.max_s:
            self.feedback_message = "nap over"
            return Status.SUCCESS
        rhythm = self.ctx.rhythm
        if self._tired and not (rhythm is not None and rhythm.quiet):
            a = self.ctx.arousal
            if a.rested:
                self.feedback_message = "rested"
                return Status.SUCCESS
            if slept >= a.params.nap_max_s:
                self.feedback_message = "nap over"
                return Status.SUCCESS
        self.feedback_message = "sleeping"
        return Status.RUNNING

    def on_suspend(self, now: float) -> None:
        """The reaction plays its own animation: drop the get-in."""
        if self._anim is not None and not self._anim.done():
            _cancel(self._anim)
        self._anim = None

    def on_resume(self, now: float, paused_s: float) -> None:
        """A nap's length does not count the time spent reacting."""
        self.paused_s += paused_s

    def terminate(self, new_status: Status) -> None:
        if self._anim is not None and not self._anim.done():
            _cancel(self._anim)
        self._anim = None
        if self.ctx.animations is not None:
            self.ctx.animations.set_idle_motion(still=False)
        a = self.ctx.arousal
        if new_status is Status.SUCCESS and not self._waking:
            a.set("drowsy", self.ctx.now(), self.feedback_message)
        elif new_status is not Status.RUNNING and a.state == "asleep":
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
        return Status.SUCCESS


def sleeper_node(name: str, ctx: BrainContext, max_s: float | None = None, wake_on: Sequence[str] | None = None,
                 face: str = "asleep", get_in: Sequence[str] | None = ("GoToSleepGetIn",)) -> SleepUntilWoken:
    """The sleeper from validated :data:`SLEEPER_PARAMS` values (the ``sleep`` node's builder)."""
    return SleepUntilWoken(name, ctx, wake_on=list(wake_on) if wake_on else WAKE_EVENT_KINDS, max_s=max_s,
                           face=face, get_in=get_in[0] if get_in else None)


def _sleeper(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    values = {name: spec.value(name) for name in SLEEPER_PARAMS}
    children: list[Behaviour] = [sleeper_node("asleep", ctx, **values)]
    event = spec.value("finalEmotionEvent")
    if event:
        children.append(FireEmotionEvent(f"emotion {event}", ctx, event))
    return SequenceNode(spec.behavior_id, memory=True, children=children)


_SLEEP_DOC = ("sleepy face, head and lift down, dim lights; runs until a poke, pick-up, button, cube tap, cliff "
              "or fall (`wake_on`), or `max_s`")

#: Sleep and Nap: the same sleeper, a nap ending by itself after 300 s unless told otherwise.
SLEEPER_CLASSES: tuple[BehaviorClass, ...] = (
    BehaviorClass("Sleep", _sleeper, _SLEEP_DOC, {**SLEEPER_PARAMS, "finalEmotionEvent": EMOTION_EVENT}),
    BehaviorClass("Nap", _sleeper, "like Sleep, but wakes by itself after `max_s` (300 s)",
                  {**SLEEPER_PARAMS, "max_s": replace(SLEEPER_PARAMS["max_s"], default=300.0),
                   "finalEmotionEvent": EMOTION_EVENT}),
)
