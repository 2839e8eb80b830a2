"""The report of a simulated day: totals, the timeline, liveliness, as JSON, Markdown and log lines.

:class:`SimulationReport` is what ``cozmo-brain simulate`` hands back: simulated and wall time,
time and starts per top-level branch and per behaviour, the clips that reached the robot, the
reactions, the mood's range and a coarse time series, the sleep episodes, the quiet hours, the
day's ``timeline`` and the ``liveliness`` measures computed from it
(:mod:`brain.app.liveliness`). The Markdown form links a picture of the day
(:mod:`brain.app.day_picture`) written beside it.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["MAX_EPISODES", "SERIES_POINTS", "SimulationReport", "SleepEpisode", "hms", "liveliness_line",
           "liveliness_rows", "md_table", "pct"]

#: Points in the report's mood time series (at most; a bucket is never shorter than 10 s).
SERIES_POINTS = 60
#: Sleep episodes listed one by one in the report (all are counted).
MAX_EPISODES = 200


@dataclass
class SleepEpisode:
    """One stretch of sleep: when it began (s after start), how long, and what ended it."""

    start_s: float
    duration_s: float
    ended_by: str


@dataclass
class SimulationReport:
    """What the robot did over the simulated time (times in seconds unless named otherwise)."""

    personality: str
    personality_file: str
    seed: int
    heartbeat_hz: float
    #: the simulated local time of day at the start (HH:MM)
    start_clock: str = "09:00"
    #: the personality's quiet hours and night, as one line
    schedule: str = ""
    simulated_s: float = 0.0
    wall_s: float = 0.0
    beats: int = 0
    median_beat_ms: float = 0.0
    branch_s: dict[str, float] = field(default_factory=dict)
    branch_starts: dict[str, int] = field(default_factory=dict)
    behavior_s: dict[str, float] = field(default_factory=dict)
    behavior_starts: dict[str, int] = field(default_factory=dict)
    animations: dict[str, int] = field(default_factory=dict)
    reactions: dict[str, int] = field(default_factory=dict)
    mood: dict[str, dict[str, float]] = field(default_factory=dict)
    simple_mood_s: dict[str, float] = field(default_factory=dict)
    #: each need (Energy, Play, Repair): its lowest level over the day and its last
    needs: dict[str, dict[str, float]] = field(default_factory=dict)
    mood_series: list[dict[str, Any]] = field(default_factory=list)
    sleep_count: int = 0
    sleep_total_s: float = 0.0
    first_sleep_at_s: float | None = None
    sleep_episodes: list[SleepEpisode] = field(default_factory=list)
    scripted_events: int = 0
    safety_stops: int = 0
    #: times the robot's middle reached the table's edge (the simulator's rim held it; a real robot
    #: would have gone over)
    over_the_edge: int = 0
    face_images: int = 0
    #: how the robot saw: ``mode`` (sight: the room's geometry, pixels: rendered and detected, off),
    #: ``looks`` (pictures or looks analysed), ``faces_seen`` and ``motion_seen`` (events)
    eyes: dict[str, Any] = field(default_factory=dict)
    link: dict[str, Any] = field(default_factory=dict)
    #: quiet hours: how long, when (``spans``), the sound frames and wheel commands that reached the
    #: robot meanwhile, and the same counts ``outside`` them
    quiet: dict[str, Any] = field(default_factory=dict)
    liveliness: dict[str, Any] = field(default_factory=dict)
    #: the day's mood, finer than ``mood_series``: {"t": [s …], "emotions": {name: [value …]}}
    mood_curve: dict[str, Any] = field(default_factory=dict)
    #: every behaviour change, clip start, reaction start, scripted step, fall-asleep and wake-up
    timeline: list[dict[str, Any]] = field(default_factory=list)

    @property
    def speedup(self) -> float:
        """Simulated seconds per wall second."""
        return self.simulated_s / self.wall_s if self.wall_s > 0 else math.inf

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready content, with the speed-up."""
        out = asdict(self)
        out["speedup"] = round(self.speedup, 1) if math.isfinite(self.speedup) else None
        return out

    def to_json(self) -> str:
        """The report as indented JSON (the timeline one entry a line, to stay readable)."""
        data = self.as_dict()
        timeline = data.pop("timeline")
        text = json.dumps(data, indent=2, sort_keys=False)
        entries = ",\n    ".join(json.dumps(e) for e in timeline)
        return text[:-2] + ',\n  "timeline": [' + (f"\n    {entries}\n  " if entries else "") + "]\n}\n"

    def to_markdown(self, picture: str | None = None) -> str:
        """The report as a Markdown document (``picture``: the day's picture to link, beside it)."""
        sim_h = self.simulated_s / 3600.0
        lines = [
            f"# Simulation of `{self.personality}`",
            "",
            f"- personality file: `{self.personality_file}`, seed {self.seed}, heartbeat {self.heartbeat_hz:g} Hz",
            f"- simulated {sim_h:.2f} h ({self.simulated_s:.0f} s) from {self.start_clock} local time "
            f"in {self.wall_s:.1f} s wall: **{self.speedup:.0f}x** real time",
            f"- {self.beats} beats, median beat {self.median_beat_ms:.3f} ms of CPU",
            f"- scripted events {self.scripted_events}, safety stops {self.safety_stops}, "
            f"over the table's edge {self.over_the_edge}, face images shown {self.face_images}",
            f"- schedule: {self.schedule or 'none'}"
            + (f"; quiet for {hms(self.quiet.get('seconds', 0.0))}, meanwhile {self.quiet.get('sound_frames', 0)} "
               f"sound frames and {self.quiet.get('wheel_commands', 0)} wheel commands reached the robot"
               if self.quiet.get("seconds") else ""),
            "",
        ]
        if picture:
            lines += ["## The day", "", f"![The day: awake and asleep, behaviours, mood, stimuli]({picture})", ""]
        if self.liveliness:
            lines += md_table("Liveliness", ("measure", "value"), liveliness_rows(self.liveliness))
        lines += [
            "## Sleep",
            "",
            f"Slept {self.sleep_count} time(s), {hms(self.sleep_total_s)} in total "
            f"({pct(self.sleep_total_s, self.simulated_s)} of the time); "
            + (f"first fell asleep after {hms(self.first_sleep_at_s)}." if self.first_sleep_at_s is not None
               else "never fell asleep."),
            "",
        ]
        if self.sleep_episodes:
            lines += ["| start | duration | ended by |", "|---|---|---|"]
            lines += [f"| {hms(e.start_s)} | {hms(e.duration_s)} | {e.ended_by} |" for e in self.sleep_episodes]
            lines.append("")
        lines += md_table("Time per top-level branch", ("branch", "time", "share", "starts"),
                        [(k, hms(v), pct(v, self.simulated_s), self.branch_starts.get(k, 0))
                         for k, v in _by_value(self.branch_s)])
        lines += md_table("Behaviours", ("behaviour", "time", "share", "starts"),
                        [(k, hms(v), pct(v, self.simulated_s), self.behavior_starts.get(k, 0))
                         for k, v in _by_value(self.behavior_s)])
        lines += md_table("Animations that reached the robot", ("clip", "plays"), _by_value(self.animations))
        lines += md_table("Reactions", ("trigger", "times"), _by_value(self.reactions))
        lines += md_table("Mood", ("emotion", "min", "mean", "max", "final"),
                        [(k, *(f"{v[s]:+.2f}" for s in ("min", "mean", "max", "final")))
                         for k, v in self.mood.items()])
        lines += md_table("Needs", ("need", "lowest", "final"),
                        [(k, f"{v['min']:.2f}", f"{v['final']:.2f}") for k, v in self.needs.items()])
        lines += md_table("Simple mood", ("simple mood", "time", "share"),
                        [(k, hms(v), pct(v, self.simulated_s)) for k, v in _by_value(self.simple_mood_s)])
        if self.mood_series:
            emotions = list(self.mood)
            lines += md_table("Mood over time (bucket means)", ("t", *emotions, "mostly"),
                            [(hms(p["t_s"]), *(f"{p['emotions'].get(e, 0.0):+.2f}" for e in emotions), p["branch"])
                             for p in self.mood_series])
        lines += md_table("Link", ("counter", "value"), list(self.link.items()))
        return "\n".join(lines).rstrip("\n") + "\n"

    def summary_lines(self) -> list[str]:
        """A few lines for the log."""
        out = [
            f"simulated {self.simulated_s / 3600:.2f} h of {self.personality} in {self.wall_s:.1f} s wall "
            f"({self.speedup:.0f}x real time, {self.beats} beats, median beat {self.median_beat_ms:.2f} ms)",
            "time per branch: " + (", ".join(f"{k} {pct(v, self.simulated_s)}" for k, v in _by_value(self.branch_s))
                                   or "none"),
            "behaviours started: " + (", ".join(f"{k} x{v}" for k, v in _by_value(self.behavior_starts)[:8])
                                      or "none"),
            f"animations: {sum(self.animations.values())} plays of {len(self.animations)} clips; reactions: "
            + (", ".join(f"{k} x{v}" for k, v in _by_value(self.reactions)) or "none"),
            f"slept {self.sleep_count} time(s), {hms(self.sleep_total_s)} in total"
            + (f", first after {hms(self.first_sleep_at_s)}" if self.first_sleep_at_s is not None else ""),
            "mood (min/mean/max): " + ", ".join(f"{k} {v['min']:+.2f}/{v['mean']:+.2f}/{v['max']:+.2f}"
                                                for k, v in self.mood.items()),
        ]
        if self.needs:
            out.append("needs (lowest/final): " + ", ".join(f"{k} {v['min']:.2f}/{v['final']:.2f}"
                                                            for k, v in self.needs.items()))
        if self.eyes:
            e = self.eyes
            out.append(f"eyes: {e.get('mode')}, {e.get('looks', 0)} looks, {e.get('faces_seen', 0)} faces seen, "
                       f"{e.get('motion_seen', 0)} motion events")
        if self.liveliness:
            out.append("liveliness: " + liveliness_line(self.liveliness))
        if self.quiet.get("seconds"):
            out.append(f"quiet hours: {hms(self.quiet['seconds'])}, {self.quiet['sound_frames']} sound frames and "
                       f"{self.quiet['wheel_commands']} wheel commands reached the robot meanwhile")
        return out


