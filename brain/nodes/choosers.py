"""Choosers: composites that decide which child runs, the way Anki's behaviour choosers did.

* :class:`StrictPriority` — the first child that does not fail; a higher one that becomes
  able to run interrupts a lower one (a py_trees Selector without memory).
* :class:`WeightedRandom` — one child picked by weight among those off cooldown; if all are
  cooling down, the one closest to ready (Anki's Selection chooser).
* :class:`Scoring` — one child picked by mood score: average of per-emotion score graphs,
  any zero vetoes, a repetition penalty on the time since it last ran, and noise (Anki's
  Scoring chooser). Optionally re-scores every tick, with a bonus that keeps the running
  child from flapping and a per-child running penalty on how long it has run.
* :class:`StartMoodGate` — lets its child start only while a mood score reaches a minimum
  (an activity's ``requiredMinStartMoodScore``).

The arithmetic lives in :mod:`brain.choosers_math`; these classes add the tree life: pick
when the chooser starts, run the picked child until it ends, remember when each one ran.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from py_trees.behaviour import Behaviour
from py_trees.common import Status
from py_trees.composites import Composite, Selector
from py_trees.decorators import Decorator

from brain.choosers_math import (
    DEFAULT_SCORE_NOISE,
    ScoredCandidate,
    candidate_score,
    choose_scored,
    choose_with_cooldown,
    mood_score,
    seconds_until_ready,
)
from brain.context import BrainContext
from brain.graph import Graph

__all__ = ["ScoreSpec", "Scoring", "StartMoodGate", "StrictPriority", "WeightedRandom"]


class StrictPriority(Selector):
    """The first child (in order) that does not fail runs; higher children are re-checked every tick."""

    def __init__(self, name: str, children: Sequence[Behaviour] | None = None) -> None:
        super().__init__(name, memory=False, children=list(children or []))


class _OneOf(Composite):
    """Base of choosers that run exactly one chosen child at a time."""

    def __init__(self, name: str, ctx: BrainContext, children: Sequence[Behaviour]) -> None:
        super().__init__(name, list(children))
        self.ctx = ctx
        self.last_run: list[float | None] = [None] * len(self.children)
        self.started_at = 0.0

    def choose(self) -> int | None:
        """Index of the child to start, or None when nothing may run."""
        raise NotImplementedError

    def on_resume(self, now: float, paused_s: float) -> None:
        """Time spent suspended under a reaction does not count as running."""
        self.started_at += paused_s

    def rechoose(self, running: int) -> int:
        """While ``running`` runs: the child that should run now (default: keep it)."""
        return running

    def _start(self, index: int) -> Behaviour:
        child = self.children[index]
        now = self.ctx.now()
        self.last_run[index] = now
        self.started_at = now
        self.current_child = child
        self.ctx.branch[self.name] = child.name
        return child

    def tick(self) -> Iterator[Behaviour]:
        if self.status is not Status.RUNNING:
            for child in self.children:
                if child.status is not Status.INVALID:
                    child.stop(Status.INVALID)
            self.current_child = None
            self.initialise()
            index = self.choose() if self.children else None
            if index is None:
                self.feedback_message = "nothing to choose"
                self.stop(Status.FAILURE)
                yield self
                return
            child = self._start(index)
        else:
            assert self.current_child is not None
            running = self.children.index(self.current_child)
            index = self.rechoose(running)
            if index != running:
                self.current_child.stop(Status.INVALID)
                child = self._start(index)
            else:
                child = self.current_child
        self.feedback_message = f"running {child.name}"
        yield from child.tick()
        if child.status is Status.RUNNING:
            self.status = Status.RUNNING
        else:
            self.stop(child.status)
        yield self


class WeightedRandom(_OneOf):
    """Pick one child by weight among those whose cooldown has passed (seeded by ``ctx.rng``)."""

    def __init__(self, name: str, ctx: BrainContext, children: Sequence[Behaviour],
                 weights: Sequence[float] | None = None, cooldowns: Sequence[float] | None = None) -> None:
        super().__init__(name, ctx, children)
        n = len(self.children)
        self.weights = [float(w) for w in (weights if weights is not None else [1.0] * n)]
        self.cooldowns = [float(c) for c in (cooldowns if cooldowns is not None else [0.0] * n)]
        if len(self.weights) != n or len(self.cooldowns) != n:
            raise ValueError(f"{name}: {n} children, {len(self.weights)} weights, {len(self.cooldowns)} cooldowns")

    def choose(self) -> int | None:
        now = self.ctx.now()
        index = choose_with_cooldown(self.weights, self.cooldowns, self.last_run, now, self.ctx.rng)
        if self.ctx.explain is not None:
            waits = [seconds_until_ready(c, t, now) for c, t in zip(self.cooldowns, self.last_run, strict=True)]
            self.ctx.explain(self, {"kind": "weighted", "picked": index, "weights": list(self.weights),
                                    "waits": waits})
        return index


@dataclass(frozen=True)
class ScoreSpec:
    """How a Scoring chooser scores one child: emotion → score graph, or a flat score.

    ``repetition_penalty`` (seconds since it last ran → multiplier) applies while it does not
    run, ``running_penalty`` (seconds running → multiplier, Anki's ``runningPenalty``) while it
    runs, when the chooser re-scores.
    """

    emotions: tuple[tuple[str, Graph], ...] = ()
    flat_score: float | None = None
    repetition_penalty: Graph | None = None
    extra: dict[str, object] = field(default_factory=dict)
    running_penalty: Graph | None = None


class Scoring(_OneOf):
    """Pick the child with the best mood score (+ noise); all vetoed or zero → FAILURE.

    With ``reevaluate`` the scores are computed again on every tick while a child runs; the
    running child gets the full noise plus ``running_bonus(seconds running)``, and a better
    child interrupts it.
    """

    def __init__(self, name: str, ctx: BrainContext, children: Sequence[Behaviour], scores: Sequence[ScoreSpec],
                 noise: float = DEFAULT_SCORE_NOISE, repetition_penalty: Graph | None = None,
                 reevaluate: bool = False, running_bonus: Graph | None = None) -> None:
        super().__init__(name, ctx, children)
        if len(scores) != len(self.children):
            raise ValueError(f"{name}: {len(self.children)} children but {len(scores)} score specs")
        self.scores = list(scores)
        self.noise = float(noise)
        self.repetition_penalty = repetition_penalty
        self.reevaluate = reevaluate
        self.running_bonus = running_bonus
        self.last_choice_scores: list[float] = []

    def _candidates(self, running: int | None, values: Mapping[str, float]) -> list[ScoredCandidate]:
        now = self.ctx.now()
        out = []
        for i, spec in enumerate(self.scores):
            last = self.last_run[i]
            candidate = ScoredCandidate(
                scorers=spec.emotions,
                flat_score=spec.flat_score,
                repetition_penalty=spec.repetition_penalty or self.repetition_penalty,
                seconds_since_run=None if last is None or i == running else now - last,
                running_for=now - self.started_at if i == running else None,
            )
            if i == running and spec.running_penalty is not None:
                penalised = candidate_score(candidate, values) * spec.running_penalty(max(0.0, now - self.started_at))
                candidate = replace(candidate, scorers=(), flat_score=penalised)
            out.append(candidate)
        return out

    def _values(self) -> dict[str, float]:
        mood = self.ctx.mood
        values = mood.values() if mood is not None else {}
        for spec in self.scores:
            for emotion, _graph in spec.emotions:
                values.setdefault(emotion, 0.0)
        return values

    def choose(self) -> int | None:
        values = self._values()
        candidates = self._candidates(None, values)
        index = choose_scored(candidates, values, self.ctx.rng, noise=self.noise, running_bonus=self.running_bonus)
        if self.ctx.explain is not None:
            self._explain(candidates, values, index, None)
        return index

    def rechoose(self, running: int) -> int:
        if not self.reevaluate:
            return running
        values = self._values()
        candidates = self._candidates(running, values)
        best = choose_scored(candidates, values, self.ctx.rng, noise=self.noise, running_bonus=self.running_bonus)
        if self.ctx.explain is not None and best is not None and best != running:
            self._explain(candidates, values, best, running)
        return running if best is None else best

    def _explain(self, candidates: Sequence[ScoredCandidate], values: Mapping[str, float], picked: int | None,
                 running: int | None) -> None:
        """Tell the context's listener each child's score (before noise) and the emotions read."""
        assert self.ctx.explain is not None
        used = {emotion for spec in self.scores for emotion, _graph in spec.emotions}
        self.ctx.explain(self, {"kind": "scoring", "picked": picked, "running": running, "noise": self.noise,
                                "scores": [candidate_score(c, values) for c in candidates],
                                "values": {e: values[e] for e in sorted(used) if e in values}})


class StartMoodGate(Decorator):
    """FAILURE instead of starting the child while its mood score is below ``minimum``.

    Cozmo's activities start only when their ``startMoodScorer`` (per-emotion score graphs,
    averaged, a zero vetoing) reaches ``requiredMinStartMoodScore``; once started, the mood may
    drop without stopping them.
    """

    def __init__(self, name: str, child: Behaviour, ctx: BrainContext, scorers: Sequence[tuple[str, Graph]],
                 minimum: float) -> None:
        super().__init__(name=name, child=child)
        self.ctx = ctx
        self.scorers = tuple(scorers)
        self.minimum = float(minimum)
        self._blocked = False

    def score(self) -> float:
        """The start mood score now (0 without a mood)."""
        mood = self.ctx.mood
        if mood is None:
            return 0.0
        values = mood.values()
        for emotion, _graph in self.scorers:
            values.setdefault(emotion, 0.0)
        return mood_score(self.scorers, values)

    def tick(self) -> Iterator[Behaviour]:
        if self.status is not Status.RUNNING:
            score = self.score()
            self._blocked = score < self.minimum
            if self._blocked:
                self.feedback_message = f"start mood score {score:.2f} < {self.minimum:g}"
                yield from Behaviour.tick(self)
                return
        yield from super().tick()

    def update(self) -> Status:
        if self._blocked:
            return Status.FAILURE
        self.feedback_message = ""
        return self.decorated.status
