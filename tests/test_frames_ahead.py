"""Frames prepared a read ahead: between two reads of the robot's input nothing can change them.

With the heartbeat beating every third frame slot (``beat_every``) and the robot's datagrams read
on the clock, the controller wakes only where it reads the input or a beat comes, and prepares
the frames of the slots in between in that wake-up; the release thread still sends each at its
time. The wire is the subject: a simulated robot over real UDP, in real time, with margins for a
loaded machine. What reaches the robot must not change, so the same clip is played with and
without it and the two streams are compared message by message.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from brain.app.virtual_time import run_virtual
from brain.heartbeat import Heartbeat
from driver.animation.clip import BackpackLights, BodyMotion, Clip, HeadAngle, LiftHeight, ProceduralFace
from driver.animation.controller import FRAME_S, AnimationController
from driver.memlink import MemoryNetwork
from driver.protocol.messages import DriveWheels
from driver.protocol.registry import encode_body
from driver.robot import Robot
from driver.sim.server import SimulatedCozmo

from .conftest import run
from .test_input_clock import _reads

pytestmark = pytest.mark.e2e


def _clip() -> Clip:
    """Two seconds that move the head, the lift, the wheels, the lights and the face."""
    return Clip(
        "ahead",
        head_angle=(HeadAngle(0, 300, 10), HeadAngle(600, 400, 30), HeadAngle(1500, 300, 0)),
        lift_height=(LiftHeight(100, 300, 60), LiftHeight(1200, 400, 32)),
        body_motion=(BodyMotion(200, 500, "STRAIGHT", 40),),
        backpack_lights=(BackpackLights(0, 0, left=(1.0, 0.0, 0.0, 1.0), back=(0.0, 0.0, 1.0, 1.0)),),
        procedural_face=(ProceduralFace(0), ProceduralFace(700, face_center_x=20.0),
                         ProceduralFace(1400, face_center_x=-15.0), ProceduralFace(1999)),
    )


async def _session(beat_every: int, work: Callable[[AnimationController], Any], seconds: float,
                   ) -> tuple[list[tuple[str, bytes]], list[float], list[float], int]:
    """Run ``work`` on a controller (``beat_every`` set) against a simulator over UDP; returns
    what the simulator took in from the first StartAnimation on (or all of it), the loop times
    the robot's input was read and the frames arrived during ``seconds``, and the frames missed."""
    loop = asyncio.get_running_loop()
    sim = await SimulatedCozmo("127.0.0.1", 0, calibrate=False).start()
    robot = Robot(*sim.address)
    await robot.connect()
    link = robot.link
    assert link is not None
    taken: list[float] = []
    arrived: list[float] = []
    link.tap = lambda sent, data: None if sent else taken.append(loop.time())
    sim.add_message_listener(lambda msg: arrived.append(loop.time())
                             if type(msg).__name__ in ("OutputAudio", "OutputSilence") else None)
    ctl = AnimationController(robot, seed=3)
    ctl.beat_on(beat_every)
    ctl.idle.still = True
    try:
        await asyncio.sleep(0.5)  # the robot at rest
        ctl.start()
        await asyncio.sleep(0.2)
        taken.clear()
        arrived.clear()
        done = work(ctl)
        await asyncio.sleep(seconds)
        reads, frames = _reads(taken), list(arrived)
        if done is not None:
            await asyncio.wait_for(done, 5.0)
        await asyncio.sleep(0.2)
        missed = ctl.stats.missed_frames
        resent = link.session.stats.resent_packets
    finally:
        await ctl.stop()
        await robot.disconnect()
        await sim.stop()
    msgs = list(sim.received)
    starts = [i for i, msg in enumerate(msgs) if type(msg).__name__ == "StartAnimation"]
    stream = [(type(msg).__name__, encode_body(msg)) for msg in msgs[starts[0] if starts else 0:]]
    assert resent == 0, f"{resent} packets resent: an ack read after the link's timer gave up on it"
    return stream, reads, frames, missed