def _frac(value: Any, digits: int = 1) -> str:
    return "-" if value is None else f"{100.0 * float(value):.{digits}f}%"


def liveliness_rows(live: dict[str, Any]) -> list[tuple[str, str]]:
    """The liveliness measures as (measure, value) rows for a table."""
    rows = [
        ("awake share", f"{_frac(live.get('awake_share'))} ({hms(live.get('awake_s'))})"),
        ("distinct behaviours per awake hour", f"{live.get('distinct_behaviours_per_awake_hour', 0):g} "
                                               f"({live.get('distinct_behaviours', 0)} in all)"),
        ("largest single behaviour share of awake time (pauses excluded)",
         f"{_frac(live.get('largest_behaviour_share'))} ({live.get('largest_behaviour') or '-'})"),
        ("clips repeating the previous clip", f"{_frac(live.get('clip_repeat_share'), 2)} "
                                              f"({live.get('clip_repeats', 0)} of {live.get('clips_awake', 0)})"),
        ("stimuli answered within 1 s", f"{live.get('stimuli_answered_1s', 0)} / {live.get('stimuli', 0)}"),
        ("faces arriving awake, greeted or looked at", f"{live.get('faces_answered', 0)} / "
                                                      f"{live.get('faces_awake', 0)}"),
        ("wake-ups with the wake-up animation", f"{live.get('wake_ups_animated', 0)} / {live.get('wake_ups', 0)}"),
        ("naps (longest; woke by itself)", f"{live.get('naps', 0)} ({hms(live.get('longest_nap_s'))}; "
                                           f"{live.get('woke_by_itself', 0)})"),
    ]
    for emotion, v in live.get("emotions", {}).items():
        rows.append((f"{emotion} min / max (range)", f"{v['min']:+.2f} / {v['max']:+.2f} ({v['range']:.2f})"))
    return rows


