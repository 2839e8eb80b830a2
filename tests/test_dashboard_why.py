"""Why the robot does what it does: the dashboard's sentences, read from real trees after real ticks.

Personalities are loaded from YAML as the daemon loads them, with the real mood; time is a
virtual clock the test moves. The sentences are the product (owners read them), so they are
compared whole.
"""

from __future__ import annotations

import random
from pathlib import Path

import py_trees

from brain.context import BrainContext, TimedAnimations
from brain.dashboard.why import choice_path, explain_branch
from brain.mood import DEFAULT_CONFIG, Mood
from brain.personality import load_personality
from driver import events as ev
from driver.samples import RobotStatus

PRIORITIES = """
name: why
root:
  type: selector
  name: top
  children:
    - type: sequence
      name: sleepy
      params: {memory: false}
      children:
        - {type: mood_below, params: {emotion: Excited, value: 0.1}}
        - {type: wait, name: nap, params: {seconds: 5}}
    - type: cooldown
      name: social
      params: {seconds: 30}
      child:
        type: sequence
        params: {memory: false}
        children:
          - {type: recent_event, params: {kind: button, within_s: 5}}
          - {type: wait, name: greet, params: {seconds: 1}}
    - type: sequence
      name: play
      params: {memory: false}
      children:
        - type: inverter
          child: {type: recent_event, params: {kind: poked, within_s: 60}}
        - {type: mood_above, params: {emotion: Excited, value: 0.4}}
        - type: weighted_random
          name: pick
          children:
            - {type: wait, name: pounce, params: {seconds: 3}, weight: 2}
            - {type: wait, name: happy, params: {seconds: 3}, weight: 1, cooldown: 10}
    - {type: wait, name: idle, params: {seconds: 2}}
"""

SCORING = """
name: scores
root:
  type: scoring
  name: mood pick
  params: {noise: 0.05}
  children:
    - {type: wait, name: cheer, params: {seconds: 2}, score: {emotions: {Happy: [[-1, 0], [0, 0.2], [1, 1]]}}}
    - {type: wait, name: sulk, params: {seconds: 2}, score: {emotions: {Happy: [[-1, 1], [0, 0.2], [1, 0]]}}}
    - {type: wait, name: never, params: {seconds: 2}, score: {flat_score: 0}}
"""


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _brain(tmp_path: Path, text: str, seed: int = 3) -> tuple[BrainContext, None, py_trees.behaviour.Behaviour,
                                                                Clock]:
    path = tmp_path / "p.yaml"
    path.write_text(text)
    clock = Clock()
    ctx = BrainContext(mood=Mood(DEFAULT_CONFIG), clock=clock, rng=random.Random(seed),
                       animations=TimedAnimations(clock, 0.5))
    root = load_personality(path, ctx).root
    return ctx, None, root, clock


def test_a_selector_says_which_branch_won_why_and_what_it_beat(tmp_path: Path) -> None:
    ctx, choices, root, clock = _brain(tmp_path, PRIORITIES)
    ctx.mood.set_value("Excited", 0.62, clock())
    ctx.push_event(ev.Poked(clock() - 75))  # long enough ago not to count
    root.tick_once()
    picked = root.children[2].children[2].current_child.name
    other = "happy" if picked == "pounce" else "pounce"
    weights = {"pounce": "2", "happy": "1"}
    assert explain_branch(root) == [
        "top → play: no poked within 60 s; Excited is 0.62, above 0.4. It beat sleepy (Excited is 0.62, not "
        "below 0.1) and social (no button within 5 s); idle comes after it.",
        f"pick → {picked}: picked by chance, weight {weights[picked]} of 3 ({other} {weights[other]}).",
    ]


def test_the_first_branch_and_what_waits_and_recent_events(tmp_path: Path) -> None:
    ctx, choices, root, clock = _brain(tmp_path, PRIORITIES)
    ctx.mood.set_value("Excited", 0.05, clock())
    root.tick_once()
    assert explain_branch(root) == [
        "top → sleepy: Excited is 0.05, below 0.1. It comes first; social, play and idle wait."]
    ctx.mood.set_value("Excited", 0.6, clock())
    clock.t += 10
    ctx.push_event(ev.ButtonPressed(clock() - 2.5, pressed=True))
    ctx.push_event(ev.Poked(clock() - 12))
    root.tick_once()
    assert explain_branch(root) == [
        "top → social: button 2.5 s ago, within 5 s. It beat sleepy (Excited is 0.6, not below 0.1); play and "
        "idle come after it."]


