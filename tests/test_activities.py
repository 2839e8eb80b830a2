"""Cozmo activities of a resource set as personality subtrees: Scoring choosers score by mood."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from py_trees.common import Status

from brain.assets import Severity, load_resource_set
from brain.context import BrainContext, TimedAnimations
from brain.graph import Graph
from brain.nodes.choosers import ScoreSpec, Scoring, StartMoodGate, WeightedRandom
from brain.nodes.decorators import Cooldown
from brain.personality import PersonalityError, check_personality, context_for_check, load_personality

from .conftest import REPO

PROJECT_RESOURCES = REPO / "resources"


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def _graph(*points: tuple[float, float]) -> dict[str, Any]:
    return {"nodes": [{"x": x, "y": y} for x, y in points]}


def _happy(*points: tuple[float, float]) -> list[dict[str, Any]]:
    return [{"emotionType": "Happy", "scoreGraph": _graph(*points)}]


#: Happy near +1 favours HappyThing, near -1 SadThing; Legacy carries a small flat score in its own file.
MOPEY = {
    "activityID": "Mopey",
    "activityType": "BehaviorsOnly",
    "behaviorChooser": {
        "type": "Scoring",
        "scoreBonusForCurrentBehavior": _graph((0, 0.1)),
        "behaviors": [
            {"behaviorID": "HappyThing",
             "scoring": {"emotionScorers": _happy((-1, 0.01), (0, 0.1), (1, 1))}},
            {"behaviorID": "SadThing",
             "scoring": {"emotionScorers": _happy((-1, 1), (0, 0.1), (1, 0.01)),
                         "runningPenalty": _graph((0, 1), (3, 1), (4, 0))}},
            {"behaviorID": "Unscored"},
            {"behaviorID": "Legacy"},
        ],
    },
    "activityStrategy": {
        "type": "Simple", "cooldownBaseSecs": 30,
        "requiredMinStartMoodScore": 0.3,
        "startMoodScorer": [{"emotionType": "Happy", "scoreGraph": _graph((-1, 1), (0, 0.2), (1, 1))}],
    },
}

PICKY = {
    "activityID": "Picky",
    "behaviorChooser": {"type": "Selection", "behaviors": ["HappyThing", "SadThing"]},
    "activityStrategy": {"type": "Simple"},
}

#: Runs at most 5 s, then cools down 10 s; its first chance comes only after a cooldown.
TIMED = {
    "activityID": "Timed",
    "behaviorChooser": {"type": "Selection", "behaviors": ["HappyThing"]},
    "activityStrategy": {"type": "Simple", "cooldownBaseSecs": 10, "activityShouldEndDurationSecs": 5,
                         "startInCooldown": True},
}

#: Runs while Repair is Warning or Critical (Anki's NeedsSevereLow… activities' strategy).
NEEDY = {
    "activityID": "Needy",
    "behaviorChooser": {"type": "Selection", "behaviors": ["SadThing"]},
    "activityStrategy": {"type": "Needs", "need": "Repair", "needBracket": "Warning"},
}

BROKEN = {
    "activityID": "Broken",
    "behaviorChooser": {"type": "Scoring", "behaviors": [
        {"behaviorID": "HappyThing", "scoring": {"emotionScorers": [
            {"emotionType": "Hapy", "scoreGraph": _graph((0, 1))}]}},
        {"behaviorID": "Unscored"},
    ]},
}

#: One of each mistake a resource activity may hold: all but one behaviour skipped, strategy parts ignored.
SHAKY = {
    "activityID": "Shaky",
    "behaviorChooser": {"type": "Scoring", "behaviors": [
        {"behaviorID": "Missing"},
        {"behaviorID": "SadThing", "scoring": {"emotionScorers": "Happy"}},
        {"behaviorID": "SadThing", "scoring": {"emotionScorers": ["Happy"]}},
        {"behaviorID": "Unscored", "scoring": {"emotionScorers": [{"emotionType": "Happy"}]}},
        {"behaviorID": "Unscored", "scoring": {"emotionScorers": [{"emotionType": "Happy",
                                                                   "scoreGraph": {"nodes": [{"x": 0}]}}]}},
        {"behaviorID": "Legacy", "scoring": {"flatScore": "high"}},
        {"behaviorID": "HappyThing", "scoring": {
            "emotionScorers": [{"emotionType": "Happy", "scoreGraph": _graph((0, 1)), "trackDelta": True}]}},
    ]},
    "activityStrategy": {"type": "Needs", "need": "Fun", "activityShouldEndDurationSecs": -5,
                         "requiredMinStartMoodScore": 0.2,
                         "startMoodScorer": [{"emotionType": "Joy", "scoreGraph": _graph((0, 1))}]},
}


@pytest.fixture
def resources(tmp_path: Path) -> Any:
    """A small resource tree of our own, searched before the project's set (for mood and triggers)."""
    root = tmp_path / "res" / "cozmo_resources"
    behaviors = root / "config" / "engine" / "behaviorSystem" / "behaviors"
    activities = root / "config" / "engine" / "behaviorSystem" / "activities"
    for folder in (root / "assets", behaviors, activities):
        folder.mkdir(parents=True)

    def behavior(bid: str, trigger: str, **extra: Any) -> None:
        record = {"behaviorClass": "PlayAnim", "behaviorID": bid, "animTriggers": [trigger], **extra}
        (behaviors / f"{bid}.json").write_text(json.dumps(record))

    behavior("HappyThing", "Happy")
    behavior("SadThing", "Sad")
    behavior("Unscored", "Blink")
    behavior("Legacy", "Bored", flatScore=0.05)
    for record in (MOPEY, PICKY, TIMED, NEEDY, BROKEN, SHAKY):
        (activities / f"{record['activityID']}.json").write_text(json.dumps(record, indent=2))
    rs = load_resource_set([root, PROJECT_RESOURCES])
    assert not [str(i) for i in rs.issues if i.severity >= Severity.ERROR]
    return rs


