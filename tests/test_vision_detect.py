"""Detectors on pictures and synthetic sequences: faces, face tracking, motion, and the geometry behind them."""

from __future__ import annotations

import logging
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from driver.samples import PoseSample
from driver.vision.faces import Box, DlibHogDetector, OpenCvHaarDetector, detect_in_region, load_face_detector
from driver.vision.geometry import CameraIntrinsics, camera_position, face_distance_mm, ground_region, pixel_ray
from driver.vision.motion import MotionConfig, MotionDetector
from driver.vision.sample import ImageSample
from driver.vision.tracking import FaceTracker

from .vision_support import astronaut_face, scene

CAM = CameraIntrinsics()


@pytest.fixture(scope="module")
def dlib_hog() -> DlibHogDetector:
    pytest.importorskip("dlib", reason="dlib-bin is a dependency; this environment lacks it")
    return DlibHogDetector()


# ---------------------------------------------------------------------------------- faces


def test_the_astronaut_is_found_where_she_is_at_the_robots_resolution(dlib_hog: DlibHogDetector) -> None:
    face = astronaut_face()
    full = dlib_hog.detect(face, 1.0)  # the 256 px crop itself: the face is about 90 px wide
    assert len(full) == 1
    x, y, size = 100, 20, 200
    frame = scene(faces=((face, x, y, size),))
    found = dlib_hog.detect(frame, 1.5)
    assert len(found) == 1
    k = size / face.shape[0]
    expected = Box(x + full[0].x * k, y + full[0].y * k, full[0].w * k, full[0].h * k)
    assert found[0].iou(expected) > 0.6


def test_a_search_scaled_up_finds_the_smaller_faces_a_plain_one_misses(dlib_hog: DlibHogDetector) -> None:
    frame = scene(faces=((astronaut_face(), 100, 40, 140),))  # a face about 50 px wide
    assert dlib_hog.detect(frame, 1.0) == []
    (box,) = dlib_hog.detect(frame, 1.5)
    assert 40 <= box.w <= 60


@pytest.mark.parametrize("name", ["camera", "coffee", "chelsea", "rocket", "brick", "grass", "text", "coins"])
def test_no_faces_in_pictures_without_one(dlib_hog: DlibHogDetector, name: str) -> None:
    skdata = pytest.importorskip("skimage.data")
    picture = getattr(skdata, name)()
    gray = picture if picture.ndim == 2 else cv2.cvtColor(picture[..., :3], cv2.COLOR_RGB2GRAY)
    assert dlib_hog.detect(cv2.resize(gray.astype(np.uint8), (320, 240)), 1.5) == []


def test_a_known_face_is_found_again_in_a_crop_after_it_moved(dlib_hog: DlibHogDetector) -> None:
    frame = scene(faces=((astronaut_face(), 120, 30, 160),))
    (box,) = dlib_hog.detect(frame, 1.5)
    before = Box(box.x - 0.4 * box.w, box.y + 0.2 * box.h, box.w, box.h)  # where it was a moment ago
    (again,) = detect_in_region(dlib_hog, frame, before)
    assert again.iou(box) > 0.6
    far = Box(5, 150, box.w, box.h)
    assert detect_in_region(dlib_hog, frame, far) == []


def test_the_saved_detector_finds_what_a_built_one_finds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    """Building dlib's detector costs half a second at every start; the first build is saved in
    the cache folder, and later starts read it (in a millisecond), with the same detections."""
    dlib = pytest.importorskip("dlib", reason="dlib-bin is a dependency; this environment lacks it")
    built = DlibHogDetector(cache=tmp_path)
    (saved_file,) = (tmp_path / "models").iterdir()
    assert saved_file.name == f"dlib-{dlib.__version__}-frontal_face_detector.svm"
    builds: list[int] = []
    build = dlib.get_frontal_face_detector

    def counting() -> object:
        builds.append(1)
        return build()

    monkeypatch.setattr(dlib, "get_frontal_face_detector", counting)
    read = DlibHogDetector(cache=tmp_path)
    assert builds == []
    skdata = pytest.importorskip("skimage.data")
    frames = [scene(faces=((astronaut_face(), 100, 20, 200),)), scene(faces=((astronaut_face(), 100, 40, 140),)),
              cv2.resize(skdata.camera(), (320, 240)), astronaut_face()]
    for frame in frames:
        for scale in (1.0, 1.5):
            assert read.detect(frame, scale) == built.detect(frame, scale)
    assert any(built.detect(frame, 1.5) for frame in frames)
    # a damaged file is built again (and said so); a folder that cannot be written only costs the time
    saved_file.write_bytes(saved_file.read_bytes()[:1000])
    with caplog.at_level(logging.INFO, logger="driver.vision.faces"):
        again = DlibHogDetector(cache=tmp_path)
    assert builds == [1] and "is damaged" in caplog.text
    assert again.detect(frames[0], 1.5) == built.detect(frames[0], 1.5)
    assert DlibHogDetector(cache=tmp_path).detect(frames[0], 1.5) == built.detect(frames[0], 1.5) and builds == [1]
    blocked = tmp_path / "a file"
    blocked.write_text("not a folder")
    assert DlibHogDetector(cache=blocked).detect(frames[0], 1.5) == built.detect(frames[0], 1.5)
    assert builds == [1, 1]


