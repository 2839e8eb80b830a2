"""The table a simulated robot stands on: its size, and whether a point is on it.

Its edges are cliffs to the robot's one cliff sensor (:class:`~driver.sim.body.Body` looks past
them); ``simulate --table WxD`` sets one, :data:`DESK` is the default.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..hardware import CLIFF_SENSOR_AHEAD_MM

__all__ = ["DESK", "Table"]


@dataclass(frozen=True)
class Table:
    """The table the robot stands on: ``width_mm`` along x by ``depth_mm`` along y, centred at (0, 0)."""

    width_mm: float
    depth_mm: float

    def __post_init__(self) -> None:
        if not (self.width_mm > 2 * CLIFF_SENSOR_AHEAD_MM and self.depth_mm > 2 * CLIFF_SENSOR_AHEAD_MM):
            raise ValueError(f"a table of {self.width_mm:g} x {self.depth_mm:g} mm is too small for the robot")

    @classmethod
    def parse(cls, text: str) -> Table:
        """``"900x600"`` (millimetres); ValueError naming what was expected otherwise."""
        parts = text.lower().replace("mm", "").split("x")
        try:
            width, depth = (float(p) for p in parts)
        except ValueError:
            raise ValueError(f"expected WIDTHxDEPTH in millimetres such as 900x600, got {text!r}") from None
        return cls(width, depth)

    def holds(self, x_mm: float, y_mm: float) -> bool:
        """True when the point is on the table."""
        return abs(x_mm) <= self.width_mm / 2 and abs(y_mm) <= self.depth_mm / 2


#: An ordinary desk, the table a simulated day stands on unless told otherwise.
DESK = Table(900.0, 600.0)
