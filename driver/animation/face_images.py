"""Which face image the robot needs in a frame, and what it was last sent.

The robot keeps showing the last image it got, so an image goes out only when it changed, or
when the screen is due a refresh (it blanks after 30 s without one). Procedural faces are
rendered through a :class:`~driver.animation.face.FaceRenderer` (cached), and a face held from
frame to frame reuses its bytes without even a cache lookup: hashing a face costs more than the
rest of such a frame.
"""

from __future__ import annotations

import math
import time

from .face import FaceParams, FaceRenderer
from .stats import ControllerStats

__all__ = ["FaceImages"]


class FaceImages:
    """The face images of one animation stream: ``needed`` each frame, ``shown`` once sent."""

    def __init__(self, face: FaceParams, stats: ControllerStats) -> None:
        self.renderer = FaceRenderer()
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
