"""Lying on the back, face or side: the simulator's head-frame IMU, the Robot's attitude events,
safety, reactions and the daemon. The attitude's own rules, state by state, are in test_attitude.py."""

from __future__ import annotations

import asyncio
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from py_trees.common import Status

from brain.context import BrainContext, TimedAnimations
from brain.nodes.cozmo_behaviors import BehaviorSpec
from brain.nodes.registry import BEHAVIOR_CLASSES
from brain.personality import REACTION_EVENTS, Reaction
from brain.safety import Safety
from driver import events as ev
from driver.attitude import GRAVITY_MMPS2
from driver.robot import Robot
from driver.samples import RobotStatus
from driver.sim.body import Body
from driver.sim.body import Status as BodyStatus
from driver.sim.script import ScriptError, parse_script
from driver.sim.server import SimulatedCozmo

from .conftest import REPO, eventually, run

G = GRAVITY_MMPS2


# ----------------------------------------------------------------------------- the simulator


@pytest.mark.parametrize(("orientation", "axis", "sign"), [
    ("on_back", 0, 1), ("on_face", 0, -1), ("on_left_side", 1, -1), ("on_right_side", 1, 1)])
def test_the_simulated_body_lies_as_told(orientation: str, axis: int, sign: int) -> None:
    body = Body()
    body.drive(100, 100)
    body.step(0.1)
    body.set_orientation(orientation, duration=1.0)
    accel = body.accel()
    assert math.copysign(1, accel[axis]) == sign and abs(accel[axis]) > 0.9 * G
    assert math.hypot(*accel) == pytest.approx(G)
    assert body.off_treads and body.status() & BodyStatus.IS_PICKED_UP  # the treads are off the floor
    assert body.status() & BodyStatus.CLIFF_DETECTED  # and the cliff sensor sees no floor, as on a real robot
    assert body.cliff_raw()[0] < 100 and not body.wheels_moving
    x = body.x_mm
    body.drive(100, 100)
    body.step(0.5)
    assert body.x_mm == x  # no odometry off the treads
    body.step(0.6)
    assert body.orientation == "upright" and body.accel() == (0.0, 0.0, G) and not body.off_treads


def test_the_simulated_imu_is_in_the_head() -> None:
    """As on a real Cozmo: gravity moves between x and z with the head, the head's motion shows on
    gyro y (nose-up negative), the body's turn on gyro z and, with the head tilted, on x."""
    body = Body(wheel_lag=False)  # wheels at the asked speed, so the turn rate is known exactly
    body.head.position = math.radians(-25.0)
    ax, ay, az = body.accel()
    assert (ax, ay, az) == pytest.approx((-G * math.sin(math.radians(25.0)), 0.0, G * math.cos(math.radians(25.0))))
    assert ax == pytest.approx(-4146, abs=1)  # a real robot: about (-3650, 0, 9000) with its own |g|
    assert body.pitch_rad == 0.0  # the firmware's pitch is the body's
    body.head.command_target(math.radians(44.5), speed=2.0)
    body.step(0.1)
    assert body.gyro() == pytest.approx((0.0, -2.0, 0.0))  # raising the head turns it nose-up
    body.step(1.0)
    up = body.head.position  # a real head stops a little short of its target (hardware.md §7.12)
    assert math.degrees(up) == pytest.approx(44.5, abs=1.0)
    assert body.accel() == pytest.approx((G * math.sin(up), 0.0, G * math.cos(up)))
    body.drive(-46.0, 46.0)
    body.step(0.2)
    gx, gy, gz = body.gyro()
    assert math.hypot(gx, gz) == pytest.approx(2.0) and gy == 0.0  # 92 mm/s over the 46 mm track
    assert (gx, gz) == pytest.approx((2.0 * math.sin(up), 2.0 * math.cos(up)))
    body.set_orientation("on_back")
    body.step(0.03)
    assert body.gyro()[1] != 0.0  # the hands that laid it down turn it for a moment
    assert math.degrees(body.pitch_rad) == pytest.approx(74.5)
    body.step(0.6)
    assert body.gyro() == (0.0, 0.0, 0.0) and math.degrees(body.pitch_rad) == pytest.approx(74.5)


