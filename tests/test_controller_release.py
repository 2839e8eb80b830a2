"""Clocked frame release: frames prepared early on the loop go out at their time, in sequence order."""

from __future__ import annotations

import asyncio
import math
import select
import socket
import statistics
import struct
import sys
import threading
import time

import pytest

from driver.animation.clip import Clip, HeadAngle
from driver.animation.controller import AnimationController
from driver.link import FRAME_CLOCK_SWITCH_INTERVAL_S, Link, Role, tune_thread_switching
from driver.protocol import messages as m
from driver.protocol.frame import DecodeError, PacketType, RawPacket, decode_frame
from driver.robot import Robot, RobotError
from driver.sim.faults import NetworkFaults
from driver.sim.server import SimulatedCozmo

from .conftest import eventually, run

#: Linux's socket option (and control message type) for nanosecond kernel receive time stamps.
_SO_TIMESTAMPNS = 35


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


def test_frames_with_nothing_behind_them_do_not_wake_the_loop_and_are_still_counted() -> None:
    """The release thread wakes the loop only when packets wait behind a frame it sent.

    A stream of clocked frames with nothing queued after them (an idle daemon's frames) is
    reported back lazily, on the loop's next turn of its own: no wake-up per frame, and the counts
    are whole whenever they are read.
    """

    async def main() -> None:
        engine, robot, got = await _pair(threaded_release=True)
        loop = asyncio.get_running_loop()
        woken: list[object] = []
        real = engine._released

        def spy(stage: object) -> None:
            woken.append(stage)
            real(stage)  # type: ignore[arg-type]

        engine._released = spy  # type: ignore[method-assign]
        try:
            for n in range(20):
                with engine.frame_at(loop.time() + 0.010):
                    engine.send(_cmd(n))
                await asyncio.sleep(0.020)
            await eventually(lambda: len(got) == 20)
            assert [body[1] for _, body in got] == list(range(20))
            assert woken == [], f"the loop was woken for {len(woken)} of 20 frames"
            # the release thread's report reaches the stats on a later turn of the loop
            await eventually(lambda: engine.stats.clocked_frames == 20)
            # one packet sent while a frame waits: the thread wakes the loop for it
            with engine.frame_at(loop.time() + 0.030):
                engine.send(_cmd(20))
            engine.send(_cmd(21))
            await eventually(lambda: len(got) == 22, timeout=2)
            assert len(woken) == 1
        finally:
            engine.close()
            robot.close()

    run(main(), timeout=20)



def _voluntary_switches(tid: int) -> int:
    with open(f"/proc/self/task/{tid}/status") as f:
        return int(f.read().split("voluntary_ctxt_switches:")[1].split()[0])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts the thread's wake-ups in /proc (Linux)")
def test_a_steady_stream_wakes_the_release_thread_once_a_frame() -> None:
    """Frames handed over 10 ms early at 30 fps: the thread sleeps from one frame's slot to the
    next and finds each frame waiting, rather than being woken to take it and again at its time.
    A frame after a pause (a dozing clock) still wakes it, and goes out at its time.

    Both the thread's own count of its wake-ups and the kernel's count of its switches (which
    also holds each wait for the GIL or the session's guard on a busy machine) are checked: 61
    each for the 60 frames, with or without three busy processes on two cores. A frame due a few
    nanoseconds before the slot (float sums) that rang the thread made it 90 (the kernel's count
    up to 107 under that load)."""

    async def main() -> None:
        engine, robot, got = await _pair(threaded_release=True)
        loop = asyncio.get_running_loop()
        period = 1 / 30
        try:
            t0 = loop.time() + 0.050

            async def stream(first: int, count: int) -> None:
                for k in range(first, first + count):
                    due = t0 + k * period
                    await asyncio.sleep(max(0.0, due - 0.010 - loop.time()))
                    with engine.frame_at(due):
                        engine.send(_cmd(k % 256))

            await stream(0, 3)  # the thread starts with the first frame
            tid = next(t.native_id for t in threading.enumerate() if t.name == "engine-end-frame-clock")
            clock = engine._clock
            assert clock is not None
            before, own_before = _voluntary_switches(tid), clock.wakeups
            await stream(3, 60)
            await eventually(lambda: len(got) == 63)
            wakes, own = _voluntary_switches(tid) - before, clock.wakeups - own_before
            assert own <= 60 * 1.2, f"{own} wake-ups of the release thread for 60 frames"
            assert own <= wakes <= 60 * 1.5, f"{wakes} switches of the release thread for 60 frames ({own} its own)"
            # after a pause, a frame handed over still goes out at its time
            await asyncio.sleep(0.3)
            at = loop.time() + 0.020
            with engine.frame_at(at):
                engine.send(_cmd(99))
            await eventually(lambda: len(got) == 64)
            assert got[-1][1][1] == 99
            assert got[-1][0] - at < 0.015, f"the frame after a pause came {got[-1][0] - at:.3f} s after its time"
        finally:
            engine.close()
            robot.close()

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
            # the release thread's report reaches the stats on a later turn of the loop
            await eventually(lambda: engine.stats.clocked_frames == 3)
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


