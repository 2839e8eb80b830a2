"""Action leaves: nodes that make the robot do something.

Every action follows the same non-blocking life: ``initialise`` starts the work (sends a
command, asks the animation player), ``update`` looks at its progress and answers RUNNING,
SUCCESS or FAILURE, and ``terminate`` cleans up when the node is interrupted (a higher
priority branch took over) — it cancels the play or stops the motor it started. Nothing
here waits: a tick costs microseconds whatever the robot is doing.

A missing robot, a lost link or an unknown animation name makes the node FAIL with a
feedback message; it never raises into the tick.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Any

from py_trees.behaviour import Behaviour
from py_trees.common import Status

from brain.context import BrainContext

from .composites import fast_tick, settle
from .status import FAILURE, INVALID, RUNNING, SUCCESS

__all__ = [
    "ContextBehaviour",
    "Drive",
    "DriveStraight",
    "FireEmotionEvent",
    "Leg",
    "LookAround",
    "PlayAnimationTrigger",
    "PlayClip",
    "PlayRandomTrigger",
    "RandomWait",
    "SetFaceExpression",
    "SetHeadAngle",
    "SetLiftHeight",
    "StopMotors",
    "Turn",
    "Wait",
]

log = logging.getLogger(__name__)



class ContextBehaviour(Behaviour):
    """A py_trees behaviour bound to one robot's :class:`BrainContext`.

    It ticks and stops as every py_trees behaviour does (initialise when not running, update,
    stop on a final status), without py_trees' debug line per tick and per stop: the heartbeat
    ticks dozens of leaves ten times a second, and formatting those lines, wanted or not, cost
    more than most leaves' own work.
    """

    def __init__(self, name: str, ctx: BrainContext) -> None:
        super().__init__(name)
        self.ctx = ctx

    #: True for a class that keeps py_trees' empty ``initialise`` and ``terminate`` and this
    #: class's ``stop`` (every condition): its tick is its update alone.
    _plain = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._plain = (cls.initialise is Behaviour.initialise and cls.terminate is Behaviour.terminate
                      and cls.stop is ContextBehaviour.stop)

    tick = fast_tick

    def run_tick(self) -> Status:
        """One tick (see :func:`brain.nodes.composites.fast_tick`); the status after it.

        A plain node (see ``_plain``) skips the calls that would do nothing: the conditions of a
        personality's guards are a third of the nodes a beat ticks.
        """
        if self._plain:
            status = self.update()
            if status.__class__ is Status:
                self.status = status
                return status
            settle(self, status)  # not a status: logged, taken as INVALID
            return self.status
        if self.status is not RUNNING:
            self.initialise()
        settle(self, self.update())
        return self.status

    def stop(self, new_status: Status) -> None:
        self.terminate(new_status)
        self.status = new_status

    def fail(self, why: str) -> Status:
        """Record why the node failed (shown by tree displays) and return FAILURE."""
        self.feedback_message = why
        log.debug("%s: %s", self.name, why)
        return FAILURE

    def describe(self, **info: Any) -> None:
        """Write what this node is doing into the context's branch description."""
        self.ctx.branch.update(info)


def _cancel(handle: Any) -> None:
    cancel = getattr(handle, "cancel", None)
    if cancel is not None:
        try:
            cancel()
        except Exception:  # a broken player must not break the tick
            log.exception("cancelling %r failed", handle)


class _Polled(ContextBehaviour):
    """Base of nodes that start one pollable thing (Action or play handle) and wait for it."""

    def __init__(self, name: str, ctx: BrainContext) -> None:
        super().__init__(name, ctx)
        self._handle: Any = None
        self._error: str | None = None

    def start(self) -> Any:
        """Start the work and return its handle (with ``done()`` and ``succeeded``)."""
        raise NotImplementedError

    def initialise(self) -> None:
        self._handle, self._error = None, None
        try:
            self._handle = self.start()
        except KeyError as exc:
            self._error = str(exc.args[0]) if exc.args else "unknown name"
        except Exception as exc:  # RobotError (not connected), bad player …
            self._error = f"{type(exc).__name__}: {exc}"

    def update(self) -> Status:
        if self._error is not None:
            return self.fail(self._error)
        handle = self._handle
        if handle is None:
            return SUCCESS
        if not handle.done():
            return RUNNING
        if handle.succeeded:
            return SUCCESS
        error = getattr(handle, "error", None)
        return self.fail(str(error) if error else "did not complete")

    def terminate(self, new_status: Status) -> None:
        if new_status is INVALID and self._handle is not None and not self._handle.done():
            _cancel(self._handle)
            self.on_interrupt()
        if new_status is not RUNNING:
            self._handle = None

    def on_interrupt(self) -> None:
        """Extra cleanup when interrupted mid-way (e.g. stop the wheels)."""

    def robot(self) -> Any:
        """The robot, or raise a clear error when there is none."""
        robot = self.ctx.robot
        if robot is None:
            raise RuntimeError("no robot")
        return robot


