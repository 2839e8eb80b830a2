"""Whether the robot is awake, drowsy or asleep, since when and why, and how sleepy it is.

Arousal is brain state (:attr:`brain.context.BrainContext.arousal`), written by the tick only:
the sleep behaviours say when the robot falls asleep and what woke it, and the day report, its
picture and the dashboard read it instead of guessing sleep from the branch's name. ``drowsy``
is the state between: sleepier than awake, not yet asleep.

Sleepiness is a sleep debt in seconds, as Anki's Vector kept one (personality.md, "Sleep debt"):
it builds while the robot is awake (``tire_rate`` seconds a second), is paid back while it
sleeps (``rest_rate``), and everything that happens to the robot pays some of it off at once
(``stimuli``: a poke, a pick-up, a face, the button …), even below nothing (``reserve_s``), so
a lively visit keeps it up for a while after. At ``sleepy_after_s`` the robot is
sleepy (the ``sleepy`` condition); a nap ends by itself once the debt is paid (rested), or after
``nap_max_s``. On its charger it is sleepy sooner (``sleepy_on_charger_s``). With the defaults a
robot left alone is up about 20 minutes and naps about 25: awake some 45 % of a quiet day, while
visitors keep it up.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

__all__ = ["AROUSAL_STATES", "DEFAULT_STIMULI", "SEEN_KINDS", "TIRING_PACE", "TIRING_SHARE", "Arousal", "ArousalChange",
           "ArousalState", "SleepParams"]

log = logging.getLogger("cozmo_brain")

ArousalState = Literal["awake", "drowsy", "asleep"]
#: The states, from the most awake.
AROUSAL_STATES: tuple[ArousalState, ...] = ("awake", "drowsy", "asleep")


#: How many seconds of sleep debt one event of each kind pays off: being handled counts most, a
#: face a lot (someone is here), motion a little (it may be nothing). A face that keeps moving in
#: view keeps paying, so it does not tire while someone is with it.
DEFAULT_STIMULI: Mapping[str, float] = MappingProxyType({
    "poked": 180.0, "picked_up": 240.0, "returned_to_treads": 60.0, "shaken": 120.0, "button": 180.0,
    "cube_tapped": 150.0, "cube_moved": 30.0, "face_seen": 150.0, "face_moved": 3.0, "motion_seen": 10.0,
    "falling_started": 240.0,
})


#: What the camera reports. Asleep these pay nothing off: the sleeper decides whether a face it sees
#: wakes it (and the day report never names them as what woke it).
SEEN_KINDS = frozenset({"face_seen", "face_moved", "face_lost", "face_glimpsed", "motion_seen"})

#: The share of the sleepy level from which an awake robot looks tired (see :attr:`Arousal.tiring`).
TIRING_SHARE = 0.75
#: How much more slowly a tired robot blinks and glances around.
TIRING_PACE = 2.5


@dataclass(frozen=True)
class SleepParams:
    """How a robot tires and rests (a personality's ``arousal:`` section; see the module docstring)."""

    #: sleep debt (s) at which it is sleepy: this long awake with nothing happening
    sleepy_after_s: float = 1200.0
    #: debt added per second awake
    tire_rate: float = 1.0
    #: debt paid back per second asleep
    rest_rate: float = 0.8
    #: a nap ends by itself after this long even if the debt is not paid (s)
    nap_max_s: float = 2700.0
    #: debt (s) at start-up
    initial_debt_s: float = 0.0
    #: on its charger it is sleepy at this debt instead (s): it prefers to sleep there
    sleepy_on_charger_s: float = 600.0
    #: what happens can pay the debt below nothing, down to minus this (s): a lively visit keeps
    #: it up longer than one it merely woke for (sleep itself pays it only to nothing)
    reserve_s: float = 900.0
    #: seconds of debt one event of a kind pays off
    stimuli: Mapping[str, float] = field(default_factory=lambda: DEFAULT_STIMULI)

    @property
    def max_debt_s(self) -> float:
        """The debt never grows past this (s): twice sleepy, so a long day does not need a night to clear."""
        return 2.0 * self.sleepy_after_s


@dataclass(frozen=True)
class ArousalChange:
    """One change of state: when, to what, and why (``woken by poked``, ``nap over`` …)."""

    at: float
    state: ArousalState
    why: str


@dataclass
class Arousal:
    """The robot's arousal now, since when and why, and its last changes (a bounded history)."""

    state: ArousalState = "awake"
    since: float = 0.0
    why: str = "started"
    changes: list[ArousalChange] = field(default_factory=list)
    max_changes: int = 64
    params: SleepParams = field(default_factory=SleepParams)
    #: sleep debt now (s)
    debt_s: float = 0.0
    #: whether the robot sits on its charger (the brain says so every beat)
    on_charger: bool = False
    _updated: float | None = None

    def configure(self, params: SleepParams) -> None:
        """Take a personality's parameters; the first time, start from their initial debt."""
        first = self._updated is None
        self.params = params
        if first:
            self.debt_s = params.initial_debt_s

    def update(self, events: Iterable[Any], now: float) -> None:
        """Tire or rest for the time since the last update, then let ``events`` (robot events with
        a ``kind``) pay off what they are worth (asleep, only what it feels: see :data:`SEEN_KINDS`)."""
        p = self.params
        asleep = self.state == "asleep"
        if self._updated is not None and now > self._updated:
            dt = now - self._updated
            if asleep:
                self.debt_s = max(self.debt_s - p.rest_rate * dt, min(self.debt_s, 0.0))
            else:
                self.debt_s += p.tire_rate * dt
        self._updated = now
        for event in events:
            if getattr(event, "value", True) is False or getattr(event, "pressed", True) is False:
                continue  # the end of something (put down, the button let go) is not a new stimulus
            kind = getattr(event, "kind", "")
            if not (asleep and kind in SEEN_KINDS):
                self.debt_s -= p.stimuli.get(kind, 0.0)
        self.debt_s = min(max(self.debt_s, -p.reserve_s), p.max_debt_s)

    @property
    def sleepy_level_s(self) -> float:
        """The debt at which it is sleepy now: lower on the charger, where it prefers to sleep."""
        p = self.params
        return min(p.sleepy_on_charger_s, p.sleepy_after_s) if self.on_charger else p.sleepy_after_s

    @property
    def sleepy(self) -> bool:
        """Whether the debt has reached the sleepy level."""
        return self.debt_s >= self.sleepy_level_s

    @property
    def tiring(self) -> bool:
        """Awake and at least :data:`TIRING_SHARE` of the way to sleepy: heavy eyelids, slow blinks."""
        return self.state == "awake" and self.debt_s >= TIRING_SHARE * self.sleepy_level_s

    @property
    def rested(self) -> bool:
        """Whether the debt is paid."""
        return self.debt_s <= 0.0

    @property
    def asleep(self) -> bool:
        """Whether the robot sleeps now."""
        return self.state == "asleep"

    def set(self, state: ArousalState, now: float, why: str) -> None:
        """Move to ``state`` (nothing happens when it is already there)."""
        if state not in AROUSAL_STATES:
            raise ValueError(f"unknown arousal state {state!r}; expected one of {', '.join(AROUSAL_STATES)}")
        if state == self.state:
            return
        self.state, self.since, self.why = state, now, why
        log.info("%s (%s), sleep debt %.0f s", state, why, self.debt_s)
        self.changes.append(ArousalChange(now, state, why))
        del self.changes[:-self.max_changes]

    def fall_asleep(self, now: float, why: str) -> None:
        """The robot falls asleep (``why``: what put it to sleep)."""
        self.set("asleep", now, why)

    def wake(self, now: float, why: str) -> None:
        """The robot wakes up (``why``: what woke it)."""
        self.set("awake", now, why)
