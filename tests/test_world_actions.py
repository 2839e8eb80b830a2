"""Actions on the world model against the simulated robot, with its camera and the robot's vision.

The simulator's room holds the person; the Robot's vision detects her in the camera frames; its
events fill the world model as the engine's beat does; the nodes turn the simulated body and head.
What is checked is where the simulated robot ends up looking.

The subject is what the nodes make the robot do, not the wire (the end-to-end tests drive the
daemon over UDP), so these run on the virtual clock over the in-memory network, with every
camera frame drawn and analysed on the loop's thread (as ``simulate --pixels`` does): a search
of 25 s takes the machine's time to draw and look at its frames, not 25 s, and a machine loaded
by other tests can no longer make the eyes miss a person the test expects to be seen.
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from py_trees.behaviours import Running
from py_trees.common import Status

from brain.app.virtual_time import run_virtual
from brain.assets.resource_set import ResourceSet
from brain.context import BrainContext
from brain.nodes.actions import LookAround
from brain.nodes.behavior_class import BehaviorSpec
from brain.nodes.registry import BEHAVIOR_CLASSES
from brain.nodes.world_actions import (
    LookTowardsMotion,
    SearchForFaces,
    TrackFace,
    TurnTowardsFace,
    TurnTowardsGlimpse,
    aim_at,
)
from driver import events as ev
from driver.memlink import MemoryNetwork
from driver.robot import Robot
from driver.samples import PoseSample
from driver.sim.script import parse_script
from driver.sim.server import SimulatedCozmo
from driver.vision import VisionConfig

from .conftest import eventually
from .daemon_harness import RESOURCES

pytestmark = pytest.mark.e2e


def test_aim_at_points_the_body_and_raises_the_head() -> None:
    pose = PoseSample(100.0, 0.0, 0.0, 0.0, 0.0, 0, 0)
    heading, head = aim_at(pose, (100.0, 600.0, 250.0))
    assert math.degrees(heading) == pytest.approx(90.0)
    assert math.degrees(head) == pytest.approx(math.degrees(math.atan2(250 - 49, 600 + 13)), abs=0.1)
    _, low = aim_at(pose, (300.0, 0.0, -500.0))
    assert math.degrees(low) == pytest.approx(-25.0)  # clamped to the head's range


def run(main: Coroutine[Any, Any, None]) -> None:
    """Run a test's body on the virtual clock."""
    run_virtual(main)


async def _robot() -> tuple[SimulatedCozmo, Robot, BrainContext]:
    net = MemoryNetwork()
    sim = await SimulatedCozmo("127.0.0.1", 5551, calibrate=False).start(open_link=net.open_link)
    sim.camera.in_thread = False
    robot = Robot(*sim.address, lost_after=2.0)
    await robot.connect(open_link=net.open_link)
    loop = asyncio.get_running_loop()
    ctx = BrainContext(robot=robot, rng=random.Random(3), clock=loop.time)
    robot.add_listener(lambda e: ctx.world.update([e], loop.time()))  # what the engine's beat does
    return sim, robot, ctx


async def _until_done(node: Any, limit_s: float = 15.0, also: Callable[[], None] | None = None) -> Status:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit_s
    node.tick_once()
    while node.status is Status.RUNNING and loop.time() < deadline:
        await asyncio.sleep(0.05)
        node.tick_once()
        if also is not None:
            also()
    return node.status


def _face_bearing_deg(sim: SimulatedCozmo, name: str) -> float:
    """Where the person stands, seen from the simulated robot's heading now (degrees, left positive)."""
    person = sim.room.people[name]
    b = sim.body
    world = math.atan2(person.y_mm - b.y_mm, person.x_mm - b.x_mm)
    return math.degrees(math.atan2(math.sin(world - b.angle_rad), math.cos(world - b.angle_rad)))


def _packaged_scan(ctx: BrainContext) -> SearchForFaces:
    """The scan of the FindFaces behaviour the project's resources ship, as the builder makes it."""
    rs = ResourceSet.load([RESOURCES], index_clips=False)
    record = rs.behaviors["FindFaces"]
    tree = BEHAVIOR_CLASSES[record.behavior_class](ctx, BehaviorSpec.from_record(record))
    (search,) = [n for n in tree.iterate() if isinstance(n, SearchForFaces)]
    return search


