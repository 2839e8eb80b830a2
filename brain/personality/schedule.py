"""``schedule:``: a personality's quiet hours and night, in local time::

    schedule:
      quiet_hours: 21:00-08:00        # a range of the day, or a list of them
      bedtime: 22:00                  # the night: bedtime to wake_up (always quiet)
      wake_up: 07:00

Times are ``HH:MM`` on the host's local clock (``simulate --start`` sets the simulated one); a range
ending before it starts runs past midnight. This module reads the section into a
:class:`brain.rhythm.Schedule`, reporting each mistake with its file, line and key; what the
schedule does at run time is in :mod:`brain.rhythm`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brain.rhythm import Schedule, TimeRange, parse_clock, parse_range

from .located import LList, LMap, Loc, short_repr, suggest

if TYPE_CHECKING:
    from .builder import Builder

__all__ = ["SCHEDULE_KEYS", "build_schedule"]

#: The keys of ``schedule:``.
SCHEDULE_KEYS = ("quiet_hours", "bedtime", "wake_up")


def build_schedule(builder: Builder) -> Schedule:
    """The document's ``schedule:`` (an empty :class:`Schedule` when there is none or it has errors)."""
    doc = builder.doc
    raw = doc.get("schedule")
    if raw is None:
        return Schedule()
    issues = builder.issues
    if not isinstance(raw, LMap):
        issues.add(doc.at("schedule"), "schedule", f"expected a mapping with {', '.join(SCHEDULE_KEYS)}, "
                   f"got {short_repr(raw)}")
        return Schedule()
    ok = True
    for key in raw:
        if key not in SCHEDULE_KEYS:
            issues.add(raw.at(key), f"schedule.{key}", f"unknown key{suggest(str(key), SCHEDULE_KEYS)} "
                       f"(expected {', '.join(SCHEDULE_KEYS)})")
            ok = False
    quiet = _quiet_hours(builder, raw)
    times: dict[str, int | None] = {}
    for key in ("bedtime", "wake_up"):
        times[key] = None
        if raw.get(key) is not None:
            try:
                times[key] = parse_clock(raw[key])
            except ValueError as exc:
                issues.add(raw.at(key), f"schedule.{key}", str(exc))
                ok = False
    bedtime, wake_up = times["bedtime"], times["wake_up"]
    if ok and (bedtime is None) != (wake_up is None):
        given, missing = ("bedtime", "wake_up") if wake_up is None else ("wake_up", "bedtime")
        issues.add(raw.at(given), f"schedule.{given}", f"a night needs both bedtime and wake_up: {missing} is missing")
        ok = False
    if ok and bedtime is not None and bedtime == wake_up:
        issues.add(raw.at("wake_up"), "schedule.wake_up", "must differ from bedtime")
        ok = False
    if quiet is None or not ok:
        return Schedule()
    return Schedule(quiet_hours=tuple(quiet), bedtime_s=bedtime, wake_up_s=wake_up)


def _quiet_hours(builder: Builder, raw: LMap) -> list[TimeRange] | None:
    """``quiet_hours``: one range or a list of them; None after an error."""
    value = raw.get("quiet_hours")
    if value is None:
        return []
    items: list[tuple[Any, Loc, str]]
    if isinstance(value, LList):
        items = [(v, value.at(i), f"schedule.quiet_hours[{i}]") for i, v in enumerate(value)]
    else:
        items = [(value, raw.at("quiet_hours"), "schedule.quiet_hours")]
    out: list[TimeRange] = []
    for item, loc, path in items:
        try:
            out.append(parse_range(item))
        except ValueError as exc:
            builder.issues.add(loc, path, str(exc))
            return None
    return out
