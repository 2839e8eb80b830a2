"""Which face image the robot needs in a frame, what it was last sent, and the cached renderer.

The robot keeps showing the last image it got, so an image goes out only when it changed, or
when the screen is due a refresh (it blanks after 30 s without one). Procedural faces are
rendered through a :class:`FaceRenderer` (cached), and a face held from
frame to frame reuses its bytes without even a cache lookup: hashing a face costs more than the
rest of such a frame.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from typing import Any

import numpy as np

from . import display
from .face import FACE_HEIGHT, FACE_WIDTH, FaceParams, render, to_display
from .stats import ControllerStats

__all__ = ["FACE_CACHE", "FaceImages", "FaceRenderer"]

#: The faces a renderer keeps by default: about 1.8 MB with their keys. An hour of the default
#: personality asks for about 2,900 distinct faces and renders 5,500 times with this many.
FACE_CACHE = 1024


class FaceImages:
    """The face images of one animation stream: ``needed`` each frame, ``shown`` once sent."""

    def __init__(self, face: FaceParams, stats: ControllerStats, cache_size: int = FACE_CACHE) -> None:
        self.renderer = FaceRenderer(cache_size=cache_size)
        #: the procedural face rendered last (a clip blends from it when it starts)
        self.face = face
        #: the image the robot was sent last (None: it needs one afresh) and the frame time it went
        self.last: bytes | None = None
        self.last_at = -math.inf
        self._stats = stats
        self._row = -1
        self._data: bytes | None = None

    def needed(self, face: FaceParams | bytes, row_offset: int, now: float, refresh_s: float) -> bytes | None:
        """The display bytes of ``face`` (lit rows ``row_offset``) if the robot needs them in the
        frame of time ``now`` (changed, or ``refresh_s`` since the last image), else None."""
        if isinstance(face, FaceParams):
            if face is self.face and row_offset == self._row and self._data is not None:
                data = self._data  # a held face
            else:
                t = time.perf_counter()
                data = self.renderer.display_bytes(face, row_offset)
                self._stats.max_render_ms = max(self._stats.max_render_ms, (time.perf_counter() - t) * 1000.0)
                self.face, self._row, self._data = face, row_offset, data
        else:
            data = bytes(face)
        if data != self.last or now - self.last_at >= refresh_s:
            return data
        return None

    def shown(self, data: bytes, now: float) -> None:
        """``data`` went out in the frame of time ``now``."""
        self.last, self.last_at = data, now
        self._stats.images_sent += 1


class FaceRenderer:
    """Renders faces (and their DisplayImage bytes) with caches of recent faces.

    A robot holds one: held expressions, repeated keyframes and the idle face's recurring blinks
    and glances then cost a dictionary lookup. The encoded bytes of ``cache_size`` faces are kept
    (both row sets of each, a few hundred bytes apiece: the controller swaps the row set at a
    blink, and nearly half the faces it shows come back with the other set, so one render
    serves both), and ``image_cache_size`` images (8 KB each). Instances share nothing, so two
    robots in one process do not interfere.
    ``width``/``height`` apply to :meth:`render` (e.g. a larger preview); :meth:`display_bytes`
    always renders the robot's 128 x 64.
    """

    def __init__(self, width: int = FACE_WIDTH, height: int = FACE_HEIGHT, cache_size: int = FACE_CACHE,
                 image_cache_size: int = 64) -> None:
        self.width = width
        self.height = height
        self.cache_size = cache_size
        self.image_cache_size = image_cache_size
        self._images: OrderedDict[FaceParams, np.ndarray] = OrderedDict()
        self._encoded: OrderedDict[FaceParams, tuple[bytes, bytes]] = OrderedDict()

    def render(self, face: FaceParams) -> np.ndarray:
        """The rendered image of ``face`` (read-only; copy it before drawing on it)."""
        img = self._images.get(face)
        if img is not None:
            self._images.move_to_end(face)
            return img
        img = render(face, self.width, self.height)
        img.setflags(write=False)
        self._remember(self._images, face, img, self.image_cache_size)
        return img

    def display_bytes(self, face: FaceParams, row_offset: int = 0) -> bytes:
        """``face`` rendered, reduced to 128 x 32 and run-length encoded for DisplayImage."""
        if row_offset not in (0, 1):
            raise ValueError(f"row_offset must be 0 or 1, got {row_offset!r}")
        both = self._encoded.get(face)
        if both is not None:
            self._encoded.move_to_end(face)
            return both[row_offset]
        img = render(face, FACE_WIDTH, FACE_HEIGHT)
        both = (display.encode(to_display(img, 0)), display.encode(to_display(img, 1)))
        self._remember(self._encoded, face, both, self.cache_size)
        return both[row_offset]

    def _remember(self, cache: OrderedDict[Any, Any], key: Any, value: Any, size: int) -> None:
        cache[key] = value
        while len(cache) > size:
            cache.popitem(last=False)