class StampingRelay:
    """A UDP relay between the engine and the simulator that notes when each engine datagram came.

    The time is the kernel's receive stamp (``SO_TIMESTAMPNS``): when the datagram entered the
    loopback, which is when the engine sent it, whatever this relay's thread or the event loop
    were doing at that moment. So a busy machine delays the forwarding, never the measurement.
    """

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # the engine's peer
        self.front.bind(("127.0.0.1", 0))
        self.front.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
        self.back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # the simulator's peer
        self.back.bind(("127.0.0.1", 0))
        self.address: tuple[str, int] = self.front.getsockname()
        self._wake_r, self._wake_w = socket.socketpair()  # ends the wait in close(), no polling
        #: (kernel receive time, CLOCK_REALTIME seconds; datagram) of everything the engine sent
        self.received: list[tuple[float | None, bytes]] = []
        self._engine: tuple[str, int] | None = None
        self._thread = threading.Thread(target=self._run, name="stamping-relay", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            ready, _, _ = select.select([self.front, self.back, self._wake_r], [], [])
            if self._wake_r in ready:
                return
            if self.front in ready:
                data, ancillary, _, addr = self.front.recvmsg(65536, socket.CMSG_SPACE(16))
                stamp = None
                for level, kind, payload in ancillary:
                    if level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS:
                        sec, nsec = struct.unpack("qq", payload[:16])
                        stamp = sec + nsec * 1e-9
                self.received.append((stamp, data))
                self._engine = addr
                self.back.sendto(data, self.target)
            if self.back in ready:
                data, _ = self.back.recvfrom(65536)
                if self._engine is not None:
                    self.front.sendto(data, self._engine)

    def close(self) -> None:
        self._wake_w.send(b"x")
        self._thread.join(timeout=2.0)
        for sock in (self.front, self.back, self._wake_r, self._wake_w):
            sock.close()

    def audio_arrivals(self) -> list[float]:
        """Kernel receive times of the frames' audio packets (OutputAudio/OutputSilence), in order,
        resends left out (the same sequence number again)."""
        out: list[float] = []
        seen: set[int] = set()
        for stamp, data in self.received:
            try:
                frame = decode_frame(data)
            except DecodeError:
                continue
            for raw in frame.packets:
                if raw.type >= PacketType.EVENT or raw.seq in seen:
                    continue
                if type(m.decode(raw)).__name__ in ("OutputAudio", "OutputSilence"):
                    seen.add(raw.seq)
                    assert stamp is not None, "the kernel gave no receive time stamp"
                    out.append(stamp)
        return out


def _quartile(values: list[float]) -> float:
    """The lower quartile: where a frame's lateness is, load or not (load only adds a late tail)."""
    return statistics.quantiles(values, n=4)[0]


async def _longest_stall(longest: list[float], nap: float = 0.005) -> None:
    """Keep in ``longest[0]`` the longest time the event loop could not run a ready timer.

    The frame clock skips a frame only when its own timer ran a whole period (33 ms) late; a
    nap that ends that late shows the loop was held at least that long minus the nap.
    """
    loop = asyncio.get_running_loop()
    while True:
        t = loop.time()
        await asyncio.sleep(nap)
        longest[0] = max(longest[0], loop.time() - t - nap)


@pytest.mark.e2e
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="kernel receive time stamps as Linux gives them")
@pytest.mark.parametrize("release", ["thread", "loop"])
def test_both_release_modes_stream_a_steady_30_fps_to_the_simulator(release: str) -> None:
    """Every frame reaches the wire once, in its own 1/30 s slot, on time, without drift.

    Arrivals are stamped by the kernel at the relay (see StampingRelay), so a loaded machine
    delays only what the sender really delays. Frame k is due at ``clock_origin + k / 30``; an
    arrival belongs to the slot it falls in (from 1 ms before its time). Load makes some frames
    late, so on-time and drift are judged on the lower quartile of the lateness, which a late
    tail does not move but a clock that is early, late or drifting does. A slot may be skipped
    only if the loop was really held for a period.
    """
    async def main() -> tuple[list[float], float, AnimationController]:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        relay = StampingRelay(sim.address)
        robot = Robot(*relay.address, lost_after=2.0)
        ctl = AnimationController(robot, seed=1, release=release)
        ctl.stream_ahead = False  # every frame at its time: the clock's precision is the subject
        stall = [0.0]
        watch = asyncio.ensure_future(_longest_stall(stall))
        try:
            await robot.connect()
            loop = asyncio.get_running_loop()
            real_to_loop = loop.time() - time.time()  # the loop's clock is time.monotonic()
            await ctl.play(Clip("c", head_angle=(HeadAngle(0, 900, 20),)))
            await ctl.stop()  # no frame after this one; the last may still wait for its time
            await eventually(lambda: len(relay.audio_arrivals()) >= ctl.stats.frames)
            origin = ctl.clock_origin
            assert origin is not None
            return [a + real_to_loop - origin for a in relay.audio_arrivals()], stall[0], ctl
        finally:
            watch.cancel()
            await ctl.stop()
            await robot.disconnect()
            relay.close()
            await sim.stop()

    arrivals, stall, ctl = run(main(), timeout=30)
    stats = ctl.stats
    assert stats.offline_frames == 0 and stats.send_errors == 0
    if stall < 0.025:
        assert stats.missed_frames == 0, f"frames skipped while the loop was never held 25 ms ({stall * 1e3:.1f})"
    assert len(arrivals) == stats.frames >= 27, "every frame reaches the wire, once"
    slots = [math.floor(a * 30 + 0.03) for a in arrivals]
    late = [(a - k / 30) * 1000.0 for a, k in zip(arrivals, slots, strict=True)]  # ms after the slot
    on_time = _quartile(late)
    assert on_time < 5.0, f"frames are off their slots: a quarter of them {on_time:.1f} ms or more after it"
    half = len(late) // 2
    drift = _quartile(late[half:]) - _quartile(late[:half])
    assert abs(drift) < 4.0, f"the frame clock drifted {drift:.1f} ms over {len(late)} frames"
    periods = [(b - a) * 1000.0 for a, b in zip(arrivals, arrivals[1:], strict=False)]
    assert abs(statistics.median(periods) - 1000.0 / 30) < 1.5


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


