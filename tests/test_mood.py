"""Tests for brain.mood, with values computed by hand from the graphs (arithmetic in comments).

Graphs used throughout:
  default  g: (0,1) (10,1) (30,0.9) (75,0.6) (150,0)
  Social   s: (0,1) (10,1) (20,0.6) (60,0.2) (100,0)
  default repetition penalty p: (0,0) (0.5,0) (10,1)
"""

from __future__ import annotations

import json
import logging
import math

import pytest

from brain.graph import Graph
from brain.mood import (
    DecayGraph,
    EmotionEvent,
    Mood,
    MoodConfig,
    SimpleMood,
    SimpleMoodRule,
)

DEFAULT_DECAY = Graph([(0, 1), (10, 1), (30, 0.9), (75, 0.6), (150, 0)])
SOCIAL_DECAY = Graph([(0, 1), (10, 1), (20, 0.6), (60, 0.2), (100, 0)])

COZMO_TYPES = ["WantToPlay", "Social", "Confident", "Excited", "Happy", "Calm", "Brave"]


def make_config(**kwargs: object) -> MoodConfig:
    decay = {
        "default": DecayGraph("TimeRatio", DEFAULT_DECAY),
        "Social": DecayGraph("TimeRatio", SOCIAL_DECAY),
        "WantToPlay": DecayGraph("TimeRatio", Graph([(0, 1)])),
    }
    decay.update(kwargs.pop("decay", {}))  # type: ignore[arg-type]
    kwargs.setdefault("emotion_types", COZMO_TYPES)
    return MoodConfig(decay_graphs=decay, **kwargs)  # type: ignore[arg-type]


def make_mood(events: list[EmotionEvent] | None = None, **kwargs: object) -> Mood:
    return Mood(make_config(**kwargs), events or [])


def run(mood: Mood, seconds: float, step: float) -> None:
    """Advance by *seconds* in steps of *step* (the last step may be shorter)."""
    n = int(round(seconds / step))
    for _ in range(n):
        mood.update(step)
    rest = seconds - n * step
    if rest > 1e-12:
        mood.update(rest)


# --------------------------------------------------------------------------- TimeRatio decay


def test_value_after_25s_of_small_steps_matches_graph_ratio():
    mood = make_mood()
    mood.add("Happy", 0.8, now=0.0)  # big add from 0 -> decay clock reset to 0
    run(mood, 25.0, 0.1)
    # 0.8 * g(25) / g(0) = 0.8 * 0.925 / 1 = 0.74     (g(25) = 1 - 0.1 * 15/20)
    assert mood.value("Happy") == pytest.approx(0.74, abs=1e-9)
    assert mood.seconds_decaying("Happy") == pytest.approx(25.0)


def test_flat_start_of_the_graph_keeps_value():
    mood = make_mood()
    mood.add("Happy", 0.8, now=0.0)
    run(mood, 10.0, 0.5)
    # g(10) / g(0) = 1 / 1
    assert mood.value("Happy") == pytest.approx(0.8)


def test_negative_values_decay_toward_zero_too():
    mood = make_mood()
    mood.add("Confident", -0.8, now=0.0)
    run(mood, 25.0, 1.0)
    # -0.8 * 0.925 = -0.74
    assert mood.value("Confident") == pytest.approx(-0.74)


def test_per_type_graph_social():
    mood = make_mood()
    mood.add("Social", 0.5, now=0.0)
    run(mood, 40.0, 1 / 30)
    # s(40) = 0.6 + (0.2 - 0.6) * (40 - 20) / (60 - 20) = 0.6 - 0.2 = 0.4 ; 0.5 * 0.4 / 1 = 0.2
    assert mood.value("Social") == pytest.approx(0.2, abs=1e-9)
    # Happy has no own graph and nothing happened to it
    assert mood.value("Happy") == 0.0


@pytest.mark.parametrize("steps", [[40.0], [0.1] * 400, [1.0] * 40, [7.0, 0.5, 12.5, 3.0, 17.0]])
def test_decay_is_independent_of_step_size(steps):
    mood = make_mood()
    mood.add("Social", 0.5, now=0.0)
    mood.add("Happy", 0.5, now=0.0)
    for dt in steps:
        mood.update(dt)
    # Social: 0.5 * s(40) = 0.2 ; Happy: 0.5 * g(40) = 0.5 * (0.9 - 0.3 * 10/45) = 0.5 * 0.833333… = 0.416666…
    assert mood.value("Social") == pytest.approx(0.2, abs=1e-9)
    assert mood.value("Happy") == pytest.approx(0.5 * (0.9 - 0.3 * 10 / 45), abs=1e-9)


