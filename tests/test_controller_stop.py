"""Stopping everything at once: stop_all() on a connected robot, and on one that went silent."""

from __future__ import annotations

import asyncio
import math

import pytest

from driver import events as ev
from driver.animation.clip import BodyMotion, Clip, HeadAngle
from driver.animation.controller import AnimationController
from driver.animation.playback import PlaybackCancelled, PlaybackState
from driver.robot import Robot
from driver.sim.faults import NetworkFaults
from driver.sim.server import SimulatedCozmo

from .conftest import eventually, run

pytestmark = pytest.mark.e2e


def _head(name: str, angle: int, ms: int = 100) -> Clip:
    return Clip(name, head_angle=(HeadAngle(0, ms, angle), HeadAngle(ms, 0, angle)))



def _names_from(sim: SimulatedCozmo, first: str) -> list[str]:
    """The names of the messages the simulator received from the first ``first`` on."""
    names = [type(msg).__name__ for msg in sim.received]
    return names[names.index(first):] if first in names else []

def test_stop_all_cancels_the_clips_completes_the_ending_one_releases_the_locks_and_keeps_the_clock() -> None:
    async def main() -> None:
        faults = NetworkFaults()
        sim = await SimulatedCozmo(port=0, calibrate=False, faults=faults).start()
        robot = Robot(*sim.address, lost_after=3.0)
        await robot.connect()
        faults.latency_ms = 300.0  # each way: the robot's AnimationEnded for the first clip is still on its way
        ctl = AnimationController(robot, seed=2)
        try:
            face = ctl.lock("face", owner="A")
            voice = ctl.lock(["audio"], owner="B")
            voice.push_audio([bytes(744)] * 300)
            ending = ctl.queue(_head("short", 10))
            drive = ctl.queue(Clip("drive", body_motion=(BodyMotion(0, 3000, "STRAIGHT", 60),)))
            later = ctl.queue(_head("later", 20))
            await eventually(lambda: drive.state is PlaybackState.PLAYING)
            assert ending.state is PlaybackState.ENDING and ctl.stats.audio_frames > 0

            ctl.stop_all("robot lost")
            assert ending.succeeded and not ending.ended_by_robot  # every frame went out already
            assert drive.cancelled and later.cancelled and ctl.current is None and ctl.queued == []
            with pytest.raises(PlaybackCancelled, match="robot lost"):
                await drive
            assert face.released and voice.released
            assert not ctl.locked("face") and not ctl.locked("audio")
            face.release()  # the owner's own release afterwards changes nothing
            ctl.stop_all("again")  # and stopping twice is harmless
            # the robot is told: the clip is aborted and the wheels it drove stop
            await eventually(lambda: sim.counts["AbortAnimation"] == 1)
            # (the stop goes to the treads after the abort, which empties the animation's buffer)
            await eventually(lambda: "DriveWheels" in _names_from(sim, "AbortAnimation"))
            assert _names_from(sim, "StartAnimation").count("AnimBody") == 1
            assert sim.body.left_cmd == sim.body.right_cmd == 0.0
            # the clock keeps going, silent now that the voice lock is gone, and plays what comes next
            assert ctl.running
            ticks, voiced = ctl.stats.frames + ctl.stats.quiet_frames, ctl.stats.audio_frames
            await asyncio.sleep(0.2)
            assert ctl.stats.frames + ctl.stats.quiet_frames >= ticks + 4 and ctl.stats.audio_frames == voiced
            after = ctl.play(_head("after", 30))
            await after
            assert after.succeeded and after.ended_by_robot
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    run(main(), timeout=30)


def test_on_robot_loss_stop_all_stops_the_stream_and_the_idle_face_comes_back_with_a_fresh_image() -> None:
    async def main() -> None:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address, lost_after=0.5)
        await robot.connect()
        ctl = AnimationController(robot, seed=4)
        lost: list[ev.RobotEvent] = []

        def on_event(event: ev.RobotEvent) -> None:
            if isinstance(event, ev.RobotLost):  # what the daemon does when the robot goes silent
                lost.append(event)
                ctl.stop_all("robot lost")

        robot.add_listener(on_event)
        try:
            ctl.start()
            ctl.idle.next_blink = ctl.idle.next_saccade = math.inf  # a face that never changes by itself
            await eventually(lambda: sim.display.images >= 1)
            pb = ctl.play(Clip("long", head_angle=(HeadAngle(0, 3000, 30),)))
            lock = ctl.lock(["face"], owner="behaviour")
            await asyncio.sleep(0.2)
            sim.go_silent(1.5)
            await eventually(lambda: lost, timeout=3.0)
            assert pb.cancelled and lock.released and not ctl.locked("face")
            # nothing goes to a robot that is not there, while the clock keeps its time
            frames, offline = ctl.stats.frames, ctl.stats.offline_frames
            await asyncio.sleep(0.3)
            assert ctl.stats.frames == frames and ctl.stats.offline_frames >= offline + 6
            # back: the idle face streams again, and its image is sent afresh though it did not change
            images = sim.display.images
            await eventually(lambda: robot.connected, timeout=10.0)
            await eventually(lambda: sim.display.images > images, timeout=2.0)
            assert ctl.stats.frames > frames and ctl.stats.send_errors == 0
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    run(main(), timeout=30)
