"""The report of ``cozmo-brain simulate`` and the recorder that fills it while the stack runs.

Kept apart from the command (:mod:`brain.app.simulate`): what is measured and how it is
written (JSON, Markdown, the log summary) is one idea; building the stack on virtual time,
logging and the command line are another.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

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
    mood_series: list[dict[str, Any]] = field(default_factory=list)
    sleep_count: int = 0
    sleep_total_s: float = 0.0
    first_sleep_at_s: float | None = None
    sleep_episodes: list[SleepEpisode] = field(default_factory=list)
    scripted_events: int = 0
    safety_stops: int = 0
    face_images: int = 0
    link: dict[str, Any] = field(default_factory=dict)

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
        """The report as indented JSON."""
        return json.dumps(self.as_dict(), indent=2, sort_keys=False) + "\n"

    def to_markdown(self) -> str:
        """The report as a Markdown document."""
        sim_h = self.simulated_s / 3600.0
        lines = [
            f"# Simulation of `{self.personality}`",
            "",
            f"- personality file: `{self.personality_file}`, seed {self.seed}, heartbeat {self.heartbeat_hz:g} Hz",
            f"- simulated {sim_h:.2f} h ({self.simulated_s:.0f} s) in {self.wall_s:.1f} s wall: "
            f"**{self.speedup:.0f}x** real time",
            f"- {self.beats} beats, median beat {self.median_beat_ms:.3f} ms of CPU",
            f"- scripted events {self.scripted_events}, safety stops {self.safety_stops}, "
            f"face images shown {self.face_images}",
            "",
            "## Sleep",
            "",
            f"Slept {self.sleep_count} time(s), {_hms(self.sleep_total_s)} in total "
            f"({_pct(self.sleep_total_s, self.simulated_s)} of the time); "
            + (f"first fell asleep after {_hms(self.first_sleep_at_s)}." if self.first_sleep_at_s is not None
               else "never fell asleep."),
            "",
        ]
        if self.sleep_episodes:
            lines += ["| start | duration | ended by |", "|---|---|---|"]
            lines += [f"| {_hms(e.start_s)} | {_hms(e.duration_s)} | {e.ended_by} |" for e in self.sleep_episodes]
            lines.append("")
        lines += _table("Time per top-level branch", ("branch", "time", "share", "starts"),
                        [(k, _hms(v), _pct(v, self.simulated_s), self.branch_starts.get(k, 0))
                         for k, v in _by_value(self.branch_s)])
        lines += _table("Behaviours", ("behaviour", "time", "share", "starts"),
                        [(k, _hms(v), _pct(v, self.simulated_s), self.behavior_starts.get(k, 0))
                         for k, v in _by_value(self.behavior_s)])
        lines += _table("Animations that reached the robot", ("clip", "plays"), _by_value(self.animations))
        lines += _table("Reactions", ("trigger", "times"), _by_value(self.reactions))
        lines += _table("Mood", ("emotion", "min", "mean", "max", "final"),
                        [(k, *(f"{v[s]:+.2f}" for s in ("min", "mean", "max", "final")))
                         for k, v in self.mood.items()])
        lines += _table("Simple mood", ("simple mood", "time", "share"),
                        [(k, _hms(v), _pct(v, self.simulated_s)) for k, v in _by_value(self.simple_mood_s)])
        if self.mood_series:
            emotions = list(self.mood)
            lines += _table("Mood over time (bucket means)", ("t", *emotions, "mostly"),
                            [(_hms(p["t_s"]), *(f"{p['emotions'].get(e, 0.0):+.2f}" for e in emotions), p["branch"])
                             for p in self.mood_series])
        lines += _table("Link", ("counter", "value"), list(self.link.items()))
        return "\n".join(lines).rstrip("\n") + "\n"

    def summary_lines(self) -> list[str]:
        """A few lines for the log."""
        out = [
            f"simulated {self.simulated_s / 3600:.2f} h of {self.personality} in {self.wall_s:.1f} s wall "
            f"({self.speedup:.0f}x real time, {self.beats} beats, median beat {self.median_beat_ms:.2f} ms)",
            "time per branch: " + (", ".join(f"{k} {_pct(v, self.simulated_s)}" for k, v in _by_value(self.branch_s))
                                   or "none"),
            "behaviours started: " + (", ".join(f"{k} x{v}" for k, v in _by_value(self.behavior_starts)[:8])
                                      or "none"),
            f"animations: {sum(self.animations.values())} plays of {len(self.animations)} clips; reactions: "
            + (", ".join(f"{k} x{v}" for k, v in _by_value(self.reactions)) or "none"),
            f"slept {self.sleep_count} time(s), {_hms(self.sleep_total_s)} in total"
            + (f", first after {_hms(self.first_sleep_at_s)}" if self.first_sleep_at_s is not None else ""),
            "mood (min/mean/max): " + ", ".join(f"{k} {v['min']:+.2f}/{v['mean']:+.2f}/{v['max']:+.2f}"
                                                for k, v in self.mood.items()),
        ]
        return out


def _by_value(d: dict[str, Any]) -> list[tuple[str, Any]]:
    return sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))


def _pct(part: float, whole: float) -> str:
    return f"{100.0 * part / whole:.1f}%" if whole > 0 else "-"


def _hms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _table(title: str, header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> list[str]:
    out = [f"## {title}", ""]
    if not rows:
        return [*out, "(none)", ""]
    out.append("| " + " | ".join(header) + " |")
    out.append("|" + "---|" * len(header))
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return [*out, ""]


# ----------------------------------------------------------------------------- recording


class Recorder:
    """Turns the brain's per-beat snapshots and the simulator's messages into a report.

    Each beat is charged with the time until the next beat. The *top-level branch* is the
    personality root's child on the active path (``needs``, ``idle`` …) or ``reactions``; the
    *behaviour* is the deepest node on the path named after a Cozmo behaviour (``LookAround``,
    ``Sleep`` …), else the active leaf (``play_animation IdleBreathe``), or ``reaction X``.
    A behaviour *starts* when the beat's behaviour differs from the previous beat's.
    """

    def __init__(self, report: SimulationReport, behavior_ids: set[str], start: float) -> None:
        self.report = report
        self.behavior_ids = behavior_ids
        self.start = start
        self.branch_s: defaultdict[str, float] = defaultdict(float)
        self.behavior_s: defaultdict[str, float] = defaultdict(float)
        self.simple_mood_s: defaultdict[str, float] = defaultdict(float)
        self.branch_starts: Counter[str] = Counter()
        self.behavior_starts: Counter[str] = Counter()
        self.animations: Counter[str] = Counter()
        self.reactions: Counter[str] = Counter()
        self.mood_min: dict[str, float] = {}
        self.mood_max: dict[str, float] = {}
        self.mood_sum: defaultdict[str, float] = defaultdict(float)
        self.mood_final: dict[str, float] = {}
        self.mood_beats = 0
        self.series: list[dict[str, Any]] = []
        self.bucket_s = 10.0
        self._bucket: tuple[float, defaultdict[str, float], int, Counter[str]] | None = None
        self._last: tuple[float, str, str, str] | None = None  # at, branch, behaviour, simple mood
        self._asleep_since: float | None = None
        self._wake_event: str | None = None
        self.current = ""

    def set_duration(self, seconds: float) -> None:
        """Size the mood-series buckets for a run of ``seconds``."""
        self.bucket_s = max(10.0, seconds / SERIES_POINTS)

    def beat(self, at: float, branch_path: str, reaction: str | None, emotions: dict[str, float],
             simple_mood: str, sleeping: bool, events: list[str]) -> None:
        """Account for one heartbeat."""
        top, behaviour = self.classify(branch_path, reaction)
        self._charge(at)
        if self._last is None or self._last[1] != top:
            self.branch_starts[top] += 1
        if self._last is None or self._last[2] != behaviour:
            self.behavior_starts[behaviour] += 1
        self._last = (at, top, behaviour, simple_mood)
        self.current = f"{top} > {behaviour}" if behaviour != top else top
        self.mood_beats += 1
        for emotion, value in emotions.items():
            self.mood_min[emotion] = min(value, self.mood_min.get(emotion, value))
            self.mood_max[emotion] = max(value, self.mood_max.get(emotion, value))
            self.mood_sum[emotion] += value
        self.mood_final = dict(emotions)
        self._series(at, emotions, top)
        self._sleep(at, sleeping, events)

    def classify(self, branch_path: str, reaction: str | None) -> tuple[str, str]:
        """(top-level branch, behaviour) for one beat's active path."""
        if reaction is not None:
            return "reactions", f"reaction {reaction}"
        parts = branch_path.split(" > ") if branch_path else []
        if not parts:
            return "nothing", "nothing"
        top = parts[1] if len(parts) > 1 else parts[0]
        for name in reversed(parts):
            if name in self.behavior_ids:
                return top, name
        return top, parts[-1]

    def reaction(self, trigger: str) -> None:
        """A reaction was taken."""
        self.reactions[trigger] += 1

    def animation(self, clip: str) -> None:
        """An animation reached the robot."""
        self.animations[clip] += 1

    def _charge(self, now: float) -> None:
        if self._last is None:
            return
        at, top, behaviour, simple = self._last
        dt = max(0.0, now - at)
        self.branch_s[top] += dt
        self.behavior_s[behaviour] += dt
        self.simple_mood_s[simple] += dt

    def _series(self, at: float, emotions: dict[str, float], top: str) -> None:
        t = at - self.start
        if self._bucket is None or t >= self._bucket[0] + self.bucket_s:
            self._close_bucket()
            b0 = math.floor(t / self.bucket_s) * self.bucket_s
            self._bucket = (b0, defaultdict(float), 0, Counter())
        b0, sums, n, tops = self._bucket
        for emotion, value in emotions.items():
            sums[emotion] += value
        tops[top] += 1
        self._bucket = (b0, sums, n + 1, tops)

    def _close_bucket(self) -> None:
        if self._bucket is None or self._bucket[2] == 0:
            return
        b0, sums, n, tops = self._bucket
        self.series.append({"t_s": round(b0, 1), "emotions": {k: round(v / n, 4) for k, v in sums.items()},
                            "branch": tops.most_common(1)[0][0]})
        self._bucket = None

    def _sleep(self, at: float, sleeping: bool, events: list[str]) -> None:
        r = self.report
        if sleeping and self._asleep_since is None:
            self._asleep_since = at
            self._wake_event = None
            r.sleep_count += 1
            if r.first_sleep_at_s is None:
                r.first_sleep_at_s = round(at - self.start, 2)
        elif self._asleep_since is not None:
            # What woke it is the last robot event seen while asleep (a reaction to it may
            # run first, with the sleep suspended); without one, a timer or the tree ended it.
            for kind in events:
                self._wake_event = kind
            if not sleeping:
                self._end_sleep(at, self._wake_event or "timer or tree")

    def _end_sleep(self, at: float, why: str) -> None:
        assert self._asleep_since is not None
        duration = at - self._asleep_since
        self.report.sleep_total_s += duration
        if len(self.report.sleep_episodes) < MAX_EPISODES:
            self.report.sleep_episodes.append(
                SleepEpisode(round(self._asleep_since - self.start, 2), round(duration, 2), why))
        self._asleep_since = None

    def finish(self, end: float) -> None:
        """Close the books at ``end`` (loop time) and fill the report."""
        self._charge(end)
        if self._asleep_since is not None:
            self._end_sleep(end, "still asleep at the end")
        self._close_bucket()
        r = self.report
        r.branch_s = {k: round(v, 2) for k, v in self.branch_s.items()}
        r.behavior_s = {k: round(v, 2) for k, v in self.behavior_s.items()}
        r.simple_mood_s = {k: round(v, 2) for k, v in self.simple_mood_s.items()}
        r.branch_starts = dict(self.branch_starts)
        r.behavior_starts = dict(self.behavior_starts)
        r.animations = dict(self.animations)
        r.reactions = dict(self.reactions)
        r.sleep_total_s = round(r.sleep_total_s, 2)
        r.mood = {e: {"min": round(self.mood_min[e], 4), "mean": round(self.mood_sum[e] / self.mood_beats, 4),
                      "max": round(self.mood_max[e], 4), "final": round(self.mood_final.get(e, 0.0), 4)}
                  for e in self.mood_min}
        r.mood_series = self.series