def test_graph_reaching_zero_zeroes_the_value_and_keeps_it_zero():
    mood = make_mood()
    mood.add("Happy", 0.9, now=0.0)
    run(mood, 160.0, 1.0)  # g(150) = 0
    assert mood.value("Happy") == 0.0
    mood.update(10.0)
    assert mood.value("Happy") == 0.0


def test_flat_graph_never_decays():
    mood = make_mood()
    mood.add("WantToPlay", 0.6, now=0.0)
    run(mood, 3600.0, 10.0)
    assert mood.value("WantToPlay") == pytest.approx(0.6)


def test_update_rejects_negative_dt():
    mood = make_mood()
    with pytest.raises(ValueError):
        mood.update(-0.1)


# --------------------------------------------------------------------------- decay clock reset rule


def _mood_at_clock_20(value: float) -> Mood:
    mood = make_mood()
    mood.add("Happy", value, now=0.0)
    run(mood, 20.0, 1.0)
    return mood


def test_small_add_does_not_reset_decay_clock():
    mood = _mood_at_clock_20(0.5)
    # 0.5 * g(20) = 0.5 * 0.95 = 0.475
    assert mood.value("Happy") == pytest.approx(0.475)
    mood.add("Happy", 0.04, now=20.0)  # |0.04| <= 0.05 -> no reset
    assert mood.seconds_decaying("Happy") == pytest.approx(20.0)
    mood.update(10.0)
    # (0.475 + 0.04) * g(30) / g(20) = 0.515 * 0.9 / 0.95 = 0.487894736…
    assert mood.value("Happy") == pytest.approx(0.515 * 0.9 / 0.95)


def test_add_of_exactly_threshold_does_not_reset():
    mood = _mood_at_clock_20(0.5)
    mood.add("Happy", 0.05, now=20.0)
    assert mood.seconds_decaying("Happy") == pytest.approx(20.0)


def test_big_add_away_from_zero_resets_decay_clock():
    mood = _mood_at_clock_20(0.5)
    mood.add("Happy", 0.1, now=20.0)  # 0.475 -> 0.575, away from zero, |0.1| > 0.05
    assert mood.seconds_decaying("Happy") == 0.0
    mood.update(10.0)
    # clock restarted: g(10) / g(0) = 1 -> unchanged
    assert mood.value("Happy") == pytest.approx(0.575)


def test_big_negative_add_on_negative_value_resets():
    mood = make_mood()
    mood.add("Happy", -0.5, now=0.0)
    run(mood, 20.0, 1.0)
    mood.add("Happy", -0.2, now=20.0)
    assert mood.seconds_decaying("Happy") == 0.0


def test_big_add_toward_zero_without_crossing_does_not_reset():
    mood = _mood_at_clock_20(0.5)
    mood.add("Happy", -0.2, now=20.0)  # 0.475 -> 0.275: toward zero, same side
    assert mood.seconds_decaying("Happy") == pytest.approx(20.0)
    mood.update(10.0)
    # 0.275 * 0.9 / 0.95
    assert mood.value("Happy") == pytest.approx(0.275 * 0.9 / 0.95)


def test_crossing_zero_resets_even_for_a_small_add():
    mood = _mood_at_clock_20(0.03)
    # 0.03 * 0.95 = 0.0285 ; add -0.04 -> -0.0115 (crossed zero)
    mood.add("Happy", -0.04, now=20.0)
    assert mood.value("Happy") == pytest.approx(-0.0115)
    assert mood.seconds_decaying("Happy") == 0.0


def test_the_decay_clock_runs_on_while_the_value_is_zero():
    """At rest the clock keeps counting: a small nudge long after (no reset) decays as late in
    the graph as the clock says, to nothing at once past its end."""
    mood = make_mood()
    run(mood, 200.0, 10.0)  # Happy at 0 all along
    assert mood.seconds_decaying("Happy") == pytest.approx(200.0)
    mood.add("Happy", 0.04, now=200.0)  # |0.04| <= 0.05: the clock is not reset
    mood.update(1.0)
    assert mood.value("Happy") == 0.0  # g(201) is 0


