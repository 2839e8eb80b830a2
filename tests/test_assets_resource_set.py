"""Resource sets: several roots in order, merging and shadowing, the clip index, the checks."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from brain.assets import Severity, load_resource_set, validate
from brain.assets import resource_set as RS
from brain.assets import validation as V
from tests.bench.gen_tree import TreeSpec, generate

SYSTEM = "config/engine/behaviorSystem"


def write(root: Path, rel: str, content: Any) -> None:
    path = root / "cozmo_resources" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(content, indent=2), encoding="utf-8")


def minimal_tree(root: Path, behaviors: dict[str, str], triggers: dict[str, str] | None = None,
                 reactions: dict[str, str] | None = None) -> None:
    """A small tree: behaviours (id → class) each asking for trigger T_<id> when it is mapped."""
    triggers = triggers or {}
    for bid, cls in behaviors.items():
        b: dict[str, Any] = {"behaviorClass": cls, "behaviorID": bid}
        if f"T_{bid}" in triggers:
            b["animTriggers"] = [f"T_{bid}"]
        write(root, f"{SYSTEM}/behaviors/{bid}.json", b)
    if triggers:
        write(root, "assets/animationGroupMaps/AnimationTriggerMap.json",
              {"Pairs": [{"CladEvent": t, "AnimName": g} for t, g in triggers.items()]})
        for g in set(triggers.values()):
            write(root, f"assets/animationGroups/{g}.json",
                  {"Animations": [{"Name": f"anim_{g}", "Weight": 1, "CooldownTime_Sec": 0, "Mood": "Default"}]})
    if reactions is not None:
        write(root, f"{SYSTEM}/reactionTrigger_behavior_map.json", {"reactionTriggerBehaviorMap": [
            {"reactionTrigger": r, "behaviorID": b} for r, b in reactions.items()]})
    write(root, "config/engine/mood_config.json",
          {"decayGraphs": [{"emotionType": "default", "nodes": [{"x": 0, "y": 1}]}]})


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    parent = tmp_path_factory.mktemp("generated")
    generate(parent, TreeSpec.small())
    return parent


def test_generated_tree_validates_with_zero_errors(generated):
    pytest.importorskip("driver.animation.index", reason="the clip index (driver.animation.index) is not available")
    rs = load_resource_set([generated])
    result = validate(rs, implemented=set())
    errors = [str(i) for i in result.issues if i.severity == Severity.ERROR]
    assert errors == []
    spec = TreeSpec.small()
    counts = rs.counts()
    assert counts["animation clips"] == spec.clips
    assert rs.file_counts["animation clips"] == spec.bin_files
    assert counts["animation groups"] == spec.groups == counts["animation triggers"]
    assert counts["behaviours"] == spec.behaviors
    assert counts["activities"] == spec.activities
    assert counts["emotion events"] == spec.events + 1
    assert set(rs.mapped_events) == {"GenMappedEvent0", "GenMappedEvent1", "GenMappedEvent2"}
    assert {"GenMappedEvent0", "GenMappedEvent2"} <= result.refs[V.EMOTION_EVENT].resolved
    assert result.refs[V.ACTIVITY_DESIRED].references == 4 and not result.refs[V.ACTIVITY_DESIRED].missing
    clips = result.refs[V.GROUP_CLIP]
    assert clips.checked and clips.references > spec.groups and not clips.missing
    # Only warnings: the node library implements no class yet in this test.
    assert {i.code for i in result.issues if i.severity == Severity.WARNING} == {"unimplemented"}


def test_group_members_resolve_to_clips_decoded_only_on_use(generated):
    pytest.importorskip("driver.animation.index", reason="the clip index (driver.animation.index) is not available")
    rs = load_resource_set([generated])
    assert rs.clips.files_decoded == 0
    group = rs.group_for_trigger("GenTrigger000")
    member = group.members[0]
    assert member.name in rs.clips
    clip = rs.clips.get(member.name)
    assert clip.name == member.name and rs.clips.files_decoded == 1


def test_group_pointing_at_a_missing_clip_is_an_error(tmp_path):
    pytest.importorskip("driver.animation.index", reason="the clip index (driver.animation.index) is not available")
    minimal_tree(tmp_path, {"B": "PlayAnim"}, {"T_B": "ag_b"}, {"CliffDetected": "B"})
    rs = load_resource_set([tmp_path])
    result = validate(rs, implemented={"PlayAnim"})
    assert [(i.kind, i.subject, i.field) for i in result.issues if i.code == "unresolved"] == [
        (V.GROUP_CLIP, "anim_ag_b", "Animations[0].Name")]


def test_root_may_be_the_tree_or_its_parent(tmp_path):
    minimal_tree(tmp_path, {"B": "PlayAnim"})
    a = load_resource_set([tmp_path], index_clips=False)
    b = load_resource_set([tmp_path / "cozmo_resources"], index_clips=False)
    assert a.roots == b.roots == (tmp_path / "cozmo_resources",)
    assert set(a.behaviors) == set(b.behaviors) == {"B"}


def test_bad_roots_are_errors_and_skipped(tmp_path):
    minimal_tree(tmp_path / "good", {"B": "PlayAnim"})
    (tmp_path / "empty").mkdir()
    rs = load_resource_set([tmp_path / "missing", tmp_path / "empty", tmp_path / "good"], index_clips=False)
    roots = [i for i in rs.issues if i.code == "root"]
    assert [(i.severity, Path(i.file).name) for i in roots] == [(Severity.ERROR, "missing"), (Severity.ERROR, "empty")]
    assert "no such directory" in roots[0].message
    assert set(rs.behaviors) == {"B"}


def test_required_files_missing_from_every_root(tmp_path):
    write(tmp_path, f"{SYSTEM}/behaviors/b.json", {"behaviorClass": "PlayAnim", "behaviorID": "B"})
    rs = load_resource_set([tmp_path], index_clips=False)
    missing = sorted(i.message for i in rs.issues if i.code == "missing-file")
    assert len(missing) == 3
    assert any("mood_config.json" in m for m in missing)
    assert any("AnimationTriggerMap.json" in m for m in missing)
    assert any("reactionTrigger_behavior_map.json" in m for m in missing)


def test_earlier_root_wins_later_roots_fill_in(tmp_path):
    user, project = tmp_path / "user", tmp_path / "project"
    minimal_tree(user, {"X": "UserClass"}, {"T_X": "ag_user"}, {"CliffDetected": "Y"})
    minimal_tree(project, {"X": "ProjectClass", "Y": "PlayAnim"}, {"T_X": "ag_project", "T_Y": "ag_y"},
                 {"CliffDetected": "X", "RobotPickedUp": "Y"})
    rs = load_resource_set([user, project], index_clips=False)
    assert rs.behaviors["X"].behavior_class == "UserClass"
    assert rs.behaviors["Y"].origin.root == project / "cozmo_resources"
    assert rs.anim_triggers["T_X"].target == "ag_user"
    assert rs.anim_triggers["T_Y"].target == "ag_y"
    assert [(r.trigger, r.behavior_id) for r in rs.reactions] == [("CliffDetected", "Y"), ("RobotPickedUp", "Y")]
    assert rs.mood.origin.root == user / "cozmo_resources"
    shadowed = {(i.kind, i.subject) for i in rs.issues if i.code == "shadowed"}
    assert {("behaviours", "X"), ("animation triggers", "T_X"), ("reaction triggers", "CliffDetected")} <= shadowed
    assert all(i.severity == Severity.INFO for i in rs.issues if i.code == "shadowed")
    result = validate(rs, implemented={"UserClass", "ProjectClass", "PlayAnim"})
    assert not [i for i in result.issues if i.code == "unresolved"]  # user's reaction reaches project's Y


def test_duplicate_inside_one_root_is_a_warning_and_first_wins(tmp_path):
    minimal_tree(tmp_path, {"A": "PlayAnim"})
    write(tmp_path, f"{SYSTEM}/behaviors/zz/again.json", {"behaviorClass": "Other", "behaviorID": "A"})
    rs = load_resource_set([tmp_path], index_clips=False)
    assert rs.behaviors["A"].behavior_class == "PlayAnim"
    (dup,) = [i for i in rs.issues if i.code == "duplicate"]
    assert dup.severity == Severity.WARNING and dup.file.endswith("again.json")
    assert len(rs.records["behaviours"]) == 2  # both are kept for checking


def test_emotion_type_rule(tmp_path):
    write(tmp_path, "config/engine/mood_config.json", {
        "decayGraphs": [{"emotionType": "default", "nodes": [{"x": 0, "y": 1}]},
                        {"emotionType": "Social", "nodes": [{"x": 0, "y": 1}]}],
        "valueRanges": [{"emotionType": "Stimulated", "min": 0, "max": 1}]})
    write(tmp_path, "config/engine/emotionevents/e.json", {"emotionEvents": [
        {"name": "E1", "emotionAffectors": [{"emotionType": "Social", "value": 0.1},
                                            {"emotionType": "Happy", "value": 0.1}]},
        {"name": "E2", "emotionAffectors": [{"emotionType": "Happy", "value": 0.1},
                                            {"emotionType": "Stimulated", "value": 0.1}]},
        {"name": "E3", "emotionAffectors": [{"emotionType": "Hapy", "value": 0.1}]}]})
    write(tmp_path, f"{SYSTEM}/activities/a.json", {"activityID": "A", "activityStrategy": {
        "type": "Simple", "startMoodScorer": [
            {"emotionType": "Happy", "scoreGraph": {"nodes": [{"x": 0, "y": 1}]}},
            {"emotionType": "Bored", "scoreGraph": {"nodes": [{"x": 0, "y": 1}]}}]}})
    rs = load_resource_set([tmp_path], index_clips=False)
    assert rs.emotion_types == {"Social", "Happy", "Stimulated", "Hapy", "Bored"}
    result = validate(rs, implemented=set())
    flagged = sorted(i.subject for i in result.issues if i.code == "emotion-type" and i.severity == Severity.WARNING)
    assert flagged == ["Bored", "Hapy"]


def test_unimplemented_classes_are_counted(tmp_path):
    minimal_tree(tmp_path, {"A": "PlayAnim", "B": "PlayAnim", "C": "Singing", "D": "DriveOffCharger"})
    rs = load_resource_set([tmp_path], index_clips=False)
    result = validate(rs, implemented={"DriveOffCharger"})
    assert {k: len(v) for k, v in result.unimplemented.items()} == {"PlayAnim": 2, "Singing": 1}
    warnings = [i for i in result.issues if i.code == "unimplemented"]
    assert [(w.subject, w.severity) for w in warnings] == [("PlayAnim", Severity.WARNING),
                                                          ("Singing", Severity.WARNING)]
    assert "2 behaviours" in warnings[0].message


def test_long_loads_log_progress_at_info(tmp_path, caplog, monkeypatch):
    minimal_tree(tmp_path, {"A": "PlayAnim"})
    monkeypatch.setattr(RS, "PROGRESS_AFTER_S", 0.0)
    with caplog.at_level(logging.INFO, logger="brain.assets.resource_set"):
        load_resource_set([tmp_path], index_clips=False)
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert any(m.startswith("resources: behaviours: 1 from 1 files") for m in lines)
    assert any("files loaded in" in m for m in lines)


def test_a_trigger_whose_group_has_no_clip_installed_plays_a_later_roots_group(sample_resources):
    """The real sample maps ReactToPickup to a group of the app's clips, none of them in the sample;
    the project's resources map it to a group of their own clips: that one plays."""
    import random

    from brain.animations import AnimationLibrary

    project = Path(__file__).resolve().parents[1] / "resources"
    rs = load_resource_set([sample_resources, project])
    first = rs.group_for_trigger("ReactToPickup")
    assert first is not None and not any(m.name in rs.clips for m in first.members)
    playable = rs.playable_group_for_trigger("ReactToPickup")
    assert playable is not None and playable.origin.root == project.resolve() / "cozmo_resources"
    library = AnimationLibrary(rs, player=None, clock=lambda: 0.0, rng=random.Random(1))  # type: ignore[arg-type]
    assert library.clip_for_trigger("ReactToPickup") in {m.name for m in playable.members}
    # a trigger only the sample maps, to clips it lacks, has nothing better: its own group
    only_sample = next(t for t in rs.anim_triggers if rs.group_for_trigger(t) is not None
                       and rs.playable_group_for_trigger(t) is rs.group_for_trigger(t)
                       and not any(m.name in rs.clips for m in rs.group_for_trigger(t).members))
    assert rs.playable_group_for_trigger(only_sample) is rs.group_for_trigger(only_sample)
