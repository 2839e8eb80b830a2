"""The node library: actions against the real Robot and simulator, conditions, decorators, choosers."""

from __future__ import annotations

import asyncio
import math
import random

import pytest
from py_trees.behaviours import Failure, Running, Success
from py_trees.common import Status

from brain.context import BrainContext, TimedAnimations
from brain.graph import Graph
from brain.mood import DEFAULT_CONFIG, EmotionEvent, Mood
from brain.nodes.actions import Drive, SetHeadAngle, Wait
from brain.nodes.choosers import ScoreSpec, Scoring, WeightedRandom
from brain.nodes.conditions import BatteryLow, MoodAbove, MoodBelow, PickedUp, RecentEvent, SimpleMoodIs
from brain.nodes.cozmo_behaviors import BehaviorSpec, SleepUntilWoken, anim_triggers
from brain.nodes.decorators import Cooldown, Inverter, Timeout, Timer
from brain.nodes.lights import BackpackLights
from brain.nodes.registry import BEHAVIOR_CLASSES
from driver import events as ev
from driver.robot import Robot
from driver.samples import RobotStatus
from driver.sim.server import SimulatedCozmo

from .conftest import eventually, run


class FakeClock:
    """Monotonic seconds that only move when the test says so."""

    def __init__(self, t: float = 100.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def _mood() -> Mood:
    return Mood(DEFAULT_CONFIG)


def _ctx(clock: FakeClock | None = None, seed: int = 7) -> BrainContext:
    clock = clock or FakeClock()
    return BrainContext(mood=_mood(), clock=clock, rng=random.Random(seed))


# ----------------------------------------------------------------------------- against the simulator


@pytest.mark.e2e
def test_actions_and_conditions_drive_the_simulated_robot() -> None:
    async def body() -> None:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address, lost_after=1.0)
        await robot.connect()
        try:
            ctx = BrainContext(robot=robot, mood=_mood(), rng=random.Random(1))
            robot.add_listener(ctx.push_event)

            head = SetHeadAngle("head", ctx, 30.0)
            head.tick_once()
            assert head.status is Status.RUNNING
            while head.status is Status.RUNNING:
                await asyncio.sleep(0.03)
                head.tick_once()
            assert head.status is Status.SUCCESS
            assert sim.body.head.position == pytest.approx(math.radians(30), abs=math.radians(3))

            # an interrupted move cancels the action it started
            interrupted = SetHeadAngle("head down", ctx, -20.0)
            interrupted.tick_once()
            action = interrupted._handle
            assert interrupted.status is Status.RUNNING and not action.done()
            interrupted.stop(Status.INVALID)
            assert action.done() and not action.succeeded

            drive = Drive("drive", ctx, 100.0, 100.0, 0.3)
            drive.tick_once()
            assert drive.status is Status.RUNNING
            while drive.status is Status.RUNNING:
                await asyncio.sleep(0.03)
                drive.tick_once()
            await eventually(lambda: not sim.body.wheels_moving)
            assert sim.body.x_mm > 10

            lights = BackpackLights("lights", ctx, pattern="happy")
            lights.tick_once()
            assert lights.status is Status.SUCCESS

            picked, woken = PickedUp("picked", ctx), RecentEvent("pick-up edge", ctx, "picked_up", within_s=2.0)
            picked.tick_once()
            assert picked.status is Status.FAILURE
            sim.pick_up()
            await eventually(lambda: robot.state is not None and robot.state.has(RobotStatus.IS_PICKED_UP))
            picked.tick_once()
            woken.tick_once()
            assert picked.status is Status.SUCCESS and woken.status is Status.SUCCESS

            sleeper = SleepUntilWoken("sleep", ctx, wake_on=["poked"])
            sleeper.tick_once()
            await asyncio.sleep(0.1)
            sleeper.tick_once()
            assert sleeper.status is Status.RUNNING
            sim.poke()
            await eventually(lambda: any(e.kind == "poked" for e in ctx.events))
            sleeper.tick_once()
            assert sleeper.status is Status.SUCCESS and sleeper.woken_by.kind == "poked"
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body(), timeout=30)


def test_robot_nodes_fail_cleanly_without_a_robot() -> None:
    ctx = _ctx()
    node = SetHeadAngle("head", ctx, 10.0)  # no robot
    node.tick_once()
    assert node.status is Status.FAILURE and "no robot" in node.feedback_message
    battery = BatteryLow("battery", ctx, 3.6)
    battery.tick_once()
    assert battery.status is Status.FAILURE and battery.feedback_message == "no robot state"


# ----------------------------------------------------------------------------- conditions


