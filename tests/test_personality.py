"""Personality YAML: loading, subtrees, include/extends/overrides, parameters, errors with file:line:path."""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import pytest
from py_trees.common import Status

from brain.app.tree import tree_command
from brain.assets import Severity, load_resource_set
from brain.context import BrainContext
from brain.nodes.actions import Wait
from brain.nodes.choosers import WeightedRandom
from brain.personality import (
    PersonalityError,
    check_personality,
    context_for_check,
    load_personality,
)
from driver import events as ev
from driver.samples import RobotStatus

BASE = """\
name: base
include: common.yaml
parameters:
  idle_wait: 2
  happy_threshold: 0.5
mood:
  initial: {Happy: 0.3}
  ranges: {Calm: [-0.5, 1.0]}
  decay:
    Happy: [[0, 1], [10, 1], [60, 0]]
subtrees:
  idle:
    type: sequence
    children:
      - type: wait
        id: idle_wait
        params: {seconds: $idle_wait}
      - use: glance
root:
  type: selector
  children:
    - type: sequence
      name: be happy
      params: {memory: false}
      children:
        - type: mood_above
          params: {emotion: Happy, value: $happy_threshold}
        - type: play_animation
          params: {trigger: CodeLabHappy}
    - type: weighted_random
      id: chooser
      children:
        - use: idle
          weight: 3
          cooldown: 10
        - behavior: Sleep
          weight: 1
reactions:
  CliffDetected: {behavior: ReactToCliff, priority: 100, shouldResumeLast: true}
  Poked: {use: glance, priority: 10}
"""

COMMON = """\
subtrees:
  glance:
    type: cooldown
    params: {seconds: 5}
    child:
      type: look_around
      params: {seconds: 3}
"""

CHILD = """\
extends: base.yaml
name: child
parameters: {idle_wait: 5}
overrides:
  idle_wait.params.seconds: 7
  root.children[1].children[0].weight: 9
  mood.initial.Happy: 0.1
"""


@pytest.fixture
def trees(tmp_path: Path) -> Path:
    (tmp_path / "base.yaml").write_text(BASE)
    (tmp_path / "common.yaml").write_text(COMMON)
    (tmp_path / "child.yaml").write_text(CHILD)
    return tmp_path


def _ctx() -> BrainContext:
    ctx = context_for_check()
    ctx.rng = random.Random(1)
    return ctx


def _errors(path: Path) -> list[str]:
    with pytest.raises(PersonalityError) as info:
        load_personality(path, _ctx())
    return str(info.value).splitlines()


def test_base_personality_loads_into_a_runnable_tree(trees: Path) -> None:
    ctx = _ctx()
    p = load_personality(trees / "base.yaml", ctx)
    assert p.name == "base"
    assert p.parameters == {"idle_wait": 2, "happy_threshold": 0.5}
    assert isinstance(p.nodes["idle_wait"], Wait) and p.nodes["idle_wait"].seconds == 2
    assert isinstance(p.nodes["chooser"], WeightedRandom) and p.nodes["chooser"].weights == [3.0, 1.0]
    assert p.nodes["chooser"].cooldowns == [10.0, 0.0]
    assert set(p.subtrees) == {"idle", "glance"}  # glance came in through include
    assert p.mood.initial == {"Happy": 0.3} and p.mood.ranges == {"Calm": (-0.5, 1.0)}
    assert p.mood.decay["Happy"].graph(60) == 0
    assert [r.trigger for r in p.reactions] == ["CliffDetected", "Poked"]
    cliff = p.reactions[0]
    assert cliff.should_resume_last and cliff.event_kind == "cliff"
    assert p.reaction_for(ev.StatusChanged(0.0, RobotStatus.CLIFF_DETECTED, True, 0,
                                           RobotStatus.ARE_WHEELS_MOVING)) is cliff
    assert p.reaction_for(ev.StatusChanged(0.0, RobotStatus.CLIFF_DETECTED, False)) is None
    assert p.reaction_for(ev.Poked(0.0)) is p.reactions[1]
    # the tree ticks offline: Happy is 0 so the chooser runs one of its children
    p.root.tick_once()
    assert p.root.status is Status.RUNNING
    ctx.mood.set_value("Happy", 0.9, ctx.now())
    p.root.tick_once()  # the higher-priority branch interrupts
    assert p.root.current_child.name == "be happy"


def test_extends_overrides_by_path_and_by_id(trees: Path) -> None:
    p = load_personality(trees / "child.yaml", _ctx())
    assert p.name == "child"
    assert p.parameters["idle_wait"] == 5 and p.parameters["happy_threshold"] == 0.5
    assert p.nodes["idle_wait"].seconds == 7  # the id override beats the parameter
    assert p.nodes["chooser"].weights == [9.0, 1.0]
    assert p.mood.initial == {"Happy": 0.1}
    assert [r.trigger for r in p.reactions] == ["CliffDetected", "Poked"]
    # parameters can also be given by the caller
    q = load_personality(trees / "base.yaml", _ctx(), parameters={"idle_wait": 4})
    assert q.nodes["idle_wait"].seconds == 4


