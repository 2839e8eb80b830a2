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
import contextlib
import math
from collections.abc import AsyncIterator, Callable

import pytest

from brain.app.virtual_time import run_virtual
from driver.actions import Action
from driver.animation.clip import BodyMotion, Clip, HeadAngle, ProceduralFace
from driver.animation.controller import AnimationController
from driver.memlink import MemoryNetwork
from driver.robot import Robot
from driver.sim.server import SimulatedCozmo


@contextlib.asynccontextmanager
async def _robot_and_player() -> AsyncIterator[tuple[SimulatedCozmo, Robot, AnimationController]]:
    """A simulated robot, the Robot connected to it and an animation controller (virtual time,
    the in-memory network), half a second after connecting; stopped on the way out."""
    net = MemoryNetwork(direct=True)
    sim = SimulatedCozmo("127.0.0.1", 5562, calibrate=False)
    await sim.start(open_link=net.open_link)
    robot = Robot("127.0.0.1", 5562, lost_after=2.0)
    await robot.connect(open_link=net.open_link)
    ctl = AnimationController(robot, seed=3)
    try:
        await asyncio.sleep(0.5)
        yield sim, robot, ctl
    finally:
        await ctl.stop()
        await robot.disconnect()
        await sim.stop()


async def _after_clip(clip: Clip, lead_s: float, command: Callable[[Robot], Action]) -> tuple[Action, SimulatedCozmo]:
    """Play ``clip``; ``lead_s`` into it, ``command`` the robot; wait for the clip, then the action."""
    async with _robot_and_player() as (sim, robot, ctl):
        pb = ctl.play(clip)
        await asyncio.sleep(lead_s)
        action = command(robot)
        await pb
        await action
        return action, sim


def test_a_head_move_made_while_a_clip_plays_ends_where_it_was_told_once_the_clip_is_over() -> None:
    # the head down to -10° at 0.4 s into the clip, back to 0° at 0.9 s; the move 0.2 s in, when
    # frames up to about 0.6 s are in the robot's buffer
    nod = Clip("nod", head_angle=(HeadAngle(0, 300, 30), HeadAngle(400, 300, -10), HeadAngle(900, 200, 0)),
               procedural_face=(ProceduralFace(0), ProceduralFace(1100)))
    head, sim = run_virtual(_after_clip(nod, 0.2, lambda robot: robot.set_head_angle(
        math.radians(20), max_speed=math.radians(30), timeout=4.0)))
    assert head.succeeded
    assert math.degrees(sim.body.head.position) == pytest.approx(20, abs=3)


def test_a_turn_made_while_a_clip_drives_the_treads_gets_to_its_heading_once_the_clip_is_over() -> None:
    # the treads creep forward, then from 0.5 s drive straight on at another speed; the turn
    # 0.3 s in, when the frame of the second keyframe is in the robot's buffer
    drive = Clip("drive", body_motion=(BodyMotion(0, 500, "STRAIGHT", 20), BodyMotion(500, 800, "STRAIGHT", 30)),
                 procedural_face=(ProceduralFace(0), ProceduralFace(1300)))
    heading: list[float] = []

    def turn(robot: Robot) -> Action:
        assert robot.state is not None
        heading.append(robot.state.proprioception.pose.angle_rad + math.radians(90))
        return robot.turn_in_place(heading[0], speed=math.radians(90), absolute=True, timeout=4.0)

    action, sim = run_virtual(_after_clip(drive, 0.3, turn))
    assert action.succeeded
    error = math.atan2(math.sin(sim.body.angle_rad - heading[0]), math.cos(sim.body.angle_rad - heading[0]))
    assert abs(math.degrees(error)) < 5


def test_stopping_a_clip_that_drives_the_treads_stops_them_unless_a_turn_took_them_over() -> None:
    """A body keyframe drives the treads until countermanded; the robot's AbortAnimation empties
    its buffer, a stop queued there too (hardware.md §4). A clip stopped while it drives leaves
    the robot still, and a turn asked for just before the clip is stopped (a node turning to a
    face as the branch it interrupts stops its clip) still gets to its heading."""
    drive = Clip("drive", body_motion=(BodyMotion(0, 3000, "STRAIGHT", 40),),
                 procedural_face=(ProceduralFace(0), ProceduralFace(3000)))

    async def main(turn_first: bool) -> tuple[float, float]:
        async with _robot_and_player() as (sim, robot, ctl):
            pb = ctl.play(drive)
            await asyncio.sleep(0.5)
            assert robot.state is not None
            heading = robot.state.proprioception.pose.angle_rad + math.radians(60)
            turn = robot.turn_in_place(heading, speed=math.radians(120), absolute=True) if turn_first else None
            pb.cancel()
            await asyncio.sleep(0.3)
            x = sim.body.x_mm
            if turn is not None:
                await turn
                assert turn.succeeded
            await asyncio.sleep(1.0)
            return sim.body.x_mm - x, math.degrees(sim.body.angle_rad - heading)

    moved, _ = run_virtual(main(False))
    assert abs(moved) < 1.0, f"the treads drove {moved:.0f} mm on after the clip was stopped"
    _, error = run_virtual(main(True))
    assert abs(error) < 5
