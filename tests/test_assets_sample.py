"""The real Cozmo resource sample (shared/cozmo_resources_sample): counts and dangling links.

Every figure here comes from the sample's SOURCES.md ("Files per folder" and "References
between files"): the loader must reproduce them exactly, report the malformed file and
load the rest.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from brain.app.check import check_command
from brain.assets import Severity, load_resource_set, validate
from brain.assets import validation as V
from brain.graph import Graph, GraphError

SAMPLE_RESOURCES = Path(__file__).resolve().parents[1].parent / "shared" / "cozmo_resources_sample" / "cozmo_resources"


@pytest.fixture(scope="module")
def sample():
    if not SAMPLE_RESOURCES.is_dir():
        pytest.skip(f"shared resource sample not found at {SAMPLE_RESOURCES}")
    rs = load_resource_set([SAMPLE_RESOURCES.parent], index_clips=False)
    return rs, validate(rs, implemented=set())


def _graph_accepts_steps() -> bool:
    try:
        Graph.from_nodes([{"x": 0.3, "y": 1.0}, {"x": 0.3, "y": 0.0}])
    except GraphError:
        return False
    return True


needs_step_graphs = pytest.mark.skipif(
    not _graph_accepts_steps(),
    reason="brain.graph.Graph rejects a vertical step (two nodes with the same x), which the real "
    "socialize.json and activities_config.json (MeetCozmo) use; those two activities are left out until it does",
)


def missing(result, kind: str) -> set[str]:
    return set(result.refs[kind].missing)


def test_files_per_folder(sample):
    rs, _ = sample
    assert rs.file_counts["animation triggers"] == 1
    assert rs.file_counts["animation groups"] == 55
    assert rs.file_counts["cube light triggers"] == 1
    assert rs.file_counts["mood config"] == 1
    assert rs.file_counts["emotion events"] == 11
    assert rs.file_counts["reaction triggers"] == 1
    assert rs.file_counts["activities"] == 2 + 19
    assert rs.file_counts["behaviours"] == 78
    assert rs.file_counts["backpack light patterns"] == 4
    assert rs.file_counts["cube light animations"] == 20


def test_record_counts(sample):
    rs, _ = sample
    assert len(rs.anim_triggers) == 340
    assert len(rs.animation_groups) == 55
    assert len(rs.cube_triggers) == 40
    assert len(rs.cube_lights) == 20
    assert len(rs.reactions) == 23
    assert len(rs.behaviors) == 78
    assert sum(b.legacy for b in rs.behaviors.values()) == 13
    assert rs.mood is not None
    assert set(rs.mood.decay_graphs) == {"default", "WantToPlay", "Social", "Confident"}
    assert set(rs.mood.action_result_events["PICKUP_OBJECT_LOW"].values()) == {
        "PickupSucceeded", "PickingOrPlacingActionFailedWithRetry", "PickingOrPlacingActionFailedWithAbort"}


def test_emotion_types_come_from_the_files(sample):
    rs, result = sample
    assert rs.emotion_types == {"WantToPlay", "Social", "Confident", "Excited", "Happy", "Calm", "Brave", "Stimulated"}
    # Every type is used by two or more events or declared, so none is flagged as a misspelling.
    assert not [i for i in result.issues if i.code == "emotion-type" and i.severity == Severity.WARNING]


def test_malformed_file_is_reported_and_the_rest_loads(sample):
    rs, _ = sample
    (bad,) = [i for i in rs.issues if i.code == "json"]
    assert bad.file.endswith("emotionevents/motion_react.json")
    assert bad.line == 18 and bad.severity == Severity.ERROR
    assert "MotionReact" not in rs.emotion_events
    # The ten other event files load, among them both frustration events the behaviours use.
    assert {"FinishedMinorFrustration", "FinishedMajorFrustration", "PickupSucceeded"} <= set(rs.emotion_events)


def test_duplicate_reaction_trigger_is_kept_and_reported(sample):
    rs, _ = sample
    assert [r.behavior_id for r in rs.reactions_for("Frustration")] == ["ReactToFrustrationMinor",
                                                                      "ReactToFrustrationMajor"]
    dups = [i for i in rs.issues if i.code == "duplicate" and i.subject == "Frustration"]
    assert len(dups) == 1 and dups[0].severity == Severity.WARNING


def test_reaction_map_to_behaviours(sample):
    _, result = sample
    s = result.refs[V.REACTION_BEHAVIOR]
    assert (s.references, len(s.names), len(s.resolved), len(s.via_legacy)) == (23, 23, 20, 10)
    assert set(s.missing) == {"ReactToFrustrationMajor", "RamIntoBlock", "ReactToPlacedOnSlope"}
    assert s.via_legacy == {"AcknowledgeObject", "ReactToCliff", "ReactToMotorCalibration", "ReactToOnCharger",
                            "ReactToPet", "ReactToPickup", "ReactToReturnedToTreads", "ReactToRobotOnBack",
                            "ReactToRobotOnFace", "ReactToUnexpectedMovement"}


@needs_step_graphs
def test_activity_lists_to_activity_files(sample):
    rs, result = sample
    s = result.refs[V.ACTIVITY_SUBACTIVITY]
    assert s.references == 22 + 22
    assert set(s.missing) == {"SparksPounceOnMotion", "SparksFistBump", "PutDownDispatch", "NeedsSevereLowPlayGetIn"}
    by_file: dict[str, list[str]] = {}
    for name, places in s.missing.items():
        for place in places:
            by_file.setdefault(place.file.rsplit("/", 1)[-1], []).append(name)
    assert len(by_file["activities_config.json"]) == 3
    assert len(by_file["behavior_system_config.json"]) == 4


@needs_step_graphs
def test_activities_to_behaviours(sample):
    _, result = sample
    s = result.refs[V.ACTIVITY_BEHAVIOR]
    assert (s.references, len(s.names)) == (160, 87)
    assert len(s.resolved) == 46 + 2
    assert s.via_legacy == {"DriveOffCharger", "PopAWheelie"}
    assert len(s.missing) == 39
    assert sum(name.startswith("Singing_") for name in s.missing) == 17
    assert {"Bouncer", "EarnedSparks", "EnrollFace", "MeetCozmo_InteractWithFaces", "Needs_Wait",
            "NothingToDo_Idle", "PutDownBlockNothingToDo", "RequestKeepAway", "RespondToPyramidBase"} <= set(s.missing)


def test_behaviours_and_activities_to_animation_triggers(sample):
    _, result = sample
    s = result.refs[V.ANIM_TRIGGER]
    assert (s.references, len(s.names), len(s.resolved), len(s.missing)) == (78, 67, 20, 47)
    names = s.missing
    assert sum(n.startswith("Needs") for n in names) == 15
    assert sum(n.startswith("RequestGame") for n in names) == 25
    assert sum(n.startswith("KnockOver") for n in names) == 4
    assert sum(n.startswith("SoftSpark") for n in names) == 2
    assert "FeedingReactToSeeCube_Normal" in names


def test_trigger_map_to_groups(sample):
    rs, result = sample
    s = result.refs[V.TRIGGER_GROUP]
    assert (s.references, len(s.names), len(s.resolved), len(s.missing)) == (340, 301, 55, 246)
    assert sum(1 for p in rs.anim_triggers.values() if p.target in rs.animation_groups) == 74
    used = result.refs[V.ANIM_TRIGGER].resolved
    reaching = {t for t in used if rs.group_for_trigger(t) is not None}
    assert reaching == {"AcknowledgeObject", "FrustratedByFailure", "FrustratedByFailureMajor",
                        "LookInPlaceForFacesBodyPause", "LookInPlaceForFacesHeadMovePause", "NeutralFace",
                        "PutDownBlockPutDown", "ReactToObstacle"}
    assert {p.target for p in rs.anim_triggers.values()} >= set(rs.animation_groups)  # every group is named


def test_cube_trigger_map_to_cube_lights(sample):
    rs, result = sample
    s = result.refs[V.CUBE_TRIGGER_LIGHT]
    assert (s.references, len(s.names), len(s.resolved), len(s.missing)) == (40, 37, 20, 17)
    assert {"dancing_01", "dancing_06", "feedingBlank", "guardDogBusted", "pyramidSingle"} <= set(s.missing)
    assert set(rs.cube_lights) <= {p.target for p in rs.cube_triggers.values()}


def test_emotion_event_references_all_resolve(sample):
    rs, result = sample
    s = result.refs[V.EMOTION_EVENT]
    assert not s.missing
    assert len({n for n in s.names}) == 8 + 2


def test_unresolved_issues_are_one_error_per_missing_name(sample):
    _, result = sample
    unresolved = [i for i in result.issues if i.code == "unresolved"]
    assert all(i.severity == Severity.ERROR for i in unresolved)
    for kind in (V.REACTION_BEHAVIOR, V.ANIM_TRIGGER, V.TRIGGER_GROUP, V.CUBE_TRIGGER_LIGHT):
        assert {i.subject for i in unresolved if i.kind == kind} == missing(result, kind)


def test_legacy_and_case_quirks(sample):
    rs, _ = sample
    assert rs.behavior("PopAWheelie") is rs.behavior("popAWheelie")
    assert rs.behavior("PopAWheelie").legacy
    assert {b.raw_class for b in rs.behaviors.values() if b.behavior_class != b.raw_class} == {"PlanAnimWithFace"}


def test_check_command_report_on_the_sample(sample, capsys):
    code = check_command(argparse.Namespace(resources=[str(SAMPLE_RESOURCES)], personality=None, config=None))
    out = capsys.readouterr().out
    assert code == 1  # the sample's dangling references are errors for a tree meant to run
    assert "config/engine/emotionevents/motion_react.json:18" in out
    assert "reaction → behaviour: 23 references to 23 names; 20 resolve" in out
    assert "ReactToPlacedOnSlope" in out and "RamIntoBlock" in out
    assert "animation trigger → group: 340 references to 301 names; 55 resolve; 246 missing" in out
    assert "reaction trigger 'Frustration' is mapped again" in out
    assert "Behaviour classes without a node yet" in out


@needs_step_graphs
def test_desired_activity_names_all_resolve(sample):
    rs, result = sample
    s = result.refs[V.ACTIVITY_DESIRED]
    # activities_config.json names five situations, behavior_system_config.json four.
    assert (s.references, s.names, len(s.resolved), s.missing) == (
        9, {"Socialize", "PlayAlone", "Hiking", "ObjectTapInteraction"}, 4, {})


def test_event_mapper_of_the_sample_is_empty(sample):
    rs, result = sample
    assert rs.mood.event_mapper == {"emotionEvents": []}
    assert not rs.mapped_events and not rs.mood.emotion_events
    s = result.refs[V.EMOTION_EVENT]
    assert (s.references, s.missing) == (28, {})  # 25 action results + 3 finalEmotionEvent


def test_every_dangling_reference_has_a_line_holding_the_name(sample):
    _, result = sample
    unresolved = [i for i in result.issues if i.code == "unresolved"]
    assert len(unresolved) == sum(len(s.missing) for s in result.refs.values())
    texts: dict[str, list[str]] = {}
    for issue in unresolved:
        for place in result.refs[issue.kind].missing[issue.subject]:
            lines = texts.setdefault(place.file, Path(place.file).read_text().splitlines())
            assert place.line is not None, place
            assert json.dumps(issue.subject) in lines[place.line - 1], place
    where = {i.subject: (i.file.rsplit("/", 1)[-1], i.line) for i in unresolved}
    assert where["RamIntoBlock"] == ("reactionTrigger_behavior_map.json", 132)
    assert where["ReactToFrustrationMajor"] == ("reactionTrigger_behavior_map.json", 117)
    assert where["NeedsSevereLowPlayGetIn"] == ("behavior_system_config.json", 42)
    assert where["Bouncer"] == ("playWithHumans.json", 38)
