"""Actions: commands that take time (head, lift, turn, paths), awaitable and pollable.

A behaviour-tree node starts an action on one tick and looks at it on later ones (``done()``,
``succeeded``); other code simply awaits it. The :class:`~driver.robot.Robot` creates them and
finishes them from the robot's acknowledgements and state stream.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from enum import Enum
from typing import Any, Protocol

from .pending import Pending
from .samples import RobotStateSample

__all__ = ["Action", "ActionCancelled", "ActionFailed", "ActionOwner", "ActionState", "ActionTimeout"]


class ActionOwner(Protocol):
    """What an action needs of the robot that started it: to be forgotten once it is over."""

    def _forget(self, action: Action) -> None: ...


class ActionFailed(Exception):
    """An action did not complete."""


class ActionTimeout(ActionFailed):
    """An action did not complete in time."""


class ActionCancelled(ActionFailed):
    """An action was cancelled, superseded by another on the same motor, or stopped by safety."""


class ActionState(Enum):
    """Life of an action."""

    SENT = "sent"
    ACKNOWLEDGED = "acknowledged"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


# Read once, as module names: on Python 3.11 an enum member read through its class costs 0.1 µs,
# and a running action is checked against every RobotState.
_ACKNOWLEDGED = ActionState.ACKNOWLEDGED
_FAILED = ActionState.FAILED
_SENT = ActionState.SENT
_SUCCEEDED = ActionState.SUCCEEDED


class Action(Pending):
    """Something the robot is doing that takes time.

    ``await action`` waits for it; ``action.done()`` / ``action.succeeded`` let a tree poll it.
    It succeeds when the robot acknowledged it and the motion is observed finished; it fails on
    timeout, on cancel, or when another command takes over the same motor.
    """

    def __init__(self, robot: ActionOwner, kind: str, action_id: int | None, timeout: float,
                 is_finished: Callable[[RobotStateSample], bool]) -> None:
        super().__init__()
        loop = asyncio.get_running_loop()
        self.robot = robot
        self.kind = kind
        self.action_id = action_id
        self.state = _SENT if action_id is not None else _ACKNOWLEDGED
        self.started_at = loop.time()
        self._is_finished = is_finished
        self._timer = loop.call_later(timeout, self._timeout, timeout)
        #: the message that started it, where sending it again is safe (an absolute target): the
        #: robot sends it again when an animation that may have taken the motor meanwhile ends
        self.command: Any = None

    @property
    def succeeded(self) -> bool:
        """True when the action completed successfully."""
        return self.state is _SUCCEEDED

    def cancel(self, reason: str = "cancelled") -> None:
        """Give up on the action (the motor is not stopped; use stop commands for that)."""
        self._finish(ActionCancelled(f"{self.kind}: {reason}"))

    def _acknowledged(self) -> None:
        if self.state is _SENT:
            self.state = _ACKNOWLEDGED

    def _check(self, sample: RobotStateSample) -> None:
        if self.state is _ACKNOWLEDGED and self._is_finished(sample):
            self._finish(None)

    def _timeout(self, after: float) -> None:
        self._finish(ActionTimeout(f"{self.kind} did not finish within {after:.1f} s"))

    def _finish(self, error: BaseException | None) -> None:
        if self.done():
            return
        self._timer.cancel()
        self.state = _FAILED if error else _SUCCEEDED
        self._settle(error)
        self.robot._forget(self)

    def __repr__(self) -> str:
        return f"<Action {self.kind} id={self.action_id} {self.state.value}>"

