"""Mood configuration and emotion events as the resource loader reads them: the file shapes, the
errors that name file, line and field, and the real sample files driving a mood (graphs as in
tests/test_mood.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from brain.assets import loaders as L
from brain.graph import Graph
from brain.mood import (
    DEFAULT_REPETITION_PENALTY,
    DecayGraph,
    EmotionEvent,
    Mood,
    MoodConfig,
    MoodConfigError,
    SimpleMood,
    SimpleMoodRule,
)

from .test_mood import COZMO_TYPES, DEFAULT_DECAY, SOCIAL_DECAY, run

# --------------------------------------------------------------------------- parsing (the resource loader)


MINIMAL_JSON = {
    "decayGraphs": [
        {"emotionType": "default", "nodes": [{"x": 0, "y": 1}, {"x": 10, "y": 1}, {"x": 30, "y": 0.9},
                                             {"x": 75, "y": 0.6}, {"x": 150, "y": 0}]},
        {"emotionType": "Stimulated", "graphType": "ValueSlope",
         "nodes": [{"x": 0, "y": 0.3}, {"x": 1, "y": 0.3}]},
    ],
    "valueRanges": [{"emotionType": "Stimulated", "min": 0, "max": 1}],
    "emotionTypes": ["Happy"],
    "simpleMood": {"stimulation": ["Stimulated"], "frustration": "Happy", "lowStimMax": 0.1},
    "eventMapper": {"emotionEvents": [{"name": "Boop", "emotionAffectors": [
        {"emotionType": "Confident", "value": 0.3}]}]},
}


def _load(tmp_path: Path, obj: object, name: str, loader: Any) -> tuple[Any, list[str]]:
    """Write *obj* as the file *name* (two-space JSON) and read it with *loader*; the issues as text."""
    path = tmp_path / name
    path.write_text(json.dumps(obj, indent=2), encoding="utf-8")
    sink = L.IssueSink()
    doc = L.read_document(path, tmp_path, sink)
    result = loader(doc, sink) if doc is not None else None
    return result, [str(i) for i in sink.issues]


def _config(tmp_path: Path, obj: object) -> MoodConfig:
    record, issues = _load(tmp_path, obj, "mood_config.json", L.load_mood_config)
    assert record is not None and not [i for i in issues if i.startswith("error")], issues
    return MoodConfig.from_record(record)


def _events(tmp_path: Path, obj: object, name: str = "events.json") -> list[EmotionEvent]:
    records, issues = _load(tmp_path, obj, name, L.load_emotion_events)
    assert issues == []
    return [EmotionEvent.from_record(r) for r in records]


def test_config_from_the_loader_full_shape(tmp_path: Path) -> None:
    config = _config(tmp_path, MINIMAL_JSON)
    assert config.decay_graphs["Stimulated"].kind == "ValueSlope"
    assert config.decay_for("Happy").graph == DEFAULT_DECAY
    assert config.range_for("Stimulated") == (0.0, 1.0)
    assert config.range_for("Happy") == (-1.0, 1.0)
    assert config.default_repetition_penalty == DEFAULT_REPETITION_PENALTY
    assert config.simple_mood == SimpleMoodRule(stimulation=(("Stimulated",),), frustration=("Happy",),
                                                low_stim_max=0.1)
    mood = Mood(config)
    assert set(mood.emotion_types) == {"Stimulated", "Happy", "Confident"}
    assert mood.trigger_event("Boop", now=0.0)
    mood.set_value("Stimulated", 0.15, now=0.0)
    assert mood.simple_mood() is SimpleMood.MED_STIM


def test_simple_mood_block_lists_candidate_sets(tmp_path: Path) -> None:
    config = _config(tmp_path, {"decayGraphs": [], "simpleMood": {
        "stimulation": [["Stimulated"], ["Excited", "WantToPlay"]], "frustration": ["Brave", "Confident"],
        "frustratedBelow": -0.5, "medStimMax": 0.7}})
    assert config.simple_mood == SimpleMoodRule(stimulation=(("Stimulated",), ("Excited", "WantToPlay")),
                                                frustration=("Brave", "Confident"), frustrated_below=-0.5,
                                                med_stim_max=0.7)


def test_missing_default_decay_means_no_decay(tmp_path: Path) -> None:
    mood = Mood(_config(tmp_path, {"decayGraphs": [], "emotionTypes": ["Happy"]}))
    mood.add("Happy", 0.7, now=0.0)
    mood.update(1000.0)
    assert mood.value("Happy") == pytest.approx(0.7)


def _bad(tmp_path: Path, obj: object) -> str:
    """The loader's issues about a bad mood config, one a line (``severity: file:line: field: message``)."""
    _, issues = _load(tmp_path, obj, "mood_config.json", L.load_mood_config)
    assert issues, obj
    return "\n".join(issues)


