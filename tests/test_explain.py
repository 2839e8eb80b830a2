"""Every node type explains itself: a tree with one node of each type, ticked, then asked why."""

from __future__ import annotations

import random
from pathlib import Path

import py_trees
import pytest

from brain.context import BrainContext, TimedAnimations
from brain.mood import DEFAULT_CONFIG, Mood
from brain.nodes.explain import explain_branch, is_chooser, is_condition, reason
from brain.nodes.registry import NODE_TYPES
from brain.personality import load_personality
from brain.rhythm import DayRhythm
from driver.protocol import messages as m
from driver.samples import state_from_message

#: One node of every type, each named ``t_<type>`` (a new node type fails the test until it is here).
EVERY_TYPE = """
name: every
root:
  type: selector
  name: t_selector
  children:
    - type: sequence
      name: t_sequence
      params: {memory: false}
      children:
        - {type: mood_above, name: t_mood_above, params: {emotion: Happy, value: 0.9}}
        - {type: success, name: t_success}
    - type: strict_priority
      name: t_strict_priority
      children:
        - {type: mood_below, name: t_mood_below, params: {emotion: Happy, value: -0.9}}
        - {type: simple_mood_is, name: t_simple_mood_is, params: {moods: [Frustrated]}}
        - {type: recent_event, name: t_recent_event, params: {kind: button}}
        - {type: on_charger, name: t_on_charger}
        - {type: picked_up, name: t_picked_up}
        - {type: orientation_is, name: t_orientation_is, params: {orientations: [on_back]}}
        - {type: battery_low, name: t_battery_low}
        - {type: sleeping, name: t_sleeping}
        - {type: sleepy, name: t_sleepy}
        - {type: quiet_hours, name: t_quiet_hours}
        - {type: night, name: t_night}
        - {type: time_of_day, name: t_time_of_day, params: {from: "03:00", to: "04:00"}}
        - {type: face_visible, name: t_face_visible}
        - {type: face_seen_within, name: t_face_seen_within, params: {within_s: 30}}
        - {type: face_new, name: t_face_new, params: {unseen_s: 60}}
        - {type: face_glimpsed_within, name: t_face_glimpsed_within, params: {within_s: 5}}
        - {type: motion_seen_within, name: t_motion_seen_within, params: {within_s: 5, where: ground}}
        - {type: failure, name: t_failure}
    - type: parallel
      name: t_parallel
      params: {policy: success_on_one}
      children:
        - {type: failure_is_running, name: t_failure_is_running, child: {type: failure}}
        - {type: running_is_failure, name: t_running_is_failure, child: {type: running, name: t_running}}
    - type: cooldown
      name: t_cooldown
      params: {seconds: 10}
      child:
        type: timeout
        name: t_timeout
        params: {seconds: 10}
        child:
          type: timer
          name: t_timer
          params: {seconds: 10}
          child:
            type: inverter
            name: t_inverter
            child:
              type: one_shot
              name: t_one_shot
              child:
                type: repeat
                name: t_repeat
                params: {count: 2}
                child:
                  type: retry
                  name: t_retry
                  params: {count: 2}
                  child:
                    type: failure_is_success
                    name: t_failure_is_success
                    child:
                      type: success_is_failure
                      name: t_success_is_failure
                      child:
                        type: success_is_running
                        name: t_success_is_running
                        child:
                          type: running_is_success
                          name: t_running_is_success
                          child: {type: stop_motors, name: t_stop_motors}
    - type: weighted_random
      name: t_weighted_random
      children:
        - type: scoring
          name: t_scoring
          children:
            - type: sequence
              score: {flat_score: 0.5}
              children:
                - {type: play_animation, name: t_play_animation, params: {trigger: X}}
                - {type: play_random_animation, name: t_play_random_animation, params: {triggers: [X]}}
                - {type: play_clip, name: t_play_clip, params: {clip: x}}
                - {type: face, name: t_face, params: {expression: happy}}
                - {type: set_head_angle, name: t_set_head_angle, params: {degrees: 0}}
                - {type: set_lift_height, name: t_set_lift_height, params: {mm: 40}}
                - {type: drive, name: t_drive, params: {left: 10, right: 10, seconds: 1}}
                - {type: turn, name: t_turn, params: {degrees: 10}}
                - {type: look_around, name: t_look_around}
                - {type: backpack_lights, name: t_backpack_lights, params: {pattern: calm}}
                - {type: cube_lights, name: t_cube_lights, params: {trigger: Flash}}
                - {type: cube_connected, name: t_cube_connected}
                - {type: need_low, name: t_need_low, params: {need: Play}}
                - {type: emotion_event, name: t_emotion_event, params: {event: Nope}}
                - {type: random_wait, name: t_random_wait, params: {min: 1, max: 2}}
                - {type: sleep, name: t_sleep}
                - {type: wait, name: t_wait, params: {seconds: 5}}
                - {type: turn_towards_face, name: t_turn_towards_face}
                - {type: look_towards_motion, name: t_look_towards_motion, params: {where: ground}}
                - {type: turn_towards_glimpse, name: t_turn_towards_glimpse, params: {within_s: 5}}
                - {type: search_for_faces, name: t_search_for_faces, params: {seconds: 1}}
                - {type: track_face, name: t_track_face, child: {type: running}}
"""


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class Holder:
    """The robot as the conditions read it: its state mirror and how it lies."""

    state = state_from_message(m.RobotState(battery_voltage=4.05), 0.0)
    orientation = "upright"


