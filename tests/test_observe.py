"""One way to observe the brain: the heartbeat's subscriptions, the simulator's listeners."""

from __future__ import annotations

import asyncio
import logging

import pytest

from brain.heartbeat import Heartbeat
from driver import events as ev
from driver.sim.server import SimulatedCozmo


def test_one_way_to_observe_the_heartbeat() -> None:
    async def body() -> None:
        loop = asyncio.get_running_loop()
        branch = ["a"]
        hb = Heartbeat(None, rate_hz=50, describe=lambda: branch[0], explain=lambda: "why not", clock=loop.time)
        heard: list[tuple[str, object]] = []
        stop_events = hb.subscribe("events", lambda events, now: heard.append(("events", [e.kind for e in events])))
        hb.subscribe("snapshot", lambda snap: heard.append(("snapshot", snap.branch)))
        hb.subscribe("change", lambda snap: heard.append(("change", snap.why)))

        def broken(snap: object) -> None:
            raise RuntimeError("a broken subscriber")

        hb.subscribe("snapshot", broken)
        hb.post(ev.Poked(loop.time()))
        hb.beat()
        hb.beat()
        branch[0] = "b"
        stop_events()
        hb.beat()
        assert heard == [("events", ["poked"]), ("snapshot", "a"), ("change", "why not"), ("events", []),
                         ("snapshot", "a"), ("snapshot", "b"), ("change", "why not")]
        with pytest.raises(ValueError, match="unknown subscription 'tick'"):
            hb.subscribe("tick", print)  # type: ignore[call-overload]

    asyncio.run(body())


def test_a_broken_subscriber_is_logged_and_the_others_still_hear(caplog: pytest.LogCaptureFixture) -> None:
    hb = Heartbeat(None, rate_hz=10, clock=lambda: 1.0)
    heard: list[int] = []
    hb.subscribe("snapshot", lambda snap: 1 / 0)
    hb.subscribe("snapshot", lambda snap: heard.append(snap.beat))
    with caplog.at_level(logging.ERROR):
        hb.beat()
    assert heard == [1] and "snapshot subscriber" in caplog.text and "ZeroDivisionError" in caplog.text


def test_nobody_reassigns_callbacks_the_observed_objects_have_none_to_reassign() -> None:
    hb = Heartbeat(None, rate_hz=10)
    for name in ("on_snapshot", "observers", "handlers", "on_time"):
        assert not hasattr(hb, name), name
    sim = SimulatedCozmo("127.0.0.1", 0, calibrate=False)
    assert not hasattr(sim, "on_message")
    removers = [sim.add_message_listener(print), sim.add_step_listener(print)]
    for remove in removers:
        remove()
        remove()  # twice is harmless
