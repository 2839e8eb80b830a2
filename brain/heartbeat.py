"""The heartbeat: a drift-free loop that drains events, updates mood, ticks the tree, publishes.

Each beat, in this order: robot events queued since the last beat are drained (the tick is the
only writer of the blackboard, so events never change the tree mid-tick); event handlers run
(reactions, the recent-events buffer); the mood decays by the real elapsed time; the tree ticks
once; a snapshot (active branch, mood, last events) is published. When the active branch
changes, one log line says what the robot is doing now and why.

Beats are scheduled by absolute time (start + k·period), so they do not drift; a beat that
overruns skips the beats it missed instead of bursting to catch up. A new rate
(:meth:`Heartbeat.set_rate`) starts a new schedule from the next beat.

A face coming into view or motion (:data:`URGENT_EVENTS`) does not wait for the next beat: it
brings on an extra beat at once, so turning to a person costs the eyes' time, not the beat's.
The schedule is not moved by it.

The heartbeat can be *suspended* (the robot is lost): beats go on, events are drained and the
mood decays, but the tree is not ticked. A beat that is over within one period of when it was
due notifies ``on_time`` (the service watchdog's keep-alive), so a stuck event loop, or beats that
keep overrunning, stop the keep-alives.

Observing the brain is one API, :meth:`Heartbeat.subscribe`: ``events`` (the robot events a beat
drained, before the tick), ``snapshot`` (after every beat), ``change`` (after a beat whose
branch changed, its snapshot saying why) and ``on_time``. Each subscription returns the function
that ends it; a subscriber that raises is logged and the others still hear.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, overload

from driver import events as ev
from driver.samples import RobotStatus

log = logging.getLogger(__name__)

EventHandler = Callable[[list[ev.RobotEvent], float], None]
SnapshotHandler = Callable[["Snapshot"], None]
Unsubscribe = Callable[[], None]
#: What :meth:`Heartbeat.subscribe` offers.
SUBSCRIPTION_KINDS: tuple[str, ...] = ("events", "snapshot", "change", "on_time")


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
    Whoever wants to hear of the beats subscribes (:meth:`subscribe`).
    """

    def __init__(
        self,
        tree: Tickable | None,
        *,
        rate_hz: float = 10.0,
        mood: MoodLike | None = None,
        describe: Callable[[], str] | None = None,
        explain: Callable[[], str] | None = None,
        hazard: Callable[[], str | None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if rate_hz <= 0:
            raise ValueError("heartbeat rate must be positive")
        self.tree = tree
        self.period = 1.0 / rate_hz
        self.mood = mood
        self.describe = describe
        self.explain = explain
        self.hazard = hazard
        self._subscribers: dict[str, list[Callable[..., None]]] = {kind: [] for kind in SUBSCRIPTION_KINDS}
        #: why the tree is not ticked (None: it is)
        self.suspended: str | None = None
        self.clock = clock
        self.stats = BeatStats()
        self.last: Snapshot | None = None
        self.recent: deque[ev.RobotEvent] = deque(maxlen=64)
        self._queue: deque[ev.RobotEvent] = deque()
        #: None, or where a schedule's second beat goes, given the time a period after its first
        #: (which is at once): the daemon puts its beats on the animation clock's frame ticks, so
        #: that one wake-up serves both (a rate of 30 / n Hz stays on them)
        self.align: Callable[[float], float] | None = None
        #: called first thing in each beat (the daemon reads what the robot sent since)
        self.before_beat: Callable[[], None] | None = None
        #: set by an urgent event or the stop signal while :meth:`run` sleeps between beats
        self._alarm: _Alarm | None = None
        self._last_beat: float | None = None
        self._branch = ""
        self._why = ""

    @overload
    def subscribe(self, kind: Literal["events"], fn: EventHandler) -> Unsubscribe: ...

    @overload
    def subscribe(self, kind: Literal["snapshot", "change"], fn: SnapshotHandler) -> Unsubscribe: ...

    @overload
    def subscribe(self, kind: Literal["on_time"], fn: Callable[[float], None]) -> Unsubscribe: ...

    def subscribe(self, kind: str, fn: Callable[..., None]) -> Unsubscribe:
        """Call ``fn`` on every notification of ``kind``; returns the function that unsubscribes.

        ``events``: ``fn(events, now)`` with the robot events a beat drained, before the tick;
        ``snapshot``: ``fn(snapshot)`` after every beat; ``change``: ``fn(snapshot)`` after a beat
        whose branch changed; ``on_time``: ``fn(period)`` after each beat that was over within one
        period of when it was due. Subscribers hear in the order they subscribed.
        """
        if kind not in self._subscribers:
            raise ValueError(f"unknown subscription {kind!r}; expected one of {', '.join(SUBSCRIPTION_KINDS)}")
        subscribers = self._subscribers[kind]
        subscribers.append(fn)

        def unsubscribe() -> None:
            if fn in subscribers:
                subscribers.remove(fn)

        return unsubscribe

    def _notify(self, kind: str, *args: Any) -> None:
        for fn in tuple(self._subscribers[kind]):
            try:
                fn(*args)
            except Exception:
                log.exception("%s subscriber %r failed", kind, fn)

    def post(self, event: ev.RobotEvent) -> None:
        """Queue a robot event for the next beat (register this as a Robot listener); an urgent
        one (:data:`URGENT_EVENTS`) brings that beat forward to now."""
        self._queue.append(event)
        if self._alarm is not None and isinstance(event, URGENT_EVENTS):
            self._alarm.ring()

    @property
    def rate_hz(self) -> float:
        """Beats per second."""
        return 1.0 / self.period

    def set_rate(self, rate_hz: float) -> None:
        """Change the beat rate; a running :meth:`run` starts a new schedule after the next beat.
        (A brain's beats are its animation clock's too: :meth:`brain.engine.Brain.set_rate` tells both.)"""
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
        if self.before_beat is not None:
            self.before_beat()
        now = self.clock()
        dt = 0.0 if self._last_beat is None else now - self._last_beat
        self._last_beat = now
        drained: list[ev.RobotEvent] = []
        while self._queue:
            drained.append(self._queue.popleft())
        self.recent.extend(drained)
        self._notify("events", drained, now)
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
        self._notify("snapshot", snap)
        if changed:
            self._notify("change", snap)
        self.stats.tick_ms.append((time.perf_counter() - t0) * 1000.0)
        return snap

    async def run(self, stop: asyncio.Event, duration: float | None = None) -> None:
        """Beat until ``stop`` is set or ``duration`` seconds have passed.

        Each beat runs in a loop timer that sets the next (no task waking from a sleep: that cost
        a future, a task step and a second loop turn per beat, ten times a second for as long as
        the daemon runs). An urgent event (:meth:`post`) adds a beat at once, leaving the
        schedule as it was. A beat that raises ends the run with its exception.
        """
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        start = loop.time()
        end = start + duration if duration is not None else None
        period = self.period
        if self.align is not None:  # the first beat at once, the next ones on the aligned times
            start = self.align(start + period) - period
        k = 0
        handle: asyncio.Handle | None = None

        def finish(exc: Exception | None = None) -> None:
            if done.done():
                return
            if exc is None:
                done.set_result(None)
            else:
                done.set_exception(exc)

        def scheduled() -> None:
            nonlocal handle, k, start, period
            handle = None
            if done.done():
                return
            if stop.is_set():
                finish()
                return
            try:
                self.beat()
                k, start, period, target = self._next(loop.time(), start, period, k)
            except Exception as exc:
                finish(exc)
                return
            handle = loop.call_at(end, finish) if end is not None and target >= end \
                else loop.call_at(target, scheduled)

        def extra() -> None:  # an urgent event: a beat now, the schedule unchanged
            if done.done() or stop.is_set():
                return
            try:
                self.beat()
            except Exception as exc:
                finish(exc)

        alarm = self._alarm = _Alarm(loop, extra)
        watcher = asyncio.ensure_future(_call_on(stop, finish))
        handle = loop.call_soon(scheduled)
        try:
            await done
        finally:
            if handle is not None:
                handle.cancel()
            alarm.close()
            self._alarm = None
            watcher.cancel()

    def _next(self, now: float, start: float, period: float, k: int) -> tuple[int, float, float, float]:
        """After beat ``k``: keep-alive, and the next beat's number, schedule and due time."""
        if self._subscribers["on_time"] and now - (start + k * period) <= period:
            self._notify("on_time", period)
        k += 1
        if self.period != period:  # new rate: a new schedule, starting one new period from now
            start, period, k = now, self.period, 1
            if self.align is not None:
                start = self.align(now + period) - period
        target = start + k * period
        if now > target:
            skipped = int((now - target) / period) + 1
            self.stats.missed += skipped
            k += skipped
            target = start + k * period
        return k, start, period, target


#: Events too frequent to list in every snapshot: these types, and edges of these status flags.
_NOISY_EVENTS = (ev.AnimationStarted, ev.AnimationEnded, ev.MotorCalibration)
_NOISY_FLAGS = (RobotStatus.IS_MOVING | RobotStatus.ARE_WHEELS_MOVING | RobotStatus.HEAD_IN_POS
                | RobotStatus.LIFT_IN_POS | RobotStatus.IS_ANIMATING)
_NOISY_BITS = int(_NOISY_FLAGS)  # an int: a Flag's & makes a new Flag through Python-level calls


def _noise(e: ev.RobotEvent) -> bool:
    """Events too frequent to list in every snapshot (by type and status flag)."""
    return isinstance(e, _NOISY_EVENTS) or (isinstance(e, ev.StatusChanged) and bool(int(e.flag) & _NOISY_BITS))


#: Events that bring the next beat forward: someone (or something) came into view.
URGENT_EVENTS: tuple[type[ev.RobotEvent], ...] = (ev.FaceSeen, ev.MotionSeen)


class _Alarm:
    """What a running heartbeat hears besides its timer: an urgent event, for an extra beat (one
    for however many arrive before it runs)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, beat: Callable[[], None]) -> None:
        self._loop = loop
        self._beat = beat
        self._pending: asyncio.Handle | None = None

    def ring(self) -> None:
        """An extra beat on the loop's next turn (unless one is already coming)."""
        if self._pending is None:
            self._pending = self._loop.call_soon(self._ring)

    def _ring(self) -> None:
        self._pending = None
        self._beat()

    def close(self) -> None:
        """The run is over: forget a pending extra beat."""
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None


async def _call_on(stop: asyncio.Event, fn: Callable[[], None]) -> None:
    """Call ``fn`` once ``stop`` is set (an Event has no callbacks of its own)."""
    await stop.wait()
    fn()

