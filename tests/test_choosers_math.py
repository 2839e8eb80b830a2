"""Tests for brain.choosers_math with scripted and seeded random sources."""

from __future__ import annotations

import random

import pytest

from brain.choosers_math import (
    ChoiceError,
    ScoredCandidate,
    candidate_score,
    choose_scored,
    choose_with_cooldown,
    mood_score,
    seconds_until_ready,
    weighted_choice,
    weighted_index,
)
from brain.graph import Graph


class Script:
    """A random source that returns the given numbers in order (and counts the draws)."""

    def __init__(self, *numbers: float) -> None:
        self.numbers = list(numbers)
        self.draws = 0

    def random(self) -> float:
        value = self.numbers[self.draws]
        self.draws += 1
        return value


# --------------------------------------------------------------------------- weighted choice

WEIGHTS = [1, 3, 0, 6]  # total 10: [0,1) -> 0, [1,4) -> 1, [4,10) -> 3


@pytest.mark.parametrize(
    ("u", "expected"),
    [(0.0, 0), (0.05, 0), (0.1, 1), (0.39, 1), (0.4, 3), (0.999999, 3)],
)
def test_weighted_index_boundaries(u, expected):
    # target = u * 10
    assert weighted_index(WEIGHTS, Script(u)) == expected


def test_weighted_choice_returns_the_item():
    assert weighted_choice(["a", "b", "c", "d"], WEIGHTS, Script(0.2)) == "b"  # 2.0 in [1,4)


def test_weighted_index_with_seeded_random():
    # random.Random(42).random() == 0.6394267984578837 -> 0.639 * 2 = 1.28 -> index 1
    assert weighted_index([1, 1], random.Random(42)) == 1
    # 0.639 * 10 = 6.39 -> index 3 of WEIGHTS
    assert weighted_index(WEIGHTS, random.Random(42)) == 3


def test_weighted_frequencies_follow_weights():
    rng = random.Random(1234)
    counts = [0, 0, 0, 0]
    for _ in range(10_000):
        counts[weighted_index(WEIGHTS, rng)] += 1  # type: ignore[index]
    assert counts[2] == 0
    for count, share in zip(counts, [0.1, 0.3, 0.0, 0.6], strict=True):
        assert abs(count / 10_000 - share) < 0.02


def test_nothing_positive_returns_none_without_drawing():
    rng = Script()
    assert weighted_index([0, 0], rng) is None
    assert weighted_choice([], [], rng) is None
    assert rng.draws == 0


@pytest.mark.parametrize("weights", [[1, -1], [float("nan")], [float("inf")], [True]])
def test_bad_weights_raise(weights):
    with pytest.raises(ChoiceError):
        weighted_index(weights, Script(0.5))


def test_length_mismatch_raises():
    with pytest.raises(ChoiceError):
        weighted_choice(["a", "b"], [1], Script(0.5))


# --------------------------------------------------------------------------- cooldowns


def test_seconds_until_ready():
    assert seconds_until_ready(10, None, 100) == 0.0
    assert seconds_until_ready(10, 95, 100) == 5.0
    assert seconds_until_ready(10, 80, 100) == 0.0
    assert seconds_until_ready(0, 100, 100) == 0.0


def test_only_ready_items_are_drawn():
    # waits at t=100: [0 (never ran), 5 - 2 = 3, 30 - 5 = 25] -> only index 0 is ready
    rng = Script(0.99)
    assert choose_with_cooldown([1, 1, 2], [10, 5, 30], [None, 98, 95], 100, rng) == 0
    assert rng.draws == 1


def test_ready_items_drawn_by_weight():
    # at t=103 indexes 0 and 1 are ready, weights [1, 1]: 0.6 * 2 = 1.2 -> index 1
    assert choose_with_cooldown([1, 1, 2], [10, 5, 30], [None, 98, 95], 103, Script(0.6)) == 1
    assert choose_with_cooldown([1, 1, 2], [10, 5, 30], [None, 98, 95], 103, Script(0.4)) == 0


def test_all_cooling_down_picks_closest_to_ready_without_drawing():
    # waits: 10 - 5 = 5, 5 - 2 = 3, 30 - 10 = 20 -> index 1
    rng = Script()
    assert choose_with_cooldown([5, 1, 9], [10, 5, 30], [95, 98, 90], 100, rng) == 1
    assert rng.draws == 0


def test_closest_to_ready_tie_goes_to_higher_weight_then_lower_index():
    assert choose_with_cooldown([1, 2], [10, 10], [95, 95], 100, Script()) == 1
    assert choose_with_cooldown([2, 2], [10, 10], [95, 95], 100, Script()) == 0


def test_zero_weight_is_never_chosen_even_when_ready():
    # index 0 is ready but disabled; index 1 waits 9 s and is still the answer
    assert choose_with_cooldown([0, 1], [0, 10], [None, 99], 100, Script(0.0)) == 1
    assert choose_with_cooldown([0, 0], [0, 10], [None, 99], 100, Script()) is None


