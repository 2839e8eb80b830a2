"""How alive a simulated day was: measures computed from the day's timeline.

A personality is judged on what an owner would notice over a day: is it awake, does it do many
different things or the same one, does it repeat the same clip, does it answer when someone
touches it or shows up, does it wake up like a pet (with a stretch) or like a switch, and does its
mood move. :func:`liveliness` computes those from the report's ``timeline`` (the entries
``{"t", "kind", "name"}`` that :class:`brain.app.recorder.Recorder` writes), so they can be
recomputed from a saved report; :func:`worst_of` sums several days up by their worst values.

Definitions (all times in simulated seconds):

- *awake share*: the time not asleep (between a ``sleep`` and the next ``wake`` entry) over the day;
- *distinct behaviours per awake hour*: the awake time is cut into hours of awake time (sleep left
  out, so an hour may span a nap); in each, the number of different behaviours seen (pauses not
  counted); the mean of those counts weighted by each hour's length (a day awake less than an hour
  gives its one count);
- *largest behaviour share*: the behaviour that took most awake time, over the awake time spent in
  behaviours (pauses excluded from both);
- *clip repeats*: of the clips started while awake, the share that is the same clip as the awake
  clip before it;
- *stimuli answered within 1 s*: a scripted stimulus (``stimulus`` entry of a kind the robot can
  feel or sense at once: a touch, a pick-up, a cube tap, the button, motion …; faces are judged
  apart) counts as answered when the brain heard it
  (``heard``: the beat its robot event arrived) and, within 0.25 s of that and 1 s of the stimulus,
  a reaction started, the robot woke or its behaviour changed to something other than a pause;
- *faces answered*: of the faces arriving while the robot is awake (``face`` entries; not a face
  moving, ``face_moves``, nor one leaving), those it saw within 30 s (at once when the face is in
  the camera's view, later when it had to look for it) and answered within 2 s of seeing them as
  above (a greeting, a look, any new behaviour). A face arriving while it sleeps is the sleeper's
  business (it looks up now and then), not counted here;
- *wake-ups with the wake-up animation*: a ``wake`` entry with a clip of the wake-up triggers
  started during that sleep or within 5 s after it;
- *naps*: the sleeps, the longest, and those the robot woke from by itself (no stimulus it can
  sense in the 30 s before it woke);
- *emotions*: each emotion's lowest and highest value, and the range between.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "ANSWERABLE_STIMULI",
    "ANSWER_AFTER_HEARD_S",
    "ANSWER_WITHIN_S",
    "FACE_FOUND_S",
    "FACE_STEPS",
    "PAUSE",
    "WAKE_UP_TRIGGERS",
    "sleep_spans",
    "liveliness",
    "worst_of",
]

#: The behaviour name the recorder gives to waiting leaves (``wait``, ``random_wait``).
PAUSE = "pause"
#: A stimulus must be answered within this long.
ANSWER_WITHIN_S = 1.0
#: … by something that started this soon after the brain heard it (so chance does not answer it).
ANSWER_AFTER_HEARD_S = 0.25
#: Scripted steps judged as faces: seen within FACE_FOUND_S (s), answered within FACE_ANSWER_S of being seen.
FACE_STEPS = ("face",)
FACE_FOUND_S = 30.0
FACE_ANSWER_S = 2.0
#: A wake-up clip this long after the wake-up still counts as its animation.
WAKE_ANIMATION_AFTER_S = 5.0
#: A sleep that ends this long after a stimulus the robot can sense was ended by it, not by the robot
#: itself (a reaction to a poke may play for a few seconds before the robot is up).
WOKEN_WITHIN_S = 30.0
#: Animation triggers whose clips are wake-up animations.
WAKE_UP_TRIGGERS = ("WakeUp", "WakeupGetout", "GoToSleepGetOut")
#: Scripted steps the robot can sense, with the robot event kinds that tell the brain of each.
ANSWERABLE_STIMULI: dict[str, tuple[str, ...]] = {
    "pick_up": ("picked_up",),
    "put_down": ("picked_up",),
    "poke": ("poked",),
    "button": ("button",),
    "cube_tap": ("cube_tapped",),
    "cube_move": ("cube_moved",),
    "face": ("face_seen",),
    "motion": ("motion_seen",),
    "cliff": ("cliff",),
    "fall": ("falling_started",),
    "orientation": ("orientation",),
    "on_charger": ("on_charger",),
}


def _entries(timeline: Iterable[Mapping[str, Any]], kind: str) -> list[Mapping[str, Any]]:
    return [e for e in timeline if e["kind"] == kind]


def sleep_spans(timeline: Sequence[Mapping[str, Any]], end: float) -> list[tuple[float, float]]:
    """(fell asleep, woke) pairs from a day's timeline; a sleep still going at the end ends at ``end``.

    The recorder writes a ``sleep`` and a ``wake`` entry as the brain's arousal changes; this is
    the one reading of them, for the report's measures and its picture.
    """
    out: list[tuple[float, float]] = []
    since: float | None = None
    for e in timeline:
        if e["kind"] == "sleep" and since is None:
            since = float(e["t"])
        elif e["kind"] == "wake" and since is not None:
            out.append((since, float(e["t"])))
            since = None
    if since is not None:
        out.append((since, end))
    return out


def _asleep_at(sleeps: Sequence[tuple[float, float]], t: float) -> bool:
    return any(a <= t < b for a, b in sleeps)


def _awake_pieces(start: float, stop: float, sleeps: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """[start, stop) without the sleeps."""
    pieces = [(start, stop)]
    for a, b in sleeps:
        cut: list[tuple[float, float]] = []
        for s, e in pieces:
            if b <= s or a >= e:
                cut.append((s, e))
                continue
            if s < a:
                cut.append((s, a))
            if b < e:
                cut.append((b, e))
        pieces = cut
    return [(s, e) for s, e in pieces if e > s]


def _behaviour_spans(timeline: Sequence[Mapping[str, Any]], end: float,
                     sleeps: Sequence[tuple[float, float]]) -> list[tuple[float, float, str]]:
    """The awake stretches of each behaviour, in time order."""
    changes = _entries(timeline, "behaviour")
    spans: list[tuple[float, float, str]] = []
    for i, e in enumerate(changes):
        start = float(e["t"])
        stop = float(changes[i + 1]["t"]) if i + 1 < len(changes) else end
        for s, t in _awake_pieces(start, min(stop, end), sleeps):
            spans.append((s, t, str(e["name"])))
    return spans


def _per_awake_hour(spans: Sequence[tuple[float, float, str]]) -> float:
    """Distinct behaviours (pauses not counted) per hour of awake time, weighted by each hour's length."""
    hours: list[tuple[float, set[str]]] = []
    filled, seen = 0.0, set()
    for s, e, name in spans:
        left = e - s
        while left > 1e-9:
            take = min(left, 3600.0 - filled)
            filled += take
            left -= take
            if name != PAUSE:
                seen.add(name)
            if filled >= 3600.0 - 1e-9:
                hours.append((filled, seen))
                filled, seen = 0.0, set()
    if filled > 1e-9:
        hours.append((filled, seen))
    total = sum(length for length, _ in hours)
    if total <= 0:
        return 0.0
    return sum(length * len(names) for length, names in hours) / total


