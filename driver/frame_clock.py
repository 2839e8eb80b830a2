"""The frame release thread: clocked animation frames on the wire at their time.

The animation controller must put one frame on the air every 1/30 s, evenly. The event loop
cannot promise that: its timers wake ~1 ms late by design (millisecond poll timeouts), and any
callback that holds the loop for a few ms holds the frame too. So a frame is prepared on the loop
a few ms early (:meth:`driver.link.Link.frame_at`): the session sequences and encodes it at once
(:meth:`driver.protocol.session.Session.stage_frame`), and a small :class:`ReleaseClock` thread
(one per link, started on first use) writes those ready-made bytes to the socket at their time,
within a fraction of a millisecond. The thread touches nothing but the bytes, the stage's state
(under the session's guard) and a duplicate of the socket; windows, resends and acks stay with
the session on the loop. Links without a real socket (the in-memory network of virtual-time
runs) or with a network-fault hook release frames from the session's own timer instead.

A thread that wakes on time still needs the GIL to send. CPython hands the GIL to a waiting
thread only every ``sys.getswitchinterval()`` (5 ms by default), so a program that wants
sub-millisecond frames while its loop is busy calls :func:`tune_thread_switching` once at start-up
(never done on import: it is a process-wide setting).

The thread must also get a CPU at once when it wakes. Linux's fair scheduler may queue it behind
a busy event-loop thread for a whole time slice (~3 ms measured), so for frames that are on time
while the loop works, either give the thread a real-time priority (``release_priority``,
SCHED_FIFO: needs root, CAP_SYS_NICE or an RLIMIT_RTPRIO such as systemd's ``LimitRTPRIO=``) or a
CPU of its own (``release_cpu``, with the program keeping its loop thread off that CPU). Both are
explicit choices of the program, not defaults.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable

from .protocol.linkstate import STAGE_PENDING, STAGE_SENT, Address, Stage

log = logging.getLogger(__name__)

__all__ = ["FRAME_CLOCK_SWITCH_INTERVAL_S", "RELEASE_NAPS_S", "DatagramTap", "ReleaseClock", "tune_thread_switching"]

#: Sees every datagram at the socket: (True, data) sent, (False, data) received (``run --record``).
DatagramTap = Callable[[bool, bytes], None]

#: The release thread sleeps until this long before a frame's time, then naps to it (see
#: :meth:`ReleaseClock._wait_until`); 0: one sleep to the frame's time. Long sleeps may overshoot
#: on a loaded or virtualised machine; the naps are not late. Each nap wakes the thread, so the
#: margin is a cost too. At 0.5 ms (it was 3, then 1) the thread of an idle daemon woke 74 times a
#: second; at 0 it wakes twice a frame (handed the frame, then at its time), 36 times a second,
#: and its CPU fell from 0.31 % of a core to 0.18 % (the loop thread was also preempted 14 times a
#: second instead of 25). The frame-timing benchmark's kernel-stamped p99 at the simulator went
#: from 0.08 ms to 0.15-0.16 ms (idle, the brain; a loaded loop 0.36 ms), against a 2 ms target:
#: the robot plays from a buffer of up to 14 frames (hardware.md §4).
RELEASE_NAPS_S = 0.0
#: The switch interval :func:`tune_thread_switching` sets by default: a thread woken for a frame
#: gets the GIL within about this long even while the event loop is busy.
FRAME_CLOCK_SWITCH_INTERVAL_S = 0.0002
#: The longest of the release thread's naps near a frame's time.
_NAP_S = 0.0002
#: A stage due at most this long before the time the thread sleeps to is not rung for: it goes
#: out that much late at most. The next frame of a stream is due at the very slot the thread sleeps
#: to, but the two times are sums of floats and half the time the frame's came out a few
#: nanoseconds earlier: the thread was rung for it, woke, and slept again to its time, 1.5 wake-ups
#: a frame instead of one.
_RING_SLACK_S = 0.0002
#: Two frames at most this far apart are a stream: the thread then expects the next one a period
#: later (a 30 fps stream's period is 33 ms; a clock that dozed sends after a longer pause).
_EXPECT_GAP_MAX_S = 0.1


def tune_thread_switching(interval_s: float = FRAME_CLOCK_SWITCH_INTERVAL_S) -> float:
    """Lower the interpreter's thread switch interval so clocked frames go out on time; returns
    the previous interval.

    A process-wide setting, so it is for a program's entry point (the daemon, a benchmark), not
    for a library: with the default 5 ms a frame thread can wait that long for the GIL whenever
    the event loop is busy. Shorter than the ~0.5 ms slices an event loop typically runs between
    system calls, it also stops the loop from winning the GIL back again and again while the
    frame thread waits (the "convoy effect"). It costs nothing while only one thread runs Python.
    """
    if not 0 < interval_s <= 0.1:
        raise ValueError(f"switch interval must be in (0, 0.1] s, got {interval_s!r}")
    previous = sys.getswitchinterval()
    sys.setswitchinterval(interval_s)
    log.debug("thread switch interval %.2f ms (was %.2f ms)", interval_s * 1e3, previous * 1e3)
    return previous


class ReleaseClock:
    """A small thread that writes ready-made datagrams to a socket at their times.

    Why a thread: a thread asleep in the kernel is not held up by whatever the event loop is
    running, so it can send at the planned instant. It sleeps until ``naps_s`` before the time
    (sleeps may overshoot on a loaded machine), then naps to it. It sends only bytes prepared on
    the loop, each stage under ``lock`` and only while the stage is still pending, and reports
    every release back to the loop with ``call_soon_threadsafe(on_released, stage)``.

    With ``note_released``, the thread first hands it the stage (in the thread); when it answers
    False the loop is not woken: the owner takes the release in on the loop's next turn of its own
    (the next frame or datagram). An idle daemon's loop then wakes 30 times a second fewer, for
    a report nobody waited for.
    """

    def __init__(self, sock: socket.socket, lock: threading.Lock, loop: asyncio.AbstractEventLoop,
                 on_released: Callable[[Stage], None], send_later: Callable[[bytes, Address], None], *,
                 naps_s: float = RELEASE_NAPS_S, priority: int | None = None, cpu: int | None = None,
                 name: str = "link", tap: DatagramTap | None = None,
                 note_released: Callable[[Stage], bool] | None = None) -> None:
        self.naps_s = naps_s
        self._note_released = note_released
        self._tap = tap
        #: SCHED_FIFO priority asked for (None: normal scheduling); ``realtime`` says if it was granted
        self.priority = priority
        self.realtime = False
        #: the CPU the thread is pinned to (None: any)
        self.cpu = cpu
        #: how often the thread went to sleep (for a frame's time, the next slot, or until rung)
        #: and woke: its own wake-ups, which the kernel's count of the thread's switches also
        #: holds, along with every wait for the GIL or the session's guard on a busy machine
        self.wakeups = 0
        self._sock = sock
        self._lock = lock
        self._loop = loop
        self._on_released = on_released
        self._send_later = send_later
        # The thread sleeps on a plain lock used as a doorbell (held: not rung), which costs it a
        # fraction of a Condition's Python-level wait at every frame; the queue is a deque, whose
        # append and popleft are atomic.
        self._bell = threading.Lock()
        self._bell.acquire()
        self._queue: deque[Stage] = deque()
        self._closed = False
        #: monotonic time the thread sleeps until (inf: until rung), None while it is awake: it
        #: sets this, then looks at the queue once more, then sleeps, so a stage that
        #: :meth:`submit` adds meanwhile is either seen or rung for
        self._asleep_until: float | None = None
        # loop time = monotonic time + offset (the same clock for asyncio's default loop)
        self._offset = loop.time() - time.monotonic()
        self._thread = threading.Thread(target=self._run, name=f"{name}-frame-clock", daemon=True)
        self._thread.start()

    def submit(self, stage: Stage) -> None:
        """Release ``stage`` at its time (stages are released in the order submitted).

        The thread is woken only when it would otherwise look too late: asleep with nothing to
        do, or until after this stage's time. Streaming at 30 fps it sleeps until the next
        frame's slot anyway (see :meth:`_run`), so a frame handed over costs it no wake-up.
        """
        self._queue.append(stage)
        until = self._asleep_until
        if until is not None and stage.at - self._offset < until - _RING_SLACK_S:
            self._ring()

    def close(self, timeout: float = 0.05) -> None:
        """Stop the thread (pending stages are dropped; cancel them first) and close its socket."""
        self._closed = True
        self._queue.clear()
        self._ring()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def _ring(self) -> None:
        try:
            self._bell.release()
        except RuntimeError:  # rung already, not heard yet
            pass

    def _sleep(self, until: float, *, idle: bool) -> None:
        """In the thread: sleep to monotonic time ``until`` (inf: until rung) or until rung;
        ``idle``: for lack of a stage, so a stage submitted meanwhile ends it."""
        self._asleep_until = until
        # looked at again after the announcement: what came before it was not rung for
        if not self._closed and not (idle and self._queue):
            rest = until - time.monotonic()
            if rest > 0:
                self._bell.acquire(True, -1 if rest == math.inf else rest)
                self.wakeups += 1
        self._asleep_until = None

    def _run(self) -> None:
        if self.priority:
            self._raise_priority(self.priority)
        if self.cpu is not None:
            try:
                os.sched_setaffinity(0, {self.cpu})  # this thread only
            except (OSError, AttributeError, ValueError) as exc:
                log.warning("frame clock: cannot run on CPU %d (%s)", self.cpu, exc)
                self.cpu = None
        expect: float | None = None  # monotonic time the next frame is expected at
        last: float | None = None  # monotonic time of the last release
        try:
            while True:
                while not self._queue and not self._closed:
                    if expect is not None and expect <= time.monotonic():
                        expect = None  # no frame came in its slot: sleep until rung
                    self._sleep(math.inf if expect is None else expect, idle=True)
                if self._closed:
                    return
                try:
                    stage = self._queue[0]
                except IndexError:  # cleared by close() meanwhile
                    continue
                at = stage.at - self._offset  # monotonic time of the release
                while not self._closed and stage.state == STAGE_PENDING and at - self.naps_s > time.monotonic():
                    self._sleep(at - self.naps_s, idle=False)
                if self._closed:
                    return
                # Frames streaming at a steady period: sleep until the next one's slot rather
                # than until the loop hands it over (one wake-up a frame instead of two).
                gap = None if last is None else at - last
                expect = at + gap if gap is not None and 0 < gap <= _EXPECT_GAP_MAX_S else None
                last = at
                self._wait_until(stage, at)
                self._release(stage)
                try:
                    if self._queue[0] is stage:
                        self._queue.popleft()
                except IndexError:  # cleared by close() meanwhile
                    pass
                if self._note_released is not None and not self._note_released(stage):
                    continue  # noted: the loop takes it in when it next runs
                try:
                    self._loop.call_soon_threadsafe(self._on_released, stage)
                except RuntimeError:  # the loop is closed: nobody is left to tell
                    return
        finally:
            self._sock.close()

    def _wait_until(self, stage: Stage, at: float) -> None:
        """The last ``naps_s`` before monotonic time ``at``: naps of at most :data:`_NAP_S`.

        Why not one long sleep: a CPU left idle for milliseconds may take a millisecond or more to
        wake (deep idle states, a virtual machine's halted CPU), while one that naps briefly does
        not. A nap ends within the kernel's timer slack (50 µs for a normal thread, none for a
        real-time one). Why no spin to the exact microsecond at the end (there was one, 0.1-0.3
        ms a frame): the robot plays what it is sent from a buffer of up to 14 frames on its own
        audio clock (hardware.md §4), so a tenth of a millisecond changes nothing it shows, while
        the spin held the GIL against the event loop at every frame. Measured on an idle daemon
        without it: the loop thread preempted 0.5 times a second instead of 28, the process at 2.6 %
        of a core instead of 3.9 %; the frame-timing benchmark's kernel-stamped p99 stayed
        0.1-0.3 ms (target 2 ms).
        """
        while stage.state == STAGE_PENDING:
            rest = at - time.monotonic()
            if rest <= 0:
                break
            time.sleep(rest if rest < _NAP_S else _NAP_S)
            self.wakeups += 1

    def _raise_priority(self, priority: int) -> None:
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))  # this thread only
        except (OSError, AttributeError, ValueError) as exc:
            log.warning("frame clock: real-time priority %d not granted (%s); frames may be late while "
                        "the event loop or other programs keep the CPUs busy", priority, exc)
        else:
            self.realtime = True

    def _release(self, stage: Stage) -> None:
        with self._lock:
            if stage.state != STAGE_PENDING:
                return
            stage.sent_at = time.monotonic() + self._offset
            for i, data in enumerate(stage.datagrams):
                try:
                    self._sock.sendto(data, stage.peer)
                    if self._tap is not None:
                        self._tap(True, data)
                except BlockingIOError:
                    # The socket buffer is full: let the loop's transport queue the rest, in order.
                    for rest in stage.datagrams[i:]:
                        self._loop.call_soon_threadsafe(self._send_later, rest, stage.peer)
                    break
                except OSError as exc:  # like a lost datagram: the ARQ resends what matters
                    log.debug("frame clock: send failed: %s", exc)
            stage.state = STAGE_SENT
