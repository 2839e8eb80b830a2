"""The awaitable-and-pollable handle behind actions and animation playbacks.

Two kinds of caller look at the same long-running thing: a behaviour-tree node starts it on one
tick and polls it on later ones (``done()``, ``error``), other code simply ``await``s it. A
:class:`Pending` is both, once: it wraps one future that settles exactly once, with nothing or
with the error that ended it. A handle that is only polled never makes asyncio warn about an
exception nobody retrieved.
"""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from typing import Any

__all__ = ["Pending"]


class Pending:
    """Something under way that completes once: ``await`` it or poll ``done()``/``error``.

    Subclasses keep their own states and call :meth:`_settle` once the outcome is known; it
    returns False (and changes nothing) when the handle had already settled, so a late
    acknowledgement, timeout or cancel is harmless.
    """

    def __init__(self) -> None:
        self._future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._future.add_done_callback(_consume_exception)

    def __await__(self) -> Generator[Any, None, None]:
        return self._future.__await__()

    def done(self) -> bool:
        """True once it completed, failed or was cancelled."""
        return self._future.done()

    @property
    def error(self) -> BaseException | None:
        """Why it failed (None while under way or after success)."""
        if not self._future.done() or self._future.cancelled():
            return None
        return self._future.exception()

    def _settle(self, error: BaseException | None) -> bool:
        """Complete with ``error`` (None: success); False when it had already completed."""
        if self._future.done():
            return False
        if error is None:
            self._future.set_result(None)
        else:
            self._future.set_exception(error)
        return True


def _consume_exception(fut: asyncio.Future[None]) -> None:
    # Handles are often polled rather than awaited: never warn about an unretrieved failure.
    if not fut.cancelled():
        fut.exception()
