"""KeepAway: the person teases Cozmo with a cube; Cozmo pounces when it goes still.

The app's keep-away had the cube held in front of Cozmo, which watched its markers; this robot
does not see its cubes, so it feels the tease through the cube's own reports instead (the
project's class, no lifting and no docking): a cube sends ObjectMoved when it starts moving and
ObjectStoppedMoving once it is still again. The cube glows ``PounceReady`` while Cozmo crouches
(``PounceGetReady``). Moved, the cube has Cozmo's attention; once it has stopped and stayed still
a moment (``settle_s``, a random pause: Cozmo waits for its chance), Cozmo pounces
(``PouncePounce``). A cube that moves again within ``escape_s`` of the pounce was pulled away in
time: Cozmo missed (``PounceFail``, the cube ``CubePouncePlayerWin``); else it caught it
(``PounceSuccess``, the cube ``PounceCaught``). ``rounds`` pounces, or until nobody teases for
``waitForTease_s``.
"""

from __future__ import annotations

import logging
from typing import Any

from py_trees.behaviour import Behaviour
from py_trees.common import Status

from brain.context import BrainContext

from .behavior_class import BehaviorClass, BehaviorSpec
from .cube_play import CubeGame, light_param, triggers_param
from .params import Param
from .status import RUNNING, SUCCESS

__all__ = ["KEEP_AWAY_CLASSES", "KeepAway"]

log = logging.getLogger(__name__)


class KeepAway(CubeGame):
    """The tease-and-pounce game (see the module docstring); ``v`` are the class's parameters."""

    def __init__(self, name: str, ctx: BrainContext, values: dict[str, Any]) -> None:
        super().__init__(name, ctx, values)
        self.cube: int | None = None
        self.phase = "wait"
        self.since = 0.0
        #: the cube is moving (between its ObjectMoved and ObjectStoppedMoving)
        self.moving = False
        #: when it stopped after a tease, and how long Cozmo waits then before it pounces
        self.still_at: float | None = None
        self.wait_s = 0.0
        self.pounces = 0
        self.caught = 0
        self._seen = 0.0

    def _lights(self, trigger: str) -> None:
        if self.cube is not None:
            self.light(trigger, [self.cube])

    def _cube_events(self) -> list[Any]:
        """The cube's moves and stops since the last tick, oldest first."""
        events = [e for kind in ("cube_moved", "cube_stopped")
                  for e in self.ctx.recent_events(kind, since=self._seen) if int(e.object_id) == self.cube]
        self._seen = self.ctx.now()
        return sorted(events, key=lambda e: float(e.at))

    def _enter(self, phase: str) -> None:
        self.phase, self.since = phase, self.ctx.now()
        self.describe(phase=phase, pounces=self.pounces, caught=self.caught)

    def initialise(self) -> None:
        connected = self.connected_cubes()
        self.cube = connected[0] if connected else None
        self.pounces = self.caught = 0
        self.moving, self.still_at, self._seen = False, None, self.ctx.now()
        if self.cube is None:
            return
        self.hold()
        self._lights(self.v["readyLights"])
        self.clips.play(*self.v["getReadyAnimTrigger"])
        self._enter("wait")

    def update(self) -> Status:
        if self.cube is None:
            return self.fail("no cube connected")
        now, v = self.ctx.now(), self.v
        moved = False
        for event in self._cube_events():
            if event.kind == "cube_moved":
                self.moving, self.still_at, moved = True, None, True
            elif self.moving:
                self.moving, self.still_at = False, float(event.at)
                self.wait_s = self.ctx.rng.uniform(*v["settle_s"])
        if self.phase == "end":
            if self.clips.done():
                self._lights("")
                return SUCCESS
        elif self.phase == "wait":
            if self.still_at is not None and now - self.still_at >= self.wait_s and self.clips.done():
                self.pounces += 1
                self.still_at = None
                self.clips.play(*v["pounceAnimTrigger"])
                self._enter("pounce")
            elif not self.moving and self.still_at is None and now - self.since > v["waitForTease_s"]:
                self._finish("nobody teased")
        elif self.phase == "pounce":
            if moved and now - self.since <= v["escape_s"]:
                self._round(caught=False)
            elif now - self.since > v["escape_s"] and self.clips.done():   # the pounce lands
                self._round(caught=True)
        elif self.phase == "reacted" and self.clips.done():
            if self.pounces >= v["rounds"]:
                self._finish("game over")
            else:
                self.moving, self.still_at = False, None
                self._lights(v["readyLights"])
                self.clips.play(*v["getReadyAnimTrigger"])
                self._enter("wait")
        return RUNNING

    def _round(self, caught: bool) -> None:
        v = self.v
        self.caught += caught
        log.info("%s: pounce %d %s", self.name, self.pounces, "caught the cube" if caught else "missed: pulled away")
        self._lights(v["caughtLights" if caught else "missedLights"])
        self.clips.play(*v["caughtAnimTrigger" if caught else "missedAnimTrigger"])
        self.ctx.fire_emotion(v["caughtEmotionEvent" if caught else "missedEmotionEvent"])
        self._enter("reacted")

    def _finish(self, why: str) -> None:
        log.info("%s: %s, %d of %d pounces caught", self.name, why, self.caught, self.pounces)
        if self.pounces:
            self.ctx.fire_emotion(self.v["finalEmotionEvent"])
        self._enter("end")

    def terminate(self, new_status: Status) -> None:
        super().terminate(new_status)
        if new_status is not SUCCESS:
            self._lights("")


def keep_away(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """KeepAway: teased with a cube, it pounces when the cube goes still (see the module)."""
    return KeepAway(spec.behavior_id, ctx, dict(spec.values))


KEEP_AWAY_CLASSES: tuple[BehaviorClass, ...] = (
    BehaviorClass(
        "KeepAway", keep_away,
        "teased with a cube moved about, it pounces once the cube has stopped a moment: caught, or "
        "missed when the cube is pulled away in time",
        {"rounds": Param("int", default=3, minimum=1, maximum=20, doc="pounces in a game"),
         "waitForTease_s": Param("number", default=15.0, minimum=1.0, maximum=300.0,
                                 doc="it gives up when nobody teases for this long (s)"),
         "settle_s": Param("range", default=(0.4, 1.2), doc="how long the cube stays still before it pounces (s)"),
         "escape_s": Param("number", default=0.8, minimum=0.1, maximum=5.0,
                           doc="a move this soon after the pounce began pulls the cube away in time (s)"),
         "getReadyAnimTrigger": triggers_param(["PounceGetReady"], "the crouch before a pounce"),
         "pounceAnimTrigger": triggers_param(["PouncePounce"], "the pounce"),
         "caughtAnimTrigger": triggers_param(["PounceSuccess"], "it caught the cube"),
         "missedAnimTrigger": triggers_param(["PounceFail"], "the cube got away"),
         "readyLights": light_param("PounceReady", "waiting for a tease"),
         "caughtLights": light_param("PounceCaught", "caught"),
         "missedLights": light_param("CubePouncePlayerWin", "got away"),
         "caughtEmotionEvent": Param("str", default="PounceSuccess", doc="fired when it catches the cube"),
         "missedEmotionEvent": Param("str", default="PounceFail", doc="fired when it misses"),
         "finalEmotionEvent": Param("str", default="PlayedKeepAway", doc="fired after a game with a pounce")}),
)
