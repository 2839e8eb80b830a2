"""Cozmo's procedural face: the 43-parameter eye model, blending, blinks and a fast renderer.

The face the robot shows when no canned image plays is two eyes drawn from numbers: five for the
whole face (centre x/y in pixels, scale x/y, angle in degrees) and nineteen per eye, in the order
the animation files (.bin ``ProceduralFace.leftEye`` / ``rightEye``) and the app's engine use:

 0 center_x, 1 center_y          offset from the eye's nominal position, pixels
 2 scale_x, 3 scale_y            size relative to the nominal 28 x 40 px eye
 4 angle                         degrees, positive turns counter-clockwise on screen
 5-12 corner radii (x, y pairs)  lower inner, upper inner, upper outer, lower outer; each 0..1
                                 of the eye's half-width / half-height (1 = fully round)
13-15 upper lid y, angle, bend   lid covers y (0..1) of the eye height from the top; angle in
                                 degrees tilts it (positive lowers the inner end); bend (0..1 of
                                 the eye height) curves its edge down into the eye
16-18 lower lid y, angle, bend   the same from the bottom; bend curves its edge up into the eye

"Inner" is the side towards the nose: the right eye is drawn mirrored, so equal parameters give
a symmetric face. "Left" is the eye on the viewer's left. PyCozmo 0.8.0 lists the corner radii in a
different order (lower inner, lower outer, upper inner, upper outer); the order above is the one in
the engine's parameter table, which is what the clip files were written against.

The flat 43-float form (:meth:`FaceParams.to_list`) is the face's five numbers followed by the
left and then the right eye's nineteen.

Rendering draws each eye as a polygon (a rounded rectangle whose four corners are elliptical arcs),
cuts the lids out of it as polygons (straight, tilted, optionally bent edges), and ORs the eyes
into a 128 x 64 canvas. The eye and face transforms (scale, rotation, translation) are applied to
the polygon vertices, not to images, so the result is exact at any size and costs four polygon
fills per frame (:mod:`driver.animation.raster`, which lights the same pixels as OpenCV's
``fillPoly`` without loading OpenCV; where the package's compiled code was built, the placed eyes
are drawn by it whole, see :func:`_draw_eyes`). :func:`to_display` then keeps every other row for
the 128 x 32 display stream.
"""

from __future__ import annotations

import dataclasses
import math
import operator
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..frozen import fast_init
from . import display
from .clip import EYE_PARAMETERS as CLIP_EYE_PARAMETERS
from .native import compiled as _compiled
from .raster import Backend, polygon_masks

__all__ = [
    "DEFAULT_EYE",
    "DEFAULT_FACE",
    "EYE_PARAMETERS",
    "FACE_HEIGHT",
    "FACE_PARAMETERS",
    "FACE_WIDTH",
    "NOMINAL_EYE_HEIGHT",
    "NOMINAL_EYE_WIDTH",
    "NUM_PARAMETERS",
    "EyeParams",
    "FaceParams",
    "FaceParamsError",
    "blink",
    "interpolate",
    "look",
    "random_saccade",
    "render",
    "saccade",
    "to_display",
]

FACE_WIDTH = 128
FACE_HEIGHT = 64
#: Nominal eye size in pixels at 128 x 64 (the renderer scales it with the canvas).
NOMINAL_EYE_WIDTH = 28.0
NOMINAL_EYE_HEIGHT = 40.0
#: Each eye's nominal centre sits this fraction of the width left/right of the middle.
NOMINAL_EYE_OFFSET = 1.0 / 5.0

FACE_PARAMETERS = ("center_x", "center_y", "scale_x", "scale_y", "angle")
EYE_PARAMETERS = CLIP_EYE_PARAMETERS  # the one list, in .bin order
NUM_EYE_PARAMETERS = len(EYE_PARAMETERS)
NUM_PARAMETERS = len(FACE_PARAMETERS) + 2 * NUM_EYE_PARAMETERS  # 43

# The engine's limits for the parameters it clamps; the renderer applies them, storage does not.
_MAX_LID_ANGLE = 45.0
# Sanity bounds the renderer applies so absurd values cannot overflow its fixed-point geometry.
_MAX_SCALE = 50.0
_MAX_OFFSET = 1000.0
_EYE_VALUES = operator.attrgetter(*EYE_PARAMETERS)
_FACE_VALUES = operator.attrgetter(*FACE_PARAMETERS)


