"""The backpack's five lights: named colours and patterns, and the leaf that sets them.

A personality names a colour (``"cyan"``), writes ``"#rrggbb"`` or ``[r, g, b]``, or names a
pattern: one of :data:`PATTERNS` or a backpack light pattern of the resource set. Colours become
the lights' 15-bit words with :func:`driver.protocol.rgb555`, as the clips' and cubes' lights do,
so a colour shows the same wherever it is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from py_trees.common import Status

from brain.context import BrainContext
from driver.protocol import rgb555

from .actions import ContextBehaviour
from .status import SUCCESS

__all__ = ["COLORS", "PATTERNS", "BackpackLights", "parse_color"]


#: Named colours for backpack lights.
COLORS: dict[str, tuple[int, int, int]] = {
    "off": (0, 0, 0), "black": (0, 0, 0), "white": (255, 255, 255), "red": (255, 0, 0),
    "green": (0, 255, 0), "blue": (0, 0, 255), "yellow": (255, 255, 0), "cyan": (0, 255, 255),
    "magenta": (255, 0, 255), "orange": (255, 128, 0), "purple": (128, 0, 255),
    "dim_blue": (0, 0, 48), "dim_white": (40, 40, 40),
}

#: Built-in five-LED patterns (left, front, middle, back, right).
PATTERNS: dict[str, tuple[str, ...]] = {
    "off": ("off",) * 5,
    "sleep": ("off", "dim_blue", "dim_blue", "dim_blue", "off"),
    "calm": ("off", "cyan", "cyan", "cyan", "off"),
    "happy": ("off", "green", "green", "green", "off"),
    "alert": ("off", "red", "red", "red", "off"),
    "busy": ("off", "yellow", "yellow", "yellow", "off"),
}


def parse_color(value: Any) -> tuple[int, int, int]:
    """A colour from a name, ``"#rrggbb"`` or ``[r, g, b]`` (0–255 ints or 0–1 floats)."""
    if isinstance(value, str):
        text = value.strip().lower()
        if text in COLORS:
            return COLORS[text]
        if text.startswith("#") and len(text) == 7:
            try:
                return int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)
            except ValueError:
                pass
        raise ValueError(f"expected a colour name ({', '.join(sorted(COLORS))}) or #rrggbb, got {value!r}")
    if isinstance(value, (list, tuple)) and len(value) in (3, 4) and all(
            isinstance(c, (int, float)) and not isinstance(c, bool) for c in value):
        r, g, b = channels = value[:3]
        if all(isinstance(c, float) for c in channels) and all(0.0 <= c <= 1.0 for c in channels):
            return round(r * 255), round(g * 255), round(b * 255)
        if all(0 <= c <= 255 for c in channels):
            return int(r), int(g), int(b)
    raise ValueError(f"expected a colour: a name, #rrggbb or [r, g, b], got {value!r}")


class BackpackLights(ContextBehaviour):
    """Set the five backpack LEDs to fixed colours or a named pattern; succeeds at once.

    ``pattern`` is a built-in name (see ``PATTERNS``) or a backpack light pattern of the
    resource set (its "on" colours are used).
    """

    def __init__(self, name: str, ctx: BrainContext, colors: Sequence[Any] | None = None,
                 pattern: str | None = None) -> None:
        super().__init__(name, ctx)
        if (colors is None) == (pattern is None):
            raise ValueError("BackpackLights needs exactly one of colors or pattern")
        self.words: tuple[int, int, int, int, int] | None = None
        self.pattern = pattern
        if colors is not None:
            self.words = self._words(colors)

    @staticmethod
    def _words(colors: Sequence[Any]) -> tuple[int, int, int, int, int]:
        parsed = [parse_color(c) for c in colors]
        if len(parsed) == 1:
            parsed = parsed * 5
        if len(parsed) == 3:
            parsed = [(0, 0, 0), *parsed, (0, 0, 0)]
        if len(parsed) != 5:
            raise ValueError(f"expected 1, 3 or 5 colours, got {len(parsed)}")
        a, b, c, d, e = (rgb555(*c) for c in parsed)
        return a, b, c, d, e

    def resolve(self) -> tuple[int, int, int, int, int]:
        """The five LED words to send."""
        if self.words is not None:
            return self.words
        assert self.pattern is not None
        if self.pattern in PATTERNS:
            return self._words(PATTERNS[self.pattern])
        resources = self.ctx.resources
        record = getattr(resources, "backpack_lights", {}).get(self.pattern) if resources is not None else None
        if record is None:
            raise KeyError(f"unknown backpack light pattern {self.pattern!r}")
        return self._words([tuple(c[:3]) for c in record.on_colors])

    def update(self) -> Status:
        if self.ctx.robot is None:
            return self.fail("no robot")
        try:
            words = self.resolve()
            self.ctx.robot.set_backpack_lights(words)
        except KeyError as exc:
            return self.fail(str(exc.args[0]))
        except Exception as exc:
            return self.fail(f"{type(exc).__name__}: {exc}")
        return SUCCESS
