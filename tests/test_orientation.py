"""Lying on the back, face or side: detection from the accelerometer, the simulator, safety, reactions."""

from __future__ import annotations

import math
import random
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
from driver.robot import Robot
from driver.samples import GRAVITY_MMPS2, OrientationDetector
from driver.sim.body import Body
from driver.sim.body import Status as BodyStatus
from driver.sim.script import ScriptError, parse_script
from driver.sim.server import SimulatedCozmo

from .conftest import REPO, eventually, run

G = GRAVITY_MMPS2
RATE_HZ = 30.0


def gravity(pitch_deg: float = 0.0, side: float = 0.0) -> tuple[float, float, float]:
    """Accelerometer reading of a robot at rest, pitched nose-up by ``pitch_deg``, ``side`` of g sideways."""
    flat = math.sqrt(max(0.0, 1.0 - side * side))
    p = math.radians(pitch_deg)
    return (G * flat * math.sin(p), G * side, G * flat * math.cos(p))


def feed(det: OrientationDetector, reading: tuple[float, float, float], seconds: float, t0: float = 0.0,
         noise: float = 0.0, rng: random.Random | None = None) -> list[tuple[float, str]]:
    """Feed ``seconds`` of 30 Hz readings; returns the (time, orientation) changes reported."""
    changes = []
    n = round(seconds * RATE_HZ)
    for i in range(n):
        t = t0 + i / RATE_HZ
        x, y, z = reading
        if noise and rng is not None:
            x, y, z = x + rng.gauss(0, noise), y + rng.gauss(0, noise), z + rng.gauss(0, noise)
        turned = det.update(t, x, y, z)
        if turned is not None:
            changes.append((t, turned))
    return changes


# ----------------------------------------------------------------------------- the detector


def test_upright_with_heavy_noise_never_changes() -> None:
    rng = random.Random(7)
    det = OrientationDetector()
    assert feed(det, gravity(0), 60.0, noise=1500.0, rng=rng) == []  # about 0.15 g of noise on every axis
    assert det.orientation == "upright"


@pytest.mark.parametrize(("reading", "expected", "hold"), [
    (gravity(74.5), "on_back", 0.75),
    (gravity(-95.0), "on_face", 0.25),
    (gravity(0.0, side=1.0), "on_right_side", 0.25),
    (gravity(0.0, side=-1.0), "on_left_side", 0.25),
])
def test_each_orientation_is_reported_once_after_its_hold_time(reading: tuple[float, float, float], expected: str,
                                                                hold: float) -> None:
    det = OrientationDetector()
    feed(det, gravity(0), 1.0)
    changes = feed(det, reading, 3.0, t0=1.0)
    assert [c[1] for c in changes] == [expected]
    delay = changes[0][0] - 1.0
    assert hold <= delay <= hold + 0.25  # the hold, plus the low-pass filter settling
    back = feed(det, gravity(0), 2.0, t0=4.0)
    assert [c[1] for c in back] == ["upright"]


