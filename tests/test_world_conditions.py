"""Conditions on the world model, fed the vision's events as the engine feeds them, and what they say."""

from __future__ import annotations

import math
import random

from py_trees.common import Status

from brain.context import BrainContext
from brain.nodes.world_conditions import FaceSeenWithin, FaceVisible, MotionSeenWithin
from driver import events as ev


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def _tick(node: object) -> Status:
    node.tick_once()  # type: ignore[attr-defined]
    return node.status  # type: ignore[attr-defined, no-any-return]


def test_a_face_in_view_then_gone_then_forgotten() -> None:
    clock = Clock()
    ctx = BrainContext(clock=clock, rng=random.Random(1))
    visible, lately = FaceVisible("face", ctx), FaceSeenWithin("lately", ctx, 30)
    assert (_tick(visible), _tick(lately)) == (Status.FAILURE, Status.FAILURE)
    assert visible.explain(False) == "no face in view" and lately.explain(False) == "no face seen within 30 s"
    ctx.world.update([ev.FaceSeen(clock.t, face_id=4, distance_mm=480.0, heading_rad=math.radians(12),
                                  captured_at=clock.t)], clock.t)
    assert (_tick(visible), _tick(lately)) == (Status.SUCCESS, Status.SUCCESS)
    assert visible.explain(True) == "face 4 in view, 0.48 m away, 12° left"
    clock.t += 5
    ctx.world.update([ev.FaceLost(clock.t, face_id=4, distance_mm=480.0, captured_at=clock.t - 1)], clock.t)
    assert (_tick(visible), _tick(lately)) == (Status.FAILURE, Status.SUCCESS)
    assert visible.explain(False) == "no face in view (face 4 1 s ago)"
    assert lately.explain(True) == "face 4 seen 1 s ago, within 30 s"
    clock.t += 40
    assert _tick(lately) is Status.FAILURE
    assert lately.explain(False) == "no face seen within 30 s (the last 41 s ago)"


def test_motion_lately_and_where() -> None:
    clock = Clock()
    ctx = BrainContext(clock=clock, rng=random.Random(1))
    anywhere, ground, left = (MotionSeenWithin("m", ctx, 5), MotionSeenWithin("g", ctx, 5, "ground"),
                              MotionSeenWithin("l", ctx, 5, "left"))
    ctx.world.update([ev.MotionSeen(clock.t - 1, where="ground", heading_rad=math.radians(-20))], clock.t)
    assert [_tick(n) for n in (anywhere, ground, left)] == [Status.SUCCESS, Status.SUCCESS, Status.FAILURE]
    assert ground.explain(True) == "motion (ground) 1 s ago, 20° right, within 5 s"
    assert left.explain(False) == "no motion (left) within 5 s (the last, ground, 1 s ago)"
    clock.t += 10
    assert _tick(anywhere) is Status.FAILURE


def test_a_new_face_is_one_that_comes_after_a_while_alone() -> None:
    from brain.nodes.world_conditions import FaceNew

    clock = Clock()
    ctx = BrainContext(clock=clock, rng=random.Random(1))
    new = FaceNew("new", ctx, unseen_s=60, within_s=10)
    assert _tick(new) is Status.FAILURE and new.explain(False) == "no face in view"
    ctx.world.update([ev.FaceSeen(clock.t, face_id=1, distance_mm=500.0, captured_at=clock.t)], clock.t)
    assert _tick(new) is Status.SUCCESS and new.explain(True) == "face 1 came 0 s ago, no face before"
    clock.t += 11
    assert _tick(new) is Status.FAILURE and new.explain(False) == "face 1 has been here 11 s, more than 10 s"
    # she looks away for 5 s and is back as a new track: not new
    ctx.world.update([ev.FaceLost(clock.t, face_id=1, distance_mm=500.0, captured_at=clock.t)], clock.t)
    clock.t += 5
    ctx.world.update([ev.FaceSeen(clock.t, face_id=2, distance_mm=500.0, captured_at=clock.t)], clock.t)
    assert _tick(new) is Status.FAILURE
    assert new.explain(False) == "face 2 came 5 s after the last, within 60 s"
    # she leaves for two minutes, then comes back
    ctx.world.update([ev.FaceLost(clock.t, face_id=2, distance_mm=500.0, captured_at=clock.t)], clock.t)
    clock.t += 120
    ctx.world.update([ev.FaceSeen(clock.t, face_id=3, distance_mm=500.0, captured_at=clock.t)], clock.t)
    assert _tick(new) is Status.SUCCESS and new.explain(True) == "face 3 came 0 s ago, after 120 s without one"


def test_a_glimpse_is_kept_a_few_seconds_and_a_face_seen_answers_it() -> None:
    from brain.nodes.world_conditions import FaceGlimpsedWithin

    clock = Clock()
    ctx = BrainContext(clock=clock, rng=random.Random(1))
    glimpsed = FaceGlimpsedWithin("glimpsed", ctx, within_s=5)
    assert _tick(glimpsed) is Status.FAILURE and glimpsed.explain(False) == "no face glimpsed within 5 s"
    ctx.world.update([ev.FaceGlimpsed(clock.t, face_id=9, x_mm=0.0, y_mm=600.0, z_mm=250.0, distance_mm=600.0,
                                      heading_rad=math.radians(40), captured_at=clock.t - 1)], clock.t)
    assert _tick(glimpsed) is Status.SUCCESS and glimpsed.explain(True) == "a face glimpsed 1 s ago, 40° left"
    assert ctx.world.faces == {} and ctx.world.last_face() is None  # no one the robot knows
    assert ctx.world.snapshot()["glimpse"] == {"at": 99.0, "bearing_deg": 40.0, "x_mm": 0, "y_mm": 600,
                                               "z_mm": 250}
    clock.t += 5
    assert _tick(glimpsed) is Status.FAILURE
    assert glimpsed.explain(False) == "no face glimpsed within 5 s (the last 6 s ago)"
    clock.t += 5
    ctx.world.update([], clock.t)
    assert ctx.world.glimpse is None  # forgotten after glimpse_ttl_s
    # glimpsed, then seen: the face answers it
    ctx.world.update([ev.FaceGlimpsed(clock.t, face_id=10, captured_at=clock.t)], clock.t)
    ctx.world.update([ev.FaceSeen(clock.t + 0.5, face_id=11, distance_mm=600.0, captured_at=clock.t + 0.5)],
                     clock.t + 0.5)
    assert ctx.world.glimpse is None and _tick(glimpsed) is Status.FAILURE
