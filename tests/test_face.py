"""Tests for the procedural face (driver.animation.face), its named expressions and easing curves.

Golden images: every expression is rendered at 128 x 64, thresholded to 1 bit and compared,
pixel for pixel, with tests/golden/<name>.png. After an intended change to the renderer or to an
expression, regenerate them with

    COZMO_BRAIN_REGEN_GOLDEN=1 pytest tests/test_face.py

(the regenerating run skips the comparisons), look at the new PNGs, and commit them.
"""

from __future__ import annotations

import math
import os
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from driver.animation import display
from driver.animation import face as face_module
from driver.animation.easing import CURVES, UnknownEasingError, ease, easing, easing_names
from driver.animation.expressions import EXPRESSIONS, UnknownExpressionError, expression, expression_names
from driver.animation.face import (
    DEFAULT_FACE,
    EYE_PARAMETERS,
    NUM_PARAMETERS,
    EyeParams,
    FaceParams,
    FaceParamsError,
    blink,
    interpolate,
    look,
    random_saccade,
    render,
    saccade,
    to_display,
)
from driver.animation.face_images import FaceRenderer

from .conftest import fill_backends

GOLDEN = Path(__file__).resolve().parent / "golden"
REGEN = os.environ.get("COZMO_BRAIN_REGEN_GOLDEN") == "1"

REQUIRED_EXPRESSIONS = [
    "neutral", "happy", "sad", "angry", "surprised", "sleepy", "asleep", "bored", "confused", "excited",
    "scared", "frustrated", "curious", "suspicious", "love", "determined", "disappointed", "squint",
    "wink_left", "wink_right", "skeptical", "worried",
]  # fmt: skip


def _lit(img: np.ndarray) -> np.ndarray:
    return img >= 128


def _components(mask: np.ndarray) -> int:
    import cv2

    n, _ = cv2.connectedComponents(mask.astype(np.uint8), connectivity=8)
    return n - 1


# --------------------------------------------------------------------------------------------
# Golden images


@pytest.mark.parametrize("backend", fill_backends())
@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_expression_matches_golden_image(name, backend):
    if REGEN and backend != "numpy":
        pytest.skip("regenerating with the numpy fill")
    img = _lit(render(EXPRESSIONS[name], backend=backend))
    path = GOLDEN / f"{name}.png"
    if REGEN:
        GOLDEN.mkdir(exist_ok=True)
        Image.fromarray(img).save(path, optimize=True)
        pytest.skip(f"regenerated {path.name}")
    assert path.exists(), f"missing golden image {path}; run with COZMO_BRAIN_REGEN_GOLDEN=1"
    golden = np.asarray(Image.open(path).convert("1"), dtype=bool)
    assert golden.shape == img.shape
    diff = int(np.count_nonzero(golden != img))
    assert diff == 0, f"{name}: {diff} pixels differ from {path.name}"


def test_no_stray_golden_images():
    if not GOLDEN.exists():
        pytest.skip("no golden images yet")
    stored = {p.stem for p in GOLDEN.glob("*.png")}
    assert stored <= set(EXPRESSIONS), f"golden images without an expression: {stored - set(EXPRESSIONS)}"


# --------------------------------------------------------------------------------------------
# Expressions


def test_registry_has_the_required_expressions():
    assert len(EXPRESSIONS) >= 20
    assert set(REQUIRED_EXPRESSIONS) <= set(EXPRESSIONS)
    assert expression_names() == sorted(EXPRESSIONS)


def test_expressions_are_clearly_distinct():
    renders = {name: _lit(render(face)) for name, face in EXPRESSIONS.items()}
    names = sorted(renders)
    for i, a in enumerate(names):
        assert renders[a].sum() > 100, f"{a} is nearly blank"
        for b in names[i + 1 :]:
            differing = int(np.count_nonzero(renders[a] != renders[b]))
            assert differing >= 150, f"{a} and {b} differ in only {differing} pixels"


def test_expression_lookup():
    assert expression("Wink-Left") is EXPRESSIONS["wink_left"]
    assert expression(" happy ") is EXPRESSIONS["happy"]
    with pytest.raises(UnknownExpressionError, match="known: .*neutral"):
        expression("grumpy_cat")
    with pytest.raises(TypeError):
        EXPRESSIONS["new"] = DEFAULT_FACE  # type: ignore[index]