class PlayAnimationTrigger(_Polled):
    """Play an animation trigger (the animation layer picks the group member) and wait for it."""

    def __init__(self, name: str, ctx: BrainContext, trigger: str) -> None:
        super().__init__(name, ctx)
        self.trigger = trigger

    def start(self) -> Any:
        self.describe(animation=self.trigger)
        assert self.ctx.animations is not None
        return self.ctx.animations.play_trigger(self.trigger)


class PlayRandomTrigger(_Polled):
    """Play one of several animation triggers, picked by weight with the context's random source."""

    def __init__(self, name: str, ctx: BrainContext, triggers: Sequence[str],
                 weights: Sequence[float] | None = None) -> None:
        super().__init__(name, ctx)
        if not triggers:
            raise ValueError("PlayRandomTrigger needs at least one trigger")
        self.triggers = list(triggers)
        self.weights = list(weights) if weights is not None else [1.0] * len(self.triggers)
        if len(self.weights) != len(self.triggers):
            raise ValueError(f"{len(self.triggers)} triggers but {len(self.weights)} weights")
        self.chosen: str | None = None

    def start(self) -> Any:
        from brain.choosers_math import weighted_choice

        self.chosen = weighted_choice(self.triggers, self.weights, self.ctx.rng)
        if self.chosen is None:
            raise KeyError("no trigger has a positive weight")
        self.describe(animation=self.chosen)
        assert self.ctx.animations is not None
        return self.ctx.animations.play_trigger(self.chosen)


class PlayClip(_Polled):
    """Play one animation clip by name and wait for it."""

    def __init__(self, name: str, ctx: BrainContext, clip: str) -> None:
        super().__init__(name, ctx)
        self.clip = clip

    def start(self) -> Any:
        self.describe(animation=self.clip)
        assert self.ctx.animations is not None
        return self.ctx.animations.play_clip(self.clip)


class SetFaceExpression(ContextBehaviour):
    """Show a named procedural face; succeeds at once."""

    def __init__(self, name: str, ctx: BrainContext, expression: str) -> None:
        super().__init__(name, ctx)
        self.expression = expression

    def update(self) -> Status:
        try:
            assert self.ctx.animations is not None
            self.ctx.animations.set_face_expression(self.expression)
        except KeyError:
            return self.fail(f"unknown face expression {self.expression!r}")
        except Exception as exc:
            return self.fail(f"{type(exc).__name__}: {exc}")
        return SUCCESS


class SetHeadAngle(_Polled):
    """Move the head to an angle in degrees (−25…44.5) and wait until it is there."""

    def __init__(self, name: str, ctx: BrainContext, degrees: float, speed_dps: float | None = None) -> None:
        super().__init__(name, ctx)
        self.degrees = float(degrees)
        self.speed_dps = speed_dps

    def start(self) -> Any:
        kwargs = {"max_speed": math.radians(self.speed_dps)} if self.speed_dps else {}
        return self.robot().set_head_angle(math.radians(self.degrees), **kwargs)


class SetLiftHeight(_Polled):
    """Move the lift to a height in millimetres (32…92) and wait until it is there."""

    def __init__(self, name: str, ctx: BrainContext, mm: float) -> None:
        super().__init__(name, ctx)
        self.mm = float(mm)

    def start(self) -> Any:
        return self.robot().set_lift_height(self.mm)


class Turn(_Polled):
    """Turn in place by an angle in degrees (positive is counter-clockwise)."""

    def __init__(self, name: str, ctx: BrainContext, degrees: float, speed_dps: float = 180.0) -> None:
        super().__init__(name, ctx)
        self.degrees = float(degrees)
        self.speed_dps = float(speed_dps)
        self._mark: int | None = None

    def start(self) -> Any:
        handle = self.robot().turn_in_place(math.radians(self.degrees), speed=math.radians(self.speed_dps))
        self._mark = wheel_mark(self.ctx)
        return handle

    def on_interrupt(self) -> None:
        _stop_wheels(self.ctx, self._mark)


