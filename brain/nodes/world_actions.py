"""Actions on the world model: turn to a face or a glimpse, look towards motion, search for faces, track a face.

They read where things are from :class:`brain.world.WorldModel` (``ctx.world``), whose faces
carry a position in the robot's world frame, so a face that has left the picture can still be
turned to: the body heading and head angle that look at it come from the robot's pose now
(:func:`aim_at`), not from where the face was in an old picture. Body and head move at bounded
speeds (the node's parameters, Anki's FindFaces defaults), and a small body error is left alone
(``clamp_deg``) so the robot does not twitch at every detection.

Like the other actions they start their work in ``initialise``, poll it in ``update`` and stop
the wheels when interrupted; a missing face or robot makes them FAIL with a reason.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Any

from py_trees.behaviour import Behaviour
from py_trees.common import Status

from brain.context import BrainContext
from brain.world import Face
from driver.hardware import HEAD_MAX_RAD, HEAD_MIN_RAD, NECK_MM

from .actions import ContextBehaviour, _cancel, _stop_wheels, wheel_mark
from .decorators import Explained
from .status import INVALID, RUNNING, SUCCESS

__all__ = ["LookTowardsMotion", "SearchForFaces", "TrackFace", "TurnTowardsFace", "TurnTowardsGlimpse", "aim_at",
           "angle_diff"]

log = logging.getLogger(__name__)


def angle_diff(a: float, b: float) -> float:
    """``a − b`` wrapped to (−π, π]."""
    return math.atan2(math.sin(a - b), math.cos(a - b))


def aim_at(pose: Any, point: tuple[float, float, float]) -> tuple[float, float]:
    """The body heading (world frame) and head angle (radians) that look at ``point`` (world mm).

    The heading points the body at the point; the head angle is the elevation of the point seen
    from the neck's pivot once the body faces it, clamped to the head's range.
    """
    heading = math.atan2(point[1] - pose.y_mm, point[0] - pose.x_mm)
    neck_x = pose.x_mm + NECK_MM[0] * math.cos(heading)
    neck_y = pose.y_mm + NECK_MM[0] * math.sin(heading)
    ahead = max(1.0, math.hypot(point[0] - neck_x, point[1] - neck_y))
    head = math.atan2(point[2] - (pose.z_mm + NECK_MM[2]), ahead)
    return heading, min(HEAD_MAX_RAD, max(HEAD_MIN_RAD, head))


def _side(radians: float) -> str:
    degrees = math.degrees(radians)
    return f"{abs(degrees):.0f}° {'left' if degrees > 0 else 'right'}"


class _Aim(ContextBehaviour):
    """Turn the body (absolute heading) and the head towards a target; SUCCESS when both are there."""

    def __init__(self, name: str, ctx: BrainContext, body_speed_dps: float = 150.0, head_speed_dps: float = 90.0,
                 clamp_deg: float = 3.0) -> None:
        super().__init__(name, ctx)
        self.body_speed_dps, self.head_speed_dps = float(body_speed_dps), float(head_speed_dps)
        self.clamp_deg = float(clamp_deg)
        self._actions: list[Any] = []
        self._error: str | None = None
        self._mark: int | None = None

    def target(self) -> tuple[float, float, str]:
        """Heading (world, rad), head angle (rad) and what it is; LookupError says why there is none."""
        raise NotImplementedError

    def initialise(self) -> None:
        self._actions, self._error = [], None
        robot = self.ctx.robot
        if robot is None or robot.state is None:
            self._error = "no robot" if robot is None else "no robot state yet"
            return
        try:
            heading, head, what = self.target()
            turn = angle_diff(heading, robot.state.proprioception.pose.angle_rad)
            moves = []
            if abs(math.degrees(turn)) > self.clamp_deg:
                self._actions.append(robot.turn_in_place(heading, speed=math.radians(self.body_speed_dps),
                                                         absolute=True))
                moves.append(f"turning {_side(turn)}")
            self._actions.append(robot.set_head_angle(head, max_speed=math.radians(self.head_speed_dps)))
            moves.append(f"head to {math.degrees(head):.0f}°")
        except LookupError as exc:
            self._error = str(exc.args[0]) if exc.args else "nothing to look at"
            return
        except Exception as exc:  # RobotError (not connected) …
            self._error = f"{type(exc).__name__}: {exc}"
            return
        self._mark = wheel_mark(self.ctx)
        self.feedback_message = f"{', '.join(moves)} towards {what}"
        self.describe(looking_at=what)

    def update(self) -> Status:
        if self._error is not None:
            return self.fail(self._error)
        if any(not a.done() for a in self._actions):
            return RUNNING
        failed = [a for a in self._actions if not a.succeeded]
        if failed:
            error = getattr(failed[0], "error", None)
            return self.fail(str(error) if error else "did not get there")
        return SUCCESS

    def terminate(self, new_status: Status) -> None:
        if new_status is INVALID and any(not a.done() for a in self._actions):
            for action in self._actions:
                if not action.done():
                    _cancel(action)
            _stop_wheels(self.ctx, self._mark)
        if new_status is not RUNNING:
            self._actions = []


def _face_target(ctx: BrainContext, max_age_s: float) -> Face:
    world = ctx.world
    in_view = world.faces_in_view()
    if in_view:
        return in_view[0]
    last = world.last_face()
    if last is None:
        raise LookupError("no face known")
    ago = ctx.now() - last.last_seen
    if ago > max_age_s:
        raise LookupError(f"no face seen within {max_age_s:g} s (the last {ago:.0f} s ago)")
    return last


class TurnTowardsFace(_Aim):
    """Turn body and head to the nearest face in view, else to where the last face was (within ``max_age_s``)."""

    def __init__(self, name: str, ctx: BrainContext, max_age_s: float = 10.0, **speeds: float) -> None:
        super().__init__(name, ctx, **speeds)
        self.max_age_s = float(max_age_s)
        self.face_id: int | None = None

    def target(self) -> tuple[float, float, str]:
        face = _face_target(self.ctx, self.max_age_s)
        self.face_id = face.face_id
        assert self.ctx.robot is not None and self.ctx.robot.state is not None
        heading, head = aim_at(self.ctx.robot.state.proprioception.pose, (face.x_mm, face.y_mm, face.z_mm))
        return heading, head, f"face {face.face_id}"


class TurnTowardsGlimpse(_Aim):
    """Turn body and head to where a face was glimpsed within ``within_s`` seconds ("what was that?").

    A face detected once while the robot turned is not confirmed and never becomes a face; looking
    where it was lets the vision see it again, and a face seen there is a face like any other.
    """

    def __init__(self, name: str, ctx: BrainContext, within_s: float = 5.0, **speeds: float) -> None:
        super().__init__(name, ctx, **speeds)
        self.within_s = float(within_s)

    def target(self) -> tuple[float, float, str]:
        glimpse = self.ctx.world.glimpse
        if glimpse is None or self.ctx.now() - glimpse.at > self.within_s:
            raise LookupError(f"no face glimpsed within {self.within_s:g} s")
        assert self.ctx.robot is not None and self.ctx.robot.state is not None
        heading, head = aim_at(self.ctx.robot.state.proprioception.pose, (glimpse.x_mm, glimpse.y_mm, glimpse.z_mm))
        return heading, head, "a glimpsed face"


class LookTowardsMotion(_Aim):
    """Turn body and head towards the last motion seen within ``within_s`` seconds (``where``: only there)."""

    def __init__(self, name: str, ctx: BrainContext, within_s: float = 3.0, where: str | None = None,
                 **speeds: float) -> None:
        super().__init__(name, ctx, **speeds)
        self.within_s = float(within_s)
        self.where = where

    def target(self) -> tuple[float, float, str]:
        motion = self.ctx.world.motion
        what = "motion" if self.where is None else f"motion ({self.where})"
        if motion is None or (self.where is not None and motion.where != self.where) \
                or self.ctx.now() - motion.at > self.within_s:
            raise LookupError(f"no {what} within {self.within_s:g} s")
        head = min(HEAD_MAX_RAD, max(HEAD_MIN_RAD, motion.elevation_rad))
        return motion.bearing_rad, head, f"{motion.where} motion"


class SearchForFaces(ContextBehaviour):
    """Look for a face with a head and body scan, Anki's FindFaces pattern; SUCCESS when one is in view.

    Each round turns back a little (``back_turn_deg``), pauses, turns on a little
    (``short_turn_deg``), moves the head to two or three heights in place (``head_deg``) with
    pauses, and turns on further (``turn_deg``), always in the direction drawn at the start
    (clockwise with ``clockwise_chance``). Every body turn lifts or lowers the head as it goes,
    to a height drawn from ``turn_head_deg`` at ``turn_head_speed_dps``, as Anki's scan does: a
    pause clip may leave the head low (the blinks end at 4°), and a face a little above the robot
    is only in the picture with the head up, so a scan that turned with the head low would sweep
    past a person standing close. When the last scan found nobody, the next one goes on
    the same way: the packaged scan turns more than a whole circle, so the bearings it saw longest
    ago, where someone may have come in since, come next. A pause plays ``pause_trigger`` when
    the resources have it, else waits ``pause_s``. FAILURE after ``seconds`` without a face.
    """

    def __init__(self, name: str, ctx: BrainContext, seconds: float = 30.0,
                 turn_deg: Sequence[float] = (30.0, 65.0), back_turn_deg: Sequence[float] = (10.0, 30.0),
                 short_turn_deg: Sequence[float] = (5.0, 25.0), clockwise_chance: float = 0.5,
                 head_deg: Sequence[float] = (20.0, 42.0), pause_s: Sequence[float] = (0.5, 1.0),
                 head_moves: Sequence[int] = (2, 3), body_speed_dps: float = 150.0, head_speed_dps: float = 90.0,
                 pause_trigger: str | None = None, turn_head_deg: Sequence[float] | None = (25.0, 42.0),
                 turn_head_speed_dps: float = 60.0) -> None:
        super().__init__(name, ctx)
        self.seconds = float(seconds)
        self.turn_deg, self.back_turn_deg, self.head_deg = tuple(turn_deg), tuple(back_turn_deg), tuple(head_deg)
        self.short_turn_deg, self.clockwise_chance = tuple(short_turn_deg), float(clockwise_chance)
        self.pause_s, self.head_moves = tuple(pause_s), (int(head_moves[0]), int(head_moves[1]))
        self.body_speed_dps, self.head_speed_dps = float(body_speed_dps), float(head_speed_dps)
        self.pause_trigger = pause_trigger
        self.turn_head_deg = None if turn_head_deg is None else tuple(turn_head_deg)
        self.turn_head_speed_dps = float(turn_head_speed_dps)
        self._steps: list[tuple[str, float]] = []
        self._doing: list[Any] = []
        self._pause_until = 0.0
        self._started = self._ends_at = 0.0
        self._direction = 1.0
        self._mark: int | None = None
        self._go_on = False
        self.rounds = 0

    def initialise(self) -> None:
        self._started = self.ctx.now()
        self._ends_at = self._started + self.seconds
        if self._go_on:  # the last scan found nobody: on the same way, to what it saw longest ago
            self._go_on = False
        else:
            self._direction = -1.0 if self.ctx.rng.random() < self.clockwise_chance else 1.0
        self._steps, self._doing, self._pause_until, self.rounds = [], [], 0.0, 0

    def _round(self) -> list[tuple[str, float]]:
        """One scan round as (what, value) steps: ``turn`` by degrees, ``head`` to degrees, ``pause``."""
        rng, d = self.ctx.rng, self._direction
        if self.turn_head_deg is not None:  # Anki's order: the turns carry the head, a pause before each head move
            steps = [("turn", -d * rng.uniform(*self.back_turn_deg)), ("pause", 0.0),
                     ("turn", d * rng.uniform(*self.short_turn_deg))]
            for _ in range(rng.randint(*self.head_moves)):
                steps += [("pause", 0.0), ("head", rng.uniform(*self.head_deg))]
            return [*steps, ("turn", d * rng.uniform(*self.turn_deg))]
        steps = [("turn", -d * rng.uniform(*self.back_turn_deg)), ("head", rng.uniform(*self.head_deg)),
                 ("pause", 0.0), ("turn", d * rng.uniform(*self.short_turn_deg))]
        for _ in range(rng.randint(*self.head_moves)):
            steps += [("head", rng.uniform(*self.head_deg)), ("pause", 0.0)]
        steps += [("turn", d * rng.uniform(*self.turn_deg)), ("pause", 0.0)]
        return steps

    def _found(self) -> Face | None:
        for face in self.ctx.world.faces_in_view():
            return face
        return None

    def _start(self, what: str, value: float) -> None:
        robot = self.ctx.robot
        assert robot is not None
        if what == "turn":
            self._doing = [robot.turn_in_place(math.radians(value), speed=math.radians(self.body_speed_dps))]
            if self.turn_head_deg is not None:
                head = self.ctx.rng.uniform(*self.turn_head_deg)
                self._doing.append(robot.set_head_angle(math.radians(head),
                                                        max_speed=math.radians(self.turn_head_speed_dps)))
        elif what == "head":
            self._doing = [robot.set_head_angle(math.radians(value), max_speed=math.radians(self.head_speed_dps))]
        else:
            self._pause_until = self.ctx.now() + self.ctx.rng.uniform(*self.pause_s)
            self._doing = []
            if self.pause_trigger and self.ctx.animations is not None:
                try:
                    self._doing = [self.ctx.animations.play_trigger(self.pause_trigger)]
                except KeyError:  # resources without the pause clip: a plain pause
                    pass

    def update(self) -> Status:
        if self.ctx.robot is None:
            return self.fail("no robot")
        face = self._found()
        if face is not None:
            self.feedback_message = f"found face {face.face_id} after {self.ctx.now() - self._started:.1f} s"
            return SUCCESS
        now = self.ctx.now()
        if now >= self._ends_at:
            self._go_on = True
            return self.fail(f"no face found in {self.seconds:g} s ({self.rounds} scan rounds)")
        if any(not a.done() for a in self._doing) or now < self._pause_until:
            return RUNNING
        if not self._steps:
            self._steps = self._round()
            self.rounds += 1
        what, value = self._steps.pop(0)
        try:
            self._start(what, value)
            self._mark = wheel_mark(self.ctx)
        except Exception as exc:
            return self.fail(f"{type(exc).__name__}: {exc}")
        self.feedback_message = f"searching, round {self.rounds}"
        return RUNNING

    def terminate(self, new_status: Status) -> None:
        if any(not a.done() for a in self._doing):
            for action in self._doing:
                _cancel(action)
        if self.status is RUNNING:
            _stop_wheels(self.ctx, self._mark)
        self._doing = []


class TrackFace(Explained):
    """Keep head and body on a face while the child runs (a clip plays, a wait passes); the child's status.

    Every ``period_s`` (drawn in the range each time, Anki's clamp period) it re-aims at the
    nearest face in view or the last one seen within ``max_age_s``: the head past
    ``head_tolerance_deg``, the body past ``clamp_deg``. Small corrections are left alone so the
    robot holds still between them, which is when its eyes can see motion. While it runs, the
    head and body tracks of the animation controller are locked (when the animation layer has
    one), so clips move the face, lift and sound while the tracker holds the gaze.
    """

    def __init__(self, name: str, child: Behaviour, ctx: BrainContext, period_s: Sequence[float] = (0.2, 0.7),
                 clamp_deg: float = 3.0, max_age_s: float = 1.0, body_speed_dps: float = 150.0,
                 head_speed_dps: float = 90.0, head_tolerance_deg: float = 2.0) -> None:
        super().__init__(name=name, child=child)
        self.head_tolerance_deg = float(head_tolerance_deg)
        self.ctx = ctx
        self.period_s = (float(period_s[0]), float(period_s[1]))
        self.clamp_deg, self.max_age_s = float(clamp_deg), float(max_age_s)
        self.body_speed_dps, self.head_speed_dps = float(body_speed_dps), float(head_speed_dps)
        self._next_at = 0.0
        self._lock: Any = None
        self._turning = False
        self._mark: int | None = None
        self.aims = 0

    def initialise(self) -> None:
        self._next_at, self.aims, self._turning = 0.0, 0, False
        player = getattr(self.ctx.animations, "player", None)
        lock = getattr(player, "lock", None)
        if callable(lock):
            try:
                self._lock = lock(("head", "body"), self)
            except Exception:
                log.exception("%s: could not lock the head and body tracks", self.name)

    def _aim(self) -> None:
        robot = self.ctx.robot
        if robot is None or robot.state is None:
            return
        try:
            face = _face_target(self.ctx, self.max_age_s)
        except LookupError:
            return
        pose = robot.state.proprioception.pose
        heading, head = aim_at(pose, (face.x_mm, face.y_mm, face.z_mm))
        turn = angle_diff(heading, pose.angle_rad)
        try:
            if abs(math.degrees(turn)) > self.clamp_deg:
                robot.turn_in_place(heading, speed=math.radians(self.body_speed_dps), absolute=True)
                self._turning = True
                self._mark = wheel_mark(self.ctx)
            head_now = robot.state.proprioception.head_angle_rad
            if abs(math.degrees(head - head_now)) > self.head_tolerance_deg:
                robot.set_head_angle(head, max_speed=math.radians(self.head_speed_dps))
        except Exception as exc:
            log.debug("%s: %s", self.name, exc)
            return
        self.aims += 1
        self.feedback_message = f"following face {face.face_id}"

    def update(self) -> Status:
        if self.decorated.status is RUNNING and self.ctx.now() >= self._next_at:
            self._next_at = self.ctx.now() + self.ctx.rng.uniform(*self.period_s)
            self._aim()
        return self.decorated.status

    def terminate(self, new_status: Status) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None
        if self._turning and new_status is INVALID:
            _stop_wheels(self.ctx, self._mark)
        self._turning = False
