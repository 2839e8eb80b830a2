"""Cozmo's needs: Energy, Play and Repair, each a level that decays and is restored by what happens.

As in Cozmo's needs system (../shared/reference/personality.md, "Needs"): each need has a level
between ``MinimumNeedLevel`` and ``MaximumNeedLevel``, starts at its ``InitialNeedLevel…``, falls
by its decay rate per minute the robot is connected, and a need filled to its Full bracket holds
there for ``FullnessDecayCooldown…`` seconds before it decays again. Its bracket (Full, Normal,
Warning, Critical) is read from ``BracketLevel…`` thresholds. What fills and drains them is data
too: emotion events the behaviours fire (a pounce, a fist bump, peekaboo fill Play) and robot
events (a fall costs Repair and Play, being shaken costs Repair), and the charger restores Energy.

:class:`NeedsConfig` reads the keys of a resource tree's ``config/engine/needs_config.json``
(Anki's export: ``MaximumNeedLevel``, ``BracketLevelEnergyWarning`` …) and the project's own
keys for what Anki kept elsewhere (``DecayPerMinute…``, ``ChargingEnergyPerMinute``,
``EmotionEventDeltas``, ``RobotEventDeltas``); a key it lacks keeps the default below. A bad
value is a :class:`NeedsConfigError` naming the file and key.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

__all__ = ["BRACKETS", "NEEDS", "Needs", "NeedsConfig", "NeedsConfigError", "load_needs_config"]

log = logging.getLogger(__name__)

NEEDS: tuple[str, ...] = ("Repair", "Energy", "Play")
#: Brackets from the fullest down.
BRACKETS: tuple[str, ...] = ("Full", "Normal", "Warning", "Critical")

_BRACKET_DEFAULTS = {"Repair": (0.99, 0.6, 0.3, 0.0), "Energy": (0.99, 0.6, 0.3, 0.0), "Play": (0.99, 0.5, 0.2, 0.0)}
_DECAY_DEFAULTS = {"Repair": 0.002, "Energy": 0.005, "Play": 0.015}
_EMOTION_DEFAULTS: dict[str, dict[str, float]] = {
    "PounceSuccess": {"Play": 0.1}, "PounceFail": {"Play": 0.05}, "FistBumpSuccess": {"Play": 0.1},
    "PlayedPeekABoo": {"Play": 0.2}, "PlayedTapGame": {"Play": 0.25}, "RequestToPlayAccepted": {"Play": 0.1},
    "Sang": {"Play": 0.05}, "GreetedFace": {"Play": 0.03}, "PlayedGuardDog": {"Play": 0.2},
    "PlayedKeepAway": {"Play": 0.2},
}
_ROBOT_DEFAULTS: dict[str, dict[str, float]] = {
    "falling_started": {"Repair": -0.3, "Play": -0.1}, "shaken": {"Repair": -0.1},
}


class NeedsConfigError(ValueError):
    """A needs config value does not fit: ``where`` names the file and key."""


def _frozen(table: Mapping[str, Mapping[str, float]]) -> Mapping[str, Mapping[str, float]]:
    return MappingProxyType({k: MappingProxyType(dict(v)) for k, v in table.items()})


@dataclass(frozen=True)
class NeedsConfig:
    """How the needs behave (see the module docstring); the defaults are Cozmo's shipped values."""

    min_level: float = 0.03
    max_level: float = 1.0
    initial: Mapping[str, float] = field(default_factory=lambda: MappingProxyType(dict.fromkeys(NEEDS, 1.0)))
    #: need → (Full, Normal, Warning, Critical) lower bounds
    brackets: Mapping[str, tuple[float, ...]] = field(default_factory=lambda: MappingProxyType(_BRACKET_DEFAULTS))
    full_hold_s: Mapping[str, float] = field(default_factory=lambda: MappingProxyType(dict.fromkeys(NEEDS, 1200.0)))
    decay_per_minute: Mapping[str, float] = field(default_factory=lambda: MappingProxyType(_DECAY_DEFAULTS))
    charging_energy_per_minute: float = 0.05
    emotion_events: Mapping[str, Mapping[str, float]] = field(default_factory=lambda: _frozen(_EMOTION_DEFAULTS))
    robot_events: Mapping[str, Mapping[str, float]] = field(default_factory=lambda: _frozen(_ROBOT_DEFAULTS))

    @classmethod
    def from_json(cls, data: Any, where: str = "needs_config.json") -> NeedsConfig:
        """Read Anki's keys (and the project's) from a parsed file; missing keys keep the defaults."""
        if not isinstance(data, Mapping):
            raise NeedsConfigError(f"{where}: expected a JSON object")
        base = cls()

        def number(key: str, default: float, lo: float = 0.0, hi: float = 1e9) -> float:
            value = data.get(key, default)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
                raise NeedsConfigError(f"{where}: {key}: expected a number from {lo:g} to {hi:g}, got {value!r}")
            return float(value)

        def deltas(key: str, default: Mapping[str, Mapping[str, float]]) -> Mapping[str, Mapping[str, float]]:
            table = data.get(key)
            if table is None:
                return default
            out: dict[str, dict[str, float]] = {}
            if not isinstance(table, Mapping):
                raise NeedsConfigError(f"{where}: {key}: expected an object of name → {{need: change}}")
            for name, changes in table.items():
                if not isinstance(changes, Mapping) or any(n not in NEEDS or isinstance(d, bool)
                                                           or not isinstance(d, (int, float))
                                                           for n, d in changes.items()):
                    raise NeedsConfigError(f"{where}: {key}.{name}: expected {{need: change}} with needs "
                                           f"{', '.join(NEEDS)}, got {changes!r}")
                out[str(name)] = {n: float(d) for n, d in changes.items()}
            return _frozen(out)

        lo = number("MinimumNeedLevel", base.min_level, 0.0, 1.0)
        hi = number("MaximumNeedLevel", base.max_level, lo, 1.0)
        brackets = {}
        for need in NEEDS:
            levels = tuple(number(f"BracketLevel{need}{b}", base.brackets[need][i], 0.0, hi)
                           for i, b in enumerate(BRACKETS))
            if list(levels) != sorted(levels, reverse=True):
                raise NeedsConfigError(f"{where}: BracketLevel{need}…: expected Full ≥ Normal ≥ Warning ≥ Critical, "
                                       f"got {levels}")
            brackets[need] = levels
        return cls(
            min_level=lo, max_level=hi,
            initial=MappingProxyType({n: number(f"InitialNeedLevel{n}", base.initial[n], lo, hi) for n in NEEDS}),
            brackets=MappingProxyType(brackets),
            full_hold_s=MappingProxyType({n: number(f"FullnessDecayCooldown{n}", base.full_hold_s[n]) for n in NEEDS}),
            decay_per_minute=MappingProxyType({n: number(f"DecayPerMinute{n}", base.decay_per_minute[n], 0.0, 1.0)
                                               for n in NEEDS}),
            charging_energy_per_minute=number("ChargingEnergyPerMinute", base.charging_energy_per_minute, 0.0, 1.0),
            emotion_events=deltas("EmotionEventDeltas", base.emotion_events),
            robot_events=deltas("RobotEventDeltas", base.robot_events),
        )