def test_search_finds_a_face_outside_the_view_then_turns_to_it_and_tracks_it() -> None:
    pytest.importorskip("skimage", reason="the face photographs come from scikit-image ([test] extra)")

    async def body() -> None:
        sim, robot, ctx = await _robot()
        try:
            robot.start_vision(VisionConfig(inline=True))
            await robot.set_head_angle(math.radians(15))
            (step,) = parse_script("- {at: 0, face: alice, bearing_deg: 40, distance_m: 0.6, height_m: 0.25}\n")
            sim.run_step(step)
            await asyncio.sleep(1.0)
            assert not ctx.world.faces_in_view()  # 40° left is outside the camera's ±30°

            # the packaged FindFaces scan, made to turn right first (the long way round to her):
            # it turns a whole circle with time to spare, so nobody around the robot is missed
            search = _packaged_scan(ctx)
            search.clockwise_chance = 1.0
            assert search.seconds == 30
            assert await _until_done(search, 25) is Status.SUCCESS, search.feedback_message
            turn = TurnTowardsFace("turn", ctx)
            assert await _until_done(turn) is Status.SUCCESS, turn.feedback_message
            await asyncio.sleep(0.3)
            assert abs(_face_bearing_deg(sim, "alice")) < 10, _face_bearing_deg(sim, "alice")
            assert 10 < math.degrees(sim.body.head.position) < 30  # her face is above the neck

            # she steps 20° to the right of where she stood (well inside the picture: at 25° her face
            # reached its edge, where a loaded machine's vision missed her); the tracker follows while
            # its child runs. Until its eyes see her move it aims at where she was, up to 10° off the
            # heading, so her step is measured from there: from the heading, the tracker's first turn
            # took her to 26° on a loaded machine
            was = _face_bearing_deg(sim, "alice")
            (moved,) = parse_script(f"- {{at: 0, face: alice, bearing_deg: {was - 20:.2f}}}\n")
            sim.run_step(moved)
            track = TrackFace("track", Running("clip"), ctx)
            loop = asyncio.get_running_loop()
            end = loop.time() + 15.0   # a machine loaded by other tests sees her late: margin
            track.tick_once()
            while loop.time() < end and abs(_face_bearing_deg(sim, "alice")) > 8:
                await asyncio.sleep(0.05)
                track.tick_once()
            assert abs(_face_bearing_deg(sim, "alice")) < 8 and track.aims >= 1
            # on her, it holds still (small corrections left alone) so its eyes can see motion
            await asyncio.sleep(1.0)
            before = sum(type(m).__name__ == "SetHeadAngle" for m in sim.received)
            end = loop.time() + 3.0
            while loop.time() < end:
                await asyncio.sleep(0.05)
                track.tick_once()
            heads = sum(type(m).__name__ == "SetHeadAngle" for m in sim.received) - before
            assert track.aims >= 4 and heads <= 1, (track.aims, heads)
            track.stop(Status.INVALID)
        finally:
            await robot.stop_vision()
            await robot.disconnect()
            await sim.stop()

    run(body())


def test_turning_to_a_remembered_face_and_to_motion() -> None:
    async def body() -> None:
        sim, robot, ctx = await _robot()
        try:
            await eventually(lambda: robot.state is not None)
            now = asyncio.get_running_loop().time()
            # a face remembered 120° to the left, 0.5 m away (out of the picture long ago)
            x, y = 500 * math.cos(math.radians(120)), 500 * math.sin(math.radians(120))
            ctx.world.update([ev.FaceLost(now, face_id=7, x_mm=x, y_mm=y, z_mm=300.0, distance_mm=500.0,
                                          captured_at=now - 4)], now)
            assert await _until_done(TurnTowardsFace("turn", ctx, max_age_s=10)) is Status.SUCCESS
            assert math.degrees(sim.body.angle_rad) == pytest.approx(120, abs=5)
            too_old = TurnTowardsFace("turn", ctx, max_age_s=2)
            assert await _until_done(too_old) is Status.FAILURE
            assert too_old.feedback_message.startswith("no face seen within 2 s")

            ctx.world.update([ev.MotionSeen(now, where="ground", heading_rad=math.radians(-30),
                                            tilt_rad=math.radians(-20))], now)
            look = LookTowardsMotion("look", ctx, within_s=5)
            assert await _until_done(look) is Status.SUCCESS
            assert math.degrees(sim.body.angle_rad) == pytest.approx(-30, abs=5)
            assert math.degrees(sim.body.head.position) == pytest.approx(-20, abs=4)
            assert not sim.body.wheels_moving
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body())


def test_turning_to_a_glimpse_lets_the_eyes_see_the_face_there() -> None:
    """A face glimpsed 50° to the left (out of the picture now): the robot looks there and sees her."""
    pytest.importorskip("skimage", reason="the face photographs come from scikit-image ([test] extra)")

    async def body() -> None:
        sim, robot, ctx = await _robot()
        try:
            robot.start_vision(VisionConfig(inline=True))
            await robot.set_head_angle(math.radians(15))
            (step,) = parse_script("- {at: 0, face: alice, bearing_deg: 50, distance_m: 0.6, height_m: 0.25}\n")
            sim.run_step(step)
            await asyncio.sleep(1.0)
            assert not ctx.world.faces_in_view()  # 50° left is outside the camera's ±30°
            person = sim.room.people["alice"]
            now = asyncio.get_running_loop().time()
            ctx.world.update([ev.FaceGlimpsed(now, face_id=99, x_mm=person.x_mm, y_mm=person.y_mm, z_mm=250.0,
                                              heading_rad=math.radians(50), captured_at=now - 1)], now)
            turn = TurnTowardsGlimpse("what was that", ctx, within_s=5)
            assert await _until_done(turn) is Status.SUCCESS, turn.feedback_message
            assert "towards a glimpsed face" in turn.feedback_message
            assert abs(_face_bearing_deg(sim, "alice")) < 10, _face_bearing_deg(sim, "alice")
            await eventually(lambda: bool(ctx.world.faces_in_view()), timeout=5.0)
            assert ctx.world.glimpse is None  # the face seen there answers the glimpse
            late = TurnTowardsGlimpse("too late", ctx, within_s=5)
            assert await _until_done(late) is Status.FAILURE
            assert late.feedback_message == "no face glimpsed within 5 s"
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body())


