"""Motion detection the way Cozmo's engine did it: frame differencing while the robot holds still.

Anki's engine (``motionDetector.cpp``, 2017) compared each frame with the previous one, pixel by
pixel, but only while the head and body had not moved since (less than 0.1° of head or body
turn and 0.5 mm of travel), and at most once per 500 ms of reported motion. Here "still" needs
evidence: both frames must have a RobotState within 100 ms of their capture that says so (a
frame before the first state, or paired with a stale one, is not compared), and the frame
before them must have been still too. A frame carries the state closest to its capture, which
may come after it: the last frame of a turn, taken while the body still moved, can carry the
state that shows it stopped; requiring two still pairs in a row keeps that frame out. A pixel changed when
it was brighter than 10 in both frames and one was more than 1.25 times the other. From the
change mask it reported:

* **image**: more than 1/225 of the image changed; the centroid is the median x and y of the
  changed pixels, the area the changed fraction;
* **ground**: changed pixels that see the floor in front of the robot; the point is the changed
  pixels' 5 % nearest row and median column, mapped onto the floor (mm, robot frame);
* **top / left / right** (peripheral): the mask is closed (small gaps filled), connected parts
  of at least 500 px (full size) feed a value per border region (30 % of the height or width):
  ``value ← clamp(value + 500·x − 0.1, 0, 3)``, with ``x`` the part's share of the region; a
  region fires when its value reaches 3, its centroid smoothed over time (weight 0.6 on the old).

This implementation works on a half-size copy (as the first 2017 version did) blurred first (as
the later ones did), so it costs well under a millisecond per frame. It keeps the previous frame
and the region values, so one detector follows one camera; it is not thread-safe and is meant
to be called from one worker at a time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from ..samples import RobotStateSample
from .geometry import ground_region, pixel_ray
from .sample import ImageSample

__all__ = ["MotionArea", "MotionConfig", "MotionDetector", "MotionReport", "REGIONS"]

#: Where motion can be reported, most specific first (the first present is a report's ``where``).
REGIONS: tuple[str, ...] = ("ground", "left", "right", "top", "image")


@dataclass(frozen=True, slots=True)
class MotionConfig:
    """The detector's settings; the defaults are Anki's Cozmo values (scaled where noted)."""

    #: work on a copy this much smaller (0.5: half size)
    scale: float = 0.5
    #: Gaussian blur kernel (px, odd) on that copy; Anki's later versions blurred with 21 at full size
    blur_px: int = 11
    min_brightness: int = 10
    ratio_threshold: float = 1.25
    min_area_fraction: float = 1.0 / 225.0
    still_head_rad: float = math.radians(0.1)
    still_body_rad: float = math.radians(0.1)
    still_body_mm: float = 0.5
    #: quiet time after a report (s)
    min_interval_s: float = 0.5
    #: frames further apart than this are not compared (s)
    max_gap_s: float = 1.0
    #: a frame whose closest RobotState is further than this from its capture (ms, robot clock) says
    #: nothing reliable about whether the robot held still, so it is not compared
    max_state_lag_ms: int = 100
    region_fraction: float = 0.3
    #: closing kernel (px at full size) and smallest connected part (px at full size)
    close_px: int = 20
    min_component_px: int = 500
    increase: float = 500.0
    decrease: float = 0.1
    max_value: float = 3.0
    centroid_stability: float = 0.6
    #: the floor patch watched for ground motion (mm ahead of the robot's origin, and to each side)
    ground_far_mm: float = 300.0
    ground_half_width_mm: float = 150.0


@dataclass(frozen=True, slots=True)
class MotionArea:
    """Motion in one place: centroid (full-size image pixels) and how much.

    ``amount`` is the changed fraction of the image (``image``) or of the floor patch
    (``ground``), or the region's value (peripheral regions). ``ground_mm`` is the floor point
    (x ahead, y left, mm, robot frame) for ``ground``. ``pan_rad``/``tilt_rad`` give the
    direction of the centroid (robot frame, see :class:`driver.vision.geometry.Ray`).
    """

    where: str
    x: float
    y: float
    amount: float
    pan_rad: float
    tilt_rad: float
    ground_mm: tuple[float, float] | None = None


@dataclass(frozen=True, slots=True)
class MotionReport:
    """Everything one frame showed moving, most specific area first."""

    areas: tuple[MotionArea, ...]
    captured_at: float
    robot_time_ms: int

    @property
    def primary(self) -> MotionArea:
        """The most specific area (ground, then the sides, then top, then the whole image)."""
        return self.areas[0]


class MotionDetector:
    """Compares each frame with the previous one while the robot is still (see the module docstring).

    :meth:`update` returns a :class:`MotionReport` or None; ``skipped_moving`` counts frames not
    compared because the robot moved, ``runs`` the frames compared.
    """

    def __init__(self, config: MotionConfig | None = None) -> None:
        self.config = config or MotionConfig()
        self.runs = 0
        self.skipped_moving = 0
        self._prev: np.ndarray | None = None
        self._prev_sample: ImageSample | None = None
        self._prev_still = False
        #: the last frame was compared (still over two pairs, not within a report's quiet time)
        self._compared = False
        self._last_report_at: float | None = None
        self._values: dict[str, float] = {"top": 0.0, "left": 0.0, "right": 0.0}
        self._centroids: dict[str, tuple[float, float] | None] = {"top": None, "left": None, "right": None}
        c = self.config
        k = max(1, round(c.close_px * c.scale)) | 1
        self._close_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))

    @property
    def settled(self) -> bool:
        """Whether the last frame was compared: the robot held still over the last two frame
        pairs and no report was made within ``min_interval_s``.

        While it is, anything new in the picture (a person stepping into view) shows as motion.
        """
        return self._compared

    def reset(self) -> None:
        """Forget the previous frame and the region values."""
        self._prev = self._prev_sample = self._last_report_at = None
        self._prev_still = self._compared = False
        for region in self._values:
            self._values[region] = 0.0
            self._centroids[region] = None

    def _still(self, a: ImageSample, b: ImageSample) -> bool:
        c = self.config
        if b.captured_at - a.captured_at > c.max_gap_s or b.captured_at <= a.captured_at:
            return False
        if not (self._placed(a) and self._placed(b)):
            return False  # no RobotState near the capture: the head may have been moving
        assert a.head_angle_rad is not None and b.head_angle_rad is not None and a.pose and b.pose  # _placed
        if abs(b.head_angle_rad - a.head_angle_rad) >= c.still_head_rad:
            return False
        pa, pb = a.pose, b.pose
        turn = math.atan2(math.sin(pb.angle_rad - pa.angle_rad), math.cos(pb.angle_rad - pa.angle_rad))
        travel = math.hypot(pb.x_mm - pa.x_mm, pb.y_mm - pa.y_mm)
        return abs(turn) < c.still_body_rad and travel < c.still_body_mm

    def held_still(self, sample: ImageSample, later: Sequence[RobotStateSample]) -> bool:
        """Whether the RobotStates from the frame's own up to the first after its capture agree
        that head and body held still.

        A frame takes the state closest to its capture, which may be from before it: with a state
        or two lost, a turn that began in between is not in it, and the frame, compared with a
        still one, shows the whole room moving. ``later`` are the states since the frame's own.
        """
        if sample.head_angle_rad is None or sample.pose is None or sample.state_robot_time_ms is None:
            return False
        c = self.config
        for state in later:
            p = state.proprioception
            if p.robot_time_ms < sample.state_robot_time_ms:
                continue
            turn = math.atan2(math.sin(p.pose.angle_rad - sample.pose.angle_rad),
                              math.cos(p.pose.angle_rad - sample.pose.angle_rad))
            travel = math.hypot(p.pose.x_mm - sample.pose.x_mm, p.pose.y_mm - sample.pose.y_mm)
            if (abs(p.head_angle_rad - sample.head_angle_rad) >= c.still_head_rad
                    or abs(turn) >= c.still_body_rad or travel >= c.still_body_mm):
                return False
            if p.robot_time_ms >= sample.robot_time_ms:
                break
        return True

    def _placed(self, sample: ImageSample) -> bool:
        """Whether the frame has a head angle and pose from a RobotState taken close to its capture.

        Before the first RobotState, or when states lag (a loaded link, a paused host), a frame
        would be paired with where the robot was rather than where it is; comparing such frames
        shows the head's own motion as motion in the room.
        """
        if sample.head_angle_rad is None or sample.pose is None or sample.state_robot_time_ms is None:
            return False
        return abs(sample.robot_time_ms - sample.state_robot_time_ms) <= self.config.max_state_lag_ms

    def _prepare(self, gray: np.ndarray) -> np.ndarray:
        c = self.config
        small = cv2.resize(gray, None, fx=c.scale, fy=c.scale, interpolation=cv2.INTER_AREA)
        k = c.blur_px | 1
        return cv2.GaussianBlur(small, (k, k), 0) if k > 1 else small

    def update(self, sample: ImageSample) -> MotionReport | None:
        """Take the next frame; returns what moved since the previous one, if anything."""
        c = self.config
        current = self._prepare(sample.gray)
        prev, prev_sample = self._prev, self._prev_sample
        self._prev, self._prev_sample = current, sample
        if prev is None or prev_sample is None or prev.shape != current.shape:
            self._prev_still = self._compared = False
            return None
        still, settled = self._still(prev_sample, sample), self._prev_still
        self._prev_still, self._compared = still, False
        if not (still and settled):
            self.skipped_moving += 1
            return None
        if self._last_report_at is not None and sample.captured_at - self._last_report_at < c.min_interval_s:
            return None
        self._compared = True
        self.runs += 1
        low = cv2.min(prev, current).astype(np.float32)
        high = cv2.max(prev, current).astype(np.float32)
        changed = (low > c.min_brightness) & (high > c.ratio_threshold * low)
        areas = [a for a in (self._ground(changed, sample), *self._peripheral(changed, sample),
                             self._whole(changed, sample)) if a is not None]
        if not areas:
            return None
        areas.sort(key=lambda a: REGIONS.index(a.where))
        self._last_report_at = sample.captured_at
        return MotionReport(tuple(areas), sample.captured_at, sample.robot_time_ms)

    def _area(self, where: str, u: float, v: float, amount: float, sample: ImageSample,
              ground: tuple[float, float] | None = None) -> MotionArea:
        """An area at working-scale pixel (u, v), converted to full-size pixels and a direction."""
        s = self.config.scale
        x, y = (u + 0.5) / s, (v + 0.5) / s
        ray = pixel_ray(x, y, sample.head_angle_rad or 0.0, sample.camera)
        return MotionArea(where, x, y, amount, ray.pan_rad, ray.tilt_rad, ground)

    def _whole(self, changed: np.ndarray, sample: ImageSample) -> MotionArea | None:
        count = int(np.count_nonzero(changed))
        if count <= changed.size * self.config.min_area_fraction:
            return None
        ys, xs = np.nonzero(changed)
        return self._area("image", float(np.median(xs)), float(np.median(ys)), count / changed.size, sample)

    def _ground(self, changed: np.ndarray, sample: ImageSample) -> MotionArea | None:
        c = self.config
        h, w = changed.shape
        head_deg = round(math.degrees(sample.head_angle_rad or 0.0))
        floor = ground_region(head_deg, sample.camera, w, h, 0.0, c.ground_far_mm, c.ground_half_width_mm)
        floor_px = int(np.count_nonzero(floor))
        if floor_px == 0:
            return None
        moving = changed & floor
        count = int(np.count_nonzero(moving))
        if count <= floor_px * c.min_area_fraction:
            return None
        ys, xs = np.nonzero(moving)
        u, v = float(np.median(xs)), float(np.percentile(ys, 95))  # the 5 % nearest row
        area = self._area("ground", u, v, count / floor_px, sample)
        point = pixel_ray(area.x, area.y, sample.head_angle_rad or 0.0, sample.camera).ground_point()
        return MotionArea(area.where, area.x, area.y, area.amount, area.pan_rad, area.tilt_rad, point)

    def _peripheral(self, changed: np.ndarray, sample: ImageSample) -> list[MotionArea]:
        c = self.config
        h, w = changed.shape
        closed = cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_CLOSE, self._close_kernel)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(closed, connectivity=8)
        min_px = c.min_component_px * c.scale * c.scale
        big = [i for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] >= min_px]
        mask = np.isin(labels, big) if big else None
        rh, rw = max(1, round(h * c.region_fraction)), max(1, round(w * c.region_fraction))
        regions = {"top": (slice(0, rh), slice(0, w)), "left": (slice(0, h), slice(0, rw)),
                   "right": (slice(0, h), slice(w - rw, w))}
        fired: list[MotionArea] = []
        for name, (rows, cols) in regions.items():
            value = self._values[name]
            if mask is not None:
                part = mask[rows, cols]
                n = int(np.count_nonzero(part))
                if n:
                    value += c.increase * n / part.size
                    ys, xs = np.nonzero(part)
                    centroid = (float(xs.mean()) + cols.start, float(ys.mean()) + rows.start)
                    old = self._centroids[name]
                    k = c.centroid_stability
                    self._centroids[name] = centroid if old is None else (
                        k * old[0] + (1 - k) * centroid[0], k * old[1] + (1 - k) * centroid[1])
            value = min(c.max_value, max(0.0, value - c.decrease))
            point = self._centroids[name]
            if value >= c.max_value and point is not None:
                fired.append(self._area(name, point[0], point[1], value, sample))
                value = 0.0
                self._centroids[name] = None
            self._values[name] = value
        return fired
