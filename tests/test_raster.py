"""Polygon filling (driver.animation.raster): the pixels of the face's polygons without OpenCV.

The rules are checked on small cases worked out by hand, and against OpenCV's ``fillPoly`` (the
renderer the golden face images were drawn with) on random polygons that are concave,
self-intersecting, partly or wholly off the image, several per call, at several fixed-point
shifts and offsets, when OpenCV is installed.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from driver.animation.raster import fill_polygons, polygon_masks


def _fill(shape: tuple[int, int], polygons: list[list[tuple[int, int]]], shift: int = 0,
          offset: tuple[int, int] = (0, 0)) -> np.ndarray:
    img = np.zeros(shape, dtype=np.uint8)
    fill_polygons(img, [np.array(p, dtype=np.int32) for p in polygons], 255, shift, offset)
    return img >= 128


def test_rectangle_lights_its_corners_inclusive():
    img = _fill((8, 10), [[(2, 1), (6, 1), (6, 4), (2, 4)]])
    expected = np.zeros((8, 10), dtype=bool)
    expected[1:5, 2:7] = True
    assert np.array_equal(img, expected)


def test_vertices_round_to_the_nearest_pixel_halves_up():
    # (1.5, 0.5) .. (3.4375, 2.4375) in 1/16 px: rounds to (2, 1) .. (3, 2)
    img = _fill((5, 6), [[(24, 8), (55, 8), (55, 39), (24, 39)]], shift=4)
    expected = np.zeros((5, 6), dtype=bool)
    expected[1:3, 2:4] = True
    assert np.array_equal(img, expected)


def test_offset_moves_the_polygon():
    img = _fill((6, 6), [[(0, 0), (1, 0), (1, 1), (0, 1)]], offset=(3, 2))
    assert sorted(zip(*np.nonzero(img), strict=True)) == [(2, 3), (2, 4), (3, 3), (3, 4)]


def test_outline_of_a_thin_diagonal_is_an_eight_connected_line():
    img = _fill((6, 6), [[(0, 0), (5, 5)]])  # a degenerate polygon: just its two edges
    assert np.array_equal(img, np.eye(6, dtype=bool))


def test_two_overlapping_polygons_cancel_inside_their_overlap():
    img = _fill((12, 12), [[(0, 0), (8, 0), (8, 8), (0, 8)], [(4, 4), (11, 4), (11, 11), (4, 11)]])
    assert img[2, 2] and img[10, 10]  # each alone
    assert not img[6, 6]  # both: even-odd
    assert img[4, 6] and img[6, 4] and img[8, 6]  # the outlines stay lit


def test_polygon_leaving_the_image_is_clipped_not_wrapped():
    img = _fill((6, 6), [[(-10, -10), (3, -10), (3, 20), (-10, 20)]])
    expected = np.zeros((6, 6), dtype=bool)
    expected[:, :4] = True
    assert np.array_equal(img, expected)


def test_polygon_wholly_off_the_image_draws_nothing():
    assert not _fill((6, 6), [[(10, 10), (20, 10), (20, 20)]]).any()
    assert not _fill((6, 6), [[(-9, 1), (-2, 1), (-2, 4)]]).any()


def test_several_jobs_in_one_call_match_one_call_each():
    rng = np.random.default_rng(7)
    jobs = []
    for _ in range(5):
        h, w = int(rng.integers(3, 40)), int(rng.integers(3, 40))
        polys = [rng.integers(-200, 700, size=(int(rng.integers(3, 12)), 2)).astype(np.int32) for _ in range(2)]
        jobs.append((polys, (int(rng.integers(-50, 50)), int(rng.integers(-50, 50))), (h, w)))
    together = polygon_masks(jobs, 4)
    for j, job in enumerate(jobs):
        h, w = job[2]
        alone = polygon_masks([job], 4)[0]
        assert np.array_equal(together[j, :h, :w], alone[:h, :w])
        assert not together[j, h:].any() and not together[j, :, w:].any()


def _random_case(rng: np.random.Generator) -> tuple[tuple[int, int], list[np.ndarray], int, tuple[int, int]]:
    h, w = int(rng.integers(1, 70)), int(rng.integers(1, 130))
    shift = int(rng.choice([0, 1, 4, 8]))
    one = 1 << shift
    polys = []
    for _ in range(int(rng.integers(1, 4))):
        n = int(rng.integers(1, 20))
        spread = float(rng.choice([1.0, 1.5, 3.0]))
        xs = rng.uniform(-w * (spread - 1), w * spread, n)
        ys = rng.uniform(-h * (spread - 1), h * spread, n)
        pts = np.rint(np.stack((xs, ys), axis=1) * one).astype(np.int32)
        if rng.random() < 0.1:
            pts[:] = pts[0]  # all on one point
        polys.append(pts)
    offset = (int(rng.integers(-20, 20)) * one + int(rng.integers(0, one)),
              int(rng.integers(-20, 20)) * one + int(rng.integers(0, one)))
    return (h, w), polys, shift, offset


def test_same_pixels_as_opencv_fillpoly():
    cv2 = pytest.importorskip("cv2", reason="OpenCV is the reference, not a dependency of the renderer")
    rng = np.random.default_rng(20240611)
    for case in range(1500):
        shape, polys, shift, offset = _random_case(rng)
        ours = np.zeros(shape, dtype=np.uint8)
        theirs = np.zeros(shape, dtype=np.uint8)
        fill_polygons(ours, polys, 255, shift, offset)
        cv2.fillPoly(theirs, polys, 255, cv2.LINE_8, shift, offset)
        diff = int(np.count_nonzero(ours != theirs))
        assert diff == 0, f"case {case}: {diff} pixels differ (shape {shape}, shift {shift}, offset {offset})"


def test_rendering_a_face_does_not_load_opencv():
    code = (
        "import sys\n"
        "from driver.animation.face_images import FaceRenderer\n"
        "from driver.animation.expressions import EXPRESSIONS\n"
        "r = FaceRenderer()\n"
        "assert all(r.display_bytes(f) for f in EXPRESSIONS.values())\n"
        "print('cv2' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