def test_a_detector_that_cannot_load_is_reported_once_by_name(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="driver.vision.faces")
    if hasattr(cv2, "CascadeClassifier") and getattr(getattr(cv2, "data", None), "haarcascades", None):
        assert isinstance(load_face_detector("opencv_haar"), OpenCvHaarDetector)  # OpenCV 4.x installed
    else:
        assert load_face_detector("opencv_haar") is None
        assert [r.getMessage() for r in caplog.records if "opencv_haar" in r.getMessage()] != []
    caplog.clear()
    assert load_face_detector("retina") is None
    (record,) = caplog.records
    assert "'retina'" in record.getMessage() and "dlib_hog" in record.getMessage()
    caplog.clear()
    assert load_face_detector(None) is None and load_face_detector("none") is None
    assert caplog.records == []


# ---------------------------------------------------------------------------------- geometry


def test_pixels_become_directions_with_the_head_angle_at_capture() -> None:
    centre = pixel_ray(CAM.cx, CAM.cy, 0.0, CAM)
    assert centre.pan_rad == pytest.approx(0.0) and centre.tilt_rad == pytest.approx(0.0)
    left = pixel_ray(CAM.cx - CAM.fx * math.tan(math.radians(20)), CAM.cy, 0.0, CAM)
    assert math.degrees(left.pan_rad) == pytest.approx(20.0)
    up = pixel_ray(CAM.cx, CAM.cy, math.radians(30), CAM)
    assert math.degrees(up.tilt_rad) == pytest.approx(30.0)
    low = pixel_ray(CAM.cx, CAM.cy - CAM.fy * math.tan(math.radians(10)), math.radians(-25), CAM)
    assert math.degrees(low.tilt_rad) == pytest.approx(-15.0)
    assert camera_position(0.0) == pytest.approx((4.52, 0.0, 41.0))
    assert CAM.hfov_deg == pytest.approx(58.0, abs=0.1) and CAM.vfov_deg == pytest.approx(45.2, abs=0.1)
    half = CAM.scaled(160, 120)
    assert (half.fx, half.cx, half.fy, half.cy) == pytest.approx((CAM.fx / 2, CAM.cx / 2, CAM.fy / 2, CAM.cy / 2))


def test_face_distance_follows_the_engines_rule_and_the_floor_is_where_rays_land() -> None:
    assert face_distance_mm(58, CameraIntrinsics(fx=289.0)) == pytest.approx(617.9, abs=0.5)
    down = pixel_ray(CAM.cx, CAM.cy, math.radians(-20), CAM)
    x, y = down.ground_point() or (0.0, 0.0)
    cam = camera_position(math.radians(-20))
    assert x == pytest.approx(cam[0] + cam[2] / math.tan(math.radians(20))) and y == pytest.approx(0.0, abs=1e-6)
    assert pixel_ray(CAM.cx, CAM.cy, 0.2, CAM).ground_point() is None
    floor = ground_region(-20, CAM, 160, 120)
    assert floor[-1].any() and not floor[0].any()  # bottom rows see the floor, top rows do not
    assert not ground_region(40, CAM, 160, 120).any()  # looking up: no floor in view


# ---------------------------------------------------------------------------------- tracking


def _box(cx: float, cy: float, w: float = 60.0) -> Box:
    return Box(cx - w / 2, cy - w / 2, w, w, 1.0)


