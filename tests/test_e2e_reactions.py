"""Cozmo's reactions to being handled and to its cubes, end to end.

The daemon runs the default personality (with ReturnedToTreads handled by the app's
ReactToReturnedToTreads class) as a user runs it, against the simulator in the test's process;
the test shakes the robot, double-taps and moves a cube, and puts the robot down on a slope,
and checks what reached the simulator: the dizzy clip's head keyframes, the search's head and
turns, the sensing and upset clips, the head calibration. The subject is the reactions, not the
wire: the daemon runs in the test's process on the virtual clock (:mod:`tests.virtual_daemon`).
"""

from __future__ import annotations

import asyncio
import math
import signal
from pathlib import Path

import pytest

from brain.assets.resource_set import ResourceSet

from .clip_spans import clip_heads, clip_started, group_heads, in_order
from .conftest import eventually
from .daemon_harness import Daemon
from .test_e2e_default import DEFAULT, RESOURCES
from .virtual_daemon import run_on_virtual_clock, start_virtual

pytestmark = pytest.mark.e2e


def _heads(world: Daemon, after: float) -> list[int]:
    """The head angles (°) of the animation keyframes that reached the simulator after ``after``."""
    return [int(msg.angle_deg) for _, msg in world.messages("AnimHead", after)]


def test_shake_double_tap_cube_move_and_a_crooked_put_down(tmp_path: Path) -> None:
    rs = ResourceSet.load([RESOURCES])
    dizzy = clip_heads(rs, "anim_dizzy_01")
    personality = tmp_path / "handled.yaml"
    personality.write_text(f"extends: {DEFAULT}\nname: handled\n"
                           "reactions:\n"
                           "  ReturnedToTreads: {behavior: ReactToReturnedToTreads, priority: 80}\n")

    async def body() -> None:
        world = await start_virtual(tmp_path, "--personality", str(personality), "--resources", str(RESOURCES),
                                    "--duration", "90", ready=r"running \S+ at 10 Hz")
        sim = world.sim
        try:
            sim.connect_cube(1)
            await world.line(r"cube 0x[0-9a-f]+ connected in", timeout=15.0)

            # shaken for 3 s (picked up, shaken, put down): dizzy once the shaking stops
            shaken = world.now()
            sim.body.shake(3.0)
            await world.line(r"reaction RobotShaken \(priority", timeout=8.0, after=shaken)
            await eventually(lambda: in_order(_heads(world, shaken), dizzy), timeout=10.0, interval=0.1)
            await world.line(r"reaction RobotShaken finished", timeout=10.0, after=shaken)

            # a double tap: it looks down and about for the cube (head to -5°, 30° each way)
            tapped = world.now()
            sim.tap_cube(1, taps=2)
            await world.line(r"reaction DoubleTapDetected \(priority", timeout=3.0, after=tapped)
            # (what reached the robot is looked at from the tap on: the log line may come after it)
            await eventually(lambda: len(world.messages("TurnInPlace", tapped)) >= 3, timeout=10.0, interval=0.1)
            heads = [math.degrees(msg.angle_rad) for _, msg in world.messages("SetHeadAngle", tapped)]
            assert any(abs(h + 5.0) < 0.5 for h in heads), heads
            turns = [round(math.degrees(msg.angle_rad)) for _, msg in world.messages("TurnInPlace", tapped)][:3]
            assert turns == [30, -60, 30], turns
            await world.line(r"reaction DoubleTapDetected finished", timeout=10.0, after=tapped)

            # a single tap is not a double tap: the cube-tap reaction answers it
            tapped = world.now()
            sim.tap_cube(1, taps=1)
            await world.line(r"reaction CubeTapped \(priority", timeout=3.0, after=tapped)
            await world.line(r"reaction CubeTapped finished", timeout=10.0, after=tapped)

            # the cube moved: the sensing clip, then the upset one
            moved = world.now()
            sim.move_cube(1)
            await world.line(r"reaction CubeMoved \(priority", timeout=3.0, after=moved)
            sense = group_heads(rs, "CubeMovedSense")
            upset = group_heads(rs, "CubeMovedUpset")
            await eventually(lambda: clip_started(world.messages, moved, sense) is not None, timeout=8.0, interval=0.1)
            first = clip_started(world.messages, moved, sense)
            assert first is not None
            await eventually(lambda: clip_started(world.messages, first, upset) is not None, timeout=10.0, interval=0.1)
            await world.line(r"reaction CubeMoved finished", timeout=10.0, after=moved)

            # put down on a 20° slope: the head is recalibrated; level, it is not
            sim.body.slope_deg = 20.0
            lifted = world.now()
            sim.pick_up(2.0)
            await world.line(r"reaction ReturnedToTreads \(priority", timeout=8.0, after=lifted)
            await eventually(lambda: world.messages("StartMotorCalibration", lifted), timeout=3.0, interval=0.05)
            await asyncio.sleep(2.0)  # the simulator calibrates the head and reports it done
            ((_, calib),) = world.messages("StartMotorCalibration", lifted)
            assert calib.head and not calib.lift
            sim.body.slope_deg = 0.0
            await asyncio.sleep(3.0)
            lifted = world.now()
            sim.pick_up(2.0)
            await world.line(r"reaction ReturnedToTreads \(priority", timeout=8.0, after=lifted)
            await asyncio.sleep(2.0)
            assert not world.messages("StartMotorCalibration", lifted), "recalibrated on level ground"
        finally:
            world.signal(signal.SIGINT)
            code = await world.wait(110.0)
            await world.close()
        assert code == 0, world.text

    run_on_virtual_clock(body(), timeout=150)


def test_the_reaction_classes_build_from_the_real_files(sample_resources: Path) -> None:
    """Every real file of the reaction classes builds; the combined frustration file's two
    reactions and the acknowledgement's cooldown come from the file."""
    import random

    from brain.context import BrainContext
    from brain.nodes.behavior_class import BehaviorSpec
    from brain.nodes.decorators import Cooldown
    from brain.nodes.reaction_classes import REACTION_CLASSES, PlayFrustration
    from brain.nodes.registry import BEHAVIOR_CLASSES

    names = {c.name for c in REACTION_CLASSES}
    sample = ResourceSet.load([sample_resources], index_clips=False)
    records = [r for r in sample.behaviors.values() if r.behavior_class in names]
    assert {r.behavior_class for r in records} == names
    ctx = BrainContext(rng=random.Random(1))
    built = {r.behavior_id: BEHAVIOR_CLASSES[r.behavior_class](ctx, BehaviorSpec.from_record(r)) for r in records}
    assert all(tree.name == bid for bid, tree in built.items())
    (play,) = [n for n in built["ReactToFrustration"].iterate() if isinstance(n, PlayFrustration)]
    assert [(r[0], r[1], r[2]) for r in play.reactions] == [
        (-0.6, "FrustratedByFailure", "FinishedMinorFrustration"),
        (-0.9, "FrustratedByFailureMajor", "FinishedMajorFrustration")]
    assert play.reactions[1][3] == ((80.0, 180.0), (150.0, 400.0))
    (cooldown,) = [n for n in built["AcknowledgeObject"].iterate() if isinstance(n, Cooldown)]
    assert cooldown.seconds == 600.0

