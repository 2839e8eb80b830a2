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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from py_trees.behaviour import Behaviour
from py_trees.common import Status
from py_trees.composites import Composite
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

from .composites import Selector, fast_tick, run_alone, run_decorator, stop_decorator, tick_child
from .explain import and_list, label, num, structural_reason
from .status import FAILURE, INVALID, RUNNING

__all__ = ["ScoreSpec", "Scoring", "StartMoodGate", "StrictPriority", "WeightedRandom"]


class StrictPriority(Selector):
    """The first child (in order) that does not fail runs; higher children are re-checked every tick.

    It explains itself as a selector: the child it runs and why, the ones before it and why
    they failed (:func:`brain.nodes.explain.selector_sentence`).
    """

    def explain(self, passed: bool, depth: int = 0) -> str:
        """Why it passed (its running child's reason) or failed (every child's)."""
        return structural_reason(self, passed, depth)

    def __init__(self, name: str, children: Sequence[Behaviour] | None = None) -> None:
        super().__init__(name, memory=False, children=list(children or []))


class _OneOf(Composite):
    """Base of choosers that run exactly one chosen child at a time.

    A chooser passes for the reason its child does and fails when it had nothing to choose;
    :meth:`decision` says what it picked and what that beat (the dashboard's why, the log).
    """

    def decision(self) -> str:
        """The last pick in words (empty before the first)."""
        return ""

    def explain(self, passed: bool, depth: int = 0) -> str:
        """Why it passed (its running child's reason) or failed (nothing to choose)."""
        return structural_reason(self, passed, depth)

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

    tick = fast_tick

    def run_tick(self) -> Status:
        """One tick: choose a child when not running (or rechoose), tick it; the status after it."""
        if self.status is not RUNNING:
            for child in self.children:
                if child.status is not INVALID:
                    child.stop(INVALID)
            self.current_child = None
            self.initialise()
            index = self.choose() if self.children else None
            if index is None:
                self.feedback_message = "nothing to choose"
                self.stop(FAILURE)
                return self.status
            child = self._start(index)
        else:
            assert self.current_child is not None
            running = self.children.index(self.current_child)
            index = self.rechoose(running)
            if index != running:
                self.current_child.stop(INVALID)
                child = self._start(index)
            else:
                child = self.current_child
        self.feedback_message = f"running {child.name}"
        tick_child(child)
        if child.status is RUNNING:
            self.status = RUNNING
        else:
            self.stop(child.status)
        return self.status


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
        #: Seconds each child still had to cool down when the last pick was made.
        self.waits: list[float] = []

    def choose(self) -> int | None:
        now = self.ctx.now()
        index = choose_with_cooldown(self.weights, self.cooldowns, self.last_run, now, self.ctx.rng)
        self.waits = [seconds_until_ready(c, t, now) for c, t in zip(self.cooldowns, self.last_run, strict=True)]
        return index

    def decision(self) -> str:
        """``picked by chance, weight 2 of 3 (happy 1); cooling down: nap (12 s)``, for the running child."""
        if self.current_child is None or not self.waits:
            return ""
        names = [label(c) for c in self.children]
        index = self.children.index(self.current_child)
        weights, waits = self.weights, self.waits
        total = sum(w for i, w in enumerate(weights) if not waits[i] > 0)
        ready = [f"{names[i]} {num(w)}" for i, w in enumerate(weights) if i != index and w > 0 and not waits[i] > 0]
        cooling = [f"{names[i]} ({waits[i]:.0f} s)" for i in range(len(waits)) if waits[i] > 0 and i != index]
        text = f"picked by chance, weight {num(weights[index])} of {num(total)}"
        if ready:
            text += f" ({and_list(ready)})"
        if cooling:
            text += f"; cooling down: {and_list(cooling)}"
        return text


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
        self.last_values: dict[str, float] = {}
        self.took_over_from: int | None = None

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
        self._remember(candidates, values, None)
        return index

    def rechoose(self, running: int) -> int:
        if not self.reevaluate:
            return running
        values = self._values()
        candidates = self._candidates(running, values)
        best = choose_scored(candidates, values, self.ctx.rng, noise=self.noise, running_bonus=self.running_bonus)
        if best is not None and best != running:
            self._remember(candidates, values, running)
        return running if best is None else best

    def _remember(self, candidates: Sequence[ScoredCandidate], values: Mapping[str, float],
                  running: int | None) -> None:
        """Keep each child's score (before noise) and the emotions read, for :meth:`decision`."""
        used = {emotion for spec in self.scores for emotion, _graph in spec.emotions}
        self.last_choice_scores = [candidate_score(c, values) for c in candidates]
        self.last_values = {e: values[e] for e in sorted(used) if e in values}
        self.took_over_from = running

    def decision(self) -> str:
        """``best mood score 0.6, over sulk 0.1 (plus up to 0.05 of chance). Mood: Happy 0.5``."""
        if self.current_child is None or not self.last_choice_scores:
            return ""
        names = [label(c) for c in self.children]
        index = self.children.index(self.current_child)
        scores = self.last_choice_scores
        others = [f"{names[i]} {num(v)}" if v > 0 else f"{names[i]} vetoed" for i, v in enumerate(scores) if i != index]
        text = f"best mood score {num(scores[index])}"
        if others:
            text += f", over {and_list(others)}"
        if self.noise:
            text += f" (plus up to {num(self.noise)} of chance)"
        if self.took_over_from is not None and self.took_over_from != index:
            text += f"; it took over from {names[self.took_over_from]}"
        mood = ", ".join(f"{k} {num(v)}" for k, v in self.last_values.items())
        return text + (f". Mood: {mood}" if mood else "")


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

    tick = fast_tick

    def run_tick(self) -> Status:
        """Gated while the start score is low (the child is left alone); else a decorator's tick."""
        if self.status is not RUNNING:
            score = self.score()
            self._blocked = score < self.minimum
            if self._blocked:
                self.feedback_message = f"start mood score {score:.2f} < {self.minimum:g}"
                return run_alone(self)
        return run_decorator(self)

    def stop(self, new_status: Status) -> None:
        stop_decorator(self, new_status)

    def update(self) -> Status:
        if self._blocked:
            return FAILURE
        self.feedback_message = ""
        return self.decorated.status

    def explain(self, passed: bool, depth: int = 0) -> str:
        """Failed: the start mood score it compared; otherwise its child's reason."""
        if not passed and self._blocked:
            return self.feedback_message or "its start mood score is too low"
        return structural_reason(self, passed, depth)
