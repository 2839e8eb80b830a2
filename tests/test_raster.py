"""Polygon filling (driver.animation.raster): the pixels of the face's polygons without OpenCV.

The rules are checked on small cases worked out by hand (with every fill), and the numpy and the
compiled fills against OpenCV's ``fillPoly`` (the renderer the golden face images were drawn with)
on random polygons that are concave, self-intersecting, partly or wholly off the image, several
per call, at several fixed-point shifts and offsets, when OpenCV is installed. Which fill runs
depends on whether the compiled fill was built and OpenCV is loaded already, checked in fresh
interpreters.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from driver.animation.raster import fill_polygons, polygon_masks

from .conftest import fill_backends


@pytest.fixture(params=fill_backends())
def backend(request: pytest.FixtureRequest) -> str:
    """Each fill in turn: numpy's, and OpenCV's where it is installed."""
    return str(request.param)


def _fill(shape: tuple[int, int], polygons: list[list[tuple[int, int]]], shift: int = 0,
          offset: tuple[int, int] = (0, 0), backend: str = "numpy") -> np.ndarray:
    img = np.zeros(shape, dtype=np.uint8)
    fill_polygons(img, [np.array(p, dtype=np.int32) for p in polygons], 255, shift, offset,
                  backend=backend)  # type: ignore[arg-type]
    return img >= 128


def test_rectangle_lights_its_corners_inclusive(backend: str) -> None:
    img = _fill((8, 10), [[(2, 1), (6, 1), (6, 4), (2, 4)]], backend=backend)
    expected = np.zeros((8, 10), dtype=bool)
    expected[1:5, 2:7] = True
    assert np.array_equal(img, expected)


def test_vertices_round_to_the_nearest_pixel_halves_up(backend: str) -> None:
    # (1.5, 0.5) .. (3.4375, 2.4375) in 1/16 px: rounds to (2, 1) .. (3, 2)
    img = _fill((5, 6), [[(24, 8), (55, 8), (55, 39), (24, 39)]], shift=4, backend=backend)
    expected = np.zeros((5, 6), dtype=bool)
    expected[1:3, 2:4] = True
    assert np.array_equal(img, expected)


def test_offset_moves_the_polygon(backend: str) -> None:
    img = _fill((6, 6), [[(0, 0), (1, 0), (1, 1), (0, 1)]], offset=(3, 2), backend=backend)
    assert sorted(zip(*np.nonzero(img), strict=True)) == [(2, 3), (2, 4), (3, 3), (3, 4)]


def test_outline_of_a_thin_diagonal_is_an_eight_connected_line(backend: str) -> None:
    img = _fill((6, 6), [[(0, 0), (5, 5)]], backend=backend)  # a degenerate polygon: just its two edges
    assert np.array_equal(img, np.eye(6, dtype=bool))


def test_two_overlapping_polygons_cancel_inside_their_overlap(backend: str) -> None:
    img = _fill((12, 12), [[(0, 0), (8, 0), (8, 8), (0, 8)], [(4, 4), (11, 4), (11, 11), (4, 11)]], backend=backend)
    assert img[2, 2] and img[10, 10]  # each alone
    assert not img[6, 6]  # both: even-odd
    assert img[4, 6] and img[6, 4] and img[8, 6]  # the outlines stay lit


def test_polygon_leaving_the_image_is_clipped_not_wrapped(backend: str) -> None:
    img = _fill((6, 6), [[(-10, -10), (3, -10), (3, 20), (-10, 20)]], backend=backend)
    expected = np.zeros((6, 6), dtype=bool)
    expected[:, :4] = True
    assert np.array_equal(img, expected)


def test_polygon_wholly_off_the_image_draws_nothing(backend: str) -> None:
    assert not _fill((6, 6), [[(10, 10), (20, 10), (20, 20)]], backend=backend).any()
    assert not _fill((6, 6), [[(-9, 1), (-2, 1), (-2, 4)]], backend=backend).any()


def test_several_jobs_in_one_call_match_one_call_each(backend: str) -> None:
    rng = np.random.default_rng(7)
    jobs = []
    for _ in range(5):
        h, w = int(rng.integers(3, 40)), int(rng.integers(3, 40))
        polys = [rng.integers(-200, 700, size=(int(rng.integers(3, 12)), 2)).astype(np.int32) for _ in range(2)]
        jobs.append((polys, (int(rng.integers(-50, 50)), int(rng.integers(-50, 50))), (h, w)))
    together = polygon_masks(jobs, 4, backend)  # type: ignore[arg-type]
    for j, job in enumerate(jobs):
        h, w = job[2]
        alone = polygon_masks([job], 4, backend)[0]  # type: ignore[arg-type]
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
        cv2.fillPoly(theirs, polys, 255, cv2.LINE_8, shift, offset)
        for backend in fill_backends():
            ours[:] = 0
            fill_polygons(ours, polys, 255, shift, offset, backend=backend)  # type: ignore[arg-type]
            diff = int(np.count_nonzero(ours != theirs))
            assert diff == 0, f"case {case}, {backend}: {diff} pixels differ (shape {shape}, shift {shift}, " \
                f"offset {offset})"
        # and through the module (int64 vertices are taken too), several jobs at once
        jobs = [([p.astype(np.int64) for p in polys], offset, shape), (polys, (0, 0), (shape[0] // 2, shape[1]))]
        numpy_masks = polygon_masks(jobs, shift, "numpy")
        for backend in fill_backends():
            assert np.array_equal(polygon_masks(jobs, shift, backend), numpy_masks), (case, backend)  # type: ignore


def test_vertices_beyond_32_bits_are_filled_with_numpy_by_opencv():
    pytest.importorskip("cv2", reason="only a question where OpenCV is installed")
    far = np.array([[0, 0], [1 << 40, 0], [0, 3]], dtype=np.int64)
    jobs = [([far], (0, 0), (4, 8))]
    assert np.array_equal(polygon_masks(jobs, 0, "opencv"), polygon_masks(jobs, 0, "numpy"))
    assert polygon_masks(jobs, 0, "opencv")[0, 0].all()


def test_vertices_beyond_32_bits_and_other_types(backend: str) -> None:
    far = np.array([[0, 0], [1 << 40, 0], [0, 3]], dtype=np.int64)
    expected = np.zeros((4, 8), dtype=bool)
    expected[:3] = True
    expected[3, :4] = True
    assert np.array_equal(polygon_masks([([far], (0, 0), (4, 8))], 0, backend)[0], expected)  # type: ignore
    square = [(2, 1), (6, 1), (6, 4), (2, 4)]
    reference = _fill((8, 10), [square])
    for dtype in (np.int16, np.uint8, np.float64):
        poly = np.array(square, dtype=dtype)
        assert np.array_equal(polygon_masks([([poly], (0, 0), (8, 10))], 0, backend)[0], reference), dtype  # type: ignore
    strided = np.array([[2, 9, 1], [6, 9, 1], [6, 9, 4], [2, 9, 4]], dtype=np.int32)[:, ::2]  # not contiguous
    assert np.array_equal(polygon_masks([([strided], (0, 0), (8, 10))], 0, backend)[0], reference)  # type: ignore


def test_the_compiled_fill_is_built_where_a_compiler_is_and_not_older_than_its_source():
    from driver.animation import raster

    if raster.fill_backend() != "compiled":
        compiler = sysconfig.get_config_var("CC") or "cc"
        if shutil.which(compiler.split()[0]) is not None:
            pytest.fail(f"{compiler} is here but driver.animation._compiled was not built (pip install -e . builds it)")
        pytest.skip("no C compiler: the package was installed without its compiled fill (numpy fills)")
    from driver.animation import _compiled

    built, source = Path(_compiled.__file__), Path(raster.__file__).with_name("_compiled.c")
    if source.exists():  # a checkout (an installed wheel has no source)
        assert built.stat().st_mtime >= source.stat().st_mtime, \
            f"{source.name} changed after {built.name} was built: run pip install -e . again"


def test_the_compiled_fill_refuses_what_it_cannot_fill():
    compiled = pytest.importorskip("driver.animation._compiled", reason="built only where a C compiler is")
    out = np.zeros((4, 8), dtype=bool)
    square = np.array([[0, 0], [3, 0], [3, 3]], dtype=np.int32)
    with pytest.raises(TypeError, match="signed 32- or 64-bit integers"):
        compiled.fill(out, 8, 4, 8, [square.astype(np.float64)], 0, 0, 0)
    with pytest.raises(TypeError, match="signed 32- or 64-bit integers"):
        compiled.fill(out, 8, 4, 8, [np.array([1, 2, 3], dtype=np.int32)], 0, 0, 0)  # an odd number of coordinates
    with pytest.raises(ValueError, match="one byte a pixel"):
        compiled.fill(out, 8, 5, 8, [square], 0, 0, 0)  # more rows than the buffer holds
    with pytest.raises(ValueError, match="one byte a pixel"):
        compiled.fill(np.zeros((4, 8), dtype=np.int32), 8, 4, 8, [square], 0, 0, 0)
    with pytest.raises(ValueError, match="cannot be filled"):
        compiled.fill(out, 4, 4, 8, [square], 0, 0, 0)  # rows closer than the width
    with pytest.raises(ValueError, match="shift must be"):
        compiled.fill(out, 8, 4, 8, [square], 31, 0, 0)
    with pytest.raises(TypeError):
        compiled.fill(out, 8, 4, 8, 5, 0, 0, 0)
    assert not out.any()  # nothing was drawn by a refused call
    compiled.fill(out, 8, 4, 8, [square], 0, 0, 0)
    assert out[0, :4].all() and out[3, 3] and not out[3, 0]


def test_opencv_fills_once_something_else_loaded_it():
    pytest.importorskip("cv2", reason="OpenCV is not installed: numpy always fills")
    code = (
        "import sys\n"
        "sys.modules['driver.animation._compiled'] = None  # as if built without a C compiler\n"
        "from driver.animation import raster\n"
        "from driver.animation.face import render\n"
        "from driver.animation.expressions import EXPRESSIONS\n"
        "before = raster.fill_backend()\n"
        "numpy_face = render(EXPRESSIONS['happy'])\n"
        "import cv2\n"
        "fills = []\n"
        "fill = cv2.fillPoly\n"
        "cv2.fillPoly = lambda *a: fills.append(1) or fill(*a)  # counts the calls; OpenCV still fills\n"
        "same = (render(EXPRESSIONS['happy']) == numpy_face).all()\n"
        "print(before, raster.fill_backend(), same, len(fills))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["numpy", "opencv", "True", "4"]  # two eyes, each outline and lids


def test_the_compiled_fill_fills_where_it_was_built_even_with_opencv_loaded():
    pytest.importorskip("driver.animation._compiled", reason="built only where a C compiler is")
    code = (
        "from driver.animation import raster\n"
        "from driver.animation.face import render\n"
        "from driver.animation.expressions import EXPRESSIONS\n"
        "before = raster.fill_backend()\n"
        "face = render(EXPRESSIONS['happy'])\n"
        "import cv2\n"
        "fills = []\n"
        "cv2.fillPoly = lambda *a: fills.append(1)  # OpenCV would draw nothing\n"
        "same = (render(EXPRESSIONS['happy']) == face).all() and (face == render(EXPRESSIONS['happy'], "
        "backend='numpy')).all()\n"
        "print(before, raster.fill_backend(), same, len(fills))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["compiled", "compiled", "True", "0"]


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