def _frame_clock_threads() -> dict[int, threading.Thread]:
    return {t.native_id or 0: t for t in threading.enumerate() if t.name.endswith("frame-clock")}


@pytest.mark.e2e
@pytest.mark.skipif(not hasattr(__import__("os"), "sched_setaffinity"), reason="CPU affinity is Linux-only")
def test_the_controllers_release_settings_reach_the_release_thread_through_the_robot(
        caplog: pytest.LogCaptureFixture) -> None:
    import logging
    import os

    async def main() -> None:
        cpu = max(os.sched_getaffinity(0))
        before = _frame_clock_threads()
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address, lost_after=2.0, name="tuned")
        await robot.connect()
        ctl = AnimationController(robot, seed=1, release_priority=2, release_cpu=cpu)
        try:
            with caplog.at_level(logging.WARNING, logger="driver.link"):
                pb = ctl.play(Clip("c", head_angle=(HeadAngle(0, 100, 10),)))
                await pb
            started = {tid: t for tid, t in _frame_clock_threads().items() if tid not in before}
            assert [t.name for t in started.values()] == ["tuned-frame-clock"]
            tid = next(iter(started))
            assert os.sched_getaffinity(tid) == {cpu}
            granted = os.sched_getscheduler(tid) == os.SCHED_FIFO
            assert granted or any("real-time priority 2 not granted" in r.getMessage() for r in caplog.records)
            if granted:
                assert os.sched_getparam(tid).sched_priority == 2
            assert robot.stats.clocked_frames >= pb.frames_sent  # the clip's frames took the clocked path
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    run(main(), timeout=20)


