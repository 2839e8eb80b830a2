"""Condition leaves: instant checks of mood, recent events and the robot's state.

A condition never runs: it answers SUCCESS or FAILURE on the tick it is asked. Put them
first in a sequence to guard a branch (``sequence`` without memory re-checks them on every
tick, so the branch is dropped as soon as the guard turns false).
"""

from __future__ import annotations

from typing import Any

from py_trees.common import Status

from brain.context import BrainContext, event_value_matches
from driver.events import ORIENTATIONS
from driver.samples import RobotStatus

from .actions import ContextBehaviour
from .explain import ago, num
from .status import FAILURE, SUCCESS

__all__ = [
    "BatteryLow",
    "MoodAbove",
    "MoodBelow",
    "OnCharger",
    "OrientationIs",
    "PickedUp",
    "Sleeping",
    "Sleepy",
    "RecentEvent",
    "SimpleMoodIs",
]


class _Condition(ContextBehaviour):
    """Base: ``check()`` returns True/False, or a string saying why it cannot tell (FAILURE).

    ``explain(passed)`` is its answer in words with the value it compared; each condition says
    it in :meth:`in_words`, and without what it reads (no mood, no robot) it names itself.
    """

    is_condition = True

    def check(self) -> bool | str:
        raise NotImplementedError

    def in_words(self, passed: bool) -> str | None:
        """The answer with the values compared (``Excited is 0.52, above 0.4``), or None when it cannot say."""
        raise NotImplementedError

    def explain(self, passed: bool, depth: int = 0) -> str:
        """Why it held (``passed``) or failed on its last tick."""
        said = self.in_words(passed)
        if said is not None:
            return said
        why = self.feedback_message
        if why and why not in ("yes", "no"):
            return f"{self.name}: {why}"
        return f"{self.name}: {'yes' if passed else 'no'}"

    def update(self) -> Status:
        result = self.check()
        if isinstance(result, str):
            return self.fail(result)
        self.feedback_message = "yes" if result else "no"
        return SUCCESS if result else FAILURE


class MoodAbove(_Condition):
    """SUCCESS while the emotion ``emotion`` is strictly above ``value``."""

    def __init__(self, name: str, ctx: BrainContext, emotion: str, value: float) -> None:
        super().__init__(name, ctx)
        self.emotion, self.value = emotion, float(value)

    def check(self) -> bool | str:
        if self.ctx.mood is None:
            return "no mood"
        return self.ctx.mood.value(self.emotion) > self.value

    def in_words(self, passed: bool) -> str | None:
        return _mood_sentence(self.ctx, self.emotion, self.value, "above", passed)


class MoodBelow(_Condition):
    """SUCCESS while the emotion ``emotion`` is strictly below ``value``."""

    def __init__(self, name: str, ctx: BrainContext, emotion: str, value: float) -> None:
        super().__init__(name, ctx)
        self.emotion, self.value = emotion, float(value)

    def check(self) -> bool | str:
        if self.ctx.mood is None:
            return "no mood"
        return self.ctx.mood.value(self.emotion) < self.value

    def in_words(self, passed: bool) -> str | None:
        return _mood_sentence(self.ctx, self.emotion, self.value, "below", passed)


class SimpleMoodIs(_Condition):
    """SUCCESS while the simple mood (LowStim, MedStim, HighStim, Frustrated) is one of ``moods``."""

    def __init__(self, name: str, ctx: BrainContext, moods: str | list[str]) -> None:
        super().__init__(name, ctx)
        self.moods = {moods} if isinstance(moods, str) else set(moods)

    def check(self) -> bool | str:
        if self.ctx.mood is None:
            return "no mood"
        return str(self.ctx.mood.simple_mood()) in self.moods

    def in_words(self, passed: bool) -> str | None:
        if self.ctx.mood is None:
            return None
        wanted = " or ".join(sorted(self.moods))
        return f"simple mood is {self.ctx.mood.simple_mood().value}" + ("" if passed else f", not {wanted}")


class RecentEvent(_Condition):
    """SUCCESS when a robot event of ``kind`` arrived within the last ``within_s`` seconds.

    For status-flag events (``cliff``, ``picked_up``, ``on_charger`` …) ``value`` selects the
    edge: True (the default) for the flag turning on, False for turning off (``picked_up``
    with value False is "put down"), None for either; for ``orientation`` events it names the new
    orientation (``on_back``, ``on_side`` …). With ``once`` the condition answers
    SUCCESS only once per event: it remembers the newest event it reported, so a reaction
    does not fire again on the same poke.
    """

    def __init__(self, name: str, ctx: BrainContext, kind: str, within_s: float = 1.0,
                 value: bool | str | None = True, once: bool = False) -> None:
        super().__init__(name, ctx)
        self.kind, self.within_s, self.value, self.once = kind, float(within_s), value, once
        self.last_seen: float | None = None
        self.matched: Any = None

    def check(self) -> bool:
        since = self.last_seen if self.once else None
        for event in self.ctx.recent_events(self.kind, self.within_s, since=since):
            if not event_value_matches(event, self.value):
                continue
            self.matched = event
            if self.once:
                self.last_seen = float(event.at)
            return True
        return False

    def in_words(self, passed: bool) -> str | None:
        if self.value is False:
            what = f"{self.kind} (off)"
        elif isinstance(self.value, str):
            what = f"{self.kind} {self.value}"
        else:
            what = self.kind
        if passed and self.matched is not None:
            return f"{what} {ago(self.ctx.now(), self.matched.at)} ago, within {num(self.within_s)} s"
        return f"no {what} within {num(self.within_s)} s"