def test_winks_close_the_named_eye():
    for name, closed_half in (("wink_left", slice(0, 64)), ("wink_right", slice(64, 128))):
        img = _lit(render(EXPRESSIONS[name]))
        open_half = slice(64, 128) if closed_half.start == 0 else slice(0, 64)
        assert img[:, closed_half].sum() < 0.6 * img[:, open_half].sum(), name


def test_happy_eyes_are_arches_and_sad_outer_corners_droop():
    happy = _lit(render(EXPRESSIONS["happy"]))
    left = happy[:, :64]
    cols = np.flatnonzero(left.any(axis=0))
    middle = (cols[0] + cols[-1]) // 2
    # an arch: the middle column is lit only near the top, the sides reach further down
    assert np.flatnonzero(left[:, middle]).max() < np.flatnonzero(left[:, cols[0] + 1]).max()
    sad = _lit(render(EXPRESSIONS["sad"]))[:, :64]
    cols = np.flatnonzero(sad.any(axis=0))
    top = lambda c: np.flatnonzero(sad[:, c]).min()  # noqa: E731
    assert top(cols[0] + 1) > top(cols[-1] - 1)  # outer (left) side starts lower than inner side


# --------------------------------------------------------------------------------------------
# Parameters


def test_default_face_is_two_tall_rounded_rectangles():
    img = _lit(render(DEFAULT_FACE))
    assert _components(img) == 2
    for half in (img[:, :64], img[:, 64:]):
        rows = np.flatnonzero(half.any(axis=1))
        cols = np.flatnonzero(half.any(axis=0))
        height, width = rows[-1] - rows[0] + 1, cols[-1] - cols[0] + 1
        assert (width, height) == (28, 40)
        box = half[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
        assert not box[0, 0] and not box[-1, -1]  # rounded corners
        assert box[height // 2].all() and box[:, width // 2].all()  # solid
    # mirror-symmetric up to the rasteriser's rounding of a few corner pixels
    assert np.count_nonzero(img != img[:, ::-1]) <= 0.02 * img.sum()
    # eye centres at width/2 -+ width/5 (pixel i covers x = i .. i + 1)
    centres = [np.flatnonzero(img[32, s]).mean() + s.start + 0.5 for s in (slice(0, 64), slice(64, 128))]
    assert centres == pytest.approx([64 - 25.6, 64 + 25.6], abs=0.6)


def test_43_list_layout():
    face = FaceParams(center_x=1, angle=5, left_eye=EyeParams(upper_lid_y=0.25), right_eye=EyeParams(scale_x=2))
    flat = face.to_list()
    assert len(flat) == NUM_PARAMETERS == 43
    assert flat[0] == 1 and flat[4] == 5
    assert flat[5 + EYE_PARAMETERS.index("upper_lid_y")] == 0.25
    assert flat[5 + 19 + 2] == 2.0
    assert EYE_PARAMETERS[5:13] == (
        "lower_inner_radius_x", "lower_inner_radius_y", "upper_inner_radius_x", "upper_inner_radius_y",
        "upper_outer_radius_x", "upper_outer_radius_y", "lower_outer_radius_x", "lower_outer_radius_y",
    )  # fmt: skip


finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None)
@given(st.lists(finite, min_size=43, max_size=43))
def test_43_list_round_trip(values):
    face = FaceParams.from_list(values)
    assert face.to_list() == values
    assert FaceParams.from_array(np.array(values)) == face
    assert FaceParams.from_eye_arrays(
        values[5:24], values[24:], center_x=values[0], center_y=values[1], scale_x=values[2],
        scale_y=values[3], angle=values[4],
    ) == face  # fmt: skip


def test_from_list_errors_name_the_problem():
    with pytest.raises(FaceParamsError, match="expected 43 values, got 42"):
        FaceParams.from_list([0.0] * 42, source="clip.json")
    bad = [0.0] * 43
    bad[5 + 13] = float("nan")
    with pytest.raises(FaceParamsError, match=r"clip\.json: left_eye\.upper_lid_y \(value 18\) is nan"):
        FaceParams.from_list(bad, source="clip.json")
    bad[18] = "x"
    with pytest.raises(FaceParamsError, match="expected a number"):
        FaceParams.from_list(bad)
    with pytest.raises(FaceParamsError, match="rightEye: expected 19 values"):
        FaceParams.from_eye_arrays([0.0] * 19, [0.0] * 3)


faces = st.builds(lambda v: FaceParams.from_list(v), st.lists(st.floats(-50, 50), min_size=43, max_size=43))


@settings(max_examples=100, deadline=None)
@given(faces, faces, st.floats(0.0, 1.0))
def test_interpolate_endpoints_and_linearity(a, b, t):
    assert interpolate(a, b, 0.0) == a
    assert interpolate(a, b, 1.0) == b
    mid = np.array(interpolate(a, b, t).to_list())
    expected = np.array(a.to_list()) * (1 - t) + np.array(b.to_list()) * t
    np.testing.assert_allclose(mid, expected, rtol=1e-9, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(faces)
def test_any_finite_face_renders(face):
    img = render(face, backend="numpy")
    assert img.shape == (64, 128) and img.dtype == np.uint8
    assert set(np.unique(img).tolist()) <= {0, 255}
    for backend in fill_backends()[1:]:  # the compiled code and OpenCV's fill light the very same pixels
        assert np.array_equal(render(face, backend=backend), img), backend


def test_blends_render_alike_with_every_fill():
    if len(fill_backends()) < 2:
        pytest.skip("neither the compiled code nor OpenCV is there: only the numpy fill")
    names = sorted(EXPRESSIONS)
    for i, a in enumerate(names):
        b = names[(i * 7 + 3) % len(names)]
        for t in np.linspace(0.0, 1.0, 13):
            face = interpolate(EXPRESSIONS[a], EXPRESSIONS[b], float(t))
            for size in ((128, 64), (200, 90), (45, 23)):
                ours = render(face, *size, backend="numpy")
                for backend in fill_backends()[1:]:
                    assert np.array_equal(ours, render(face, *size, backend=backend)), (a, b, t, size, backend)


def test_compiled_eyes_light_numpys_pixels_on_and_off_the_fixed_point_grid():
    compiled = pytest.importorskip("driver.animation._compiled", reason="built only where a C compiler is")
    rng = np.random.default_rng(11)
    n = face_module._EYE_POINTS
    for case in range(300):
        centre = rng.uniform(-20, 150, 2)
        pts = centre + rng.uniform(-30, 30, (2, n, 2))
        if case % 2:  # on the ties of the fixed-point grid (1/16 px)
            pts = (np.floor(pts * 16) + 0.5) / 16
        shape = (64, 128) if case % 3 else (int(rng.integers(1, 90)), int(rng.integers(1, 200)))
        ours, theirs = np.zeros(shape, np.uint8), np.zeros(shape, np.uint8)
        assert face_module._draw_eyes(ours, pts, "numpy") and face_module._draw_eyes(theirs, pts, "compiled")
        assert np.array_equal(ours, theirs), case
    bad = np.zeros((64, 128), np.uint8)
    with pytest.raises(ValueError, match="float64"):
        compiled.draw_eyes(bad, np.zeros((2, n - 1, 2)), face_module._OUTLINE_POINTS, face_module._LID_POINTS, 4)
    with pytest.raises(ValueError, match="float64"):
        compiled.draw_eyes(bad, np.zeros((2, n, 2), np.float32), face_module._OUTLINE_POINTS,
                           face_module._LID_POINTS, 4)
    with pytest.raises(ValueError, match="one-byte pixels"):
        compiled.draw_eyes(np.zeros((64, 128)), np.zeros((2, n, 2)), face_module._OUTLINE_POINTS,
                           face_module._LID_POINTS, 4)
    assert not bad.any()


@pytest.mark.parametrize("backend", fill_backends())
def test_render_rejects_non_finite_parameters(backend):
    with pytest.raises(FaceParamsError, match="non-finite"):
        render(DEFAULT_FACE.replace_eyes(upper_lid_angle=float("inf")).replace(center_x=float("nan")), backend=backend)
    with pytest.raises(FaceParamsError, match="non-finite"):
        render(DEFAULT_FACE.replace(center_y=float("nan")), backend=backend)


def test_render_scales_with_the_canvas():
    small = _lit(render(DEFAULT_FACE))
    big = _lit(render(DEFAULT_FACE, 256, 128))
    assert big.shape == (128, 256)
    assert big.sum() == pytest.approx(4 * small.sum(), rel=0.03)


def test_face_transforms_move_and_scale_the_eyes():
    base = _lit(render(DEFAULT_FACE))
    moved = _lit(render(DEFAULT_FACE.replace(center_x=10, center_y=-5)))
    assert np.array_equal(moved[:59, 10:], base[5:, :118])  # 10 px right, 5 px up
    smaller = _lit(render(DEFAULT_FACE.replace(scale_x=0.5, scale_y=0.5)))
    assert smaller.sum() == pytest.approx(base.sum() / 4, rel=0.1)
    tilted = _lit(render(DEFAULT_FACE.replace(angle=20)))
    ys = [np.flatnonzero(tilted[:, s].any(axis=1)).mean() for s in (slice(0, 64), slice(64, 128))]
    assert ys[0] > ys[1]  # counter-clockwise: the left eye goes down, the right one up


def test_overlapping_eyes_do_not_cut_each_other():
    right_only = DEFAULT_FACE.replace(left_eye=EyeParams(scale_x=0, scale_y=0))
    lidded_left_on_top = DEFAULT_FACE.replace(left_eye=EyeParams(center_x=40, upper_lid_y=0.6, lower_lid_y=0.3))
    img = _lit(render(lidded_left_on_top))
    assert np.all(img[_lit(render(right_only))])


def test_eyes_off_screen_are_skipped():
    assert not render(DEFAULT_FACE.replace(center_x=500)).any()
    assert not render(DEFAULT_FACE.replace(scale_x=0.0, scale_y=0.0)).any()


# --------------------------------------------------------------------------------------------
# Blink and gaze


def test_blink_closes_and_reopens():
    for name in ("neutral", "angry", "happy"):
        face = EXPRESSIONS[name]
        frames = blink(face)
        assert 6 <= len(frames) <= 9  # 0.2 - 0.3 s at 30 fps
        assert frames[-1] == face
        lit = [int(_lit(render(f)).sum()) for f in frames]
        closed = int(np.argmin(lit))
        assert 0 < closed < len(frames) - 1
        rows = np.flatnonzero(_lit(render(frames[closed])).any(axis=1))
        assert rows.size <= 4  # a thin line
        assert lit[closed] < 0.5 * max(lit)
        heights = [int(_lit(render(f)).any(axis=1).sum()) for f in frames]
        assert all(heights[i] > heights[i + 1] for i in range(closed))  # closes monotonically
        assert all(heights[i] < heights[i + 1] for i in range(closed + 1, len(frames) - 1))


def test_blink_duration_follows_fps():
    assert len(blink(DEFAULT_FACE, fps=60, duration=0.3)) == 18


def test_saccade_and_look():
    target = look(DEFAULT_FACE, 12, -4)
    assert target.center_x == 12 and target.center_y == -4
    assert target.right_eye.scale_x > 1 > target.left_eye.scale_x  # the eye on that side grows
    frames = saccade(DEFAULT_FACE, target, frames=3)
    assert len(frames) == 3 and frames[-1] == target
    xs = [f.center_x for f in frames]
    assert xs[0] > 0.6 * 12 and xs == sorted(xs)  # most of the way at once, then settles
    moved = random_saccade(DEFAULT_FACE, random.Random(7))
    again = random_saccade(DEFAULT_FACE, random.Random(7))
    assert moved == again and moved[-1] != DEFAULT_FACE
    with pytest.raises(ValueError):
        saccade(DEFAULT_FACE, target, frames=0)


# --------------------------------------------------------------------------------------------
# Display reduction and the renderer cache


def test_to_display_keeps_alternate_rows():
    img = np.zeros((64, 128), dtype=np.uint8)
    img[0::2] = 255
    assert to_display(img, 0).all() and not to_display(img, 1).any()
    assert to_display(img).shape == (32, 128)
    with pytest.raises(ValueError, match="row_offset"):
        to_display(img, 2)
    with pytest.raises(ValueError, match=r"\(64, 128\)"):
        to_display(img[:32])


def test_face_renderer_caches_and_encodes():
    renderer = FaceRenderer(cache_size=2, image_cache_size=2)
    a = renderer.render(EXPRESSIONS["happy"])
    assert renderer.render(EXPRESSIONS["happy"]) is a
    assert not a.flags.writeable
    data = renderer.display_bytes(EXPRESSIONS["angry"], 1)
    assert renderer.display_bytes(EXPRESSIONS["angry"], 1) is data
    assert np.array_equal(display.decode(data), to_display(render(EXPRESSIONS["angry"]), 1))
    renderer.render(EXPRESSIONS["sad"])
    renderer.render(EXPRESSIONS["love"])
    assert renderer.render(EXPRESSIONS["happy"]) is not a  # evicted (cache of 2)
    renderer.display_bytes(EXPRESSIONS["sad"], 1)
    renderer.display_bytes(EXPRESSIONS["love"], 1)
    assert renderer.display_bytes(EXPRESSIONS["angry"], 1) is not data
    other = FaceRenderer()
    assert other.render(EXPRESSIONS["happy"]) is not renderer.render(EXPRESSIONS["happy"])


def test_one_render_serves_both_row_sets(monkeypatch: pytest.MonkeyPatch) -> None:
    """The controller swaps the row set at a blink and shows many faces again with the other one:
    that costs a lookup, not a second render."""
    from driver.animation import face_images

    drawn: list[FaceParams] = []

    def counting_render(face: FaceParams, width: int = 128, height: int = 64) -> np.ndarray:
        drawn.append(face)
        return render(face, width, height)

    monkeypatch.setattr(face_images, "render", counting_render)
    renderer = FaceRenderer()
    happy = EXPRESSIONS["happy"]
    even, odd = renderer.display_bytes(happy, 0), renderer.display_bytes(happy, 1)
    assert drawn == [happy]
    assert np.array_equal(display.decode(even), to_display(render(happy), 0))
    assert np.array_equal(display.decode(odd), to_display(render(happy), 1))
    with pytest.raises(ValueError, match="row_offset"):
        renderer.display_bytes(happy, 2)


# --------------------------------------------------------------------------------------------
# Easing curves


def test_easing_names():
    names = easing_names()
    assert "linear" in names and len(names) == 10
    for curve in ("quadratic", "cubic", "exponential"):
        for mode in ("in", "out", "in_out"):
            assert f"{curve}_{mode}" in CURVES


@pytest.mark.parametrize("name", sorted(CURVES))
def test_easing_endpoints_monotonic_and_clamped(name):
    assert ease(name, 0.0) == 0.0
    assert ease(name, 1.0) == 1.0
    ts = np.linspace(0.0, 1.0, 101)
    values = [ease(name, float(t)) for t in ts]
    assert all(b >= a for a, b in zip(values, values[1:], strict=False))
    assert ease(name, -3.0) == 0.0 and ease(name, 7.0) == 1.0


def test_easing_shapes():
    assert ease("linear", 0.3) == pytest.approx(0.3)
    assert ease("quadratic_in", 0.5) == pytest.approx(0.25)
    assert ease("quadratic_out", 0.5) == pytest.approx(0.75)
    assert ease("cubic_in", 0.5) == pytest.approx(0.125)
    assert ease("cubic_in_out", 0.25) == pytest.approx(0.0625)
    for curve in ("quadratic", "cubic", "exponential"):
        assert ease(f"{curve}_in", 0.3) < 0.3 < ease(f"{curve}_out", 0.3)
        assert ease(f"{curve}_in_out", 0.5) == pytest.approx(0.5)
        # in_out is symmetric about the midpoint
        assert ease(f"{curve}_in_out", 0.2) == pytest.approx(1 - ease(f"{curve}_in_out", 0.8))
    assert ease("exponential_in", 0.5) == pytest.approx((2**5 - 1) / (2**10 - 1))


def test_easing_lookup_errors():
    assert easing("Cubic-In-Out")(0.5) == pytest.approx(0.5)
    with pytest.raises(UnknownEasingError, match="known: linear"):
        easing("bounce_in")
    with pytest.raises(ValueError, match="NaN"):
        ease("linear", math.nan)


def test_eased_face_blend():
    a, b = EXPRESSIONS["neutral"], EXPRESSIONS["surprised"]
    mid = interpolate(a, b, ease("cubic_in", 0.5))
    assert mid.left_eye.scale_x == pytest.approx(1 + 0.125 * (b.left_eye.scale_x - 1))


def test_the_idle_face_holds_still_asleep_and_blinks_slowly_when_tired() -> None:
    from driver.animation.expressions import expression
    from driver.animation.idle import BLINK_EVERY_S, IdleFace

    idle = IdleFace(expression("neutral"), random.Random(5))
    idle.schedule(0.0)
    idle.still, idle.base = True, expression("asleep")
    faces = {idle.frame(k / 30) for k in range(30 * 20)}  # twenty seconds: no blink, no glance
    assert faces == {expression("asleep")}
    idle.still, idle.pace, idle.base = False, 2.5, expression("sleepy")
    idle.frame(20.0)  # awake again: the next blink is drawn from now, 2.5 times further off
    assert 20.0 + 2.5 * BLINK_EVERY_S[0] <= idle.next_blink <= 20.0 + 2.5 * BLINK_EVERY_S[1]
