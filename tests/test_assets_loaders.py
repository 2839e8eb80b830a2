"""Each file kind's loader: the shapes found in real files, and every kind of bad input.

Bad input must give an Issue naming the file, the line and the field path, and leave the
broken record out while its neighbours load.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from brain.assets import Severity, load_resource_set
from brain.assets import loaders as L
from brain.assets.issues import Issue
from brain.graph import Graph

ENGINE = "config/engine"
SYSTEM = f"{ENGINE}/behaviorSystem"


def write(root: Path, rel: str, content: Any) -> Path:
    """Write one file of a tree under ``root/cozmo_resources`` (JSON-dumped unless a string)."""
    path = root / "cozmo_resources" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2), encoding="utf-8")
    return path


def load_one(tmp_path: Path, rel: str, content: Any, loader: Any) -> tuple[Any, list[Issue]]:
    path = write(tmp_path, rel, content)
    sink = L.IssueSink()
    doc = L.read_document(path, tmp_path / "cozmo_resources", sink)
    result = loader(doc, sink) if doc is not None else None
    return result, sink.issues


def only_error(issues: list[Issue]) -> Issue:
    errors = [i for i in issues if i.severity == Severity.ERROR]
    assert len(errors) == 1, issues
    return errors[0]


# ---------------------------------------------------------------- bad input kinds


def test_wrong_type_in_group_member_names_file_line_and_field(tmp_path):
    text = """{
  "Animations": [
    {"Name": "a0", "Weight": 1.0, "CooldownTime_Sec": 0.0, "Mood": "Default"},
    {"Name": "a1", "Weight": 1.0, "CooldownTime_Sec": 0.0, "Mood": "Default"},
    {"Name": "a2", "Weight": 1.0, "CooldownTime_Sec": 0.0, "Mood": "Default"},
    {
      "Name": "a3",
      "Weight": "heavy",
      "CooldownTime_Sec": 0.0,
      "Mood": "Default"
    }
  ]
}"""
    group, issues = load_one(tmp_path, "assets/animationGroups/ag_bad.json", text, L.load_animation_group)
    assert group is None
    err = only_error(issues)
    assert err.file is not None and err.file.endswith("ag_bad.json")
    assert err.line == 8
    assert err.field == "Animations[3].Weight"
    assert err.message.startswith("expected number, got string")


def test_missing_required_field(tmp_path):
    behavior, issues = load_one(tmp_path, f"{SYSTEM}/behaviors/b.json",
                                '{\n  "behaviorClass": "PlayAnim",\n  "behaviorID": 7\n}', L.load_behavior)
    assert behavior is None
    err = only_error(issues)
    assert (err.field, err.line, err.message.split(";")[0]) == ("behaviorID", 3, "expected string, got number")

    behavior, issues = load_one(tmp_path, f"{SYSTEM}/behaviors/c.json", '{"behaviorID": "X"}', L.load_behavior)
    assert behavior is None
    assert only_error(issues).field == "behaviorClass"
    assert "missing required field" in only_error(issues).message


def test_invalid_json_is_reported_with_line_and_skipped(tmp_path):
    _, issues = load_one(tmp_path, f"{ENGINE}/emotionevents/bad.json", '{\n  "name": "E",\n  "x": [1, 2\n}',
                         L.load_emotion_events)
    err = only_error(issues)
    assert err.code == "json" and err.line == 4 and err.file.endswith("bad.json")


def test_missing_file_is_an_error(tmp_path):
    sink = L.IssueSink()
    assert L.read_document(tmp_path / "nope.json", tmp_path, sink) is None
    err = only_error(sink.issues)
    assert err.code == "io" and "not found" in err.message


def test_not_utf8_is_an_error_with_line(tmp_path):
    path = tmp_path / "cozmo_resources" / "x.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{\n"a": "\xff"\n}')
    sink = L.IssueSink()
    assert L.read_document(path, tmp_path, sink) is None
    err = only_error(sink.issues)
    assert err.code == "io" and err.line == 2


def test_byte_order_mark_is_skipped(tmp_path):
    path = tmp_path / "cozmo_resources" / "bom.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(b'\xef\xbb\xbf// comment\n{"a": "\xc3\xa9"}')
    sink = L.IssueSink()
    doc = L.read_document(path, tmp_path / "cozmo_resources", sink)
    assert sink.issues == [] and doc is not None and doc.data == {"a": "é"}
    assert doc.text.startswith("// comment") and L.read_text(path) == doc.text


def test_bad_graph_is_reported_at_its_nodes(tmp_path):
    text = '{"emotionEvents": [\n {"name": "Ok", "emotionAffectors": []},\n {"name": "Bad", "emotionAffectors": [],\n' \
           '  "repetitionPenalty": {"nodes": [{"x": 5, "y": 0}, {"x": 1, "y": 1}]}}\n]}'
    events, issues = load_one(tmp_path, f"{ENGINE}/emotionevents/e.json", text, L.load_emotion_events)
    assert [e.name for e in events] == ["Ok"]
    err = only_error(issues)
    assert err.field == "emotionEvents[1].repetitionPenalty.nodes"
    assert err.line == 4


def test_top_level_of_wrong_type(tmp_path):
    _, issues = load_one(tmp_path, "assets/animationGroups/ag_list.json", "[1, 2]", L.load_animation_group)
    assert "expected a JSON object at the top, got array" in only_error(issues).message


def test_broken_record_is_left_out_and_what_references_it_is_unresolved(tmp_path):
    from brain.assets import validate

    write(tmp_path, f"{SYSTEM}/behaviors/ok.json",
          {"behaviorClass": "PlayAnim", "behaviorID": "Ok", "animTriggers": []})
    write(tmp_path, f"{SYSTEM}/behaviors/broken.json",
          {"behaviorClass": "PlayAnim", "behaviorID": "Broken", "animTriggers": ["T", 5]})
    write(tmp_path, f"{SYSTEM}/reactionTrigger_behavior_map.json", {"reactionTriggerBehaviorMap": [
        {"reactionTrigger": "CliffDetected", "behaviorID": "Broken"},
        {"reactionTrigger": "RobotPickedUp", "behaviorID": "Ok"}]})
    rs = load_resource_set([tmp_path], index_clips=False)
    assert set(rs.behaviors) == {"Ok"}
    field_errors = [i for i in rs.issues if i.code == "field"]
    assert [(i.field, i.line) for i in field_errors] == [("animTriggers[1]", 6)]
    result = validate(rs, implemented=set())
    unresolved = [(i.kind, i.subject) for i in result.issues if i.code == "unresolved"]
    assert unresolved == [("reaction → behaviour", "Broken")]
    # The broken behaviour's trigger "T" is not counted: nothing of it runs.
    assert result.refs["behaviour/activity → animation trigger"].references == 0


# ---------------------------------------------------------------- behaviours


def test_modern_behaviour_keeps_every_other_key_as_params(tmp_path):
    b, issues = load_one(tmp_path, f"{SYSTEM}/behaviors/x.json", {
        "behaviorClass": "PlayAnim", "behaviorID": "Hiccup", "displayNameKey": "behavior.Hiccup",
        "animTriggers": ["Hiccup"], "TimeBeforeRotate_Sec": 2.0}, L.load_behavior)
    assert issues == []
    assert (b.behavior_id, b.behavior_class, b.legacy) == ("Hiccup", "PlayAnim", False)
    assert dict(b.params) == {"displayNameKey": "behavior.Hiccup", "animTriggers": ["Hiccup"],
                              "TimeBeforeRotate_Sec": 2.0}
    assert b.param("timeBeforeRotate_Sec") == 2.0  # keys differing only in case
    assert [(r.field, r.name) for r in b.anim_triggers] == [("animTriggers", "Hiccup")]


def test_legacy_behaviour_is_normalised_and_keeps_original_keys(tmp_path):
    b, issues = load_one(tmp_path, f"{SYSTEM}/behaviors/popAWheelie.json", {
        "behaviorType": "PopAWheelie", "name": "popAWheelie", "behaviorGroups": ["FP_PlayAlone"],
        "flatScore": 0.8}, L.load_behavior)
    assert issues == []
    assert (b.behavior_id, b.behavior_class, b.legacy, b.aliases, b.groups) == (
        "popAWheelie", "PopAWheelie", True, ("PopAWheelie",), ("FP_PlayAlone",))
    assert dict(b.params) == {"flatScore": 0.8}


def test_misspelt_class_is_read_as_meant_and_noted(tmp_path):
    b, issues = load_one(tmp_path, f"{SYSTEM}/behaviors/n.json", {"behaviorClass": "PlanAnimWithFace",
                                                                 "behaviorID": "N", "animTriggers": ["A"]},
                         L.load_behavior)
    assert (b.behavior_class, b.raw_class) == ("PlayAnimWithFace", "PlanAnimWithFace")
    assert [(i.severity, i.field) for i in issues] == [(Severity.INFO, "behaviorClass")]


def test_every_animation_trigger_key_spelling_is_collected(tmp_path):
    b, issues = load_one(tmp_path, f"{SYSTEM}/behaviors/all.json", {
        "behaviorClass": "X", "behaviorID": "All",
        "animTriggers": ["T1", "T2"], "animTrigger": "T3", "animationTrigger": "T4", "ReactionAnimGroup": "T5",
        "s2_WaitAnimTrigger": "T6", "driveStartAnimTrigger": "T7", "reachForBlockTrigger": "T8",
        "knockOverEyesTrigger": "T9", "softSparkTrigger": "T10", "sparksSuccessTrigger": "",
        "zero_block_config": {"initial_animName": "T11"},
        "reactions": [{"anim": "T12", "finalEmotionEvent": "E1"}],
        "timeTilSleepAnimation_s": 20.0,
    }, L.load_behavior)
    assert issues == []
    assert [r.name for r in b.anim_triggers] == [f"T{i}" for i in range(1, 13)]
    assert ("reactions[0].anim", "T12") in [(r.field, r.name) for r in b.anim_triggers]
    assert [(r.field, r.name) for r in b.emotion_events] == [("reactions[0].finalEmotionEvent", "E1")]


def test_animation_trigger_of_wrong_type(tmp_path):
    b, issues = load_one(tmp_path, f"{SYSTEM}/behaviors/w.json",
                         '{"behaviorClass": "PlayAnim", "behaviorID": "W",\n "anim": 3}', L.load_behavior)
    assert b is None
    err = only_error(issues)
    assert (err.field, err.line) == ("anim", 2)
    assert err.message.startswith("expected string or array of strings, got number")


# ---------------------------------------------------------------- mood and emotion events


def test_mood_config_graphs_types_ranges_and_fallback(tmp_path):
    mood, issues = load_one(tmp_path, f"{ENGINE}/mood_config.json", {
        "decayGraphs": [
            {"emotionType": "default", "nodes": [{"x": 0, "y": 1}, {"x": 150, "y": 0}]},
            {"emotionType": "Stimulated", "graphType": "ValueSlope", "nodes": [{"x": 0, "y": 0.6}, {"x": 1, "y": 0}]},
        ],
        "valueRanges": [{"emotionType": "Stimulated", "min": 0.0, "max": 1.0}],
        "defaultRepetitionPenalty": {"nodes": [{"x": 0, "y": 0}, {"x": 30, "y": 1}]},
        "actionResultEmotionEvents": {"FLIP_BLOCK": {"SUCCESS": "FlipBlockSucceeded"}},
        "eventMapper": {"emotionEvents": []},
    }, L.load_mood_config)
    assert issues == []
    assert mood.decay_graphs["Stimulated"].graph_type == "ValueSlope"
    assert mood.decay_graph("Happy").emotion_type == "default"
    assert mood.decay_graph("Happy").graph(75) == pytest.approx(0.5)
    assert mood.value_ranges == {"Stimulated": (0.0, 1.0)}
    assert mood.declared_types == {"Stimulated"}
    assert mood.default_repetition_penalty(15) == pytest.approx(0.5)
    assert mood.action_result_events["FLIP_BLOCK"]["SUCCESS"] == "FlipBlockSucceeded"
    assert mood.event_mapper == {"emotionEvents": []}


def test_mood_config_bad_graph_type_drops_only_that_graph(tmp_path):
    mood, issues = load_one(tmp_path, f"{ENGINE}/mood_config.json", {"decayGraphs": [
        {"emotionType": "default", "nodes": [{"x": 0, "y": 1}]},
        {"emotionType": "Social", "graphType": "Exponential", "nodes": [{"x": 0, "y": 1}]}]}, L.load_mood_config)
    assert set(mood.decay_graphs) == {"default"}
    assert only_error(issues).field == "decayGraphs[1].graphType"


def test_emotion_events_list_and_single_event_files(tmp_path):
    events, issues = load_one(tmp_path, f"{ENGINE}/emotionevents/a.json", {"emotionEvents": [
        {"name": "A", "emotionAffectors": [{"emotionType": "Happy", "value": 0.1}],
         "repetitionPenalty": {"nodes": [{"x": 0, "y": 0}, {"x": 10, "y": 1}]}},
        {"name": "B", "emotionAffectors": [{"emotionType": "Calm", "value": -0.2}]}]}, L.load_emotion_events)
    assert issues == [] and [e.name for e in events] == ["A", "B"]
    assert isinstance(events[0].repetition_penalty, Graph) and events[1].repetition_penalty is None
    single, issues = load_one(tmp_path, f"{ENGINE}/emotionevents/s.json",
                              {"name": "MotionReact", "emotionAffectors": [{"emotionType": "Excited", "value": 0.12}]},
                              L.load_emotion_events)
    assert issues == [] and single[0].affectors[0].emotion_type == "Excited"


def test_emotion_affector_value_of_wrong_type(tmp_path):
    events, issues = load_one(tmp_path, f"{ENGINE}/emotionevents/a.json",
                              '{"emotionEvents": [{"name": "A", "emotionAffectors": [\n'
                              '  {"emotionType": "Happy", "value": "lots"}]}]}', L.load_emotion_events)
    assert events == []
    err = only_error(issues)
    assert (err.field, err.line) == ("emotionEvents[0].emotionAffectors[0].value", 2)


# ---------------------------------------------------------------- reaction map and trigger maps


def test_duplicate_reaction_triggers_are_kept_and_reported(tmp_path):
    entries, issues = load_one(tmp_path, f"{SYSTEM}/reactionTrigger_behavior_map.json", {
        "reactionTriggerBehaviorMap": [
            {"reactionTrigger": "Frustration", "behaviorID": "Minor", "frustrationParams": {"maxConfidence": -0.6}},
            {"reactionTrigger": "CliffDetected", "behaviorID": "ReactToCliff",
             "genericStrategyParams": {"shouldResumeLast": True}},
            {"reactionTrigger": "Frustration", "behaviorID": "Major"}]}, L.load_reaction_map)
    assert [(e.trigger, e.behavior_id) for e in entries] == [
        ("Frustration", "Minor"), ("CliffDetected", "ReactToCliff"), ("Frustration", "Major")]
    assert entries[1].should_resume_last is True and entries[0].should_resume_last is None
    assert entries[0].params["frustrationParams"] == {"maxConfidence": -0.6}
    (dup,) = issues
    assert (dup.severity, dup.code, dup.subject, dup.field) == (
        Severity.WARNING, "duplicate", "Frustration", "reactionTriggerBehaviorMap[2]")


def test_trigger_map_duplicate_event_keeps_the_first(tmp_path):
    pairs, issues = load_one(tmp_path, "assets/animationGroupMaps/AnimationTriggerMap.json", {"Pairs": [
        {"CladEvent": "A", "AnimName": "ag_a"}, {"CladEvent": "A", "AnimName": "ag_b"},
        {"CladEvent": "B", "AnimName": 3}]}, L.load_trigger_map)
    assert [(p.event, p.target) for p in pairs] == [("A", "ag_a")]
    assert sorted((i.severity, i.field) for i in issues) == [
        (Severity.WARNING, "Pairs[1]"), (Severity.ERROR, "Pairs[2].AnimName")]


# ---------------------------------------------------------------- activities


ACTIVITY = {
    "activityID": "Socialize", "activityType": "Socialize",
    "behaviorChooser": {"type": "Scoring", "behaviors": [
        {"behaviorID": "A", "scoring": {"flatScore": 1.0,
                                        "repetitionPenalty": {"nodes": [{"x": 0, "y": 0}, {"x": 10, "y": 1}]}}}]},
    "interludeBehaviorChooser": {"type": "StrictPriority", "behaviors": ["B", "C"]},
    "activityStrategy": {"type": "Simple", "cooldownBaseSecs": 30.0, "requiredMinStartMoodScore": 0.5,
                         "activityShouldEndDurationSecs": 300.0,
                         "startMoodScorer": [{"emotionType": "Social", "scoreGraph": {
                             "nodes": [{"x": -1, "y": 1}, {"x": 0.3, "y": 1}, {"x": 0.31, "y": 0}]}}]},
    "requiredObjectives": [{"objective": "PouncedAndCaught", "behaviorID": "D", "probabilityToRequireObjective": 0.5}],
    "driveStartAnimTrigger": "HikingDrivingStart",
    "maxNumFindFacesSearchIterations": 2,
}


def test_activity_single_object_with_choosers_strategy_and_objectives(tmp_path):
    acts, issues = load_one(tmp_path, f"{SYSTEM}/activities/a.json", ACTIVITY, L.load_activities)
    assert issues == []
    (a,) = acts
    assert a.behavior_chooser.type == "Scoring"
    assert a.choosers["interludeBehaviorChooser"].type == "StrictPriority"
    assert [r.name for r in a.behavior_refs()] == ["A", "B", "C", "D"]
    assert a.strategy.cooldown_base_s == 30.0 and a.strategy.required_min_start_mood_score == 0.5
    assert a.strategy.params["activityShouldEndDurationSecs"] == 300.0
    (scorer,) = a.strategy.start_mood_scorer
    assert scorer.emotion_type == "Social" and scorer.graph(0.0) == pytest.approx(1.0)
    assert [r.name for r in a.anim_triggers] == ["HikingDrivingStart"]
    assert a.params["maxNumFindFacesSearchIterations"] == 2


def test_activity_list_file_with_delegate_and_sub_activities(tmp_path):
    acts, issues = load_one(tmp_path, f"{SYSTEM}/activities_config.json", [
        {"activityID": "Freeplay", "activityType": "Freeplay", "activityStrategy": {"type": "Simple"},
         "subActivities": [{"activityID": "Socialize", "activityPriority": 1}]},
        {"activityID": "SparksBuildPyramid", "activityType": "Sparked", "activityStrategy": {"type": "Spark"},
         "softSparkTrigger": "SoftSparkUpgradeLift",
         "subActivityDelegate": {"activityID": "BuildPyramid", "activityType": "BuildPyramid",
                                 "activityStrategy": {"type": "Simple"},
                                 "setupChooser": {"type": "StrictPriority", "behaviors": ["S1"]},
                                 "buildChooser": {"type": "StrictPriority", "behaviors": ["B1"]}}},
    ], L.load_activities)
    assert issues == []
    freeplay, sparks = acts
    assert [(s.activity_id, s.priority) for s in freeplay.sub_activities] == [("Socialize", 1.0)]
    assert sparks.delegate is not None and sparks.delegate.activity_id == "BuildPyramid"
    assert [(r.field, r.name) for r in sparks.behavior_refs()] == [
        ("subActivityDelegate.setupChooser.behaviors", "S1"), ("subActivityDelegate.buildChooser.behaviors", "B1")]


def test_bad_activity_in_a_list_is_left_out_with_its_index(tmp_path):
    text = '[\n  {"activityID": "A", "activityStrategy": {"type": "Simple"}},\n' \
           '  {"activityID": "B", "activityStrategy": {"type": "Simple", "cooldownBaseSecs": "long"}}\n]'
    acts, issues = load_one(tmp_path, f"{SYSTEM}/activities_config.json", text, L.load_activities)
    assert [a.activity_id for a in acts] == ["A"]
    err = only_error(issues)
    assert (err.field, err.line) == ("[1].activityStrategy.cooldownBaseSecs", 3)


def test_unknown_chooser_type_is_a_warning(tmp_path):
    acts, issues = load_one(tmp_path, f"{SYSTEM}/activities/q.json",
                            {"activityID": "Q", "behaviorChooser": {"type": "Queue", "behaviors": ["A"]}},
                            L.load_activities)
    assert len(acts) == 1
    assert [(i.severity, i.field) for i in issues] == [(Severity.WARNING, "behaviorChooser.type")]


# ---------------------------------------------------------------- lights


PATTERN3 = {"onColors": [[0, 0.5, 0, 1]] * 3, "offColors": [[0, 0, 0, 1]] * 3, "onPeriod_ms": [300, 900, 0],
            "offPeriod_ms": [900, 300, 0], "transitionOnPeriod_ms": [300] * 3, "transitionOffPeriod_ms": [300] * 3,
            "offset": [-900, -300, 0]}


def test_backpack_lights_single_and_map_files_keep_float_colours(tmp_path):
    (single,), issues = load_one(tmp_path, f"{ENGINE}/lights/backpackLights/charging.json", PATTERN3,
                                 L.load_backpack_lights)
    assert issues == [] and single.name == "charging"
    assert single.on_colors[0] == (0.0, 0.5, 0.0, 1.0) and single.offset_ms == (-900, -300, 0)
    many, issues = load_one(tmp_path, f"{ENGINE}/lights/backpackLights/patterns.json",
                            "{\n // comment\n \"a\": " + json.dumps(PATTERN3) + ",\n \"b\": " + json.dumps(PATTERN3)
                            + "\n}", L.load_backpack_lights)
    assert issues == [] and [p.name for p in many] == ["a", "b"]


def test_backpack_lights_in_bytes_are_scaled(tmp_path):
    p = dict(PATTERN3, onColors=[[255, 0, 0, 255]] * 3)
    (pattern,), _ = load_one(tmp_path, f"{ENGINE}/lights/backpackLights/red.json", p, L.load_backpack_lights)
    assert pattern.on_colors[0] == (1.0, 0.0, 0.0, 1.0)


def test_backpack_lights_with_mismatched_led_counts(tmp_path):
    p = dict(PATTERN3, offset=[0, 0])
    patterns, issues = load_one(tmp_path, f"{ENGINE}/lights/backpackLights/bad.json", p, L.load_backpack_lights)
    assert patterns == []
    assert only_error(issues).field == "offset"


CUBE_PATTERN = {"onColors": [[0, 127, 255, 255]] * 4, "offColors": [[0, 0, 0, 255]] * 4,
                "onPeriod_ms": [10] * 4, "offPeriod_ms": [5000] * 4, "transitionOnPeriod_ms": [1000] * 4,
                "transitionOffPeriod_ms": [1000] * 4, "offset": [0] * 4, "rotationPeriod_ms": 0}


def test_cube_lights_named_stages_play_in_key_order(tmp_path):
    anim, issues = load_one(tmp_path, f"{ENGINE}/lights/cubeLights/pyramidFlourish.json", {
        "zdenouement": {"pattern": CUBE_PATTERN, "duration_ms": 200, "canBeOverridden": False},
        "flourish": {"pattern": CUBE_PATTERN, "duration_ms": 300}}, L.load_cube_lights)
    assert issues == []
    assert anim.name == "pyramidFlourish"
    assert [(s.name, s.duration_ms, s.can_be_overridden) for s in anim.stages] == [
        ("flourish", 300, None), ("zdenouement", 200, False)]
    assert anim.stages[0].pattern.on_colors[0] == pytest.approx((0.0, 127 / 255, 1.0, 1.0))


def test_cube_lights_list_shapes(tmp_path):
    stage = {"pattern": CUBE_PATTERN, "duration_ms": 1000, "canBeOverridden": True, "patternDebugName": "fade"}
    anim, issues = load_one(tmp_path, f"{ENGINE}/lights/cubeLights/fadeOff_1sec.json", {"fadeOff_1sec": [stage]},
                            L.load_cube_lights)
    assert issues == [] and [(s.name, s.can_be_overridden) for s in anim.stages] == [("fade", True)]
    top, issues = load_one(tmp_path, f"{ENGINE}/lights/cubeLights/top.json",
                           [dict(stage, rotate=True), stage], L.load_cube_lights)
    assert issues == [] and [s.pattern.rotate for s in top.stages] == [True, None]


def test_cube_light_colour_out_of_range(tmp_path):
    bad = dict(CUBE_PATTERN, onColors=[[0, 0, 300, 255]] * 4)
    anim, issues = load_one(tmp_path, f"{ENGINE}/lights/cubeLights/bad.json",
                            {"bad": {"pattern": bad, "duration_ms": 1}}, L.load_cube_lights)
    assert anim is None
    err = only_error(issues)
    assert err.field == "bad.pattern.onColors[0][2]" and "0..255" in err.message


def test_identical_graphs_are_built_once_per_load_and_bad_ones_still_reported(tmp_path):
    penalty = {"nodes": [{"x": 0, "y": 0}, {"x": 10, "y": 1}]}
    same = {"nodes": [{"x": 0.0, "y": 0.0}, {"x": 10, "y": 1}]}
    with_bool = {"nodes": [{"x": 0, "y": False}, {"x": 10, "y": 1}]}
    write(tmp_path, f"{ENGINE}/emotionevents/e.json", {"emotionEvents": [
        {"name": "A", "emotionAffectors": [], "repetitionPenalty": penalty},
        {"name": "B", "emotionAffectors": [], "repetitionPenalty": same},
        {"name": "C", "emotionAffectors": [], "repetitionPenalty": with_bool},
    ]})
    first = load_resource_set([tmp_path], index_clips=False)
    a, b = first.emotion_events["A"].repetition_penalty, first.emotion_events["B"].repetition_penalty
    assert a is b and a == Graph([(0, 0), (10, 1)])
    # The boolean is not taken for the 0 of an identical-looking graph.
    assert "C" not in first.emotion_events
    assert [i.field for i in first.issues if i.code == "field"] == ["emotionEvents[2].repetitionPenalty.nodes"]
    second = load_resource_set([tmp_path], index_clips=False)  # nothing is kept between loads
    assert second.emotion_events["A"].repetition_penalty is not a