def test_mood_conditions_follow_the_mood() -> None:
    ctx = _ctx()
    above, below = MoodAbove("happy?", ctx, "Happy", 0.5), MoodBelow("sad?", ctx, "Happy", -0.2)
    above.tick_once()
    below.tick_once()
    assert above.status is Status.FAILURE and below.status is Status.FAILURE
    ctx.mood.set_value("Happy", 0.6, ctx.now())
    above.tick_once()
    assert above.status is Status.SUCCESS
    ctx.mood.set_value("Happy", -0.5, ctx.now())
    below.tick_once()
    assert below.status is Status.SUCCESS
    low = SimpleMoodIs("bored?", ctx, ["LowStim"])
    low.tick_once()
    assert low.status is Status.SUCCESS
    ctx.mood.set_value("Excited", 0.9, ctx.now())
    low.tick_once()
    assert low.status is Status.FAILURE


def test_a_node_whose_update_returns_no_status_is_logged_and_taken_as_invalid(
        caplog: pytest.LogCaptureFixture) -> None:
    """Conditions and other nodes without initialise or terminate tick by their update alone, and
    still refuse what is not a status; nodes with them still get both calls."""
    from brain.nodes.actions import ContextBehaviour
    from brain.nodes.composites import Sequence

    class Broken(ContextBehaviour):
        def update(self) -> Status:
            return None  # type: ignore[return-value]

    class Counted(ContextBehaviour):
        calls: list[str] = []

        def initialise(self) -> None:
            self.calls.append("initialise")

        def update(self) -> Status:
            return Status.SUCCESS

        def terminate(self, new_status: Status) -> None:
            self.calls.append(f"terminate {new_status.name}")

    ctx = _ctx()
    assert Broken._plain and MoodAbove._plain and not Counted._plain
    broken = Broken("broken", ctx)
    with caplog.at_level("ERROR"):
        assert broken.run_tick() is Status.INVALID
    assert "broken returned None, not a status; taken as INVALID" in caplog.text
    counted = Counted("counted", ctx)
    seq = Sequence("seq", memory=False, children=[MoodAbove("happy?", ctx, "Happy", -1.0), counted])
    seq.tick_once()
    assert seq.status is Status.SUCCESS and counted.calls == ["initialise", "terminate SUCCESS"]


def test_recent_event_window_edge_value_and_once() -> None:
    clock = FakeClock()
    ctx = _ctx(clock)
    poked = RecentEvent("poked", ctx, "poked", within_s=1.0, once=True)
    poked.tick_once()
    assert poked.status is Status.FAILURE
    ctx.push_event(ev.Poked(clock.t))
    clock.t += 0.5
    poked.tick_once()
    assert poked.status is Status.SUCCESS
    poked.tick_once()
    assert poked.status is Status.FAILURE  # once: the same poke does not count twice
    ctx.push_event(ev.Poked(clock.t))
    clock.t += 1.5
    poked.tick_once()
    assert poked.status is Status.FAILURE  # too old
    put_down = RecentEvent("put down", ctx, "picked_up", within_s=5.0, value=False)
    ctx.push_event(ev.StatusChanged(clock.t, RobotStatus.IS_PICKED_UP, True))
    put_down.tick_once()
    assert put_down.status is Status.FAILURE
    ctx.push_event(ev.StatusChanged(clock.t, RobotStatus.IS_PICKED_UP, False))
    put_down.tick_once()
    assert put_down.status is Status.SUCCESS


# ----------------------------------------------------------------------------- decorators


def test_cooldown_blocks_until_the_time_has_passed() -> None:
    clock = FakeClock()
    ctx = _ctx(clock)
    node = Cooldown("cool", Success("act"), ctx, 10.0)
    node.tick_once()
    assert node.status is Status.SUCCESS
    clock.t += 5
    node.tick_once()
    assert node.status is Status.FAILURE and "cooling down" in node.feedback_message
    clock.t += 5.01
    node.tick_once()
    assert node.status is Status.SUCCESS
    # a child that fails at once never ran: no cooldown starts
    guard = Cooldown("guard", Failure("no"), ctx, 10.0)
    guard.tick_once()
    guard.tick_once()
    assert guard.status is Status.FAILURE and guard.last_ran is None


def test_timeout_fails_and_timer_succeeds_on_the_context_clock() -> None:
    clock = FakeClock()
    ctx = _ctx(clock)
    timeout, timer = Timeout("to", Running("r1"), ctx, 2.0), Timer("tm", Running("r2"), ctx, 2.0)
    for node in (timeout, timer):
        node.tick_once()
        assert node.status is Status.RUNNING
    clock.t += 2.0
    timeout.tick_once()
    timer.tick_once()
    assert timeout.status is Status.FAILURE and timer.status is Status.SUCCESS
    assert timeout.decorated.status is Status.INVALID and timer.decorated.status is Status.INVALID
    assert (timeout.feedback_message, timer.feedback_message) == ("timed out after 2 s", "ran its 2 s")
    # a decorator interrupted by a higher priority stops its running child with it
    timer = Timer("tm2", Running("r3"), ctx, 5.0)
    timer.tick_once()
    assert timer.decorated.status is Status.RUNNING
    timer.stop(Status.INVALID)
    assert timer.status is Status.INVALID and timer.decorated.status is Status.INVALID
    # ...and a reset one resets its finished child (py_trees' decorator stop)
    inverted = Inverter("not", Failure("f"))
    inverted.tick_once()
    assert inverted.status is Status.SUCCESS and inverted.decorated.status is Status.FAILURE
    inverted.stop(Status.INVALID)
    assert inverted.decorated.status is Status.INVALID
    wait = Wait("w", ctx, 1.0)
    wait.tick_once()
    assert wait.status is Status.RUNNING
    clock.t += 1.0
    wait.tick_once()
    assert wait.status is Status.SUCCESS


