"""The robot's mood: emotion values that decay over time and react to emotion events.

Everything that shapes the mood is data: the emotion types, their value ranges, their decay
curves, the events and their repetition penalties all come from a mood config and emotion
event files in the Cozmo app's formats (``mood_config.json``, ``emotionevents/*.json``).
Those files are read by the resource loader (:mod:`brain.assets.loaders`), the one parser of
their shapes, which reports bad fields with file, line and field path. This module is the
runtime: :class:`MoodConfig`, :class:`EmotionEvent` and :class:`SimpleMoodRule` are the data a
:class:`Mood` runs on, built in code or converted from the loader's records (``from_record``),
and :func:`decay_graph_problem` is the rule both this module and the loader check decay graphs
against. A config without a "default" decay graph leaves types without their own graph
undecayed.

A :class:`Mood` holds the live state of one robot. Time is always passed in (monotonic
seconds), never read from a clock, so an offline simulation can run hours of mood in
milliseconds and tests can be exact.

Decay rules (facts from Anki's engine, choices documented where we had to make one):

* ``TimeRatio`` graphs map *seconds since the emotion's decay clock was reset* to a
  multiplier; each update does ``value *= g(t + dt) / g(t)``. The ratios telescope, so the
  value after any sequence of steps is ``value_at_reset * g(t) / g(0)``, whatever the tick
  rate. If ``g(t)`` is 0 the value is 0.
* ``ValueSlope`` graphs map the current (signed) value to a *rate per minute* at which its
  magnitude shrinks toward zero. Anki stepped this with one Euler step per tick, which makes
  the result depend on the tick rate. We integrate the same law exactly instead
  (``d|v|/dt = -g(v) / 60``; on each linear piece of the graph the solution is linear or
  exponential), so an offline run at 1 s steps matches a 30 Hz run; the value never
  crosses zero and stops where the rate is 0.
* The decay clock resets when an add larger than ``decay_reset_threshold`` (0.05) pushes the
  value away from zero, or when the value crosses zero (zero counts as positive, as in
  Anki's engine). Clamping to the value range does not prevent a reset.
* Emotion events scale their affectors by a repetition penalty: a graph of seconds since the
  same event last fired (the event's own graph, else the config's default). The first firing
  is at full strength. Every firing, even a fully penalised one, restarts that event's timer.

The rules and records (config, events, decay graphs) live in :mod:`brain.mood_config`;
they are re-exported here.
"""

from __future__ import annotations

import logging
import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping
from typing import Any

from brain.graph import Graph
from brain.mood_config import (
    _RESULT_ALIASES,
    COZMO_EMOTION_TYPES,
    DECAY_KINDS,
    DEFAULT_CONFIG,
    DEFAULT_KEY,
    DEFAULT_REPETITION_PENALTY,
    NO_DECAY,
    DecayGraph,
    EmotionEvent,
    MoodConfig,
    MoodConfigError,
    MoodError,
    SimpleMood,
    SimpleMoodRule,
    decay_graph_problem,
)

__all__ = [
    "COZMO_EMOTION_TYPES",
    "DECAY_KINDS",
    "DEFAULT_CONFIG",
    "DEFAULT_KEY",
    "DEFAULT_REPETITION_PENALTY",
    "NO_DECAY",
    "DecayGraph",
    "EmotionEvent",
    "Mood",
    "MoodConfig",
    "MoodConfigError",
    "MoodError",
    "SimpleMood",
    "SimpleMoodRule",
    "decay_graph_problem",
]

log = logging.getLogger(__name__)



# --------------------------------------------------------------------------- decay math


# Enum members read once, as module names: on Python 3.11 reading one through its class goes
# through the enum metaclass's attribute hook, about 0.1 µs, on paths taken many times a second.
_SIMPLEMOOD_FRUSTRATED = SimpleMood.FRUSTRATED
_SIMPLEMOOD_HIGH_STIM = SimpleMood.HIGH_STIM
_SIMPLEMOOD_LOW_STIM = SimpleMood.LOW_STIM
_SIMPLEMOOD_MED_STIM = SimpleMood.MED_STIM