def test_config_errors_name_the_file_line_and_field(tmp_path: Path) -> None:
    assert "error: " + str(tmp_path / "mood_config.json") + ":1: decayGraphs: missing required field" \
        in _bad(tmp_path, {})
    assert "mood_config.json:5: decayGraphs[0].nodes: nodes[1].x: expected a number, got 'ten'" in _bad(
        tmp_path, {"decayGraphs": [{"emotionType": "default", "nodes": [{"x": 0, "y": 1}, {"x": "ten", "y": 1}]}]})
    assert "mood_config.json:12: decayGraphs[0].nodes[1].y: a TimeRatio graph must not rise, got 1 after 0.5" in _bad(
        tmp_path, {"decayGraphs": [{"emotionType": "default", "nodes": [{"x": 0, "y": 0.5}, {"x": 10, "y": 1}]}]})
    assert "decayGraphs[0].nodes[0].y: must not be negative" in _bad(tmp_path, {"decayGraphs": [
        {"emotionType": "Calm", "graphType": "ValueSlope", "nodes": [{"x": 0, "y": -0.1}]}]})
    assert "decayGraphs[0].nodes[0].x: seconds must not be negative" in _bad(tmp_path, {"decayGraphs": [
        {"emotionType": "Calm", "nodes": [{"x": -1, "y": 1}]}]})
    assert "decayGraphs[0].graphType: expected \"TimeRatio\" or \"ValueSlope\", got 'Wobbly'" in _bad(
        tmp_path, {"decayGraphs": [{"emotionType": "default", "graphType": "Wobbly", "nodes": [{"x": 0, "y": 1}]}]})
    assert "decayGraphs[0].emotionType: missing required field" in _bad(
        tmp_path, {"decayGraphs": [{"nodes": [{"x": 0, "y": 1}]}]})
    assert "warning: " in (dup := _bad(tmp_path, {"decayGraphs": [
        {"emotionType": "Happy", "nodes": [{"x": 0, "y": 1}]},
        {"emotionType": "Happy", "nodes": [{"x": 0, "y": 1}]}]}))
    assert "decayGraphs[1]: second decay graph for 'Happy'; the first is used" in dup
    assert "valueRanges[0]: min 1 is above max 0" in _bad(
        tmp_path, {"decayGraphs": [], "valueRanges": [{"emotionType": "Happy", "min": 1, "max": 0}]})
    assert "valueRanges[0].emotionType: 'default' is not an emotion type" in _bad(
        tmp_path, {"decayGraphs": [], "valueRanges": [{"emotionType": "default", "min": 0, "max": 1}]})
    assert "emotionTypes[1]: 'default' is not an emotion type" in _bad(
        tmp_path, {"decayGraphs": [], "emotionTypes": ["Happy", "default"]})
    assert "actionResultEmotionEvents.DRIVE.SUCCESS: expected string, got number" in _bad(
        tmp_path, {"decayGraphs": [], "actionResultEmotionEvents": {"DRIVE": {"SUCCESS": 3}}})
    assert "defaultRepetitionPenalty.nodes: nodes: a graph needs at least one node" in _bad(
        tmp_path, {"decayGraphs": [], "defaultRepetitionPenalty": {"nodes": []}})
    assert "simpleMood.stimulation[1]: expected at least one emotion type" in _bad(
        tmp_path, {"decayGraphs": [], "simpleMood": {"stimulation": [["Excited"], []]}})
    assert "simpleMood.lowStimMax: expected number, got string" in _bad(
        tmp_path, {"decayGraphs": [], "simpleMood": {"lowStimMax": "low"}})
    assert "mood_config.json:1: expected a JSON object at the top, got array; mood config not loaded" \
        in _bad(tmp_path, [])


