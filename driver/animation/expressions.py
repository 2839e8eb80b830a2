"""Named facial expressions for the procedural face.

Behaviours and clip files refer to faces by name ("happy", "suspicious"); this registry maps each
name to its :class:`~driver.animation.face.FaceParams`. The faces are built from the default eye
with a few parameters changed, so each reads as what its name says when rendered (the golden
images under tests/golden/ show them). The registry is read-only; build variations with
``FaceParams.replace`` / ``replace_eyes`` or blend with :func:`~driver.animation.face.interpolate`.

"Left" is the eye on the viewer's left.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .face import DEFAULT_EYE, DEFAULT_FACE, EyeParams, FaceParams

__all__ = ["EXPRESSIONS", "UnknownExpressionError", "expression", "expression_names"]


class UnknownExpressionError(KeyError):
    """An expression name that is not in the registry; the message lists the known names."""

    def __str__(self) -> str:  # KeyError would otherwise show the repr of the whole message
        return str(self.args[0]) if self.args else ""


def _both(**changes: float) -> FaceParams:
    return DEFAULT_FACE.replace_eyes(**changes)


def _eyes(left: EyeParams, right: EyeParams, **face: float) -> FaceParams:
    return FaceParams(left_eye=left, right_eye=right).replace(**face)


_E = DEFAULT_EYE

_ROUND = {
    name: 1.0
    for name in (
        "lower_inner_radius_x",
        "lower_inner_radius_y",
        "upper_inner_radius_x",
        "upper_inner_radius_y",
        "upper_outer_radius_x",
        "upper_outer_radius_y",
        "lower_outer_radius_x",
        "lower_outer_radius_y",
    )
}
# A shut, smiling eye: an elliptical eye with a lower lid bent almost to its top leaves a thin arch.
_CLOSED_ARC = _E.replace(scale_y=0.6, scale_x=1.05, center_y=3.0, lower_lid_bend=0.85, **_ROUND)

_RAW: dict[str, FaceParams] = {
    "neutral": DEFAULT_FACE,
    "happy": _both(
        lower_lid_y=0.32,
        lower_lid_bend=0.45,
        upper_inner_radius_y=0.8,
        upper_outer_radius_y=0.8,
        scale_x=1.05,
    ).replace(center_y=-2.0),
    "excited": _both(
        scale_x=1.2,
        scale_y=1.15,
        lower_lid_y=0.25,
        lower_lid_bend=0.35,
        upper_inner_radius_x=0.8,
        upper_outer_radius_x=0.8,
        upper_inner_radius_y=0.8,
        upper_outer_radius_y=0.8,
    ).replace(center_y=-5.0),
    "love": _eyes(
        _CLOSED_ARC.replace(center_x=5.0, scale_x=1.15, scale_y=0.7),
        _CLOSED_ARC.replace(center_x=-5.0, scale_x=1.15, scale_y=0.7),
        angle=8.0,
        center_y=-2.0,
    ),
    "sad": _both(
        scale_y=0.85,
        center_y=5.0,
        upper_lid_y=0.28,
        upper_lid_angle=-22.0,
        lower_lid_y=0.05,
    ).replace(center_y=3.0),
    "disappointed": _both(
        scale_y=0.7,
        center_y=8.0,
        upper_lid_y=0.4,
        upper_lid_angle=-8.0,
        upper_lid_bend=0.08,
    ),
    "worried": _both(
        scale_x=0.9,
        upper_lid_y=0.18,
        upper_lid_angle=-30.0,
        lower_lid_y=0.12,
        lower_lid_angle=-10.0,
    ).replace(center_y=-2.0),
    "scared": _both(
        scale_x=0.62,
        scale_y=0.7,
        **{k: 0.8 for k in _ROUND},
    ).replace(center_x=-14.0, center_y=-7.0),
    "angry": _both(
        upper_lid_y=0.32,
        upper_lid_angle=28.0,
        lower_lid_y=0.12,
        scale_y=0.9,
        scale_x=1.05,
    ),
    "frustrated": _both(
        scale_x=1.1,
        scale_y=0.85,
        upper_lid_y=0.3,
        upper_lid_angle=20.0,
        lower_lid_y=0.25,
        lower_lid_angle=12.0,
    ).replace(center_y=5.0),
    "determined": _both(
        scale_x=1.12,
        upper_lid_y=0.3,
        upper_lid_angle=10.0,
        lower_lid_y=0.18,
        upper_inner_radius_y=0.25,
        upper_outer_radius_y=0.25,
    ),
    "surprised": _both(
        scale_x=1.2,
        scale_y=1.25,
        upper_inner_radius_x=0.9,
        upper_outer_radius_x=0.9,
        lower_inner_radius_x=0.9,
        lower_outer_radius_x=0.9,
        upper_inner_radius_y=0.7,
        upper_outer_radius_y=0.7,
        lower_inner_radius_y=0.7,
        lower_outer_radius_y=0.7,
    ).replace(center_y=-3.0),
    "sleepy": _both(
        scale_y=0.9,
        center_y=5.0,
        upper_lid_y=0.62,
        upper_lid_angle=-6.0,
        lower_lid_y=0.08,
    ),
    "asleep": _both(
        scale_y=0.1,
        scale_x=1.15,
        center_y=9.0,
        upper_inner_radius_y=1.0,
        upper_outer_radius_y=1.0,
        lower_inner_radius_y=1.0,
        lower_outer_radius_y=1.0,
    ),
    "bored": _both(
        upper_lid_y=0.45,
        lower_lid_y=0.1,
    ).replace(center_x=10.0),
    "squint": _both(
        scale_x=1.12,
        upper_lid_y=0.3,
        lower_lid_y=0.28,
        lower_lid_bend=0.16,
    ),
    "suspicious": _eyes(
        _E.replace(scale_x=1.05, upper_lid_y=0.4, upper_lid_angle=8.0, lower_lid_y=0.32),
        _E.replace(scale_x=1.05, upper_lid_y=0.36, upper_lid_angle=6.0, lower_lid_y=0.3),
        center_x=-14.0,
    ),
    "confused": _eyes(
        _E.replace(scale_x=1.05, scale_y=1.1, center_y=-3.0, upper_lid_y=0.12, upper_lid_angle=-20.0),
        _E.replace(scale_x=0.9, scale_y=0.75, center_y=4.0, upper_lid_y=0.3, upper_lid_angle=18.0),
        angle=-6.0,
    ),
    "curious": _eyes(
        _E.replace(scale_x=1.15, scale_y=1.15, upper_inner_radius_y=0.7, upper_outer_radius_y=0.7),
        _E.replace(scale_x=0.95, scale_y=0.95, upper_lid_y=0.15),
        angle=10.0,
        center_x=-4.0,
        center_y=-4.0,
    ),
    "skeptical": _eyes(
        _E.replace(upper_lid_y=0.5, lower_lid_y=0.15, upper_lid_angle=-5.0),
        _E.replace(scale_y=1.08, center_y=-2.0, upper_lid_y=0.08, upper_lid_angle=-10.0),
        center_x=5.0,
    ),
    "wink_left": _eyes(_CLOSED_ARC, _E.replace(lower_lid_y=0.2, lower_lid_bend=0.3)),
    "wink_right": _eyes(_E.replace(lower_lid_y=0.2, lower_lid_bend=0.3), _CLOSED_ARC),
}

#: name -> face; read-only.
EXPRESSIONS: Mapping[str, FaceParams] = MappingProxyType(_RAW)


def expression_names() -> list[str]:
    """All expression names, sorted."""
    return sorted(EXPRESSIONS)


def expression(name: str) -> FaceParams:
    """The face for ``name`` (case-insensitive, spaces or hyphens allowed for underscores)."""
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    try:
        return EXPRESSIONS[key]
    except KeyError:
        raise UnknownExpressionError(
            f"unknown face expression {name!r}; known: {', '.join(expression_names())}"
        ) from None