def _time_ratio_decay(graph: Graph, value: float, clock: float, dt: float) -> float:
    """One TimeRatio step: ``value * g(clock + dt) / g(clock)``; 0 once the graph is 0."""
    before = graph(clock)
    if before <= 0.0:
        return 0.0
    return value * (graph(clock + dt) / before)


def _value_slope_decay(graph: Graph, value: float, dt: float) -> float:
    """Shrink |value| toward zero for *dt* seconds at ``graph(value)`` units per minute, exactly.

    On each linear piece of the graph the rate is ``r0 - k * d`` after travelling a distance
    ``d`` toward zero, so ``d(τ) = r0 τ`` (k = 0) or ``r0 / k * (1 - exp(-k τ))``. We walk the
    pieces from the current value toward zero until the time runs out; zero is never crossed.
    """
    if value == 0.0 or dt <= 0.0:
        return value
    xs, ys = graph.xs, graph.ys
    sign = 1.0 if value > 0.0 else -1.0
    remaining = dt / 60.0  # minutes
    x = value
    for _ in range(len(xs) + 2):
        rate = graph(x)
        if rate <= 0.0:
            return x  # equilibrium: no decay here
        # The linear piece containing x on its zero-ward side, and where that piece ends.
        if sign > 0:
            i = bisect_left(xs, x)  # xs[i-1] < x <= xs[i]
            if i == 0:
                slope, boundary = 0.0, 0.0
            elif i == len(xs):
                slope, boundary = 0.0, max(xs[-1], 0.0)
            else:
                slope = (ys[i] - ys[i - 1]) / (xs[i] - xs[i - 1])
                boundary = max(xs[i - 1], 0.0)
        else:
            i = bisect_right(xs, x)  # xs[i-1] <= x < xs[i]
            if i == len(xs):
                slope, boundary = 0.0, 0.0
            elif i == 0:
                slope, boundary = 0.0, min(xs[0], 0.0)
            else:
                slope = (ys[i] - ys[i - 1]) / (xs[i] - xs[i - 1])
                boundary = min(xs[i], 0.0)
        distance = abs(x - boundary)
        k = sign * slope  # how fast the rate falls per unit travelled toward zero
        if k == 0.0:
            time_to_boundary = distance / rate
        else:
            fraction = 1.0 - k * distance / rate
            time_to_boundary = -math.log(fraction) / k if fraction > 0.0 else math.inf
        if remaining < time_to_boundary:
            travelled = rate * remaining if k == 0.0 else rate / k * (1.0 - math.exp(-k * remaining))
            travelled = min(travelled, distance)
            return x - sign * travelled
        remaining -= time_to_boundary
        x = boundary
        if x == 0.0:
            return 0.0
    return x


# --------------------------------------------------------------------------- the live mood