class FaceParamsError(ValueError):
    """Procedural face parameters of the wrong count or with non-numeric / non-finite values."""


@fast_init
@dataclass(frozen=True, slots=True)
class EyeParams:
    """The nineteen parameters of one eye (see the module docstring for units and meaning)."""

    center_x: float = 0.0
    center_y: float = 0.0
    scale_x: float = 1.0
    scale_y: float = 1.0
    angle: float = 0.0
    lower_inner_radius_x: float = 0.5
    lower_inner_radius_y: float = 0.5
    upper_inner_radius_x: float = 0.5
    upper_inner_radius_y: float = 0.5
    upper_outer_radius_x: float = 0.5
    upper_outer_radius_y: float = 0.5
    lower_outer_radius_x: float = 0.5
    lower_outer_radius_y: float = 0.5
    upper_lid_y: float = 0.0
    upper_lid_angle: float = 0.0
    upper_lid_bend: float = 0.0
    lower_lid_y: float = 0.0
    lower_lid_angle: float = 0.0
    lower_lid_bend: float = 0.0

    def to_list(self) -> list[float]:
        """The nineteen values in file order."""
        return [float(v) for v in _EYE_VALUES(self)]

    @classmethod
    def from_list(cls, values: Sequence[float], *, source: str = "eye parameters") -> EyeParams:
        """Build from nineteen numbers in file order; ``source`` names the data in errors."""
        checked = _check_values(values, NUM_EYE_PARAMETERS, source, EYE_PARAMETERS)
        return cls(*checked)

    def replace(self, **changes: float) -> EyeParams:
        """A copy with some parameters changed."""
        return dataclasses.replace(self, **changes)


DEFAULT_EYE = EyeParams()


@fast_init
@dataclass(frozen=True, slots=True)
class FaceParams:
    """A whole procedural face: five face parameters and two eyes. Immutable and hashable, so it
    can key a render cache and be shared between threads and robots."""

    center_x: float = 0.0
    center_y: float = 0.0
    scale_x: float = 1.0
    scale_y: float = 1.0
    angle: float = 0.0
    left_eye: EyeParams = DEFAULT_EYE
    right_eye: EyeParams = DEFAULT_EYE

    def to_list(self) -> list[float]:
        """The 43 values: face centre x/y, scale x/y, angle, then the left and right eye's 19."""
        return [float(v) for v in (*_FACE_VALUES(self), *_EYE_VALUES(self.left_eye), *_EYE_VALUES(self.right_eye))]

    def to_array(self) -> np.ndarray:
        """The 43 values as a float64 array (for blending many faces with numpy)."""
        return np.array(self.to_list(), dtype=np.float64)

    @classmethod
    def from_list(cls, values: Sequence[float], *, source: str = "face parameters") -> FaceParams:
        """Build from the 43-value form; ``source`` names the data (file, keyframe) in errors."""
        names = (
            FACE_PARAMETERS
            + tuple(f"left_eye.{n}" for n in EYE_PARAMETERS)
            + tuple(f"right_eye.{n}" for n in EYE_PARAMETERS)
        )
        v = _check_values(values, NUM_PARAMETERS, source, names)
        return cls._from_checked(v)

    @classmethod
    def from_array(cls, values: np.ndarray, *, source: str = "face parameters") -> FaceParams:
        """Build from a 43-element numpy array (same layout as :meth:`to_list`)."""
        arr = np.asarray(values, dtype=np.float64).reshape(-1)
        if arr.size != NUM_PARAMETERS:
            raise FaceParamsError(f"{source}: expected {NUM_PARAMETERS} values, got {arr.size}")
        if not np.all(np.isfinite(arr)):
            bad = int(np.flatnonzero(~np.isfinite(arr))[0])
            raise FaceParamsError(f"{source}: value {bad} is {arr[bad]}, expected a finite number")
        return cls._from_checked(arr.tolist())

    @classmethod
    def from_eye_arrays(
        cls,
        left_eye: Sequence[float],
        right_eye: Sequence[float],
        *,
        angle: float = 0.0,
        center_x: float = 0.0,
        center_y: float = 0.0,
        scale_x: float = 1.0,
        scale_y: float = 1.0,
        source: str = "ProceduralFace keyframe",
    ) -> FaceParams:
        """Build from a clip keyframe's fields (``leftEye``/``rightEye`` arrays plus face values)."""
        head = _check_values(
            [center_x, center_y, scale_x, scale_y, angle], len(FACE_PARAMETERS), source, FACE_PARAMETERS
        )
        return cls._assemble(
            head,
            EyeParams.from_list(left_eye, source=f"{source}: leftEye"),
            EyeParams.from_list(right_eye, source=f"{source}: rightEye"),
        )

    @classmethod
    def _from_checked(cls, v: Sequence[float]) -> FaceParams:
        n = len(FACE_PARAMETERS)
        m = n + NUM_EYE_PARAMETERS
        return cls._assemble(v[:n], EyeParams(*v[n:m]), EyeParams(*v[m:]))

    @classmethod
    def _assemble(cls, face: Sequence[float], left_eye: EyeParams, right_eye: EyeParams) -> FaceParams:
        """From the five checked face values (in ``FACE_PARAMETERS`` order) and two eyes."""
        center_x, center_y, scale_x, scale_y, angle = face
        return cls(center_x, center_y, scale_x, scale_y, angle, left_eye, right_eye)

    def replace(self, **changes: Any) -> FaceParams:
        """A copy with some face-level fields (or whole eyes) changed."""
        return dataclasses.replace(self, **changes)

    def replace_eyes(self, **changes: float) -> FaceParams:
        """A copy with the same eye parameters changed on both eyes."""
        return dataclasses.replace(
            self, left_eye=self.left_eye.replace(**changes), right_eye=self.right_eye.replace(**changes)
        )