def _answers(timeline: Sequence[Mapping[str, Any]]) -> list[float]:
    return [float(e["t"]) for e in timeline
            if e["kind"] in ("reaction", "wake") or (e["kind"] == "behaviour" and e["name"] != PAUSE)]


def _stimuli(timeline: Sequence[Mapping[str, Any]]) -> tuple[int, int, list[dict[str, Any]]]:
    """(answered, answerable, the unanswered ones) of the stimuli but faces."""
    answers = _answers(timeline)
    answered, total, missed = 0, 0, []
    for e in _entries(timeline, "stimulus"):
        step = str(e["name"]).split(" ", 1)[0]
        if step not in ANSWERABLE_STIMULI or step in FACE_STEPS:
            continue
        total += 1
        t = float(e["t"])
        heard = e.get("heard")
        ok = False
        if heard is not None:
            last = min(t + ANSWER_WITHIN_S, float(heard) + ANSWER_AFTER_HEARD_S)
            ok = any(float(heard) <= a <= last for a in answers)
        if ok:
            answered += 1
        else:
            missed.append({"t": t, "name": e["name"], "heard": heard})
    return answered, total, missed


def _faces(timeline: Sequence[Mapping[str, Any]],
           sleeps: Sequence[tuple[float, float]]) -> tuple[int, int, list[dict[str, Any]]]:
    """(answered, arrived while awake, the unanswered ones) of the faces."""
    answers = _answers(timeline)
    answered, total, missed = 0, 0, []
    for e in _entries(timeline, "stimulus"):
        t = float(e["t"])
        if str(e["name"]).split(" ", 1)[0] not in FACE_STEPS or _asleep_at(sleeps, t):
            continue
        total += 1
        heard = e.get("heard")
        ok = heard is not None and float(heard) - t <= FACE_FOUND_S and any(
            float(heard) <= a <= float(heard) + FACE_ANSWER_S for a in answers)
        if ok:
            answered += 1
        else:
            missed.append({"t": t, "name": e["name"], "heard": heard})
    return answered, total, missed


def _wake_ups(timeline: Sequence[Mapping[str, Any]], sleeps: Sequence[tuple[float, float]],
              wake_clips: set[str], end: float) -> tuple[int, int]:
    """(wake-ups with a wake-up clip, wake-ups)."""
    clips = [(float(e["t"]), str(e["name"])) for e in _entries(timeline, "clip") if e["name"] in wake_clips]
    woke = {float(e["t"]) for e in _entries(timeline, "wake")}
    animated = total = 0
    for a, b in sleeps:
        if b not in woke:
            continue  # still asleep at the end: no wake-up
        total += 1
        if any(a < t <= b + WAKE_ANIMATION_AFTER_S for t, _ in clips):
            animated += 1
    return animated, total


def _share(part: float, whole: float) -> float | None:
    return round(part / whole, 4) if whole > 0 else None


