"""Piecewise-linear graphs, the curve type Anki's engine data uses everywhere.

Decay curves, repetition penalties, mood score graphs and activity start scorers are all
given in the resource files as lists of ``{"x": .., "y": ..}`` nodes. A :class:`Graph`
turns such a list into a small immutable function: linear interpolation between nodes,
clamped to the first/last ``y`` outside the node range (the engine never extrapolates).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["Graph", "GraphError"]


class GraphError(ValueError):
    """A graph definition is malformed (no nodes, non-numeric, x decreasing)."""


def _number(value: object, what: str) -> float:
    """Return *value* as a finite float, or raise GraphError naming *what*."""
    # bool is an int subclass, but ``true`` in a JSON graph is always a mistake.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise GraphError(f"{what}: expected a number, got {value!r}")
    result = float(value)
    if not math.isfinite(result):
        raise GraphError(f"{what}: expected a finite number, got {value!r}")
    return result


def _prefix(where: str) -> str:
    return f"{where}: " if where else ""


class Graph:
    """An immutable piecewise-linear function of one variable.

    Built from at least one ``(x, y)`` point with non-decreasing ``x``; two points at the same
    ``x`` make a vertical step (Anki's graphs use them), and past the step the later ``y`` holds. Calling the
    graph interpolates linearly; below the first point it returns the first ``y`` and
    above the last point the last ``y``. A single-point graph is a constant.
    """

    __slots__ = ("_xs", "_ys")

    _xs: tuple[float, ...]
    _ys: tuple[float, ...]

    def __init__(self, points: Sequence[tuple[float, float]], *, where: str = "") -> None:
        prefix = _prefix(where)
        try:
            items = list(points)
        except TypeError:
            raise GraphError(f"{prefix}expected a sequence of (x, y) points, got {points!r}") from None
        if not items:
            raise GraphError(f"{prefix}a graph needs at least one point, got none")
        xs: list[float] = []
        ys: list[float] = []
        for i, point in enumerate(items):
            if isinstance(point, (str, bytes)) or not isinstance(point, Sequence) or len(point) != 2:
                raise GraphError(f"{prefix}point {i}: expected an (x, y) pair, got {point!r}")
            x = _number(point[0], f"{prefix}point {i} x")
            y = _number(point[1], f"{prefix}point {i} y")
            if xs and x < xs[-1]:
                raise GraphError(
                    f"{prefix}point {i}: x must not decrease, got x={x:g} after x={xs[-1]:g}"
                )
            xs.append(x)
            ys.append(y)
        object.__setattr__(self, "_xs", tuple(xs))
        object.__setattr__(self, "_ys", tuple(ys))

    @classmethod
    def from_nodes(cls, nodes: list[dict[str, Any]], where: str = "") -> Graph:
        """Build a graph from the resource files' ``[{"x": .., "y": ..}, …]`` node list.

        *where* names the list in its file (e.g. ``"mood_config.json: decayGraphs[1].nodes"``);
        every error message starts with it, so a bad file can be fixed without guessing.
        """
        label = where or "nodes"
        if not isinstance(nodes, list):
            raise GraphError(f"{label}: expected a list of {{\"x\", \"y\"}} nodes, got {nodes!r}")
        if not nodes:
            raise GraphError(f"{label}: a graph needs at least one node, got an empty list")
        points: list[tuple[float, float]] = []
        for i, node in enumerate(nodes):
            item = f"{label}[{i}]"
            if not isinstance(node, dict):
                raise GraphError(f"{item}: expected an object with \"x\" and \"y\", got {node!r}")
            for key in ("x", "y"):
                if key not in node:
                    raise GraphError(f"{item}: missing \"{key}\"")
            x = _number(node["x"], f"{item}.x")
            y = _number(node["y"], f"{item}.y")
            if points and x < points[-1][0]:
                raise GraphError(
                    f"{item}.x: x must not decrease, got {x:g} after {points[-1][0]:g}"
                )
            points.append((x, y))
        return cls(points)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Graph is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Graph is immutable")

    def __call__(self, x: float) -> float:
        """Evaluate at *x*: linear between nodes, clamped to the end values outside them."""
        xs = self._xs
        if x <= xs[0]:
            return self._ys[0]
        if x >= xs[-1]:
            return self._ys[-1]
        i = bisect_right(xs, x)  # xs[i-1] <= x < xs[i]
        x0 = xs[i - 1]
        y0 = self._ys[i - 1]
        return y0 + (self._ys[i] - y0) * (x - x0) / (xs[i] - x0)

    @property
    def points(self) -> tuple[tuple[float, float], ...]:
        """The nodes as ``((x, y), …)``, in increasing ``x``."""
        return tuple(zip(self._xs, self._ys, strict=True))

    @property
    def xs(self) -> tuple[float, ...]:
        """The nodes' x values, strictly increasing."""
        return self._xs

    @property
    def ys(self) -> tuple[float, ...]:
        """The nodes' y values, in node order."""
        return self._ys

    @property
    def min_x(self) -> float:
        """The first node's x: the graph is constant below it."""
        return self._xs[0]

    @property
    def max_x(self) -> float:
        """The last node's x: the graph is constant above it."""
        return self._xs[-1]

    def __iter__(self) -> Iterator[tuple[float, float]]:
        return iter(self.points)

    def __len__(self) -> int:
        return len(self._xs)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Graph):
            return NotImplemented
        return self._xs == other._xs and self._ys == other._ys

    def __hash__(self) -> int:
        return hash((self._xs, self._ys))

    def __repr__(self) -> str:
        inner = ", ".join(f"({x:g}, {y:g})" for x, y in zip(self._xs, self._ys, strict=True))
        return f"Graph([{inner}])"

    def __reduce__(self) -> tuple[Any, ...]:
        # Immutability blocks the default slot-restoring pickle path; rebuild from points.
        return (Graph, (self.points,))