def _personality(tmp_path: Path, activity: str, ctx: BrainContext) -> Any:
    path = tmp_path / "p.yaml"
    path.write_text(f"activities:\n  act: {{activity: {activity}, cooldown: 0}}\nroot: {{use: act}}\n")
    return load_personality(path, ctx)


def _ctx(resources: Any, clock: Clock, seed: int = 0, anim_s: float = 0.5) -> BrainContext:
    mood = context_for_check(resources).mood
    return BrainContext(robot=None, mood=mood, clock=clock, resources=resources, rng=random.Random(seed),
                        animations=TimedAnimations(clock, duration_s=anim_s))


def _first_trigger(ctx: BrainContext) -> str:
    assert isinstance(ctx.animations, TimedAnimations)
    return ctx.animations.played[0][1]


def test_a_scoring_activity_becomes_the_scoring_chooser_with_the_behaviours_scores(resources: Any,
                                                                                    tmp_path: Path) -> None:
    clock = Clock()
    personality = _personality(tmp_path, "Mopey", _ctx(resources, clock))
    gate = personality.root
    assert isinstance(gate, StartMoodGate) and gate.minimum == 0.3
    chooser = gate.decorated
    assert isinstance(chooser, Scoring) and chooser.reevaluate
    assert [c.name for c in chooser.children] == ["HappyThing", "SadThing", "Legacy"]
    happy, sad, legacy = chooser.scores
    assert [e for e, _ in happy.emotions] == ["Happy"] and happy.emotions[0][1](1.0) == pytest.approx(1.0)
    assert sad.running_penalty is not None and sad.running_penalty(4.0) == 0.0
    assert legacy.emotions == () and legacy.flat_score == pytest.approx(0.05)  # from the behaviour's own file
    assert chooser.running_bonus is not None and chooser.running_bonus(0.0) == pytest.approx(0.1)
    warnings = [i.message for i in check_personality(tmp_path / "p.yaml", resources)]
    assert any("'Unscored' has no score" in m for m in warnings), warnings
    assert len(warnings) == 1, warnings  # reported once although the activity is built twice


@pytest.mark.parametrize(("happy", "expected"), [(0.9, "Happy"), (-0.9, "Sad")])
def test_the_mood_decides_which_behaviour_runs(resources: Any, tmp_path: Path, happy: float, expected: str) -> None:
    picks: Counter[str] = Counter()
    for seed in range(20):
        clock = Clock()
        ctx = _ctx(resources, clock, seed)
        ctx.mood.set_value("Happy", happy, clock())
        personality = _personality(tmp_path, "Mopey", ctx)
        personality.root.tick_once()
        picks[_first_trigger(ctx)] += 1
    assert picks == {expected: 20}  # a weighted random pick would choose each about a third of the time