def liveliness(timeline: Sequence[Mapping[str, Any]], *, duration_s: float, wake_clips: Iterable[str],
               mood: Mapping[str, Mapping[str, float]]) -> dict[str, Any]:
    """The day's liveliness measures (see the module docstring) from its timeline.

    ``duration_s`` is the day's length, ``wake_clips`` the names of the wake-up clips, ``mood`` each
    emotion's ``min`` and ``max`` (the report's ``mood``).
    """
    end = float(duration_s)
    sleeps = sleep_spans(timeline, end)
    asleep = sum(b - a for a, b in sleeps)
    awake = max(0.0, end - asleep)
    spans = _behaviour_spans(timeline, end, sleeps)
    per_behaviour: dict[str, float] = {}
    for s, e, name in spans:
        per_behaviour[name] = per_behaviour.get(name, 0.0) + (e - s)
    busy = sum(v for k, v in per_behaviour.items() if k != PAUSE)
    doing = {k: v for k, v in per_behaviour.items() if k != PAUSE}
    top = max(doing.items(), key=lambda kv: (kv[1], kv[0]), default=None)
    awake_clips = [str(e["name"]) for e in _entries(timeline, "clip") if not _asleep_at(sleeps, float(e["t"]))]
    repeats = sum(1 for prev, cur in zip(awake_clips, awake_clips[1:], strict=False) if prev == cur)
    answered, stimuli, missed = _stimuli(timeline)
    faces_answered, faces, faces_missed = _faces(timeline, sleeps)
    animated, wake_ups = _wake_ups(timeline, sleeps, set(wake_clips), end)
    stimulus_times = [float(e["t"]) for e in _entries(timeline, "stimulus")
                      if str(e["name"]).split(" ", 1)[0] in ANSWERABLE_STIMULI]
    by_itself = sum(1 for a, b in sleeps if b < end
                    and not any(b - WOKEN_WITHIN_S <= t <= b for t in stimulus_times))
    return {
        "awake_share": _share(awake, end),
        "awake_s": round(awake, 1),
        "distinct_behaviours_per_awake_hour": round(_per_awake_hour(spans), 2),
        "distinct_behaviours": len(doing),
        "largest_behaviour": top[0] if top else None,
        "largest_behaviour_share": _share(top[1], busy) if top else None,
        "clips_awake": len(awake_clips),
        "clip_repeats": repeats,
        "clip_repeat_share": _share(repeats, len(awake_clips)),
        "stimuli": stimuli,
        "stimuli_answered_1s": answered,
        "stimuli_answered_share": _share(answered, stimuli),
        "unanswered": missed[:50],
        "faces_awake": faces,
        "faces_answered": faces_answered,
        "faces_answered_share": _share(faces_answered, faces),
        "faces_unanswered": faces_missed[:50],
        "wake_ups": wake_ups,
        "wake_ups_animated": animated,
        "wake_ups_animated_share": _share(animated, wake_ups),
        "naps": len(sleeps),
        "longest_nap_s": round(max((b - a for a, b in sleeps), default=0.0), 1),
        "woke_by_itself": by_itself,
        "emotions": {k: {"min": round(v["min"], 4), "max": round(v["max"], 4),
                         "range": round(v["max"] - v["min"], 4)} for k, v in mood.items()},
    }


#: Measures summed up over days: name → True when higher is better.
HIGHER_IS_BETTER: dict[str, bool] = {
    "awake_share": True,
    "distinct_behaviours_per_awake_hour": True,
    "largest_behaviour_share": False,
    "clip_repeat_share": False,
    "stimuli_answered_share": True,
    "faces_answered_share": True,
    "wake_ups_animated_share": True,
    "longest_nap_s": False,
}


def worst_of(days: Sequence[tuple[int, Mapping[str, Any]]]) -> dict[str, Any]:
    """Each measure's worst value over ``days`` ((seed, liveliness) pairs), its seed, and its range.

    Worst is the lowest for the measures where more is better (awake share, variety, answers,
    animated wake-ups, each emotion's range) and the highest for the others (one behaviour's
    share, clip repeats, the longest nap). Measures a day could not have (no stimuli, no wake-up)
    are left out of that measure.
    """
    out: dict[str, Any] = {}

    def add(name: str, values: list[tuple[int, float]], higher_better: bool) -> None:
        if not values:
            out[name] = None
            return
        seed, value = (min if higher_better else max)(values, key=lambda sv: sv[1])
        out[name] = {"worst": value, "seed": seed, "min": min(v for _, v in values),
                     "max": max(v for _, v in values)}

    for name, higher in HIGHER_IS_BETTER.items():
        values = [(seed, float(day[name])) for seed, day in days
                  if day.get(name) is not None and math.isfinite(float(day[name]))]
        add(name, values, higher)
    emotions = sorted({e for _, day in days for e in day.get("emotions", {})})
    out["emotion_range"] = {}
    for emotion in emotions:
        values = [(seed, float(day["emotions"][emotion]["range"])) for seed, day in days
                  if emotion in day.get("emotions", {})]
        seed, value = min(values, key=lambda sv: sv[1])
        out["emotion_range"][emotion] = {"worst": value, "seed": seed}
    return out