DEFAULT_FACE = FaceParams()


def _check_values(values: Sequence[float], count: int, source: str, names: Sequence[str]) -> list[float]:
    try:
        n = len(values)
    except TypeError:
        raise FaceParamsError(f"{source}: expected a list of {count} numbers, got {type(values).__name__}") from None
    if n != count:
        raise FaceParamsError(f"{source}: expected {count} values, got {n}")
    out: list[float] = []
    for i, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise FaceParamsError(f"{source}: {names[i]} (value {i}) is {value!r}, expected a number")
        f = float(value)
        if not math.isfinite(f):
            raise FaceParamsError(f"{source}: {names[i]} (value {i}) is {f}, expected a finite number")
        out.append(f)
    return out


# ---------------------------------------------------------------------------------------------
# Blending, blinks and gaze


def interpolate(a: FaceParams, b: FaceParams, t: float) -> FaceParams:
    """Linear blend of every parameter: ``a`` at t = 0, ``b`` at t = 1.

    ``t`` is not clamped, so eased curves that overshoot (e.g. a bounce) extrapolate naturally.
    """
    if t == 0.0:
        return a
    if t == 1.0:
        return b
    t = float(t)
    # Plain floats: for 43 numbers this is several times faster than going through numpy.
    return FaceParams._from_checked([x + (y - x) * t for x, y in zip(a.to_list(), b.to_list(), strict=True)])


def _closure(face: FaceParams, c: float) -> FaceParams:
    """``face`` with its eyes closed by fraction ``c`` (0 open, 1 shut to a thin line)."""
    if c <= 0.0:
        return face
    mid_y = 0.5 * (face.left_eye.center_y + face.right_eye.center_y)
    keep = 1.0 - c**3  # lids stay until the eye is nearly shut, then vanish for a clean line

    def close(eye: EyeParams) -> EyeParams:
        return eye.replace(
            scale_y=eye.scale_y * (1.0 - 0.93 * c),
            scale_x=eye.scale_x * (1.0 + 0.3 * c * c),
            center_y=eye.center_y + (mid_y - eye.center_y) * c,
            upper_lid_y=eye.upper_lid_y * keep,
            upper_lid_bend=eye.upper_lid_bend * keep,
            lower_lid_y=eye.lower_lid_y * keep,
            lower_lid_bend=eye.lower_lid_bend * keep,
        )

    return face.replace(left_eye=close(face.left_eye), right_eye=close(face.right_eye))


