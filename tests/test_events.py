"""Events by type: the kind-name table, dispatch by class and flag, and safety before everyone else."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from brain.context import BrainContext
from brain.heartbeat import Heartbeat
from brain.personality import REACTION_EVENTS, PersonalityError, Reaction, load_personality
from brain.safety import Safety
from driver import events as ev
from driver.robot import Robot
from driver.samples import RobotStatus
from driver.sim.server import SimulatedCozmo

from .conftest import REPO, eventually, run


def _event_classes() -> list[type[ev.RobotEvent]]:
    found, todo = [], list(ev.RobotEvent.__subclasses__())
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


# ----------------------------------------------------------------------------- the kind table


def test_every_event_class_and_status_flag_has_its_own_kind() -> None:
    classes = [c for c in _event_classes() if c is not ev.StatusChanged]
    assert all(c.KIND != ev.RobotEvent.KIND for c in classes), [c for c in classes if c.KIND == "event"]
    for cls in classes:
        event_type = ev.EVENT_KINDS[cls.KIND]
        assert event_type == ev.EventType(cls) and event_type.matches(cls(1.0))
    for flag, kind in ev.FLAG_KINDS.items():
        assert ev.EVENT_KINDS[kind] == ev.EventType(ev.StatusChanged, flag)
        assert ev.StatusChanged(1.0, flag, True).kind == kind
    assert len(ev.EVENT_KINDS) == len(classes) + len(ev.FLAG_KINDS)


def test_an_event_type_matches_by_class_and_flag_not_by_name() -> None:
    cliff = ev.EVENT_KINDS["cliff"]
    assert cliff.matches(ev.StatusChanged(1.0, RobotStatus.CLIFF_DETECTED, True))
    assert not cliff.matches(ev.StatusChanged(1.0, RobotStatus.IS_PICKED_UP, True))
    assert not cliff.matches(SimpleNamespace(at=1.0, kind="cliff", value=True))  # reads the same, is not one
    assert not ev.EVENT_KINDS["falling"].matches(ev.FallingStarted(1.0))  # the flag edge, not the message
    assert ev.EVENT_KINDS["falling_started"].matches(ev.FallingStarted(1.0))


def test_every_reaction_trigger_names_a_known_event_kind() -> None:
    unknown = {trigger: kind for trigger, (kind, _) in REACTION_EVENTS.items() if kind not in ev.EVENT_KINDS}
    assert unknown == {}


def test_a_reaction_fires_on_its_event_type_only() -> None:
    kind, value = REACTION_EVENTS["CliffDetected"]
    reaction = Reaction("CliffDetected", root=None, event_kind=kind, event_value=value)  # type: ignore[arg-type]
    driving, held = RobotStatus.ARE_WHEELS_MOVING, RobotStatus.IS_PICKED_UP
    assert reaction.matches(ev.StatusChanged(1.0, RobotStatus.CLIFF_DETECTED, True, 0, driving))
    assert not reaction.matches(ev.StatusChanged(1.0, RobotStatus.CLIFF_DETECTED, False, 0, driving))
    # the sensor losing the floor as the robot is lifted is no cliff; the floor ending under a
    # standing robot is, but only one met while driving is an edge of the table
    lifted = ev.StatusChanged(1.0, RobotStatus.CLIFF_DETECTED, True, held, driving)
    standing = ev.StatusChanged(1.0, RobotStatus.CLIFF_DETECTED, True, 0, 0)
    assert not reaction.matches(lifted) and lifted.held and not lifted.edge_of_the_floor
    assert reaction.matches(standing) and not standing.edge_of_the_floor
    assert not reaction.matches(SimpleNamespace(at=1.0, kind="cliff", value=True))
    kind, value = REACTION_EVENTS["RobotFalling"]
    falling = Reaction("RobotFalling", root=None, event_kind=kind, event_value=value)  # type: ignore[arg-type]
    assert falling.matches(ev.FallingStarted(1.0))
    assert not falling.matches(ev.StatusChanged(1.0, RobotStatus.IS_FALLING, True))


# ----------------------------------------------------------------------------- names in personality files


def _load(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PersonalityError) as info:
        load_personality(path, BrainContext())
    return str(info.value).splitlines()


def test_an_unknown_event_kind_in_a_reaction_is_an_error_with_a_suggestion(tmp_path: Path) -> None:
    errors = _load(tmp_path, "root: {type: wait, params: {seconds: 1}}\n"
                             "reactions:\n"
                             "  Bumped: {type: face, params: {expression: happy}, event: {kind: clif}}\n")
    assert errors == [f"{tmp_path / 'p.yaml'}:3: reactions.Bumped.event.kind: unknown robot event kind 'clif'; "
                      "did you mean 'cliff'?"]


def test_an_unknown_event_kind_in_a_condition_is_an_error(tmp_path: Path) -> None:
    errors = _load(tmp_path, "root:\n"
                             "  type: sequence\n"
                             "  children:\n"
                             "    - {type: recent_event, params: {kind: pokd}}\n"
                             "    - {type: wait, params: {seconds: 1}}\n")
    assert len(errors) == 1 and errors[0].startswith(f"{tmp_path / 'p.yaml'}:4: root.children[0].params.kind: ")
    assert "expected one of" in errors[0] and "'pokd'" in errors[0] and " poked," in errors[0]


# ----------------------------------------------------------------------------- consumers


def test_the_heartbeat_leaves_frequent_events_out_of_its_snapshot_by_type() -> None:
    hb = Heartbeat(None, rate_hz=10)
    for event in (ev.StatusChanged(1.0, RobotStatus.IS_MOVING, True), ev.StatusChanged(1.0, RobotStatus.CLIFF_DETECTED,
                  True), ev.AnimationStarted(1.0, anim_id=3), ev.StatusChanged(1.0, RobotStatus.ARE_WHEELS_MOVING,
                  True), ev.Poked(1.0), ev.MotorCalibration(1.0), ev.StatusChanged(1.0, RobotStatus.HEAD_IN_POS,
                  True)):
        hb.post(event)
    assert hb.beat().events == ["cliff", "poked"]


@pytest.mark.e2e
@pytest.mark.parametrize("hazard", ["cliff", "pick_up", "fall"])
def test_safety_stops_the_motors_before_a_listener_registered_first_can_answer(hazard: str) -> None:
    """A listener that answers the hazard with a drive command is registered before the safety
    layer; still, StopAllMotors reaches the simulator first, and the answer after it."""

    async def body() -> None:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address)
        await robot.connect()
        answered: list[str] = []

        def answer(event: ev.RobotEvent) -> None:  # a reaction backing away, as soon as it hears of it
            hazard = isinstance(event, ev.FallingStarted) or (
                isinstance(event, ev.StatusChanged) and event.value
                and event.flag in (RobotStatus.CLIFF_DETECTED, RobotStatus.IS_PICKED_UP))
            if hazard and not answered:
                answered.append(event.kind)
                robot.drive_wheels(-40, -40)

        remove = robot.add_listener(answer)
        safety = Safety(robot)
        try:
            robot.drive_wheels(120, 120)
            await eventually(lambda: sim.body.wheels_moving)
            seen = len(sim.received)
            {"pick_up": sim.pick_up, "cliff": sim.set_cliff, "fall": sim.fall}[hazard]()
            await eventually(lambda: answered and sim.counts["DriveWheels"] >= 2, timeout=2)
            await asyncio.sleep(0.1)
            names = [type(msg).__name__ for msg in list(sim.received)[seen:]]
            drives = [i for i, msg in enumerate(list(sim.received)[seen:])
                      if type(msg).__name__ == "DriveWheels" and msg.lwheel_speed_mmps == -40]
            assert drives, names
            assert "StopAllMotors" in names[:drives[0]], names
            assert safety.stops >= 1
        finally:
            remove()
            safety.close()
            await robot.disconnect()
            await sim.stop()

    run(body())


def test_hazard_listeners_run_before_ordinary_ones_whatever_the_order() -> None:
    robot = Robot("127.0.0.1", 9)
    calls: list[str] = []
    robot.add_listener(lambda e: calls.append("first ordinary"))
    robot.add_hazard_listener(lambda e: calls.append("hazard"))
    remove: Any = robot.add_listener(lambda e: calls.append("second ordinary"))
    robot._emit(ev.Poked(1.0))
    assert calls == ["hazard", "first ordinary", "second ordinary"]
    remove()
    remove()  # removing twice is harmless
    calls.clear()
    robot._emit(ev.Poked(2.0))
    assert calls == ["hazard", "first ordinary"]


def test_every_event_kind_is_documented_for_personality_authors() -> None:
    doc = (REPO / "docs" / "personality-format.md").read_text(encoding="utf-8")
    assert [kind for kind in ev.EVENT_KINDS if f"`{kind}`" not in doc] == []


def test_waiting_for_an_unknown_kind_fails_at_once_instead_of_timing_out() -> None:
    async def body() -> None:
        robot = Robot("127.0.0.1", 9)
        with pytest.raises(ValueError, match="unknown robot event kind 'robot_lsot'"):
            await robot.wait_for("robot_lsot", timeout=30)
        waiting = asyncio.ensure_future(robot.wait_for("poked", timeout=5))
        await asyncio.sleep(0)
        robot._emit(ev.StatusChanged(1.0, RobotStatus.CLIFF_DETECTED, True))
        robot._emit(ev.Poked(2.0))
        assert (await waiting) == ev.Poked(2.0)

    run(body(), timeout=10)