def test_an_interrupted_search_stops_the_wheels() -> None:
    async def body() -> None:
        sim, robot, ctx = await _robot()
        try:
            await eventually(lambda: robot.state is not None)
            search = SearchForFaces("search", ctx, seconds=30, turn_deg=(60, 60), back_turn_deg=(60, 60),
                                    body_speed_dps=30)
            search.tick_once()
            await eventually(lambda: sim.body.wheels_moving, timeout=3)
            search.stop(Status.INVALID)
            await eventually(lambda: not sim.body.wheels_moving, timeout=2)
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body())


def test_the_scan_lifts_the_head_as_it_turns() -> None:
    """The packaged scan's body turns carry the head to a search height (25-42°), as Anki's do.

    A person standing close is above the picture of a head left low by the last clip; a scan that
    only raised the head between turns would sweep past them.
    """

    async def body() -> None:
        sim, robot, ctx = await _robot()
        try:
            await eventually(lambda: robot.state is not None)
            await robot.set_head_angle(math.radians(0))
            search = _packaged_scan(ctx)
            search.tick_once()  # the first step: the turn back, with the head
            await eventually(lambda: sim.body.wheels_moving, timeout=3)
            await eventually(lambda: math.degrees(sim.body.head.position) >= 20.0, timeout=3)
            search.stop(Status.INVALID)
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body())


def test_an_interrupted_node_leaves_the_wheels_to_the_node_that_took_over() -> None:
    """A selector ticks the new branch before it stops the old one: the old one's cleanup must not stop the new turn."""
    from brain.nodes.actions import Turn

    async def body() -> None:
        sim, robot, ctx = await _robot()
        try:
            await eventually(lambda: robot.state is not None)
            old = SearchForFaces("search", ctx, seconds=30, turn_deg=(60, 60), back_turn_deg=(60, 60),
                                 body_speed_dps=30)
            old.tick_once()
            await eventually(lambda: sim.body.wheels_moving, timeout=3)
            new = Turn("turn", ctx, 90.0, speed_dps=90.0)
            new.tick_once()
            old.stop(Status.INVALID)
            assert await _until_done(new, 10) is Status.SUCCESS, new.feedback_message
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body())


def test_look_around_glances_about_and_back_never_wandering_off() -> None:
    """LookAround's turns stay within 75° of the heading it started at, however many it draws."""

    async def body() -> None:
        sim, robot, ctx = await _robot()
        try:
            await eventually(lambda: robot.state is not None)
            start = sim.body.angle_rad
            offsets: list[float] = []

            def watch() -> None:
                d = sim.body.angle_rad - start
                offsets.append(math.degrees(math.atan2(math.sin(d), math.cos(d))))

            glance = LookAround("glances", ctx, seconds=9.0, turn_range_deg=(55.0, 70.0), pause_range_s=(0.05, 0.1))
            ctx.rng = random.Random(11)
            assert await _until_done(glance, limit_s=20, also=watch) is Status.SUCCESS
            turns = glance.glances
            assert turns >= 6, f"only {turns} glances"
            assert max(offsets) - min(offsets) > 50, "it never turned"
            assert max(abs(o) for o in offsets) <= 75 + 8, f"wandered to {max(offsets, key=abs):.0f}°"
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body())


def test_look_around_turns_with_the_head_up_where_faces_are() -> None:
    """A head glance may leave the head at the floor; the next turn raises it into the face band,
    so a person the body swings past has their face in the picture, not above it."""

    async def body() -> None:
        sim, robot, ctx = await _robot()
        try:
            await eventually(lambda: robot.state is not None)
            turning: list[float] = []

            def watch() -> None:
                if abs(sim.body.gyro_z) > math.radians(60):  # the body is well into a turn
                    turning.append(math.degrees(sim.body.head.position))

            # head glances only go down to the floor: without the rule every turn looks at it too
            glance = LookAround("glances", ctx, seconds=9.0, head_range_deg=(-22.0, -18.0),
                                turn_range_deg=(55.0, 70.0), pause_range_s=(0.05, 0.1))
            ctx.rng = random.Random(5)
            assert await _until_done(glance, limit_s=20, also=watch) is Status.SUCCESS
            assert len(turning) >= 5, f"the body hardly turned ({len(turning)} looks while turning)"
            up = [a for a in turning if 8.0 <= a <= 27.0]
            assert len(up) >= 0.7 * len(turning), f"head while turning: {[round(a) for a in turning]}"
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body())