def blink(face: FaceParams, *, fps: float = 30.0, duration: float = 0.25) -> list[FaceParams]:
    """The frames of one blink starting from ``face`` (which is showing now).

    The eyes close quickly (about a third of the time), stay shut for one frame, open a little
    more slowly, and the last frame is ``face`` again. Lids fade out as the eyes close so the shut
    eye is a clean horizontal line, and both eyes close at their mean height.
    """
    n = max(3, int(round(duration * fps)))
    closing = max(1, int(round(n * 0.35)))
    opening = max(1, n - closing - 1)
    amounts = [((k / closing) ** 1.5) for k in range(1, closing + 1)]
    amounts += [1.0]
    amounts += [1.0 - (k / opening) ** 0.8 for k in range(1, opening)]
    frames = [_closure(face, c) for c in amounts]
    frames.append(face)
    return frames


def look(face: FaceParams, dx: float, dy: float, *, max_offset: float = 30.0) -> FaceParams:
    """``face`` looking towards (dx, dy) pixels from centre: the face shifts, and the eye on the
    side it looks to grows a little while the other shrinks, for a hint of perspective."""
    k = max(-1.0, min(1.0, dx / max_offset)) if max_offset > 0 else 0.0
    near, far = 1.0 + 0.12 * abs(k), 1.0 - 0.08 * abs(k)
    left_gain, right_gain = (near, far) if k < 0 else (far, near)
    return face.replace(
        center_x=face.center_x + dx,
        center_y=face.center_y + dy,
        left_eye=face.left_eye.replace(
            scale_x=face.left_eye.scale_x * left_gain, scale_y=face.left_eye.scale_y * left_gain
        ),
        right_eye=face.right_eye.replace(
            scale_x=face.right_eye.scale_x * right_gain, scale_y=face.right_eye.scale_y * right_gain
        ),
    )


def saccade(start: FaceParams, target: FaceParams, *, frames: int = 3) -> list[FaceParams]:
    """A quick eye movement from ``start`` to ``target`` (usually from :func:`look`): ``frames``
    frames that cover most of the way at once and settle (ease-out), ending exactly on target."""
    if frames < 1:
        raise ValueError(f"a saccade needs at least 1 frame, got {frames}")
    return [interpolate(start, target, 1.0 - (1.0 - k / frames) ** 3) for k in range(1, frames + 1)]


def random_saccade(
    face: FaceParams,
    rng: random.Random,
    *,
    max_dx: float = 10.0,
    max_dy: float = 6.0,
    frames: int = 3,
) -> list[FaceParams]:
    """A saccade from ``face`` to a random nearby gaze (the idle "looking around" of the eyes).

    The caller owns ``rng`` so runs are reproducible and robots do not share random state.
    """
    target = look(face, rng.uniform(-max_dx, max_dx), rng.uniform(-max_dy, max_dy))
    return saccade(face, target, frames=frames)


# ---------------------------------------------------------------------------------------------
# Rendering

_SHIFT = 4  # fixed-point fraction bits of the polygon vertices: 1/16 pixel precision
_ONE = float(1 << _SHIFT)
_ARC_STEPS = 7  # segments per rounded corner
_BEND_STEPS = 12  # segments per lid bend


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _unit_arc(start_deg: float, steps: int, span: float = 90.0) -> np.ndarray:
    t = np.radians(start_deg + np.linspace(0.0, span, steps + 1))
    return np.stack((np.cos(t), np.sin(t)), axis=1)