# ----------------------------------------------------------------------------- choosers


def test_weighted_random_respects_cooldowns() -> None:
    clock = FakeClock()
    ctx = _ctx(clock, seed=3)
    chooser = WeightedRandom("pick", ctx, [Success("a"), Success("b"), Success("never")],
                             weights=[1.0, 1.0, 0.0], cooldowns=[10.0, 20.0, 0.0])
    picked = []
    for _ in range(2):
        chooser.tick_once()
        assert chooser.status is Status.SUCCESS
        picked.append(chooser.current_child.name)
        clock.t += 1
    assert sorted(picked) == ["a", "b"]  # the first one is cooling down, so the second is the other
    chooser.tick_once()  # both cooling: the one closest to ready ("a": 10 s cooldown)
    assert chooser.current_child.name == "a"
    clock.t += 30
    seen = set()
    for _ in range(20):
        clock.t += 30
        chooser.tick_once()
        seen.add(chooser.current_child.name)
    assert seen == {"a", "b"}  # zero weight is never chosen


def test_weighted_random_is_reproducible_with_a_seed() -> None:
    def picks(seed: int) -> list[str]:
        clock = FakeClock()
        ctx = _ctx(clock, seed)
        chooser = WeightedRandom("pick", ctx, [Success(n) for n in "abcd"], weights=[1, 2, 3, 4])
        out = []
        for _ in range(30):
            chooser.tick_once()
            out.append(chooser.current_child.name)
        return out

    assert picks(5) == picks(5)
    assert len(set(picks(5))) > 1


def test_scoring_vetoes_zero_and_prefers_the_higher_score() -> None:
    ctx = _ctx()
    needs_happy = ScoreSpec(emotions=(("Happy", Graph([(-1, 0), (0, 0), (1, 1)])),))
    chooser = Scoring("score", ctx, [Success("happy thing"), Success("flat thing")],
                      [needs_happy, ScoreSpec(flat_score=0.3)], noise=0.1)
    for _ in range(10):
        chooser.tick_once()
        assert chooser.current_child.name == "flat thing"  # Happy is 0: vetoed
    ctx.mood.set_value("Happy", 1.0, ctx.now())
    chooser.tick_once()
    assert chooser.current_child.name == "happy thing"  # 1.0 beats 0.3 + noise
    only_vetoed = Scoring("none", ctx, [Success("x")], [ScoreSpec(emotions=(("Calm", Graph([(0, 0)])),))])
    only_vetoed.tick_once()
    assert only_vetoed.status is Status.FAILURE


# ----------------------------------------------------------------------------- Cozmo behaviours


def test_behaviour_classes_read_their_trigger_spellings_and_fire_emotion_events() -> None:
    clock = FakeClock()
    yay = EmotionEvent("Yay", {"Happy": 0.5})
    mood = Mood(DEFAULT_CONFIG, [yay])
    ctx = BrainContext(mood=mood, clock=clock, rng=random.Random(2), animations=TimedAnimations(clock, 0.5))
    for key in ("animTriggers", "animTrigger", "AnimTrigger", "animationTrigger"):
        assert anim_triggers(BehaviorSpec("PlayAnim", "x", {key: ["A", "B"]})) == ["A", "B"]
    spec = BehaviorSpec("PlayAnim", "Bored", {"animTriggers": ["In", "Out"], "emotionEvent": "Yay"})
    tree = BEHAVIOR_CLASSES["PlayAnim"](ctx, spec)
    assert tree.name == "Bored"
    tree.tick_once()
    while tree.status is Status.RUNNING:
        clock.t += 0.5
        tree.tick_once()
    assert tree.status is Status.SUCCESS
    assert ctx.animations.played == [("trigger", "In"), ("trigger", "Out")]
    assert mood.value("Happy") == pytest.approx(0.5)
    assert set(BEHAVIOR_CLASSES) >= {"PlayAnim", "PlayArbitraryAnim", "ReactToCliff", "ReactToPickup", "ReactToPutDown",
                                     "ReactToOnCharger", "DriveOffCharger", "LookAround", "ReactToPoke",
                                     "ReactToCubeTap", "Sleep", "Nap", "Wake"}


def test_nap_ends_after_its_time() -> None:
    clock = FakeClock()
    ctx = _ctx(clock)
    nap = BEHAVIOR_CLASSES["Nap"](ctx, BehaviorSpec("Nap", "nap", {"napDuration_s": 60}))
    nap.tick_once()
    assert nap.status is Status.RUNNING
    clock.t += 61
    nap.tick_once()
    assert nap.status is Status.SUCCESS
