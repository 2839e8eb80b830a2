"""The arithmetic of choosing: weighted picks, cooldowns and Anki-style mood scoring.

Pure functions with the random source passed in, so the behaviour-tree choosers, the
animation-group picker and the activity selector share one tested implementation, and a
seeded ``random.Random`` makes every choice reproducible.

Facts this follows (Anki's engine data and choosers):

* Selection/random choosers pick by weight among members whose cooldown has passed; if all
  are cooling down, the one closest to ready.
* Scoring choosers score each candidate as the average of its per-emotion score graphs at the
  current mood values; any graph reading 0 vetoes the candidate. The score is multiplied by a
  repetition penalty (a graph of seconds since the candidate last ran). Non-running
  candidates get uniform noise in ``[0, noise)`` added (Anki used 0.1); the running one gets
  the full ``noise`` plus an optional "keep running" bonus graph of how long it has run, so
  noise alone does not make it flap. The highest total above 0 wins; nothing above 0 → None.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from brain.graph import Graph

__all__ = [
    "ChoiceError",
    "RandomSource",
    "ScoredCandidate",
    "candidate_score",
    "choose_scored",
    "choose_with_cooldown",
    "mood_score",
    "seconds_until_ready",
    "weighted_choice",
    "weighted_index",
]

T = TypeVar("T")

#: Anki's scoring-chooser noise: up to +0.1 on scores that mostly live in [0, 1].
DEFAULT_SCORE_NOISE = 0.1


class ChoiceError(ValueError):
    """Inputs to a choice are inconsistent (length mismatch, negative or non-finite weights)."""


class RandomSource(Protocol):
    """Anything with ``random() -> float`` in [0, 1), e.g. ``random.Random(seed)``."""

    def random(self) -> float: ...


def _check_weights(weights: Sequence[float], n: int, what: str = "weights") -> None:
    if len(weights) != n:
        raise ChoiceError(f"{what}: expected {n} values, got {len(weights)}")
    for i, w in enumerate(weights):
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or w < 0:
            raise ChoiceError(f"{what}[{i}]: expected a finite number >= 0, got {w!r}")


def weighted_index(weights: Sequence[float], rng: RandomSource) -> int | None:
    """Index picked with probability proportional to its weight; None if no weight is > 0.

    Draws exactly one ``rng.random()`` when there is something to pick.
    """
    _check_weights(weights, len(weights))
    total = math.fsum(w for w in weights if w > 0)
    if total <= 0:
        return None
    target = rng.random() * total
    running = 0.0
    last = None
    for i, w in enumerate(weights):
        if w <= 0:
            continue
        running += w
        last = i
        if target < running:
            return i
    return last  # only reached through float rounding at the very top of the range


def weighted_choice(items: Sequence[T], weights: Sequence[float], rng: RandomSource) -> T | None:
    """One of *items*, picked with probability proportional to *weights*; None if none is > 0."""
    _check_weights(weights, len(items))
    index = weighted_index(weights, rng)
    return None if index is None else items[index]


def seconds_until_ready(cooldown_s: float, last_run: float | None, now: float) -> float:
    """How long until something with this cooldown, last run at *last_run*, may run again (≥ 0)."""
    if last_run is None or cooldown_s <= 0:
        return 0.0
    return max(0.0, cooldown_s - (now - last_run))


def choose_with_cooldown(
    weights: Sequence[float],
    cooldowns_s: Sequence[float],
    last_run: Sequence[float | None],
    now: float,
    rng: RandomSource,
) -> int | None:
    """Pick an index by weight among those off cooldown; if none is, the one closest to ready.

    *last_run* holds each item's last start time (None: never ran). Items with weight 0 are
    never chosen. Ties for "closest to ready" go to the higher weight, then the lower index
    (no random draw is made in that case). Returns None if nothing has a positive weight.
    """
    n = len(weights)
    _check_weights(weights, n)
    _check_weights(cooldowns_s, n, "cooldowns_s")
    if len(last_run) != n:
        raise ChoiceError(f"last_run: expected {n} values, got {len(last_run)}")
    waits = [seconds_until_ready(c, t, now) for c, t in zip(cooldowns_s, last_run, strict=True)]
    ready = [w if waits[i] <= 0 else 0.0 for i, w in enumerate(weights)]
    if any(w > 0 for w in ready):
        return weighted_index(ready, rng)
    best: int | None = None
    for i, w in enumerate(weights):
        if w <= 0:
            continue
        if best is None or (waits[i], -w) < (waits[best], -weights[best]):
            best = i
    return best


def mood_score(scorers: Sequence[tuple[str, Graph]], values: Mapping[str, float]) -> float:
    """Average of each ``(emotion type, score graph)`` evaluated at that emotion's value.

    Any graph reading 0 (within 1e-6) vetoes: the result is 0. No scorers → 0, as in Anki's
    engine (a candidate with nothing to score on is never picked by mood). An emotion type
    missing from *values* raises ChoiceError: personalities are validated against the mood's
    types when they load, so this is a programming error.
    """
    if not scorers:
        return 0.0
    total = 0.0
    for emotion_type, graph in scorers:
        if emotion_type not in values:
            raise ChoiceError(f"mood score: unknown emotion type {emotion_type!r}")
        score = graph(values[emotion_type])
        if abs(score) <= 1e-6:
            return 0.0
        total += score
    return total / len(scorers)


@dataclass(frozen=True)
class ScoredCandidate:
    """One option of a scoring chooser, with the state the score depends on.

    *flat_score* replaces the mood score when given (Anki's ``flatScore``).
    *seconds_since_run* is None if it never ran (no repetition penalty then);
    *running_for* is None unless it is the one running now (seconds it has been running).
    """

    scorers: Sequence[tuple[str, Graph]] = ()
    flat_score: float | None = None
    repetition_penalty: Graph | None = None
    seconds_since_run: float | None = None
    running_for: float | None = None


def candidate_score(candidate: ScoredCandidate, values: Mapping[str, float]) -> float:
    """The candidate's score before noise: mood (or flat) score × repetition penalty."""
    base = candidate.flat_score if candidate.flat_score is not None else mood_score(candidate.scorers, values)
    if candidate.repetition_penalty is not None and candidate.seconds_since_run is not None:
        base *= candidate.repetition_penalty(max(0.0, candidate.seconds_since_run))
    return base


def choose_scored(
    candidates: Sequence[ScoredCandidate],
    values: Mapping[str, float],
    rng: RandomSource,
    *,
    noise: float = DEFAULT_SCORE_NOISE,
    running_bonus: Graph | None = None,
) -> int | None:
    """Index of the best-scoring candidate, or None if every score is 0 (vetoed or penalised).

    Candidates scoring > 0 are compared on ``score + noise``: non-running ones add
    ``rng.random() * noise`` (one draw each, in order), the running one adds ``noise`` plus
    ``running_bonus(running_for)`` (floored at 0.01 so a negative bonus cannot veto it).
    The first of equal totals wins.
    """
    if not (math.isfinite(noise) and noise >= 0):
        raise ChoiceError(f"noise: expected a finite number >= 0, got {noise!r}")
    best: int | None = None
    best_total = 0.0
    for i, candidate in enumerate(candidates):
        score = candidate_score(candidate, values)
        if score <= 0:
            continue
        if candidate.running_for is not None:
            bonus = running_bonus(candidate.running_for) if running_bonus is not None else 0.0
            total = max(score + bonus + noise, 0.01)
        else:
            total = score + rng.random() * noise
        if total > best_total:
            best, best_total = i, total
    return best