# Both eyes' polygons are one linear map of a few numbers per eye (corner radii, lid edge
# heights, slopes and bend extents): points = K @ _GEOMETRY, with K the (2, 17) coefficient rows
# built by _coefficients() and _GEOMETRY a constant (17, 66 * 2) matrix. That keeps rendering
# to a handful of numpy calls per frame.
#
# Outline (32 points): the corners clockwise on screen in eye coordinates (x towards the inner
# side, y down): upper inner, lower inner, lower outer, upper outer. Each corner is a quarter
# ellipse around sign * (half size - radius); with the signs S and unit arc A of a corner, its
# points are S * half + (A - S) * radius.
#
# Lids (17 points each, upper then lower): the edge at the outer end, two far corners beyond the
# eye, the edge at the inner end, then the bend: a half ellipse from the inner end back to the
# outer end, bulging into the eye. The edge passes through (0, edge) with the given slope
# (positive lowers the inner end); the bend, a half ellipse of radii (hw / cos, bend) turned by
# the lid angle, ends exactly on the edge.
_OUTLINE_POINTS = 4 * (_ARC_STEPS + 1)
_LID_POINTS = 4 + _BEND_STEPS + 1
_EYE_POINTS = _OUTLINE_POINTS + 2 * _LID_POINTS
# A polygon fill lights every pixel whose centre lies on or within about half a pixel of the
# polygon, so a shape spanning N pixel-centre distances covers N + 1 pixels: the nominal 28 x 40
# eye is a polygon 27 x 39 wide between the centres of its outermost pixels.
_HW, _HH = 0.5 * (NOMINAL_EYE_WIDTH - 1.0), 0.5 * (NOMINAL_EYE_HEIGHT - 1.0)
_LID_MARGIN = _HW + 2.0  # lids reach past the eye's sides
#: Eye file indices of the (x, y) radius pairs, in outline corner order.
_CORNER_RADIUS_INDEX = (7, 5, 11, 9)


def _build_geometry() -> np.ndarray:
    g = np.zeros((17, _EYE_POINTS, 2))
    signs = ((1.0, -1.0), (1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0))
    for q, (start, (sx, sy)) in enumerate(zip((270.0, 0.0, 90.0, 180.0), signs, strict=True)):
        arc = _unit_arc(start, _ARC_STEPS)
        rows = slice(q * (_ARC_STEPS + 1), (q + 1) * (_ARC_STEPS + 1))
        g[0, rows] = (sx * _HW, sy * _HH)
        g[1 + 2 * q, rows, 0] = arc[:, 0] - sx
        g[2 + 2 * q, rows, 1] = arc[:, 1] - sy
    theta = np.radians(np.linspace(0.0, 180.0, _BEND_STEPS + 1))
    u = np.cos(theta)
    for lid, sign in enumerate((1.0, -1.0)):  # upper bulges down (+y), lower up
        r = 9 + 4 * lid  # rows: edge, slope, bend * sin(angle), bend * cos(angle)
        o = _OUTLINE_POINTS + lid * _LID_POINTS
        far = -sign * 4.0 * _HH
        v = sign * np.sin(theta)
        m = _LID_MARGIN
        g[0, o : o + 4, 0] = (-m, -m, m, m)
        g[0, o + 1 : o + 3, 1] = far
        g[r, (o, o + 3), 1] = 1.0
        g[r + 1, o, 1] = -m
        g[r + 1, o + 3, 1] = m
        lid_arc = slice(o + 4, o + _LID_POINTS)
        g[0, lid_arc, 0] = _HW * u
        g[r + 2, lid_arc, 0] = -v
        g[r, lid_arc, 1] = 1.0
        g[r + 1, lid_arc, 1] = _HW * u
        g[r + 3, lid_arc, 1] = v
    return _readonly(g.reshape(17, -1))


_GEOMETRY = _build_geometry()


def _coefficients(v: tuple[float, ...]) -> list[float]:
    """One eye's row of K (see _GEOMETRY) from its 19 parameters, applying the engine's limits."""
    k = [1.0]
    for i in _CORNER_RADIUS_INDEX:
        k.append(_clamp(v[i], 0.0, 1.0) * _HW)
        k.append(_clamp(v[i + 1], 0.0, 1.0) * _HH)
    for i, sign in ((13, 1.0), (16, -1.0)):
        depth = _clamp(v[i], 0.0, 1.0) * 2.0 * _HH
        angle = _clamp(v[i + 1], -_MAX_LID_ANGLE, _MAX_LID_ANGLE)
        bend = _clamp(v[i + 2], 0.0, 1.0) * 2.0 * _HH
        if depth <= 0.0 and bend <= 0.0 and angle == 0.0:
            k += [-sign * 3.0 * _HH, 0.0, 0.0, 0.0]  # covers nothing: park it outside the eye
            continue
        rad = math.radians(angle)
        k += [sign * (depth - _HH), math.tan(rad), bend * math.sin(rad), bend * math.cos(rad)]
    return k


