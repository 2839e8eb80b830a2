"""What the dashboard knows: the brain's last minutes, kept in the daemon so the page can rewind.

:class:`Monitor` listens to one :class:`~brain.engine.Brain`: a heartbeat observer (after each
tick, while the tree is as the tick left it), a robot event listener, the reaction runner's
``on_start``, and a logging handler; the choosers and conditions explain themselves (see
:mod:`brain.dashboard.why`). From them it keeps, for ``history_s`` seconds and within fixed bounds:

- the tree's statuses at every beat they changed (with the structure's version), for the tree
  and for rewinding it;
- timeline spans in three lanes: ``behavior`` (the running branch), ``reaction``, ``clip``;
- decisions: for each change of a choice on the running branch, each reaction and each
  suspension, the sentences of :func:`~brain.dashboard.why.explain_branch`;
- the mood twice a second, and the emotion events as markers;
- an event log: robot events, reactions, behaviour changes, emotion events, safety stops,
  the dashboard's own interventions and the daemon's log lines.

Every item carries ``n``, a number that only grows, so a page that got the history in its hello
message skips what it already has in the updates. The page gets :meth:`Monitor.hello` once and
:meth:`Monitor.update` at most ten times a second; scripts get :meth:`Monitor.state`;
:meth:`Monitor.at` is the state at a past moment.
"""

from __future__ import annotations

import bisect
import itertools
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from py_trees.common import Status

from driver import events as ev

from .treeview import TreeView
from .views import CameraView, FaceView, describe_event, is_noisy, robot_state
from .why import choice_path, explain_branch

__all__ = ["HISTORY_S", "Monitor"]

#: How far back the page can scroll and rewind (seconds).
HISTORY_S = 600.0
#: Mood samples kept for the chart: one every this many seconds.
MOOD_EVERY_S = 0.5
#: Upper bounds of the kept items, whatever the time says.
MAX_EVENTS = 3000
MAX_SPANS = 3000
MAX_DECISIONS = 400
MAX_MARKS = 1000
#: Items of each kind a hello message carries (the newest).
HELLO_EVENTS = 500
#: Log lines from these loggers are not repeated in the event log: the dashboard's own add their own
#: entries, and the heartbeat's "doing ..." lines are the behaviour entries.
OWN_LOGGERS = ("brain.dashboard", "aiohttp", "brain.heartbeat")
#: Log lines (logger, format) that say what an entry of the event log already says.
REPEATED = {("brain.reactions", "reaction %s (priority %d)"), ("brain.safety", "safety: %s - all motors stopped")}


def _compact(branch: str) -> str:
    """A timeline label for a branch: its meaningful last names (``idle > LookAround > glances``)."""
    names = [n for n in branch.split(" > ") if n and not n.startswith(("sequence", "selector", "weighted_random",
                                                                      "scoring", "strict_priority", "parallel"))]
    return " > ".join(names[-3:]) if names else branch


class _LogTap(logging.Handler):
    """Log records (INFO and above) into the monitor's event log."""

    def __init__(self, add: Callable[[str, str, str, float], None], clock: Callable[[], float]) -> None:
        super().__init__(logging.INFO)
        self.add = add
        self.clock = clock

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(OWN_LOGGERS) or (record.name, record.msg) in REPEATED:
            return
        try:
            text = record.getMessage()
        except Exception:  # a bad format string is the logger's problem, not ours
            return
        self.add("log", record.levelname.lower(), text, self.clock())


