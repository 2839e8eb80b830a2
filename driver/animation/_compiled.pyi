"""Types of the face's compiled polygon fill and display encoder (driver/animation/_compiled.c)."""

from collections.abc import Sequence
from typing import Any

# The arguments are buffers (numpy arrays): C-contiguous one-byte pixels for `out`, (N, 2) int32
# or int64 for each polygon, a (32, 128) picture of one-byte pixels, any strides, for `encode`.

def fill(out: Any, stride: int, height: int, width: int, polygons: Sequence[Any], shift: int,
         offset_x: int, offset_y: int) -> None: ...

def encode(picture: Any) -> bytes: ...