def _clamp(v: float, lo: float, hi: float) -> float:
    return lo if v < lo else hi if v > hi else v


def _mat(angle_deg: float, sx: float, sy: float) -> tuple[float, float, float, float]:
    """Row-major 2x2: scale first, then rotate (positive angle turns counter-clockwise on screen)."""
    if angle_deg == 0.0:
        return sx, 0.0, 0.0, sy
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    return sx * c, sy * s, -sx * s, sy * c


def _eye_transforms(face: FaceParams, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Per eye, (M, t) such that output pixel = p @ M + t for a point p in eye coordinates.

    p -> face (eye p + eye centre - screen middle) + screen middle + face centre, scaled to the
    output size. Pixel centres sit at integer coordinates while the geometry's pixel edges are at
    integers, hence the final half-pixel shift.
    """
    fa, fb, fc, fd = _mat(face.angle, _clamp(face.scale_x, 0.0, _MAX_SCALE), _clamp(face.scale_y, 0.0, _MAX_SCALE))
    kx, ky = width / FACE_WIDTH, height / FACE_HEIGHT
    mats = []
    shifts = []
    for which, eye in ((0, face.left_eye), (1, face.right_eye)):
        mirror = 1.0 if which == 0 else -1.0
        ea, eb, ec, ed = _mat(
            eye.angle, mirror * _clamp(eye.scale_x, 0.0, _MAX_SCALE), _clamp(eye.scale_y, 0.0, _MAX_SCALE)
        )
        # composite = face_m @ eye_m; the row-vector form needs its transpose.
        a, b = fa * ea + fb * ec, fa * eb + fb * ed
        c, d = fc * ea + fd * ec, fc * eb + fd * ed
        mats.append(((a * kx, c * ky), (b * kx, d * ky)))
        dx = FACE_WIDTH * (-NOMINAL_EYE_OFFSET if which == 0 else NOMINAL_EYE_OFFSET)
        dx += _clamp(eye.center_x, -_MAX_OFFSET, _MAX_OFFSET)
        dy = _clamp(eye.center_y, -_MAX_OFFSET, _MAX_OFFSET)
        tx = fa * dx + fb * dy + 0.5 * FACE_WIDTH + _clamp(face.center_x, -_MAX_OFFSET, _MAX_OFFSET)
        ty = fc * dx + fd * dy + 0.5 * FACE_HEIGHT + _clamp(face.center_y, -_MAX_OFFSET, _MAX_OFFSET)
        shifts.append((tx * kx - 0.5, ty * ky - 0.5))
    return np.array(mats), np.array(shifts)


def render(face: FaceParams, width: int = FACE_WIDTH, height: int = FACE_HEIGHT,
           backend: Backend | None = None) -> np.ndarray:
    """Draw ``face`` as a (height, width) uint8 image, 0 (dark) or 255 (lit).

    The geometry is defined on the 128 x 64 screen and scaled to ``width`` x ``height``. Values
    beyond the engine's limits are clamped (radii, lid depth and bend to 0..1, lid angles to
    +-45 degrees; scales to 0..50 and offsets to +-1000 px as a safety net). Each eye
    is drawn inside its own bounding box (outline filled, lids cut out, all polygons clipped to
    that box) and the two eyes are ORed into the canvas, so one eye's lids never cut the other
    eye where the boxes overlap. ``backend`` chooses the polygon fill (see
    :func:`driver.animation.raster.polygon_masks`: None uses the compiled code where it was built,
    which then draws the eyes whole, else OpenCV where it is loaded already); the pixels are the
    same either way.
    """
    if width <= 0 or height <= 0:
        raise ValueError(f"render size must be positive, got {width}x{height}")
    canvas = np.zeros((height, width), dtype=np.uint8)
    k = np.array((_coefficients(_EYE_VALUES(face.left_eye)), _coefficients(_EYE_VALUES(face.right_eye))))
    mats, shifts = _eye_transforms(face, width, height)
    # np.dot rather than @: the same product (one BLAS call) without the matmul ufunc's overhead
    pts = np.matmul(np.dot(k, _GEOMETRY).reshape(2, _EYE_POINTS, 2), mats) + shifts[:, None, :]
    if not _draw_eyes(canvas, pts, backend):
        raise FaceParamsError(f"cannot render a face with non-finite parameters: {face.to_list()}")
    return canvas


def _draw_eyes(canvas: np.ndarray, pts: np.ndarray, backend: Backend | None = None) -> bool:
    """Draw both placed eyes (``pts``: (2, points, 2) canvas pixels) into ``canvas``; False, with
    nothing drawn, when a point is not finite.

    Per eye: the vertices in fixed point (numpy's rint: halves to even), its box (the outline's
    floor .. ceil + 1, within the canvas), the outline filled and both lids filled together inside
    the box, and the canvas lit where the outline is and the lids are not. The compiled code
    (``driver/animation/_compiled.c``) does these steps where it was built, to the same pixels.
    """
    if _compiled is not None and backend in (None, "compiled"):
        return _compiled.draw_eyes(canvas, pts, _OUTLINE_POINTS, _LID_POINTS, _SHIFT)
    if not math.isfinite(float(pts.sum())):
        return False
    height, width = canvas.shape
    outline = pts[:, :_OUTLINE_POINTS]
    fixed = np.rint(pts * _ONE).astype(np.int32)
    eyes = []
    lows, highs = np.minimum.reduce(outline, axis=1).tolist(), np.maximum.reduce(outline, axis=1).tolist()
    for which, (lo, hi) in enumerate(zip(lows, highs, strict=True)):
        x0, y0 = max(math.floor(lo[0]), 0), max(math.floor(lo[1]), 0)
        x1, y1 = min(math.ceil(hi[0]) + 1, width), min(math.ceil(hi[1]) + 1, height)
        if x0 < x1 and y0 < y1:  # else off screen or scaled to nothing
            eyes.append((which, (x0, y0), (x1, y1)))
    upper = slice(_OUTLINE_POINTS, _OUTLINE_POINTS + _LID_POINTS)
    lower = slice(_OUTLINE_POINTS + _LID_POINTS, _OUTLINE_POINTS + 2 * _LID_POINTS)
    jobs = []
    for which, (x0, y0), (x1, y1) in eyes:
        poly = fixed[which]
        origin = (-x0 << _SHIFT, -y0 << _SHIFT)  # the fill's offset is in fixed-point units
        jobs.append(([poly[:_OUTLINE_POINTS]], origin, (y1 - y0, x1 - x0)))
        jobs.append(([poly[upper], poly[lower]], origin, (y1 - y0, x1 - x0)))
    masks = polygon_masks(jobs, _SHIFT, backend)
    for j, (_, (x0, y0), (x1, y1)) in enumerate(eyes):
        h, w = y1 - y0, x1 - x0
        # The eye inside its box: the outline filled, the lids cut out of it. Eyes are ORed, so
        # where the boxes overlap one eye's lids never cut the other eye.
        canvas[y0:y1, x0:x1][masks[2 * j, :h, :w] & ~masks[2 * j + 1, :h, :w]] = 255
    return True


def to_display(image: np.ndarray, row_offset: int = 0) -> np.ndarray:
    """Reduce a 64-row render to the (32, 128) boolean picture the display stream carries.

    The robot lights only every other physical row, so one of the two row sets of the render is
    sent: ``row_offset=0`` keeps rows 0, 2, ..., 62 (what PyCozmo sends) and ``row_offset=1``
    keeps rows 1, 3, ..., 63. The app's engine swaps the row set now and then (at a blink) so
    the same OLED rows are not always the lit ones; alternate ``row_offset`` to do the same.
    Pixels >= 128 are lit.
    """
    arr = np.asarray(image)
    if arr.shape != (2 * display.DISPLAY_HEIGHT, display.DISPLAY_WIDTH):
        raise ValueError(
            f"to_display expects a ({2 * display.DISPLAY_HEIGHT}, {display.DISPLAY_WIDTH}) image, got {arr.shape}"
        )
    if row_offset not in (0, 1):
        raise ValueError(f"row_offset must be 0 or 1, got {row_offset!r}")
    rows = arr[row_offset::2]
    return rows if rows.dtype == bool else rows >= 128