def test_a_face_gets_a_stable_id_is_seen_after_two_frames_followed_and_lost_after_the_timeout() -> None:
    tracker = FaceTracker(lost_after_s=1.0)
    assert not tracker.update([_box(100, 100)], 0.0)  # one detection: not yet a face
    changes = tracker.update([_box(104, 101)], 0.1)
    (seen,) = changes.seen
    updated = []
    for i in range(2, 20):
        updated += tracker.update([_box(100 + 6 * i, 100)], 0.1 * i).updated
    assert [t.face_id for t in updated] == [seen.face_id] * 18
    assert seen.box.center[0] == pytest.approx(100 + 6 * 19, abs=8)  # smoothed, a little behind
    tracker.update([], 2.2)
    tracker.update([], 2.5)  # two looks that missed it
    assert tracker.expire(2.5).lost == []  # last seen at 1.9 s
    (lost,) = tracker.expire(3.0).lost
    assert lost.face_id == seen.face_id and tracker.tracks == {}
    tracker.update([_box(200, 100)], 3.1)
    (back,) = tracker.update([_box(200, 100)], 3.2).seen
    assert back.face_id != seen.face_id  # no recognition: a new face


def test_smoothing_steadies_a_jittery_box_and_two_faces_keep_their_ids() -> None:
    rng = np.random.default_rng(0)
    tracker = FaceTracker()
    raw, smooth = [], []
    for i in range(40):
        a = _box(80 + rng.normal(0, 4), 120 + rng.normal(0, 4))
        b = _box(240 - 2 * i, 110)
        tracker.update([b, a] if i % 2 else [a, b], 0.05 * i)
        raw.append(a.center[0])
        left = min(tracker.tracks.values(), key=lambda t: t.first_seen_at + t.face_id * 1e-6)
        smooth.append(left.box.center[0])
    assert sorted(tracker.tracks) == [1, 2]
    assert np.std(smooth[5:]) < 0.75 * np.std(raw[5:])
    assert tracker.tracks[2].box.center[0] == pytest.approx(240 - 2 * 39, abs=3)


def test_a_face_keeps_its_id_while_the_robot_turns_and_the_picture_jumps() -> None:
    def shift(before: tuple[float, float], after: tuple[float, float]) -> tuple[float, float]:
        return (CAM.fx * math.tan(after[1] - before[1]), CAM.fy * math.tan(after[0] - before[0]))

    turning = FaceTracker(shift=shift)
    blind = FaceTracker()
    jump = CAM.fx * math.tan(math.radians(25))
    for i in range(5):  # the body turns left 25° a frame: a still face jumps 135 px right each time
        box = _box(20 + jump * i, 120, 50)
        turning.update([box], 0.1 * i, view=(0.0, math.radians(25) * i))
        blind.update([box], 0.1 * i)
    assert list(turning.tracks) == [1] and turning.tracks[1].hits == 5
    assert turning.tracks[1].box.center[0] == pytest.approx(20 + jump * 4)
    assert len(blind.tracks) == 5  # without knowing the turn, every frame looks like someone new


def test_a_face_is_lost_by_looks_that_miss_it_not_by_a_host_too_busy_to_look() -> None:
    tracker = FaceTracker(lost_after_s=1.0)
    tracker.update([_box(100, 100)], 0.0)
    (seen,) = tracker.update([_box(100, 100)], 0.1).seen
    assert tracker.expire(2.0).lost == []  # no look since (a busy host, frames lost on the link)
    tracker.update([], 2.1)
    assert tracker.expire(2.2).lost == [] and tracker.tracks[seen.face_id].misses == 1
    tracker.update([_box(101, 100)], 2.3)  # found again: the misses start over
    tracker.update([], 2.4)
    assert tracker.expire(3.0).lost == []  # a second look had missed it, but only 0.7 s unseen
    assert tracker.update([], 3.4).lost == [seen]  # the look that missed it after 1.1 s loses it
    idle = FaceTracker(lost_after_s=1.0)
    idle.update([_box(100, 100)], 0.0)
    (seen,) = idle.update([_box(100, 100)], 0.1).seen
    assert idle.expire(3.0).lost == []
    assert idle.expire(3.2).lost == [seen]  # no look at all (the camera stopped): three times the timeout