def test_bad_event_mapper_entry_in_the_config_is_reported_and_left_out(tmp_path: Path) -> None:
    record, issues = _load(tmp_path, {"decayGraphs": [], "eventMapper": {"emotionEvents": [
        {"name": "Good", "emotionAffectors": [{"emotionType": "Happy", "value": 0.1}]},
        {"name": "Bad", "emotionAffectors": [{"emotionType": "Happy", "value": "lots"}]}]}},
        "mood_config.json", L.load_mood_config)
    assert [i for i in issues if "eventMapper.emotionEvents[1].emotionAffectors[0].value: expected number" in i]
    assert set(MoodConfig.from_record(record).events) == {"Good"}


def test_event_errors_name_the_field(tmp_path: Path) -> None:
    _, issues = _load(tmp_path, {"emotionEvents": [
        {"name": "A", "emotionAffectors": [{"emotionType": "Happy", "value": 1}, {"emotionType": "Happy"}]}]},
        "face_events.json", L.load_emotion_events)
    assert [i for i in issues if "face_events.json:" in i and "emotionEvents[0].emotionAffectors[1].value: "
            "missing required field" in i], issues
    _, issues = _load(tmp_path, {"emotionEvents": [{}]}, "x.json", L.load_emotion_events)
    assert [i for i in issues if "emotionEvents[0].name: missing required field" in i], issues
    _, issues = _load(tmp_path, {"name": "A", "repetitionPenalty": {"nodes": [{"x": 1}]}}, "x.json",
                      L.load_emotion_events)
    assert [i for i in issues if "repetitionPenalty.nodes: nodes[0]: missing \"y\"" in i], issues
    _, issues = _load(tmp_path, {"name": "A", "emotionAffectors": [{"emotionType": "default", "value": 1}]},
                      "x.json", L.load_emotion_events)
    assert [i for i in issues if "emotionAffectors[0].emotionType: 'default' is not an emotion type" in i], issues


def test_event_naming_a_type_twice_is_reported_and_summed(tmp_path: Path) -> None:
    records, issues = _load(tmp_path, {"name": "Twice", "emotionAffectors": [
        {"emotionType": "Happy", "value": 0.1}, {"emotionType": "Happy", "value": 0.2}]}, "x.json",
        L.load_emotion_events)
    assert [i for i in issues if i.startswith("warning") and "emotionAffectors[1].emotionType" in i], issues
    assert EmotionEvent.from_record(records[0]).affectors == {"Happy": pytest.approx(0.3)}


def test_event_file_may_hold_a_single_event(tmp_path: Path) -> None:
    events = _events(tmp_path, {"name": "Solo", "emotionAffectors": [{"emotionType": "Calm", "value": -0.12}]})
    assert events == [EmotionEvent("Solo", {"Calm": -0.12})]


def test_decay_graph_validation_in_constructor():
    with pytest.raises(MoodConfigError):
        DecayGraph("ValueSlope", Graph([(0, -0.1)]))
    with pytest.raises(MoodConfigError):
        DecayGraph("Sideways", Graph([(0, 1)]))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- the real sample files

SAMPLE = Path(__file__).resolve().parents[1] / ".." / "shared" / "cozmo_resources_sample" / "cozmo_resources"
ENGINE = SAMPLE / "config" / "engine"
needs_sample = pytest.mark.skipif(not ENGINE.is_dir(), reason=f"real resource sample not present at {ENGINE}")


def _sample_config() -> MoodConfig:
    sink = L.IssueSink()
    doc = L.read_document(ENGINE / "mood_config.json", SAMPLE, sink)
    record = L.load_mood_config(doc, sink) if doc is not None else None
    assert record is not None and sink.issues == [], sink.issues
    return MoodConfig.from_record(record, "mood_config.json")


