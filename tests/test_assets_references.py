"""Reference checks added on top of the basic links: desired activities, event mappers, and
the file:line of every dangling reference."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from brain.assets import Severity, format_report, jsonc, load_resource_set, validate
from brain.assets import validation as V

ENGINE = "config/engine"
SYSTEM = f"{ENGINE}/behaviorSystem"


def write(root: Path, rel: str, content: Any) -> Path:
    """One file of a tree under ``root/cozmo_resources`` (JSON-dumped with one key per line unless a string)."""
    path = root / "cozmo_resources" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2), encoding="utf-8")
    return path


def base_tree(root: Path, mood_extra: dict[str, Any] | None = None) -> None:
    """The files every tree needs, with one behaviour ``B`` and one event file defining ``FileEvent``."""
    write(root, f"{ENGINE}/mood_config.json", {
        "decayGraphs": [{"emotionType": "default", "nodes": [{"x": 0, "y": 1}]}], **(mood_extra or {})})
    write(root, "assets/animationGroupMaps/AnimationTriggerMap.json", {"Pairs": []})
    write(root, f"{SYSTEM}/reactionTrigger_behavior_map.json", {"reactionTriggerBehaviorMap": []})
    write(root, f"{SYSTEM}/behaviors/b.json", {"behaviorClass": "PlayAnim", "behaviorID": "B"})
    write(root, f"{ENGINE}/emotionevents/events.json", {"emotionEvents": [
        {"name": "FileEvent", "emotionAffectors": [{"emotionType": "Happy", "value": 0.1}]}]})


def check(root: Path) -> tuple[Any, V.Validation]:
    rs = load_resource_set([root], index_clips=False)
    return rs, validate(rs, implemented={"PlayAnim"})


def unresolved(result: V.Validation, kind: str) -> list[tuple[str, str, int | None, str | None]]:
    return [(i.subject, Path(i.file).name, i.line, i.field) for i in result.issues
            if i.code == "unresolved" and i.kind == kind]


def line_with(path: Path, needle: str, nth: int = 1) -> int:
    """The 1-based number of the *nth* line of *path* containing *needle*."""
    hits = [n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line]
    return hits[nth - 1]


# ---------------------------------------------------------------- desiredActivityNames


FREEPLAY: dict[str, Any] = {
    "activityID": "Freeplay", "activityType": "Freeplay", "activityStrategy": {"type": "Simple"},
    "desiredActivityNames": {"faceAndCubeActivityName": "Socialize", "faceOnlyActivityName": "Socialize",
                             "cubeOnlyActivityName": "PlayAlone", "noFaceNoCubeActivityName": "Hiking",
                             "objectTapInteractionActivityName": ""},
    "subActivities": [{"activityID": "Socialize"}],
}


def test_desired_activity_names_resolve_against_activity_ids(tmp_path):
    base_tree(tmp_path)
    path = write(tmp_path, f"{SYSTEM}/activities_config.json", [
        {"activityID": "Socialize", "activityStrategy": {"type": "Simple"}}, FREEPLAY])
    rs, result = check(tmp_path)
    assert dict(rs.activities["Freeplay"].desired_activities)["cubeOnlyActivityName"] == "PlayAlone"
    s = result.refs[V.ACTIVITY_DESIRED]
    assert (s.references, s.names, s.resolved) == (4, {"Socialize", "PlayAlone", "Hiking"}, {"Socialize"})
    # One error per missing name, at the line of its first use; "" means "none" and is no reference.
    assert unresolved(result, V.ACTIVITY_DESIRED) == [
        ("Hiking", "activities_config.json", line_with(path, '"Hiking"'),
         "Freeplay.desiredActivityNames.noFaceNoCubeActivityName"),
        ("PlayAlone", "activities_config.json", line_with(path, '"PlayAlone"'),
         "Freeplay.desiredActivityNames.cubeOnlyActivityName"),
    ]
    assert all(i.severity == Severity.ERROR for i in result.issues if i.code == "unresolved")
    assert "activity → desired activity: 4 references to 3 names; 1 resolve; 2 missing" in format_report(rs, result)


def test_desired_activity_names_of_the_wrong_type_leave_the_activity_out(tmp_path):
    base_tree(tmp_path)
    path = write(tmp_path, f"{SYSTEM}/behavior_system_config.json",
                 {**FREEPLAY, "desiredActivityNames": {"faceOnlyActivityName": 7}})
    rs, _ = check(tmp_path)
    assert "Freeplay" not in rs.activities
    (err,) = [i for i in rs.issues if i.code == "field"]
    assert err.field == "desiredActivityNames.faceOnlyActivityName"
    assert err.line == line_with(path, '"faceOnlyActivityName": 7')


# ---------------------------------------------------------------- eventMapper


def test_mood_config_event_mapper_defines_events_that_references_resolve_to(tmp_path):
    base_tree(tmp_path, {
        "eventMapper": {"emotionEvents": [
            {"name": "MappedEvent", "emotionAffectors": [{"emotionType": "Happy", "value": 0.2}]},
            "FileEvent",  # a name only: an event defined elsewhere
            "NoSuchEvent",
        ]},
        "actionResultEmotionEvents": {"PICKUP": {"SUCCESS": "MappedEvent", "FAILURE_ABORT": "FileEvent"}},
    })
    rs, result = check(tmp_path)
    assert set(rs.mapped_events) == {"MappedEvent"} and set(rs.emotion_events) == {"FileEvent"}
    assert rs.emotion_event("MappedEvent").affectors[0].value == 0.2
    assert rs.mood.mapped_events[0].path == ("eventMapper", "emotionEvents", 0)
    s = result.refs[V.EMOTION_EVENT]
    assert s.resolved == {"MappedEvent", "FileEvent"}
    mood = tmp_path / "cozmo_resources" / ENGINE / "mood_config.json"
    assert unresolved(result, V.EMOTION_EVENT) == [
        ("NoSuchEvent", "mood_config.json", line_with(mood, '"NoSuchEvent"'), "eventMapper.emotionEvents[2]")]


def test_event_mappers_in_behaviours_and_activities(tmp_path):
    base_tree(tmp_path)
    write(tmp_path, f"{SYSTEM}/behaviors/frustrated.json", {
        "behaviorClass": "PlayAnim", "behaviorID": "Frustrated", "finalEmotionEvent": "ActivityEvent",
        "eventMapper": {"name": "BehaviourEvent", "emotionAffectors": [{"emotionType": "Calm", "value": -0.1}]},
    })
    act = write(tmp_path, f"{SYSTEM}/activities/a.json", {
        "activityID": "A", "activityStrategy": {"type": "Simple"}, "endEmotionEvent": "Nowhere",
        "emotionEventMapper": {"emotionEvents": [
            {"name": "ActivityEvent", "emotionAffectors": [{"emotionType": "Calm", "value": 0.1}]}]},
    })
    rs, result = check(tmp_path)
    assert set(rs.mapped_events) == {"BehaviourEvent", "ActivityEvent"}
    assert {e.name for e in rs.records["emotion events"]} == {"FileEvent", "BehaviourEvent", "ActivityEvent"}
    assert "Calm" in rs.emotion_types  # mapper events take part in the emotion-type checks
    assert unresolved(result, V.EMOTION_EVENT) == [
        ("Nowhere", "a.json", line_with(act, '"Nowhere"'), "A.endEmotionEvent")]
    assert "ActivityEvent" in result.refs[V.EMOTION_EVENT].resolved


def test_bad_event_mapper_entries_are_reported_and_the_record_still_loads(tmp_path):
    base_tree(tmp_path)
    write(tmp_path, f"{SYSTEM}/behaviors/m.json", {
        "behaviorClass": "PlayAnim", "behaviorID": "M",
        "eventMapper": {"emotionEvents": [
            {"name": "Good", "emotionAffectors": [{"emotionType": "Happy", "value": 0.1}]},
            {"name": "Bad", "emotionAffectors": [{"emotionType": "Happy", "value": "lots"}]}]},
    })
    write(tmp_path, f"{SYSTEM}/behaviors/n.json", {"behaviorClass": "PlayAnim", "behaviorID": "N", "eventMapper": 3})
    rs, _ = check(tmp_path)
    assert {"M", "N"} <= set(rs.behaviors) and set(rs.mapped_events) == {"Good"}
    errors = sorted((Path(i.file).name, i.field) for i in rs.issues if i.severity == Severity.ERROR)
    assert errors == [("m.json", "eventMapper.emotionEvents[1].emotionAffectors[0].value"), ("n.json", "eventMapper")]


def test_event_defined_by_a_file_and_a_mapper_is_a_duplicate(tmp_path):
    base_tree(tmp_path, {"eventMapper": {"emotionEvents": [
        {"name": "FileEvent", "emotionAffectors": [{"emotionType": "Brave", "value": 0.3}]}]}})
    rs, _ = check(tmp_path)
    (dup,) = [i for i in rs.issues if i.code == "duplicate"]
    assert (dup.severity, dup.subject) == (Severity.WARNING, "FileEvent") and dup.file.endswith("mood_config.json")
    assert rs.emotion_event("FileEvent").affectors[0].emotion_type == "Happy"  # the event file's wins


# ---------------------------------------------------------------- file:line of dangling references


def test_every_kind_of_dangling_reference_gets_its_line(tmp_path):
    base_tree(tmp_path)
    reactions = write(tmp_path, f"{SYSTEM}/reactionTrigger_behavior_map.json", (
        "{\n"
        '  "reactionTriggerBehaviorMap": [\n'
        '    // "behaviorID": "Gone" (a comment mentioning the name does not count)\n'
        '    {"reactionTrigger": "CliffDetected", "behaviorID": "B"},\n'
        "    {\n"
        '      "reactionTrigger": "RobotPickedUp",\n'
        '      "behaviorID": "Gone"\n'
        "    }\n"
        "  ]\n"
        "}\n"))
    triggers = write(tmp_path, "assets/animationGroupMaps/AnimationTriggerMap.json",
                     {"Pairs": [{"CladEvent": "T1", "AnimName": "ag_missing"}]})
    behaviour = write(tmp_path, f"{SYSTEM}/behaviors/b.json",
                      {"behaviorClass": "PlayAnim", "behaviorID": "B", "animTriggers": ["T1", "T_missing"]})
    activities = write(tmp_path, f"{SYSTEM}/activities_config.json", [
        {"activityID": "First", "activityStrategy": {"type": "Simple"},
         "behaviorChooser": {"type": "StrictPriority", "behaviors": ["B", "Lost"]}},
        {"activityID": "Second", "activityStrategy": {"type": "Simple"},
         "subActivities": [{"activityID": "First"}, {"activityID": "Absent"}],
         "subActivityDelegate": {"activityID": "Inner", "activityStrategy": {"type": "Simple"},
                                 "setupChooser": {"type": "StrictPriority", "behaviors": ["Lost"]},
                                 "idleAnimTrigger": "T_inner"}},
    ])
    rs, result = check(tmp_path)
    assert unresolved(result, V.REACTION_BEHAVIOR) == [
        ("Gone", "reactionTrigger_behavior_map.json", 7, "reactionTriggerBehaviorMap[1]")]
    assert unresolved(result, V.TRIGGER_GROUP) == [
        ("ag_missing", "AnimationTriggerMap.json", line_with(triggers, "ag_missing"), "Pairs[0] T1")]
    assert unresolved(result, V.ACTIVITY_SUBACTIVITY) == [
        ("Absent", "activities_config.json", line_with(activities, '"Absent"'), "Second.subActivities")]
    # "Lost" is used twice: the issue points at the first use and counts the other.
    (lost,) = [i for i in result.issues if i.subject == "Lost"]
    assert lost.line == line_with(activities, '"Lost"') and "(and 1 more)" in lost.message
    places = result.refs[V.ACTIVITY_BEHAVIOR].missing["Lost"]
    assert [p.line for p in places] == [line_with(activities, '"Lost"'), line_with(activities, '"Lost"', 2)]
    assert [p.field for p in places] == ["First.behaviorChooser.behaviors",
                                         "Second.subActivityDelegate.setupChooser.behaviors"]
    anim = {i.subject: (Path(i.file).name, i.line) for i in result.issues if i.kind == V.ANIM_TRIGGER}
    assert anim == {"T_missing": ("b.json", line_with(behaviour, '"T_missing"')),
                    "T_inner": ("activities_config.json", line_with(activities, '"T_inner"'))}
    report = format_report(rs, result)
    assert "behaviorSystem/reactionTrigger_behavior_map.json:7: reactionTriggerBehaviorMap[1]" in report
    (gone,) = [i for i in result.issues if i.subject == "Gone"]
    assert str(gone).startswith(f"error: {reactions}:7: reactionTriggerBehaviorMap[1]: ")


def test_group_member_clip_lines(tmp_path):
    pytest.importorskip("driver.animation.index", reason="the clip index (driver.animation.index) is not available")
    base_tree(tmp_path)
    write(tmp_path, "assets/animationGroupMaps/AnimationTriggerMap.json",
          {"Pairs": [{"CladEvent": "T", "AnimName": "ag_g"}]})
    group = write(tmp_path, "assets/animationGroups/ag_g.json", {"Animations": [
        {"Name": "anim_a", "Weight": 1, "CooldownTime_Sec": 0, "Mood": "Default"},
        {"Name": "anim_b", "Weight": 1, "CooldownTime_Sec": 0, "Mood": "Default"}]})
    (tmp_path / "cozmo_resources" / "assets" / "animations").mkdir()
    rs = load_resource_set([tmp_path])
    result = validate(rs, implemented={"PlayAnim"})
    assert unresolved(result, V.GROUP_CLIP) == [
        ("anim_a", "ag_g.json", line_with(group, "anim_a"), "Animations[0].Name"),
        ("anim_b", "ag_g.json", line_with(group, "anim_b"), "Animations[1].Name")]


def test_file_gone_since_loading_leaves_the_line_unknown(tmp_path):
    base_tree(tmp_path)
    path = write(tmp_path, f"{SYSTEM}/reactionTrigger_behavior_map.json", {"reactionTriggerBehaviorMap": [
        {"reactionTrigger": "CliffDetected", "behaviorID": "Gone"}]})
    rs = load_resource_set([tmp_path], index_clips=False)
    path.unlink()
    result = validate(rs, implemented={"PlayAnim"})
    assert unresolved(result, V.REACTION_BEHAVIOR) == [
        ("Gone", "reactionTrigger_behavior_map.json", None, "reactionTriggerBehaviorMap[0]")]


def test_reference_lines_walks_paths_and_skips_comments():
    text = (
        "// \"x\" in a comment\n"
        "{\n"
        '  "a": ["x", // "y"\n'
        '     "y"],\n'
        '  "b": {"k": "y"},\n'
        '  "list": [{"id": "z"}, {"id": "z"}]\n'
        "}\n"
    )
    assert jsonc.reference_lines(text, [
        (("a",), "y"),           # inside the list, not the commented one
        (("b", "k"), "y"),       # exact value
        (("b", "nope"), "y"),    # path stops short: searched in the deepest value reached
        (("list", 1, "id"), "z"),
        (("elsewhere",), "x"),   # not under the path: first occurrence anywhere
        ((), "absent"),          # nowhere: the line where the value starts
    ]) == [4, 5, 5, 6, 3, 2]
    assert jsonc.reference_lines('{\n "a": [\n  "x",\n  "y",\n ],\n}', [(("a",), "y")]) == [4]  # trailing commas
    assert jsonc.reference_lines("{ not json", [(("a",), "not")]) == [None]
    assert jsonc.reference_lines('{"a": "caf\\u00e9"}', [(("a",), "café")]) == [1]


def test_a_running_mood_gets_the_events_behaviours_and_activities_define(tmp_path):
    from brain.engine import _mood_config, mood_event_records
    from brain.mood import EmotionEvent, Mood

    base_tree(tmp_path, {"eventMapper": {"emotionEvents": [
        {"name": "ConfigEvent", "emotionAffectors": [{"emotionType": "Happy", "value": 0.3}]}]}})
    write(tmp_path, f"{SYSTEM}/behaviors/frustrated.json", {
        "behaviorClass": "PlayAnim", "behaviorID": "Frustrated",
        "eventMapper": {"name": "BehaviourEvent", "emotionAffectors": [{"emotionType": "Happy", "value": -0.2}]},
    })
    rs, _ = check(tmp_path)
    names = [r.name for r in mood_event_records(rs)]
    assert sorted(names) == ["BehaviourEvent", "FileEvent"]  # the config's own event comes with the config
    mood = Mood(_mood_config(rs), [EmotionEvent.from_record(r) for r in mood_event_records(rs)])
    assert mood.has_event("ConfigEvent") and mood.has_event("BehaviourEvent")
    before = mood.value("Happy")
    assert mood.trigger_event("BehaviourEvent", now=1.0)
    assert mood.value("Happy") == pytest.approx(before - 0.2)
