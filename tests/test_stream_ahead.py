"""Frames of an open animation go ahead of their time; what the robot plays does not change.

A real robot keeps a frame of an animation it has open in its buffer until its audio clock comes
to it (hardware.md §4), so such a frame may leave as soon as it is prepared, as Anki's engine
streamed them; neither the loop nor the release thread wakes for it. The frame that opens an
animation, and every frame outside one (the idle face, whose image a robot shows at once), still
go at their time. These tests hold the three parts of that: the link sends an ``early`` frame at
once, or right behind what waits, never before it; the controller sends a clip's frames after
the first ahead and the rest at their time; and the simulated robot plays the same messages at
the same times either way.
"""

from __future__ import annotations

import asyncio
import hashlib
import statistics

from brain.app.virtual_time import run_virtual
from driver.animation.clip import BackpackLights, Clip, HeadAngle, LiftHeight, ProceduralFace
from driver.animation.controller import AnimationController
from driver.link import Link, Role
from driver.memlink import MemoryNetwork
from driver.protocol.frame import PacketType, RawPacket
from driver.protocol.registry import encode_body
from driver.robot import Robot
from driver.sim.server import SimulatedCozmo

from .conftest import eventually, run

_AUDIO = ("OutputAudio", "OutputSilence")


def _clip() -> Clip:
    return Clip("wave", head_angle=(HeadAngle(0, 300, 30), HeadAngle(400, 400, -10), HeadAngle(900, 200, 0)),
                lift_height=(LiftHeight(0, 400, 70), LiftHeight(600, 300, 32)),
                backpack_lights=(BackpackLights(0, 800, middle=(0.0, 1.0, 0.0, 1.0)),),
                procedural_face=(ProceduralFace(0), ProceduralFace(500, face_center_x=15.0, face_scale_y=1.2),
                                 ProceduralFace(1100)))


def _cmd(n: int) -> RawPacket:
    return RawPacket(PacketType.COMMAND, bytes([0x42, n]))


def test_an_early_frame_goes_at_once_or_right_behind_the_frame_that_waits() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        got: list[tuple[float, bytes]] = []
        robot = await Link.open(Role.ROBOT, ("127.0.0.1", 0), name="robot-end",
                                on_packet=lambda p: got.append((loop.time(), p.body)))
        engine = await Link.open(Role.ENGINE, ("127.0.0.1", 0), peer=("127.0.0.1", robot.local_address[1]),
                                 name="engine-end")
        try:
            await engine.connect(timeout=2.0)
            start = loop.time()
            engine.begin_frame()
            engine.send(_cmd(1))
            engine.end_frame(start + 0.300, early=True)  # nothing waits: it goes now
            await eventually(lambda: len(got) == 1)
            assert got[0][0] < start + 0.150, "an early frame with nothing before it leaves at once"

            t = loop.time()
            with engine.frame_at(t + 0.200):
                engine.send(_cmd(2))
            engine.begin_frame()
            engine.send(_cmd(3))
            engine.end_frame(t + 0.400, early=True)  # behind the frame that waits for t + 0.2
            await eventually(lambda: len(got) == 3)
            assert [body for _, body in got] == [bytes([0x42, n]) for n in (1, 2, 3)], "nothing overtakes"
            assert got[1][0] >= t + 0.199 and got[2][0] >= t + 0.199, "not before the frame it is behind"
            assert got[2][0] - got[1][0] < 0.030, "right behind it, not at its own time or later"
        finally:
            engine.close()
            robot.close()

    run(main(), timeout=20)


def test_a_clips_frames_after_the_first_go_ahead_and_the_rest_at_their_time() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address, lost_after=2.0)
        ctl = AnimationController(robot, seed=1)
        arrivals: list[tuple[float, str]] = []
        sim.add_message_listener(lambda msg: arrivals.append((loop.time(), type(msg).__name__)))
        try:
            await robot.connect()
            await asyncio.sleep(0.3)  # the idle face's first image, then quiet frames
            ctl.play(_clip())
            pb = ctl.queue(_clip())  # opens its animation on a frame the clock prepared ahead of it
            await pb
            await asyncio.sleep(0.2)  # the silence frame after EndAnimation
            assert pb.succeeded and pb.started_at is not None
            assert ctl.stats.missed_frames == 0 and ctl.stats.held_frames == 0
            names = [name for _, name in arrivals]
            first = len(names) - 1 - names[::-1].index("StartAnimation")
            end = len(names) - 1 - names[::-1].index("EndAnimation")
            frames = [t for t, name in arrivals[first:end + 1] if name in _AUDIO]
            assert len(frames) == pb.frames_sent >= 30
            # frame i of the clip is due at started_at + i / 30
            ahead = [pb.started_at + i / 30 - t for i, t in enumerate(frames)]
            assert ahead[0] <= 0.001, f"the frame that opens the animation went {ahead[0] * 1e3:.1f} ms early"
            assert statistics.median(ahead[1:]) > 0.004, \
                f"the clip's later frames went at their time ({statistics.median(ahead[1:]) * 1e3:.1f} ms ahead)"
            after = next(t for t, name in arrivals[end + 1:] if name in _AUDIO)  # the silence frame
            due = pb.started_at + len(frames) / 30
            assert after >= due - 0.001, f"the frame after the animation went {(due - after) * 1e3:.1f} ms early"
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    run(main(), timeout=30)


def _stream(ahead: bool) -> tuple[list[tuple[int, str, str]], list[int]]:
    """Play the clip over the in-memory network in virtual time; what the simulated robot played
    (ms after the clip's first frame was due, name, digest) and when its audio frames arrived."""
    played: list[tuple[float, str, str]] = []
    arrived: list[float] = []
    start: list[float] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        net = MemoryNetwork(direct=True)
        sim = SimulatedCozmo("127.0.0.1", 5561, calibrate=False)
        await sim.start(open_link=net.open_link)
        robot = Robot("127.0.0.1", 5561, lost_after=2.0)
        await robot.connect(open_link=net.open_link)
        ctl = AnimationController(robot, seed=3)
        ctl.stream_ahead = ahead
        sim.add_played_listener(lambda msg: played.append(
            (loop.time(), type(msg).__name__, hashlib.blake2b(encode_body(msg), digest_size=6).hexdigest())))
        sim.add_message_listener(lambda msg: arrived.append(loop.time()) if type(msg).__name__ in _AUDIO else None)
        try:
            await asyncio.sleep(0.5)
            pb = ctl.play(_clip())
            await pb
            assert pb.succeeded and pb.started_at is not None
            start.append(pb.started_at)
            await asyncio.sleep(1.0)
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    run_virtual(main())
    return ([(round((t - start[0]) * 1000.0), name, digest) for t, name, digest in played],
            [round((t - start[0]) * 1000.0) for t in arrived])


def test_the_robot_plays_the_same_messages_at_the_same_times_with_frames_ahead() -> None:
    played_at_time, arrived_at_time = _stream(ahead=False)
    played_ahead, arrived_ahead = _stream(ahead=True)
    assert sum(1 for _, name, _ in played_at_time if name == "StartAnimation") == 1
    assert arrived_ahead != arrived_at_time, "the frames arrived as before: nothing went ahead"
    assert played_ahead == played_at_time