@pytest.fixture
def ticked(tmp_path: Path) -> dict[str, py_trees.behaviour.Behaviour]:
    path = tmp_path / "every.yaml"
    path.write_text(EVERY_TYPE)
    clock = Clock()
    ctx = BrainContext(mood=Mood(DEFAULT_CONFIG), clock=clock, rng=random.Random(1),
                       animations=TimedAnimations(clock, 0.5), rhythm=DayRhythm(clock=lambda: 10 * 3600.0))
    ctx.robot = Holder()
    root = load_personality(path, ctx).root
    for _ in range(3):
        root.tick_once()
        clock.t += 0.5
    nodes = {n.name: n for n in root.iterate()}
    return nodes


def test_the_tree_holds_every_node_type(ticked: dict[str, py_trees.behaviour.Behaviour]) -> None:
    assert {name.removeprefix("t_") for name in ticked if name.startswith("t_")} == set(NODE_TYPES)


@pytest.mark.parametrize("type_name", sorted(NODE_TYPES))
def test_every_node_type_explains_itself(type_name: str, ticked: dict[str, py_trees.behaviour.Behaviour]) -> None:
    node = ticked[f"t_{type_name}"]
    ntype = NODE_TYPES[type_name]
    for passed in (True, False):
        said = reason(node, passed)
        assert isinstance(said, str) and said, (type_name, passed)
    if ntype.condition or ntype.kind == "decorator" or type_name in ("weighted_random", "scoring", "strict_priority"):
        # its own words, declared on its class, not the fallback on its feedback message
        assert "explain" in {k for cls in type(node).__mro__[:-1] for k in vars(cls)}, type_name
    if ntype.condition:
        assert is_condition(node)
        for passed in (True, False):  # the value it compared, not its name and a yes or no
            assert not reason(node, passed).startswith(f"{node.name}:"), (type_name, reason(node, passed))
    if type_name in ("weighted_random", "scoring"):
        assert is_chooser(node)


def test_conditions_say_the_value_they_compared(ticked: dict[str, py_trees.behaviour.Behaviour]) -> None:
    assert reason(ticked["t_mood_above"], False) == "Happy is 0, not above 0.9"
    assert reason(ticked["t_time_of_day"], False) == "it is 10:00, not from 03:00 to 04:00"
    assert reason(ticked["t_quiet_hours"], False) == "it is 10:00, not in the quiet hours"
    assert reason(ticked["t_battery_low"], False) == "battery 4.05 V, not below 3.6 V"
    assert reason(ticked["t_orientation_is"], False) == "lying upright, not on back"
    assert reason(ticked["t_cooldown"], True) == reason(ticked["t_inverter"], True)


def test_choosers_say_what_they_picked(ticked: dict[str, py_trees.behaviour.Behaviour]) -> None:
    root = ticked["t_selector"]
    lines = explain_branch(root)
    assert lines[-2] == "t_weighted_random → t_scoring: picked by chance, weight 1 of 1."
    assert lines[-1].startswith("t_scoring → t_play_animation: best mood score 0.5 (plus up to 0.1 of chance)")