def test_a_single_detection_is_only_a_glimpse_and_far_jumps_are_new_faces() -> None:
    tracker = FaceTracker(lost_after_s=0.5, lost_misses=0)
    assert not tracker.update([_box(50, 50, 40)], 0.0)
    expired = tracker.expire(0.6)
    assert expired.lost == [] and tracker.tracks == {} and expired.seen == []
    (glimpse,) = expired.glimpsed  # never announced as a face, but worth a look where it was
    assert glimpse.box.center == (50, 50) and not glimpse.confirmed
    assert tracker.expire(0.7).glimpsed == []
    tracker.update([_box(100, 100)], 1.0)
    tracker.update([_box(100, 100)], 1.1)
    changes = tracker.update([_box(280, 100)], 1.2)  # three widths away: someone else
    assert changes.seen == [] and len(tracker.tracks) == 2
    changes = tracker.update([_box(100, 100, 200)], 1.3)  # over three times the size: someone else
    assert len(tracker.tracks) == 3


def test_a_face_found_far_from_where_it_was_after_frames_went_missing_is_the_same_face() -> None:
    tracker = FaceTracker(lost_after_s=1.0)
    tracker.update([_box(100, 100)], 0.0)
    (seen,) = tracker.update([_box(104, 100)], 0.1).seen
    # she steps aside at walking pace (some 280 px a second here); the frames of 0.4 s of her walk
    # are lost: the next look finds her 2.3 widths away, farther than two frames apart allow
    changes = tracker.update([_box(244, 100)], 0.6)
    assert [t.face_id for t in changes.updated] == [seen.face_id] and changes.seen == []
    # but no farther than a walk takes her in the time: 0.1 s later (a reach of 1.5 widths and
    # 30 px), 150 px from where she is followed (smoothed: half-way, at 173) is someone else
    assert tracker.tracks[seen.face_id].box.center[0] == pytest.approx(173, abs=1)
    changes = tracker.update([_box(23, 100)], 0.7)
    assert changes.updated == [] and len(tracker.tracks) == 2


def test_a_weak_detection_counts_only_once_a_sure_one_confirms_it_and_alone_is_never_glimpsed() -> None:
    tracker = FaceTracker(lost_after_s=0.5, lost_misses=0)
    weak = Box(30, 30, 40, 40, -0.2)  # the detector's margin below 0: a candidate it was unsure of
    tracker.update([weak], 0.0)
    assert tracker.update([weak], 0.1).seen == []  # two unsure detections are not a face
    expired = tracker.expire(0.7)
    assert tracker.tracks == {} and expired.glimpsed == [] and expired.lost == []
    tracker.update([weak], 1.0)
    (seen,) = tracker.update([Box(31, 30, 40, 40, 0.6)], 1.1).seen  # a sure look at it confirms it
    assert seen.hits == 2 and seen.sure_hits == 1
    tracker.update([Box(200, 30, 40, 40, 0.4)], 1.2)  # a sure detection alone is still a glimpse
    assert [t.box.center for t in tracker.expire(1.8).glimpsed] == [(220, 50)]


# ---------------------------------------------------------------------------------- motion


def _sample(gray: np.ndarray, t: float, head: float | None = math.radians(-10), x: float = 0.0,
            angle: float = 0.0, state_lag_ms: int = 0) -> ImageSample:
    pose = PoseSample(x, 0.0, 0.0, angle, 0.0, 0, 1) if head is not None else None
    state_time = int(t * 1000) - state_lag_ms if head is not None else None
    return ImageSample("camera", int(t * 15), int(t * 1000), t, t, 320, 240, False, "JPEG_MINIMIZED_GRAY",
                       gray, gray, b"", head, pose, state_time, CAM)


def _floor_pixel(x_mm: float, y_mm: float, head: float) -> tuple[int, int]:
    """The image pixel that sees floor point (x, y) (pinhole projection, for placing test objects)."""
    cx, _, cz = camera_position(head)
    dx, dy, dz = x_mm - cx, y_mm, -cz
    c, s = math.cos(head), math.sin(head)
    fwd, up = dx * c + dz * s, -dx * s + dz * c  # into the camera frame (pitch down by the head angle)
    return round(CAM.cx - CAM.fx * dy / fwd), round(CAM.cy - CAM.fy * up / fwd)


def _with_blob(base: np.ndarray, u: int, v: int, r: int = 14, value: int = 230) -> np.ndarray:
    out = base.copy()
    cv2.circle(out, (u, v), r, value, -1)
    return out


def test_a_still_scene_with_sensor_noise_shows_no_motion() -> None:
    detector = MotionDetector()
    reports = [detector.update(_sample(scene(noise=3.0, seed=i), i / 15)) for i in range(30)]
    assert reports == [None] * 30 and detector.runs == 28  # the first two frames only settle it


