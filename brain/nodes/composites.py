"""The sequence and selector the project's trees are built of: py_trees' own, stopped more cheaply.

They tick exactly as py_trees' :class:`~py_trees.composites.Sequence` and
:class:`~py_trees.composites.Selector` do (they are those classes); only ``stop`` skips the debug
line py_trees formats on every stop, wanted or not. A tree of the default personality stops a
dozen composites on most beats (every lower-priority branch a selector passes over), so those
lines cost more than the stopping itself.
"""

from __future__ import annotations

from py_trees import composites
from py_trees.common import Status

__all__ = ["Selector", "Sequence"]


class Sequence(composites.Sequence):
    """py_trees' sequence (see the module docstring)."""

    def stop(self, new_status: Status = Status.INVALID) -> None:
        composites.Composite.stop(self, new_status)


class Selector(composites.Selector):
    """py_trees' selector (see the module docstring)."""

    def stop(self, new_status: Status = Status.INVALID) -> None:
        composites.Composite.stop(self, new_status)