def test_a_cooling_down_branch_and_an_inverted_event(tmp_path: Path) -> None:
    ctx, choices, root, clock = _brain(tmp_path, PRIORITIES)
    ctx.mood.set_value("Excited", 0.6, clock())
    ctx.push_event(ev.ButtonPressed(clock() - 1, pressed=True))
    root.tick_once()  # social runs greet ...
    clock.t += 2
    root.tick_once()  # ... which ends after a second: the cooldown starts
    clock.t += 3
    ctx.push_event(ev.Poked(clock() - 4))
    root.tick_once()
    assert explain_branch(root) == [
        "top → idle. It beat sleepy (Excited is 0.6, not below 0.1), social (cooling down, 27 s left) and play "
        "(poked 4.0 s ago, within 60 s)."]


def test_a_weighted_pick_names_what_was_cooling_down(tmp_path: Path) -> None:
    ctx, choices, root, clock = _brain(tmp_path, PRIORITIES, seed=1)
    ctx.mood.set_value("Excited", 0.6, clock())
    pick = root.children[2].children[2]
    for _ in range(40):  # until happy ran once; then pounce is picked while happy cools down
        root.tick_once()
        clock.t += 3.1
        if pick.last_run[1] is not None:
            break
    while pick.current_child is None or pick.current_child.name != "pounce" or pick.status is not \
            py_trees.common.Status.RUNNING:
        root.tick_once()
        clock.t += 0.5
    line = explain_branch(root)[1]
    assert line.startswith("pick → pounce: picked by chance, weight 2 of 2; cooling down: happy (")


def test_a_scoring_chooser_gives_the_scores_it_compared(tmp_path: Path) -> None:
    ctx, choices, root, clock = _brain(tmp_path, SCORING)
    ctx.mood.set_value("Happy", 0.5, clock())
    root.tick_once()
    assert explain_branch(root) == [
        "mood pick → cheer: best mood score 0.6, over sulk 0.1 and never vetoed (plus up to 0.05 of chance). "
        "Mood: Happy 0.5."]


def test_decisions_change_only_when_a_choice_does(tmp_path: Path) -> None:
    from brain.nodes.reactions import branch_of

    text = PRIORITIES.replace("- {type: wait, name: pounce, params: {seconds: 3}, weight: 2}", """- type: sequence
              name: pounce
              children:
                - {type: wait, name: crouch, params: {seconds: 1}}
                - {type: wait, name: jump, params: {seconds: 1}}""")
    text = text.replace("- {type: wait, name: happy, params: {seconds: 3}, weight: 1, cooldown: 10}", "")
    ctx, choices, root, clock = _brain(tmp_path, text)
    ctx.mood.set_value("Excited", 0.6, clock())
    root.tick_once()
    first, path = branch_of(root), choice_path(root)
    clock.t += 1.2
    root.tick_once()
    assert first.endswith("pounce > crouch") and branch_of(root).endswith("pounce > jump")
    assert choice_path(root) == path  # the sequence moved on; no selector or chooser chose again
    ctx.mood.set_value("Excited", 0.0, clock())
    root.tick_once()
    assert branch_of(root).endswith("sleepy > nap") and choice_path(root) != path


def test_robot_state_conditions(tmp_path: Path) -> None:
    from driver.protocol import messages as m
    from driver.samples import state_from_message

    text = """
name: body
root:
  type: selector
  name: top
  children:
    - type: sequence
      name: rest
      params: {memory: false}
      children: [{type: battery_low, params: {volts: 3.6}}, {type: wait, params: {seconds: 1}}]
    - type: sequence
      name: held
      params: {memory: false}
      children: [{type: picked_up}, {type: wait, name: dangle, params: {seconds: 1}}]
    - {type: wait, name: idle, params: {seconds: 1}}
"""
    ctx, choices, root, clock = _brain(tmp_path, text)

    class Holder:  # the robot's state mirror: the one thing these conditions read of the robot
        state = state_from_message(m.RobotState(battery_voltage=4.05, status=int(RobotStatus.IS_PICKED_UP)), clock())
        orientation = "upright"

    ctx.robot = Holder()
    root.tick_once()
    assert explain_branch(root) == [
        "top → held: held in the air. It beat rest (battery 4.05 V, not below 3.6 V); idle comes after it."]
