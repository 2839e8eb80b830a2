"""The heartbeat: a drift-free loop that drains events, updates mood, ticks the tree, publishes.

Each beat, in this order: robot events queued since the last beat are drained (the tick is the
only writer of the blackboard, so events never change the tree mid-tick); event handlers run
(reactions, the recent-events buffer); the mood decays by the real elapsed time; the tree ticks
once; a snapshot (active branch, mood, last events) is published. When the active branch
changes, one log line says what the robot is doing now and why.

Beats are scheduled by absolute time (start + k·period), so they do not drift; a beat that
overruns skips the beats it missed instead of bursting to catch up. A new rate
(:meth:`Heartbeat.set_rate`) starts a new schedule from the next beat.

The heartbeat can be *suspended* (the robot is lost): beats go on, events are drained and the
mood decays, but the tree is not ticked. A beat that is over within one period of when it was
due calls ``on_time`` (the service watchdog's keep-alive), so a stuck event loop, or beats that
keep overrunning, stop the keep-alives.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from driver import events as ev
from driver.samples import RobotStatus

log = logging.getLogger(__name__)

EventHandler = Callable[[list[ev.RobotEvent], float], None]


class Tickable(Protocol):
    """What the heartbeat ticks: a py_trees behaviour (the tree root) or anything alike."""

    def tick_once(self) -> None:
        """Run one tick."""


class MoodLike(Protocol):
    """The part of the mood engine the heartbeat drives."""

    def update(self, dt: float) -> None:
        """Decay by ``dt`` seconds."""

    def snapshot(self) -> dict[str, Any]:
        """Values for logs."""


@dataclass
class Snapshot:
    """What the brain is doing, published once per beat."""

    at: float
    beat: int
    branch: str
    why: str
    mood: dict[str, Any]
    events: list[str]
    hazard: str | None = None


@dataclass
class BeatStats:
    """Timing of the heartbeat itself."""

    beats: int = 0
    missed: int = 0
    tick_ms: deque[float] = field(default_factory=lambda: deque(maxlen=1000))

    def median_tick_ms(self) -> float:
        """Median time spent in one beat's work (ms)."""
        if not self.tick_ms:
            return 0.0
        ordered = sorted(self.tick_ms)
        return ordered[len(ordered) // 2]


class Heartbeat:
    """Ticks one brain on the event loop at ``rate_hz``.

    ``describe`` names the running branch after each tick; ``explain`` says why it runs, asked
    only when the branch changes (the log's line and the snapshots' ``why``); ``hazard`` reports
    a safety hold. They are injected so the heartbeat knows nothing about py_trees specifics.
    """

    def __init__(
        self,
        tree: Tickable | None,
        *,
        rate_hz: float = 10.0,
        mood: MoodLike | None = None,
        handlers: list[EventHandler] | None = None,
        describe: Callable[[], str] | None = None,
        explain: Callable[[], str] | None = None,
        hazard: Callable[[], str | None] | None = None,
        on_snapshot: Callable[[Snapshot], None] | None = None,
        on_time: Callable[[float], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if rate_hz <= 0:
            raise ValueError("heartbeat rate must be positive")
        self.tree = tree
        self.period = 1.0 / rate_hz
        self.mood = mood
        self.handlers = list(handlers or [])
        self.describe = describe
        self.explain = explain
        self.hazard = hazard
        self.on_snapshot = on_snapshot
        #: called with the period after each beat that is over within one period of its due time
        self.on_time = on_time
        #: also called with each snapshot (after ``on_snapshot``): status reporting and tools
        self.observers: list[Callable[[Snapshot], None]] = []
        #: why the tree is not ticked (None: it is)
        self.suspended: str | None = None
        self.clock = clock
        self.stats = BeatStats()
        self.last: Snapshot | None = None
        self.recent: deque[ev.RobotEvent] = deque(maxlen=64)
        self._queue: deque[ev.RobotEvent] = deque()
        self._last_beat: float | None = None
        self._branch = ""
        self._why = ""

    def post(self, event: ev.RobotEvent) -> None:
        """Queue a robot event for the next beat (register this as a Robot listener)."""
        self._queue.append(event)

    @property
    def rate_hz(self) -> float:
        """Beats per second."""
        return 1.0 / self.period

    def set_rate(self, rate_hz: float) -> None:
        """Change the beat rate; a running :meth:`run` starts a new schedule after the next beat."""
        if rate_hz <= 0:
            raise ValueError("heartbeat rate must be positive")
        self.period = 1.0 / rate_hz

    def set_tree(self, tree: Tickable) -> None:
        """Swap in a new tree (personality reload) between two beats."""
        self.tree = tree
        self._branch = ""

    def beat(self) -> Snapshot:
        """Do one beat's work now."""
        t0 = time.perf_counter()
        now = self.clock()
        dt = 0.0 if self._last_beat is None else now - self._last_beat
        self._last_beat = now
        drained: list[ev.RobotEvent] = []
        while self._queue:
            drained.append(self._queue.popleft())
        self.recent.extend(drained)
        for handler in self.handlers:
            try:
                handler(drained, now)
            except Exception:
                log.exception("event handler failed")
        if self.mood is not None and dt > 0:
            self.mood.update(dt)
        if self.suspended is not None:
            branch = f"suspended ({self.suspended})"
        else:
            if self.tree is not None:
                self.tree.tick_once()
            branch = self.describe() if self.describe else ""
        changed = branch != self._branch
        why = ""
        if changed:
            self._branch = branch
            why = self.explain() if self.explain is not None and self.suspended is None else ""
            if why or self.suspended is not None:
                self._why = why  # no new decision (a sequence's next step): the last reason holds
        hazard = self.hazard() if self.hazard else None
        self.stats.beats += 1
        snap = Snapshot(
            at=now,
            beat=self.stats.beats,
            branch=branch,
            why=self._why,
            mood=self.mood.snapshot() if self.mood is not None else {},
            events=[e.kind for e in drained if not _noise(e)],
            hazard=hazard,
        )
        if changed:
            if self.suspended is not None:
                log.info("personality suspended: %s", self.suspended)
            else:
                log.info("doing %s%s", branch or "nothing", f" - because {why}" if why else "")
        self.last = snap
        if self.on_snapshot is not None:
            self.on_snapshot(snap)
        for observer in self.observers:
            observer(snap)
        self.stats.tick_ms.append((time.perf_counter() - t0) * 1000.0)
        return snap

    async def run(self, stop: asyncio.Event, duration: float | None = None) -> None:
        """Beat until ``stop`` is set or ``duration`` seconds have passed."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        end = start + duration if duration is not None else None
        period = self.period
        k = 0
        while not stop.is_set():
            self.beat()
            # on time: the beat is over within one period of when it was due
            if self.on_time is not None and loop.time() - (start + k * period) <= period:
                self.on_time(period)
            k += 1
            if self.period != period:  # new rate: a new schedule, starting one new period from now
                start, period, k = loop.time(), self.period, 1
            target = start + k * period
            now = loop.time()
            if now > target:
                skipped = int((now - target) / period) + 1
                self.stats.missed += skipped
                k += skipped
                target = start + k * period
            if end is not None and target >= end:
                await _sleep_or_stop(stop, max(0.0, end - loop.time()))
                break
            await _sleep_or_stop(stop, target - loop.time())


#: Events too frequent to list in every snapshot: these types, and edges of these status flags.
_NOISY_EVENTS = (ev.AnimationStarted, ev.AnimationEnded, ev.MotorCalibration)
_NOISY_FLAGS = (RobotStatus.IS_MOVING | RobotStatus.ARE_WHEELS_MOVING | RobotStatus.HEAD_IN_POS
                | RobotStatus.LIFT_IN_POS | RobotStatus.IS_ANIMATING)


def _noise(e: ev.RobotEvent) -> bool:
    """Events too frequent to list in every snapshot (by type and status flag)."""
    return isinstance(e, _NOISY_EVENTS) or (isinstance(e, ev.StatusChanged) and bool(e.flag & _NOISY_FLAGS))


async def _sleep_or_stop(stop: asyncio.Event, delay: float) -> None:
    if delay <= 0:
        return
    try:
        await asyncio.wait_for(stop.wait(), delay)
    except asyncio.TimeoutError:
        pass