def wheel_mark(ctx: BrainContext) -> int | None:
    """The robot's wheel-command count now (None when it does not count), for :func:`_stop_wheels`."""
    return getattr(ctx.robot, "wheel_commands", None) if ctx.robot is not None else None


class Leg:
    """A straight drive of ``mm`` at ``speed_mmps``, ended by the robot's odometry.

    DriveWheels is open loop: a real robot's wheels settle below the speed asked, and differently
    per side (hardware.md §7.12), so a drive timed as distance / speed ends short (at about 70 %
    of it on the simulated robot). A leg is over when the reported pose has moved ``mm`` from
    where the drive began (it reads as a tick late, some millimetres on); a robot that reports no
    pose ends it after the time the distance takes at speed, and one that does not get anywhere
    (held, against something) after twice that.
    """

    def __init__(self, ctx: BrainContext, mm: float, speed_mmps: float) -> None:
        self.ctx, self.mm = ctx, float(mm)
        state = ctx.robot_state
        pose = state.proprioception.pose if state is not None else None
        self._from = (pose.x_mm, pose.y_mm) if pose is not None else None
        seconds = self.mm / max(abs(float(speed_mmps)), 1e-6)
        self.ends_at = ctx.now() + (2.0 * seconds if self._from is not None else seconds)

    def driven_mm(self) -> float:
        """How far the pose has moved since the drive began (0 without a pose)."""
        state = self.ctx.robot_state
        if self._from is None or state is None:
            return 0.0
        pose = state.proprioception.pose
        return math.hypot(pose.x_mm - self._from[0], pose.y_mm - self._from[1])

    def over(self) -> bool:
        """Whether the distance is covered (or its time is up)."""
        return self.ctx.now() >= self.ends_at or (self._from is not None and self.driven_mm() >= self.mm)


def _stop_wheels(ctx: BrainContext, since: int | None = None) -> None:
    """Stop the wheels, unless they were commanded after mark ``since`` (the node that took over drives them).

    A selector ticks the branch that takes over before it stops the one it interrupts, so an
    interrupted node that stopped the wheels unconditionally would cancel its successor's turn.
    """
    if since is not None and getattr(ctx.robot, "wheel_commands", since) != since:
        return
    if ctx.robot is not None:
        try:
            ctx.robot.drive_wheels(0.0, 0.0)
        except Exception as exc:
            log.debug("could not stop the wheels: %s", exc)


class _Timed(ContextBehaviour):
    """Base of nodes that run for a time measured on the context's clock."""

    def __init__(self, name: str, ctx: BrainContext) -> None:
        super().__init__(name, ctx)
        self.ends_at = 0.0

    def duration(self) -> float:
        raise NotImplementedError

    def initialise(self) -> None:
        self.ends_at = self.ctx.now() + self.duration()

    def on_resume(self, now: float, paused_s: float) -> None:
        """After a suspension (see :mod:`brain.nodes.reactions`) the remaining time is still to go."""
        self.ends_at += paused_s

    def update(self) -> Status:
        left = self.ends_at - self.ctx.now()
        if left > 0:
            self.feedback_message = f"{left:.1f} s left"
            return RUNNING
        return SUCCESS


class Wait(_Timed):
    """Do nothing for a number of seconds (RUNNING meanwhile)."""

    continues_after_suspend = True

    def __init__(self, name: str, ctx: BrainContext, seconds: float) -> None:
        super().__init__(name, ctx)
        self.seconds = float(seconds)

    def duration(self) -> float:
        return self.seconds


class RandomWait(_Timed):
    """Do nothing for a random time between ``low`` and ``high`` seconds (drawn each run)."""

    continues_after_suspend = True

    def __init__(self, name: str, ctx: BrainContext, low: float, high: float) -> None:
        super().__init__(name, ctx)
        if high < low:
            raise ValueError(f"RandomWait: max {high} is below min {low}")
        self.low, self.high = float(low), float(high)

    def duration(self) -> float:
        return self.ctx.rng.uniform(self.low, self.high)