class Monitor:
    """Everything the dashboard shows of one brain, with a bounded history (see the module notes)."""

    def __init__(self, *, history_s: float = HISTORY_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.history_s = history_s
        self.clock = clock
        self.brain: Any = None
        self.face = FaceView()
        self.camera = CameraView()
        self._n = itertools.count(1)
        self.events: deque[dict[str, Any]] = deque(maxlen=MAX_EVENTS)
        self.spans: deque[dict[str, Any]] = deque(maxlen=MAX_SPANS)
        self.decisions: deque[dict[str, Any]] = deque(maxlen=MAX_DECISIONS)
        self.marks: deque[dict[str, Any]] = deque(maxlen=MAX_MARKS)
        self.mood: deque[tuple[float, dict[str, float]]] = deque(maxlen=int(history_s / MOOD_EVERY_S) + 1)
        self.frames: deque[tuple[float, int, str]] = deque(maxlen=int(history_s * 20))
        self.trees: dict[int, TreeView] = {}
        self.tree: TreeView | None = None
        self._span_changes: deque[dict[str, Any]] = deque(maxlen=MAX_SPANS)
        self._open: dict[str, dict[str, Any]] = {}
        self._sent_n = 0
        self._tree_key: tuple[int, int] | None = None
        self._branch: str | None = None
        self._path: tuple[tuple[int, int], ...] | None = None
        self._last_events: dict[str, float] = {}
        self._last_mood_at = -1e9
        self._stops = 0
        self._resumes = (0, 0)
        self._suspended: str | None = None
        self._remove: list[Callable[[], None]] = []
        self._log_tap: _LogTap | None = None
        #: what the daemon is doing, for the page's header ("waiting for the robot", "running")
        self.status = "waiting for the robot"

    # ------------------------------------------------------------------ attaching

    def attach(self, brain: Any) -> None:
        """Start watching ``brain`` (its heartbeat, robot, reactions and choosers)."""
        self.brain = brain
        self.status = "running"
        heartbeat = brain.heartbeat
        self._remove.append(heartbeat.subscribe("snapshot", self._on_beat))
        self._remove.append(brain.robot.add_listener(self._on_event))
        runner = brain.reactions
        runner.on_start.append(self._on_reaction)
        self._remove.append(lambda: runner.on_start.remove(self._on_reaction))
        self._log_tap = _LogTap(self._add_event, self.clock)
        logging.getLogger().addHandler(self._log_tap)

    def close(self) -> None:
        """Stop watching; keeps what was collected."""
        for remove in reversed(self._remove):
            try:
                remove()
            except ValueError:
                pass
        self._remove.clear()
        if self._log_tap is not None:
            logging.getLogger().removeHandler(self._log_tap)
            self._log_tap = None
        self.camera.close()

    # ------------------------------------------------------------------ collecting

    def _item(self, store: deque[dict[str, Any]], item: dict[str, Any]) -> dict[str, Any]:
        item["n"] = next(self._n)
        store.append(item)
        return item

    def _add_event(self, cat: str, kind: str, text: str, at: float, *, noisy: bool = False) -> None:
        self._item(self.events, {"t": round(at, 3), "cat": cat, "kind": kind, "text": text, "noisy": noisy})

    def note(self, cat: str, kind: str, text: str) -> None:
        """Add an entry of the dashboard's own to the event log (an intervention, a reload)."""
        self._add_event(cat, kind, text, self.clock())

    def decide(self, kind: str, title: str, lines: list[str], at: float | None = None) -> dict[str, Any]:
        """Record a decision (why the robot now does ``title``)."""
        return self._item(self.decisions, {"t": round(self.clock() if at is None else at, 3), "kind": kind,
                                           "title": title, "lines": lines})

    def _span(self, lane: str, label: str | None, title: str, at: float) -> None:
        """Close the lane's open span and open one for ``label`` (None: leave the lane empty)."""
        current = self._open.pop(lane, None)
        if current is not None:
            current["end"] = round(at, 3)
            current["n"] = next(self._n)
            self._span_changes.append(current)
        if label is not None:
            span = self._item(self.spans, {"id": next(self._n), "lane": lane, "label": label, "title": title,
                                           "start": round(at, 3), "end": None})
            self._open[lane] = span
            self._span_changes.append(span)

    def _on_event(self, event: ev.RobotEvent) -> None:
        self._add_event("robot", event.kind, describe_event(event), event.at, noisy=is_noisy(event))
        self.camera.on_event(event, event.at)

    def _on_reaction(self, reaction: Any) -> None:
        brain = self.brain
        fired = next((e for e in reversed(brain.ctx.events) if reaction.matches(e)), None)
        lines = [f"{reaction.trigger} (priority {reaction.priority}) runs "
                 f"{getattr(reaction.root, 'name', 'its subtree')}"
                 + (f": the robot reported {describe_event(fired)}." if fired is not None else ".")]
        replaced = brain.reactions.replaced
        tree = brain.root.tree
        if replaced is not None:
            lines.append(f"It interrupted reaction {replaced.trigger} (priority {replaced.priority}).")
        elif tree is not None and brain.root.suspended_at is None and tree.status is Status.RUNNING:
            from brain.nodes.reactions import branch_of

            lines.append(f"It interrupted {_compact(branch_of(tree))}; afterwards the personality "
                         + ("resumes it." if reaction.should_resume_last else "starts again from its top."))
        self.decide("reaction", f"reaction {reaction.trigger}", lines)
        self._add_event("reaction", reaction.trigger, f"reaction {reaction.trigger} (priority {reaction.priority})",
                        self.clock())

    def _on_beat(self, snap: Any) -> None:
        brain = self.brain
        now = snap.at
        self._check_tree(brain)
        assert self.tree is not None
        statuses = self.tree.statuses()
        if not self.frames or self.frames[-1][2] != statuses or self.frames[-1][1] != self.tree.version:
            self.frames.append((now, self.tree.version, statuses))
        suspended = brain.suspended
        if snap.branch != self._branch:
            self._branch = snap.branch
            self._span("behavior", "suspended" if suspended else _compact(snap.branch) or "nothing",
                       snap.branch, now)
            self._add_event("behavior", "branch", f"doing {snap.branch or 'nothing'}", now)
        self._decisions(brain, snap, suspended, now)
        active = brain.reactions.active
        label = active.trigger if active is not None else None
        if label != (self._open["reaction"]["label"] if "reaction" in self._open else None):
            self._span("reaction", label, label or "", now)
        playing = brain.controller.current
        clip = playing.clip.name if playing is not None else None
        if clip != (self._open["clip"]["label"] if "clip" in self._open else None):
            self._span("clip", clip, clip or "", now)
        self._mood(snap, now)
        stops = brain.safety.stops
        if stops != self._stops:
            self._stops = stops
            self._add_event("safety", "stop", f"safety stop: all motors stopped ({snap.hazard or 'hazard'})", now)
        self.camera.watch(brain.robot)

    def _check_tree(self, brain: Any) -> None:
        runner = brain.reactions
        active = runner.active
        personality = brain.personality
        reactions = list(personality.reactions) if personality is not None else []
        extra = active if active is not None and all(active is not r for r in reactions) else None
        key = (id(brain.root.tree), id(extra))
        if key == self._tree_key and self.tree is not None:
            return
        self._tree_key = key
        version = (self.tree.version + 1) if self.tree is not None else 1
        self.tree = TreeView.build(version, brain.root, runner, reactions, extra)
        self.trees[version] = self.tree
        oldest = self.frames[0][1] if self.frames else version
        for old in [v for v in self.trees if v < oldest]:  # no kept beat refers to these any more
            del self.trees[old]

    def _decisions(self, brain: Any, snap: Any, suspended: str | None, now: float) -> None:
        if suspended != self._suspended:
            self._suspended = suspended
            if suspended:
                self.decide("suspend", "suspended", [f"The personality is suspended: {suspended}; "
                                                     "it starts again from its top when the robot is back."], now)
                self._path = None
                return
        if suspended or brain.reactions.active is not None:
            self._path = None
            return
        tree = brain.root.tree
        if tree is None:
            return
        path = choice_path(tree)
        if path == self._path:
            return
        previous, self._path = self._path, path
        if previous is not None and set(path) <= set(previous):
            return  # a choice ended (its sequence moved on): nothing was decided
        lines = explain_branch(tree)
        resumes = (brain.root.resumes, brain.root.restarts)
        if resumes != self._resumes:
            if resumes[0] != self._resumes[0]:
                lines.insert(0, f"A reaction ended and the personality resumed {_compact(brain.root.last_resumed)}.")
            else:
                lines.insert(0, "A reaction ended; the personality started again from its top.")
            self._resumes = resumes
        self.decide("behavior", _compact(snap.branch), lines, now)

    def _mood(self, snap: Any, now: float) -> None:
        mood = snap.mood or {}
        fired = mood.get("last_events") or {}
        if fired != self._last_events:
            for name, at in fired.items():
                if self._last_events.get(name) != at:
                    self._item(self.marks, {"t": round(at, 3), "name": name})
                    self._add_event("mood", name, f"emotion event {name}", at)
            self._last_events = dict(fired)
        if now - self._last_mood_at >= MOOD_EVERY_S:
            self._last_mood_at = now
            self.mood.append((now, {k: round(v, 4) for k, v in (mood.get("emotions") or {}).items()}))

    # ------------------------------------------------------------------ reading

    def _since(self, store: Iterable[dict[str, Any]], after: int) -> list[dict[str, Any]]:
        out = []
        for item in reversed(store):  # type: ignore[call-overload]
            if item["n"] <= after:
                break
            out.append(item)
        out.reverse()
        return out

    def _now_block(self) -> dict[str, Any]:
        """What the page shows as 'now': branch, mood, statuses, robot (without history)."""
        brain = self.brain
        if brain is None:
            return {"status": self.status}
        snap = brain.heartbeat.last
        mood = brain.ctx.mood
        return {
            "status": self.status, "beat": snap.beat if snap is not None else 0,
            "branch": snap.branch if snap is not None else "", "why": snap.why if snap is not None else "",
            "personality": getattr(brain.personality, "name", ""),
            "tree_version": self.tree.version if self.tree is not None else 0,
            "statuses": self.frames[-1][2] if self.frames else "",
            "mood": {k: round(v, 4) for k, v in mood.values().items()} if mood is not None else {},
            "simple_mood": mood.simple_mood().value if mood is not None else None,
            "robot": robot_state(brain.robot, hazard=brain.safety.hazard, safety_stops=brain.safety.stops,
                                 suspended=brain.suspended),
            "arousal": {"state": brain.ctx.arousal.state, "since": round(brain.ctx.arousal.since, 3),
                        "why": brain.ctx.arousal.why, "sleep_debt_s": round(brain.ctx.arousal.debt_s, 1),
                        "sleepy": brain.ctx.arousal.sleepy},
            "world": _world_with_lights(brain),
            "needs": brain.ctx.needs.snapshot(),
        }

    def update(self) -> dict[str, Any]:
        """What changed since the last update (for every page at once)."""
        after = self._sent_n
        now = self.clock()
        out: dict[str, Any] = {"type": "update", "t": round(now, 3), **self._now_block()}
        out["events"] = self._since(self.events, after)
        out["decisions"] = self._since(self.decisions, after)
        out["marks"] = self._since(self.marks, after)
        out["spans"] = [dict(s) for s in self._span_changes]
        self._span_changes.clear()
        if self.brain is not None:
            face = self.face.poll(self.brain.robot)
            if face is not None:
                out["face"] = face
            self.camera.watch(self.brain.robot)  # the camera may have been switched since the beat
            camera = self.camera.poll(now)
            if camera is not None:
                out["camera"] = camera
        self._sent_n = next(self._n)
        return out

    def hello(self, *, control: dict[str, Any]) -> dict[str, Any]:
        """Everything a page needs when it connects: the structure, the history, what it may do."""
        now = self.clock()
        self.face.reset()
        self.camera.reset()
        mood_t = [round(t, 3) for t, _ in self.mood]
        emotions = sorted({k for _, values in self.mood for k in values})
        if self.brain is not None and self.brain.ctx.mood is not None:
            emotions = list(self.brain.ctx.mood.emotion_types)
        return {
            "type": "hello", "version": 1, "t": round(now, 3), "wall": time.time(), "history_s": self.history_s,
            "n": next(self._n), **self._now_block(), "control": control,
            "tree": self.tree.as_dict() if self.tree is not None else None,
            "emotions": emotions,
            "mood_history": {"t": mood_t, **{e: [v.get(e) for _, v in self.mood] for e in emotions}},
            "spans": list(self.spans), "decisions": list(self.decisions)[-100:], "marks": list(self.marks),
            "events": list(self.events)[-HELLO_EVENTS:],
        }

    def state(self) -> dict[str, Any]:
        """A snapshot for scripts (``GET /api/state``): now, the tree, the last decision, recent events."""
        out = {"t": round(self.clock(), 3), **self._now_block(),
               "tree": self.tree.as_dict() if self.tree is not None else None,
               "decision": self.decisions[-1] if self.decisions else None,
               "events": list(self.events)[-50:]}
        return out

    def at(self, t: float, have_version: int | None = None) -> dict[str, Any]:
        """The tree, mood, branch and decision as they were at time ``t`` (the page's rewind)."""
        frames = list(self.frames)
        out: dict[str, Any] = {"t": t}
        index = bisect.bisect_right([f[0] for f in frames], t) - 1
        if index >= 0:
            _, version, statuses = frames[index]
            out.update({"tree_version": version, "statuses": statuses})
            if version != have_version and version in self.trees:
                out["tree"] = self.trees[version].as_dict()
        moods = list(self.mood)
        index = bisect.bisect_right([m[0] for m in moods], t) - 1
        if index >= 0:
            out["mood"] = moods[index][1]
        for lane in ("behavior", "reaction", "clip"):
            span = next((s for s in reversed(self.spans) if s["lane"] == lane and s["start"] <= t
                         and (s["end"] is None or s["end"] > t)), None)
            out[lane] = span["title"] if span is not None else None
        out["decision"] = next((d for d in reversed(self.decisions) if d["t"] <= t), None)
        return out


def _world_with_lights(brain: Any) -> dict[str, Any]:
    """The world model's summary, each cube with what its lights show (a cube light trigger)."""
    world = brain.ctx.world.snapshot()
    lights = brain.ctx.cube_lights
    for cube in world["cubes"]:
        cube["lights"] = lights.playing(cube["id"]) if lights is not None else None
    return world
