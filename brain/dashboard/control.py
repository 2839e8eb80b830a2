"""The dashboard's interventions: poke the simulated world, run a behaviour, set an emotion, reload.

Each request is one JSON object with an ``action``:

- ``{"action": "sim", "event": "pick_up", ...}``: a timeline event for the in-process simulator
  (``run --sim``), with the fields a ``--sim-script`` step takes (``{"event": "cliff", "for": 2}``);
- ``{"action": "behavior", "name": "Pounce"}``: run a Cozmo behaviour (an ID of the resource set or
  a behaviour class) now;
- ``{"action": "clip", "name": "anim_..."}``: play a clip, or an animation trigger's clip, now;
- ``{"action": "emotion", "emotion": "Happy", "value": 0.8}``: set an emotion;
- ``{"action": "camera", "on": true}``: switch the camera and its vision (faces, motion) on or off
  (``run`` leaves it off: it costs a worker thread's CPU);
- ``{"action": "reload"}``: reload the personality (the answer carries the errors of a broken one,
  ``file:line: key: message``).

A behaviour or clip runs like a reaction of priority :data:`RUN_PRIORITY`: it interrupts the
personality (which resumes afterwards) and the minor reactions, and the safety reactions (cliff,
pick-up …, priority 80 and up in the default personality) interrupt it. Whatever changes the brain
is done at the start of the next heartbeat beat, where the tree's other inputs are taken.

Every request is logged (who asked, what, the outcome) and shown in the event log. Against a
real robot they are all refused unless ``dashboard.allow_control`` is set: the page is for
looking, and a robot that moves by itself should not also be moved by whoever finds the page.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any

from brain.reactions import PENDING_TTL_S, Reaction

from .monitor import Monitor

__all__ = ["RUN_PRIORITY", "SIM_BUTTONS", "ControlError", "Controls"]

log = logging.getLogger(__name__)

#: Priority of a behaviour or clip run from the dashboard (see the module notes).
RUN_PRIORITY = 50
#: The world events the page offers as buttons: (label, the step's fields); those the simulator
#: does not know are left out.
SIM_BUTTONS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("pick up", {"event": "pick_up"}),
    ("put down", {"event": "put_down"}),
    ("poke", {"event": "poke"}),
    ("cube tap", {"event": "cube_tap", "object_id": 1, "taps": 1}),
    ("button", {"event": "button"}),
    ("cliff", {"event": "cliff", "for": 2.0}),
    ("fall", {"event": "fall"}),
    ("on its back", {"event": "orientation", "orientation": "on_back", "for": 3.0}),
    ("on charger", {"event": "on_charger"}),
    ("off charger", {"event": "off_charger"}),
    ("a face appears", {"event": "face", "face": "visitor", "bearing_deg": 0.0}),
    ("the face leaves", {"event": "face_leaves", "face_leaves": "visitor"}),
)
#: How long a request waits for the beat that carries it out (s).
BEAT_WAIT_S = 5.0


class ControlError(Exception):
    """A request that is refused or cannot be done: ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Controls:
    """Carries out the page's requests against one brain (see the module notes).

    ``allowed`` is False against a real robot without ``dashboard.allow_control``; ``simulator``
    is the in-process simulated Cozmo of ``run --sim`` (None otherwise); ``reload`` asks the
    daemon to reload the personality and returns None or the error text; ``camera_on`` starts
    the camera and its vision as the daemon's settings say (None: the driver's defaults).
    """

    def __init__(self, monitor: Monitor, *, allowed: bool, refusal: str = "", simulator: Any = None,
                 reload: Callable[[], Awaitable[str | None]] | None = None,
                 camera_on: Callable[[], None] | None = None) -> None:
        self.monitor = monitor
        self.allowed = allowed
        self.refusal = refusal
        self.simulator = simulator
        self.reload = reload
        self.camera_on = camera_on
        self.brain: Any = None
        self._pending: list[tuple[Callable[[float], Any], asyncio.Future[Any]]] = []
        self._unsubscribe: Callable[[], None] = lambda: None

    def attach(self, brain: Any) -> None:
        """Act on ``brain`` from now on (its heartbeat carries out the requests)."""
        self.brain = brain
        self._unsubscribe = brain.heartbeat.subscribe("events", self._on_beat)

    def close(self) -> None:
        """Stop acting; requests still waiting for a beat are refused."""
        self._unsubscribe()
        for _, future in self._pending:
            if not future.done():
                future.set_exception(ControlError(503, "the daemon is stopping"))
        self._pending.clear()

    # ------------------------------------------------------------------ what the page may offer

    def describe(self) -> dict[str, Any]:
        """What the page offers: whether it may act, the world's buttons and the names it can run."""
        from driver.sim.script import EVENTS

        out: dict[str, Any] = {"allowed": self.allowed, "refusal": self.refusal, "sim": self.simulator is not None,
                               "sim_buttons": [{"label": label, "step": step} for label, step in SIM_BUTTONS
                                               if step["event"] in EVENTS] if self.simulator is not None else []}
        brain = self.brain
        resources = getattr(brain, "resources", None)
        if resources is not None:
            from brain.nodes.registry import BEHAVIOR_CLASSES

            out["behaviors"] = sorted({*getattr(resources, "behaviors", {}), *BEHAVIOR_CLASSES})
            clips = getattr(resources, "clips", None)
            out["clips"] = sorted(clips.names()) if clips is not None else []
            out["triggers"] = sorted(getattr(resources, "anim_triggers", {}) or {})
        if brain is not None and brain.ctx.mood is not None:
            mood = brain.ctx.mood
            out["emotions"] = {e: list(mood.config.range_for(e)) for e in mood.emotion_types}
        return out

    # ------------------------------------------------------------------ requests

    async def act(self, request: Any, who: str) -> dict[str, Any]:
        """Carry out one request; returns the answer, raises :class:`ControlError` when refused."""
        if not isinstance(request, dict):
            raise ControlError(400, "expected a JSON object such as {\"action\": \"reload\"}")
        action = request.get("action")
        handlers = {"sim": self._sim, "behavior": self._behavior, "clip": self._clip, "emotion": self._emotion,
                    "reload": self._reload, "camera": self._camera}
        handler = handlers.get(action) if isinstance(action, str) else None
        if handler is None:
            raise ControlError(400, f"action: expected one of {', '.join(handlers)}, got {action!r}")
        what = _summary(request)
        if not self.allowed:
            log.warning("dashboard: refused %s from %s: %s", what, who, self.refusal)
            self.monitor.note("control", "refused", f"refused {what} from {who}: {self.refusal}")
            raise ControlError(403, self.refusal)
        if self.brain is None and action != "sim":
            raise ControlError(409, "the brain is not running yet (waiting for the robot)")
        try:
            answer = await handler(request)
        except ControlError as exc:
            log.warning("dashboard: %s from %s failed: %s", what, who, exc)
            self.monitor.note("control", "failed", f"{what} from {who} failed: {exc}")
            raise
        log.info("dashboard: %s from %s: %s", what, who, answer.get("message", "done"))
        self.monitor.note("control", str(action), f"{what} from {who}: {answer.get('message', 'done')}")
        return answer

    def _on_beat(self, events: list[Any], now: float) -> None:
        """Heartbeat handler: carry out what waits for a beat."""
        pending, self._pending = self._pending, []
        for work, future in pending:
            if future.done():
                continue
            try:
                future.set_result(work(now))
            except ControlError as exc:
                future.set_exception(exc)
            except Exception as exc:  # a request must never break the beat
                log.exception("dashboard request failed")
                future.set_exception(ControlError(500, f"{type(exc).__name__}: {exc}"))

    async def _on_next_beat(self, work: Callable[[float], Any]) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.append((work, future))
        try:
            return await asyncio.wait_for(future, BEAT_WAIT_S)
        except asyncio.TimeoutError:
            raise ControlError(503, f"no heartbeat beat within {BEAT_WAIT_S:g} s") from None

    async def _sim(self, request: dict[str, Any]) -> dict[str, Any]:
        from driver.sim.script import ScriptError, make_step

        if self.simulator is None:
            raise ControlError(409, "world events need the in-process simulator (run --sim)")
        fields = {k: v for k, v in request.items() if k != "action"}
        try:
            step = make_step(fields, where="sim event")
        except ScriptError as exc:
            raise ControlError(400, str(exc)) from None
        self.simulator.run_step(step)
        return {"ok": True, "message": f"simulator: {step.event}"}

    async def _behavior(self, request: dict[str, Any]) -> dict[str, Any]:
        name = _name(request)
        node = self._build({"behavior": name})
        return await self._run(f"behavior {name}", node)

    async def _clip(self, request: dict[str, Any]) -> dict[str, Any]:
        from brain.personality.located import suggest

        name = _name(request)
        resources = self.brain.resources
        clips = getattr(resources, "clips", None)
        triggers = getattr(resources, "anim_triggers", None) or {}
        if clips is not None and name in clips:
            spec: dict[str, Any] = {"type": "play_clip", "params": {"clip": name}}
        elif name in triggers:
            spec = {"type": "play_animation", "params": {"trigger": name}}
        else:
            known = [*(clips.names() if clips is not None else []), *triggers]
            raise ControlError(400, f"name: no clip or animation trigger {name!r}{suggest(name, known)}")
        return await self._run(f"clip {name}", self._build(spec))

    def _build(self, spec: dict[str, Any]) -> Any:
        """A node from a personality-file spec, checked as the personality's own nodes are."""
        from brain.personality.builder import Builder
        from brain.personality.issues import IssueList
        from brain.personality.located import LMap, Loc

        loc = Loc("dashboard")

        def located(value: Any) -> Any:
            if not isinstance(value, dict):
                return value
            out = LMap(loc)
            for key, item in value.items():
                out.put(key, located(item), loc)
            return out

        issues = IssueList()
        node, _ = Builder(LMap(loc), self.brain.ctx, issues, {}).build(located(spec), loc, "dashboard")
        if node is None or issues.errors:
            raise ControlError(400, "; ".join(i.message for i in issues.items) or "cannot build it")
        return node

    async def _run(self, what: str, node: Any) -> dict[str, Any]:
        reaction = Reaction(trigger=f"dashboard: {what}", root=node, priority=RUN_PRIORITY, should_resume_last=True)

        def start(now: float) -> dict[str, Any]:
            if self.brain.suspended is not None:
                raise ControlError(409, f"the personality is suspended ({self.brain.suspended})")
            runner = self.brain.reactions
            if runner.offer(reaction):
                return {"ok": True, "message": f"{what} started"}
            active = runner.active
            if runner.pending is reaction and active is not None:
                return {"ok": True, "message": f"{what} waits for reaction {active.trigger} (priority "
                                              f"{active.priority}) to end, for up to {PENDING_TTL_S:g} s"}
            raise ControlError(409, f"{what} cannot start now: reaction "
                                    f"{active.trigger if active else '?'} runs and another waits")

        return dict(await self._on_next_beat(start))

    async def _emotion(self, request: dict[str, Any]) -> dict[str, Any]:
        mood = self.brain.ctx.mood
        if mood is None:
            raise ControlError(409, "this brain has no mood")
        emotion, value = request.get("emotion"), request.get("value")
        if not isinstance(emotion, str) or emotion not in mood.emotion_types:
            raise ControlError(400, f"emotion: expected one of {', '.join(mood.emotion_types)}, got {emotion!r}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ControlError(400, f"value: expected a number, got {value!r}")

        def apply(now: float) -> dict[str, Any]:
            current = self.brain.ctx.mood  # the mood of the personality running now
            current.set_value(emotion, float(value), now)
            return {"ok": True, "message": f"{emotion} set to {current.value(emotion):.2f}"}

        return dict(await self._on_next_beat(apply))

    async def _camera(self, request: dict[str, Any]) -> dict[str, Any]:
        on = request.get("on", True)
        if not isinstance(on, bool):
            raise ControlError(400, f"on: expected true or false, got {on!r}")
        robot = self.brain.robot
        if on == (robot.vision is not None):
            return {"ok": True, "message": f"the camera is {'on' if on else 'off'} already"}
        if not on:
            await robot.stop_vision()
            return {"ok": True, "message": "camera off"}
        try:
            if self.camera_on is not None:
                self.camera_on()
            else:
                robot.start_vision()
        except Exception as exc:  # a detector or decoder that cannot load: say which
            raise ControlError(409, f"the camera cannot start: {exc}") from None
        return {"ok": True, "message": "camera on"}

    async def _reload(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.reload is None:
            raise ControlError(409, "this daemon cannot reload")
        error = await self.reload()
        if error is not None:
            return {"ok": False, "error": error, "message": "reload failed, the running personality stays"}
        return {"ok": True, "message": f"personality {getattr(self.brain.personality, 'name', '')} reloaded"}


def _name(request: dict[str, Any]) -> str:
    name = request.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ControlError(400, f"name: expected a name, got {name!r}")
    return name.strip()


def _summary(request: dict[str, Any]) -> str:
    """The request in a few words for the log."""
    action = request.get("action")
    if action == "sim":
        return f"world event {request.get('event')}"
    if action in ("behavior", "clip"):
        return f"{action} {request.get('name')}"
    if action == "emotion":
        return f"emotion {request.get('emotion')} = {request.get('value')}"
    if action == "camera":
        return f"camera {'on' if request.get('on', True) else 'off'}"
    return str(action)