class Drive(_Timed):
    """Drive the wheels at ``left``/``right`` mm/s for ``seconds``, then stop them."""

    def __init__(self, name: str, ctx: BrainContext, left: float, right: float, seconds: float) -> None:
        super().__init__(name, ctx)
        self.left, self.right, self.seconds = float(left), float(right), float(seconds)
        self._error: str | None = None
        self._driving = False
        self._mark: int | None = None

    def duration(self) -> float:
        return self.seconds

    def initialise(self) -> None:
        super().initialise()
        self._error = None
        if self.ctx.robot is None:
            self._error = "no robot"
            return
        try:
            self.ctx.robot.drive_wheels(self.left, self.right)
            self._mark = wheel_mark(self.ctx)
            self._driving = True
        except Exception as exc:
            self._error = f"{type(exc).__name__}: {exc}"

    def update(self) -> Status:
        if self._error is not None:
            return self.fail(self._error)
        return super().update()

    def terminate(self, new_status: Status) -> None:
        if self._driving:
            self._driving = False
            _stop_wheels(self.ctx, self._mark)


#: Backing up stops with the robot's middle this far (mm) on the floor's side of an edge it has met:
#: the robot has no cliff sensor behind, and past an edge its middle is over nothing.
BACK_CLEARANCE_MM = 30.0


class DriveStraight(Drive):
    """Drive ``mm`` straight ahead (negative: backwards) at ``speed_mmps``, as far as the
    robot's odometry says (:class:`Leg`), then stop the wheels: backing away from an edge or
    driving off the charger's contacts covers its distance although the wheels run slow.

    The one cliff sensor looks ahead, so a drive backwards is blind: it stops short when it would
    take the robot's middle within :data:`BACK_CLEARANCE_MM` of an edge the world model remembers
    (or nearer to one than it started), as Anki's engine kept its cliffs as obstacles. Backing
    away from one edge of a table no longer runs it over another it met before.
    """

    def __init__(self, name: str, ctx: BrainContext, mm: float, speed_mmps: float = 50.0) -> None:
        speed = math.copysign(abs(float(speed_mmps)), float(mm))
        super().__init__(name, ctx, speed, speed, abs(float(mm)) / max(abs(speed), 1e-6))
        self.mm = abs(float(mm))
        self._leg: Leg | None = None
        self._keep_mm = math.inf

    def initialise(self) -> None:
        super().initialise()
        self._leg = Leg(self.ctx, self.mm, self.left) if self._error is None else None
        self._keep_mm = min(BACK_CLEARANCE_MM, self._clearance()) - 1.0

    def _clearance(self) -> float:
        """How far the robot's middle is from the nearest edge met (infinite driving forwards)."""
        world, state = self.ctx.world, self.ctx.robot_state
        if self.left >= 0 or not world.edges or state is None:
            return math.inf
        pose = state.proprioception.pose
        return float(world.clearance_mm(pose.x_mm, pose.y_mm))

    def update(self) -> Status:
        if self._error is not None:
            return self.fail(self._error)
        if self._leg is not None and not self._leg.over():
            if self._clearance() < self._keep_mm:
                self.feedback_message = (f"stopped after {self._leg.driven_mm():.0f} of {self.mm:.0f} mm: "
                                         "an edge it met is behind")
                return SUCCESS
            self.feedback_message = f"{self._leg.driven_mm():.0f} of {self.mm:.0f} mm"
            return RUNNING
        return SUCCESS


class StopMotors(ContextBehaviour):
    """Stop wheels, head and lift at once; succeeds immediately (fails without a robot)."""

    def update(self) -> Status:
        if self.ctx.robot is None:
            return self.fail("no robot")
        try:
            self.ctx.robot.stop_all_motors()
        except Exception as exc:
            return self.fail(f"{type(exc).__name__}: {exc}")
        return SUCCESS


#: Where a face at a table's distance is wholly in the picture (head angle, degrees): the band a
#: body turn or a drive raises a lower head into (:func:`head_into_band`).
FACE_HEAD_BAND_DEG = (10.0, 25.0)