def test_a_reading_that_flaps_between_two_orientations_is_not_reported() -> None:
    det = OrientationDetector()
    changes = []
    for i in range(int(10 * RATE_HZ)):
        t = i / RATE_HZ
        reading = gravity(74.5) if (i // 3) % 2 else gravity(0)  # a 5 Hz flip-flop
        turned = det.update(t, *reading)
        if turned:
            changes.append(turned)
    assert changes == []


def test_hysteresis_keeps_the_current_orientation_at_a_border() -> None:
    det = OrientationDetector()
    # 50° nose up is outside "upright to enter" and inside "on the back to stay": it changes nothing
    assert feed(det, gravity(50.0), 5.0) == [] and det.orientation == "upright"
    assert [c[1] for c in feed(det, gravity(80.0), 2.0, t0=5.0)] == ["on_back"]
    assert feed(det, gravity(50.0), 5.0, t0=7.0) == [] and det.orientation == "on_back"
    # sideways: entered at 0.8 g, kept down to 0.65 g
    det = OrientationDetector()
    assert feed(det, gravity(0.0, side=0.75), 3.0) == []
    assert [c[1] for c in feed(det, gravity(0.0, side=0.9), 2.0, t0=3.0)] == ["on_right_side"]
    assert feed(det, gravity(0.0, side=0.7), 3.0, t0=5.0) == [] and det.orientation == "on_right_side"


def test_a_short_excursion_is_not_confirmed() -> None:
    det = OrientationDetector()
    feed(det, gravity(0), 1.0)
    assert feed(det, gravity(74.5), 0.5, t0=1.0) == []  # shorter than the 0.75 s hold on the back
    assert feed(det, gravity(0), 2.0, t0=1.5) == [] and det.orientation == "upright"


def test_readings_far_from_one_g_are_no_evidence() -> None:
    det = OrientationDetector()
    feed(det, gravity(0), 1.0)
    assert feed(det, (0.0, 0.0, 0.0), 2.0, t0=1.0) == []  # free fall
    assert feed(det, (25000.0, 0.0, 25000.0), 2.0, t0=3.0) == []  # a violent shake
    assert det.orientation == "upright"
    with pytest.raises(ValueError, match="unknown orientation 'sideways'"):
        OrientationDetector(initial="sideways")


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
    assert body.cliff_raw() == (20, 20, 20, 20) and not body.wheels_moving
    x = body.x_mm
    body.drive(100, 100)
    body.step(0.5)
    assert body.x_mm == x  # no odometry off the treads
    body.step(0.6)
    assert body.orientation == "upright" and body.accel() == (0.0, 0.0, G) and not body.off_treads


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


# ----------------------------------------------------------------------------- robot, safety, reactions


@pytest.mark.e2e
def test_robot_reports_orientation_changes_and_safety_stops_the_motors() -> None:
    async def body() -> None:
        sim = await SimulatedCozmo(port=0).start()
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
            turned = await robot.wait_for("orientation", timeout=2.0)
            assert isinstance(turned, ev.OrientationChanged)
            assert (turned.orientation, turned.previous, turned.on_back) == ("on_back", "upright", True)
            assert robot.orientation == "on_back" and safety.hazard == "on_back"
            assert "on_back" in safety.active
            assert sim.counts["StopAllMotors"] > stops
            sim.body.set_orientation("upright")
            back = await robot.wait_for("orientation", timeout=2.0)
            assert isinstance(back, ev.OrientationChanged) and back.upright
            assert "on_back" not in safety.active
            kinds = [e.kind for e in seen]
            assert kinds.count("orientation") == 2  # no flapping on the way
            assert ("picked_up", True) in [(e.kind, getattr(e, "value", None)) for e in seen]
        finally:
            safety.close()
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
    args = [sys.executable, "-m", "brain", "run", "--sim", "--duration", "6", "--sim-script", "s.yaml",
            "--personality", str(REPO / "trees" / "default.yaml"), "--resources", str(REPO / "resources")]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    log = proc.stderr
    assert proc.returncode == 0, log
    assert "sim: scripted orientation at 1.5 s" in log
    assert "robot: now on back (was upright)" in log
    assert "safety: on back - all motors stopped" in log
    assert "reaction RobotOnBack (priority 95)" in log
    assert "doing reaction > ReactToRobotOnBack" in log  # the reaction's behaviour runs
    assert "reaction RobotOnBack finished" in log
    assert "robot: now upright (was on back)" in log
    # the put-down edge came while it still reacted: that reaction waited for its turn
    assert log.index("reaction RobotOnBack (priority") < log.index("reaction RobotOnBack finished") \
        < log.index("reaction ReturnedToTreads (priority")
    assert re.search(r"\b0 missed", log), log


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
    for orientation, hazard in (("on_left_side", "on_side"), ("on_face", "on_face"), ("upright", None)):
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
