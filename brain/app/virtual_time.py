"""A virtual clock for asyncio: hours of loop time in seconds of wall time.

Every part of the project reads time through ``loop.time()``, so on a :class:`VirtualTimeLoop`
the whole stack (simulator, robot, animation controller, brain) runs on a virtual clock that,
whenever nothing is ready to run, jumps to the next timer instead of waiting for it. ``simulate``
runs on it, and so do tests where time is the subject.
"""

from __future__ import annotations

import asyncio
import math
import selectors
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["POLL_EVERY_TURNS", "VirtualTimeLoop", "run_virtual"]

T = TypeVar("T")

#: The virtual selector polls the real file descriptors once per this many loop turns.
POLL_EVERY_TURNS = 32

class _VirtualSelector(selectors.DefaultSelector):
    """A real selector that, asked to wait, moves the virtual clock instead.

    The event loop asks its selector to wait exactly until the next timer is due (or forever
    when none is). A positive wait becomes a jump of the virtual clock followed by a poll of
    the real file descriptors, so the loop's self-pipe (signals, ``call_soon_threadsafe``)
    still works; an endless wait stays a real one, since only another thread or a signal can
    then make progress.
    """

    def __init__(self, loop: VirtualTimeLoop) -> None:
        super().__init__()
        self._loop = loop
        self._turns = 0

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:  # noqa: D102
        if timeout is None:
            return super().select(None)
        self._loop._advance(timeout)
        # Only the loop's own wake-up pipe is registered here. A callback from another thread is
        # in the ready queue before the pipe is written; signal handlers wait for the read, and a
        # look every few turns (microseconds of wall time) is soon enough for them.
        self._turns += 1
        if self._turns % POLL_EVERY_TURNS:
            return []
        return super().select(0)


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """An asyncio event loop on a virtual clock that never waits for a timer.

    ``time()`` starts at ``start``. When every ready callback has run and the loop would sleep
    until its next timer, the clock jumps to that timer instead. Timers, ``asyncio.sleep``,
    ``wait_for`` timeouts and everything else built on ``loop.time()`` behave as in real time,
    only faster.

    Each turn of the loop also moves the clock by ``turn_s`` (0.1 µs), as a real clock moves
    while callbacks run. Without it, code that is correct in real time can spin for ever: a
    deadline computed as ``t + d`` and checked as ``now - t >= d`` can be false by one rounding
    step when ``now == t + d`` exactly, so a timer that re-arms itself for its deadline would
    fire again and again at one frozen instant; in real time the clock moves on and the check
    passes a moment later. A tenth of a microsecond per turn is a few microseconds per
    simulated second, far below anything the robot can notice.
    """

    def __init__(self, start: float = 0.0, *, turn_s: float = 1e-7) -> None:
        self._virtual_now = float(start)
        self.turn_s = turn_s
        super().__init__(_VirtualSelector(self))
        if not turn_s > 0:
            self.close()
            raise ValueError(f"turn_s must be positive, got {turn_s!r}")

    def time(self) -> float:
        """The virtual time in seconds."""
        return self._virtual_now

    def _advance(self, wait: float) -> None:
        now = self._virtual_now
        target = now + (wait if wait > 0.0 else 0.0) + self.turn_s
        # Far in the future a tenth of a microsecond may be below the float's resolution.
        self._virtual_now = target if target > now else math.nextafter(now, math.inf)


def run_virtual(main: Coroutine[Any, Any, T], *, start: float = 0.0) -> T:
    """Run ``main`` to completion on a fresh :class:`VirtualTimeLoop` (like ``asyncio.run``)."""
    loop = VirtualTimeLoop(start)
    try:
        asyncio.set_event_loop(loop)
        return loop.run_until_complete(main)
    finally:
        try:
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            asyncio.set_event_loop(None)
            loop.close()