class Mood:
    """The live emotional state of one robot.

    Emotion types are the union of those named by the config (decay graphs, value ranges,
    ``emotion_types``, its own events) and by *events*. Values start at 0 (clamped into
    their range). Call :meth:`update` once per tick with the elapsed seconds; pass the
    current monotonic time to :meth:`add`, :meth:`trigger_event` and :meth:`action_result`.
    Unknown emotion types and events are logged and ignored, never raised: a long-running
    robot must not stop over one bad name in a personality.
    """

    def __init__(
        self,
        config: MoodConfig,
        events: Iterable[EmotionEvent] | Mapping[str, EmotionEvent] = (),
        *,
        simple_mood_rule: SimpleMoodRule | None = None,
    ) -> None:
        self._config = config
        merged: dict[str, EmotionEvent] = dict(config.events)
        event_list = events.values() if isinstance(events, Mapping) else events
        for event in event_list:
            if event.name in merged and merged[event.name] != event:
                log.warning("emotion event %r defined more than once; the later one wins", event.name)
            merged[event.name] = event
        self._events = merged

        names: dict[str, None] = dict.fromkeys(config.all_emotion_types())
        for event in merged.values():
            names.update(dict.fromkeys(event.affectors))
        self._types: tuple[str, ...] = tuple(names)
        self._decay = {t: config.decay_for(t) for t in self._types}
        self._ranges = {t: config.range_for(t) for t in self._types}
        self._values: dict[str, float] = {}
        self._clock: dict[str, float] = {}
        self._last_change: dict[str, float | None] = {}
        self._event_times: dict[str, float] = {}
        self._warned: set[str] = set()
        self.reset()

        rule = simple_mood_rule or config.simple_mood
        self._rule = rule
        self._stim_types: tuple[str, ...] = ()
        for candidate in rule.stimulation:
            if candidate and all(t in self._values for t in candidate):
                self._stim_types = tuple(candidate)
                break
        else:
            log.warning("simple mood: none of the stimulation sources %s exist; stimulation reads 0",
                        [list(c) for c in rule.stimulation])
        self._frustration_type: str | None = next((t for t in rule.frustration if t in self._values), None)
        if self._frustration_type is None:
            log.warning(
                "simple mood: none of %s exist; the robot is never Frustrated", list(rule.frustration)
            )

    # ----------------------------------------------------------------- read

    @property
    def config(self) -> MoodConfig:
        """The static data this mood runs on."""
        return self._config

    @property
    def emotion_types(self) -> tuple[str, ...]:
        """Every emotion type this mood tracks (for validating personalities at load time)."""
        return self._types

    @property
    def events(self) -> Mapping[str, EmotionEvent]:
        """Every emotion event this mood can trigger, by name."""
        return self._events

    def has_event(self, name: str) -> bool:
        """Whether an event of that name is known (for validating personalities at load time)."""
        return name in self._events

    def value(self, emotion_type: str) -> float:
        """The current value of an emotion; 0.0 (with a one-time warning) for an unknown type."""
        if emotion_type not in self._values:
            self._warn_once(f"type:{emotion_type}", "unknown emotion type %r; reading 0", emotion_type)
            return 0.0
        return self._values[emotion_type]

    def values(self) -> dict[str, float]:
        """A copy of all emotion values."""
        return dict(self._values)

    def seconds_decaying(self, emotion_type: str) -> float:
        """Seconds of decay since this emotion's decay clock was last reset."""
        return self._clock.get(emotion_type, 0.0)

    def stimulation(self) -> float:
        """The stimulation input of the simple mood (see :class:`SimpleMoodRule`)."""
        if not self._stim_types:
            return 0.0
        return sum(self._values[t] for t in self._stim_types) / len(self._stim_types)

    def simple_mood(self) -> SimpleMood:
        """Vector's coarse mood: low stimulation first, then frustration, then medium/high."""
        rule = self._rule
        stim = self.stimulation()
        if stim <= rule.low_stim_max:
            return _SIMPLEMOOD_LOW_STIM
        confident = self._values[self._frustration_type] if self._frustration_type else 0.0
        if confident < rule.frustrated_below:
            return _SIMPLEMOOD_FRUSTRATED
        if stim <= rule.med_stim_max:
            return _SIMPLEMOOD_MED_STIM
        return _SIMPLEMOOD_HIGH_STIM

    def snapshot(self) -> dict[str, Any]:
        """A JSON-ready picture of the mood for logs and the dashboard."""
        return {
            "emotions": dict(self._values),
            "simple_mood": self.simple_mood().value,
            "stimulation": self.stimulation(),
            "seconds_decaying": dict(self._clock),
            "last_change": dict(self._last_change),
            "last_events": dict(self._event_times),
        }

    # ----------------------------------------------------------------- write

    def reset(self) -> None:
        """All values back to 0 (clamped into range), all clocks and event timers cleared."""
        for t in self._types:
            low, high = self._ranges[t]
            self._values[t] = min(max(0.0, low), high)
            self._clock[t] = 0.0
            self._last_change[t] = None
        self._event_times.clear()

    def update(self, dt: float) -> None:
        """Let *dt* seconds of decay pass for every emotion."""
        if not (dt >= 0.0 and math.isfinite(dt)):
            raise ValueError(f"Mood.update: dt must be a finite number of seconds >= 0, got {dt!r}")
        if dt == 0.0:
            return
        for t in self._types:
            decay = self._decay[t]
            value = self._values[t]
            if value != 0.0:
                if decay.kind == "TimeRatio":
                    value = _time_ratio_decay(decay.graph, value, self._clock[t], dt)
                else:
                    value = _value_slope_decay(decay.graph, value, dt)
                low, high = self._ranges[t]
                self._values[t] = min(max(value, low), high)
            self._clock[t] += dt

    def add(self, emotion_type: str, delta: float, now: float) -> bool:
        """Add *delta* to an emotion (clamped to its range), applying the decay-clock reset rule.

        Returns False (and logs once) for an unknown type or a non-finite delta.
        """
        if emotion_type not in self._values:
            self._warn_once(f"type:{emotion_type}", "unknown emotion type %r; add ignored", emotion_type)
            return False
        if not math.isfinite(delta):
            log.warning("add(%r, %r): delta is not a finite number; ignored", emotion_type, delta)
            return False
        old = self._values[emotion_type]
        low, high = self._ranges[emotion_type]
        new = min(max(old + delta, low), high)
        self._values[emotion_type] = new
        away_from_zero = (old >= 0.0) == (delta >= 0.0)
        if abs(delta) > self._config.decay_reset_threshold and away_from_zero:
            self._clock[emotion_type] = 0.0
        elif (old >= 0.0) != (new >= 0.0):
            self._clock[emotion_type] = 0.0
        self._last_change[emotion_type] = now
        return True

    def set_value(self, emotion_type: str, value: float, now: float) -> bool:
        """Force an emotion to *value* (clamped) and restart its decay clock (debug, tests, scripts)."""
        if emotion_type not in self._values or not math.isfinite(value):
            self._warn_once(f"type:{emotion_type}", "set_value(%r, %r) ignored", emotion_type, value)
            return False
        low, high = self._ranges[emotion_type]
        self._values[emotion_type] = min(max(value, low), high)
        self._clock[emotion_type] = 0.0
        self._last_change[emotion_type] = now
        return True

    def repetition_multiplier(self, name: str, now: float) -> float:
        """What the next firing of event *name* at *now* would be scaled by (read-only)."""
        last = self._event_times.get(name)
        if last is None:
            return 1.0
        event = self._events.get(name)
        graph = event.repetition_penalty if event and event.repetition_penalty else None
        graph = graph or self._config.default_repetition_penalty
        return graph(max(0.0, now - last))

    def trigger_event(self, name: str, now: float) -> bool:
        """Apply event *name*'s affectors, scaled by its repetition penalty.

        Returns False (with a logged warning) for an unknown event, never raises.
        """
        event = self._events.get(name)
        if event is None:
            log.warning("unknown emotion event %r; ignored", name)
            return False
        scale = self.repetition_multiplier(name, now)
        self._event_times[name] = now
        log.debug("emotion event %s x%.3f", name, scale)
        for emotion_type, delta in event.affectors.items():
            self.add(emotion_type, delta * scale, now)
        return True

    def event_for_action(self, action: str, result: str) -> str | None:
        """The event mapped to (action, result), accepting RETRY/FAILURE_RETRY-style spellings."""
        results = self._config.action_result_events.get(action)
        if not results:
            return None
        name = results.get(result)
        if name is None and result in _RESULT_ALIASES:
            name = results.get(_RESULT_ALIASES[result])
        return name

    def action_result(self, action: str, result: str, now: float) -> bool:
        """Fire the event the config maps to an action's result; False if none is mapped."""
        name = self.event_for_action(action, result)
        if name is None:
            log.debug("no emotion event for action %s / %s", action, result)
            return False
        return self.trigger_event(name, now)

    # ----------------------------------------------------------------- internals

    def _warn_once(self, key: str, message: str, *args: object) -> None:
        if key not in self._warned:
            self._warned.add(key)
            log.warning(message, *args)
