"""Clocked frame release: frames prepared early on the loop go out at their time, in sequence order."""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

from driver.animation.clip import Clip, HeadAngle
from driver.animation.controller import AnimationController
from driver.link import FRAME_CLOCK_SWITCH_INTERVAL_S, Link, Role, tune_thread_switching
from driver.protocol.frame import PacketType, RawPacket
from driver.robot import Robot
from driver.sim.faults import NetworkFaults
from driver.sim.server import SimulatedCozmo

from .conftest import eventually, run


def _cmd(n: int) -> RawPacket:
    return RawPacket(PacketType.COMMAND, bytes([0x42, n]))


async def _pair(**engine_kwargs: object) -> tuple[Link, Link, list[tuple[float, bytes]]]:
    """A robot-role link that records (arrival time, body) of what it delivers, and a connected engine."""
    got: list[tuple[float, bytes]] = []
    loop = asyncio.get_running_loop()
    robot = await Link.open(Role.ROBOT, ("127.0.0.1", 0), name="robot-end",
                            on_packet=lambda p: got.append((loop.time(), p.body)))
    engine = await Link.open(Role.ENGINE, ("127.0.0.1", 0), peer=("127.0.0.1", robot.local_address[1]),
                             name="engine-end", **engine_kwargs)  # type: ignore[arg-type]
    await engine.connect(timeout=2.0)
    return engine, robot, got


@pytest.mark.parametrize("threaded", [True, False])
def test_a_clocked_frame_goes_out_at_its_time_and_later_packets_wait_behind_it(threaded: bool) -> None:
    async def main() -> None:
        engine, robot, got = await _pair(threaded_release=threaded)
        loop = asyncio.get_running_loop()
        try:
            engine.send(_cmd(0))  # queued before the frame: goes out first, at once
            at = loop.time() + 0.050
            with engine.frame_at(at):
                for n in (1, 2, 3):
                    engine.send(_cmd(n))
            # sent while the frame waits: must not overtake its sequence numbers
            engine.send(_cmd(4))
            await asyncio.sleep(0.010)
            assert [body[1] for _, body in got] == [0], "nothing of the frame (or after it) went out early"
            await eventually(lambda: len(got) == 5)
            assert [body[1] for _, body in got] == [0, 1, 2, 3, 4]
            frame_arrivals = [t for t, body in got if body[1] in (1, 2, 3)]
            assert min(frame_arrivals) >= at, "never before its time"
            assert max(frame_arrivals) < at + 0.200  # generous: shared test machines stall threads
            assert got[4][0] >= max(frame_arrivals)
            assert engine.stats.clocked_frames == 1
            assert (engine._clock is not None) is threaded
        finally:
            engine.close()
            robot.close()
        assert engine._clock is None

    run(main(), timeout=20)


def test_a_frame_whose_time_has_passed_goes_at_once_and_frames_keep_their_order() -> None:
    async def main() -> None:
        engine, robot, got = await _pair()
        loop = asyncio.get_running_loop()
        try:
            now = loop.time()
            with engine.frame_at(now + 0.030):
                engine.send(_cmd(1))
            with engine.frame_at(now - 0.010):  # late: right after the one before, not before it
                engine.send(_cmd(2))
            with engine.frame_at(now + 0.040):
                engine.send(_cmd(3))
                engine.send(RawPacket(PacketType.EVENT, bytes([0xF0, 9])))  # out of band, same frame
            await eventually(lambda: len(got) == 4)
            assert [body[1] for _, body in got] == [1, 2, 3, 9]
            assert got[0][0] >= now + 0.030
            assert engine.stats.clocked_frames == 3
        finally:
            engine.close()
            robot.close()

    run(main(), timeout=20)


def test_closing_or_resetting_cancels_a_waiting_frame() -> None:
    async def main() -> None:
        engine, robot, got = await _pair()
        loop = asyncio.get_running_loop()
        try:
            with engine.frame_at(loop.time() + 0.100):
                engine.send(_cmd(1))
            engine.forget("reset")  # a reset of the connection drops what it had prepared
            await asyncio.sleep(0.200)
            assert got == []
            await engine.connect(timeout=2.0)
            with engine.frame_at(loop.time() + 0.100):
                engine.send(_cmd(2))
            clock = engine._clock
            engine.close()
            assert clock is not None and not clock._thread.is_alive()
            await asyncio.sleep(0.200)
            assert got == []
        finally:
            engine.close()
            robot.close()

    run(main(), timeout=20)