def test_a_better_scoring_behaviour_takes_over_and_the_running_penalty_ends_a_long_run(resources: Any,
                                                                                       tmp_path: Path) -> None:
    clock = Clock()
    ctx = _ctx(resources, clock, anim_s=60.0)
    ctx.mood.set_value("Happy", 0.9, clock())
    root = _personality(tmp_path, "Mopey", ctx).root
    chooser = root.decorated
    root.tick_once()
    assert chooser.current_child.name == "HappyThing"
    clock.t += 1.0
    root.tick_once()
    assert chooser.current_child.name == "HappyThing"  # noise alone does not make it flap
    ctx.mood.set_value("Happy", -0.9, clock())
    clock.t += 0.1
    root.tick_once()
    assert chooser.current_child.name == "SadThing"
    assert ctx.animations.played[-1] == ("trigger", "Sad")
    # SadThing's runningPenalty reaches 0 after 4 s of running: something else gets the robot
    clock.t += 4.5
    root.tick_once()
    assert chooser.current_child.name != "SadThing"


def test_the_start_mood_score_gates_the_activity(resources: Any, tmp_path: Path) -> None:
    clock = Clock()
    ctx = _ctx(resources, clock)
    ctx.mood.set_value("Happy", 0.0, clock())  # start score 0.2 < 0.3
    root = _personality(tmp_path, "Mopey", ctx).root
    root.tick_once()
    assert root.status is Status.FAILURE and ctx.animations.played == []
    ctx.mood.set_value("Happy", 0.8, clock())  # start score 0.84
    root.tick_once()
    assert root.status is Status.RUNNING and ctx.animations.played == [("trigger", "Happy")]


def test_a_needs_strategy_runs_the_activity_while_its_need_is_low(resources: Any, tmp_path: Path) -> None:
    clock = Clock()
    ctx = _ctx(resources, clock, anim_s=30.0)
    root = _personality(tmp_path, "Needy", ctx).root
    root.tick_once()
    assert root.status is Status.FAILURE and ctx.animations.played == []  # Repair starts full
    ctx.needs.levels["Repair"] = 0.25                                       # Warning (0.3 and below)
    root.tick_once()
    assert root.status is Status.RUNNING and ctx.animations.played == [("trigger", "Sad")]
    ctx.needs.levels["Repair"] = 0.7                                        # repaired: it hands the robot back
    root.tick_once()
    assert root.status is Status.FAILURE


