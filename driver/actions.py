"""Actions: commands that take time (head, lift, turn, paths), awaitable and pollable.

A behaviour-tree node starts an action on one tick and looks at it on later ones (``done()``,
``succeeded``); other code simply awaits it. The :class:`~driver.robot.Robot` creates them and
finishes them from the robot's acknowledgements and state stream.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Generator
from enum import Enum
from typing import Any, Protocol

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


class Action:
    """Something the robot is doing that takes time.

    ``await action`` waits for it; ``action.done()`` / ``action.succeeded`` let a tree poll it.
    It succeeds when the robot acknowledged it and the motion is observed finished; it fails on
    timeout, on cancel, or when another command takes over the same motor.
    """

    def __init__(self, robot: ActionOwner, kind: str, action_id: int | None, timeout: float,
                 is_finished: Callable[[RobotStateSample], bool]) -> None:
        loop = asyncio.get_running_loop()
        self.robot = robot
        self.kind = kind
        self.action_id = action_id
        self.state = ActionState.SENT if action_id is not None else ActionState.ACKNOWLEDGED
        self.started_at = loop.time()
        self._is_finished = is_finished
        self._future: asyncio.Future[None] = loop.create_future()
        self._future.add_done_callback(_consume_exception)
        self._timer = loop.call_later(timeout, self._timeout, timeout)

    def __await__(self) -> Generator[Any, None, None]:
        return self._future.__await__()

    def done(self) -> bool:
        """True once the action succeeded or failed."""
        return self._future.done()

    @property
    def succeeded(self) -> bool:
        """True when the action completed successfully."""
        return self.state is ActionState.SUCCEEDED

    @property
    def error(self) -> BaseException | None:
        """Why the action failed (None while running or on success)."""
        if not self._future.done() or self._future.cancelled():
            return None
        return self._future.exception()

    def cancel(self, reason: str = "cancelled") -> None:
        """Give up on the action (the motor is not stopped; use stop commands for that)."""
        self._finish(ActionCancelled(f"{self.kind}: {reason}"))

    def _acknowledged(self) -> None:
        if self.state is ActionState.SENT:
            self.state = ActionState.ACKNOWLEDGED

    def _check(self, sample: RobotStateSample) -> None:
        if self.state is ActionState.ACKNOWLEDGED and self._is_finished(sample):
            self._finish(None)

    def _timeout(self, after: float) -> None:
        self._finish(ActionTimeout(f"{self.kind} did not finish within {after:.1f} s"))

    def _finish(self, error: BaseException | None) -> None:
        if self._future.done():
            return
        self._timer.cancel()
        self.state = ActionState.FAILED if error else ActionState.SUCCEEDED
        if error is None:
            self._future.set_result(None)
        else:
            self._future.set_exception(error)
        self.robot._forget(self)

    def __repr__(self) -> str:
        return f"<Action {self.kind} id={self.action_id} {self.state.value}>"


def _consume_exception(fut: asyncio.Future[None]) -> None:
    # Actions are often polled rather than awaited; never warn about an unretrieved failure.
    if not fut.cancelled():
        fut.exception()
