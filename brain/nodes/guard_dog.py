"""GuardDog: Cozmo pretends to nap beside its cubes and catches anyone who moves them.

As Anki's GuardDog: the cubes show ``GuardDogSetup`` while Cozmo settles in (``GuardDogPulse``,
``GuardDogSettle``), then go dark (``GuardDogSleeping``), each cube streams its accelerometer
and Cozmo "sleeps" (``GuardDogSleepLoop``). A cube's movement score (:class:`driver.cubes.CubeMotion`,
from the streamed readings) above ``movementScoreDetectionThreshold`` counts it as moved: Cozmo
stirs (``GuardDogFakeout``) and the cube shows ``GuardDogBeingMoved``; at ``movementScoreMax``,
once the grace period after falling asleep is over, or once every cube was moved, it is
**busted** (``GuardDogBusted``, the cubes ``GuardDogBusted``). A cube turned upside down (its up
axis ``Z_NEGATIVE``) without being caught is flipped (``GuardDogSuccessfullyFlipped``); every cube
flipped, the player wins (``GuardDogTimeout`` then ``GuardDogPlayerSuccess``). Nobody plays: after
``sleepingMinDuration_s`` with ``sleepingTimeoutAfterCubeMotion_s`` of calm, or at
``sleepingMaxDuration_s``, it wakes (``GuardDogTimeout``) and checks its cubes
(``GuardDogTimeoutCubesUntouched`` / ``…Touched``). A cube that disconnects ends it
(``GuardDogCubeDisconnect``); one moved before Cozmo is asleep calls the game off.

Anki's started only with all three cubes seen, upright and together, and drove up to them; this
robot does not see its cubes, so it guards every connected cube (at least ``minCubes``) where
it is. The reactions to cube taps and moves are held off while it plays.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from py_trees.behaviour import Behaviour
from py_trees.common import Status

from brain.context import BrainContext

from .behavior_class import BehaviorClass, BehaviorSpec
from .cube_play import CubeGame, light_param, triggers_param
from .params import Param
from .status import RUNNING, SUCCESS

__all__ = ["GUARD_DOG_CLASSES", "GuardDog"]

log = logging.getLogger(__name__)


@dataclass
class _Guarded:
    """One cube under guard: moved (detected), flipped, its highest score."""

    slot: int
    moved: bool = False
    flipped: bool = False
    top_score: float = 0.0
    light: str = ""


class GuardDog(CubeGame):
    """The GuardDog game (see the module docstring); ``v`` are the class's parameters."""

    def __init__(self, name: str, ctx: BrainContext, values: dict[str, Any]) -> None:
        super().__init__(name, ctx, values)
        self.cubes: dict[int, _Guarded] = {}
        self.phase = "setup"
        self.since = 0.0
        self.asleep_at: float | None = None
        self.last_motion = 0.0
        self.outcome: str | None = None
        self._events_from = 0.0
        self._streaming = False

    # parts -------------------------------------------------------------------------------------

    def _light(self, trigger: str, slot: int | None = None) -> None:
        slots = [slot] if slot is not None else list(self.cubes)
        if self.light(trigger, slots):
            for s in slots:
                if s in self.cubes:
                    self.cubes[s].light = trigger

    def _stream(self, enable: bool) -> None:
        robot = self.ctx.robot
        if robot is None or enable == self._streaming:
            return
        self._streaming = enable
        for slot in self.cubes:
            try:
                robot.stream_cube_accel(slot, enable)
            except Exception as exc:  # a lost robot: nothing streams anyway
                log.debug("%s: stream %s for cube %d: %s", self.name, enable, slot, exc)

    def _enter(self, phase: str) -> None:
        self.phase, self.since = phase, self.ctx.now()
        moved = sum(c.moved for c in self.cubes.values())
        flipped = sum(c.flipped for c in self.cubes.values())
        self.describe(phase=phase, cubes=len(self.cubes), moved=moved, flipped=flipped)

    def _end(self, outcome: str, *triggers: str) -> None:
        self.outcome = outcome
        self._stream(False)
        log.info("%s: %s (%d of %d cubes moved, %d flipped)", self.name, outcome,
                 sum(c.moved for c in self.cubes.values()), len(self.cubes),
                 sum(c.flipped for c in self.cubes.values()))
        self.clips.play(*triggers)
        self._enter("end")

    def _new_events(self, kind: str) -> list[Any]:
        return [e for e in self.ctx.recent_events(kind, since=self._events_from)
                if int(getattr(e, "object_id", -1)) in self.cubes]

    # the tree's side ---------------------------------------------------------------------------

    def initialise(self) -> None:
        self.cubes = {s: _Guarded(s) for s in self.connected_cubes()}
        self.asleep_at, self.outcome, self._events_from = None, None, self.ctx.now()
        if len(self.cubes) < self.v["minCubes"] or self.ctx.robot is None:
            return
        self.hold()
        self._light(self.v["setupLights"])
        self.clips.play(*self.v["pulseAnimTrigger"], *self.v["settleAnimTrigger"])
        self._enter("setup")

    def update(self) -> Status:
        if self.ctx.robot is None:
            return self.fail("no robot")
        if len(self.cubes) < self.v["minCubes"]:
            return self.fail(f"{len(self.cubes)} cubes connected, {self.v['minCubes']} wanted")
        now = self.ctx.now()
        gone = [e for e in self._new_events("cube_connection") if not e.connected]
        moved = self._new_events("cube_moved")
        turned = self._new_events("cube_up_axis")
        self._events_from = now
        if self.phase == "end":
            if self.clips.done():
                self._light("")
                self.ctx.fire_emotion(self.v["finalEmotionEvent"])
                return SUCCESS
            return RUNNING
        if gone:
            self._end("a cube disconnected", *self.v["cubeDisconnectAnimTrigger"])
        elif self.phase == "setup":
            if moved or turned:
                self.clips.cancel()
                self._stream(False)
                return self.fail("a cube moved before it was asleep")
            if self.clips.done():
                self._light(self.v["sleepingLights"])
                self._stream(True)
                self.asleep_at = self.last_motion = now
                self.clips.play(*self.v["sleepLoopAnimTrigger"])
                self._enter("sleeping")
        else:
            self._guard(now, turned)
        return RUNNING

    def _guard(self, now: float, turned: list[Any]) -> None:
        """Asleep (or stirring): watch the scores and the flips; busted, beaten or timed out."""
        v, robot = self.v, self.ctx.robot
        assert self.asleep_at is not None and robot is not None
        for event in turned:
            cube = self.cubes[int(event.object_id)]
            if not cube.flipped and event.axis == "Z_NEGATIVE":
                cube.flipped = True
                self.last_motion = now
                self._light(v["flippedLights"], cube.slot)
        stir = False
        for cube in self.cubes.values():
            if cube.flipped:
                continue
            score = robot.cube_movement(cube.slot) or 0.0
            cube.top_score = max(cube.top_score, score)
            if score >= v["movementScoreMax"] and now - self.asleep_at > v["maxMovementBustedGracePeriod_s"]:
                self._bust(f"cube {cube.slot} moved too much (score {score:.0f})")
                return
            if score > v["movementScoreDetectionThreshold"]:
                self.last_motion = now
                if not cube.moved:
                    cube.moved = stir = True
                if cube.light != v["beingMovedLights"]:
                    self._light(v["beingMovedLights"], cube.slot)
            elif cube.light == v["beingMovedLights"]:
                self._light(v["sleepingLights"], cube.slot)
        if all(c.flipped for c in self.cubes.values()):
            self._end("beaten: every cube flipped", *v["timeoutAnimTrigger"], *v["playerSuccessAnimTrigger"])
        elif all(c.moved for c in self.cubes.values()):
            self._bust("every cube moved")
        elif now - self.asleep_at > v["sleepingMaxDuration_s"] or (
                now - self.asleep_at > v["sleepingMinDuration_s"]
                and now - self.last_motion > v["sleepingTimeoutAfterCubeMotion_s"]):
            touched = any(c.moved or c.flipped for c in self.cubes.values())
            self._end("woke up: cubes " + ("touched" if touched else "untouched"), *v["timeoutAnimTrigger"],
                      *v["timeoutTouchedAnimTrigger" if touched else "timeoutUntouchedAnimTrigger"])
        elif stir:
            self.clips.play(*v["fakeoutAnimTrigger"], *v["sleepLoopAnimTrigger"])
            self._enter("fakeout")
        elif self.clips.done():
            self.clips.play(*v["sleepLoopAnimTrigger"])
            if self.phase != "sleeping":
                self._enter("sleeping")

    def _bust(self, why: str) -> None:
        self._light(self.v["bustedLights"])
        self._end(f"busted: {why}", *self.v["bustedAnimTrigger"])

    def terminate(self, new_status: Status) -> None:
        super().terminate(new_status)
        self._stream(False)
        if new_status is not SUCCESS and self.cubes:
            self._light("")