def test_errors_name_file_line_and_key_path(trees: Path) -> None:
    bad = trees / "bad.yaml"
    bad.write_text("""\
root:
  type: selector
  children:
    - type: squence
      children: []
    - type: wait
      params: {seconds: lots}
    - type: weighted_random
      children:
        - type: wait
          params: {seconds: 1}
          weight: lots
    - use: nothing
    - behavior: Slep
    - type: mood_above
      params: {emotion: Hapy, value: 1}
    - type: wait
      params: {second: 1}
    - type: cooldown
      params: {seconds: 3}
    - type: wait
      params: {seconds: $missing}
    - type: wait
      params: {seconds: 1}
      weight: 2
""")
    errors = _errors(bad)
    name = str(bad)
    expected = [
        f"{name}:4: root.children[0].type: unknown node type 'squence'; did you mean 'sequence'?",
        f"{name}:7: root.children[1].params.seconds: expected a number, got 'lots'",
        f"{name}:12: root.children[2].children[0].weight: expected a number, got 'lots'",
        f"{name}:13: root.children[3].use: unknown subtree 'nothing'",
        f"{name}:14: root.children[4].behavior: unknown behaviour 'Slep'; did you mean 'Sleep'?",
        f"{name}:16: root.children[5].params.emotion: unknown emotion type 'Hapy'; did you mean 'Happy'?",
        f"{name}:18: root.children[6].params.second: unknown parameter of wait; did you mean 'seconds'?",
        f"{name}:19: root.children[7]: cooldown is a decorator and needs a `child`",
        f"{name}:22: root.children[8].params.seconds: unknown parameter $missing",
        f"{name}:25: root.children[9].weight: unknown key",
    ]
    for line in expected:
        assert any(e.startswith(line) for e in errors), (line, errors)


def test_errors_in_included_and_extended_files_point_at_those_files(trees: Path) -> None:
    (trees / "common.yaml").write_text(COMMON.replace("seconds: 3", "seconds: [3]"))
    errors = _errors(trees / "child.yaml")
    assert any(e.startswith(f"{trees / 'common.yaml'}:7: subtrees.glance.child.params.seconds: expected a number")
               for e in errors), errors
    (trees / "common.yaml").write_text(COMMON)
    (trees / "child.yaml").write_text(CHILD + "  nosuch.params.seconds: 1\n  root.children[7].name: x\n")
    errors = _errors(trees / "child.yaml")
    assert any(e.startswith(f"{trees / 'child.yaml'}:8: overrides.nosuch.params.seconds: no top-level key or node id")
               for e in errors), errors
    assert any("root.children[7] does not exist" in e for e in errors), errors


def test_structural_mistakes_are_reported(trees: Path) -> None:
    loop = trees / "loop.yaml"
    loop.write_text("subtrees:\n  a: {use: b}\n  b: {use: a}\nroot: {use: a}\nbogus: 1\n")
    errors = _errors(loop)
    assert any("uses itself" in e for e in errors), errors
    assert any(e.startswith(f"{loop}:5: bogus: unknown top-level key") for e in errors), errors
    broken = trees / "broken.yaml"
    broken.write_text("root:\n  type: wait\n  params: {seconds: 1\n")
    assert any(e.startswith(f"{broken}:") and "not valid YAML" in e for e in _errors(broken))
    circular = trees / "circ.yaml"
    circular.write_text("extends: circ.yaml\nroot: success\n")
    assert any("circular extends/include" in e for e in _errors(circular))
    dup = trees / "dup.yaml"
    dup.write_text("root: success\nroot: failure\n")
    assert any(e.startswith(f"{dup}:2: ") and "duplicate key 'root'" in e for e in _errors(dup))


def test_check_personality_returns_issues_and_resolves_resource_behaviours(trees: Path, sample_resources: Path) -> None:
    rs = load_resource_set([sample_resources], index_clips=False)
    good = trees / "rs.yaml"
    good.write_text("""\
root:
  type: selector
  children:
    - behavior: NothingToDo_BoredAnim
    - behavior: ReactToCliff
reactions:
  RobotPickedUp: {priority: 50}
""")
    issues = check_personality(good, rs)
    assert not [i for i in issues if i.severity >= Severity.ERROR], issues
    p = load_personality(good, context_for_check(rs))
    assert [c.name for c in p.root.children] == ["NothingToDo_BoredAnim", "ReactToCliff"]
    assert [c.name for c in p.root.children[0].children] == [
        "NothingToDoBoredIntro", "NothingToDoBoredEvent", "NothingToDoBoredOutro"]
    assert p.reactions[0].root.name == "ReactToPickup"  # default behaviour from the reaction map
    bad = trees / "rs_bad.yaml"
    bad.write_text("root:\n  behavior: NothingToDo_BoredAnimm\n")
    issues = check_personality(bad, rs)
    assert issues[0].line == 2 and issues[0].field == "root.behavior"
    assert "did you mean 'NothingToDo_BoredAnim'" in issues[0].message


def test_tree_command_prints_the_node_names(trees: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(personality=str(trees / "base.yaml"), format="ascii", resources=[str(trees / "none")],
                              config=None, out=None)
    assert tree_command(args) == 0
    out = capsys.readouterr().out
    for name in ("be happy", "mood_above Happy", "idle_wait", "look_around", "Sleep", "CliffDetected", "ReactToCliff"):
        assert name in out, name
    args.format = "dot"
    assert tree_command(args) == 0
    assert capsys.readouterr().out.startswith("digraph")
    args.personality = str(trees / "missing.yaml")
    assert tree_command(args) == 1


def test_every_registered_node_type_is_documented() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "personality-format.md").read_text()
    from brain.nodes.registry import BEHAVIOR_CLASSES, NODE_TYPES

    for name in [*NODE_TYPES, *BEHAVIOR_CLASSES]:
        assert f"`{name}`" in doc, name
