"""The 30 fps animation controller: the one place that streams frames to the robot.

Everything the robot shows or says is clocked by its 30 fps animation frame: each frame carries
exactly one audio packet (OutputAudio or OutputSilence), and may carry a face image and keyframe
packets (head, lift, body, backpack lights, headings). The controller owns that stream. It plays
clips (with :class:`~driver.animation.playback.PlaybackParams`), keeps a queue, lets behaviours
lock tracks, and when nothing else uses the face it runs the idle face (blinks, small saccades).

It talks to the robot through :class:`driver.clocked.AnimationTarget` (the Robot implements
it) and is built from parts that each hold one idea: :mod:`.timeline` (a clip as frames, pure
data), :mod:`.onair` (the clip on air, frame by frame, with its blends), :mod:`.tracks` (track
names and locks), :mod:`.idle` (the idle face), :mod:`.face_images` (which image the robot needs),
:mod:`.keyframe_assets` (a clip's sounds and sprites), :mod:`.playback` (parameters and the
handle a caller gets) and :mod:`.clip_queue` (clips played, queued, put on air and ended). This
module keeps the clock and the order of packets in a frame.

Clock
    Frame k is due at the absolute time ``t0 + k / 30``, so errors do not accumulate. It is
    *prepared* on the event loop ``lead_s`` (10 ms) early, with ``loop.call_at``, and *released*
    at exactly its time by the link's release thread (``robot.frame_at``, which the Robot hands
    to :meth:`driver.link.Link.frame_at`): the loop may be busy, or wake a millisecond late,
    without the robot noticing. (``release="loop"`` prepares and sends each frame on the loop
    when due, then flushes it.) A frame whose time has passed by a whole period or more is
    skipped (counted in ``stats.missed_frames``), never sent in a burst: the robot plays at its
    own rate and a burst would only overflow its buffer.

Face image
    DisplayImage is sent only when the encoded image changed, because the robot keeps showing
    the last one; but at least every :data:`DISPLAY_REFRESH_S` (25 s), because the robot blanks
    the screen after 30 s without an image. Rendering a changing face costs ~0.15 ms and a held
    one a cache lookup (``face_images.FaceRenderer``), well under the frame budget, so it runs in the frame.

Quiet idle frames
    A frame is sent only when it carries something for the robot: a clip's frame, a sound, a
    new face image (or its refresh), or the one silence frame that follows EndAnimation. A real
    robot plays silence outside an animation as nothing and keeps showing the last image, so an
    idle robot with a still face gets no frames at all between blinks (``stats.quiet_frames``);
    the link's pings keep the connection. ``idle_silence=True`` streams every frame instead.
    Nor does the clock wake for such frames: after a quiet frame with no clip, lock or pending
    silence it dozes until the frame before the idle face's next blink or glance or the image's
    refresh (at most :data:`DOZE_MAX_S`), and anything that could change the next frame (a clip,
    a lock, the idle face's or the controller's settings, ``stop_all``) wakes it for the next
    frame slot. A blink or a clip starts on the frame it always would; the frames slept through
    count as quiet. An idle daemon's loop wakes some 20 times a second fewer.
    The robot's input is read at the frame ticks (:meth:`next_read_after`); while the clock
    dozes (or prepares frames a read ahead, below), at the first slot :data:`DOZING_READ_GAP_S`
    after the last read, every other slot,
    which is the cadence Anki's own engine reads the robot at, or every third slot
    (:data:`STILL_READ_GAP_S`, with the heartbeat's beats) while the robot is still.

Frames a read ahead
    With the heartbeat beating every :attr:`~AnimationController.beat_every` slots (the brain
    sets it with :meth:`~AnimationController.beat_on`, again at each new rate: 3 at 10 Hz on the
    30 fps slots, its beats aligned by :meth:`~AnimationController.next_beat_after`)
    and the robot's input read on the clock, a streaming clock wakes only where it reads the input
    or a beat comes: while the robot moves every other slot, beside a still one every third, with
    the beats. In each wake-up it prepares the frame of that slot and those of the slots before
    its next wake-up, after whatever else is due then (the beat), and the release thread sends
    each at its time. Nothing the robot says is heard between two reads and the brain decides
    only at its beats, so those frames are what their own ticks would have prepared: the same
    bytes reach the robot, a clip played at a beat starts on the beat's own slot, and the loop
    wakes a third fewer times while frames stream. What comes between (a dashboard request, a
    reload) takes effect at the next frame not yet prepared, a frame or two later. On the
    in-memory network of virtual-time runs, where what the robot says is heard as it arrives,
    every frame is prepared at its own tick, after the beat due with it.

Frames ahead of their time
    A robot keeps a frame of an animation it has open in its buffer until its audio clock comes
    to it, but shows a face image outside one at once (hardware.md §4). So the frame that opens
    an animation and every frame outside one go at their time, and the frames after the opening
    one leave as soon as they are prepared (``end_frame(..., early=True)``), as Anki's engine
    streamed them: the robot plays them on the same ticks (each reached it before its tick
    anyway: its clock runs a little slower than 30 fps) and the release thread does not wake for
    them. ``stream_ahead = False`` releases every frame at its time.

Frame order
    Within a frame the controller sends StartAnimation (first frame of a clip), the keyframe
    packets, the face image, then the audio packet, which closes the frame; after a clip's last
    frame it sends EndAnimation.

Sounds, sprites, events
    RobotAudio keyframes become sound through ``audio_resolver`` and FaceAnimation keyframes
    (sprite sequences) become face images through ``sprite_resolver``; ``resources=`` sets up
    both from a resource tree. They are looked up when a clip is queued, not in the frame; a
    playback's ``pitch_semitones`` reaches a resolver that can shift sounds
    (:class:`~driver.animation.sounds.PitchedAudioResolver`).
    Event keyframes reach ``on_event`` callbacks (the controller's and the playback's) when
    their frame goes out, and :meth:`Playback.wait_for_event` / :meth:`Playback.fired`.

Completion
    A playback completes when the robot answers AnimationEnded for its ``anim_id``; if no answer
    comes within :data:`END_TIMEOUT_S` of EndAnimation it completes anyway (``ended_by_robot``
    is then False). The next queued clip does not wait for that answer: it starts on the frame
    after the previous clip's last frame, so the stream has no gap.

Track locks
    ``controller.lock(tracks, owner)`` reserves tracks for a behaviour (:mod:`.tracks` has the
    rules). A clip never fails to start because of a lock: its keyframes on tracks another owner
    locked are skipped, checked on every frame, so a lock taken mid-clip takes effect at once.

Stopping
    :meth:`AnimationController.stop_all` stops everything at once and keeps the clock: the clip on
    air, the queue, the clips waiting for AnimationEnded, and every track lock (for a robot that
    went silent, say). While the robot is not connected the clock sends nothing; it streams the
    idle face again, with a fresh face image, as soon as the robot is back.
    :meth:`AnimationController.stop` does the same and stops the clock.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from ..clocked import AnimationTarget
from ..hardware import DISPLAY_BLANK_AFTER_S
from ..robot import RobotError
from . import face as facemod
from .clip_queue import END_TIMEOUT_S, ClipQueue, EventHandler
from .face import FaceParams
from .face_images import FACE_CACHE, FaceImages
from .idle import IdleFace, Waking
from .onair import OnAir
from .playback import Playback
from .roots import ResourceRoots
from .stats import ControllerStats
from .timeline import FRAME_S, AudioResolver, SpriteResolver
from .tracks import Lock, TrackLocks

log = logging.getLogger(__name__)

__all__ = [
    "DISPLAY_REFRESH_S", "DOZE_MAX_S", "DOZING_READ_GAP_S", "END_TIMEOUT_S", "RELEASE_LEAD_S", "STILL_READ_GAP_S",
    "AnimationController", "EventHandler",
]

#: Resend the face image at least this often: the robot blanks its screen after 30 s without one.
DISPLAY_REFRESH_S = DISPLAY_BLANK_AFTER_S - 5.0
#: With release="thread", each frame is prepared this long before its time: room for the loop
#: to be busy (or to wake late) without the frame missing its slot.
RELEASE_LEAD_S = 0.010
#: The longest the clock dozes through quiet frames before it looks again (a safety net: what
#: could change a frame wakes it at once).
DOZE_MAX_S = 1.0

#: While the clock dozes, the robot's input is read at the first frame slot this long (s) after
#: the last read, every other slot, rather than at every slot: Anki's engine takes in what the
#: robot sent once per engine tick of 60 ms (``BS_TIME_STEP_MS`` in its cozmoEngineConfig.h), so
#: a behaviour sees a state at most this late there too. A dozing clock sends nothing, so no
#: frame waits on the read; a safety stop does not either (the robot's firmware stops its own
#: motors on a cliff). With the heartbeat reading at its beats, an idle daemon wakes some ten
#: times a second fewer.
DOZING_READ_GAP_S = 0.060
#: While the clock dozes and the robot is still (``robot.still``: no motor turns or was just told
#: to, no animation plays), the input is read at the first slot this long (s) after the last read,
#: every third slot: at the heartbeat's beats (10 Hz, on the same ticks), whose own read before
#: each tick then serves alone. A still robot has no motor for the safety layer to stop, and the
#: brain, which reads first thing in each beat, sees every state before it commands a motion;
#: once one is commanded the reads are every other slot again. An idle daemon's process wakes
#: some five times a second fewer.
STILL_READ_GAP_S = 0.095

#: :meth:`AnimationController.next_tick_after` skips a tick closer than this (s), so that a read
#: made as a tick's wake-up runs, a little after its time, is next made at the next tick.
_TICK_GAP_S = 0.002


class AnimationController(ClipQueue):
    """Streams animation frames to one robot at 30 fps (see the module docstring).

    Create it with the robot, ``start()`` it on the running loop (``play`` starts it too), and
    ``await stop()`` at the end.

    - ``audio_resolver`` turns a clip's RobotAudio keyframe into µ-law frames and
      ``sprite_resolver`` a FaceAnimation keyframe's sprite sequence into face images;
      ``resources`` (a Cozmo resource tree, or several searched in order) provides both by default
      (:class:`~driver.animation.sounds.SoundLibrary`,
      :class:`~driver.animation.display.SpriteLibrary`). Without them such keyframes are skipped.
    - ``on_event(playback, event_id)`` is called when a clip's Event keyframe goes out.
    - ``release``: ``"thread"`` (default) prepares each frame ``lead_s`` early on the loop and has
      the link's release thread send it at the exact frame time; ``"loop"`` prepares and sends it
      on the loop when due (``wake_early_s`` then wakes that much early and spins to the time).
      ``release_priority`` asks for a real-time (SCHED_FIFO) priority for the release thread and
      ``release_cpu`` pins it to one CPU (see :mod:`driver.link` on why frames can be late
      without either while the loop is busy).
    - ``seed`` makes the idle face reproducible.
    - ``idle_silence``: send idle frames with nothing new too (a steady 30 fps OutputSilence
      stream) rather than only the frames the robot needs.
    - ``face_cache``: how many rendered faces are kept (see
      :class:`~driver.animation.face_images.FaceRenderer`). The default suits a daemon's memory;
      a simulated day, which asks for every face its hours show in a few minutes, keeps more.
    """

    def __init__(self, robot: AnimationTarget, *, idle_face: FaceParams | None = None,
                 audio_resolver: AudioResolver | None = None, sprite_resolver: SpriteResolver | None = None,
                 resources: ResourceRoots | None = None,
                 on_event: EventHandler | None = None,
                 seed: int | None = None, idle: bool = True, release: str = "thread",
                 lead_s: float = RELEASE_LEAD_S, release_priority: int | None = None,
                 release_cpu: int | None = None, wake_early_s: float = 0.0,
                 idle_silence: bool = False, face_cache: int = FACE_CACHE) -> None:
        if release not in ("thread", "loop"):
            raise ValueError(f"release must be 'thread' or 'loop', got {release!r}")
        if not 0.0 <= lead_s <= 0.5 * FRAME_S:
            raise ValueError(f"lead_s must be within 0..{0.5 * FRAME_S:.4f} s, got {lead_s!r}")
        self.robot = robot
        self.release = release
        #: release="thread": prepare each frame this long before it is due
        self.lead_s = lead_s
        self.release_priority = release_priority
        self.release_cpu = release_cpu
        #: release="loop": wake this much before a frame is due and spin to the exact time (0: off).
        #: It removes the loop's ~1 ms timer rounding at the price of up to this much busy CPU per frame.
        self.wake_early_s = max(0.0, min(0.002, wake_early_s))
        if resources is not None:
            from .display import SpriteLibrary
            from .sounds import SoundLibrary

            audio_resolver = audio_resolver or SoundLibrary(resources, seed=seed)
            sprite_resolver = sprite_resolver or SpriteLibrary(resources)
        self.audio_resolver = audio_resolver
        self.sprite_resolver = sprite_resolver
        self.on_event = on_event
        #: the idle face: blinks and saccades around ``idle.base`` while nothing else drives the face
        self.idle = IdleFace(idle_face or facemod.DEFAULT_FACE, random.Random(seed))
        self.idle.on_change = self._wake
        #: sleep through quiet frames (see "Quiet idle frames"); False ticks every frame
        self.doze = True
        self._dozing = False
        self._doze_from = 0
        self.idle_enabled = idle
        #: send idle frames (OutputSilence) even when nothing changes, as a steady 30 fps stream
        self.idle_silence = idle_silence
        #: resend an unchanged face image this often (the robot blanks after 30 s without one)
        self.display_refresh_s = DISPLAY_REFRESH_S
        #: send the frames of an animation the robot has open as soon as they are prepared
        #: (see "Frames ahead of their time"); False releases every frame at its time
        self.stream_ahead = True
        self._stats = ControllerStats()
        self.locks = TrackLocks()
        #: the heartbeat beats every this many frame slots, on the slots :meth:`next_beat_after`
        #: gives (1: no beats to keep to; see "Frames a read ahead"); set by :meth:`beat_on`
        self.beat_every = 1
        self._beat_phase: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle: asyncio.Handle | None = None
        self._t0 = 0.0
        self._k = 0
        self._queue: deque[Playback] = deque()
        self._active: OnAir | None = None
        self._ending: dict[int, Playback] = {}
        self._next_anim_id = 0
        self._remove_listener: Callable[[], None] | None = None
        self._images = FaceImages(self.idle.base, self._stats, cache_size=face_cache)
        self._head_deg: float | None = None
        self._lift_mm: float | None = None
        self._unplayable: set[tuple[str, str]] = set()
        self._silence_owed = False

    @property
    def idle_face(self) -> FaceParams:
        """The resting face the idle gaze wanders around (settable)."""
        return self.idle.base

    @idle_face.setter
    def idle_face(self, face: FaceParams) -> None:
        self.idle.base = face

    # ------------------------------------------------------------------ lifecycle

    @property
    def stats(self) -> ControllerStats:
        """What the clock did so far (the frames a dozing clock slept through count as quiet)."""
        if self._dozing and self._loop is not None:
            passed = min(self._k, math.floor((self._loop.time() + self._early - self._t0) / FRAME_S) + 1)
            if passed > self._doze_from:
                self._stats.quiet_frames += passed - self._doze_from
                self._doze_from = passed
        return self._stats

    @property
    def _early(self) -> float:
        """How long before its time a frame's tick runs (the lead, or the loop's early wake)."""
        return self.lead_s if self.release == "thread" else self.wake_early_s

    idle_enabled: Waking[bool] = Waking()
    idle_silence: Waking[bool] = Waking()
    display_refresh_s: Waking[float] = Waking()

    def start(self) -> None:
        """Start the frame clock on the running loop (idempotent; wakes a dozing clock)."""
        if self._handle is not None:
            self._wake()
            return
        self._loop = asyncio.get_running_loop()
        if self.release_priority is not None or self.release_cpu is not None:
            self.robot.set_frame_release(priority=self.release_priority, cpu=self.release_cpu)
        if self._remove_listener is None:
            self._remove_listener = self.robot.add_listener(self._on_robot_event)
        now = self._loop.time()
        self._t0 = now
        self._k = 0
        self.idle.schedule(now)
        self._handle = self._loop.call_at(self._t0, self._tick)
        self.robot.read_input_on(self.next_read_after)

    def next_read_after(self, t: float) -> float:
        """Loop time of the robot's next input read after a read at ``t``: the next frame tick
        (:meth:`next_tick_after`), or while the clock dozes, or prepares frames a read ahead, the
        first one :data:`DOZING_READ_GAP_S` after ``t`` (:data:`STILL_READ_GAP_S` while the
        robot is still)."""
        if self._dozing or self._reads_ahead():
            t += (STILL_READ_GAP_S if self.robot.still else DOZING_READ_GAP_S) - _TICK_GAP_S
        return self.next_tick_after(t)

    def beat_on(self, every: int) -> None:
        """Beats come every ``every`` frame slots from now on (1: none to keep to). A heartbeat
        at a new rate starts its schedule at the slot :meth:`next_beat_after` gives, so the beats
        keep to the new count from there."""
        self.beat_every = max(1, int(every))

    def next_beat_after(self, t: float) -> float:
        """Loop time of the first frame tick more than 2 ms after ``t`` on a beat's slot: the
        heartbeat's aligner. The first call takes the next tick, as :meth:`next_tick_after` does,
        and its slot sets the beats' phase; later calls keep to every :attr:`beat_every`-th slot
        from there, so that the frames prepared a read ahead never reach past a beat."""
        early = self._early
        k = math.floor((t + _TICK_GAP_S + early - self._t0) / FRAME_S) + 1
        if self._beat_phase is None:
            self._beat_phase = k % self.beat_every
        return self._t0 + self._beat_slot(k) * FRAME_S - early

    def _beat_slot(self, k: int) -> int:
        """The first beat's slot from slot ``k`` on (every :attr:`beat_every`-th from the phase)."""
        return k + ((self._beat_phase or 0) - k) % self.beat_every

    def _reads_ahead(self) -> bool:
        """True when frames are prepared up to the next read (see "Frames a read ahead")."""
        return self.beat_every > 1 and self.release == "thread" and self.robot.input_on_clock

    def next_tick_after(self, t: float) -> float:
        """Loop time of the first frame tick (the clock's wake-up for a frame, dozing or not) more
        than 2 ms after ``t``: the heartbeat beats then, and the robot's input is read then
        (:meth:`next_read_after`), so one wake-up of the process serves all three."""
        early = self._early
        k = math.floor((t + _TICK_GAP_S + early - self._t0) / FRAME_S) + 1
        return self._t0 + k * FRAME_S - early

    @property
    def running(self) -> bool:
        """True while the frame clock runs."""
        return self._handle is not None

    @property
    def clock_origin(self) -> float | None:
        """Loop time of the clock's frame 0 (None before :meth:`start`): frame k is due at
        ``clock_origin + k / 30``, whatever frames were missed on the way."""
        return self._t0 if self._loop is not None else None

    def stop_all(self, reason: str = "stopped") -> None:
        """Stop everything now, keeping the clock: what plays, what is queued, and every track lock.

        The clip on air and the queued ones are cancelled (``reason`` goes into their
        :class:`~driver.animation.playback.PlaybackCancelled`); the robot is told to abort the
        clip on air while it is connected. Clips whose frames all went out complete without
        waiting for the robot's AnimationEnded. Every lock is released (its ``released`` turns
        True). The face image is sent afresh on the next frame the robot gets, since a robot
        that was lost may have blanked its screen. Meant for a robot that went silent; safe to
        call at any time, and again.
        """
        for pb in [*self._queue, *([self._active.pb] if self._active else [])]:
            self._cancel(pb, reason)
        for pb in list(self._ending.values()):
            pb.complete()  # every frame was sent already
        self._ending.clear()
        released = self.locks.release_all()
        self._images.last = None
        self._wake()
        if released:
            log.debug("%s: %d track lock(s) released", reason, released)

    async def stop(self) -> None:
        """Stop the clock, cancelling what plays and what is queued (see :meth:`stop_all`)."""
        self.stop_all("controller stopped")
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
            self.robot.read_input_on(None)
        if self._remove_listener is not None:
            self._remove_listener()
            self._remove_listener = None

    async def __aenter__(self) -> AnimationController:
        self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # ------------------------------------------------------------------ locks

    def lock(self, tracks: Iterable[str] | str, owner: object) -> Lock:
        """Reserve ``tracks`` for ``owner``; clips of other owners skip them until released."""
        self._wake()
        return self.locks.lock(tracks, owner)

    def locked(self, track: str, *, owner: object | None = None) -> bool:
        """True when ``track`` is locked by someone other than ``owner``."""
        return self.locks.locked(track, owner=owner)

    # ------------------------------------------------------------------ the clock

    def _tick(self) -> None:
        loop = self._loop
        assert loop is not None
        now = loop.time()
        if self._dozing:
            self._dozing = False
            self._stats.quiet_frames += self._k - self._doze_from
        due = self._t0 + self._k * FRAME_S
        ahead = self.release == "thread"
        if not ahead and self.wake_early_s and now < due:
            while now < due:  # bounded by wake_early_s (at most 2 ms)
                now = loop.time()
        self.robot.poll_input()  # what the robot said since the last tick, before the frame
        late = now - (due - self.lead_s if ahead else due)
        if now - due >= FRAME_S:
            # The loop was held for a whole period or more: skip those frames, never burst them.
            skipped = int((now - due) / FRAME_S)
            self._stats.missed_frames += skipped
            self._k += skipped
            due += skipped * FRAME_S
            late -= skipped * FRAME_S
        self._stats.late_ms.append(late * 1000.0)
        self._stats.max_late_ms = max(self._stats.max_late_ms, late * 1000.0)
        if ahead and now > due:
            self._stats.late_frames += 1
        if ahead:
            # the frames (one, unless they are prepared a read ahead) after whatever else is due
            # in this wake-up: a clip the beat that shares it plays starts on the beat's slot
            self._handle = loop.call_soon(self._batch, now)
            return
        quiet = self._prepare(now)  # release="loop": sent now
        self._k += 1
        if quiet and self.doze:
            self._doze(now)
        self._handle = loop.call_at(self._t0 + self._k * FRAME_S - self._early, self._tick)

    def _next_wake(self, now: float) -> int:
        """The slot of the clock's next wake-up after a read at ``now``, with frame ``_k`` next:
        the next read's, or the next beat's after that frame when it comes first."""
        early = self._early
        read = round((self.next_read_after(now) + early - self._t0) / FRAME_S)
        return min(read, self._beat_slot(self._k + 1))

    def _batch(self, read_at: float) -> None:
        """Prepare the frame of this wake-up's slot (whose tick read the input at ``read_at``) and
        those of the slots before the clock's next wake-up, each released at its time: no input
        is read before then and the brain beats then at the earliest, so they are what those
        slots' own ticks would have prepared (see "Frames a read ahead")."""
        loop = self._loop
        assert loop is not None
        wake = self._next_wake(read_at)
        while True:
            due = self._t0 + self._k * FRAME_S
            quiet = self._prepare(due, release_at=due)
            self._k += 1
            if quiet and self.doze:
                self._doze(due)
                if self._dozing:
                    break
            if self._k >= wake:
                break
        self._handle = loop.call_at(self._t0 + self._k * FRAME_S - self._early, self._tick)

    def _prepare(self, now: float, release_at: float | None = None) -> bool:
        """:meth:`_frame`, its cost counted and a failure logged (the clock goes on); True when
        the frame was quiet."""
        started = time.perf_counter()
        quiet = False
        try:
            quiet = self._frame(now, release_at)
        except Exception:
            log.exception("animation frame %d failed", self._k)
        self._stats.max_frame_cost_ms = max(self._stats.max_frame_cost_ms, (time.perf_counter() - started) * 1000.0)
        return quiet

    def _frame(self, now: float, release_at: float | None = None) -> bool:
        """Prepare the frame of time ``now`` and send it (at ``release_at``, when given); True
        when it had nothing for the robot (a quiet frame)."""
        if not self.robot.connected:
            self._stats.offline_frames += 1
            return False
        if not self.robot.anim_budget.has_room():
            # The robot plays a little slower than 30 fps (hardware.md §4): rather than have it
            # drop a frame, this one waits and everything on air slips by a frame.
            self._stats.held_frames += 1
            return False
        out: list[Any] = []
        audio: bytes | None = None
        face: FaceParams | bytes | None = None
        clip_face = False
        # a frame of an animation the robot has open already waits in its buffer for its audio
        # clock: it may go ahead of its time (see "Frames ahead of their time")
        early = self._active is not None and self.stream_ahead
        if self._active is None and self._queue:
            self._begin(self._queue.popleft(), out, now)
        act = self._active
        if act is not None:
            part = act.next_frame(self.locks, self.idle.gaze, out)
            face, audio, clip_face = part.face, part.audio, part.drives_face
            if part.events:
                self._fire(act.pb, part.events, now)
            self._head_deg = part.poses.get("head", self._head_deg)
            self._lift_mm = part.poses.get("lift", self._lift_mm)
        if not clip_face:
            if self.locks.locked("face"):
                # a behaviour holds the face: show what it gave, else hold the last image
                holder = self.locks.face_holder()
                face = holder.face if holder is not None else None
            elif self.idle_enabled:
                face = self.idle.frame(now)
        if audio is None:
            audio = self.locks.next_audio()
        image = self._images.needed(face, self.idle.row_offset, now, self.display_refresh_s) \
            if face is not None else None
        if act is None and not out and audio is None and image is None and not self._silence_owed \
                and not self.idle_silence:
            # Nothing the robot would notice: outside an animation silence plays nothing and the
            # face keeps showing the last image, so the frame is not sent at all.
            self._stats.quiet_frames += 1
            return True
        self._silence_owed = False
        # send: keyframes, face image, then the audio packet that closes the frame
        robot = self.robot
        try:
            if release_at is not None:
                robot.begin_frame()  # (a frame_at block without its generator: thirty a second)
            try:
                for packet in out:
                    robot.send(packet)
                if image is not None:
                    self._show(image, now)
                robot.play_audio_frame(audio)
                if audio is None:
                    self._stats.silence_frames += 1
                else:
                    self._stats.audio_frames += 1
                self._stats.frames += 1
                if act is not None and self._active is act and act.finished:
                    self._complete(act, now)
            finally:
                if release_at is not None:
                    robot.end_frame(release_at, early=early)
            if release_at is None:
                # Put the frame on the wire now rather than on the loop's next turn, where other
                # ready tasks could hold it back.
                self.robot.flush()
        except (RobotError, ConnectionError) as exc:
            self._stats.send_errors += 1
            log.debug("frame not sent: %s", exc)
        return False

    def _doze(self, now: float) -> None:
        """After the quiet frame of time ``now``: skip the frame slots in which nothing can
        change, up to the one before the idle face's next change or the image's refresh."""
        if self._active is not None or self._queue or len(self.locks) or self._silence_owed or self.idle_silence:
            return
        until = self.idle.next_change(now) if self.idle_enabled else math.inf
        if self._images.last is not None:
            until = min(until, self._images.last_at + self.display_refresh_s)
        until = min(until, now + DOZE_MAX_S)
        # the slot before the one that reaches ``until``: a loop-released frame takes the time
        # it wakes at, which may be a little past its slot
        wake = math.ceil((until - self._t0) / FRAME_S) - 1
        if wake > self._k:
            self._dozing, self._doze_from, self._k = True, self._k, wake

    def _changed(self) -> None:  # a Waking setting was set
        self._wake()

    def _wake(self) -> None:
        """Something may change the next frame: a dozing clock ticks again from the next slot."""
        if not self._dozing or self._loop is None or self._handle is None:
            return
        early = self._early
        slot = max(self._doze_from, math.ceil((self._loop.time() + early - self._t0) / FRAME_S))
        if slot < self._k:
            self._handle.cancel()
            self._k = slot
            self._handle = self._loop.call_at(self._t0 + slot * FRAME_S - early, self._tick)

    def _show(self, data: bytes, now: float) -> None:
        self.robot.display_image(data)
        self._images.shown(data, now)
