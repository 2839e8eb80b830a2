"""Cozmo's behaviour classes for playing alone and asking to play: RequestToPlay.

* RequestToPlay asks whoever is near to play (Anki's RequestGameSimple asked for a game the same
  way: a request animation, a wait for the answer, then play or a disappointed "deny"). It plays
  its request, then waits up to ``waitForAnswer_s`` for a poke, a cube tap or the button
  (``answeredBy``; a pick-up interrupts it, as any pick-up does). Answered, it fires
  ``acceptEmotionEvent`` and plays ``acceptAnimTrigger``; ignored, it fires ``denyEmotionEvent``
  and plays ``denyAnimTrigger``. Either way it succeeds: being ignored is something that happened
  to it, not a failure of the tree, and the mood is where it shows (Social, Confident and Happy
  down, so a robot left alone grows lonely).
"""

from __future__ import annotations

from collections.abc import Sequence

from py_trees.behaviour import Behaviour
from py_trees.common import Status
from py_trees.composites import Selector
from py_trees.composites import Sequence as SequenceNode

from brain.context import BrainContext
from driver.events import EVENT_KINDS

from .actions import ContextBehaviour, FireEmotionEvent, PlayAnimationTrigger
from .behavior_class import EMOTION_EVENT, BehaviorClass, BehaviorSpec, triggers_param
from .params import Param

__all__ = ["ANSWER_KINDS", "PLAY_CLASSES", "WaitForAnswer"]

#: What answers a request to play by default: being touched, a tapped cube, the button.
ANSWER_KINDS: tuple[str, ...] = ("poked", "cube_tapped", "button")


class WaitForAnswer(ContextBehaviour):
    """RUNNING until a robot event of ``kinds`` arrives (SUCCESS) or ``seconds`` pass (FAILURE).

    It keeps waiting through a reaction (a poke is an answer, and its reaction runs first), and
    the time the reaction took does not count against the wait.
    """

    continues_after_suspend = True

    def __init__(self, name: str, ctx: BrainContext, kinds: Sequence[str], seconds: float) -> None:
        super().__init__(name, ctx)
        self.kinds = tuple(kinds)
        self.seconds = float(seconds)
        self.since = 0.0
        self.ends_at = 0.0
        self.answer: str | None = None

    def initialise(self) -> None:
        self.since = self.ctx.now()
        self.ends_at = self.since + self.seconds
        self.answer = None

    def on_resume(self, now: float, paused_s: float) -> None:
        """A reaction paused the wait: that time is still to wait."""
        self.ends_at += paused_s

    def update(self) -> Status:
        for kind in self.kinds:
            if next(self.ctx.recent_events(kind, since=self.since), None) is not None:
                self.answer = kind
                self.feedback_message = f"answered: {kind}"
                return Status.SUCCESS
        left = self.ends_at - self.ctx.now()
        if left > 0:
            self.feedback_message = f"waiting for {', '.join(self.kinds)}: {left:.1f} s left"
            return Status.RUNNING
        return self.fail(f"nobody answered in {self.seconds:g} s")


def _emotion(ctx: BrainContext, spec: BehaviorSpec, key: str) -> list[Behaviour]:
    name = spec.value(key)
    return [FireEmotionEvent(f"emotion {name}", ctx, name)] if name else []


def _plays(ctx: BrainContext, spec: BehaviorSpec, key: str) -> list[Behaviour]:
    return [PlayAnimationTrigger(t, ctx, t) for t in spec.value(key)]


def request_to_play(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """RequestToPlay: ask, wait for an answer, then play happily or show the disappointment."""
    answered = SequenceNode("answered", memory=True, children=[
        *_plays(ctx, spec, "animTriggers"),
        WaitForAnswer("wait for an answer", ctx, spec.value("answeredBy"), spec.value("waitForAnswer_s")),
        *_emotion(ctx, spec, "acceptEmotionEvent"),
        *_plays(ctx, spec, "acceptAnimTrigger"),
    ])
    ignored = SequenceNode("ignored", memory=True, children=[
        *_emotion(ctx, spec, "denyEmotionEvent"),
        *_plays(ctx, spec, "denyAnimTrigger"),
    ])
    chooser = Selector("answer", memory=True, children=[answered, ignored])
    return SequenceNode(spec.behavior_id, memory=True,
                        children=[chooser, *_emotion(ctx, spec, "finalEmotionEvent")])


PLAY_CLASSES: tuple[BehaviorClass, ...] = (
    BehaviorClass("RequestToPlay", request_to_play,
                  "asks to play (`RequestToPlay`), waits for a poke, cube tap or the button, then plays "
                  "`Happy` or, ignored, `Sad`",
                  {"animTriggers": triggers_param(("RequestToPlay",), doc="the request"),
                   "waitForAnswer_s": Param("number", default=12.0, minimum=1.0, maximum=120.0,
                                            doc="how long it waits for an answer (s)",
                                            aliases=("minRequestDelay_s",)),
                   "answeredBy": Param("str_list", default=list(ANSWER_KINDS), choices=tuple(sorted(EVENT_KINDS)),
                                       doc="robot events that answer it"),
                   "acceptAnimTrigger": Param("triggers", default=["Happy"], doc="played when answered"),
                   "denyAnimTrigger": Param("triggers", default=["Sad"], doc="played when nobody answered"),
                   "acceptEmotionEvent": Param("str", default="RequestToPlayAccepted", doc="fired when answered"),
                   "denyEmotionEvent": Param("str", default="RequestToPlayIgnored", doc="fired when ignored"),
                   "finalEmotionEvent": EMOTION_EVENT}),
)
