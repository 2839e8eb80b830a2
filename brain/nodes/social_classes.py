"""Cozmo's behaviour classes for singing, asking for a game and playing to a face.

* **PlayAnimWithFace**: turns to the last face it saw (if any; a failed turn does not stop it),
  then plays its triggers in order, as Anki's PlayAnimSequenceWithFace did.
* **Singing**: the get-in, the song, the get-out. The file's ``audioSwitchGroup`` names the tempo
  (``Cozmo_Sings_80Bpm``, ``100Bpm`` or ``120Bpm``: the song trigger ``Singing_80bpm`` …) and
  ``audioSwitch`` the song. In the app one clip per tempo played and the audio engine switched
  the melody; here each song is a clip of its own whose sung notes sit on its beats
  (``anim_cozmosings_<song>_01``, the song's name lower-cased without ``Cozmo_Sings_`` and
  underscores: ``Cozmo_Sings_Row_Your_Boat`` → ``anim_cozmosings_rowyourboat_01``). Without that
  clip it sings whatever the tempo's trigger plays.
* **RequestGameSimple**: asks for a game without a cube (the file's ``zero_block_config``):
  turns to the person, plays the request, then waits up to ``minRequestDelay_s`` for an answer
  (a poke, a cube tap, the button) with its idle clip looping; answered, it is pleased (the
  game itself was the app's); ignored, it plays the deny clip. The one-cube variant needs the
  robot to pick up and carry a cube, and is not read.
* **FistBump**: turns to the person (looking up for one for ``maxTimeToLookForFace_s`` when it
  knows of none; without one it gives up when ``abortIfNoFaceFound``), raises its lift like a
  fist and waits while its waiting clip plays. A bump is the lift knocked up by more than half a
  degree, the head rocked faster than 10°/s or jolted by 4000 mm/s² along x (Anki's thresholds):
  then the success clip. Not bumped, it asks again (``maxAttempts`` in all), then plays being left
  hanging.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Any

from py_trees.behaviour import Behaviour
from py_trees.common import Status

from brain.context import BrainContext
from driver.events import EVENT_KINDS

from .actions import ContextBehaviour, PlayAnimationTrigger, SetHeadAngle, Wait, _cancel, _Polled
from .behavior_class import (
    EMOTION_EVENT,
    BehaviorClass,
    BehaviorParamError,
    BehaviorSpec,
    emotion_nodes,
    triggers_param,
)
from .behavior_class import plays as _play
from .behavior_class import sequence_of as _seq
from .composites import Selector
from .composites import Sequence as SequenceNode
from .decorators import FailureIsSuccess
from .params import Param
from .play_behaviors import ANSWER_KINDS, AnsweredSince, Asked, WaitForAnswer
from .status import RUNNING, SUCCESS
from .world_actions import TurnTowardsFace

__all__ = ["SOCIAL_CLASSES", "SONG_TRIGGERS", "PlaySong", "WaitForBump", "WaitPlayingIdle", "song_clip"]

log = logging.getLogger(__name__)

#: The song trigger of each of the app's tempo switch groups.
SONG_TRIGGERS = {"Cozmo_Sings_80Bpm": "Singing_80bpm", "Cozmo_Sings_100Bpm": "Singing_100bpm",
                 "Cozmo_Sings_120Bpm": "Singing_120bpm"}


def song_clip(audio_switch: str) -> str:
    """The clip that sings the song an ``audioSwitch`` names (see the module docstring)."""
    name = audio_switch.removeprefix("Cozmo_Sings_").replace("_", "").lower()
    return f"anim_cozmosings_{name}_01"


class PlaySong(_Polled):
    """Sing the song's own clip if it is installed, else what the tempo's trigger plays."""

    def __init__(self, name: str, ctx: BrainContext, clip: str | None, trigger: str) -> None:
        super().__init__(name, ctx)
        self.clip, self.trigger = clip, trigger
        self.sung: str | None = None

    def start(self) -> Any:
        assert self.ctx.animations is not None
        if self.clip is not None:
            try:
                handle = self.ctx.animations.play_clip(self.clip)
            except KeyError:
                log.debug("%s: no clip %s; singing what %s plays", self.name, self.clip, self.trigger)
            else:
                self.sung = self.clip
                self.describe(animation=self.clip)
                return handle
        self.sung = self.trigger
        self.describe(animation=self.trigger)
        return self.ctx.animations.play_trigger(self.trigger)


class WaitPlayingIdle(WaitForAnswer):
    """:class:`WaitForAnswer` with an idle clip looping meanwhile (cut short by the answer)."""

    def __init__(self, name: str, ctx: BrainContext, kinds: Sequence[str], seconds: float, asked: Asked | None,
                 idle_trigger: str | None) -> None:
        super().__init__(name, ctx, kinds, seconds, asked)
        self.idle_trigger = idle_trigger
        self._idle: Any = None

    def update(self) -> Status:
        status = super().update()
        if status is RUNNING and self.idle_trigger and self.ctx.animations is not None:
            if self._idle is None or self._idle.done():
                try:
                    self._idle = self.ctx.animations.play_trigger(self.idle_trigger)
                except KeyError as exc:  # no such trigger: wait without it
                    log.debug("%s: %s", self.name, exc)
                    self.idle_trigger = None
        return status

    def terminate(self, new_status: Status) -> None:
        if self._idle is not None and not self._idle.done():
            _cancel(self._idle)
        self._idle = None
        super().terminate(new_status)


class WaitForBump(ContextBehaviour):
    """Play the waiting clip once: SUCCESS as soon as the raised lift is bumped, FAILURE when the
    clip ends first.

    The lift, the head's rocking and its jolt are compared with what they were ``settle_s`` into
    the wait (the lift has reached the fist's height by then).
    """

    def __init__(self, name: str, ctx: BrainContext, idle_trigger: str | None, settle_s: float = 0.4,
                 lift_deg: float = 0.5, gyro_dps: float = 10.0, accel_mmps2: float = 4000.0) -> None:
        super().__init__(name, ctx)
        self.idle_trigger = idle_trigger
        self.settle_s, self.lift_deg, self.gyro_dps, self.accel_mmps2 = settle_s, lift_deg, gyro_dps, accel_mmps2
        self._idle: Any = None
        self._started = 0.0
        self._base: tuple[float, float] | None = None
        self.bumped_by: str | None = None

    def initialise(self) -> None:
        self._idle, self._base, self.bumped_by = None, None, None
        self._started = self.ctx.now()
        if self.idle_trigger and self.ctx.animations is not None:
            try:
                self._idle = self.ctx.animations.play_trigger(self.idle_trigger)
            except KeyError as exc:
                log.debug("%s: %s", self.name, exc)

    def _bump(self) -> str | None:
        robot = self.ctx.robot
        state = robot.state if robot is not None else None
        if state is None:
            return None
        p = state.proprioception
        if self._base is None:
            if self.ctx.now() - self._started >= self.settle_s:
                self._base = (p.lift_angle_rad, p.imu.accel_x_mmps2)
            return None
        if abs(math.degrees(p.lift_angle_rad - self._base[0])) > self.lift_deg:
            return "the lift"
        if abs(math.degrees(p.imu.gyro_y_radps)) > self.gyro_dps:
            return "a rock of the head"
        if abs(p.imu.accel_x_mmps2 - self._base[1]) > self.accel_mmps2:
            return "a jolt"
        return None

    def update(self) -> Status:
        self.bumped_by = self._bump()
        if self.bumped_by is not None:
            self.feedback_message = f"bumped: {self.bumped_by}"
            return SUCCESS
        if self._idle is None or self._idle.done() or self.ctx.now() - self._started > MAX_WAIT_S:
            return self.fail("not bumped")
        self.feedback_message = "waiting for a bump"
        return RUNNING

    def terminate(self, new_status: Status) -> None:
        if self._idle is not None and not self._idle.done():
            _cancel(self._idle)
        self._idle = None


# ----------------------------------------------------------------------------- factories


def play_anim_with_face(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """PlayAnimWithFace: turn to the last face seen (if it can), then play the triggers in order."""
    triggers = spec.value("animTriggers")
    if not triggers:
        raise BehaviorParamError(spec.behavior_id, "animTriggers", "PlayAnimWithFace needs at least one trigger")
    turn = FailureIsSuccess("if it can", TurnTowardsFace("turn to the face", ctx, spec.value("maxFaceAge_s")))
    return _seq(spec, [turn, *(PlayAnimationTrigger(t, ctx, t) for t in triggers), *emotion_nodes(ctx, spec)])


def fist_bump(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """FistBump: to the person, the fist raised, a wait for the bump (asked again), pleased or left hanging."""
    v = spec.value
    look: list[Behaviour] = [
        TurnTowardsFace("turn to the face", ctx, v("maxFaceAge_s")),
        SequenceNode("look for a face", memory=True, children=[
            SetHeadAngle("look up", ctx, LOOK_FOR_FACE_HEAD_DEG),
            WaitForAnswer("wait for a face", ctx, ["face_seen"], v("maxTimeToLookForFace_s")),
            TurnTowardsFace("turn to it", ctx, v("maxFaceAge_s"))]),
    ]
    if not v("abortIfNoFaceFound"):
        look.append(Wait("without a face", ctx, 0.0))
    attempts: list[Behaviour] = [WaitForBump("wait for the bump", ctx, v("idleAnimTrigger"))]
    for n in range(2, v("maxAttempts") + 1):
        attempts.append(SequenceNode(f"ask again ({n})", memory=True, children=[
            *_play(ctx, v("retryAnimTrigger")), WaitForBump("wait for the bump", ctx, v("idleAnimTrigger"))]))
    bumped = SequenceNode("bumped", memory=True, children=[
        Selector("a bump?", memory=True, children=attempts), *_play(ctx, v("successAnimTrigger")),
        *emotion_nodes(ctx, spec, "successEmotionEvent")])
    hanging = SequenceNode("left hanging", memory=True, children=[
        *_play(ctx, v("failAnimTrigger")), *emotion_nodes(ctx, spec, "failEmotionEvent")])
    return _seq(spec, [Selector("find the person", memory=True, children=look), *_play(ctx, v("requestAnimTrigger")),
                       Selector("the bump", memory=True, children=[bumped, hanging]), *emotion_nodes(ctx, spec)])


def singing(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """Singing: the get-in, the song (its own clip, else the tempo's trigger), the get-out."""
    v = spec.value
    trigger = v("songAnimTrigger") or SONG_TRIGGERS[v("audioSwitchGroup")]
    switch = v("audioSwitch")
    song = PlaySong("song", ctx, song_clip(switch) if switch else None, trigger)
    return _seq(spec, [*_play(ctx, v("getInAnimTrigger")), song, *_play(ctx, v("getOutAnimTrigger")),
                       *emotion_nodes(ctx, spec)])


def request_game_simple(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """RequestGameSimple: turn to the person, ask, wait with the idle clip, then pleased or denied."""
    v = spec.value
    kinds = v("answeredBy")
    asked = Asked("ask", ctx)
    turn = FailureIsSuccess("if it can", TurnTowardsFace("turn to the person", ctx, v("maxFaceAge_s")))
    request = Selector("request", memory=False, children=[
        AnsweredSince("answered already", ctx, kinds, asked),
        SequenceNode("the request", memory=True, children=[*_play(ctx, v("initial_animName")),
                                                            *_play(ctx, v("request_animName"))]),
    ])
    answered = SequenceNode("answered", memory=True, children=[
        asked, turn, request,
        WaitPlayingIdle("wait for an answer", ctx, kinds, v("minRequestDelay_s"), asked, v("idle_animName")),
        *emotion_nodes(ctx, spec, "acceptEmotionEvent"), *_play(ctx, v("acceptAnimTrigger")),
    ])
    ignored = SequenceNode("ignored", memory=True, children=[
        *emotion_nodes(ctx, spec, "denyEmotionEvent"), *_play(ctx, v("deny_animName")),
    ])
    return _seq(spec, [Selector("answer", memory=True, children=[answered, ignored]), *emotion_nodes(ctx, spec)])


_FINAL = {"finalEmotionEvent": EMOTION_EVENT}
#: Where FistBump looks for a face it does not know of (°, Anki's).
LOOK_FOR_FACE_HEAD_DEG = 35.0
#: The longest a bump is waited for in one attempt, whatever the waiting clip (s).
MAX_WAIT_S = 10.0
_FACE_AGE = Param("number", default=30.0, minimum=0.0, doc="turn to a face seen within this long (s)")

#: The classes of this module and what they read.
SOCIAL_CLASSES: tuple[BehaviorClass, ...] = (
    BehaviorClass("PlayAnimWithFace", play_anim_with_face,
                  "turns to the last face seen (if any), then plays its triggers in order",
                  {"animTriggers": triggers_param(required=True), "maxFaceAge_s": _FACE_AGE, **_FINAL}),
    BehaviorClass("Singing", singing,
                  "`Singing_GetIn`, the song (`audioSwitch`'s own clip, else the tempo's trigger), `Singing_GetOut`",
                  {"audioSwitchGroup": Param("str", default="Cozmo_Sings_120Bpm", choices=tuple(SONG_TRIGGERS),
                                             doc="the tempo: which `Singing_<bpm>bpm` trigger sings"),
                   "audioSwitch": Param("str", doc="the song (`Cozmo_Sings_Row_Your_Boat` …)"),
                   "songAnimTrigger": Param("str", doc="sing this trigger instead of the tempo's"),
                   "getInAnimTrigger": Param("str", default="Singing_GetIn", doc="before the song (\"\": none)"),
                   "getOutAnimTrigger": Param("str", default="Singing_GetOut", doc="after the song (\"\": none)"),
                   **_FINAL}),
    BehaviorClass("RequestGameSimple", request_game_simple,
                  "turns to the person, plays the request, waits with its idle clip for a poke, tap or the "
                  "button; pleased, or the deny clip",
                  {"initial_animName": Param("str", doc="before the request"),
                   "preDrive_animName": Param("str", doc="before driving a cube over (with a cube only; not played)"),
                   "request_animName": Param("str", doc="the request"),
                   "idle_animName": Param("str", doc="looped while it waits"),
                   "deny_animName": Param("str", doc="nobody answered"),
                   "minRequestDelay_s": Param("number", default=5.0, minimum=0.5, doc="how long it waits (s)"),
                   "score_factor": Param("number", default=1.0, minimum=0.0, doc="the app's score factor without "
                                                                                 "a cube (kept for the chooser)"),
                   "use_block": Param("bool", default=True, doc="the app's: ask with a cube when one is known"),
                   "answeredBy": Param("str_list", default=list(ANSWER_KINDS), choices=tuple(sorted(EVENT_KINDS)),
                                       doc="robot events that answer it"),
                   "maxFaceAge_s": _FACE_AGE,
                   "acceptAnimTrigger": Param("str", default="Happy", doc="played when answered"),
                   "acceptEmotionEvent": Param("str", default="RequestToPlayAccepted", doc="fired when answered"),
                   "denyEmotionEvent": Param("str", default="RequestToPlayIgnored", doc="fired when ignored"),
                   **_FINAL},
                  sections=("zero_block_config",)),
    BehaviorClass("FistBump", fist_bump,
                  "turns to the person, raises its fist (the lift), waits for a bump while `FistBumpIdle` plays; "
                  "`FistBumpSuccess`, or asks again and then `FistBumpLeftHanging`",
                  {"maxTimeToLookForFace_s": Param("number", default=3.0, minimum=0.0,
                                                   doc="how long it looks up for a face it does not know of (s)"),
                   "abortIfNoFaceFound": Param("bool", default=True, doc="give up without a face"),
                   "maxFaceAge_s": _FACE_AGE,
                   "maxAttempts": Param("int", default=2, minimum=1, maximum=5, doc="asks in all"),
                   "requestAnimTrigger": Param("str", default="FistBumpRequestOnce", doc="the first ask"),
                   "retryAnimTrigger": Param("str", default="FistBumpRequestRetry", doc="asking again"),
                   "idleAnimTrigger": Param("str", default="FistBumpIdle", doc="played while it waits for the bump"),
                   "successAnimTrigger": Param("str", default="FistBumpSuccess", doc="bumped"),
                   "failAnimTrigger": Param("str", default="FistBumpLeftHanging", doc="not bumped"),
                   "successEmotionEvent": Param("str", default="FistBumpSuccess", doc="fired when bumped"),
                   "failEmotionEvent": Param("str", default="FistBumpLeftHanging", doc="fired when left hanging"),
                   **_FINAL}),
)
