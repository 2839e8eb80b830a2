"""The handle actions and playbacks share: settles once, awaitable, pollable, quiet when polled."""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest

from driver.actions import Action
from driver.animation.playback import Playback
from driver.pending import Pending


def test_it_settles_once_and_tells_both_the_awaiting_and_the_polling_caller() -> None:
    async def main() -> None:
        ok, failed = Pending(), Pending()
        assert not ok.done() and ok.error is None
        assert ok._settle(None) and not ok._settle(RuntimeError("late"))  # a late outcome changes nothing
        await ok
        assert ok.done() and ok.error is None
        boom = RuntimeError("timed out")
        assert failed._settle(boom) and not failed._settle(None)
        assert failed.done() and failed.error is boom
        with pytest.raises(RuntimeError, match="timed out"):
            await failed

    asyncio.run(main())


def test_a_failure_only_polled_is_not_reported_as_never_retrieved(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        handle = Pending()
        handle._settle(RuntimeError("cancelled"))
        assert handle.done()
        del handle
        gc.collect()
        await asyncio.sleep(0)

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        asyncio.run(main())
    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()]


def test_actions_and_playbacks_are_such_handles() -> None:
    assert issubclass(Action, Pending) and issubclass(Playback, Pending)
