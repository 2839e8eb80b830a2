"""The vision pipeline: camera chunks in, image samples and face and motion events out.

On the event loop, :class:`Vision` takes the robot's ImageChunk messages (reassembled by
:class:`~driver.vision.chunks.ChunkReassembler`) and RobotState samples (kept by
:class:`~driver.vision.sample.StateHistory` to place each frame in time and space). Each
complete frame goes to one worker thread, which rebuilds and decodes the JPEG and runs the
detectors that are due; the results come back to the loop, where the face tracker turns them
into events, emitted through the callback the owner gave (the Robot's listeners).

Why it is built this way:

* the loop never decodes or detects: JPEG decoding, OpenCV and dlib release the GIL, so the
  30 fps animation clock and the link's timers keep their time while a frame is analysed;
* when the worker is behind, frames are skipped, never queued: one frame is in the worker and
  at most one waits, the newest (older waiting frames are counted in ``stats.skipped``), so what
  the robot reacts to is never more than about a frame old;
* each detector runs at its own rate: a full face search every ``face_search_interval_s``, a
  cheap look for the faces already followed (a crop around each) on the frames in between, and
  motion detection every ``motion_interval_s`` (0: every frame) while the robot holds still;
  while it does, the full search slows to ``face_search_still_interval_s``, since anyone new in
  the picture then shows as motion first;
* someone stepping into view is seen two frames later: a frame where motion was found is
  searched at once, and a face found once is looked for again on the very next frame (a face is
  reported after two detections);
* a detector that cannot be loaded is reported once, by name, and the rest runs without it; one
  that raises is logged once and counted, and the frame's other results still count.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import logging
import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .. import events as ev
from ..samples import RobotStateSample
from .chunks import ChunkReassembler, CompletedFrame, DropReason
from .faces import Box, FaceDetector, detect_in_region, load_face_detector
from .geometry import FACE_WIDTH_MM, CameraIntrinsics, face_distance_mm, pixel_ray, to_world, view_shift
from .motion import MotionConfig, MotionDetector, MotionReport
from .sample import CorruptFrame, ImageSample, StateHistory, decode_frame, locate, make_sample
from .tracking import FaceTrack, FaceTracker, TrackerChanges

log = logging.getLogger(__name__)

__all__ = ["FrameResult", "Vision", "VisionConfig", "VisionStats"]

EventSink = Callable[[ev.RobotEvent], None]
FrameListener = Callable[[ImageSample], None]
#: motion reports kept waiting for the RobotState after their capture (older ones are dropped)
MOTION_WAITING_MAX = 4


@dataclass(frozen=True)
class VisionConfig:
    """What the pipeline runs and how often (intervals in seconds of capture time; 0: every frame)."""

    #: face detector by name (:data:`driver.vision.faces.FACE_DETECTORS`), or None for none
    face_detector: str | None = "dlib_hog"
    face_search_interval_s: float = 0.3
    #: the search interval while the motion detector saw the robot hold still (s): then anyone
    #: stepping into view shows as motion, which brings a search at once; None: always the above
    face_search_still_interval_s: float | None = 1.0
    #: a frame where something moved is searched at once (someone stepping into view); motion is
    #: reported at most every ``motion_config.min_interval_s``, which bounds the extra searches
    face_search_on_motion: bool = True
    face_track_interval_s: float = 0.1
    #: the frame is scaled up by this before a full search (smaller faces found, more cost)
    face_search_scale: float = 1.5
    #: a full search also reports the faces it is less sure of, down to this score (dlib's margin;
    #: None: none). The detector scans a pyramid of scales and a face whose size falls between two
    #: of them can score about 0 on one frame and miss on the next, at the distance people stand
    #: at most (a face 70 px wide, 0.5 m away, scored -0.06 to +0.01 at 1.5x). Such a candidate is
    #: looked at again on the next frame in a crop scaled to the face's own size, where it scores
    #: well if it is one; it counts as a face only once a sure detection confirms it (a weak one
    #: alone is never announced, not even as a glimpse).
    face_search_weak_score: float | None = -0.5
    face_confirm_hits: int = 2
    face_lost_after_s: float = 1.0
    face_width_mm: float = FACE_WIDTH_MM
    #: a face in view is reported as moved when its direction (in the world) changed by this
    #: many degrees, or its distance by this fraction, since it was last reported
    face_move_deg: float = 3.0
    face_move_distance: float = 0.15
    motion: bool = True
    motion_interval_s: float = 0.0
    motion_config: MotionConfig = field(default_factory=MotionConfig)
    #: the camera's intrinsics (a typical Cozmo's unless a calibration is given)
    camera: CameraIntrinsics = field(default_factory=CameraIntrinsics)
    #: OpenCV's threads for the pipeline's image work (None: OpenCV's default, one per core). The
    #: frames are small (QVGA): split over OpenCV's pool, the pool's wake-ups cost more than the
    #: split saves (0.9 % of a core on a 2-core machine, for the same work), so by default the
    #: worker thread does it alone. OpenCV has one such setting per process: it is set when a
    #: pipeline starts.
    opencv_threads: int | None = 1
    #: analyse each frame on the event loop's thread instead of the worker: for virtual-time runs
    #: (``simulate --pixels``), where the analysis must take no simulated time and skip no frame
    inline: bool = False


@dataclass
class VisionStats:
    """Counters, worker time per stage (wall-clock s) and the worker's CPU time (s), for logs and benchmarks."""

    frames: int = 0
    decoded: int = 0
    corrupt: int = 0
    skipped: int = 0
    face_searches: int = 0
    face_tracks: int = 0
    motion_runs: int = 0
    motion_reports: int = 0
    #: motion reports dropped because a RobotState after the capture showed the robot moving
    motion_ego: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    seconds: dict[str, float] = field(default_factory=dict)
    cpu_seconds: float = 0.0