def test_links_with_network_impairment_release_from_the_loop() -> None:
    async def main() -> None:
        engine, robot, got = await _pair(impairment=NetworkFaults())
        loop = asyncio.get_running_loop()
        try:
            at = loop.time() + 0.030
            with engine.frame_at(at):
                engine.send(_cmd(1))
            await eventually(lambda: len(got) == 1)
            assert got[0][0] >= at
            assert engine._clock is None  # the faults hook runs on the loop, so no thread
        finally:
            engine.close()
            robot.close()

    run(main(), timeout=20)


def test_switch_interval_tuning_is_explicit_and_checked() -> None:
    before = sys.getswitchinterval()
    try:
        assert tune_thread_switching() == before
        assert sys.getswitchinterval() == pytest.approx(FRAME_CLOCK_SWITCH_INTERVAL_S)
        with pytest.raises(ValueError, match="switch interval"):
            tune_thread_switching(0.0)
    finally:
        sys.setswitchinterval(before)


@pytest.mark.e2e
@pytest.mark.parametrize("release", ["thread", "loop"])
def test_both_release_modes_stream_a_steady_30_fps_to_the_simulator(release: str) -> None:
    async def main() -> tuple[list[float], AnimationController]:
        sim = await SimulatedCozmo(port=0).start()
        arrivals: list[float] = []
        sim.on_message = lambda msg: arrivals.append(time.perf_counter()) \
            if type(msg).__name__ in ("OutputAudio", "OutputSilence") else None
        robot = Robot(*sim.address, lost_after=2.0)
        await robot.connect()
        ctl = AnimationController(robot, seed=1, release=release)
        try:
            await ctl.play(Clip("c", head_angle=(HeadAngle(0, 900, 20),)))
            return arrivals, ctl
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    arrivals, ctl = run(main(), timeout=30)
    assert len(arrivals) >= 27
    span = arrivals[-1] - arrivals[0]
    assert span == pytest.approx((len(arrivals) - 1) / 30, abs=0.02)
    assert ctl.stats.missed_frames == 0


def test_release_options_are_checked() -> None:
    async def main() -> None:
        robot = Robot("127.0.0.1", 9)
        with pytest.raises(ValueError, match="release"):
            AnimationController(robot, release="sometimes")
        with pytest.raises(ValueError, match="lead_s"):
            AnimationController(robot, lead_s=0.5)

    run(main(), timeout=5)


@pytest.mark.skipif(not hasattr(__import__("os"), "sched_setaffinity"), reason="CPU affinity is Linux-only")
def test_the_release_thread_takes_the_cpu_and_priority_it_is_given(caplog: pytest.LogCaptureFixture) -> None:
    import logging
    import os

    async def main() -> None:
        cpu = min(os.sched_getaffinity(0))  # a CPU this process may use (containers may not have CPU 0)
        engine, robot, got = await _pair(release_cpu=cpu, release_priority=1)
        loop = asyncio.get_running_loop()
        try:
            with caplog.at_level(logging.WARNING, logger="driver.link"):
                with engine.frame_at(loop.time() + 0.010):
                    engine.send(_cmd(1))
                await eventually(lambda: len(got) == 1)
            clock = engine._clock
            assert clock is not None and clock._thread.native_id is not None
            assert clock.cpu == cpu and os.sched_getaffinity(clock._thread.native_id) == {cpu}
            granted = os.sched_getscheduler(clock._thread.native_id) == os.SCHED_FIFO
            assert clock.realtime is granted
            # where the system refuses real-time priority, it says so (once) and the frames still go
            assert granted or any("real-time priority 1 not granted" in r.getMessage() for r in caplog.records)
        finally:
            engine.close()
            robot.close()

    run(main(), timeout=20)
