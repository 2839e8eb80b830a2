"""No task dies silently: the daemon's own tasks are supervised, every other failure is logged.

asyncio keeps the exception of a task nobody awaits until the task is garbage-collected, and
then only prints it through the loop's exception handler, so a background task (a file
watcher, a reloader) can end on an exception and leave a daemon that looks alive but no longer
does its job. Two guards:

- :func:`install_exception_handler` routes everything the loop reports (a callback that raised,
  a task exception never retrieved) to the log, with its traceback.
- :class:`Supervisor` runs the daemon's own tasks. When one of them raises, or ends while it
  should run for ever, the traceback is logged and ``on_failure`` is called: the daemon stops
  with a non-zero exit code, so a service manager (``Restart=on-failure``) starts it afresh
  instead of leaving it half-working.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from typing import Any

__all__ = ["Supervisor", "install_exception_handler"]

log = logging.getLogger("cozmo_brain")


def install_exception_handler(loop: asyncio.AbstractEventLoop) -> None:
    """Log whatever the loop reports as an error, with its traceback, on the ``cozmo_brain`` logger."""

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        message = context.get("message") or "unhandled error on the event loop"
        where = context.get("task") or context.get("future") or context.get("handle")
        name = where.get_name() if isinstance(where, asyncio.Task) else (repr(where) if where is not None else "")
        log.error("%s%s", message, f" ({name})" if name else "",
                  exc_info=(type(exc), exc, exc.__traceback__) if isinstance(exc, BaseException) else None)

    loop.set_exception_handler(handler)


class Supervisor:
    """Runs named tasks; the first that fails (or ends when it should not) calls ``on_failure``.

    ``spawn(coro, name, may_end=True)`` marks a task whose normal end is expected (its own
    completion is handled by the caller). :meth:`close` cancels what still runs; cancellations
    from then on are expected and silent.
    """

    def __init__(self, on_failure: Callable[[str], None]) -> None:
        self.on_failure = on_failure
        #: names of the tasks that failed, in order
        self.failed: list[str] = []
        self._tasks: dict[asyncio.Task[Any], bool] = {}
        self._closing = False

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str, *, may_end: bool = False) -> asyncio.Task[Any]:
        """Start ``coro`` as a supervised task on the running loop."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks[task] = may_end
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        may_end = self._tasks.pop(task, True)
        if task.cancelled():
            if not self._closing:
                self._fail(task.get_name(), "was cancelled", None)
            return
        exc = task.exception()
        if exc is not None:
            self._fail(task.get_name(), f"died: {type(exc).__name__}: {exc}", exc)
        elif not may_end and not self._closing:
            self._fail(task.get_name(), "ended although it should run until the daemon stops", None)

    def _fail(self, name: str, what: str, exc: BaseException | None) -> None:
        self.failed.append(name)
        log.error("task %r %s; stopping with exit code 1 so the service manager restarts the daemon", name, what,
                  exc_info=(type(exc), exc, exc.__traceback__) if exc is not None else None)
        self.on_failure(name)

    async def close(self) -> None:
        """Cancel the tasks still running and wait for them to end."""
        self._closing = True
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