@dataclass(frozen=True)
class _Plan:
    """What the worker does with one frame (decided on the loop, where the schedule lives)."""

    robot_time_ms: int
    state: RobotStateSample | None
    search: bool
    track: tuple[Box, ...]
    motion: bool
    reset_motion: bool
    #: search this frame after all if the motion detector reports something in it
    search_on_motion: bool = False


@dataclass
class FrameResult:
    """What the worker made of one frame."""

    frame: CompletedFrame
    sample: ImageSample | None = None
    #: None when no face pass ran on this frame
    faces: list[Box] | None = None
    motion: MotionReport | None = None
    #: the motion detector held the robot still after this frame
    settled: bool = False
    corrupt: str | None = None
    errors: list[tuple[str, BaseException]] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    cpu_seconds: float = 0.0


class Vision:
    """One camera's vision: reassembly, decoding, face detection and tracking, motion detection.

    ``emit`` receives the :class:`~driver.events.FaceSeen`, :class:`~driver.events.FaceMoved`,
    :class:`~driver.events.FaceLost`, :class:`~driver.events.FaceGlimpsed` and
    :class:`~driver.events.MotionSeen` events, on the event loop. Feed it with :meth:`on_chunk`
    and :meth:`on_state` from the loop; :meth:`close` stops the worker. ``face_detector`` replaces
    the one ``config`` names (tests, other detectors).
    """

    def __init__(self, config: VisionConfig | None = None, *, emit: EventSink, name: str = "robot",
                 face_detector: FaceDetector | None | str = "config") -> None:
        self.config = config or VisionConfig()
        self.name = name
        self._emit = emit
        self.reassembler = ChunkReassembler()
        self.history = StateHistory()
        self.tracker = FaceTracker(lost_after_s=self.config.face_lost_after_s,
                                   confirm_hits=self.config.face_confirm_hits,
                                   shift=functools.partial(view_shift, self.config.camera))
        self.face_detector: FaceDetector | None = (
            load_face_detector(self.config.face_detector) if isinstance(face_detector, str) else face_detector)
        self.motion_detector: MotionDetector | None = (
            MotionDetector(self.config.motion_config) if self.config.motion else None)
        self.stats = VisionStats()
        if self.config.opencv_threads is not None:
            import cv2  # loaded already by the detectors

            cv2.setNumThreads(self.config.opencv_threads)
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"{name}-vision")
        self._frame_listeners: list[FrameListener] = []
        self._busy = False
        self._pending: CompletedFrame | None = None
        self._closed = False
        self._last_search: float | None = None
        #: the motion detector's word, after the last frame it saw, that the robot holds still
        self._settled = False
        self._last_track: float | None = None
        self._last_motion: float | None = None
        self._reset_motion = False
        self._expiry: asyncio.TimerHandle | None = None
        self._idle: asyncio.Event | None = None
        self._reported: set[str] = set()
        self._face_reports: dict[int, ev.FaceInView] = {}
        #: motion found in frames whose next RobotState has not come yet (see _judge_motion)
        self._motion_waiting: list[tuple[ImageSample, MotionReport]] = []

    # ------------------------------------------------------------------ input (event loop)

    def on_state(self, state: RobotStateSample) -> None:
        """Remember a RobotState (where the head and body were when)."""
        self.history.add(state)
        if self._motion_waiting:
            self._judge_motion()

    def on_chunk(self, msg: Any, received_at: float) -> None:
        """Take one ImageChunk message; a frame it completes goes to the worker (or waits, or is skipped)."""
        if self._closed:
            return
        try:
            frame = self.reassembler.add_message(msg, received_at)
        except Exception:  # malformed fields: count, never let it out of the receive path
            self.reassembler.dropped[DropReason.MALFORMED] += 1
            self._report_once("reassembly", "could not take an image chunk", exc_info=True)
            return
        if frame is None:
            return
        self.stats.frames += 1
        if self._busy:
            if self._pending is not None:
                self.stats.skipped += 1
            self._pending = frame
        else:
            self._start(frame)

    def on_sight(self, sample: ImageSample, faces: list[Box] | None, motion: MotionReport | None) -> None:
        """Detections made without a picture (the simulator's sight, :mod:`driver.sim.sight`) for one look.

        ``faces`` (None: no face pass this time) go through the tracker and ``motion`` becomes an
        event, exactly as a decoded frame's detections do.
        """
        if self._closed:
            return
        self.stats.frames += 1
        if faces is not None:
            self.stats.face_searches += 1
            view = _view(sample.head_angle_rad, sample.pose.angle_rad if sample.pose else None)
            self._publish_faces(self.tracker.update(faces, sample.captured_at, context=sample, view=view))
        if motion is not None:
            self.stats.motion_reports += 1
            self._emit_safely(_motion_event(motion, sample, self._now()))

    def reset(self) -> None:
        """Start afresh after the robot was lost: no half frame, no old states, no previous frame,
        and no face in view (the faces followed come back as lost: nothing looks for them now)."""
        self._publish_faces(self.tracker.reset())
        self.reassembler.reset()
        self.history.clear()
        self._pending = None
        self._motion_waiting.clear()
        self._reset_motion = True
        self._settled = False

    def add_frame_listener(self, listener: FrameListener) -> Callable[[], None]:
        """Call ``listener`` (on the loop) with every decoded :class:`ImageSample`; returns its remover."""
        self._frame_listeners.append(listener)

        def remove() -> None:
            with contextlib.suppress(ValueError):
                self._frame_listeners.remove(listener)

        return remove

    @property
    def faces(self) -> list[FaceTrack]:
        """The faces in view now (confirmed, not yet lost)."""
        return self.tracker.confirmed

    async def idle(self) -> None:
        """Wait until the worker has nothing in hand (for tests and tools)."""
        while self._busy or self._pending is not None:
            self._idle = self._idle or asyncio.Event()
            await self._idle.wait()
            self._idle = None

    async def close(self) -> None:
        """Stop taking frames, let the worker finish its frame, and stop the worker."""
        if self._closed:
            return
        self._closed = True
        self._pending = None
        if self._expiry is not None:
            self._expiry.cancel()
        await self.idle()
        self._executor.shutdown(wait=False)
        s, r = self.stats, self.reassembler
        log.info("%s: vision: %d frames, %d dropped %s, %d skipped, %d corrupt; %d face searches, "
                 "%d face looks, %d motion comparisons, %d motion reports (%d dropped: the robot had begun to move)",
                 self.name, s.frames, r.dropped_total, dict(r.dropped), s.skipped, s.corrupt, s.face_searches,
                 s.face_tracks, s.motion_runs, s.motion_reports, s.motion_ego)

    # ------------------------------------------------------------------ scheduling (event loop)

    def _due(self, last: float | None, interval: float, t: float) -> bool:
        return last is None or t - last >= interval - 1e-3 or t < last

    def _search_interval(self) -> float:
        """The full search's interval now: longer while motion detection watches a still robot."""
        c = self.config
        still = c.face_search_still_interval_s
        if still is None or not c.face_search_on_motion or not self._settled:
            return c.face_search_interval_s
        return max(c.face_search_interval_s, still)

    def _start(self, frame: CompletedFrame) -> None:
        robot_time, state = locate(frame, self.history)
        c = self.config
        t = frame.received_at
        search = self.face_detector is not None and self._due(self._last_search, self._search_interval(), t)
        track: tuple[Box, ...] = ()
        # a face seen once is looked for again on the very next frame: confirming it is what
        # stands between a person stepping into view and the brain hearing of her
        tentative = any(not tr.confirmed for tr in self.tracker.tracks.values())
        if self.face_detector is not None and not search and self.tracker.tracks and (
                tentative or self._due(self._last_track, c.face_track_interval_s, t)):
            view = _view(state.proprioception.head_angle_rad, state.proprioception.pose.angle_rad) if state else None
            track = tuple(self.tracker.expected(tr, view) for tr in self.tracker.tracks.values())
        motion = self.motion_detector is not None and self._due(self._last_motion, c.motion_interval_s, t)
        if search:
            self._last_search = t
        if track:
            self._last_track = t
        if motion:
            self._last_motion = t
        on_motion = motion and not search and self.face_detector is not None and c.face_search_on_motion
        plan = _Plan(robot_time, state, search, track, motion, reset_motion=motion and self._reset_motion,
                     search_on_motion=on_motion)
        if motion:
            self._reset_motion = False
        if c.inline:
            self._deliver(self._work(frame, plan))
            return
        try:
            future = asyncio.get_running_loop().run_in_executor(self._executor, self._work, frame, plan)
        except RuntimeError:  # the worker is shut down (closing): the frame goes nowhere
            return
        self._busy = True
        future.add_done_callback(self._done)

    def _done(self, future: asyncio.Future[FrameResult]) -> None:
        self._busy = False
        if not future.cancelled():
            exc = future.exception()
            if exc is not None:
                self._report_once("worker", "the vision worker failed", exc_info=exc)
            else:
                self._deliver(future.result())
        if self._pending is not None and not self._closed:
            frame, self._pending = self._pending, None
            self._start(frame)
        elif self._idle is not None:
            self._idle.set()

    # ------------------------------------------------------------------ the worker thread

    def _work(self, frame: CompletedFrame, plan: _Plan) -> FrameResult:
        """Decode and detect; runs in the worker thread and touches only the detectors' own state."""
        result = FrameResult(frame)
        cpu = time.thread_time()
        try:
            return self._analyse(frame, plan, result)
        finally:
            result.cpu_seconds = time.thread_time() - cpu

    def _analyse(self, frame: CompletedFrame, plan: _Plan, result: FrameResult) -> FrameResult:
        clock = time.perf_counter
        t0 = clock()
        try:
            decoded = decode_frame(frame)
        except CorruptFrame as exc:
            result.corrupt = str(exc)
            return result
        sample = make_sample(frame, decoded, plan.robot_time_ms, plan.state, self.config.camera)
        result.sample = sample
        t1 = clock()
        result.seconds["decode"] = t1 - t0
        if self.motion_detector is not None and plan.motion:
            if plan.reset_motion:
                self.motion_detector.reset()
            try:
                result.motion = self.motion_detector.update(sample)
                result.settled = self.motion_detector.settled
            except Exception as exc:
                result.errors.append(("motion", exc))
            t2 = clock()
            result.seconds["motion"] = t2 - t1
            t1 = t2
        detector = self.face_detector
        search = plan.search or (plan.search_on_motion and result.motion is not None)
        if detector is not None and (search or plan.track):
            try:
                if search:
                    result.faces = detector.detect(sample.gray, self.config.face_search_scale,
                                                   min_score=self.config.face_search_weak_score)
                else:
                    result.faces = _unique([b for near in plan.track
                                            for b in detect_in_region(detector, sample.gray, near)])
            except Exception as exc:
                result.errors.append((detector.name, exc))
            result.seconds["face_search" if search else "face_track"] = clock() - t1
        return result

    # ------------------------------------------------------------------ results (event loop)

    def _deliver(self, result: FrameResult) -> None:
        s = self.stats
        for stage, seconds in result.seconds.items():
            s.seconds[stage] = s.seconds.get(stage, 0.0) + seconds
        s.cpu_seconds += result.cpu_seconds
        if result.corrupt is not None:
            s.corrupt += 1
            self.reassembler.dropped[DropReason.CORRUPT] += 1
            log.debug("%s: corrupt camera frame skipped: %s", self.name, result.corrupt)
            return
        for name, exc in result.errors:
            s.errors[name] += 1
            self._report_once(name, f"detector {name} failed on image {result.frame.image_id}", exc_info=exc)
        sample = result.sample
        assert sample is not None
        s.decoded += 1
        for listener in list(self._frame_listeners):
            try:
                listener(sample)
            except Exception:
                log.exception("%s: frame listener failed", self.name)
        if "face_search" in result.seconds:
            s.face_searches += 1
            self._last_search = max(self._last_search or 0.0, result.frame.received_at)
        if "face_track" in result.seconds:
            s.face_tracks += 1
        if "motion" in result.seconds:
            s.motion_runs += 1
            self._settled = result.settled
        if result.faces is not None:
            view = _view(sample.head_angle_rad, sample.pose.angle_rad if sample.pose else None)
            self._publish_faces(self.tracker.update(result.faces, sample.captured_at, context=sample, view=view))
        if result.motion is not None:
            self._motion_waiting.append((sample, result.motion))
            del self._motion_waiting[:-MOTION_WAITING_MAX]
            self._judge_motion()

    def _judge_motion(self) -> None:
        """Report the motion found in frames once a RobotState at or after their capture has
        come and says the robot held still; drop it when the robot had begun to move."""
        detector, latest = self.motion_detector, self.history.latest()
        if detector is None or latest is None:
            return
        newest = latest.proprioception.robot_time_ms
        waiting: list[tuple[ImageSample, MotionReport]] = []
        for sample, motion in self._motion_waiting:
            if newest < sample.robot_time_ms:
                waiting.append((sample, motion))  # its state after the capture is still on the way
            elif not detector.held_still(sample, self.history.since(sample.state_robot_time_ms or 0)):
                self.stats.motion_ego += 1
                log.debug("%s: motion in image %d dropped: the robot had begun to move", self.name, sample.image_id)
            else:
                self.stats.motion_reports += 1
                self._emit_safely(_motion_event(motion, sample, self._now()))
        self._motion_waiting = waiting

    def _publish_faces(self, changes: TrackerChanges) -> None:
        now = self._now()
        w = self.config.face_width_mm
        for track in changes.lost:
            self._face_reports.pop(track.face_id, None)
            self._emit_safely(_face_event(ev.FaceLost, track, now, w,
                                          seen_for_s=track.last_seen_at - track.first_seen_at))
        for track in changes.glimpsed:
            self._emit_safely(_face_event(ev.FaceGlimpsed, track, now, w))
        for track in changes.seen:
            seen = _face_event(ev.FaceSeen, track, now, w)
            self._face_reports[track.face_id] = seen
            self._emit_safely(seen)
        for track in changes.updated:
            moved = _face_event(ev.FaceMoved, track, now, w)
            last = self._face_reports.get(track.face_id)
            if last is None or self._moved(last, moved):
                self._face_reports[track.face_id] = moved
                self._emit_safely(moved)
        self._arm_expiry()

    def _moved(self, before: ev.FaceInView, now: ev.FaceInView) -> bool:
        """A move worth telling: another direction in the world, or another distance (not the robot's own turn)."""
        limit = math.radians(self.config.face_move_deg)
        d = now.heading_rad - before.heading_rad
        turn = math.atan2(math.sin(d), math.cos(d))
        return (abs(turn) > limit or abs(now.tilt_rad - before.tilt_rad) > limit
                or abs(now.distance_mm - before.distance_mm) > self.config.face_move_distance * before.distance_mm)

    def _arm_expiry(self) -> None:
        if self._expiry is not None or not self.tracker.tracks or self._closed:
            return
        delay = max(0.05, self.config.face_lost_after_s / 4)
        self._expiry = asyncio.get_running_loop().call_later(delay, self._expire)

    def _expire(self) -> None:
        """Faces must be lost even when no frame comes (the camera stopped, the robot went away)."""
        self._expiry = None
        self._publish_faces(self.tracker.expire(self._now()))

    def _emit_safely(self, event: ev.RobotEvent) -> None:
        try:
            self._emit(event)
        except Exception:
            log.exception("%s: vision event listener failed on %s", self.name, event.kind)

    def _report_once(self, key: str, what: str, *, exc_info: Any) -> None:
        if key in self._reported:
            log.debug("%s: %s (again)", self.name, what)
            return
        self._reported.add(key)
        log.error("%s: %s (reported once; vision goes on)", self.name, what, exc_info=exc_info)

    @staticmethod
    def _now() -> float:
        return asyncio.get_running_loop().time()


