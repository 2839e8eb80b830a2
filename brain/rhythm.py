"""The day's rhythm: a personality's quiet hours and night, on a local clock.

Owners live by the clock: nobody wants a robot that chirps and drives about at two in the morning,
and a pet that sleeps at night and gets up in the morning feels alive. A personality declares its
*schedule* in YAML (``schedule:``, read by :mod:`brain.personality.schedule`): quiet hours (ranges
of the local time of day) and a night (bedtime to wake-up). The night always counts as quiet.

:class:`DayRhythm` applies a schedule to a *day clock*, a function returning the local time of
day in seconds after midnight: the host's local time for ``run`` (:func:`host_time_of_day`), a
simulated day for ``simulate`` (:func:`simulated_day_clock`, started at ``--start HH:MM``). The
brain updates it once per beat: conditions read :attr:`DayRhythm.quiet` and
:attr:`DayRhythm.night`, and each change comes out as an event
(:class:`driver.events.QuietHoursChanged`, :class:`driver.events.NightChanged`) that reactions and
``recent_event`` can use, e.g. to wake up with a stretch when the night is over.

While it is quiet the engine keeps the robot quiet whatever the tree asks: the animation
controller's audio and body tracks are held (clips play their face, head and lift, silently and
without driving), and :class:`HeldWheels` refuses wheel commands from the tree's nodes (stopping
the wheels is always allowed).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from driver import events as ev
from driver.robot import RobotError

__all__ = [
    "DAY_S",
    "DayRhythm",
    "HeldWheels",
    "Schedule",
    "TimeRange",
    "format_clock",
    "host_time_of_day",
    "parse_clock",
    "parse_range",
    "simulated_day_clock",
]

#: Seconds in a day.
DAY_S = 86400

_CLOCK = re.compile(r"\s*([01]?\d|2[0-3]):([0-5]\d)\s*")


def parse_clock(text: Any) -> int:
    """A time of day written ``HH:MM`` (00:00 … 23:59) as seconds after midnight.

    Raises ValueError with a message saying what was expected.
    """
    match = _CLOCK.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"expected a time of day as HH:MM (00:00 to 23:59), got {text!r}")
    return int(match.group(1)) * 3600 + int(match.group(2)) * 60


def format_clock(seconds: float) -> str:
    """Seconds after midnight as ``HH:MM`` (wrapped into one day)."""
    minutes = int(seconds // 60) % (DAY_S // 60)
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


@dataclass(frozen=True)
class TimeRange:
    """From ``start_s`` to ``end_s`` (seconds after midnight); past midnight when end < start."""

    start_s: int
    end_s: int

    def __post_init__(self) -> None:
        if self.start_s == self.end_s:
            raise ValueError(f"a range needs two different times, got {format_clock(self.start_s)} twice")

    def contains(self, t: float) -> bool:
        """Whether the time of day ``t`` (seconds after midnight) is inside: start included, end not."""
        t %= DAY_S
        if self.start_s < self.end_s:
            return self.start_s <= t < self.end_s
        return t >= self.start_s or t < self.end_s

    def __str__(self) -> str:
        return f"{format_clock(self.start_s)}-{format_clock(self.end_s)}"


def parse_range(text: Any) -> TimeRange:
    """``"HH:MM-HH:MM"`` as a :class:`TimeRange`; raises ValueError saying what was expected."""
    if not isinstance(text, str) or text.count("-") != 1:
        raise ValueError(f"expected a range of the day as HH:MM-HH:MM, got {text!r}")
    start, end = text.split("-")
    return TimeRange(parse_clock(start), parse_clock(end))


@dataclass(frozen=True)
class Schedule:
    """A personality's day: quiet hours, and a night from ``bedtime_s`` to ``wake_up_s``.

    An empty schedule (the default) is never quiet and has no night.
    """

    quiet_hours: tuple[TimeRange, ...] = ()
    bedtime_s: int | None = None
    wake_up_s: int | None = None

    @property
    def night_range(self) -> TimeRange | None:
        """Bedtime to wake-up, or None without a night."""
        if self.bedtime_s is None or self.wake_up_s is None:
            return None
        return TimeRange(self.bedtime_s, self.wake_up_s)

    def is_night(self, t: float) -> bool:
        """Between bedtime and wake-up at the time of day ``t``."""
        night = self.night_range
        return night is not None and night.contains(t)

    def is_quiet(self, t: float) -> bool:
        """Inside a quiet range or the night at the time of day ``t``."""
        return self.is_night(t) or any(r.contains(t) for r in self.quiet_hours)

    def describe(self) -> str:
        """One line for the log."""
        parts = []
        if self.quiet_hours:
            parts.append("quiet " + ", ".join(map(str, self.quiet_hours)))
        if self.night_range is not None:
            parts.append(f"night {self.night_range}")
        return "; ".join(parts) or "no quiet hours"


def host_time_of_day() -> float:
    """The host's local time of day in seconds after midnight (daylight saving included)."""
    now = time.time()
    local = time.localtime(now)
    return local.tm_hour * 3600 + local.tm_min * 60 + local.tm_sec + (now % 1.0)


