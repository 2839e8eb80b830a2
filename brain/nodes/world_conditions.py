"""Conditions on the world model: a face in view, a face seen lately, motion seen lately.

They read the brain's :class:`brain.world.WorldModel` (``ctx.world``), which the engine fills
from the vision's events at the start of every beat, so a whole tick sees one answer. Each says
what it saw in its explanation (``face 3 in view, 0.48 m away``, ``no motion within 5 s (the last
40 s ago)``).
"""

from __future__ import annotations

import math

from brain.context import BrainContext

from .conditions import _Condition
from .explain import num

__all__ = ["MOTION_PLACES", "FaceSeenWithin", "FaceVisible", "MotionSeenWithin"]

#: Where motion can be asked for (the vision's regions of the picture).
MOTION_PLACES: tuple[str, ...] = ("ground", "left", "right", "top", "image")


def _side(bearing_rad: float) -> str:
    degrees = math.degrees(bearing_rad)
    return "ahead" if abs(degrees) < 3 else f"{abs(degrees):.0f}° {'left' if degrees > 0 else 'right'}"


class FaceVisible(_Condition):
    """SUCCESS while a face is in the picture (the nearest is the one it names)."""

    def check(self) -> bool:
        return bool(self.ctx.world.faces_in_view())

    def in_words(self, passed: bool) -> str | None:
        faces = self.ctx.world.faces_in_view()
        if faces:
            face = faces[0]
            return f"face {face.face_id} in view, {face.distance_mm / 1000:.2f} m away, {_side(face.bearing_rad)}"
        last = self.ctx.world.last_face()
        if last is None:
            return "no face in view"
        return f"no face in view (face {last.face_id} {num(self.ctx.now() - last.last_seen)} s ago)"


class FaceSeenWithin(_Condition):
    """SUCCESS when a face was in view within the last ``within_s`` seconds (in view now included)."""

    def __init__(self, name: str, ctx: BrainContext, within_s: float) -> None:
        super().__init__(name, ctx)
        self.within_s = float(within_s)

    def check(self) -> bool:
        world = self.ctx.world
        last = world.last_face()
        return bool(world.faces_in_view()) or (last is not None and self.ctx.now() - last.last_seen <= self.within_s)

    def in_words(self, passed: bool) -> str | None:
        last = self.ctx.world.last_face()
        if last is None:
            return f"no face seen within {num(self.within_s)} s"
        ago = max(0.0, self.ctx.now() - last.last_seen)
        if passed:
            return f"face {last.face_id} seen {num(ago)} s ago, within {num(self.within_s)} s"
        return f"no face seen within {num(self.within_s)} s (the last {num(ago)} s ago)"


class MotionSeenWithin(_Condition):
    """SUCCESS when motion was seen within the last ``within_s`` seconds (``where``: only in that place)."""

    def __init__(self, name: str, ctx: BrainContext, within_s: float, where: str | None = None) -> None:
        super().__init__(name, ctx)
        self.within_s = float(within_s)
        self.where = where

    def check(self) -> bool:
        motion = self.ctx.world.motion
        if motion is None or (self.where is not None and motion.where != self.where):
            return False
        return self.ctx.now() - motion.at <= self.within_s

    def in_words(self, passed: bool) -> str | None:
        what = "motion" if self.where is None else f"motion ({self.where})"
        motion = self.ctx.world.motion
        if passed and motion is not None:
            return f"{what} {num(max(0.0, self.ctx.now() - motion.at))} s ago, {_side(motion.bearing_rad)}, " \
                   f"within {num(self.within_s)} s"
        if motion is None:
            return f"no {what} within {num(self.within_s)} s"
        return f"no {what} within {num(self.within_s)} s (the last, {motion.where}, " \
               f"{num(max(0.0, self.ctx.now() - motion.at))} s ago)"
