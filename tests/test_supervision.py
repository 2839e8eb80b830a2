"""Keep-alives only from a healthy heartbeat, and nothing failing silently on the event loop.

The heartbeat runs on the virtual clock here (time is the subject): a tick "works" by moving the
clock on, so beats that overrun are exact, and the keep-alives go to a real notification socket.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import socket
import uuid

import pytest

from brain.app.notify import Notifier
from brain.app.supervise import Supervisor, install_exception_handler
from brain.app.virtual_time import VirtualTimeLoop, run_virtual
from brain.heartbeat import Heartbeat


class _Tree:
    """Ticks take no time, except from ``slow_from`` to ``slow_to`` (loop time) where each takes ``slow_s``."""

    def __init__(self, slow_from: float, slow_to: float, slow_s: float) -> None:
        self.slow = (slow_from, slow_to, slow_s)
        self.loop: VirtualTimeLoop | None = None
        self.ticks = 0

    def tick_once(self) -> None:
        self.ticks += 1
        assert self.loop is not None
        start, end, cost = self.slow
        if start <= self.loop.time() < end:
            self.loop._virtual_now += cost


def test_watchdog_keepalives_come_at_half_the_timeout_and_stop_while_beats_overrun() -> None:
    """10 Hz, WATCHDOG_USEC 1 s: a keep-alive every 0.5 s, none while each tick takes 250 ms (4 s to 7 s)."""
    name = f"cozmo-brain-test-{uuid.uuid4().hex}"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(b"\0" + name.encode())
    listener.setblocking(False)
    sent_at: list[float] = []
    received: list[bytes] = []
    tree = _Tree(4.0, 7.0, 0.25)

    async def body() -> None:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, VirtualTimeLoop)
        tree.loop = loop
        notifier = Notifier("@" + name, watchdog_usec=1_000_000, clock=loop.time)

        def on_time(period: float) -> None:
            before = notifier.sent
            notifier.watchdog(slack_s=period / 2)
            if notifier.sent > before:
                sent_at.append(loop.time())
                received.append(listener.recv(100))  # as systemd would, at once (its queue holds ten)

        hb = Heartbeat(tree, rate_hz=10, clock=loop.time)
        hb.subscribe("on_time", on_time)
        await hb.run(asyncio.Event(), duration=10.0)

    try:
        run_virtual(body())
    finally:
        listener.close()
    assert received == [b"WATCHDOG=1"] * len(sent_at)
    before = [t for t in sent_at if t < 4.0]
    after = [t for t in sent_at if t > 7.5]
    assert [round(t, 3) for t in before] == [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5]
    assert not [t for t in sent_at if 4.0 <= t < 7.0]
    assert len(after) >= 4 and all(0.45 <= b - a <= 0.55 for a, b in zip(after, after[1:], strict=False))


def test_a_suspended_heartbeat_beats_without_ticking_the_tree() -> None:
    tree = _Tree(0, 0, 0)
    calls: list[float] = []

    async def body() -> Heartbeat:
        loop = asyncio.get_running_loop()
        tree.loop = loop  # type: ignore[assignment]
        hb = Heartbeat(tree, rate_hz=10, clock=loop.time, describe=lambda: "tree")
        hb.subscribe("on_time", calls.append)
        hb.suspended = "waiting for the robot"
        await hb.run(asyncio.Event(), duration=1.0)
        return hb

    hb = run_virtual(body())
    assert tree.ticks == 0 and hb.stats.beats == 10 and len(calls) == 10
    assert hb.last is not None and hb.last.branch == "suspended (waiting for the robot)"


def test_a_new_rate_takes_effect_on_the_next_beat() -> None:
    beats: list[float] = []

    async def body() -> None:
        loop = asyncio.get_running_loop()
        hb = Heartbeat(None, rate_hz=10, clock=loop.time)
        hb.subscribe("snapshot", lambda snap: beats.append(snap.at))
        loop.call_at(1.05, hb.set_rate, 20.0)
        await hb.run(asyncio.Event(), duration=2.0)

    run_virtual(body())
    gaps = [round(b - a, 3) for a, b in zip(beats, beats[1:], strict=False)]
    # beats at 0, 0.1 … 1.1 (the new rate is set at 1.05), then every 50 ms until 2.0
    assert gaps[:11] == [0.1] * 11 and set(gaps[11:]) == {0.05}
    assert len(beats) == 12 + 17


def test_failures_on_the_loop_are_logged_with_their_traceback(caplog: pytest.LogCaptureFixture) -> None:
    """A callback that raises and a task whose exception nobody reads both reach the log."""

    def broken_callback() -> None:
        raise ValueError("callback broke")

    async def orphan() -> None:
        raise KeyError("nobody awaits this")

    async def body() -> None:
        loop = asyncio.get_running_loop()
        install_exception_handler(loop)
        loop.call_soon(broken_callback)
        task = loop.create_task(orphan(), name="orphan")
        await asyncio.sleep(0.01)
        assert task.done()
        del task
        gc.collect()
        await asyncio.sleep(0)

    with caplog.at_level(logging.ERROR, logger="cozmo_brain"):
        asyncio.run(body())
    records = {r.getMessage().split(":")[0]: r for r in caplog.records}
    callback = [r for m, r in records.items() if m.startswith("Exception in callback")]
    orphan_rec = [r for m, r in records.items() if m.startswith("Task exception was never retrieved")]
    assert callback and callback[0].exc_info and callback[0].exc_info[0] is ValueError
    assert orphan_rec and orphan_rec[0].exc_info and orphan_rec[0].exc_info[0] is KeyError
    assert "(orphan)" in orphan_rec[0].getMessage()


def test_a_supervised_task_that_fails_or_ends_calls_for_a_stop(caplog: pytest.LogCaptureFixture) -> None:
    failed: list[str] = []

    async def dies() -> None:
        await asyncio.sleep(0.01)
        raise RuntimeError("boom")

    async def ends() -> None:
        await asyncio.sleep(0.01)

    async def body() -> None:
        sup = Supervisor(failed.append)
        sup.spawn(dies(), "dier")
        sup.spawn(ends(), "ender")
        sup.spawn(ends(), "finisher", may_end=True)
        sup.spawn(asyncio.sleep(10), "sleeper")
        await asyncio.sleep(0.05)
        await sup.close()  # the sleeper's cancellation is expected now

    with caplog.at_level(logging.ERROR, logger="cozmo_brain"):
        asyncio.run(body())
    assert sorted(failed) == ["dier", "ender"]
    died = [r for r in caplog.records if "'dier' died: RuntimeError: boom" in r.getMessage()]
    assert died and died[0].exc_info and died[0].exc_info[0] is RuntimeError
