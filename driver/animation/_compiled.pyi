"""Types of the face's compiled code (driver/animation/_compiled.c): fill, eyes, display encoder."""

from collections.abc import Sequence
from typing import Any

# The arguments are buffers (numpy arrays): C-contiguous one-byte pixels for `out`, (N, 2) int32
# or int64 for each polygon, a (2, E, 2) float64 `points` and a 2-D uint8 `canvas` for `draw_eyes`,
# a (32, 128) picture of one-byte pixels, any strides, for `encode`.

def fill(out: Any, stride: int, height: int, width: int, polygons: Sequence[Any], shift: int,
         offset_x: int, offset_y: int) -> None: ...

def draw_eyes(canvas: Any, points: Any, outline_points: int, lid_points: int, shift: int) -> bool: ...

def encode(picture: Any) -> bytes: ...