def test_the_simulated_shake_swings_the_robot_and_puts_it_down() -> None:
    body = Body()
    body.shake(2.0)
    assert body.picked_up and body.shaking
    body.step(0.05)
    assert math.hypot(*body.accel()) > 20000 and max(map(abs, body.gyro())) > 1.0
    body.step(2.0)
    assert not body.picked_up and not body.shaking and math.hypot(*body.accel()) == pytest.approx(G)


def test_timeline_steps_set_the_orientation() -> None:
    steps = parse_script("- {at: 1, orientation: on_back, for: 2}\n"
                         "- {at: 4, event: orientation, orientation: on_side}\n")
    assert [(s.event, s.args) for s in steps] == [
        ("orientation", {"orientation": "on_back", "for": 2.0}),
        ("orientation", {"orientation": "on_right_side"})]
    with pytest.raises(ScriptError, match=r"<script>:1: step 0: 'orientation' must be one of upright, on_back"):
        parse_script("- {at: 1, orientation: upside_down}\n")
    with pytest.raises(ScriptError, match="'orientation' must be one of"):
        parse_script("- {at: 1, event: orientation, orientation: 3}\n")
    with pytest.raises(ScriptError, match="'orientation' must be one of upright, on_back, on_face, on_left_side, "
                                          "on_right_side, on_side, got 'in_air'"):
        parse_script("- {at: 1, orientation: in_air}\n")  # held is pick_up; falling is fall
    assert [(s.event, s.args) for s in parse_script("- {at: 2, event: shake}\n- {at: 5, event: shake, for: 6}\n")] \
        == [("shake", {"for": 2.0}), ("shake", {"for": 6.0})]


# ----------------------------------------------------------------------------- robot, safety, reactions


@pytest.mark.e2e
def test_robot_reports_orientation_changes_and_safety_stops_the_motors() -> None:
    async def body() -> None:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address)
        await robot.connect()
        safety = Safety(robot)
        seen: list[ev.RobotEvent] = []
        robot.add_listener(seen.append)
        try:
            robot.drive_wheels(80, 80)
            await eventually(lambda: sim.body.wheels_moving)
            stops = sim.counts["StopAllMotors"]
            sim.body.set_orientation("on_back")
            turned = await robot.wait_for("orientation", timeout=3.0, predicate=lambda e: e.value != "in_air")
            assert isinstance(turned, ev.OrientationChanged)
            assert (turned.orientation, turned.previous, turned.on_back) == ("on_back", "in_air", True)
            assert robot.orientation == "on_back" and safety.hazard == "on_back"
            assert "on_back" in safety.active
            assert sim.counts["StopAllMotors"] > stops
            sim.body.set_orientation("upright")
            back = await robot.wait_for("orientation", timeout=2.0)
            assert isinstance(back, ev.OrientationChanged) and back.upright
            assert "on_back" not in safety.active
            await asyncio.sleep(0.1)
            # held (the flag comes with the tipped reading), on its back, on its treads: no flapping
            assert [e.orientation for e in seen if isinstance(e, ev.OrientationChanged)] == \
                ["in_air", "on_back", "upright"]
            assert [e.previous for e in seen if isinstance(e, ev.ReturnedToTreads)] == ["on_back"]
            assert ("picked_up", True) in [(e.kind, getattr(e, "value", None)) for e in seen]
            assert not [e for e in seen if isinstance(e, (ev.PlacedOnSlope, ev.Shaken, ev.UnexpectedMovement))]
        finally:
            safety.close()
            await robot.disconnect()
            await sim.stop()

    run(body())


