"""Whether the robot is awake, drowsy or asleep, since when and why.

Arousal is brain state (:attr:`brain.context.BrainContext.arousal`), written by the tick only:
the sleep behaviours say when the robot falls asleep and what woke it, and the day report, its
picture and the dashboard read it instead of guessing sleep from the branch's name. ``drowsy``
is the state between: sleepier than awake, not yet asleep.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = ["AROUSAL_STATES", "Arousal", "ArousalChange", "ArousalState"]

ArousalState = Literal["awake", "drowsy", "asleep"]
#: The states, from the most awake.
AROUSAL_STATES: tuple[ArousalState, ...] = ("awake", "drowsy", "asleep")


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
        self.changes.append(ArousalChange(now, state, why))
        del self.changes[:-self.max_changes]

    def fall_asleep(self, now: float, why: str) -> None:
        """The robot falls asleep (``why``: what put it to sleep)."""
        self.set("asleep", now, why)

    def wake(self, now: float, why: str) -> None:
        """The robot wakes up (``why``: what woke it)."""
        self.set("awake", now, why)
