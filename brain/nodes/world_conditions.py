"""Conditions on the world model: a face in view, a face seen or glimpsed lately, motion seen lately.

They read the brain's :class:`brain.world.WorldModel` (``ctx.world``), which the engine fills
from the vision's events at the start of every beat, so a whole tick sees one answer. Each says
what it saw in its explanation (``face 3 in view, 0.48 m away``, ``no motion within 5 s (the last
40 s ago)``).
"""

from __future__ import annotations

import math

from brain.context import BrainContext
from brain.world import Face

from .conditions import _Condition
from .explain import num

__all__ = ["MOTION_PLACES", "FaceGlimpsedWithin", "FaceNew", "FaceSeenWithin", "FaceVisible", "MotionSeenWithin"]

#: Where motion can be asked for (the vision's regions of the picture).
MOTION_PLACES: tuple[str, ...] = ("ground", "left", "right", "top", "image")


def _side(ctx: BrainContext, bearing_rad: float) -> str:
    """Where a world-frame bearing is from the robot's heading now (``12° left``), or ``ahead``."""
    state = ctx.robot.state if ctx.robot is not None else None
    heading = state.proprioception.pose.angle_rad if state is not None else 0.0
    degrees = math.degrees(math.atan2(math.sin(bearing_rad - heading), math.cos(bearing_rad - heading)))
    return "ahead" if abs(degrees) < 3 else f"{abs(degrees):.0f}° {'left' if degrees > 0 else 'right'}"


class CubeConnected(_Condition):
    """SUCCESS while at least one light cube is connected (the world model's)."""

    def check(self) -> bool:
        return any(c.connected for c in self.ctx.world.cubes.values())

    def in_words(self, passed: bool) -> str | None:
        ids = sorted(c.object_id for c in self.ctx.world.cubes.values() if c.connected)
        return f"cube{'s' if len(ids) > 1 else ''} {', '.join(map(str, ids))} connected" if ids else "no cube connected"


class FaceVisible(_Condition):
    """SUCCESS while a face is in the picture (the nearest is the one it names)."""

    def check(self) -> bool:
        return bool(self.ctx.world.faces_in_view())

    def in_words(self, passed: bool) -> str | None:
        faces = self.ctx.world.faces_in_view()
        if faces:
            face = faces[0]
            where = _side(self.ctx, face.bearing_rad)
            return f"face {face.face_id} in view, {face.distance_mm / 1000:.2f} m away, {where}"
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
        in_view = self.ctx.world.faces_in_view()
        if in_view:
            return f"face {in_view[0].face_id} in view"
        last = self.ctx.world.last_face()
        if last is None:
            return f"no face seen within {num(self.within_s)} s"
        ago = max(0.0, self.ctx.now() - last.last_seen)
        if passed:
            return f"face {last.face_id} seen {num(ago)} s ago, within {num(self.within_s)} s"
        return f"no face seen within {num(self.within_s)} s (the last {num(ago)} s ago)"


class FaceGlimpsedWithin(_Condition):
    """SUCCESS when a face was glimpsed (detected once, not confirmed) within the last ``within_s``
    seconds and no face has been seen since: someone may be there, out of the picture now."""

    def __init__(self, name: str, ctx: BrainContext, within_s: float = 5.0) -> None:
        super().__init__(name, ctx)
        self.within_s = float(within_s)

    def check(self) -> bool:
        glimpse = self.ctx.world.glimpse
        return glimpse is not None and self.ctx.now() - glimpse.at <= self.within_s

    def in_words(self, passed: bool) -> str | None:
        glimpse = self.ctx.world.glimpse
        if glimpse is None:
            return f"no face glimpsed within {num(self.within_s)} s"
        ago = max(0.0, self.ctx.now() - glimpse.at)
        if passed:
            return f"a face glimpsed {num(ago)} s ago, {_side(self.ctx, glimpse.bearing_rad)}"
        return f"no face glimpsed within {num(self.within_s)} s (the last {num(ago)} s ago)"


class FaceNew(_Condition):
    """SUCCESS while a face in view arrived within ``within_s`` after no face was seen for ``unseen_s``.

    The moment to greet someone: a person who comes back after a short look away is not new,
    one who comes after the robot has been alone a while is.
    """

    def __init__(self, name: str, ctx: BrainContext, unseen_s: float = 60.0, within_s: float = 10.0) -> None:
        super().__init__(name, ctx)
        self.unseen_s, self.within_s = float(unseen_s), float(within_s)

    def _new(self) -> list[Face]:
        now = self.ctx.now()
        return [f for f in self.ctx.world.faces_in_view()
                if now - f.first_seen <= self.within_s and f.unseen_before_s >= self.unseen_s]

    def check(self) -> bool:
        return bool(self._new())

    def in_words(self, passed: bool) -> str | None:
        new = self._new()
        if new:
            face = new[0]
            alone = "no face before" if math.isinf(face.unseen_before_s) else \
                f"after {num(face.unseen_before_s)} s without one"
            return f"face {face.face_id} came {num(max(0.0, self.ctx.now() - face.first_seen))} s ago, {alone}"
        faces = self.ctx.world.faces_in_view()
        if not faces:
            return "no face in view"
        face = faces[0]
        if self.ctx.now() - face.first_seen > self.within_s:
            return f"face {face.face_id} has been here {num(self.ctx.now() - face.first_seen)} s, " \
                   f"more than {num(self.within_s)} s"
        return f"face {face.face_id} came {num(face.unseen_before_s)} s after the last, within {num(self.unseen_s)} s"


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
            where = _side(self.ctx, motion.bearing_rad)
            return f"{what} {num(max(0.0, self.ctx.now() - motion.at))} s ago, {where}, within {num(self.within_s)} s"
        if motion is None:
            return f"no {what} within {num(self.within_s)} s"
        return f"no {what} within {num(self.within_s)} s (the last, {motion.where}, " \
               f"{num(max(0.0, self.ctx.now() - motion.at))} s ago)"
