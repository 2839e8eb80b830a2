"""The frame clock dozes through quiet frames, and the robot cannot tell.

A seeded simulated minute, run twice in virtual time over the in-memory network: once with the
clock ticking every frame, once dozing between the idle face's blinks and glances. Clips,
a face lock, sleep and waking, a new resting face and a stop all happen in it; the simulator must
receive the same messages at the same times, while the dozing clock woke a fraction as often.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from typing import Any

import pytest

from brain.app.virtual_time import run_virtual
from driver.animation.clip import Clip, HeadAngle, ProceduralFace
from driver.animation.controller import AnimationController
from driver.animation.expressions import expression
from driver.memlink import MemoryNetwork
from driver.robot import Robot
from driver.sim.server import SimulatedCozmo

CLIP = Clip("look_up", head_angle=(HeadAngle(0, 300, 20),),
            procedural_face=(ProceduralFace(0), ProceduralFace(500, face_center_x=15.0)))


class _Timed(deque[Any]):
    """The simulator's record of what it received, with the loop time of each message."""

    def __init__(self) -> None:
        super().__init__()
        self.times: list[float] = []

    def append(self, msg: Any) -> None:
        self.times.append(asyncio.get_running_loop().time())
        super().append(msg)


def _minute(doze: bool, release: str) -> tuple[list[tuple[float, str]], int, int]:
    """What the simulator received (loop time from the clock's start, message), the clock's
    ticks, and the frames it counted (sent + quiet)."""

    async def main() -> tuple[list[tuple[float, str]], int, int]:
        net = MemoryNetwork(latency_s=0.002)
        sim = await SimulatedCozmo("127.0.0.1", 5551, calibrate=False).start(open_link=net.open_link)
        robot = Robot("127.0.0.1", 5551)
        await robot.connect(open_link=net.open_link)
        sim.received = received = _Timed()
        ctl = AnimationController(robot, seed=3, release=release)
        ctl.doze = doze
        loop = asyncio.get_running_loop()
        try:
            ctl.start()
            t0 = loop.time()

            async def at(t: float) -> None:
                await asyncio.sleep(t0 + t - loop.time())

            await at(5.013)
            await ctl.play(CLIP)
            await at(12.371)
            with ctl.lock("face", owner="behaviour") as held:
                held.show_face(expression("happy"))
                await at(13.52)
            await at(20.107)
            ctl.idle.still = True  # asleep: no blinks, no glances
            ctl.display_refresh_s = 1.7  # the still face is resent now and then
            await at(30.049)
            ctl.idle.still = False
            ctl.display_refresh_s = 25.0
            await at(35.21)
            ctl.idle_face = expression("sad")
            await at(38.0)
            ctl.idle.next_blink = ctl.idle.next_saccade = math.inf  # the gaze held: nothing due
            await at(40.33)
            ctl.stop_all("robot lost")  # the image goes out afresh at once
            await at(41.0)
            ctl.idle.schedule(loop.time())
            await at(41.71)
            await ctl.play(CLIP)
            await at(60.0)
            stats = ctl.stats
            record = [(round(t - t0, 6), repr(msg)) for t, msg in zip(received.times, received, strict=True)
                      if type(msg).__name__ not in ("Ping", "SyncTime")]
            return record, len(stats.late_ms), stats.frames + stats.quiet_frames
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    return run_virtual(main())


@pytest.mark.parametrize("release", ["thread", "loop"])
def test_a_dozing_clock_sends_the_same_frames_at_the_same_times(release: str) -> None:
    ticking, ticks, counted = _minute(doze=False, release=release)
    dozing, doze_ticks, doze_counted = _minute(doze=True, release=release)
    images = [t for t, msg in ticking if msg.startswith("DisplayImage")]
    assert len(images) >= 30  # blinks, glances, two clips, the lock's face, the new resting face
    assert dozing == ticking
    assert doze_counted == counted >= 59 * 30  # every frame slot is accounted for, sent or quiet
    assert doze_ticks < 0.4 * ticks