def test_the_strategy_cooldown_wraps_the_activity(resources: Any, tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("activities:\n  act: {activity: Mopey}\nroot: {use: act}\n")
    root = load_personality(path, _ctx(resources, Clock())).root
    assert isinstance(root, Cooldown) and root.seconds == 30.0
    assert isinstance(root.decorated, StartMoodGate)


def test_other_chooser_types_stay_weighted_random(resources: Any, tmp_path: Path) -> None:
    root = _personality(tmp_path, "Picky", _ctx(resources, Clock())).root
    assert isinstance(root, WeightedRandom)


def test_an_activity_without_a_scorable_behaviour_is_an_error_with_file_and_line(resources: Any,
                                                                               tmp_path: Path) -> None:
    with pytest.raises(PersonalityError) as info:
        _personality(tmp_path, "Broken", _ctx(resources, Clock()))
    text = str(info.value)
    assert f"{tmp_path / 'p.yaml'}:2: activities.act.activity: activity 'Broken' has no behaviour" in text
    warnings = [i.message for i in info.value.issues if i.severity == Severity.WARNING]
    assert any("unknown emotion type 'Hapy'; did you mean 'Happy'?" in m for m in warnings), warnings


def test_scoring_node_running_penalty_and_bonus() -> None:
    clock = Clock()
    ctx = BrainContext(clock=clock, rng=random.Random(1))
    ctx.mood = None
    from brain.nodes.actions import Wait

    children = [Wait("a", ctx, 100), Wait("b", ctx, 100)]
    scores = [ScoreSpec(flat_score=1.0, running_penalty=Graph([(0, 1), (5, 1), (6, 0.1)])), ScoreSpec(flat_score=0.8)]
    chooser = Scoring("s", ctx, children, scores, noise=0.0, reevaluate=True)
    chooser.tick_once()
    assert chooser.current_child is children[0]
    clock.t += 5.0
    chooser.tick_once()
    assert chooser.current_child is children[0]
    clock.t += 1.5  # a's running score falls to 0.1 < 0.8
    chooser.tick_once()
    assert chooser.current_child is children[1]


def test_an_activity_ends_after_its_duration_and_may_start_in_cooldown(resources: Any, tmp_path: Path) -> None:
    clock = Clock()
    ctx = _ctx(resources, clock, anim_s=60.0)  # its behaviour alone would run a minute
    path = tmp_path / "t.yaml"
    path.write_text("activities:\n  act: {activity: Timed}\nroot: {use: act}\n")
    root = load_personality(path, ctx).root
    root.tick_once()
    assert root.status is Status.FAILURE and ctx.animations.played == []  # startInCooldown
    clock.t += 10.0
    root.tick_once()
    assert root.status is Status.RUNNING and ctx.animations.played == [("trigger", "Happy")]
    clock.t += 4.9
    root.tick_once()
    assert root.status is Status.RUNNING
    clock.t += 0.2
    root.tick_once()
    assert root.status is Status.SUCCESS  # activityShouldEndDurationSecs: the robot is handed back
    clock.t += 1.0
    root.tick_once()
    assert root.status is Status.FAILURE  # and the cooldown runs


def test_each_mistake_in_a_resource_activity_is_named_and_the_rest_still_runs(resources: Any,
                                                                            tmp_path: Path) -> None:
    """A real resource set may go beyond what the brain runs: what it cannot use is skipped, each with a
    warning that names the activity, the behaviour and the field, and the rest of the activity runs."""
    personality = _personality(tmp_path, "Shaky", _ctx(resources, Clock()))
    warnings = [i.message for i in personality.issues if i.severity == Severity.WARNING]
    label = "activity 'Shaky': behaviour"
    expected = [
        "activity 'Shaky': behaviour 'Missing' is skipped (missing or not implemented)",
        f"{label} 'SadThing': emotionScorers: expected a list, got 'Happy'; skipped",
        f"{label} 'SadThing': emotionScorers[0]: expected {{emotionType, scoreGraph}}, got 'Happy'; skipped",
        f"{label} 'Unscored': emotionScorers[0]: missing scoreGraph; skipped",
        f"{label} 'Unscored': emotionScorers[0].scoreGraph: expected a graph: nodes[0]: missing \"y\"; ignored",
        f"{label} 'Legacy': flatScore: expected a number, got 'high'; skipped",
        f"{label} 'HappyThing': emotionScorers[0]: trackDelta is not supported; the emotion's value is scored instead",
        "activity 'Shaky': startMoodScorer: unknown emotion type 'Joy'; the start mood score is not checked",
        "activity 'Shaky': a Needs strategy wants `need` (one of ",
        "activity 'Shaky': activityShouldEndDurationSecs: expected a positive number of seconds, got -5; "
        "the activity runs until it ends",
    ]
    for text in expected:
        assert any(w.startswith(text) for w in warnings), f"{text!r} not in {warnings}"
    assert len(warnings) == len(expected), warnings
    root = personality.root  # no gate, no timer: the chooser itself, over the one usable behaviour
    assert isinstance(root, Scoring)
    assert [c.name for c in root.children] == ["HappyThing"]


@pytest.mark.parametrize(("entry", "error"), [
    ("{activity: Mopy}", "activities.act.activity: unknown activity 'Mopy'; did you mean 'Mopey'?"),
    ("{activity: Mopey, cooldwn: 3}", "activities.act.cooldwn: unknown key; did you mean 'cooldown'?"),
    ("{activity: Mopey, cooldown: -1}", "activities.act.cooldown: expected a number >= 0, got -1"),
])
def test_a_bad_activity_entry_is_an_error_at_its_line(resources: Any, tmp_path: Path, entry: str, error: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(f"activities:\n  act: {entry}\nroot: {{use: act}}\n")
    with pytest.raises(PersonalityError) as info:
        load_personality(path, _ctx(resources, Clock()))
    assert f"{path}:2: {error}" in str(info.value)