def head_into_band(ctx: BrainContext, band: tuple[float, float] = FACE_HEAD_BAND_DEG) -> Any:
    """Move the head to a random angle in ``band`` (degrees) when it is outside it; the head's
    action, or None when it already is in the band (or nothing is known of it).

    A body that turns or drives with the head at the floor sweeps past whoever stands there with
    their face above the picture; with the head in the band it sees them.
    """
    robot = ctx.robot
    state = robot.state if robot is not None else None
    low, high = band
    if robot is None or state is None or math.radians(low) <= state.proprioception.head_angle_rad <= math.radians(high):
        return None
    return robot.set_head_angle(math.radians(ctx.rng.uniform(low, high)))


class LookAround(ContextBehaviour):
    """Idle glances: random head tilts and small turns, with pauses, for ``seconds``.

    Each step picks either a head angle in ``head_range_deg`` or a turn of a random size in
    ``turn_range_deg`` (either direction), waits for it, then pauses for a random time in
    ``pause_range_s``. It succeeds when the time is up; the wheels stop when it ends or is
    interrupted. The turns stay within ``max_offset_deg`` of the heading it started at, the way a
    pet glances about and back rather than wandering round: whoever it was facing is soon in view
    again. A turn looks with the head up: a head lower than ``turn_head_deg`` (at the floor, where
    a head glance may have left it) rises into that band as the body turns, so a person who comes
    while it looks about has their face in the picture whenever the body faces them, rather than
    above it.
    """

    def __init__(self, name: str, ctx: BrainContext, seconds: float = 10.0,
                 head_range_deg: tuple[float, float] = (-5.0, 30.0),
                 turn_range_deg: tuple[float, float] = (20.0, 70.0),
                 pause_range_s: tuple[float, float] = (0.3, 1.5), max_offset_deg: float = 75.0,
                 turn_head_deg: tuple[float, float] = FACE_HEAD_BAND_DEG) -> None:
        super().__init__(name, ctx)
        self.seconds = float(seconds)
        self.turn_head_deg = turn_head_deg
        self._head: Any = None
        self.max_offset_deg = float(max_offset_deg)
        self._offset_deg = 0.0
        self.head_range_deg = head_range_deg
        self.turn_range_deg = turn_range_deg
        self.pause_range_s = pause_range_s
        self.ends_at = 0.0
        self._action: Any = None
        self._pause_until = 0.0
        self.glances = 0
        self._mark: int | None = None

    def initialise(self) -> None:
        self.ends_at = self.ctx.now() + self.seconds
        self._action = self._head = None
        self._pause_until = 0.0
        self.glances = 0
        self._offset_deg = 0.0

    def _next(self) -> Any:
        rng, robot = self.ctx.rng, self.ctx.robot
        if robot is None:
            raise RuntimeError("no robot")
        if rng.random() < 0.5:
            return robot.set_head_angle(math.radians(rng.uniform(*self.head_range_deg)))
        degrees = rng.uniform(*self.turn_range_deg) * (1 if rng.random() < 0.5 else -1)
        if abs(self._offset_deg + degrees) > self.max_offset_deg:
            degrees = -degrees  # back the other way, towards where it started
        self._offset_deg += degrees
        self._head = head_into_band(self.ctx, self.turn_head_deg)
        return robot.turn_in_place(math.radians(degrees), speed=math.radians(120))

    def update(self) -> Status:
        if self.ctx.robot is None:
            return self.fail("no robot")
        now = self.ctx.now()
        if now >= self.ends_at:
            return SUCCESS
        if self._action is not None:
            if not self._action.done() or (self._head is not None and not self._head.done()):
                return RUNNING
            self._action = self._head = None
            self._pause_until = now + self.ctx.rng.uniform(*self.pause_range_s)
        if now >= self._pause_until:
            try:
                self._action = self._next()
                self._mark = wheel_mark(self.ctx)
                self.glances += 1
            except Exception as exc:
                return self.fail(f"{type(exc).__name__}: {exc}")
        return RUNNING

    def terminate(self, new_status: Status) -> None:
        for action in (self._action, self._head):
            if action is not None and not action.done():
                _cancel(action)
        if self.status is RUNNING:
            _stop_wheels(self.ctx, self._mark)
        self._action = self._head = None


class FireEmotionEvent(ContextBehaviour):
    """Trigger an emotion event on the mood; always succeeds (an unknown event is logged)."""

    def __init__(self, name: str, ctx: BrainContext, event: str) -> None:
        super().__init__(name, ctx)
        self.event = event

    def update(self) -> Status:
        fired = self.ctx.fire_emotion(self.event)
        self.feedback_message = "fired" if fired else "not defined"
        return SUCCESS
