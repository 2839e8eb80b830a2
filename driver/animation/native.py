"""The package's compiled code (``driver/animation/_compiled.c``), or None where it was not built.

The face's polygon fill, its drawing of two placed eyes and the display encoder are written in C
as well as with numpy: built on install where a C compiler is at hand (``setup.py``), the C does
the same work in a few microseconds instead of a few hundred. Every user asks here, once, so a
package built without a compiler (or a test that hides the module) falls back everywhere alike.
"""

from __future__ import annotations

try:
    from . import _compiled as compiled
except ImportError:  # built without a C compiler: numpy does the work
    compiled = None  # type: ignore[assignment]

__all__ = ["compiled"]