def test_a_big_add_from_exactly_zero_resets_the_clock():
    """Zero counts as the positive side: a big rise from 0 moves away from zero and restarts the
    clock, so it starts at the flat beginning of the graph."""
    mood = make_mood()
    run(mood, 200.0, 10.0)
    mood.add("Happy", 0.1, now=200.0)
    assert mood.seconds_decaying("Happy") == 0.0
    mood.update(10.0)
    assert mood.value("Happy") == pytest.approx(0.1)  # g(10) / g(0) = 1


def test_clamping_does_not_prevent_reset():
    mood = make_mood()
    mood.add("Happy", 1.0, now=0.0)
    run(mood, 5.0, 1.0)
    mood.add("Happy", 0.5, now=5.0)  # clamped at 1.0, still a reset
    assert mood.value("Happy") == 1.0
    assert mood.seconds_decaying("Happy") == 0.0


# --------------------------------------------------------------------------- ValueSlope decay


def test_value_slope_constant_rate():
    # rate 0.3 per minute everywhere
    mood = make_mood(decay={"Excited": DecayGraph("ValueSlope", Graph([(0, 0.3), (1, 0.3)]))})
    mood.add("Excited", 0.9, now=0.0)
    run(mood, 60.0, 0.1)
    # 0.9 - 0.3 * 1 min = 0.6
    assert mood.value("Excited") == pytest.approx(0.6, abs=1e-9)
    run(mood, 180.0, 1.0)
    # would be 0.6 - 0.9 = -0.3, but never crosses zero
    assert mood.value("Excited") == 0.0


def test_value_slope_proportional_rate_is_exponential_and_step_independent():
    # rate = 0.6 * v per minute  ->  v(t) = v0 * exp(-0.6 * t_min)
    graph = DecayGraph("ValueSlope", Graph([(0, 0), (1, 0.6)]))
    one = make_mood(decay={"Excited": graph})
    many = make_mood(decay={"Excited": graph})
    for m in (one, many):
        m.add("Excited", 0.5, now=0.0)
    one.update(60.0)
    run(many, 60.0, 1 / 30)
    # 0.5 * exp(-0.6) = 0.5 * 0.548811636… = 0.274405818…
    assert one.value("Excited") == pytest.approx(0.5 * math.exp(-0.6), rel=1e-12)
    assert many.value("Excited") == pytest.approx(one.value("Excited"), rel=1e-9)


def test_value_slope_piecewise_graph():
    # rate r(v) = 0.1 for v <= 0.5, r(v) = 0.1 + (v - 0.5) for 0.5..1 (per minute)
    graph = DecayGraph("ValueSlope", Graph([(0, 0.1), (0.5, 0.1), (1.0, 0.6)]))
    mood = make_mood(decay={"Excited": graph})
    mood.add("Excited", 1.0, now=0.0)
    # From 1.0 to 0.5: dd/dt = 0.6 - d  ->  d(t) = 0.6 (1 - e^-t); d = 0.5 at t = ln 6 min
    mood.update(60.0 * math.log(6.0))
    assert mood.value("Excited") == pytest.approx(0.5, abs=1e-9)
    # then constant 0.1 / min: 2 min more -> 0.5 - 0.2 = 0.3
    mood.update(120.0)
    assert mood.value("Excited") == pytest.approx(0.3, abs=1e-9)


def test_value_slope_negative_value_moves_up_toward_zero():
    # graph only has x >= 0; below it the first y (0.1/min) applies, as a rate toward zero
    graph = DecayGraph("ValueSlope", Graph([(0, 0.1), (0.5, 0.1), (1.0, 0.6)]))
    mood = make_mood(decay={"Excited": graph})
    mood.add("Excited", -0.4, now=0.0)
    mood.update(60.0)
    # -0.4 + 0.1 = -0.3
    assert mood.value("Excited") == pytest.approx(-0.3)


def test_value_slope_stops_where_rate_is_zero():
    # rate 0 at v = 0.2 and below -> a value of 0.2 stays
    graph = DecayGraph("ValueSlope", Graph([(0.2, 0.0), (1.0, 0.8)]))
    mood = make_mood(decay={"Excited": graph})
    mood.add("Excited", 0.2, now=0.0)
    mood.update(600.0)
    assert mood.value("Excited") == pytest.approx(0.2)


# --------------------------------------------------------------------------- events and penalties

PET = EmotionEvent("Pet", {"Happy": 0.2, "Social": 0.1})


def test_first_firing_is_full_strength():
    mood = make_mood([PET])
    assert mood.trigger_event("Pet", now=100.0)
    assert mood.value("Happy") == pytest.approx(0.2)
    assert mood.value("Social") == pytest.approx(0.1)


