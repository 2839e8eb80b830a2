"""A motor command made while an animation plays completes once the animation lets go of the motor.

A robot plays an open animation's frames from its buffer on its own clock (hardware.md §4), and
the controller sends an animation's frames ahead of their time: a head keyframe already in the
buffer moves the head when its frame plays, whatever the head was told since. A node that turns
the head to a face while a clip plays (or just as it stops one: the AbortAnimation that empties
the buffer can be a lost datagram behind) would wait for a head that went elsewhere until its
action timed out. The robot sends the commands of head and lift actions still under way again
when the animation ends, so they finish; a turn goes again to the heading it was to reach.
"""

from __future__ import annotations

import asyncio
import math

import pytest

from brain.app.virtual_time import run_virtual
from driver.animation.clip import BodyMotion, Clip, HeadAngle, ProceduralFace
from driver.animation.controller import AnimationController
from driver.memlink import MemoryNetwork
from driver.robot import Robot
from driver.sim.server import SimulatedCozmo


def test_a_head_move_made_while_a_clip_plays_ends_where_it_was_told_once_the_clip_is_over() -> None:
    async def main() -> None:
        net = MemoryNetwork(direct=True)
        sim = SimulatedCozmo("127.0.0.1", 5562, calibrate=False)
        await sim.start(open_link=net.open_link)
        robot = Robot("127.0.0.1", 5562, lost_after=2.0)
        await robot.connect(open_link=net.open_link)
        ctl = AnimationController(robot, seed=3)
        try:
            await asyncio.sleep(0.5)
            # the head down to -10° at 0.4 s into the clip, back to 0° at 0.9 s
            pb = ctl.play(Clip("nod", head_angle=(HeadAngle(0, 300, 30), HeadAngle(400, 300, -10),
                                                  HeadAngle(900, 200, 0)),
                               procedural_face=(ProceduralFace(0), ProceduralFace(1100))))
            await asyncio.sleep(0.2)  # frames up to about 0.6 s are in the robot's buffer
            head = robot.set_head_angle(math.radians(20), max_speed=math.radians(30), timeout=4.0)
            await pb
            await head
            assert head.succeeded
            assert math.degrees(sim.body.head.position) == pytest.approx(20, abs=3)
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    run_virtual(main())


def test_a_turn_made_while_a_clip_drives_the_treads_gets_to_its_heading_once_the_clip_is_over() -> None:
    async def main() -> None:
        net = MemoryNetwork(direct=True)
        sim = SimulatedCozmo("127.0.0.1", 5563, calibrate=False)
        await sim.start(open_link=net.open_link)
        robot = Robot("127.0.0.1", 5563, lost_after=2.0)
        await robot.connect(open_link=net.open_link)
        ctl = AnimationController(robot, seed=3)
        try:
            await asyncio.sleep(0.5)
            # the treads creep forward, then from 0.5 s drive straight on at another speed
            pb = ctl.play(Clip("drive", body_motion=(BodyMotion(0, 500, "STRAIGHT", 20),
                                                     BodyMotion(500, 800, "STRAIGHT", 30)),
                               procedural_face=(ProceduralFace(0), ProceduralFace(1300))))
            await asyncio.sleep(0.3)  # the frame of the second keyframe is in the robot's buffer
            assert robot.state is not None
            heading = robot.state.proprioception.pose.angle_rad + math.radians(90)
            turn = robot.turn_in_place(heading, speed=math.radians(90), absolute=True, timeout=4.0)
            await pb
            await turn
            assert turn.succeeded
            error = math.atan2(math.sin(sim.body.angle_rad - heading), math.cos(sim.body.angle_rad - heading))
            assert abs(math.degrees(error)) < 5
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    run_virtual(main())
