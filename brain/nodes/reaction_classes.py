"""Cozmo's reactions to being handled and to its cubes, as behaviour classes read from their JSON.

What each did in Anki's engine, and what it does here:

* **ReactToRobotShaken** (trigger ``RobotShaken``, sent when the shaking stops): the dizzy stop,
  ``DizzyStillPickedUp`` while it is still held, then, once it is back on its treads, the dizzy
  reaction for how long it was shaken (soft under 2.5 s, medium under 5 s, hard). Put down only
  after the held clip ends, it plays no reaction, as the app did.
* **ReactToUnexpectedMovement** (pushed or blocked while driving): the emotion event
  ``ReactToUnexpectedMovement`` (more frustrated each time) and its clip.
* **ReactToReturnedToTreads**: half a second for the pitch to settle, then, if the body is still
  pitched more than 10°, a head calibration (StartMotorCalibration) and the wait for it: a
  robot put down crooked has lost track of where its head is.
* **ReactToMotorCalibration**: holds the robot still until the motors that started calibrating
  report done (or ``timeout_s`` passes), so nothing else moves them meanwhile.
* **ReactToFrustration**: the frustrated clip, its emotion event and, for the major reaction, a
  turn away and a short drive ("I give up"). The app's combined file lists reactions by
  ``maxConfidence``: the most extreme one the robot's Confident level reaches is played.
* **ReactToCubeMoved**: sensing a cube being moved (``CubeMovedSense``), a second's pause, then
  upset that it is gone (``CubeMovedUpset``). The robot does not see cubes, so it does not turn
  to where the cube was, as the app did when it knew.
* **ReactToDoubleTap**: a double-tapped cube wants attention; the robot looks down and about
  for it (a short search, as the app did for a cube it could not place).
* **AcknowledgeObject**: a glance and a short acknowledgement for a cube that comes on, at most
  once per ``CoolDownDuration_ms``.
* **ReactToSparked**: nothing of its own; being triggered interrupts the reactions below it,
  which was its whole purpose in the app.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

from py_trees.behaviour import Behaviour
from py_trees.common import Status

from brain.context import BrainContext
from driver.hardware import HEAD_MIN_DEG

from .actions import (
    ContextBehaviour,
    Leg,
    PlayAnimationTrigger,
    RandomWait,
    SetHeadAngle,
    StopMotors,
    Turn,
    Wait,
    _Polled,
    _stop_wheels,
    wheel_mark,
)
from .behavior_class import EMOTION_EVENT, BehaviorClass, BehaviorParamError, BehaviorSpec, emotion_nodes
from .behavior_class import plays as _play
from .behavior_class import sequence_of as _seq
from .behavior_class import str_param as _trigger
from .composites import Selector
from .composites import Sequence as SequenceNode
from .conditions import current_orientation
from .decorators import Cooldown
from .orientation_behaviors import WhileOrientation
from .params import Param
from .status import RUNNING, SUCCESS

__all__ = ["REACTION_CLASSES", "DoubleTapped", "PlayForShake", "PlayFrustration", "RecalibrateIfTilted",
           "WaitForCalibration"]

log = logging.getLogger(__name__)

#: How far back a reaction looks for the event that triggered it (s).
TRIGGER_LOOKBACK_S = 10.0
#: MotorCalibration's head motor id.
HEAD_MOTOR = 3


# ----------------------------------------------------------------------------- nodes


class PlayForShake(_Polled):
    """Play the dizzy reaction for the last shake's strength; nothing while still held.

    The strength comes from the newest ``shaken`` event (soft, medium or hard: how long it
    lasted). Still in the air when this starts means the held clip ran out first: the app then
    ended without a reaction.
    """

    def __init__(self, name: str, ctx: BrainContext, by_strength: Mapping[str, str]) -> None:
        super().__init__(name, ctx)
        self.by_strength = dict(by_strength)
        self.chosen: str | None = None

    def start(self) -> Any:
        self.chosen = None
        if current_orientation(self.ctx) == "in_air":
            self.feedback_message = "still held: no dizzy reaction"
            return None
        shake = next(self.ctx.recent_events("shaken", TRIGGER_LOOKBACK_S), None)
        strength = str(getattr(shake, "strength", "soft"))
        self.chosen = self.by_strength.get(strength) or self.by_strength["soft"]
        self.describe(animation=self.chosen, shaken=strength)
        assert self.ctx.animations is not None
        return self.ctx.animations.play_trigger(self.chosen)


def _calibrating(ctx: BrainContext, since: float) -> set[int] | None:
    """Motors whose newest calibration report since ``since`` is "started" (None: no report)."""
    latest: dict[int, bool] = {}
    for event in ctx.recent_events("motor_calibration", since=since):  # newest first
        latest.setdefault(int(event.motor_id), bool(event.started))
    if not latest:
        return None
    return {motor for motor, started in latest.items() if started}


class WaitForCalibration(ContextBehaviour):
    """RUNNING while a motor that started calibrating has not reported done; SUCCESS after.

    Reports from ``lookback_s`` before it started count (the one that triggered the reaction);
    with none at all it waits for one. After ``timeout_s`` it gives up with a warning, as the
    app did, and succeeds: a calibration that never ends must not hold the robot for good.
    """

    def __init__(self, name: str, ctx: BrainContext, timeout_s: float, lookback_s: float = 1.0) -> None:
        super().__init__(name, ctx)
        self.timeout_s, self.lookback_s = float(timeout_s), float(lookback_s)
        self.since = self.ends_at = 0.0

    def initialise(self) -> None:
        now = self.ctx.now()
        self.since, self.ends_at = now - self.lookback_s, now + self.timeout_s

    def update(self) -> Status:
        busy = _calibrating(self.ctx, self.since)
        if busy is not None and not busy:
            self.feedback_message = "calibrated"
            return SUCCESS
        if self.ctx.now() >= self.ends_at:
            log.warning("motor calibration did not finish within %g s", self.timeout_s)
            self.feedback_message = "calibration did not finish"
            return SUCCESS
        self.feedback_message = "waiting for the calibration" if busy is None else f"calibrating motors {sorted(busy)}"
        return RUNNING


class RecalibrateIfTilted(ContextBehaviour):
    """Ask for a head calibration when the body is pitched more than ``pitch_deg``, and wait for it.

    SUCCESS at once when the robot sits level (or cannot tell its pitch).
    """

    def __init__(self, name: str, ctx: BrainContext, pitch_deg: float, timeout_s: float) -> None:
        super().__init__(name, ctx)
        self.pitch_deg, self.timeout_s = float(pitch_deg), float(timeout_s)
        self.asked_at: float | None = None
        self.ends_at = 0.0

    def initialise(self) -> None:
        self.asked_at = None
        robot = self.ctx.robot
        attitude = getattr(robot, "attitude", None)
        pitch = getattr(attitude, "pitch_deg", None)
        if robot is None or not isinstance(pitch, (int, float)) or abs(pitch) <= self.pitch_deg:
            self.feedback_message = "level" if isinstance(pitch, (int, float)) else "pitch unknown"
            return
        try:
            robot.calibrate_motors(head=True, lift=False)
        except Exception as exc:  # RobotError: not connected
            self.feedback_message = f"{type(exc).__name__}: {exc}"
            return
        self.asked_at = self.ctx.now()
        self.ends_at = self.asked_at + self.timeout_s
        self.feedback_message = f"pitched {pitch:.0f}°: calibrating the head"
        self.describe(calibrating="head")

    def update(self) -> Status:
        if self.asked_at is None:
            return SUCCESS
        for event in self.ctx.recent_events("motor_calibration", since=self.asked_at):
            if int(event.motor_id) == HEAD_MOTOR and not event.started:
                self.feedback_message = "head calibrated"
                return SUCCESS
        if self.ctx.now() >= self.ends_at:
            log.warning("head calibration did not finish within %g s", self.timeout_s)
            return SUCCESS
        return RUNNING


class PlayFrustration(_Polled):
    """Play the frustration reaction the robot's confidence calls for, then fire its emotion event.

    ``reactions``: (maxConfidence, trigger, emotion event, drive) tuples. The one with the lowest
    ``maxConfidence`` that Confident is at or below wins; above all of them, the mildest. The
    chosen reaction's ``drive`` (turn and distance ranges, or None) is kept for the drive that
    follows (:class:`DriveAway`).
    """

    def __init__(self, name: str, ctx: BrainContext, reactions: Sequence[tuple[float, str, str | None, Any]]) -> None:
        super().__init__(name, ctx)
        self.reactions = sorted(reactions, key=lambda r: -r[0])  # mildest (highest maxConfidence) first
        self.chosen: tuple[float, str, str | None, Any] | None = None

    def start(self) -> Any:
        confident = self.ctx.mood.value("Confident") if self.ctx.mood is not None else 0.0
        fitting = [r for r in self.reactions if confident <= r[0]]
        self.chosen = fitting[-1] if fitting else self.reactions[0]
        self.describe(animation=self.chosen[1])
        assert self.ctx.animations is not None
        return self.ctx.animations.play_trigger(self.chosen[1])

    def update(self) -> Status:
        status = super().update()
        if status is SUCCESS and self.chosen is not None and self.chosen[2]:
            self.ctx.fire_emotion(self.chosen[2])
        return status


class DriveAway(_Polled):
    """Turn away by a random angle (either way), then drive ahead a random distance: the drive
    the frustration reaction it follows chose (none: SUCCESS at once)."""

    def __init__(self, name: str, ctx: BrainContext, source: PlayFrustration, speed_mmps: float = 80.0) -> None:
        super().__init__(name, ctx)
        self.source, self.speed_mmps = source, float(speed_mmps)
        self._turn: Any = None
        self._leg: Leg | None = None
        self._distance = 0.0
        self._mark: int | None = None
        self.error: str | None = None

    def start(self) -> Any:
        self.error = None
        drive = self.source.chosen[3] if self.source.chosen is not None else None
        if not drive:
            return None
        (turn_lo, turn_hi), (dist_lo, dist_hi) = drive
        rng = self.ctx.rng
        angle = rng.uniform(turn_lo, turn_hi) * (1 if rng.random() < 0.5 else -1)
        self._distance = rng.uniform(dist_lo, dist_hi)
        self.feedback_message = f"turning {angle:.0f}°, then {self._distance:.0f} mm ahead"
        self._turn = self.robot().turn_in_place(math.radians(angle), speed=math.radians(120.0))
        self._mark = wheel_mark(self.ctx)
        self._leg = None
        return self

    # the handle: the turn, then the drive, measured by the robot's odometry
    def done(self) -> bool:
        if not self._turn.done():
            return False
        if self._leg is None:
            try:
                self.robot().drive_wheels(self.speed_mmps, self.speed_mmps)
            except Exception as exc:  # RobotError: lost meanwhile
                self.error = f"{type(exc).__name__}: {exc}"
                return True
            self._mark = wheel_mark(self.ctx)
            self._leg = Leg(self.ctx, self._distance, self.speed_mmps)
            return False
        if not self._leg.over():
            return False
        _stop_wheels(self.ctx, self._mark)
        return True

    @property
    def succeeded(self) -> bool:
        return self.error is None

    def cancel(self) -> None:
        if self._turn is not None and not self._turn.done():
            self._turn.cancel()
        _stop_wheels(self.ctx, self._mark)


class DoubleTapped(ContextBehaviour):
    """SUCCESS when a cube was tapped at least twice at once within ``within_s``, else FAILURE."""

    def __init__(self, name: str, ctx: BrainContext, within_s: float = 2.0) -> None:
        super().__init__(name, ctx)
        self.within_s = float(within_s)

    def update(self) -> Status:
        for event in self.ctx.recent_events("cube_tapped", self.within_s):
            if int(getattr(event, "taps", 1)) >= 2:
                self.feedback_message = f"cube {event.object_id} double-tapped"
                return SUCCESS
        return self.fail(f"no double tap within {self.within_s:g} s")


# ----------------------------------------------------------------------------- factories


def react_to_robot_shaken(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToRobotShaken: the dizzy stop, the held clip while still in the air, the dizzy reaction."""
    v = spec.value
    held = WhileOrientation("while held", PlayAnimationTrigger(v("stillPickedUpAnimTrigger"), ctx,
                                                                v("stillPickedUpAnimTrigger")), ctx, ["in_air"], 1)
    reaction = PlayForShake("dizzy reaction", ctx, {"soft": v("softAnimTrigger"), "medium": v("mediumAnimTrigger"),
                                                    "hard": v("hardAnimTrigger")})
    return _seq(spec, [StopMotors("stop", ctx), *_play(ctx, v("shakeStopAnimTrigger")), held, reaction,
                       *emotion_nodes(ctx, spec)])