def simulated_day_clock(start_s: float, loop_time: Callable[[], float]) -> Callable[[], float]:
    """A day clock that reads ``start_s`` now and runs with ``loop_time`` (a virtual loop's clock)."""
    origin = loop_time()
    return lambda: (start_s + loop_time() - origin) % DAY_S


class DayRhythm:
    """A schedule on a day clock: whether it is quiet or night now, and events when that changes.

    :meth:`update` is called once per beat by the brain (the tick then reads :attr:`quiet` and
    :attr:`night`); the first update only takes the state in, later ones return the changes as
    events. A new schedule (a personality reload) applies from the next update.
    """

    def __init__(self, clock: Callable[[], float] = host_time_of_day, schedule: Schedule | None = None) -> None:
        self.clock = clock
        self.schedule = schedule or Schedule()
        self.quiet = False
        self.night = False
        self._started = False

    def time_of_day(self) -> float:
        """The day clock now: seconds after local midnight."""
        return self.clock() % DAY_S

    def update(self, now: float) -> list[ev.RobotEvent]:
        """Read the clock; returns the changes since the last update as events stamped ``now``."""
        t = self.time_of_day()
        quiet, night = self.schedule.is_quiet(t), self.schedule.is_night(t)
        out: list[ev.RobotEvent] = []
        if self._started:
            if night != self.night:
                out.append(ev.NightChanged(now, value=night))
            if quiet != self.quiet:
                out.append(ev.QuietHoursChanged(now, value=quiet))
        self._started = True
        self.quiet, self.night = quiet, night
        return out

    def quiet_until(self) -> str:
        """When the current quiet stretch ends, as HH:MM (scanning minute by minute), or ``-``."""
        t = self.time_of_day()
        for minute in range(1, DAY_S // 60 + 1):
            if not self.schedule.is_quiet(t + minute * 60):
                return format_clock(t + minute * 60)
        return "-"


#: Robot methods that turn the wheels.
WHEEL_METHODS = ("drive_wheels", "turn_in_place", "drive_path")


class HeldWheels:
    """The robot as the tree's nodes see it: the wheels refuse to turn while ``held()`` says why.

    Every attribute is the robot's own, except the wheel commands (:data:`WHEEL_METHODS`), which
    raise :class:`driver.robot.RobotError` while ``held()`` returns a reason (nodes already turn
    a RobotError into FAILURE, so an explore or a turn simply does not happen). Stopping the wheels
    (``drive_wheels(0, 0)``) always goes through. Safety talks to the robot itself, not through this.
    """

    def __init__(self, robot: Any, held: Callable[[], str | None]) -> None:
        self._robot = robot
        self._held = held

    @property
    def robot(self) -> Any:
        """The robot behind the gate."""
        return self._robot

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._robot, name)
        if name not in WHEEL_METHODS:
            return value

        def gated(*args: Any, **kwargs: Any) -> Any:
            why = self._held()
            stopping = name == "drive_wheels" and not any(
                [*args[:2], kwargs.get("left_mmps", 0.0), kwargs.get("right_mmps", 0.0)])
            if why is not None and not stopping:
                raise RobotError(f"{why}: the wheels are held")
            return value(*args, **kwargs)

        return gated