def test_same_event_within_half_a_second_does_nothing():
    mood = make_mood([PET])
    mood.trigger_event("Pet", now=100.0)
    assert mood.trigger_event("Pet", now=100.3)  # p(0.3) = 0
    assert mood.value("Happy") == pytest.approx(0.2)


def test_after_five_seconds_about_half():
    mood = make_mood([PET])
    mood.trigger_event("Pet", now=100.0)
    mood.trigger_event("Pet", now=105.0)
    # p(5) = (5 - 0.5) / (10 - 0.5) = 4.5 / 9.5 = 0.473684… ; 0.2 + 0.2 * 0.473684 = 0.294737
    assert mood.value("Happy") == pytest.approx(0.2 + 0.2 * 4.5 / 9.5)


def test_full_strength_after_ten_seconds():
    mood = make_mood([PET])
    mood.trigger_event("Pet", now=100.0)
    mood.trigger_event("Pet", now=110.0)  # p(10) = 1
    assert mood.value("Happy") == pytest.approx(0.4)


def test_a_penalised_firing_still_restarts_the_timer():
    mood = make_mood([PET])
    mood.trigger_event("Pet", now=100.0)
    mood.trigger_event("Pet", now=100.4)  # nothing, timer now 100.4
    mood.trigger_event("Pet", now=105.4)  # 5 s since the last firing: p(5) = 4.5/9.5
    assert mood.value("Happy") == pytest.approx(0.2 + 0.2 * 4.5 / 9.5)


def test_per_event_penalty_overrides_default():
    pounce = EmotionEvent("Pounce", {"Happy": 0.1}, Graph([(0, 0.5), (5, 0.5), (20, 1)]))
    mood = make_mood([pounce])
    mood.trigger_event("Pounce", now=0.0)
    mood.trigger_event("Pounce", now=0.2)  # own graph: 0.5 (default would give 0)
    assert mood.value("Happy") == pytest.approx(0.15)
    mood.trigger_event("Pounce", now=12.7)
    # 12.5 s later: 0.5 + 0.5 * (12.5 - 5) / 15 = 0.75 -> 0.15 + 0.075
    assert mood.value("Happy") == pytest.approx(0.225)


def test_config_default_penalty_is_used_when_given():
    mood = make_mood([PET], default_repetition_penalty=Graph([(0, 0), (30, 1)]))
    mood.trigger_event("Pet", now=0.0)
    mood.trigger_event("Pet", now=15.0)  # 15 / 30 = 0.5
    assert mood.value("Happy") == pytest.approx(0.3)


def test_events_are_independent():
    other = EmotionEvent("Other", {"Happy": 0.1})
    mood = make_mood([PET, other])
    mood.trigger_event("Pet", now=0.0)
    mood.trigger_event("Other", now=0.1)  # first firing of Other: full
    assert mood.value("Happy") == pytest.approx(0.3)


def test_unknown_event_warns_and_returns_false(caplog):
    mood = make_mood([PET])
    with caplog.at_level(logging.WARNING, logger="brain.mood"):
        assert mood.trigger_event("NoSuchEvent", now=1.0) is False
    assert "NoSuchEvent" in caplog.text
    assert all(v == 0.0 for v in mood.values().values())


def test_unknown_emotion_type_in_add_is_ignored(caplog):
    mood = make_mood()
    with caplog.at_level(logging.WARNING, logger="brain.mood"):
        assert mood.add("Sleepy", 0.5, now=0.0) is False
    assert "Sleepy" in caplog.text
    assert mood.value("Sleepy") == 0.0


def test_event_types_join_the_mood():
    mood = make_mood([EmotionEvent("Zap", {"Stimulated": 0.4})])
    assert "Stimulated" in mood.emotion_types
    mood.trigger_event("Zap", now=0.0)
    assert mood.value("Stimulated") == pytest.approx(0.4)


def test_action_result_fires_mapped_event_with_alias_spelling():
    fail = EmotionEvent("DriveFailed", {"Confident": -0.1})
    mood = make_mood([PET, fail], action_result_events={
        "DRIVE_TO_POSE": {"FAILURE_RETRY": "DriveFailed"}, "PET": {"SUCCESS": "Pet"}})
    assert mood.action_result("PET", "SUCCESS", now=0.0)
    assert mood.value("Happy") == pytest.approx(0.2)
    assert mood.action_result("DRIVE_TO_POSE", "RETRY", now=0.0)  # newer spelling of FAILURE_RETRY
    assert mood.value("Confident") == pytest.approx(-0.1)
    assert mood.action_result("DRIVE_TO_POSE", "SUCCESS", now=0.0) is False
    assert mood.action_result("NOPE", "SUCCESS", now=0.0) is False


