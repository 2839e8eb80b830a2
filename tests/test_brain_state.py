"""Typed brain state: the arousal the sleepers write, the world model."""

from __future__ import annotations

import math
import random

import pytest
from py_trees.common import Status

from brain.arousal import Arousal
from brain.context import BrainContext
from brain.mood import DEFAULT_CONFIG, Mood
from brain.nodes.cozmo_behaviors import BehaviorSpec
from brain.nodes.registry import BEHAVIOR_CLASSES
from brain.nodes.sleeper import Awake
from brain.world import EDGE_HALF_MM, Cube, Face, Motion, WorldModel
from driver import events as ev
from driver.hardware import CLIFF_SENSOR_AHEAD_MM
from driver.samples import PoseSample, RobotStatus


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def _ctx(clock: Clock) -> BrainContext:
    return BrainContext(mood=Mood(DEFAULT_CONFIG), clock=clock, rng=random.Random(1))


def test_a_nap_writes_the_arousal_asleep_and_awake_with_why() -> None:
    clock = Clock()
    ctx = _ctx(clock)
    nap = BEHAVIOR_CLASSES["Nap"](ctx, BehaviorSpec("Nap", "afternoon nap", {"napDuration_s": 60}))
    assert ctx.arousal.state == "awake"
    nap.tick_once()
    assert (ctx.arousal.state, ctx.arousal.since, ctx.arousal.why) == ("asleep", 100.0, "afternoon nap")
    clock.t += 61
    nap.tick_once()
    assert nap.status is Status.SUCCESS
    # waking up: the wake-up that follows (the Wake behaviour ends with Awake) makes it awake
    assert (ctx.arousal.state, ctx.arousal.since, ctx.arousal.why) == ("drowsy", 161.0, "nap over")
    clock.t += 3
    Awake("awake", ctx).tick_once()
    assert (ctx.arousal.state, ctx.arousal.since, ctx.arousal.why) == ("awake", 164.0, "nap over")
    assert [(c.state, c.why) for c in ctx.arousal.changes] == [
        ("asleep", "afternoon nap"), ("drowsy", "nap over"), ("awake", "nap over")]


def test_a_poke_wakes_a_sleeper_and_says_so_and_an_interruption_too() -> None:
    clock = Clock()
    ctx = _ctx(clock)
    sleep = BEHAVIOR_CLASSES["Sleep"](ctx, BehaviorSpec("Sleep", "Sleep", {}))
    sleep.tick_once()
    assert ctx.arousal.asleep
    clock.t += 5
    ctx.push_event(ev.Poked(clock.t))
    sleep.tick_once()
    assert ctx.arousal.state == "drowsy" and ctx.arousal.why == "woken by poked"
    clock.t += 3
    sleep.tick_once()  # started again while waking up (a reaction broke off the wake-up): not asleep again
    assert sleep.status is Status.SUCCESS and ctx.arousal.state == "drowsy"
    Awake("awake", ctx).tick_once()
    clock.t += 60
    sleep.tick_once()
    assert ctx.arousal.asleep
    sleep.stop(Status.INVALID)  # a reaction that does not resume it took over
    assert ctx.arousal.state == "drowsy" and ctx.arousal.why == "interrupted"
    clock.t += 10
    sleep.tick_once()  # back soon after: it does not fall asleep again, it ends so the wake-up plays
    assert sleep.status is Status.SUCCESS and ctx.arousal.state == "drowsy"
    Awake("awake", ctx).tick_once()
    assert ctx.arousal.state == "awake" and ctx.arousal.why == "interrupted"


def test_arousal_refuses_unknown_states_and_keeps_a_bounded_history() -> None:
    arousal = Arousal(max_changes=4)
    with pytest.raises(ValueError, match="unknown arousal state 'dozing'"):
        arousal.set("dozing", 1.0, "x")  # type: ignore[arg-type]
    for i in range(10):
        arousal.set("drowsy" if i % 2 else "asleep", float(i), f"step {i}")
    assert len(arousal.changes) == 4 and arousal.changes[-1].why == "step 9"
    arousal.set("drowsy", 20.0, "again")  # already drowsy: nothing changes
    assert arousal.since == 9.0


def test_the_world_model_forgets_what_it_has_not_seen_for_long() -> None:
    world = WorldModel(face_ttl_s=60.0, motion_ttl_s=10.0)
    world.faces[1] = Face(1, 0.0, 10.0, 300.0, 50.0, 200.0, 360.0, 0.2)
    world.faces[2] = Face(2, 0.0, 50.0, 300.0, -50.0, 200.0, 360.0, -0.2)
    world.motion = Motion(45.0, 0.1, 0.0, 0.05)
    assert world.last_face() is world.faces[2]
    world.expire(72.0)
    assert list(world.faces) == [2] and world.motion is None
    assert world.snapshot()["faces"] == [{"id": 2, "in_view": True, "last_seen": 50.0, "distance_mm": 360,
                                          "bearing_deg": -11.5, "x_mm": 300, "y_mm": -50, "z_mm": 200}]