@pytest.mark.e2e
def test_level_with_the_head_anywhere_the_robot_stays_on_its_treads() -> None:
    """The simulator's IMU is in its head, as a real robot's: wherever the head points, a level
    robot is on its treads, nothing reacts and safety stops nothing; lifted and put down with its
    head up, it is only in the air and back, never placed on a slope."""

    async def body() -> None:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address)
        await robot.connect()
        safety = Safety(robot)
        attitude: list[ev.RobotEvent] = []
        pitches: list[float] = []

        def watch(event: ev.RobotEvent) -> None:
            if isinstance(event, (ev.OrientationChanged, ev.ReturnedToTreads, ev.Shaken, ev.PlacedOnSlope,
                                  ev.UnexpectedMovement)):
                attitude.append(event)
            pitches.append(robot.attitude.pitch_deg)

        robot.add_listener(watch)
        try:
            robot.drive_wheels(-30, 60)
            for degrees in (-25.0, 44.5, -25.0, 10.0, 44.5):
                await robot.set_head_angle(math.radians(degrees), max_speed=3.0)
                await asyncio.sleep(0.3)
                assert sim.body.head.position == pytest.approx(math.radians(degrees), abs=0.02)
                assert abs(robot.attitude.pitch_deg) < 1.0, degrees
            assert robot.state is not None and abs(robot.state.proprioception.imu.accel_x_mmps2) > 6000  # head up
            robot.stop_all_motors()
            assert attitude == [] and safety.stops == 0 and robot.orientation == "upright"
            assert pitches and max(map(abs, pitches)) < 1.0
            sim.pick_up()
            await eventually(lambda: robot.orientation == "in_air")
            await asyncio.sleep(1.0)
            sim.put_down()
            await eventually(lambda: robot.orientation == "upright")
            await asyncio.sleep(2.0)  # longer than a put-down can count as a placing on a slope
            assert [type(e).__name__ for e in attitude] == ["OrientationChanged", "OrientationChanged",
                                                            "ReturnedToTreads"]
            assert safety.stops == 1 and safety.hazard is None  # the pick-up's, nothing else
        finally:
            safety.close()
            await robot.disconnect()
            await sim.stop()

    run(body())


@pytest.mark.e2e
def test_after_a_lost_link_the_attitude_starts_afresh() -> None:
    """A reconnect resets the state mirror, the attitude with it: a robot still on its back when
    it answers again is found on its back anew (the reactions fire again), never 'back on its
    treads' from a reading that stopped before the loss."""

    async def body() -> None:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address, lost_after=0.6, reconnect_initial_s=0.2, reconnect_max_s=0.4)
        await robot.connect()
        seen: list[tuple[ev.RobotEvent, str]] = []
        robot.add_listener(lambda e: seen.append((e, robot.orientation)))
        try:
            sim.body.set_orientation("on_back")
            await eventually(lambda: robot.orientation == "on_back", timeout=3.0)
            sim.go_silent(1.5)
            await robot.wait_for("reconnected", timeout=5.0)
            again = await robot.wait_for("orientation", timeout=3.0)
            assert isinstance(again, ev.OrientationChanged) and (again.orientation, again.previous) == \
                ("on_back", "upright")
            reconnected = next(i for i, (e, _) in enumerate(seen) if isinstance(e, ev.Reconnected))
            assert seen[reconnected][1] == "upright"  # fresh when the robot is back
            assert not [e for e, _ in seen if isinstance(e, ev.ReturnedToTreads)]
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body())


def test_reaction_triggers_match_the_orientation_events() -> None:
    def reaction(trigger: str) -> Reaction:
        kind, value = REACTION_EVENTS[trigger]
        return Reaction(trigger, root=None, event_kind=kind, event_value=value)  # type: ignore[arg-type]

    left = ev.OrientationChanged(1.0, orientation="on_left_side")
    assert reaction("RobotOnSide").matches(left) and reaction("RobotOnLeftSide").matches(left)
    assert not reaction("RobotOnRightSide").matches(left) and not reaction("RobotOnBack").matches(left)
    assert reaction("RobotOnBack").matches(ev.OrientationChanged(1.0, orientation="on_back"))
    assert reaction("RobotOnFace").matches(ev.OrientationChanged(1.0, orientation="on_face"))
    assert not reaction("RobotOnFace").matches(ev.OrientationChanged(1.0, orientation="upright"))
    # picked up is the attitude's "in the air", as in Cozmo's engine; not the raw flag
    assert reaction("RobotPickedUp").matches(ev.OrientationChanged(1.0, orientation="in_air"))
    assert not reaction("RobotPickedUp").matches(ev.StatusChanged(1.0, RobotStatus.IS_PICKED_UP, True))
    assert not reaction("RobotPickedUp").matches(ev.OrientationChanged(1.0, orientation="on_back"))
    assert reaction("ReturnedToTreads").matches(ev.ReturnedToTreads(1.0, previous="on_side"))
    assert not reaction("ReturnedToTreads").matches(ev.StatusChanged(1.0, RobotStatus.IS_PICKED_UP, False))
    assert reaction("RobotShaken").matches(ev.Shaken(1.0, duration_s=6.0, strength="hard"))
    assert reaction("RobotPlacedOnSlope").matches(ev.PlacedOnSlope(1.0, pitch_deg=20.0))
    assert reaction("UnexpectedMovement").matches(ev.UnexpectedMovement(1.0, side="back"))
    hard = Reaction("Dizzy", root=None, event_kind="shaken", event_value="hard")  # type: ignore[arg-type]
    assert hard.matches(ev.Shaken(1.0, strength="hard")) and not hard.matches(ev.Shaken(1.0, strength="soft"))