# --------------------------------------------------------------------------- ranges, snapshot


def test_values_clamp_to_default_range():
    mood = make_mood()
    mood.add("Happy", 0.8, now=0.0)
    mood.add("Happy", 0.8, now=0.0)
    assert mood.value("Happy") == 1.0
    mood.add("Happy", -5.0, now=0.0)
    assert mood.value("Happy") == -1.0


def test_values_clamp_to_configured_range():
    mood = make_mood(value_ranges={"Stimulated": (0.0, 1.0)}, emotion_types=["Stimulated", "Confident"])
    mood.add("Stimulated", -0.5, now=0.0)
    assert mood.value("Stimulated") == 0.0
    mood.add("Stimulated", 1.5, now=0.0)
    assert mood.value("Stimulated") == 1.0


def test_initial_value_is_clamped_into_a_range_without_zero():
    mood = make_mood(value_ranges={"Calm": (0.25, 1.0)})
    assert mood.value("Calm") == 0.25


def test_snapshot_is_json_ready():
    mood = make_mood([PET])
    mood.trigger_event("Pet", now=3.0)
    mood.update(1.0)
    snap = mood.snapshot()
    json.dumps(snap)
    assert snap["emotions"]["Happy"] == pytest.approx(0.2)
    assert snap["simple_mood"] in {m.value for m in SimpleMood}
    assert snap["last_events"] == {"Pet": 3.0}
    assert snap["seconds_decaying"]["Happy"] == pytest.approx(1.0)


def test_two_moods_do_not_share_state():
    config = make_config()
    a, b = Mood(config, [PET]), Mood(config, [PET])
    a.trigger_event("Pet", now=0.0)
    assert b.value("Happy") == 0.0
    b.trigger_event("Pet", now=0.1)  # b's first firing: full strength
    assert b.value("Happy") == pytest.approx(0.2)


# --------------------------------------------------------------------------- simple mood


@pytest.mark.parametrize(
    ("stim", "conf", "expected"),
    [
        (0.2, -0.9, SimpleMood.LOW_STIM),  # low stimulation wins over frustration
        (0.21, -0.3, SimpleMood.FRUSTRATED),
        (0.21, -0.29, SimpleMood.MED_STIM),  # strictly below -0.29 is frustrated
        (0.8, 0.0, SimpleMood.MED_STIM),
        (0.81, 0.0, SimpleMood.HIGH_STIM),
        (0.9, -0.5, SimpleMood.FRUSTRATED),
    ],
)
def test_simple_mood_vector_rule(stim, conf, expected):
    mood = Mood(MoodConfig(emotion_types=["Stimulated", "Confident"]))
    mood.set_value("Stimulated", stim, now=0.0)
    mood.set_value("Confident", conf, now=0.0)
    assert mood.simple_mood() is expected
    assert mood.simple_mood() == expected.value


def test_simple_mood_on_cozmo_types_uses_excited():
    mood = make_mood()
    mood.set_value("WantToPlay", 1.0, now=0.0)  # ignored by the default rule
    assert mood.simple_mood() is SimpleMood.LOW_STIM
    mood.set_value("Excited", 0.5, now=0.0)
    assert mood.simple_mood() is SimpleMood.MED_STIM
    mood.set_value("Confident", -0.5, now=0.0)
    assert mood.simple_mood() is SimpleMood.FRUSTRATED


def test_simple_mood_rule_is_configurable():
    rule = SimpleMoodRule(stimulation=(("Excited", "WantToPlay"),))
    mood = Mood(make_config(), simple_mood_rule=rule)
    mood.set_value("WantToPlay", 0.6, now=0.0)
    mood.set_value("Excited", 0.2, now=0.0)
    # mean(0.2, 0.6) = 0.4 -> MedStim
    assert mood.stimulation() == pytest.approx(0.4)
    assert mood.simple_mood() is SimpleMood.MED_STIM


def test_simple_mood_without_any_source_is_low_stim(caplog):
    with caplog.at_level(logging.WARNING, logger="brain.mood"):
        mood = Mood(MoodConfig(emotion_types=["Happy"]))
    assert mood.simple_mood() is SimpleMood.LOW_STIM
    assert "stimulation" in caplog.text