def liveliness_line(live: dict[str, Any]) -> str:
    """The liveliness measures on one line."""
    ranges = live.get("emotions", {})
    low = min(ranges.items(), key=lambda kv: kv[1]["range"], default=None)
    return (f"awake {_frac(live.get('awake_share'))}, {live.get('distinct_behaviours_per_awake_hour', 0):g} "
            f"behaviours/awake h, largest {_frac(live.get('largest_behaviour_share'))} "
            f"({live.get('largest_behaviour') or '-'}), clip repeats {_frac(live.get('clip_repeat_share'), 2)}, "
            f"answered {live.get('stimuli_answered_1s', 0)}/{live.get('stimuli', 0)}, "
            f"faces {live.get('faces_answered', 0)}/{live.get('faces_awake', 0)}, "
            f"animated wake-ups {live.get('wake_ups_animated', 0)}/{live.get('wake_ups', 0)}, "
            f"longest nap {hms(live.get('longest_nap_s'))}"
            + (f", narrowest emotion {low[0]} {low[1]['range']:.2f}" if low else ""))


def _by_value(d: dict[str, Any]) -> list[tuple[str, Any]]:
    return sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))


def pct(part: float, whole: float) -> str:
    """``part`` as a percentage of ``whole`` (``-`` when there is no whole)."""
    return f"{100.0 * part / whole:.1f}%" if whole > 0 else "-"


def hms(seconds: float | None) -> str:
    """Seconds as ``H:MM:SS`` (``-`` for None)."""
    if seconds is None:
        return "-"
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def md_table(title: str, header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> list[str]:
    """A Markdown section: a heading and a table (or ``(none)``)."""
    out = [f"## {title}", ""]
    if not rows:
        return [*out, "(none)", ""]
    out.append("| " + " | ".join(header) + " |")
    out.append("|" + "---|" * len(header))
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return [*out, ""]