def guard_dog(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """GuardDog: a pretend nap beside the connected cubes, busted or beaten (see the module)."""
    return GuardDog(spec.behavior_id, ctx, dict(spec.values))


def _seconds(default: float, doc: str) -> Param:
    return Param("number", default=default, minimum=0.0, maximum=3600.0, doc=doc)


GUARD_DOG_CLASSES: tuple[BehaviorClass, ...] = (
    BehaviorClass(
        "GuardDog", guard_dog,
        "pretends to nap beside its connected cubes, each streaming its accelerometer; a cube moved "
        "wakes it a little, moved too much (or every cube moved) and it is busted; every cube turned "
        "upside down unnoticed and the player wins",
        {"minCubes": Param("int", default=1, minimum=1, maximum=3, doc="connected cubes it needs to play"),
         "sleepingMinDuration_s": _seconds(60.0, "it stays asleep at least this long (s)"),
         "sleepingMaxDuration_s": _seconds(120.0, "and at most this long (s)"),
         "sleepingTimeoutAfterCubeMotion_s": _seconds(20.0, "after the least time, it wakes once the cubes "
                                                            "have been still this long (s)"),
         "movementScoreDetectionThreshold": Param("number", default=40.0, minimum=1.0, maximum=200.0,
                                                  doc="a cube scoring above this was moved"),
         "movementScoreMax": Param("number", default=80.0, minimum=1.0, maximum=200.0,
                                   doc="a cube reaching this score busts the player (after the grace period)"),
         "maxMovementBustedGracePeriod_s": _seconds(10.0, "no bust for a high score this soon after it fell "
                                                          "asleep (s)"),
         "pulseAnimTrigger": triggers_param(["GuardDogPulse"], "the start"),
         "settleAnimTrigger": triggers_param(["GuardDogSettle"], "settling in"),
         "sleepLoopAnimTrigger": triggers_param(["GuardDogSleepLoop"], "looped while it sleeps"),
         "fakeoutAnimTrigger": triggers_param(["GuardDogFakeout"], "a cube was moved: it stirs"),
         "bustedAnimTrigger": triggers_param(["GuardDogBusted"], "caught someone"),
         "timeoutAnimTrigger": triggers_param(["GuardDogTimeout"], "waking up"),
         "timeoutUntouchedAnimTrigger": triggers_param(["GuardDogTimeoutCubesUntouched"], "nobody touched a cube"),
         "timeoutTouchedAnimTrigger": triggers_param(["GuardDogTimeoutCubesTouched"], "someone did, uncaught"),
         "playerSuccessAnimTrigger": triggers_param(["GuardDogPlayerSuccess"], "every cube flipped"),
         "cubeDisconnectAnimTrigger": triggers_param(["GuardDogCubeDisconnect"], "a cube left"),
         "setupLights": light_param("GuardDogSetup", "while it settles in"),
         "sleepingLights": light_param("GuardDogSleeping", "while it sleeps"),
         "beingMovedLights": light_param("GuardDogBeingMoved", "a cube being moved"),
         "bustedLights": light_param("GuardDogBusted", "caught"),
         "flippedLights": light_param("GuardDogSuccessfullyFlipped", "a cube flipped unnoticed"),
         "finalEmotionEvent": Param("str", default="PlayedGuardDog", doc="fired when it is over")}),
)