def test_something_moving_on_the_floor_is_ground_motion_at_its_place_on_the_floor() -> None:
    head = math.radians(-10)
    u, v = _floor_pixel(150.0, 30.0, head)
    detector = MotionDetector()
    base = scene(noise=2.0, seed=1)
    assert detector.update(_sample(base, -1 / 15, head)) is None
    assert detector.update(_sample(base, 0.0, head)) is None
    # a ball whose nearest edge touches that floor point (the engine reports the nearest 5 %)
    report = detector.update(_sample(_with_blob(base, u, v - 14), 1 / 15, head))
    assert report is not None and report.primary.where == "ground"
    assert "image" in {a.where for a in report.areas}
    gx, gy = report.primary.ground_mm or (0.0, 0.0)
    assert gx == pytest.approx(150.0, abs=15.0) and gy == pytest.approx(30.0, abs=10.0)
    assert math.degrees(report.primary.pan_rad) > 0  # left of the heading
    # quiet for half a second after a report, then it sees again
    assert detector.update(_sample(base, 2 / 15, head)) is None
    assert detector.update(_sample(_with_blob(base, u, v - 14), 0.6, head)) is not None


def test_motion_at_the_left_border_fires_the_left_region_and_nothing_while_the_head_moves() -> None:
    detector = MotionDetector()
    base = scene(noise=2.0, seed=2)
    detector.update(_sample(base, -1 / 15))
    detector.update(_sample(base, 0.0))
    report = detector.update(_sample(_with_blob(base, 30, 60, r=25), 1 / 15))
    assert report is not None and "left" in {a.where for a in report.areas}
    left = next(a for a in report.areas if a.where == "left")
    assert left.x < 96 and left.amount == pytest.approx(MotionConfig().max_value)

    moving = MotionDetector()
    moving.update(_sample(base, -1 / 15, head=0.0))
    moving.update(_sample(base, 0.0, head=0.0))
    assert moving.update(_sample(_with_blob(base, 30, 60, r=25), 1 / 15, head=math.radians(2))) is None
    assert moving.update(_sample(base, 2 / 15, x=3.0, head=math.radians(2))) is None  # the body drove 3 mm
    assert moving.skipped_moving == 3 and moving.runs == 0  # the first pair only settled it


def test_frames_without_a_recent_robot_state_are_not_compared() -> None:
    """Before the first RobotState, or with one from long before the capture, the head may be moving."""
    base = scene(noise=2.0, seed=3)
    blob = _with_blob(base, 30, 60, r=25)
    blind = MotionDetector()
    assert blind.update(_sample(base, -1 / 15, head=None)) is None
    assert blind.update(_sample(base, 0.0, head=None)) is None
    assert blind.update(_sample(blob, 1 / 15, head=None)) is None
    stale = MotionDetector()
    assert stale.update(_sample(base, -1 / 15, state_lag_ms=300)) is None
    assert stale.update(_sample(base, 0.0, state_lag_ms=300)) is None
    assert stale.update(_sample(blob, 1 / 15, state_lag_ms=300)) is None
    assert blind.runs == stale.runs == 0 and blind.skipped_moving == stale.skipped_moving == 2
    fresh = MotionDetector()  # the same frames with states 40 ms off (within one RobotState period)
    fresh.update(_sample(base, -1 / 15, state_lag_ms=40))
    fresh.update(_sample(base, 0.0, state_lag_ms=40))
    assert fresh.update(_sample(blob, 1 / 15, state_lag_ms=40)) is not None


def test_the_last_frame_of_a_turn_is_not_compared_even_when_its_state_says_stopped() -> None:
    """A frame carries the closest state, which may come after it: the turn's last frame can look still."""
    base = scene(noise=2.0, seed=4)
    shifted = np.roll(base, 12, axis=1)  # the turn's last frame: the room a few degrees off
    detector = MotionDetector()
    assert detector.update(_sample(base, -1 / 15, angle=0.2)) is None  # turning
    assert detector.update(_sample(shifted, 0.0, angle=0.25)) is None  # its state shows the turn over
    assert detector.update(_sample(base, 1 / 15, angle=0.25)) is None  # same state: still, but not settled
    assert detector.update(_sample(base, 2 / 15, angle=0.25)) is None and detector.runs == 1
    assert detector.update(_sample(_with_blob(base, 30, 60, r=25), 3 / 15, angle=0.25)) is not None
