"""Conditions on the local time of day: the personality's quiet hours and night, and any range.

They read the brain's :class:`brain.rhythm.DayRhythm` (``ctx.rhythm``), which the brain updates
at the start of every beat, so a whole tick sees one answer. Without a day clock (``check``,
``tree``) they fail, saying why.
"""

from __future__ import annotations

from brain.context import BrainContext
from brain.rhythm import TimeRange, format_clock

from .conditions import _Condition

__all__ = ["Night", "QuietHours", "TimeOfDay"]


class QuietHours(_Condition):
    """SUCCESS during the personality's quiet hours (its night included): no sounds, no driving."""

    def check(self) -> bool | str:
        rhythm = self.ctx.rhythm
        if rhythm is None:
            return "no day clock"
        return bool(rhythm.quiet)

    def in_words(self, passed: bool) -> str | None:
        return _at(self.ctx, "in the quiet hours" if passed else "not in the quiet hours")


class Night(_Condition):
    """SUCCESS between the personality's bedtime and wake-up time."""

    def check(self) -> bool | str:
        rhythm = self.ctx.rhythm
        if rhythm is None:
            return "no day clock"
        return bool(rhythm.night)

    def in_words(self, passed: bool) -> str | None:
        return _at(self.ctx, "night" if passed else "not night")


class TimeOfDay(_Condition):
    """SUCCESS while the local time of day is in [``start_s``, ``end_s``) (past midnight when end < start)."""

    def __init__(self, name: str, ctx: BrainContext, start_s: int, end_s: int) -> None:
        super().__init__(name, ctx)
        self.range = TimeRange(start_s, end_s)

    def check(self) -> bool | str:
        rhythm = self.ctx.rhythm
        if rhythm is None:
            return "no day clock"
        return self.range.contains(rhythm.time_of_day())

    def in_words(self, passed: bool) -> str | None:
        span = f"{format_clock(self.range.start_s)} to {format_clock(self.range.end_s)}"
        return _at(self.ctx, f"{'' if passed else 'not '}from {span}")


def _at(ctx: BrainContext, what: str) -> str | None:
    """``it is 23:10, night``: the sentence with the local time, None without a day clock."""
    rhythm = ctx.rhythm
    if rhythm is None:
        return None
    return f"it is {format_clock(rhythm.time_of_day())}, {what}"