def test_cooldown_inputs_are_checked():
    with pytest.raises(ChoiceError):
        choose_with_cooldown([1, 1], [10], [None, None], 0, Script())
    with pytest.raises(ChoiceError):
        choose_with_cooldown([1], [10], [None, None], 0, Script())
    with pytest.raises(ChoiceError):
        choose_with_cooldown([1], [-1], [None], 0, Script())


# --------------------------------------------------------------------------- mood scoring

HAPPY_SCORE = Graph([(-1, 0), (0, 0.5), (1, 1)])
SOCIAL_SCORE = Graph([(0, 0.2), (1, 1)])
SCORERS = [("Happy", HAPPY_SCORE), ("Social", SOCIAL_SCORE)]


def test_mood_score_is_the_average():
    # Happy 0.5 -> 0.5 + 0.5 * 0.5 = 0.75 ; Social 0.5 -> 0.2 + 0.8 * 0.5 = 0.6 ; mean 0.675
    assert mood_score(SCORERS, {"Happy": 0.5, "Social": 0.5}) == pytest.approx(0.675)


def test_any_zero_vetoes():
    # Happy -1 -> 0 vetoes although Social would give 1.0
    assert mood_score(SCORERS, {"Happy": -1.0, "Social": 1.0}) == 0.0


def test_no_scorers_scores_zero():
    assert mood_score([], {"Happy": 1.0}) == 0.0


def test_unknown_emotion_in_scorer_raises():
    with pytest.raises(ChoiceError, match="Social"):
        mood_score(SCORERS, {"Happy": 0.0})


def test_candidate_score_applies_repetition_penalty():
    penalty = Graph([(0, 0), (60, 1)])
    # 0.4 * (30 / 60) = 0.2
    assert candidate_score(ScoredCandidate(flat_score=0.4, repetition_penalty=penalty, seconds_since_run=30),
                           {}) == pytest.approx(0.2)
    # never ran: no penalty
    assert candidate_score(ScoredCandidate(flat_score=0.4, repetition_penalty=penalty), {}) == 0.4
    # mood score 0.675 * (6 / 60) = 0.0675
    c = ScoredCandidate(scorers=SCORERS, repetition_penalty=penalty, seconds_since_run=6)
    assert candidate_score(c, {"Happy": 0.5, "Social": 0.5}) == pytest.approx(0.0675)


A = ScoredCandidate(flat_score=0.5)
B = ScoredCandidate(flat_score=0.55)
VETOED = ScoredCandidate(scorers=[("Happy", HAPPY_SCORE)])  # Happy = -1 below -> 0
VALUES = {"Happy": -1.0}


def test_noise_can_reorder_close_scores():
    # A: 0.5 + 0.9 * 0.1 = 0.59 ; B: 0.55 + 0.1 * 0.1 = 0.56 -> A
    rng = Script(0.9, 0.1)
    assert choose_scored([A, B, VETOED], VALUES, rng) == 0
    assert rng.draws == 2  # the vetoed candidate draws nothing
    # A: 0.51 ; B: 0.64 -> B
    assert choose_scored([A, B, VETOED], VALUES, Script(0.1, 0.9)) == 1


def test_equal_totals_keep_the_first():
    # A: 0.5 + 0.05 = 0.55 ; A2: 0.5 + 0.05 = 0.55
    assert choose_scored([A, A], VALUES, Script(0.5, 0.5)) == 0


def test_running_candidate_gets_full_noise_and_bonus():
    running = ScoredCandidate(flat_score=0.5, running_for=5.0)
    bonus = Graph([(0, 0.2), (10, 0)])
    # running A: 0.5 + bonus(5) = 0.1 + noise 0.1 = 0.7 ; B at most 0.55 + 0.0999 < 0.7
    rng = Script(0.999)
    assert choose_scored([running, B], VALUES, rng, running_bonus=bonus) == 0
    assert rng.draws == 1  # only B draws
    # without the bonus: A 0.6 vs B 0.55 + 0.0999 = 0.6499 -> B
    assert choose_scored([running, B], VALUES, Script(0.999)) == 1


def test_negative_bonus_cannot_veto_the_running_candidate():
    running = ScoredCandidate(flat_score=0.05, running_for=100.0)
    assert choose_scored([running], VALUES, Script(), running_bonus=Graph([(0, -1)])) == 0


def test_all_vetoed_returns_none():
    penalty = Graph([(0, 0), (10, 1)])
    penalised = ScoredCandidate(flat_score=0.9, repetition_penalty=penalty, seconds_since_run=0)
    assert choose_scored([VETOED, penalised], VALUES, Script()) is None
    assert choose_scored([], VALUES, Script()) is None


def test_noise_share_matches_hand_computed_probability():
    # A beats B only when 0.1 * (uA - uB) > 0.05, i.e. uA - uB > 0.5: probability 0.5^2 / 2 = 0.125
    rng = random.Random(7)
    wins = sum(choose_scored([A, B], VALUES, rng) == 0 for _ in range(8000))
    assert abs(wins / 8000 - 0.125) < 0.02


def test_noise_must_be_sane():
    with pytest.raises(ChoiceError):
        choose_scored([A], VALUES, Script(0.5), noise=-0.1)