class _StatusFlag(_Condition):
    flag: RobotStatus
    #: What the flag means, in words: "on the charger", "held in the air".
    meaning: str

    def check(self) -> bool | str:
        state = self.ctx.robot_state
        if state is None:
            return "no robot state"
        return state.has(self.flag)

    def in_words(self, passed: bool) -> str | None:
        return self.meaning if passed else f"not {self.meaning}"


class OnCharger(_StatusFlag):
    """SUCCESS while the robot sits on its charger contacts."""

    flag = RobotStatus.IS_ON_CHARGER
    meaning = "on the charger"


class PickedUp(_StatusFlag):
    """SUCCESS while the robot is held in the air."""

    flag = RobotStatus.IS_PICKED_UP
    meaning = "held in the air"


class Sleeping(_Condition):
    """SUCCESS while the robot is asleep or waking up (the brain's arousal is not ``awake``).

    Put first among what sends it to sleep, it holds that branch until the wake-up has played:
    whatever woke it, it gets up like a pet instead of being switched to something else.
    """

    def check(self) -> bool | str:
        return self.ctx.arousal.state != "awake"

    def in_words(self, passed: bool) -> str | None:
        a = self.ctx.arousal
        return f"{a.state} since {a.since:.0f} s ({a.why})" if passed else "awake"


class Sleepy(_Condition):
    """SUCCESS while the sleep debt has reached the personality's sleepy level (:mod:`brain.arousal`):
    it has been up long enough, and little enough has happened, to want a nap."""

    def check(self) -> bool | str:
        return self.ctx.arousal.sleepy

    def in_words(self, passed: bool) -> str | None:
        a = self.ctx.arousal
        where = " on the charger" if a.on_charger and a.sleepy_level_s < a.params.sleepy_after_s else ""
        return (f"sleep debt {a.debt_s / 60:.1f} min, sleepy at {a.sleepy_level_s / 60:.1f}{where}"
                + ("" if passed else " (not sleepy)"))


class BatteryLow(_Condition):
    """SUCCESS while the battery is below ``volts`` (Cozmo runs ~3.5–4.2 V; 3.6 V is low)."""

    def __init__(self, name: str, ctx: BrainContext, volts: float = 3.6) -> None:
        super().__init__(name, ctx)
        self.volts = float(volts)

    def check(self) -> bool | str:
        state = self.ctx.robot_state
        if state is None:
            return "no robot state"
        return state.battery.voltage_v < self.volts

    def in_words(self, passed: bool) -> str | None:
        state = self.ctx.robot_state
        if state is None:
            return None
        return f"battery {state.battery.voltage_v:.2f} V, {'' if passed else 'not '}below {num(self.volts)} V"


#: Orientation names a condition may ask for: the driver's, plus ``on_side`` for either side.
ORIENTATION_NAMES: tuple[str, ...] = (*ORIENTATIONS, "on_side")


class OrientationIs(_Condition):
    """SUCCESS while the robot lies in one of ``orientations`` (``upright``, ``in_air``,
    ``on_back``, ``on_face``, ``on_left_side``, ``on_right_side``, ``falling``, or ``on_side`` for
    either side).

    Read live from the robot's attitude (:mod:`driver.attitude`), so a behaviour can keep at something (try
    to flip over, wait on its side) exactly as long as the robot stays that way.
    """

    def __init__(self, name: str, ctx: BrainContext, orientations: str | list[str]) -> None:
        super().__init__(name, ctx)
        wanted = {orientations} if isinstance(orientations, str) else set(orientations)
        unknown = wanted - set(ORIENTATION_NAMES)
        if unknown:
            raise ValueError(f"unknown orientation {sorted(unknown)[0]!r}; expected {', '.join(ORIENTATION_NAMES)}")
        if "on_side" in wanted:
            wanted |= {"on_left_side", "on_right_side"}
        self.orientations = frozenset(wanted)

    def check(self) -> bool | str:
        orientation = current_orientation(self.ctx)
        if orientation is None:
            return "no robot orientation"
        return orientation in self.orientations

    def in_words(self, passed: bool) -> str | None:
        now = current_orientation(self.ctx) or "unknown"
        wanted = ' or '.join(o.replace('_', ' ') for o in sorted(self.orientations))
        return f"lying {now.replace('_', ' ')}" + ("" if passed else f", not {wanted}")


def _mood_sentence(ctx: BrainContext, emotion: str, value: float, side: str, passed: bool) -> str | None:
    if ctx.mood is None:
        return None
    return f"{emotion} is {num(ctx.mood.value(emotion))}, {'' if passed else 'not '}{side} {num(value)}"


def current_orientation(ctx: BrainContext) -> str | None:
    """How the context's robot lies now, or None without a robot (or one that cannot tell)."""
    robot = ctx.robot
    orientation = getattr(robot, "orientation", None) if robot is not None else None
    return orientation if isinstance(orientation, str) else None
