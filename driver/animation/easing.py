"""Easing curves for blends: how a transition's progress (0..1 in time) maps to 0..1 in value.

Playback blends (a face easing into an expression, the head settling on an angle, a clip's entry
and exit) take a curve by name, so personalities and clip files can choose one as data:

``linear`` and ``{quadratic,cubic,exponential}_{in,out,in_out}``. "in" starts slowly and speeds
up, "out" starts fast and settles, "in_out" does both. Every curve maps 0 to 0 and 1 to 1 exactly
and is monotonic; progress outside 0..1 is clamped.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType

__all__ = ["CURVES", "UnknownEasingError", "ease", "easing", "easing_names"]

Curve = Callable[[float], float]

_EXP_SCALE = 10.0
_EXP_RANGE = math.pow(2.0, _EXP_SCALE) - 1.0


class UnknownEasingError(ValueError):
    """An easing name that is not one of :data:`CURVES`; the message lists the known names."""


def _linear(t: float) -> float:
    return t


def _quadratic_in(t: float) -> float:
    return t * t


def _cubic_in(t: float) -> float:
    return t * t * t


def _exponential_in(t: float) -> float:
    # 2^(10 t) rescaled so that it passes exactly through (0, 0) and (1, 1).
    return (math.pow(2.0, _EXP_SCALE * t) - 1.0) / _EXP_RANGE


def _out(f: Curve) -> Curve:
    """The mirror image of an "in" curve: fast start, gentle arrival."""

    def curve(t: float) -> float:
        return 1.0 - f(1.0 - t)

    return curve


def _in_out(f: Curve) -> Curve:
    """The "in" curve over the first half, its mirror over the second."""

    def curve(t: float) -> float:
        if t < 0.5:
            return 0.5 * f(2.0 * t)
        return 1.0 - 0.5 * f(2.0 - 2.0 * t)

    return curve


def _family(name: str, f: Curve) -> dict[str, Curve]:
    return {f"{name}_in": f, f"{name}_out": _out(f), f"{name}_in_out": _in_out(f)}


#: name -> curve (t in 0..1 -> value in 0..1); read-only.
CURVES: Mapping[str, Curve] = MappingProxyType(
    {
        "linear": _linear,
        **_family("quadratic", _quadratic_in),
        **_family("cubic", _cubic_in),
        **_family("exponential", _exponential_in),
    }
)


def easing_names() -> list[str]:
    """All curve names."""
    return list(CURVES)


def easing(name: str) -> Curve:
    """The curve called ``name`` (case-insensitive; ``-`` or spaces may stand for ``_``), with
    its input clamped to 0..1. Look it up once and call it per frame."""
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    try:
        f = CURVES[key]
    except KeyError:
        raise UnknownEasingError(f"unknown easing curve {name!r}; known: {', '.join(CURVES)}") from None

    def clamped(t: float) -> float:
        return f(0.0 if t <= 0.0 else 1.0 if t >= 1.0 else float(t))

    return clamped


def ease(name: str, t: float) -> float:
    """Value of curve ``name`` at progress ``t`` (clamped to 0..1)."""
    if math.isnan(t):
        raise ValueError("easing progress is NaN")
    return easing(name)(t)