def _sample_events() -> tuple[list[EmotionEvent], list[str]]:
    events: list[EmotionEvent] = []
    unreadable: list[str] = []
    for path in sorted((ENGINE / "emotionevents").glob("*.json")):
        sink = L.IssueSink()
        doc = L.read_document(path, SAMPLE, sink)
        if doc is None:
            unreadable.append(path.name)
            continue
        events.extend(EmotionEvent.from_record(r) for r in L.load_emotion_events(doc, sink))
        assert sink.issues == [], sink.issues
    return events, unreadable


@needs_sample
def test_real_mood_config_parses():
    config = _sample_config()
    assert set(config.decay_graphs) == {"default", "WantToPlay", "Social", "Confident"}
    assert config.decay_graphs["default"].graph == DEFAULT_DECAY
    assert config.decay_graphs["Social"].graph == SOCIAL_DECAY
    assert all(d.kind == "TimeRatio" for d in config.decay_graphs.values())
    assert config.default_repetition_penalty == Graph([(0, 0), (30, 1)])
    assert config.action_result_events["FLIP_BLOCK"] == {"SUCCESS": "FlipBlockSucceeded"}
    # the entry followed by a // comment in the file
    assert config.action_result_events["PICK_AND_PLACE_INCOMPLETE"]["SUCCESS"] == "PickupSucceeded"


@needs_sample
def test_real_emotion_events_parse():
    events, unreadable = _sample_events()
    # motion_react.json is malformed at the source (an extra closing brace)
    assert set(unreadable) <= {"motion_react.json"}
    names = {e.name for e in events}
    assert {"CliffDetected", "KeepawayPounce", "PickupSucceeded", "FlipBlockSucceeded"} <= names
    pounce = next(e for e in events if e.name == "KeepawayPounce")
    assert pounce.affectors == {"Happy": 0.1, "Stimulated": 0.2, "Social": 0.2}
    assert pounce.repetition_penalty == Graph([(0, 0.5), (5, 0.5), (20, 1)])


@needs_sample
def test_real_files_drive_a_mood():
    events, _ = _sample_events()
    mood = Mood(_sample_config(), events)
    assert set(COZMO_TYPES) <= set(mood.emotion_types)

    assert mood.trigger_event("CliffDetected", now=0.0)
    assert mood.value("Happy") == pytest.approx(-0.12)
    assert mood.value("Brave") == pytest.approx(-0.12)
    # again 15 s later: the file's default penalty (0,0)(30,1) gives 15/30 = 0.5 -> -0.12 - 0.06
    assert mood.trigger_event("CliffDetected", now=15.0)
    assert mood.value("Calm") == pytest.approx(-0.18)

    # KeepawayPounce has its own penalty: 2 s after the first firing it is 0.5, not 2/30
    mood.trigger_event("KeepawayPounce", now=20.0)
    mood.trigger_event("KeepawayPounce", now=22.0)
    assert mood.value("Social") == pytest.approx(0.2 + 0.1)

    # action table: PICKUP_OBJECT_LOW / SUCCESS -> PickupSucceeded (Happy +0.08, Confident +0.2)
    assert mood.action_result("PICKUP_OBJECT_LOW", "SUCCESS", now=22.0)
    assert mood.value("Confident") == pytest.approx(0.2)
    assert mood.value("Happy") == pytest.approx(-0.18 + 0.1 + 0.05 + 0.08)

    # Social decays on its own graph from the last reset (22 s, the +0.1 add is > 0.05):
    # 0.3 * s(40) / s(0) = 0.3 * 0.4 = 0.12
    run(mood, 40.0, 0.5)
    assert mood.value("Social") == pytest.approx(0.12)
    assert mood.simple_mood() in set(SimpleMood)


@needs_sample
def test_the_daemons_resource_set_gives_the_same_mood_as_the_files_one_by_one():
    from brain.assets import load_resource_set
    from brain.engine import _mood_config, mood_event_records

    rs = load_resource_set([SAMPLE.parent], index_clips=False)
    assert _mood_config(rs) == _sample_config()
    events = {}
    for event in _sample_events()[0]:
        events.setdefault(event.name, event)  # the first definition wins, as in the resource set
    assert {r.name: EmotionEvent.from_record(r) for r in mood_event_records(rs)} == events
