"""Decorators: the ones that need the robot's clock (cooldown, timeout, timer) and py_trees' others.

py_trees' own ``Timeout`` reads ``time.monotonic`` directly; these read the context's
clock instead, so an offline simulation and the tests can drive time. py_trees' other
decorators (inverter, one-shot, repeat, retry, status converters) are used as they are, with
an explanation added (:class:`Explained`): every decorator says why it passed or failed.
"""

from __future__ import annotations

from py_trees import decorators as pt
from py_trees.behaviour import Behaviour
from py_trees.common import Status
from py_trees.decorators import Decorator

from brain.context import BrainContext

from .composites import fast_tick, run_alone, run_decorator, stop_decorator
from .explain import structural_reason
from .status import FAILURE, INVALID, RUNNING, SUCCESS

__all__ = [
    "Cooldown",
    "Explained",
    "FailureIsRunning",
    "FailureIsSuccess",
    "Inverter",
    "OneShot",
    "Repeat",
    "Retry",
    "RunningIsFailure",
    "RunningIsSuccess",
    "SuccessIsFailure",
    "SuccessIsRunning",
    "Timeout",
    "Timer",
]


class Explained(Decorator):
    """A decorator that explains itself by its child: it passed for the child's reason, or failed for it.

    An inverter swaps the two (:func:`brain.nodes.explain.structural_reason`); a decorator that
    failed while its child did not says its own feedback (``timed out``).
    """

    def explain(self, passed: bool, depth: int = 0) -> str:
        """Why it passed or failed on its last tick."""
        return structural_reason(self, passed, depth)

    tick = fast_tick

    def run_tick(self) -> Status:
        """py_trees' decorator tick (:func:`brain.nodes.composites.run_decorator`); the status after it."""
        return run_decorator(self)

    def stop(self, new_status: Status) -> None:
        """py_trees' decorator stop (:func:`brain.nodes.composites.stop_decorator`)."""
        stop_decorator(self, new_status)


class Inverter(Explained, pt.Inverter):
    """py_trees' inverter: it passed because its child failed, and the other way round."""


class OneShot(Explained, pt.OneShot):
    """py_trees' one-shot, explained by its child."""

    def run_tick(self) -> Status:
        if self.final_status:  # done once: the child is left alone, the first result stands
            return run_alone(self)
        return run_decorator(self)


class Repeat(Explained, pt.Repeat):
    """py_trees' repeat, explained by its child."""


class Retry(Explained, pt.Retry):
    """py_trees' retry, explained by its child."""


class FailureIsSuccess(Explained, pt.FailureIsSuccess):
    """py_trees' FAILURE → SUCCESS: it passed, whatever its child said."""


class FailureIsRunning(Explained, pt.FailureIsRunning):
    """py_trees' FAILURE → RUNNING, explained by its child."""


class SuccessIsFailure(Explained, pt.SuccessIsFailure):
    """py_trees' SUCCESS → FAILURE: it failed, whatever its child said."""


class SuccessIsRunning(Explained, pt.SuccessIsRunning):
    """py_trees' SUCCESS → RUNNING, explained by its child."""


class RunningIsSuccess(Explained, pt.RunningIsSuccess):
    """py_trees' RUNNING → SUCCESS, explained by its child."""


class RunningIsFailure(Explained, pt.RunningIsFailure):
    """py_trees' RUNNING → FAILURE, explained by its child."""


class Cooldown(Explained):
    """Let the child run again only ``seconds`` after it last ran; FAILURE meanwhile.

    "Ran" means the child got going — it returned RUNNING or SUCCESS at least once — so a
    guard that fails at once does not start the cooldown. The cooldown counts from the
    moment the child stopped (finished or interrupted).
    """

    def __init__(self, name: str, child: Behaviour, ctx: BrainContext, seconds: float) -> None:
        self._blocked = False
        self._feedback = ""
        super().__init__(name=name, child=child)
        self.ctx = ctx
        self.seconds = float(seconds)
        self.last_ran: float | None = None
        self._ran = False

    @property
    def feedback_message(self) -> str:
        """``cooling down, 12.3 s left`` while it holds its child back (worded when read: most
        beats pass over a dozen cooldowns, and only a display or an explanation reads it), else as set."""
        if self._blocked:
            return f"cooling down, {self.remaining():.1f} s left"
        return self._feedback

    @feedback_message.setter
    def feedback_message(self, message: str) -> None:
        self._feedback = message

    def remaining(self) -> float:
        """Seconds until the child may run again (0 when ready)."""
        if self.last_ran is None:
            return 0.0
        return max(0.0, self.seconds - (self.ctx.now() - self.last_ran))

    def run_tick(self) -> Status:
        if self.status is not RUNNING and self.remaining() > 0:
            self._blocked = True
            return run_alone(self)
        self._blocked = False
        return run_decorator(self)

    def initialise(self) -> None:
        self._ran = False

    def update(self) -> Status:
        if self._blocked:
            return FAILURE
        if self.decorated.status in (RUNNING, SUCCESS):
            self._ran = True
        self.feedback_message = ""
        return self.decorated.status

    def terminate(self, new_status: Status) -> None:
        if self._ran and new_status is not RUNNING:
            self.last_ran = self.ctx.now()
            self._ran = False

    def explain(self, passed: bool, depth: int = 0) -> str:
        """Failed while cooling down: how long is left; otherwise its child's reason."""
        if not passed and self.remaining() > 0 and self.decorated.status is not FAILURE:
            return f"cooling down, {self.remaining():.0f} s left"
        return structural_reason(self, passed, depth)


class _RunsFor(Explained):
    """A child allowed ``seconds`` of running: when they are up the child is stopped and the
    decorator ends with :attr:`_due` (the time spent suspended under a reaction does not count)."""

    _due: Status
    _done: str  # the feedback message, formatted with the seconds

    def __init__(self, name: str, child: Behaviour, ctx: BrainContext, seconds: float) -> None:
        super().__init__(name=name, child=child)
        self.ctx = ctx
        self.seconds = float(seconds)
        self.ends_at = 0.0

    def initialise(self) -> None:
        self.ends_at = self.ctx.now() + self.seconds

    def on_resume(self, now: float, paused_s: float) -> None:
        """Time spent suspended under a reaction does not count."""
        self.ends_at += paused_s

    def update(self) -> Status:
        if self.decorated.status is RUNNING and self.ctx.now() >= self.ends_at:
            self.feedback_message = self._done.format(self.seconds)
            self.decorated.stop(INVALID)
            return self._due
        return self.decorated.status


class Timeout(_RunsFor):
    """FAILURE (and the child is stopped) when the child runs longer than ``seconds``."""

    _due = FAILURE
    _done = "timed out after {:g} s"


class Timer(_RunsFor):
    """SUCCESS (and the child is stopped) once the child has run for ``seconds``.

    The counterpart of :class:`Timeout` for "do this for a while": look around for 20 s,
    sleep for at most an hour. A child that ends earlier ends the timer with its status.
    """

    _due = SUCCESS
    _done = "ran its {:g} s"