def _view(head_angle_rad: float | None, heading_rad: float | None) -> tuple[float, float] | None:
    """A frame's viewpoint for the tracker: (head angle, body heading); None when unknown."""
    return None if head_angle_rad is None or heading_rad is None else (head_angle_rad, heading_rad)


def _unique(boxes: list[Box], overlap: float = 0.5) -> list[Box]:
    """Boxes without the duplicates that overlapping crops find twice (the higher score stays)."""
    kept: list[Box] = []
    for box in sorted(boxes, key=lambda b: -b.score):
        if all(box.iou(k) < overlap for k in kept):
            kept.append(box)
    return kept


_FaceEvent = TypeVar("_FaceEvent", ev.FaceSeen, ev.FaceMoved, ev.FaceLost, ev.FaceGlimpsed)


def _face_event(cls: type[_FaceEvent], track: FaceTrack, at: float, face_width_mm: float,
                **extra: float) -> _FaceEvent:
    """A face event for a track, placed with the head angle and pose of its latest frame."""
    sample: ImageSample = track.context
    box = track.seen_box or track.box  # where it was found, in that frame's picture
    head = sample.head_angle_rad or 0.0
    cx, cy = box.center
    ray = pixel_ray(cx, cy, head, sample.camera)
    distance = face_distance_mm(box.w, sample.camera, face_width_mm)
    point = ray.point(distance)
    heading = ray.pan_rad
    if sample.pose is not None:
        p = sample.pose
        point = to_world(point, p.x_mm, p.y_mm, p.z_mm, p.angle_rad)
        heading += p.angle_rad
    return cls(at, face_id=track.face_id, box=box.as_ints(), pan_rad=ray.pan_rad, tilt_rad=ray.tilt_rad,
               heading_rad=heading, distance_mm=distance, x_mm=point[0], y_mm=point[1], z_mm=point[2],
               captured_at=track.last_seen_at, image_id=sample.image_id, **extra)


def _motion_event(report: MotionReport, sample: ImageSample, at: float) -> ev.MotionSeen:
    area = report.primary
    heading = area.pan_rad + (sample.pose.angle_rad if sample.pose is not None else 0.0)
    ground = next((a.ground_mm for a in report.areas if a.ground_mm is not None), None)
    return ev.MotionSeen(
        at, where=area.where, regions=tuple(a.where for a in report.areas), img_x=area.x, img_y=area.y,
        amount=area.amount, pan_rad=area.pan_rad, tilt_rad=area.tilt_rad, heading_rad=heading,
        ground_x_mm=ground[0] if ground else None, ground_y_mm=ground[1] if ground else None,
        captured_at=report.captured_at, image_id=sample.image_id,
    )