def load_needs_config(roots: Iterable[Path]) -> tuple[NeedsConfig, Path | None]:
    """The first ``config/engine/needs_config.json`` of the resource roots (searched in order),
    read; the defaults with None when no root has one. Comments (``//``) are allowed, as in Anki's."""
    from brain.assets.jsonc import loads

    for root in roots:
        for base in (root, root / "cozmo_resources"):
            path = base / "config" / "engine" / "needs_config.json"
            if path.is_file():
                try:
                    data = loads(path.read_text(encoding="utf-8"))
                except (OSError, ValueError) as exc:
                    raise NeedsConfigError(f"{path}: not readable as JSON ({exc})") from None
                return NeedsConfig.from_json(data, str(path)), path
    return NeedsConfig(), None


class Needs:
    """The three needs' levels for one robot: decay, holds after a refill, and what changes them."""

    def __init__(self, config: NeedsConfig | None = None) -> None:
        self.config = config or NeedsConfig()
        self.levels: dict[str, float] = dict(self.config.initial)
        self._full_until: dict[str, float] = {}
        self._updated: float | None = None
        self._fresh = config is None  # the first configure() brings the initial levels

    def configure(self, config: NeedsConfig) -> None:
        """Take a new config: the first one sets the initial levels; later ones (a reload) keep the
        levels (clamped), as a reload keeps the mood."""
        self.config = config
        for need in NEEDS:
            level = config.initial[need] if self._fresh else self.levels.get(need, config.initial[need])
            self.levels[need] = self._clamp(level)
        self._fresh = False

    def _clamp(self, value: float) -> float:
        return min(self.config.max_level, max(self.config.min_level, value))

    def bracket(self, need: str) -> str:
        """The need's bracket now: Full, Normal, Warning or Critical."""
        level = self.levels[need]
        for name, bound in zip(BRACKETS, self.config.brackets[need], strict=True):
            if level >= bound:
                return name
        return BRACKETS[-1]

    def change(self, need: str, delta: float, now: float) -> None:
        """Add ``delta`` to a need; reaching Full starts its hold."""
        before = self.levels[need]
        self.levels[need] = self._clamp(before + delta)
        if delta > 0 and self.bracket(need) == "Full":
            self._full_until[need] = now + self.config.full_hold_s[need]
        log.debug("need %s %.3f → %.3f", need, before, self.levels[need])

    def emotion_event(self, name: str, now: float) -> None:
        """An emotion event fired: apply its deltas, if it has any."""
        for need, delta in self.config.emotion_events.get(name, {}).items():
            self.change(need, delta, now)

    def update(self, now: float, *, connected: bool = True, on_charger: bool = False,
               events: Iterable[Any] = ()) -> None:
        """Decay (while connected, outside a hold), charge, and apply the beat's robot events."""
        for event in events:
            for need, delta in self.config.robot_events.get(getattr(event, "KIND", ""), {}).items():
                self.change(need, delta, now)
        last, self._updated = self._updated, now
        if last is None or now <= last:
            return
        minutes = (now - last) / 60.0
        if on_charger:
            self.change("Energy", self.config.charging_energy_per_minute * minutes, now)
        if not connected:
            return
        for need in NEEDS:
            if now < self._full_until.get(need, -1.0) or (on_charger and need == "Energy"):
                continue
            self.levels[need] = self._clamp(self.levels[need] - self.config.decay_per_minute[need] * minutes)

    def snapshot(self) -> dict[str, dict[str, float | str]]:
        """Level and bracket of each need, for the dashboard and the day report."""
        return {need: {"level": round(self.levels[need], 4), "bracket": self.bracket(need)} for need in NEEDS}