class _LyingRobot:
    """Just enough robot for the off-treads behaviours: how it lies, and a motor stop."""

    def __init__(self, orientation: str) -> None:
        self.orientation = orientation
        self.stops = 0

    def stop_all_motors(self) -> None:
        self.stops += 1


def _behavior_ctx(orientation: str) -> tuple[BrainContext, list[float], _LyingRobot]:
    now = [0.0]
    robot = _LyingRobot(orientation)
    ctx = BrainContext(robot=robot, clock=lambda: now[0])
    ctx.animations = TimedAnimations(ctx.clock, duration_s=0.5)
    return ctx, now, robot


def _run(tree: Any, now: list[float], robot: _LyingRobot, right_at: float | None = None, limit: float = 30.0) -> float:
    while now[0] < limit:
        if right_at is not None and now[0] >= right_at:
            robot.orientation = "upright"
        tree.tick_once()
        if tree.status is not Status.RUNNING:
            return now[0]
        now[0] += 0.1
    raise AssertionError("the behaviour did not end")


def test_on_back_behaviour_keeps_trying_to_flip_while_on_the_back() -> None:
    ctx, now, robot = _behavior_ctx("on_back")
    tree = BEHAVIOR_CLASSES["ReactToRobotOnBack"](ctx, BehaviorSpec("ReactToRobotOnBack", "ReactToRobotOnBack", {}))
    ended = _run(tree, now, robot, right_at=2.6)
    assert robot.stops == 1
    flips = [name for kind, name in ctx.animations.played if kind == "trigger"]
    assert flips == ["FlipDownFromBack"] * 3  # a try (0.5 s) and a pause (0.5 s) each: at 0, 1.2 and 2.4 s
    assert 3.0 < ended < 4.0
    ctx, now, robot = _behavior_ctx("on_back")
    spec = BehaviorSpec("ReactToRobotOnBack", "OnBack", {"animTriggers": ["Frustrated"], "maxAttempts": 2})
    tree = BEHAVIOR_CLASSES["ReactToRobotOnBack"](ctx, spec)
    _run(tree, now, robot)  # never righted: gives up after two tries
    assert [n for _, n in ctx.animations.played] == ["Frustrated", "Frustrated"]


def test_on_side_behaviour_plays_the_side_reaction_then_waits_to_be_stood_up() -> None:
    ctx, now, robot = _behavior_ctx("on_left_side")
    tree = BEHAVIOR_CLASSES["ReactToRobotOnSide"](ctx, BehaviorSpec("ReactToRobotOnSide", "ReactToRobotOnSide", {}))
    _run(tree, now, robot, right_at=4.0)
    played = [n for _, n in ctx.animations.played]
    assert played[0] == "ReactToOnLeftSide" and set(played[1:]) == {"WaitOnSideLoop"} and len(played) == 3
    ctx, now, robot = _behavior_ctx("upright")
    tree = BEHAVIOR_CLASSES["ReactToRobotOnFace"](ctx, BehaviorSpec("ReactToRobotOnFace", "ReactToRobotOnFace", {}))
    _run(tree, now, robot)
    assert ctx.animations.played == []  # already righted: nothing to do


# ----------------------------------------------------------------------------- the daemon


