"""Cube play without docking: the cubes' lights as a node, and a tap-to-react game.

* ``cube_lights``: plays a cube light trigger (``Flash``, ``PounceReady`` …: the resource set's
  cube trigger map) on top of what the connected cubes show; RUNNING while it plays (a pattern
  that holds plays until the node is stopped), the cubes back to their base when it stops.
* **TapGame** (the project's class; the app's quick-tap games needed the robot to tap the cube
  itself, that is, to dock): Cozmo asks for a game with the app's SpeedTap request clips while
  the cube glows (``Interacting``), and a tap on the cube says yes. Then ``rounds`` rounds: the
  cube shows ``PounceReady`` while Cozmo gets ready, and after a random wait it flashes
  (``Flash``); a tap within ``window_s`` of the flash wins the round for the person (Cozmo is
  beaten: ``PounceFail``, the cube ``CubePouncePlayerWin``), a tap before the flash or none in
  time wins it for Cozmo (``PounceSuccess``, ``CubePouncePlayerLose``). The game ends with
  Cozmo happy when it won more rounds, else frustrated; no answer to the request, it is denied.

Taps are the robot's ObjectTapped events for the chosen cube (the last one tapped, else the first
connected), as the world model files them. While it runs, the reactions to cube taps and moves are
held off (:data:`HELD_REACTIONS`): a tap is a move in the game, not a surprise.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from py_trees.behaviour import Behaviour
from py_trees.common import Status

from brain.context import BrainContext

from .actions import ContextBehaviour, _cancel
from .behavior_class import BehaviorClass, BehaviorSpec
from .params import Param
from .status import RUNNING, SUCCESS

__all__ = ["CUBE_PLAY_CLASSES", "HELD_REACTIONS", "Clips", "CubeGame", "CubeLightsNode", "TapGame", "light_param",
           "triggers_param"]

log = logging.getLogger(__name__)

#: Reactions a game with the cube holds off while it runs: the taps and moves are its moves.
HELD_REACTIONS = ("CubeTapped", "DoubleTapDetected", "CubeMoved")


class Clips:
    """Animation triggers played one after another from inside one node (a game's own timeline);
    a trigger that cannot play is skipped (logged), so a missing clip never ends a game."""

    def __init__(self, ctx: BrainContext, owner: str) -> None:
        self.ctx, self.owner = ctx, owner
        self._play: Any = None
        self._queue: list[str] = []

    def play(self, *triggers: str) -> None:
        """Cut short what plays and play ``triggers`` in turn."""
        self.cancel()
        self._queue = [t for t in triggers if t]
        self._next()

    def _next(self) -> None:
        anims = self.ctx.animations
        while self._queue and anims is not None:
            trigger = self._queue.pop(0)
            try:
                self._play = anims.play_trigger(trigger)
                return
            except Exception as exc:
                log.debug("%s: %s not played: %s", self.owner, trigger, exc)
        self._play = None

    def done(self) -> bool:
        """Whether everything asked for has played (moving on to the next trigger as one ends)."""
        while self._play is None or self._play.done():
            if not self._queue:
                self._play = None
                return True
            self._next()
        return False

    def cancel(self) -> None:
        """Stop what plays and forget the rest."""
        if self._play is not None and not self._play.done():
            _cancel(self._play)
        self._play, self._queue = None, []


class CubeGame(ContextBehaviour):
    """What the cube games share: their parameters (``v``), their own clips, the connected cubes,
    the cube reactions held off while a game runs, and lights on the game's cubes.

    A game calls :meth:`hold` once it starts, and its ``terminate`` calls this one (the clips stop
    and the reactions come back)."""

    def __init__(self, name: str, ctx: BrainContext, values: dict[str, Any]) -> None:
        super().__init__(name, ctx)
        self.v = values
        self.clips = Clips(ctx, name)
        self._holding = False

    def connected_cubes(self) -> list[int]:
        """The connected cubes' ids in order (as the cube lights know them, else the world model)."""
        lights = self.ctx.cube_lights
        if lights is not None:
            return sorted(lights.connected)
        return sorted(c.object_id for c in self.ctx.world.cubes.values() if c.connected)

    def hold(self) -> None:
        """Hold the reactions to cube taps and moves off (:data:`HELD_REACTIONS`) until the game ends."""
        if not self._holding:
            self.ctx.hold_reactions(HELD_REACTIONS, True)
            self._holding = True

    def light(self, trigger: str | None, cubes: Iterable[int]) -> bool:
        """Show cube light ``trigger`` on ``cubes`` over their base (none or empty: back to the
        base); False without cube lights."""
        lights = self.ctx.cube_lights
        if lights is None:
            return False
        now = self.ctx.now()
        for cube in cubes:
            lights.stop(None, now, cube)
            if trigger:
                lights.play(trigger, now, cube)
        return True

    def terminate(self, new_status: Status) -> None:
        self.clips.cancel()
        if self._holding:
            self.ctx.hold_reactions(HELD_REACTIONS, False)
            self._holding = False


def triggers_param(default: list[str], doc: str) -> Param:
    """A game's animation triggers parameter (played in turn)."""
    return Param("triggers", default=default, doc=doc)


def light_param(default: str, doc: str) -> Param:
    """A game's cube light trigger parameter."""
    return Param("str", default=default, doc=f"cube light trigger: {doc}")


class CubeLightsNode(ContextBehaviour):
    """Play cube light ``trigger`` on every connected cube (see the module docstring).

    FAILURE when no cube is connected or the trigger names no light animation; SUCCESS when a
    timed animation has ended; RUNNING while it plays. Stopped, the cubes go back to their base.
    """

    def __init__(self, name: str, ctx: BrainContext, trigger: str) -> None:
        super().__init__(name, ctx)
        self.trigger = trigger
        self._lit: list[int] = []

    def initialise(self) -> None:
        lights = self.ctx.cube_lights
        self._lit = lights.play(self.trigger, self.ctx.now()) if lights is not None else []

    def update(self) -> Status:
        lights = self.ctx.cube_lights
        if lights is None or not self._lit:
            if lights is not None and not lights.knows(self.trigger):
                return self.fail(f"no cube light animation {self.trigger!r}")
            return self.fail("no cube connected")
        if all(lights.playing(c) != self.trigger for c in self._lit):
            return SUCCESS
        return RUNNING

    def terminate(self, new_status: Status) -> None:
        lights = self.ctx.cube_lights
        if lights is not None and self._lit:
            for cube in self._lit:
                lights.stop(self.trigger, self.ctx.now(), cube)
        self._lit = []


class TapGame(CubeGame):
    """The tap-to-react game (see the module docstring); ``values`` are TapGame's parameters."""

    def __init__(self, name: str, ctx: BrainContext, values: dict[str, Any]) -> None:
        super().__init__(name, ctx, values)
        self.cube: int | None = None
        self.phase = "ask"
        self.phase_at = 0.0
        self.go_at = 0.0
        self.round = 0
        self.score = {"robot": 0, "person": 0}
        self.outcome: str | None = None

    # the parts ---------------------------------------------------------------------------------

    def _lights(self, trigger: str | None) -> None:
        if self.cube is not None:
            self.light(trigger, [self.cube])

    def _tapped_since(self, since: float) -> bool:
        return any(int(getattr(e, "object_id", -1)) == self.cube
                   for e in self.ctx.recent_events("cube_tapped", since=since))

    def _enter(self, phase: str) -> None:
        self.phase, self.phase_at = phase, self.ctx.now()
        self.describe(phase=phase, round=self.round, score=f"{self.score['robot']}-{self.score['person']}")

    def _pick_cube(self) -> int | None:
        connected = self.connected_cubes()
        if not connected:
            return None
        tapped = [c for c in self.ctx.world.cubes.values() if c.connected and c.last_tapped is not None
                  and c.object_id in connected]
        if tapped:
            return max(tapped, key=lambda c: c.last_tapped or 0.0).object_id
        return connected[0]

    # the tree's side ---------------------------------------------------------------------------

    def initialise(self) -> None:
        self.hold()
        self.cube = self._pick_cube()
        self.round, self.score, self.outcome = 0, {"robot": 0, "person": 0}, None
        if self.cube is None:
            return
        self._enter("ask")
        self._lights(self.v["askLights"])
        self.clips.play(*self.v["requestAnimTrigger"])

    def update(self) -> Status:
        if self.cube is None:
            return self.fail("no cube connected")
        now, v = self.ctx.now(), self.v
        if self.phase == "ask":
            if self._tapped_since(self.phase_at):
                self.ctx.fire_emotion(v["acceptEmotionEvent"])
                self._new_round()
            elif now - self.phase_at > v["waitForTap_s"]:
                self._lights(None)
                self.clips.play(*v["denyAnimTrigger"])
                self.ctx.fire_emotion(v["denyEmotionEvent"])
                self.outcome = "denied"
                self._enter("end")
            elif self.clips.done():
                self.clips.play(*v["idleAnimTrigger"])
        elif self.phase == "ready":
            if self._tapped_since(self.phase_at):
                self._scored("robot", "a tap before the flash")
            elif now >= self.go_at:
                self._lights(v["goLights"])
                self._enter("go")
        elif self.phase == "go":
            if self._tapped_since(self.phase_at):
                self._scored("person", f"tapped after {now - self.phase_at:.2f} s")
            elif now - self.phase_at > v["window_s"]:
                self._scored("robot", "no tap in time")
        elif self.phase == "scored":
            if self.clips.done() and now - self.phase_at >= v["pause_s"]:
                if self.round >= v["rounds"]:
                    self._finish()
                else:
                    self._new_round()
        elif self.phase == "end" and self.clips.done():
            self._lights(None)
            return SUCCESS
        return RUNNING

    def _new_round(self) -> None:
        self.round += 1
        self._lights(self.v["readyLights"])
        self.clips.play(*self.v["getReadyAnimTrigger"])
        lo, hi = self.v["readyWait_s"]
        self._enter("ready")
        self.go_at = self.phase_at + self.ctx.rng.uniform(lo, hi)

    def _scored(self, who: str, why: str) -> None:
        self.score[who] += 1
        log.info("%s: round %d to the %s (%s): %d-%d", self.name, self.round, who, why, self.score["robot"],
                 self.score["person"])
        robot_won = who == "robot"
        self._lights(self.v["robotWinsLights" if robot_won else "personWinsLights"])
        self.clips.play(*self.v["robotWinsRoundAnimTrigger" if robot_won else "personWinsRoundAnimTrigger"])
        self.ctx.fire_emotion(self.v["robotWinsRoundEmotionEvent" if robot_won else "personWinsRoundEmotionEvent"])
        self._enter("scored")

    def _finish(self) -> None:
        robot_won = self.score["robot"] > self.score["person"]
        self.outcome = "robot" if robot_won else "person"
        self._lights(None)
        self.clips.play(*self.v["robotWinsGameAnimTrigger" if robot_won else "personWinsGameAnimTrigger"])
        self.ctx.fire_emotion(self.v["finalEmotionEvent"])
        log.info("%s: game over, %d-%d: the %s won", self.name, self.score["robot"], self.score["person"],
                 self.outcome)
        self._enter("end")

    def terminate(self, new_status: Status) -> None:
        super().terminate(new_status)
        if self.cube is not None and new_status is not SUCCESS:
            self._lights(None)


def tap_game(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """TapGame: ask with the cube lit, a tap says yes, then ``rounds`` rounds of tap-on-the-flash."""
    return TapGame(spec.behavior_id, ctx, dict(spec.values))


CUBE_PLAY_CLASSES: tuple[BehaviorClass, ...] = (
    BehaviorClass(
        "TapGame", tap_game,
        "asks for a game with the cube lit (`RequestGameSpeedTap…`), a tap says yes; then rounds of "
        "tap-on-the-flash: the person scores tapping within the window, Cozmo on a tap too early or too late",
        {"rounds": Param("int", default=3, minimum=1, maximum=15, doc="rounds in a game"),
         "waitForTap_s": Param("number", default=12.0, minimum=1.0, maximum=120.0,
                               doc="how long it waits for the tap that starts the game (s)"),
         "readyWait_s": Param("range", default=(1.5, 4.0), doc="from getting ready to the flash (s)"),
         "window_s": Param("number", default=1.2, minimum=0.2, maximum=10.0,
                           doc="a tap this soon after the flash wins the round for the person (s)"),
         "pause_s": Param("number", default=1.0, minimum=0.0, maximum=30.0, doc="least time between rounds (s)"),
         "requestAnimTrigger": triggers_param(["RequestGameSpeedTapInitial0", "RequestGameSpeedTapRequest0"],
                                         "the request"),
         "idleAnimTrigger": triggers_param(["RequestGameSpeedTapIdle0"], "looped while it waits for the tap"),
         "denyAnimTrigger": triggers_param(["RequestGameSpeedTapDeny0"], "nobody tapped"),
         "getReadyAnimTrigger": triggers_param(["PounceGetReady"], "each round's start"),
         "robotWinsRoundAnimTrigger": triggers_param(["PounceSuccess"], "Cozmo took the round"),
         "personWinsRoundAnimTrigger": triggers_param(["PounceFail"], "the person took the round"),
         "robotWinsGameAnimTrigger": triggers_param(["Happy"], "Cozmo won the game"),
         "personWinsGameAnimTrigger": triggers_param(["FrustratedByFailure"], "the person won the game"),
         "askLights": light_param("Interacting", "while it asks"),
         "readyLights": light_param("PounceReady", "while it gets ready"),
         "goLights": light_param("Flash", "the flash to tap on"),
         "robotWinsLights": light_param("CubePouncePlayerLose", "Cozmo took the round"),
         "personWinsLights": light_param("CubePouncePlayerWin", "the person took the round"),
         "acceptEmotionEvent": Param("str", default="RequestToPlayAccepted", doc="fired on the tap that says yes"),
         "denyEmotionEvent": Param("str", default="RequestToPlayIgnored", doc="fired when nobody tapped"),
         "robotWinsRoundEmotionEvent": Param("str", default="PounceSuccess", doc="fired when Cozmo takes a round"),
         "personWinsRoundEmotionEvent": Param("str", default="PounceFail", doc="fired when the person does"),
         "finalEmotionEvent": Param("str", default="PlayedTapGame", doc="fired when a game is over")}),
)