def test_the_in_memory_network_streams_clocked_frames_from_the_loop() -> None:
    """Links without a socket (the offline simulation's) release frames from a loop timer, on time."""
    from driver.memlink import MemoryNetwork

    async def main() -> None:
        before = _frame_clock_threads()
        net = MemoryNetwork()
        sim = SimulatedCozmo("127.0.0.1", 5551, calibrate=False)
        await sim.start(open_link=net.open_link)
        robot = Robot("127.0.0.1", 5551, lost_after=2.0)
        await robot.connect(open_link=net.open_link)
        loop = asyncio.get_running_loop()
        arrivals: list[float] = []
        sim.add_message_listener(lambda msg: arrivals.append(loop.time())
                                 if type(msg).__name__ in ("OutputAudio", "OutputSilence") else None)
        ctl = AnimationController(robot, seed=1)  # release="thread": the link has no thread to give
        ctl.stream_ahead = False  # every frame at its time (test_stream_ahead.py: the clip's go early)
        try:
            pb = ctl.play(Clip("c", head_angle=(HeadAngle(0, 300, 20),)))
            await pb
            assert pb.succeeded and pb.ended_by_robot
            assert robot.stats.clocked_frames >= pb.frames_sent == 10
            assert _frame_clock_threads().keys() == before.keys()
            origin = ctl.clock_origin
            assert origin is not None
            late = [a - origin - k / 30 for k, a in enumerate(arrivals)]
            assert min(late) >= 0.0, "never before its time"
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    run(main(), timeout=20)


def test_frames_missed_while_the_loop_was_held_are_skipped_never_sent_in_a_burst() -> None:
    """On the virtual clock the loop is held for 200 ms mid-clip (six frames' time): those frames
    are counted as missed and the clip goes on one frame per slot; the robot plays at its own
    rate, and a burst would only overflow its buffer."""
    from brain.app.virtual_time import run_virtual
    from driver.memlink import MemoryNetwork

    async def main() -> tuple[list[float], int]:
        loop = asyncio.get_running_loop()
        net = MemoryNetwork()
        sim = SimulatedCozmo("127.0.0.1", 5551, calibrate=False)
        await sim.start(open_link=net.open_link)
        robot = Robot("127.0.0.1", 5551, lost_after=2.0)
        await robot.connect(open_link=net.open_link)
        arrivals: list[float] = []
        sim.add_message_listener(lambda msg: arrivals.append(loop.time())
                                 if type(msg).__name__ in ("OutputAudio", "OutputSilence") else None)
        ctl = AnimationController(robot, seed=1)
        try:
            pb = ctl.play(Clip("c", head_angle=(HeadAngle(0, 1000, 20),)))
            await asyncio.sleep(0.5)
            for _ in range(5):  # let what is on its way arrive first
                await asyncio.sleep(0)
            loop._advance(0.2)  # type: ignore[attr-defined]  # the loop held: time passes, nothing runs
            await pb
            return arrivals, ctl.stats.missed_frames
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    arrivals, missed = run_virtual(main())
    assert missed >= 5
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:], strict=False)]
    assert min(gaps) > 0.02, f"frames sent together: {[(i, round(g, 4)) for i, g in enumerate(gaps) if g < 0.02]}"


def test_clocked_frames_need_a_connection() -> None:
    async def main() -> None:
        robot = Robot("127.0.0.1", 9)
        with pytest.raises(RobotError, match="not connected"):
            with robot.frame_at(0.0):
                pass
        with pytest.raises(RobotError, match="not connected"):
            robot.flush()

    run(main(), timeout=5)