@pytest.mark.e2e
def test_run_reacts_when_the_timeline_puts_the_robot_on_its_back(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text("- {at: 1.5, orientation: on_back, for: 2.5}\n")
    # on its back from 3 s (held at 1.5 s, laid down; a second's debounce), on its treads at 4 s;
    # the try at flipping over that is under way then ends before the put-down reaction starts
    args = [sys.executable, "-m", "brain", "run", "--sim", "--no-vision", "--duration", "8", "--sim-script", "s.yaml",
            "--personality", str(REPO / "trees" / "default.yaml"), "--resources", str(REPO / "resources")]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    log = proc.stderr
    assert proc.returncode == 0, log
    assert "sim: scripted orientation at 1.5 s" in log
    # the simulator lifts it and lays it down in one go: held first, on its back a second later
    assert log.index("robot: now in air (was upright)") < log.index("robot: now on back (was in air)")
    assert "safety: on back - all motors stopped" in log
    assert "reaction RobotOnBack (priority 95)" in log
    assert "doing reaction > ReactToRobotOnBack" in log  # the reaction's behaviour runs
    assert "reaction RobotOnBack finished" in log
    assert "robot: now upright (was on back)" in log and "robot: back on its treads (was on back)" in log
    # the put-down edge came while it still reacted: that reaction waited for its turn
    assert log.index("reaction RobotOnBack (priority") < log.index("reaction RobotOnBack finished") \
        < log.index("reaction ReturnedToTreads (priority")
    # the beats go on through the reactions (a loaded test machine may delay one past its period;
    # a reaction that blocked the loop would miss dozens)
    missed = re.search(r"\b(\d+) missed", log)
    assert missed is not None and int(missed[1]) <= 2, log


SHAKE_PERSONALITY = """\
name: shake probe
root: {type: wait, params: {seconds: 60}}
reactions:
  RobotShaken: {type: face, params: {expression: surprised}, priority: 60}
"""


@pytest.mark.e2e
def test_run_reacts_when_the_timeline_shakes_the_robot(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(SHAKE_PERSONALITY)
    (tmp_path / "s.yaml").write_text("- {at: 1.5, event: shake, for: 3}\n")
    args = [sys.executable, "-m", "brain", "run", "--sim", "--no-vision", "--duration", "7", "--sim-script", "s.yaml",
            "--personality", "p.yaml", "--resources", str(REPO / "resources")]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    log = proc.stderr
    assert proc.returncode == 0, log
    assert "sim: scripted shake at 1.5 s" in log
    assert "safety: picked up - all motors stopped" in log
    shaken = re.search(r"robot: shaken medium for (\d+\.\d) s", log)  # 3 s of shaking, as the engine measured it
    assert shaken is not None and 3.0 <= float(shaken.group(1)) < 4.0, log
    assert log.index("robot: now in air (was upright)") < log.index("robot: back on its treads (was in air)") \
        < shaken.start() < log.index("reaction RobotShaken (priority 60)") < log.index("reaction RobotShaken finished")
    assert not re.search(r"robot: (now on (back|face|left|right)|placed on a slope|pushed from)", log), log


def test_safety_hazard_names_the_orientation() -> None:
    class _Robot:
        def __init__(self) -> None:
            self.listeners: list[Any] = []
            self.stops = 0

        def add_hazard_listener(self, fn: Any) -> Any:
            self.listeners.append(fn)
            return lambda: self.listeners.remove(fn)

        def stop_all_motors(self) -> None:
            self.stops += 1

    robot = _Robot()
    safety = Safety(robot)  # type: ignore[arg-type]
    # held in the air is the pick-up flag's hazard, falling the falling flag's: not stopped twice
    for orientation, hazard in (("on_left_side", "on_side"), ("in_air", None), ("on_face", "on_face"),
                                ("falling", None), ("upright", None)):
        for fn in robot.listeners:
            fn(ev.OrientationChanged(1.0, orientation=orientation))
        assert safety.hazard == hazard
    assert robot.stops == 2


def test_orientation_conditions_in_a_personality(tmp_path: Path) -> None:
    from brain.personality import PersonalityError, load_personality

    path = tmp_path / "o.yaml"
    path.write_text("""\
root:
  type: selector
  children:
    - {type: orientation_is, params: {orientations: [on_side]}}
    - {type: recent_event, params: {kind: orientation, value: on_back, within_s: 5}}
""")
    ctx, now, robot = _behavior_ctx("on_right_side")
    root = load_personality(path, ctx).root
    root.tick_once()
    assert root.status is Status.SUCCESS and root.current_child.name == "orientation_is on_side"
    robot.orientation = "on_back"
    root.tick_once()
    assert root.status is Status.FAILURE  # no orientation event yet
    ctx.push_event(ev.OrientationChanged(now[0], orientation="on_back"))
    root.tick_once()
    assert root.status is Status.SUCCESS
    path.write_text("root: {type: orientation_is, params: {orientations: [on_bak]}}\n")
    with pytest.raises(PersonalityError, match=r"o.yaml:1: root.params.orientations: unknown orientation 'on_bak'; "
                                               r"did you mean 'on_back'"):
        load_personality(path, ctx)