def test_a_cliff_leaves_an_edge_where_the_sensor_looked_and_a_pick_up_forgets_the_edges() -> None:
    world = WorldModel(edge_ttl_s=100.0)
    facing_left = PoseSample(100.0, 50.0, 0.0, math.pi / 2, 0.0, 0, 0)
    cliff = ev.StatusChanged(5.0, flag=RobotStatus.CLIFF_DETECTED, value=True, before=RobotStatus.ARE_WHEELS_MOVING)
    lifted = ev.StatusChanged(4.0, flag=RobotStatus.CLIFF_DETECTED, value=True, status=RobotStatus.IS_PICKED_UP,
                              before=RobotStatus.ARE_WHEELS_MOVING)
    world.update([lifted], 4.0, facing_left)
    assert world.edges == []  # the sensor lost the floor because the robot was lifted: no edge there
    world.update([cliff], 5.0, facing_left)
    world.update([ev.StatusChanged(6.0, flag=RobotStatus.CLIFF_DETECTED, value=False)], 6.0, facing_left)
    (edge,) = world.edges  # the floor's end is ahead of the robot, under its cliff sensor
    assert (edge.at, edge.x_mm, edge.y_mm) == pytest.approx((5.0, 100.0, 50.0 + CLIFF_SENSOR_AHEAD_MM))
    assert world.clearance_mm(100.0, 50.0) == pytest.approx(CLIFF_SENSOR_AHEAD_MM)
    # the floor ends across the way it was heading (+y), for EDGE_HALF_MM either side of that place
    assert world.clearance_mm(100.0 + EDGE_HALF_MM, 0.0) == pytest.approx(80.0)  # along the edge, inside
    assert world.clearance_mm(0.0, 130.0) == pytest.approx(-50.0)  # beyond it: off the table
    assert world.clearance_mm(100.0 + EDGE_HALF_MM + 30.0, 120.0) == pytest.approx(50.0)  # past its reach
    assert world.snapshot()["edges"] == [{"at": 5.0, "x_mm": 100, "y_mm": 80, "heading_deg": 90}]
    world.update([cliff], 7.0)  # no pose: nowhere to put it
    assert len(world.edges) == 1
    world.update([], 106.0)  # older than its time to live
    assert world.edges == [] and world.clearance_mm(0.0, 0.0) == math.inf
    world.update([cliff], 110.0, facing_left)
    world.update([ev.StatusChanged(111.0, flag=RobotStatus.IS_PICKED_UP, value=True)], 111.0, facing_left)
    assert world.edges == []  # it may be put down anywhere


def test_vision_and_cube_events_fill_the_world_model() -> None:
    world = WorldModel(face_ttl_s=60.0, motion_ttl_s=10.0)
    seen = ev.FaceSeen(10.0, face_id=3, heading_rad=0.5, distance_mm=480.0, x_mm=420.0, y_mm=230.0, z_mm=90.0,
                       captured_at=9.9)
    world.update([seen, ev.MotionSeen(10.5, where="ground", heading_rad=-0.2, tilt_rad=-0.3, amount=0.1),
                  ev.CubeConnection(10.6, object_id=7, connected=True), ev.CubeTapped(10.7, object_id=7)], 11.0)
    face = world.faces[3]
    assert (face.first_seen, face.last_seen, face.in_view, face.distance_mm, face.bearing_rad) == (
        9.9, 9.9, True, 480.0, 0.5)
    assert world.motion == Motion(10.5, -0.2, -0.3, 0.1, "ground")
    assert world.cubes[7] == Cube(7, connected=True, last_tapped=10.7)
    world.update([ev.CubeMoved(10.8, object_id=7)], 11.0)
    assert world.cubes[7].moving
    world.update([ev.CubeUpAxisChanged(11.5, object_id=7, axis="Z_NEGATIVE"), ev.CubeStopped(11.9, object_id=7)], 12.0)
    assert not world.cubes[7].moving and world.cubes[7].up_axis == "Z_NEGATIVE"
    assert world.snapshot()["cubes"] == [{"id": 7, "connected": True, "last_tapped": 10.7, "last_moved": 10.8,  # type: ignore[comparison-overlap]
                                          "moving": False, "up_axis": "Z_NEGATIVE"}]
    world.update([ev.FaceMoved(12.0, face_id=3, heading_rad=0.6, distance_mm=500.0, captured_at=11.9)], 12.0)
    world.update([ev.FaceLost(14.0, face_id=3, heading_rad=0.6, distance_mm=500.0, captured_at=12.9)], 14.0)
    face = world.faces[3]
    assert (face.first_seen, face.last_seen, face.in_view, face.bearing_rad) == (9.9, 12.9, False, 0.6)
    assert world.faces_in_view() == [] and world.last_face() is face
    world.update([], 30.0)  # the motion is 20 s old: forgotten; the face is remembered for a minute
    assert world.motion is None and 3 in world.faces
    world.update([], 80.0)
    assert world.faces == {}
