"""Clip Event keyframes reach behaviours: callbacks, polling and awaiting, in step with the frames."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from driver.animation.clip import Clip, Event, HeadAngle
from driver.animation.controller import AnimationController
from driver.animation.playback import Playback
from driver.animation.timeline import FRAME_MS
from driver.robot import Robot
from driver.sim.server import SimulatedCozmo

from .conftest import run

pytestmark = pytest.mark.e2e


def _clip() -> Clip:
    return Clip("ev", head_angle=(HeadAngle(0, 400, 10),),
                event=(Event(100, "contact"), Event(300, "release"), Event(300, "sound_cue")))


async def _stack(**kwargs: Any) -> tuple[SimulatedCozmo, Robot, AnimationController]:
    sim = await SimulatedCozmo(port=0, calibrate=False).start()
    robot = Robot(*sim.address, lost_after=2.0)
    await robot.connect()
    return sim, robot, AnimationController(robot, seed=3, **kwargs)


async def _teardown(sim: SimulatedCozmo, robot: Robot, ctl: AnimationController) -> None:
    await ctl.stop()
    await robot.disconnect()
    await sim.stop()


def test_events_reach_the_controller_and_the_playback_callbacks_in_clip_order_on_time() -> None:
    async def main() -> None:
        heard: list[tuple[str, str, float]] = []
        loop = asyncio.get_running_loop()
        sim, robot, ctl = await _stack(on_event=lambda pb, e: heard.append(("controller", e, loop.time())))
        try:
            pb = ctl.play(_clip(), on_event=lambda pb, e: heard.append(("playback", e, loop.time())))
            await pb
        finally:
            await _teardown(sim, robot, ctl)
        assert [(who, e) for who, e, _ in heard] == [
            ("controller", "contact"), ("playback", "contact"),
            ("controller", "release"), ("playback", "release"),
            ("controller", "sound_cue"), ("playback", "sound_cue"),
        ]
        assert [e for e, _ in pb.events] == ["contact", "release", "sound_cue"]
        assert ctl.stats.events_fired == 3
        assert pb.started_at is not None
        # each event is stamped with its frame's time: 100 ms and 300 ms into the clip
        by_name = dict(pb.events)
        assert by_name["contact"] - pb.started_at == pytest.approx(0.100, abs=1e-6)
        assert by_name["release"] - pb.started_at == pytest.approx(0.300, abs=1e-6)
        # and heard no earlier than that frame goes out (nor much later)
        for _, e, when in heard:
            assert -1e-3 <= when - by_name[e] < 0.25

    run(main(), timeout=30)


def test_a_behaviour_can_poll_or_await_an_event_and_hears_false_when_it_never_comes() -> None:
    async def main() -> None:
        sim, robot, ctl = await _stack()
        try:
            pb = ctl.play(_clip())
            assert not pb.fired("contact")
            waiting_release = asyncio.ensure_future(pb.wait_for_event("release"))
            waiting_never = asyncio.ensure_future(pb.wait_for_event("no_such_event"))
            assert await pb.wait_for_event("contact") is True
            assert pb.fired("contact") and not pb.fired("release")
            assert await waiting_release is True
            await pb
            assert await waiting_never is False
            assert await pb.wait_for_event("contact") is True  # already fired: at once
            # cancelled before its events: waiters hear False
            pb2 = ctl.play(_clip())
            waiting = asyncio.ensure_future(pb2.wait_for_event("release"))
            await asyncio.sleep(2 * FRAME_MS / 1000)
            pb2.cancel()
            assert await waiting is False
            assert not pb2.fired("release")
        finally:
            await _teardown(sim, robot, ctl)

    run(main(), timeout=30)


def test_a_failing_event_handler_is_logged_and_the_clip_plays_on(caplog: pytest.LogCaptureFixture) -> None:
    def broken(pb: Playback, event_id: str) -> None:
        raise RuntimeError("handler bug")

    async def main() -> Playback:
        sim, robot, ctl = await _stack(on_event=broken)
        try:
            frames0 = ctl.stats.frames
            pb = ctl.play(_clip())
            await pb
            assert pb.succeeded and ctl.stats.frames - frames0 >= 12
            return pb
        finally:
            await _teardown(sim, robot, ctl)

    with caplog.at_level(logging.ERROR, logger="driver.animation.controller"):
        pb = run(main(), timeout=30)
    assert [e for e, _ in pb.events] == ["contact", "release", "sound_cue"]
    assert sum("event handler failed" in r.getMessage() for r in caplog.records) == 3


def test_events_of_a_looping_clip_fire_on_every_pass() -> None:
    from driver.animation.playback import Fit, PlaybackParams

    async def main() -> None:
        sim, robot, ctl = await _stack()
        try:
            clip = Clip("tick", head_angle=(HeadAngle(0, 200, 10),), event=(Event(0, "beat"),))
            pb = ctl.play(clip, params=PlaybackParams(duration_ms=1000, fit=Fit.LOOP))
            await pb
        finally:
            await _teardown(sim, robot, ctl)
        times = [t for e, t in pb.events if e == "beat"]
        assert len(times) == 5  # a 200 ms clip looped over 1 s
        gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
        assert all(g == pytest.approx(gaps[0], abs=1e-6) for g in gaps)

    run(main(), timeout=30)
