"""Polygon filling for the procedural face, in numpy: the pixels of closed polygons and their outlines.

Why not a drawing library: OpenCV, which the face renderer used, costs a resident 17 MB just to be
imported, a third of what the whole daemon may use on a small computer, for four polygon fills
per face. This module lights exactly the pixels OpenCV's ``fillPoly(img, polygons, value,
LINE_8, shift, offset)`` lights in a single-channel image (the face's golden images were drawn
that way, and the tests compare every expression with them pixel for pixel):

1. Vertices are fixed-point numbers with ``shift`` fraction bits; each is rounded to the nearest
   pixel (halves up) after adding ``offset``.
2. Every edge is drawn as an 8-connected line between its rounded ends, walked from its left end,
   so the outline is always lit: that is why a polygon lights the pixels whose centres lie within
   about half a pixel of it.
3. The inside is filled row by row with the even-odd rule: on row ``y`` the edges that span it
   (``y0 <= y < y1``) cross it at ``x`` (16.16 fixed point, stepped by the edge's slope rounded
   towards zero); sorted, the crossings pair up, and each pair sets the pixels from ``ceil(x)``
   of its first to ``floor(x)`` of its second. All polygons of one call share one edge list, so
   where they overlap they cancel.
4. An edge that leaves the image is clipped to it (Cohen-Sutherland on the integer ends, the
   moved coordinate interpolated in double precision and truncated) before it is drawn, and the
   slope it gets for the fill comes from the clipped ends.

The work is a few dozen numpy calls per fill on arrays of a few hundred elements, whatever the
polygon's size; only the edges that leave the image are clipped one by one: about 0.2 ms a face.

Two faster fills light the same pixels. The package's compiled fill (``driver/animation/_compiled.c``,
built on install where a C compiler is at hand) does a face's fills in a few microseconds and is
used wherever it was built. Without it, where OpenCV is loaded already (the vision pipeline and
the simulator's camera load it, so a daemon with its camera on always has it) its ``fillPoly``
does them, in about a tenth of numpy's time; OpenCV is never imported for the face.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from .native import compiled as _compiled

__all__ = ["Backend", "fill_backend", "fill_polygons", "polygon_masks"]

#: How the fills can be done: with numpy (always there), the package's compiled fill (where it was
#: built) or OpenCV (when it is loaded already).
Backend = Literal["numpy", "compiled", "opencv"]

Jobs = Sequence[tuple[Sequence[np.ndarray], tuple[int, int], tuple[int, int]]]

_XY_SHIFT = 16
_XY_ONE = 1 << _XY_SHIFT


def _clip(x1: int, y1: int, x2: int, y2: int, right: int, bottom: int) -> tuple[int, int, int, int, bool]:
    """Clip one segment to the image ``[0, right] x [0, bottom]``: (x1, y1, x2, y2, visible).

    An end outside is moved along the segment onto the border, first onto row 0 or the last row,
    then, if still outside, onto column 0 or the last column. Ends are moved even when the result
    is not visible (the fill uses them as they are then).
    """
    c1 = (x1 < 0) + (x1 > right) * 2 + (y1 < 0) * 4 + (y1 > bottom) * 8
    c2 = (x2 < 0) + (x2 > right) * 2 + (y2 < 0) * 4 + (y2 > bottom) * 8
    if (c1 & c2) == 0 and (c1 | c2) != 0:
        if c1 & 12:
            a = 0 if c1 < 8 else bottom
            x1 += int(float(a - y1) * (x2 - x1) / (y2 - y1))
            y1 = a
            c1 = (x1 < 0) + (x1 > right) * 2
        if c2 & 12:
            a = 0 if c2 < 8 else bottom
            x2 += int(float(a - y2) * (x2 - x1) / (y2 - y1))
            y2 = a
            c2 = (x2 < 0) + (x2 > right) * 2
        if (c1 & c2) == 0 and (c1 | c2) != 0:
            if c1:
                a = 0 if c1 == 1 else right
                y1 += int(float(a - x1) * (y2 - y1) / (x2 - x1))
                x1 = a
                c1 = 0
            if c2:
                a = 0 if c2 == 1 else right
                y2 += int(float(a - x2) * (y2 - y1) / (x2 - x1))
                x2 = a
                c2 = 0
    return x1, y1, x2, y2, (c1 | c2) == 0


def _line_pixels(x1: np.ndarray, y1: np.ndarray, x2: np.ndarray,
                 y2: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(xs, ys, line index) of the 8-connected lines between integer ends, each walked from its left end."""
    swap = x2 < x1
    xa = np.where(swap, x2, x1)
    ya = np.where(swap, y2, y1)
    dx = np.abs(x2 - x1)
    dy = np.where(swap, y1 - y2, y2 - y1)
    ady = np.abs(dy)
    vert = ady > dx
    major = np.maximum(ady, dx)
    minor = np.minimum(ady, dx)
    counts = major + 1
    line = np.arange(len(counts)).repeat(counts)
    k = np.arange(len(line)) - (counts.cumsum() - counts).repeat(counts)
    big = major[line]
    # The minor coordinate after k major steps: the error term starts at major - 2 * minor and a
    # minor step is taken whenever it is negative, which gives ceil((2 * minor * k - major) / (2 * major)).
    mk = -((big - 2 * minor[line] * k) // np.maximum(2 * big, 1))
    v = vert[line]
    xs = xa[line] + np.where(v, mk, k)
    ys = ya[line] + np.where(dy[line] < 0, -1, 1) * np.where(v, k, mk)
    return xs, ys, line


@functools.lru_cache(maxsize=16)
def _previous_vertex(runs: tuple[int, ...]) -> np.ndarray:
    """For polygons of ``runs`` vertices stored one after another, each vertex's predecessor (the
    first vertex's is its polygon's last: every polygon closes on itself)."""
    prev = np.arange(-1, sum(runs) - 1)
    start = 0
    for n in runs:
        prev[start] = start + n - 1
        start += n
    prev.setflags(write=False)
    return prev


def fill_backend() -> Backend:
    """The backend :func:`polygon_masks` uses now: ``compiled`` where it was built, else ``opencv``
    once something loaded OpenCV, else ``numpy``."""
    if _compiled is not None:
        return "compiled"
    return "opencv" if _loaded_opencv() is not None else "numpy"


def _loaded_opencv() -> Any:
    cv2 = sys.modules.get("cv2")
    return cv2 if getattr(cv2, "fillPoly", None) is not None else None  # (None while it is being imported)


def polygon_masks(jobs: Jobs, shift: int = 0, backend: Backend | None = None) -> np.ndarray:
    """The pixels each job lights, as one boolean array (jobs, max height, max width).

    A job is ``(polygons, offset, (height, width))``: polygons (each an (N, 2) array of
    fixed-point x, y with ``shift`` fraction bits) filled together into an image of that size,
    ``offset`` (fixed-point units) added to every vertex. Job ``j``'s pixels are
    ``masks[j, :height, :width]`` (the rest of its plane stays False). Doing several jobs in one
    call is what keeps a face cheap: the cost is a number of numpy calls, nearly independent of
    the number of polygons. ``backend`` None picks :func:`fill_backend`; ``compiled`` and ``opencv``
    fall back to numpy where they are missing (not built, not loaded) and for what they cannot
    take (vertices or offsets beyond 64 bits, or for OpenCV 32; shifts beyond 30, or for OpenCV 16).
    """
    if backend in (None, "compiled") and _compiled is not None and 0 <= shift <= _COMPILED_MAX_SHIFT:
        masks = _compiled_masks(jobs, shift)
        if masks is not None:
            return masks
    if backend != "numpy" and 0 <= shift <= _OPENCV_MAX_SHIFT:
        cv2 = _loaded_opencv()
        if cv2 is not None:
            masks = _opencv_masks(cv2, jobs, shift)
            if masks is not None:
                return masks
    return _numpy_masks(jobs, shift)


def _blank_planes(jobs: Jobs, dtype: Any) -> np.ndarray:
    """One blank plane per job, all as large as the largest job: (jobs, max height, max width)."""
    max_h = max((size[0] for _, _, size in jobs), default=0)
    max_w = max((size[1] for _, _, size in jobs), default=0)
    return np.zeros((len(jobs), max(max_h, 0), max(max_w, 0)), dtype=dtype)


def _compiled_masks(jobs: Jobs, shift: int) -> np.ndarray | None:
    """The compiled fills of ``jobs`` (see :func:`polygon_masks`), or None when a vertex or an
    offset does not fit 64 bits."""
    assert _compiled is not None
    masks = _blank_planes(jobs, bool)
    max_w = masks.shape[2]
    for j, (polygons, offset, (height, width)) in enumerate(jobs):
        if height <= 0 or width <= 0:
            continue
        polys = []
        for p in polygons:
            if len(p):
                taken = p if p.dtype in _COMPILED_TYPES and p.flags.c_contiguous else _as_int64(p)
                if taken is None:
                    return None
                polys.append(taken)
        try:
            _compiled.fill(masks[j], max_w, height, width, polys, shift, int(offset[0]), int(offset[1]))
        except OverflowError:
            return None
    return masks


def _as_int64(poly: np.ndarray) -> np.ndarray | None:
    """``poly`` as C-contiguous int64, or None when a vertex does not fit."""
    if poly.dtype.kind in "iu" and poly.dtype.itemsize <= 4:
        return np.ascontiguousarray(poly, dtype=np.int64)
    if any(int(v) < _INT64_MIN or int(v) > _INT64_MAX for v in (poly.min(), poly.max())):
        return None
    return np.ascontiguousarray(poly, dtype=np.int64)


_COMPILED_TYPES = (np.dtype(np.int32), np.dtype(np.int64))
_COMPILED_MAX_SHIFT = 30
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _opencv_masks(cv2: Any, jobs: Jobs, shift: int) -> np.ndarray | None:
    """OpenCV's fills of ``jobs`` (see :func:`polygon_masks`), or None when a vertex or an offset
    does not fit the 32 bits OpenCV takes."""
    planes = _blank_planes(jobs, np.uint8)
    for j, (polygons, offset, (height, width)) in enumerate(jobs):
        if height <= 0 or width <= 0:
            continue
        polys = [p for p in polygons if len(p)]
        if not polys:
            continue
        if any(p.dtype != np.int32 for p in polys):
            if any(int(p.min()) < _INT32_MIN or int(p.max()) > _INT32_MAX for p in polys):
                return None
            polys = [p.astype(np.int32) for p in polys]
        polys = [p if p.flags.c_contiguous else np.ascontiguousarray(p) for p in polys]
        if not all(_INT32_MIN <= v <= _INT32_MAX for v in offset):
            return None
        cv2.fillPoly(planes[j, :height, :width], polys, 1, cv2.LINE_8, shift, (int(offset[0]), int(offset[1])))
    return planes.view(bool)


_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1
_OPENCV_MAX_SHIFT = 16  # fillPoly takes 0..16 fraction bits


def _numpy_masks(jobs: Jobs, shift: int) -> np.ndarray:
    """:func:`polygon_masks` with numpy (see the module docstring)."""
    half = (1 << shift) >> 1
    masks = _blank_planes(jobs, bool)
    n_jobs, max_h, max_w = masks.shape
    chunks: list[np.ndarray] = []
    per_polygon: list[tuple[int, int, int, int, int]] = []  # job, x and y offset, last column, last row
    runs: list[int] = []
    for j, (polygons, offset, (height, width)) in enumerate(jobs):
        if height <= 0 or width <= 0:
            continue
        for poly in polygons:
            if len(poly):
                chunks.append(poly)
                runs.append(len(poly))
                per_polygon.append((j, offset[0] + half, offset[1] + half, width - 1, height - 1))
    if not chunks:
        return masks
    job, ox, oy, right, bottom = np.array(per_polygon, dtype=np.int64).repeat(runs, axis=0).T
    pts = np.concatenate(chunks).astype(np.int64, copy=False)
    x1 = (pts[:, 0] + ox) >> shift
    y1 = (pts[:, 1] + oy) >> shift
    prev = _previous_vertex(tuple(runs))
    x0, y0 = x1[prev], y1[prev]
    c1 = (x1 < 0) * 1 + (x1 > right) * 2 + (y1 < 0) * 4 + (y1 > bottom) * 8
    c0 = c1[prev]  # a vertex's predecessor is in its polygon, so it has the same borders
    # Edges wholly on the image are drawn as they are; edges wholly beyond one border are not
    # drawn and keep their ends for the fill; only the rest are clipped, one by one.
    partial = (((c0 & c1) == 0) & ((c0 | c1) != 0)).nonzero()[0]
    drawn = (c0 | c1) == 0
    # px/py: the ends the fill takes its slope from (the clipped ones for edges leaving the image)
    px0, px1, py0, py1 = x0, x1, y0, y1
    if len(partial):
        px0, px1, py0, py1 = px0.copy(), px1.copy(), py0.copy(), py1.copy()
        lx0, ly0, lx1, ly1 = px0.copy(), py0.copy(), px1.copy(), py1.copy()
        ends = np.array((x0, y0, x1, y1, right, bottom))[:, partial].T
        for i, (ax, ay, bx, by, r, b) in zip(partial.tolist(), ends.tolist(), strict=True):
            cx0, cy0, cx1, cy1, visible = _clip(ax, ay, bx, by, r, b)
            lx0[i], ly0[i], lx1[i], ly1[i] = cx0, cy0, cx1, cy1
            drawn[i] = visible
            px0[i], px1[i] = cx0, cx1
            if cy0 != cy1:
                py0[i], py1[i] = cy0, cy1
        xs, ys, line = _line_pixels(lx0[drawn], ly0[drawn], lx1[drawn], ly1[drawn])
    else:
        xs, ys, line = _line_pixels(x0[drawn], y0[drawn], x1[drawn], y1[drawn])
    line_job = job[drawn]
    masks[line_job[line], ys, xs] = True

    # The fill: every edge that is not horizontal, stepped row by row from its upper end.
    if np.count_nonzero(y0 != y1) < 2:
        return masks
    px0, px1 = px0 << _XY_SHIFT, px1 << _XY_SHIFT
    num, den = px1 - px0, py1 - py0
    dx = np.abs(num) // np.maximum(np.abs(den), 1)
    dx = np.where((num < 0) != (den < 0), -dx, dx)  # rounded towards zero
    down = y0 < y1
    top = np.where(down, y0, y1)
    bot = np.where(down, y1, y0)  # horizontal edges: top == bot, no rows
    x_top = np.where(down, px0 + (y0 - py0) * dx, px1 + (y1 - py1) * dx)
    # One crossing per edge and row of its image it spans.
    first = np.maximum(top, 0)
    rows_per = np.maximum(np.minimum(bot, bottom + 1) - first, 0)
    edge = np.arange(len(rows_per)).repeat(rows_per)
    if not len(edge):
        return masks
    row = np.arange(len(edge)) - (rows_per.cumsum() - rows_per).repeat(rows_per) + first[edge]
    cross = x_top[edge] + (row - top[edge]) * dx[edge]
    # Sorted by row, then by x, each row's crossings pair up: (1st, 2nd), (3rd, 4th), ... (a
    # closed polygon crosses every row an even number of times). Each pair lights the pixels
    # from ceil(first) to floor(second), marked as +1 / -1 steps and summed along the row.
    stride = max_w + 1
    line_key = job[edge] * max_h + row
    order = ((line_key << 40) + (cross + (1 << 39))).argsort(kind="stable")
    cross, line_key = cross[order], line_key[order]
    base = line_key[0::2] * stride
    width = (right + 1)[edge[order[0::2]]]
    lo = np.minimum(np.maximum((cross[0::2] + (_XY_ONE - 1)) >> _XY_SHIFT, 0), width) + base
    hi = np.minimum(np.maximum((cross[1::2] >> _XY_SHIFT) + 1, 0), width) + base
    # Every +1 has its -1 in the same row (at the job's width at the latest), so one running sum
    # over all rows at once counts the spans covering each pixel.
    size = n_jobs * max_h * stride
    cover = (np.bincount(lo, minlength=size) - np.bincount(hi, minlength=size)).cumsum()
    masks |= cover.reshape(-1, stride)[:, :max_w].reshape(masks.shape) > 0
    return masks


def fill_polygons(img: np.ndarray, polygons: Sequence[np.ndarray], value: int, shift: int = 0,
                  offset: tuple[int, int] = (0, 0), backend: Backend | None = None) -> None:
    """Fill ``polygons`` (each an (N, 2) array of fixed-point x, y) into ``img`` with ``value``.

    ``img`` is a 2-D uint8 array (a view is drawn into in place); ``shift`` is the number of
    fraction bits of the vertices; ``offset`` (in the same fixed-point units) is added to every
    vertex. See the module docstring for which pixels are set; ``backend`` as for :func:`polygon_masks`.
    """
    height, width = img.shape
    mask = polygon_masks([(polygons, offset, (height, width))], shift, backend)[0]
    img[mask] = value
