"""The recorder of a simulated day: beats, clips, reactions and scripted steps into a report.

``simulate`` hooks one :class:`Recorder` to the brain's per-beat snapshots, to its reactions, to
the simulator's inbox (what reached the robot) and to the simulator's scripted steps. Besides the
totals of :class:`~brain.app.day_report.SimulationReport` it writes the day's *timeline*: one entry
``{"t": seconds, "kind": …, "name": …}`` per behaviour change, clip start, reaction start,
scripted step (``stimulus``), fall-asleep (``sleep``) and wake-up (``wake``), in time order, from
which :mod:`brain.app.liveliness` computes how alive the day was.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Any

from ..arousal import SEEN_KINDS
from .day_report import MAX_EPISODES, SERIES_POINTS, SimulationReport, SleepEpisode
from .liveliness import ANSWER_WITHIN_S, ANSWERABLE_STIMULI, FACE_FOUND_S, FACE_STEPS, PAUSE

__all__ = ["CURVE_POINTS", "STARTING_UP", "Recorder"]

#: Points of the mood curve drawn in the picture of the day (at most; never closer than 1 s).
CURVE_POINTS = 480
#: The branch the time from the connection to the brain's first beat is charged to.
STARTING_UP = "start-up"
#: Messages reaching the robot this soon (s) after the quiet hours began were prepared before: not counted as quiet.
QUIET_GRACE_S = 0.05
#: Messages that reached the robot and make a sound or move its wheels (counted in and out of quiet hours).
NOISY_MESSAGES = ("OutputAudio",)
WHEEL_MESSAGES = ("DriveWheels", "DriveWheelsCurvature", "TurnInPlace", "TurnInPlaceAtSpeed", "AnimBody",
                  "AppendPathSegLine", "AppendPathSegArc", "AppendPathSegPointTurn", "ExecutePath")


def _moves_wheels(msg: Any) -> bool:
    """Whether a wheel message asks the wheels to turn (a stop does not)."""
    speeds = {"DriveWheels": ("lwheel_speed_mmps", "rwheel_speed_mmps"), "DriveWheelsCurvature": ("speed_mmps",),
              "TurnInPlaceAtSpeed": ("speed_rad_per_sec",), "AnimBody": ("speed",)}.get(type(msg).__name__)
    return speeds is None or any(getattr(msg, field, 0) for field in speeds)


class Recorder:
    """Turns the brain's per-beat snapshots and the simulator's messages into a report.

    Each beat is charged with the time until the next beat. The *top-level branch* is the
    personality root's child on the active path (``needs``, ``idle`` …) or ``reactions``; the
    *behaviour* is the deepest node on the path named after a Cozmo behaviour (``LookAround``,
    ``Sleep`` …), else ``pause`` when the active leaf only waits, else the active leaf
    (``play_animation IdleBreathe``), or ``reaction X``. A behaviour *starts* when the beat's
    behaviour differs from the previous beat's.
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
        #: each need's lowest level over the run, and its last
        self.needs_min: dict[str, float] = {}
        self.needs_final: dict[str, float] = {}
        self.mood_beats = 0
        self.series: list[dict[str, Any]] = []
        self.bucket_s = 10.0
        self.curve_s = 1.0
        self.curve: dict[str, Any] = {"t": [], "emotions": {}}
        self._bucket: tuple[float, defaultdict[str, float], int, Counter[str]] | None = None
        self._last: tuple[float, str, str, str] | None = None  # at, branch, behaviour, simple mood
        self._asleep_since: float | None = None
        self._wake_event: str | None = None
        self._next_curve = 0.0
        self._listening: list[dict[str, Any]] = []  # stimuli whose robot event has not arrived yet
        self._people: set[str] = set()  # faces the script has put in the room
        self.timeline: list[dict[str, Any]] = []
        self.quiet = False
        self.quiet_s = 0.0
        self.quiet_counts: Counter[str] = Counter()
        self.quiet_spans: list[list[float]] = []
        self._quiet_since: float | None = None
        self.current = ""

    def set_duration(self, seconds: float) -> None:
        """Size the mood-series buckets and the picture's curve for a run of ``seconds``."""
        self.bucket_s = max(10.0, seconds / SERIES_POINTS)
        self.curve_s = max(1.0, seconds / CURVE_POINTS)

    def _t(self, at: float) -> float:
        return round(at - self.start, 3)

    def _entry(self, at: float, kind: str, name: str) -> dict[str, Any]:
        entry: dict[str, Any] = {"t": self._t(at), "kind": kind, "name": name}
        self.timeline.append(entry)
        return entry

    def started_up(self, at: float) -> None:
        """The brain's first beat is due at ``at``: the time since :attr:`start` (the connection,
        the robot calibrating and the start-up sequence) is the day's ``start-up``, so the time per
        branch still adds up to the day."""
        if at > self.start:
            self.branch_s[STARTING_UP] += at - self.start
            self.behavior_s[STARTING_UP] += at - self.start

    def beat(self, at: float, branch_path: str, reaction: str | None, emotions: dict[str, float],
             simple_mood: str, sleeping: bool, events: list[str], *, pause: bool = False,
             quiet: bool = False, why: str = "", needs: dict[str, float] | None = None) -> None:
        """Account for one heartbeat (``pause``: the active leaf only waits; ``quiet``: quiet hours;
        ``why``: the reason the brain gives for its arousal, such as ``rested`` after a nap;
        ``needs``: the needs' levels)."""
        for need, level in (needs or {}).items():
            self.needs_min[need] = min(level, self.needs_min.get(need, level))
            self.needs_final[need] = level
        top, behaviour = self.classify(branch_path, reaction, pause)
        self._charge(at)
        if self._last is None or self._last[1] != top:
            self.branch_starts[top] += 1
        if self._last is None or self._last[2] != behaviour:
            self.behavior_starts[behaviour] += 1
            self._entry(at, "behaviour", behaviour)
        self._last = (at, top, behaviour, simple_mood)
        if quiet and not self.quiet:
            self._quiet_since = self._t(at)
        elif self.quiet and not quiet and self._quiet_since is not None:
            self.quiet_spans.append([self._quiet_since, self._t(at)])
            self._quiet_since = None
        self.quiet = quiet
        self.current = f"{top} > {behaviour}" if behaviour != top else top
        self.mood_beats += 1
        for emotion, value in emotions.items():
            self.mood_min[emotion] = min(value, self.mood_min.get(emotion, value))
            self.mood_max[emotion] = max(value, self.mood_max.get(emotion, value))
            self.mood_sum[emotion] += value
        self.mood_final = dict(emotions)
        self._series(at, emotions, top)
        self._curve(at, emotions)
        self._heard(at, events)
        self._sleep(at, sleeping, events, behaviour, why)

    def classify(self, branch_path: str, reaction: str | None, pause: bool = False) -> tuple[str, str]:
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
        return top, PAUSE if pause else parts[-1]

    def reaction(self, trigger: str, at: float) -> None:
        """A reaction was taken."""
        self.reactions[trigger] += 1
        self._entry(at, "reaction", trigger)

    def message(self, msg: Any, at: float) -> None:
        """A message reached the robot: counted when it makes a sound or turns the wheels, in quiet hours or not."""
        name = type(msg).__name__
        # a frame prepared before the quiet hours began may still reach the robot on their first instant
        boundary = self._quiet_since is not None and self._t(at) - self._quiet_since < QUIET_GRACE_S
        when = "quiet" if self.quiet and not boundary else "outside"
        if name in NOISY_MESSAGES:
            self.quiet_counts[f"{when} sound_frames"] += 1
        elif name in WHEEL_MESSAGES and _moves_wheels(msg):
            self.quiet_counts[f"{when} wheel_commands"] += 1

    def animation(self, clip: str, at: float) -> None:
        """An animation reached the robot."""
        self.animations[clip] += 1
        self._entry(at, "clip", clip)

    def stimulus(self, step: Any, at: float) -> None:
        """A scripted step of the simulator's timeline ran.

        Named by the step's event and what it names (``face alice``, ``motion ground``); a ``face``
        step for someone already there is a move, ``face_moves alice``, which asks for no answer.
        """
        args = getattr(step, "args", {}) or {}
        event = step.event
        if event == "face":
            if args["face"] in self._people:
                event = "face_moves"
            self._people.add(args["face"])
        elif event == "face_leaves":
            self._people.discard(args["face_leaves"])
        detail = next((str(args[k]) for k in ("face", "face_leaves", "motion", "orientation") if k in args), "")
        entry = self._entry(at, "stimulus", f"{event} {detail}".strip())
        if event in ANSWERABLE_STIMULI:
            self._listening.append(entry)

    def _heard(self, at: float, events: list[str]) -> None:
        """Mark stimuli whose robot event arrived in this beat (``heard``: the beat's time)."""
        if not self._listening:
            return
        t = self._t(at)
        still: list[dict[str, Any]] = []
        for entry in self._listening:
            step = entry["name"].split(" ", 1)[0]
            kinds = ANSWERABLE_STIMULI[step]
            if any(kind in kinds for kind in events):
                entry["heard"] = t
            elif t - entry["t"] <= (FACE_FOUND_S if step in FACE_STEPS else ANSWER_WITHIN_S):
                still.append(entry)
        self._listening = still

    def _charge(self, now: float) -> None:
        if self._last is None:
            return
        at, top, behaviour, simple = self._last
        dt = max(0.0, now - at)
        self.branch_s[top] += dt
        self.behavior_s[behaviour] += dt
        self.simple_mood_s[simple] += dt
        if self.quiet:
            self.quiet_s += dt

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

    def _curve(self, at: float, emotions: dict[str, float]) -> None:
        t = at - self.start
        if t < self._next_curve:
            return
        self._next_curve = t + self.curve_s
        self.curve["t"].append(round(t, 1))
        for emotion, value in emotions.items():
            self.curve["emotions"].setdefault(emotion, []).append(round(value, 3))

    def _sleep(self, at: float, sleeping: bool, events: list[str], behaviour: str, why: str = "") -> None:
        r = self.report
        if sleeping and self._asleep_since is None:
            self._asleep_since = at
            self._wake_event = None
            r.sleep_count += 1
            if r.first_sleep_at_s is None:
                r.first_sleep_at_s = round(at - self.start, 2)
            self._entry(at, "sleep", behaviour)
        elif self._asleep_since is not None:
            # What woke it is the last robot event felt while asleep (a reaction to it may
            # run first, with the sleep suspended); without one, the brain's reason (rested, nap
            # over), else a timer or the tree ended it.
            for kind in events:
                if kind not in SEEN_KINDS:  # what it saw wakes it only as the brain says (``woken by a face``)
                    self._wake_event = kind
            if not sleeping:
                self._end_sleep(at, self._wake_event or why or "timer or tree")

    def _end_sleep(self, at: float, why: str, *, woke: bool = True) -> None:
        assert self._asleep_since is not None
        duration = at - self._asleep_since
        self.report.sleep_total_s += duration
        if len(self.report.sleep_episodes) < MAX_EPISODES:
            self.report.sleep_episodes.append(
                SleepEpisode(round(self._asleep_since - self.start, 2), round(duration, 2), why))
        if woke:
            self._entry(at, "wake", why)
        self._asleep_since = None

    def finish(self, end: float) -> None:
        """Close the books at ``end`` (loop time) and fill the report."""
        self._charge(end)
        if self._asleep_since is not None:
            self._end_sleep(end, "still asleep at the end", woke=False)
        self._close_bucket()
        if self._quiet_since is not None:
            self.quiet_spans.append([self._quiet_since, self._t(end)])
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
        r.needs = {n: {"min": round(self.needs_min[n], 4), "final": round(self.needs_final[n], 4)}
                   for n in self.needs_min}
        r.mood_series = self.series
        r.mood_curve = self.curve
        r.timeline = sorted(self.timeline, key=lambda e: e["t"])  # stable: same-time entries keep their order
        counts = self.quiet_counts
        r.quiet = {"seconds": round(self.quiet_s, 1), "sound_frames": counts["quiet sound_frames"],
                   "wheel_commands": counts["quiet wheel_commands"], "spans": self.quiet_spans,
                   "outside": {"sound_frames": counts["outside sound_frames"],
                               "wheel_commands": counts["outside wheel_commands"]}}