def react_to_unexpected_movement(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToUnexpectedMovement: more frustrated each time, and the reaction clip."""
    return _seq(spec, [StopMotors("stop", ctx), *emotion_nodes(ctx, spec, "emotionEvent"),
                       *_play(ctx, spec.value("animTrigger")), *emotion_nodes(ctx, spec)])


def react_to_returned_to_treads(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToReturnedToTreads: let the pitch settle, recalibrate the head if the body is still tilted."""
    return _seq(spec, [Wait("settle", ctx, spec.value("settle_s")),
                       RecalibrateIfTilted("head check", ctx, spec.value("recalibratePitch_deg"),
                                           spec.value("timeout_s")),
                       *emotion_nodes(ctx, spec)])


def react_to_motor_calibration(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToMotorCalibration: stay still until the calibration is done."""
    return _seq(spec, [WaitForCalibration("calibrating", ctx, spec.value("timeout_s")), *emotion_nodes(ctx, spec)])


def _frustration_reactions(spec: BehaviorSpec) -> list[tuple[float, str, str | None, Any]]:
    listed = spec.value("reactions")
    rows: list[Mapping[str, Any]]
    if listed is None:
        rows = [{"maxConfidence": 1.0, "anim": spec.value("anim"), "finalEmotionEvent": spec.value("finalEmotionEvent"),
                 **{k: spec.value(k) for k in _DRIVE_KEYS if spec.value(k) is not None}}]
    elif isinstance(listed, list) and listed and all(isinstance(r, Mapping) for r in listed):
        rows = listed
    else:
        raise BehaviorParamError(spec.behavior_id, "reactions", "expected a list of reaction objects")
    out: list[tuple[float, str, str | None, Any]] = []
    for i, row in enumerate(rows):
        where = f"reactions[{i}]" if listed is not None else "anim"
        anim = row.get("anim")
        if not isinstance(anim, str) or not anim:
            raise BehaviorParamError(spec.behavior_id, f"{where}.anim" if listed is not None else "anim",
                                     "expected an animation trigger")
        try:
            limit = float(row.get("maxConfidence", 1.0))
            drive = None
            if float(row.get("randomDriveMaxDist_mm", 0.0) or 0.0) > 0.0:
                turn = (float(row.get("randomDriveMinAngle_deg", 0.0)), float(row.get("randomDriveMaxAngle_deg", 0.0)))
                dist = (float(row.get("randomDriveMinDist_mm", 0.0)), float(row.get("randomDriveMaxDist_mm", 0.0)))
                drive = (turn, dist)
        except (TypeError, ValueError) as exc:
            raise BehaviorParamError(spec.behavior_id, where, f"expected numbers ({exc})") from None
        event = row.get("finalEmotionEvent")
        out.append((limit, anim, event if isinstance(event, str) and event else None, drive))
    return out


_DRIVE_KEYS = ("randomDriveMinDist_mm", "randomDriveMaxDist_mm", "randomDriveMinAngle_deg", "randomDriveMaxAngle_deg")


def react_to_frustration(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToFrustration: the frustrated clip for its confidence, its emotion event, maybe a drive away."""
    play = PlayFrustration("frustrated", ctx, _frustration_reactions(spec))
    return _seq(spec, [play, DriveAway("drive away", ctx, play)])


def react_to_cube_moved(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToCubeMoved: senses the cube moving, pauses, is upset that it is gone."""
    v = spec.value
    return _seq(spec, [*_play(ctx, v("senseAnimTrigger")), Wait("a second to put it back", ctx, v("pause_s")),
                       *_play(ctx, v("upsetAnimTrigger")), *emotion_nodes(ctx, spec)])


def react_to_double_tap(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToDoubleTap: looks down and about for the double-tapped cube."""
    v = spec.value
    turn = v("searchTurn_deg")
    low, high = v("searchWait_s")
    search: list[Behaviour] = [SetHeadAngle("look down", ctx, v("searchHeadAngle_deg")),
                               RandomWait("look", ctx, low, high), Turn("left", ctx, turn),
                               RandomWait("look", ctx, low, high), Turn("right", ctx, -2.0 * turn),
                               RandomWait("look", ctx, low, high), Turn("back", ctx, turn),
                               *_play(ctx, v("animTrigger")), *emotion_nodes(ctx, spec)]
    if not v("requireObjectTapped"):
        return _seq(spec, search)
    return _seq(spec, [DoubleTapped("double tap?", ctx, TRIGGER_LOOKBACK_S), *search])


def acknowledge_object(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """AcknowledgeObject: a short acknowledgement, at most once per ``CoolDownDuration_ms``."""
    v = spec.value
    body = SequenceNode("acknowledge", memory=True,
                        children=[SetHeadAngle("look down", ctx, v("headAngle_deg")),
                                  *_play(ctx, v("ReactionAnimGroup")), *emotion_nodes(ctx, spec)])
    cooldown_s = v("CoolDownDuration_ms") / 1000.0
    if cooldown_s <= 0:
        return _seq(spec, [body])
    # on cooldown the behaviour still succeeds: the cube was acknowledged a moment ago
    return Selector(spec.behavior_id, memory=True, children=[Cooldown("once a while", body, ctx, cooldown_s),
                                                             Wait("acknowledged lately", ctx, 0.0)])


def react_to_sparked(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToSparked: nothing of its own (being triggered interrupts lower reactions)."""
    return _seq(spec, [*emotion_nodes(ctx, spec), Wait("sparked", ctx, 0.0)])


_FINAL = {"finalEmotionEvent": EMOTION_EVENT}
_TIMEOUT = Param("number", default=5.0, minimum=0.1, doc="longest wait for the calibration (s)")

#: The reaction classes of this module and what they read.
REACTION_CLASSES: tuple[BehaviorClass, ...] = (
    BehaviorClass("ReactToRobotShaken", react_to_robot_shaken,
                  "`DizzyShakeStop`, `DizzyStillPickedUp` while held, then the soft, medium or hard dizzy reaction",
                  {"shakeStopAnimTrigger": _trigger("DizzyShakeStop", "played when the shaking stops"),
                   "stillPickedUpAnimTrigger": _trigger("DizzyStillPickedUp", "played while still held"),
                   "softAnimTrigger": _trigger("DizzyReactionSoft", "shaken less than 2.5 s"),
                   "mediumAnimTrigger": _trigger("DizzyReactionMedium", "shaken less than 5 s"),
                   "hardAnimTrigger": _trigger("DizzyReactionHard", "shaken longer"),
                   **_FINAL}),
    BehaviorClass("ReactToUnexpectedMovement", react_to_unexpected_movement,
                  "fires `ReactToUnexpectedMovement` (frustration) and plays its clip",
                  {"animTrigger": _trigger("ReactToUnexpectedMovement", "the reaction clip"),
                   "emotionEvent": Param("str", default="ReactToUnexpectedMovement",
                                         doc="emotion event fired as it starts"),
                   **_FINAL}),
    BehaviorClass("ReactToReturnedToTreads", react_to_returned_to_treads,
                  "after 0.5 s, recalibrates the head if the body is still pitched more than 10°",
                  {"settle_s": Param("number", default=0.5, minimum=0.0, doc="wait for the pitch to settle (s)"),
                   "recalibratePitch_deg": Param("number", default=10.0, minimum=1.0, maximum=45.0,
                                                 doc="pitch beyond which the head is recalibrated (°)"),
                   "timeout_s": _TIMEOUT, **_FINAL}),
    BehaviorClass("ReactToMotorCalibration", react_to_motor_calibration,
                  "keeps still until the motors report calibrated (`timeout_s` at most)",
                  {"timeout_s": _TIMEOUT, **_FINAL}),
    BehaviorClass("ReactToFrustration", react_to_frustration,
                  "plays `anim`, fires its emotion event, maybe turns away and drives off; "
                  "`reactions` picks by Confident (`maxConfidence`)",
                  {"anim": Param("str", default="FrustratedByFailure", doc="the frustrated clip"),
                   "reactions": Param("any", doc="reactions by `maxConfidence`, each with `anim`, "
                                                 "`finalEmotionEvent` and the drive's ranges"),
                   "randomDriveMinDist_mm": Param("number", minimum=0.0, doc="drive away at least (mm)"),
                   "randomDriveMaxDist_mm": Param("number", minimum=0.0, doc="drive away at most (mm; 0: no drive)"),
                   "randomDriveMinAngle_deg": Param("number", minimum=0.0, maximum=180.0, doc="turn away at least (°)"),
                   "randomDriveMaxAngle_deg": Param("number", minimum=0.0, maximum=180.0, doc="turn away at most (°)"),
                   **_FINAL}),
    BehaviorClass("ReactToCubeMoved", react_to_cube_moved,
                  "`CubeMovedSense`, a pause, then `CubeMovedUpset`",
                  {"senseAnimTrigger": _trigger("CubeMovedSense", "sensing the cube move"),
                   "upsetAnimTrigger": _trigger("CubeMovedUpset", "upset it is gone"),
                   "pause_s": Param("number", default=1.0, minimum=0.0, doc="pause between the two (s)"),
                   **_FINAL}),
    BehaviorClass("ReactToDoubleTap", react_to_double_tap,
                  "looks down and about for a double-tapped cube",
                  {"requireObjectTapped": Param("bool", default=True, doc="only for a cube tapped twice at once"),
                   "searchHeadAngle_deg": Param("number", default=-5.0, minimum=HEAD_MIN_DEG, maximum=0.0,
                                                doc="head angle while looking for it (°)"),
                   "searchTurn_deg": Param("number", default=30.0, minimum=0.0, maximum=90.0,
                                           doc="how far it looks to each side (°)"),
                   "searchWait_s": Param("range", default=(0.3, 0.5), doc="pause at each look (s)"),
                   "animTrigger": Param("str", doc="a clip after the search (none by default)"),
                   **_FINAL}),
    BehaviorClass("AcknowledgeObject", acknowledge_object,
                  "glances down and plays `AcknowledgeObject`, at most once per `CoolDownDuration_ms`",
                  {"ReactionAnimGroup": _trigger("AcknowledgeObject", "the acknowledgement"),
                   "CoolDownDuration_ms": Param("number", default=600000.0, minimum=0.0,
                                                doc="at most once per this long (ms)"),
                   "headAngle_deg": Param("number", default=0.0, minimum=HEAD_MIN_DEG, maximum=20.0,
                                          doc="head angle of the glance (°)"),
                   **_FINAL}),
    BehaviorClass("ReactToSparked", react_to_sparked, "nothing of its own: it interrupts lower reactions",
                  dict(_FINAL)),
)
