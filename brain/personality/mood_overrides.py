"""``mood:``: a personality's changes to the robot's mood.

A personality can start some emotions at other values (``initial``), narrow their ranges
(``ranges``) and give them other decay curves (``decay``, per emotion type or ``default``)::

    mood:
      initial: {Happy: 0.3}
      ranges: {Calm: [-0.5, 1.0]}
      decay:
        Happy: [[0, 1], [10, 1], [60, 0]]

This module reads that section into :class:`MoodOverrides`; :class:`brain.mood.Mood` stays the
runtime, and the engine applies the overrides to the resource set's mood config on each load.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from brain.graph import Graph
from brain.mood import DecayGraph, Mood, MoodConfig, MoodConfigError
from brain.nodes.registry import Param, ParamError, coerce

from .located import LMap, Loc, short_repr, suggest

if TYPE_CHECKING:
    from .builder import Builder

__all__ = ["MOOD_SECTIONS", "MoodOverrides", "build_mood_overrides"]

#: The sections of ``mood:``.
MOOD_SECTIONS = ("initial", "ranges", "decay")


@dataclass
class MoodOverrides:
    """A personality's changes to the mood: initial values, value ranges and decay graphs."""

    initial: dict[str, float] = field(default_factory=dict)
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)
    decay: dict[str, DecayGraph] = field(default_factory=dict)

    def apply_config(self, config: MoodConfig) -> MoodConfig:
        """A copy of a :class:`brain.mood.MoodConfig` with these ranges and decay graphs."""
        if not self.ranges and not self.decay:
            return config
        ranges = {**dict(config.value_ranges), **self.ranges}
        decay = {**dict(config.decay_graphs), **self.decay}
        return dataclasses.replace(config, value_ranges=ranges, decay_graphs=decay)

    def apply_initial(self, mood: Mood, now: float) -> None:
        """Set the initial emotion values on a live mood."""
        for emotion, value in self.initial.items():
            mood.set_value(emotion, value, now)


def build_mood_overrides(builder: Builder) -> MoodOverrides:
    """The document's ``mood:`` section, checked (``$parameters`` resolved, emotion types known)."""
    out = MoodOverrides()
    doc = builder.doc
    raw = doc.get("mood")
    if raw is None:
        return out
    if not isinstance(raw, LMap):
        builder.issues.add(doc.at("mood"), "mood", f"expected a mapping, got {short_repr(raw)}")
        return out
    raw = builder.resolve(raw, doc.at("mood"), "mood")
    for key in raw:
        if key not in MOOD_SECTIONS:
            builder.issues.add(raw.at(key), f"mood.{key}", f"unknown key{suggest(key, list(MOOD_SECTIONS))}")
    for section in MOOD_SECTIONS:
        block = raw.get(section)
        if block is None:
            continue
        if not isinstance(block, LMap):
            builder.issues.add(raw.at(section), f"mood.{section}", f"expected a mapping of emotion type: value, "
                               f"got {short_repr(block)}")
            continue
        for emotion, value in block.items():
            _entry(builder, out, section, emotion, value, block.at(emotion))
    return out


def _entry(builder: Builder, out: MoodOverrides, section: str, emotion: Any, value: Any, loc: Loc) -> None:
    """Check one ``emotion: value`` of a section and record it in ``out``."""
    path = f"mood.{section}.{emotion}"
    is_default = section == "decay" and emotion == "default"
    emotion_types = builder.emotion_types
    if emotion_types is not None and emotion not in emotion_types and not is_default:
        builder.issues.add(loc, path, f"unknown emotion type {emotion!r}{suggest(str(emotion), emotion_types)}")
        return
    try:
        if section == "initial":
            out.initial[str(emotion)] = _initial(value)
        elif section == "ranges":
            out.ranges[str(emotion)] = _range(value)
        else:
            out.decay[str(emotion)] = _decay(value, path)
    except ParamError as exc:
        builder.issues.add(loc, f"{path}{exc.path}", str(exc))
    except MoodConfigError as exc:
        builder.issues.add(loc, path, str(exc).removeprefix(f"{path}: ").removeprefix(path))


def _initial(value: Any) -> float:
    number: float = coerce(Param("number"), value)
    if not -1.0 <= number <= 1.0:
        raise ParamError(f"expected a value in [-1, 1], got {number:g}")
    return number


def _range(value: Any) -> tuple[float, float]:
    low, high = coerce(Param("range"), value)
    if low < -1.0 or high > 1.0:
        raise ParamError(f"expected a range inside [-1, 1], got [{low:g}, {high:g}]")
    return low, high


def _decay(value: Any, path: str) -> DecayGraph:
    """A decay graph: a list of points (time ratio), or ``{graphType, nodes}``."""
    kind = "TimeRatio"
    points = value
    if isinstance(value, Mapping) and "graphType" in value:
        kind = value["graphType"]
        points = value.get("nodes")
    graph: Graph = coerce(Param("graph"), points)
    return DecayGraph.checked(kind, graph, path)