def _clip_stream(stream: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    end = next(i for i, (name, _) in enumerate(stream) if name == "EndAnimation")
    return stream[:end + 1]


def test_a_clip_reaches_the_robot_the_same_when_its_frames_are_prepared_a_read_ahead() -> None:
    async def main() -> None:
        one = await _session(1, lambda ctl: ctl.play(_clip()), 1.8)
        ahead = await _session(3, lambda ctl: ctl.play(_clip()), 1.8)
        for _, _, frames, _ in (one, ahead):
            assert len(frames) >= 0.9 * 1.8 / FRAME_S, len(frames)  # a frame every slot
        # message by message, bytes and all: the same frames, the same order (a frame slot skipped
        # on a loaded machine delays the clip, it does not change it)
        assert _clip_stream(ahead[0]) == _clip_stream(one[0])
        assert len(_clip_stream(one[0])) > 60
        # the robot moves, so its input is read every other slot; beats every third slot keep
        # a read each, two of every three slots: the clock's wake-ups, fewer than one a slot
        slots = 1.8 / FRAME_S
        assert len(one[1]) >= 0.8 * slots, len(one[1])
        assert len(ahead[1]) <= 0.75 * slots, len(ahead[1])

    run(main(), timeout=60)


def test_a_stream_beside_a_still_robot_wakes_the_clock_every_third_slot_and_every_frame_goes_out_on_time() -> None:
    def stream(ctl: AnimationController) -> None:
        ctl.idle_silence = True  # a frame every slot, the robot still throughout

    async def main() -> None:
        seconds = 3.0
        _, reads, frames, missed = await _session(3, stream, seconds)
        slots = seconds / FRAME_S
        assert missed <= 2  # a loaded machine may hold the loop past a slot now and then
        assert 0.25 * slots <= len(reads) <= 0.4 * slots, len(reads)
        assert len(frames) >= 0.9 * slots, len(frames)
        gaps = sorted(b - a for a, b in zip(frames, frames[1:], strict=False))
        assert gaps[len(gaps) // 2] == pytest.approx(FRAME_S, abs=0.004)  # one per slot, evenly
        # none held back to the next read (but for a slot or two skipped on a loaded machine)
        assert sum(1 for g in gaps if g > 1.5 * FRAME_S) <= missed + 1, gaps[-5:]

    run(main(), timeout=60)


def test_a_clip_played_at_a_beat_starts_on_a_frame_prepared_after_it() -> None:
    """The frames a read ahead are prepared after the beat that shares the clock's wake-up, and
    never past the next beat: a clip the tree plays at a beat is on the beat's own slot, even where
    the frame's tick runs first in that wake-up (as here). With a frame prepared at every slot it
    is on the next slot then."""
    async def main(beat_every: int) -> tuple[list[float], list[float], float]:
        loop = asyncio.get_running_loop()
        sim = await SimulatedCozmo("127.0.0.1", 0, calibrate=False).start()
        robot = Robot(*sim.address)
        await robot.connect()
        assert robot.link is not None
        taken: list[float] = []
        robot.link.tap = lambda sent, data: None if sent else taken.append(loop.time())
        starts: list[float] = []
        sim.add_message_listener(lambda msg: starts.append(loop.time())
                                 if type(msg).__name__ == "StartAnimation" else None)
        ctl = AnimationController(robot, seed=3)
        ctl.beat_on(beat_every)
        ctl.idle_silence = True  # a frame every slot
        played: list[float] = []

        def hold_until(tick: float) -> None:
            while loop.time() < tick + 0.0001:
                time.sleep(0.0001)

        class Tree:  # plays a short clip at every fifth beat
            beats = 0

            def tick_once(self) -> None:
                self.beats += 1
                # Hold the loop from 3 ms before the next beat's slot until just past it, so that
                # its frame tick and the beat (20 µs after it) are due in one turn of the loop,
                # the tick first.
                loop.call_at(ctl.next_beat_after(loop.time()) - 0.003, hold_until, ctl.next_beat_after(loop.time()))
                if self.beats % 5 == 0:
                    played.append(loop.time())
                    ctl.play(Clip(f"nod{self.beats}", head_angle=(HeadAngle(0, 100, 10 + self.beats % 20),)))

        hb = Heartbeat(Tree(), rate_hz=10.0, clock=loop.time)
        hb.align = lambda t: ctl.next_beat_after(t) + 0.00002
        hb.before_beat = robot.poll_input
        try:
            await asyncio.sleep(0.3)
            ctl.start()
            robot.send(DriveWheels(lwheel_speed_mmps=30.0, rwheel_speed_mmps=-30.0))  # moving: reads every other slot
            run = asyncio.ensure_future(hb.run(asyncio.Event(), duration=3.4))
            await asyncio.sleep(0.2)
            taken.clear()
            await asyncio.sleep(3.0)
            reads = _reads(taken)
            await run
            await asyncio.sleep(0.3)
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()
        assert len(played) >= 5 and len(starts) == len(played), (played, starts)
        # each clip's first frame at the robot, from the beat that played it
        return [s - p for p, s in zip(played, starts, strict=True)], reads, ctl.lead_s

    for beat_every in (1, 3):
        delays, reads, lead = asyncio.run(main(beat_every))
        shown = (beat_every, [round(d * 1000, 1) for d in delays])
        # From the beat (run ``lead`` before its slot's time) to the clip's first frame at the
        # robot: its slot's time, or at once where the wake-up came that late.
        if beat_every == 1:  # the beat's own slot or the next, as the two timers fall
            assert all(d < lead + 1.5 * FRAME_S for d in delays), shown
        else:  # the frames prepared after the beat: its own slot, every time
            assert all(d < lead + 0.5 * FRAME_S for d in delays), shown
        slots = 3.0 / FRAME_S
        if beat_every == 1:
            assert len(reads) >= 0.8 * slots, len(reads)  # a frame every slot, read at each
        else:
            # read every other slot (the robot moves), and at every beat: two of three slots, the
            # beats sharing the reads' wake-ups (the frame before a beat is not prepared ahead of it)
            assert len(reads) <= 0.72 * slots, len(reads)


def test_the_beats_keep_to_every_third_slot_from_the_first_one() -> None:
    async def main() -> list[float]:
        net = MemoryNetwork(latency_s=0.002)
        sim = await SimulatedCozmo("127.0.0.1", 5553, calibrate=False).start(open_link=net.open_link)
        robot = Robot("127.0.0.1", 5553)
        await robot.connect(open_link=net.open_link)
        ctl = AnimationController(robot, seed=1)
        ctl.beat_on(3)
        try:
            ctl.start()
            loop = asyncio.get_running_loop()
            await asyncio.sleep(0.0123)
            first = ctl.next_beat_after(loop.time())
            assert first == ctl.next_tick_after(loop.time())  # the first beat on the next tick
            return [first, *(ctl.next_beat_after(first + d) for d in (0.0, 0.05, 0.1, 0.25))]
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    first, *later = run_virtual(main())
    slots = [round((t - first) / FRAME_S) for t in later]
    assert slots == [3, 3, 6, 9]
