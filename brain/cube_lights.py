"""The light cubes' lights, played from the resources' cube light animations.

A cube light animation (``config/engine/lights/cubeLights/*.json``) is a list of stages, each a
pattern for the cube's four LEDs (on and off colours, on/off/fade times, offsets, a rotation
period) held for ``duration_ms`` (0: until something else is played). The cube animation trigger
map names them by event (``Connected``, ``CubeTapped``, ``Sleep``, ``WakeUp`` …), as Anki's engine
did, so a resource tree can restyle every cube light without touching a behaviour.

On the wire a pattern is CubeId (the cube's slot and the rotation period in 30 ms frames) then
CubeLights (four LightState records: RGB555 colours and 30 ms frame counts; hardware.md §5).

:class:`CubeLights` keeps, per connected cube, a *base* animation (what the cube shows when no
one asks for anything: ``Connected`` after it connects, ``Sleep`` while the robot sleeps) and at
most one animation *on top* of it; an on-top animation with a timed last stage falls back to the
base when it ends, one that holds (a last stage of 0 ms) stays until it is stopped. Behaviours
play on top (:meth:`CubeLights.play`, :meth:`CubeLights.stop`); the engine sets the base.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from brain.assets.records import CubeLightAnimation, CubeLightPattern
from driver.protocol import messages as m
from driver.protocol import rgb555

__all__ = ["FRAME_MS", "CubeLights", "light_states", "rotation_frames"]

log = logging.getLogger(__name__)

#: The lights' frame: LightState counts are 30 ms frames (hardware.md §5).
FRAME_MS = 30
_U8 = 255
_I16 = 32767


def _frames(ms: int, top: int = _U8) -> int:
    return max(-top - 1 if top == _I16 else 0, min(top, round(ms / FRAME_MS)))


def _color(rgba: tuple[float, ...]) -> int:
    r, g, b = (max(0, min(255, round(c * 255))) for c in rgba[:3])
    return rgb555(r, g, b)


def _at(seq: tuple[Any, ...], i: int, default: Any) -> Any:
    """LED ``i``'s entry of a per-LED list (a short list repeats its last entry)."""
    return seq[i] if i < len(seq) else (seq[-1] if seq else default)


def light_states(pattern: CubeLightPattern) -> list[Any]:
    """The four LightState records of a pattern (colours RGB555, times in 30 ms frames)."""
    out = []
    for i in range(4):
        def at(seq: tuple[Any, ...], default: Any, i: int = i) -> Any:
            return _at(seq, i, default)
        out.append(m.LightState(
            on_color=_color(at(pattern.on_colors, (0.0, 0.0, 0.0, 1.0))),
            off_color=_color(at(pattern.off_colors, (0.0, 0.0, 0.0, 1.0))),
            on_frames=_frames(at(pattern.on_period_ms, 0)), off_frames=_frames(at(pattern.off_period_ms, 0)),
            transition_on_frames=_frames(at(pattern.transition_on_period_ms, 0)),
            transition_off_frames=_frames(at(pattern.transition_off_period_ms, 0)),
            offset=_frames(at(pattern.offset_ms, 0), _I16)))
    return out


def rotation_frames(pattern: CubeLightPattern) -> int:
    """CubeId's rotation period (30 ms frames; 0: the pattern does not turn round the cube)."""
    return _frames(pattern.rotation_period_ms) if pattern.rotate is not False else 0


@dataclass
class _Playing:
    """An animation on one cube: which, which stage, when that stage ends (None: it holds)."""

    animation: CubeLightAnimation
    trigger: str
    stage: int
    ends_at: float | None


class CubeLights:
    """Plays cube light animations on the connected cubes (see the module docstring).

    ``robot`` needs ``set_cube_lights(object_id, states, rotation_frames)``; ``lights`` are the
    resource set's animations by name and ``triggers`` its cube trigger map (trigger -> name).
    Nothing is sent for a cube that is not connected.
    """

    def __init__(self, robot: Any, lights: Mapping[str, CubeLightAnimation],
                 triggers: Mapping[str, str]) -> None:
        self._robot = robot
        self._lights = lights
        self._triggers = triggers
        self.connected: set[int] = set()
        self._base_trigger = "Connected"
        self._base: dict[int, _Playing] = {}
        self._top: dict[int, _Playing] = {}
        #: lights sent so far (for the dashboard and the logs)
        self.sent = 0

    @classmethod
    def from_resources(cls, robot: Any, resources: Any) -> CubeLights:
        """The lights of a resource set: each trigger plays the first root's animation for it
        that exists (a copy of the app's data may map a trigger to a file it lacks; a later
        root, the project's, then lights it)."""
        lights: Mapping[str, CubeLightAnimation] = getattr(resources, "cube_lights", {}) or {}
        records = getattr(resources, "records", {}).get("cube light triggers", ()) if resources is not None else ()
        triggers: dict[str, str] = {}
        for pair in records:
            if pair.event not in triggers and pair.target in lights:
                triggers[pair.event] = pair.target
        return cls(robot, lights, triggers)

    def animation_for(self, trigger: str) -> CubeLightAnimation | None:
        """The animation a trigger (or an animation's own name) plays, or None."""
        name = self._triggers.get(trigger, trigger)
        return self._lights.get(name)

    def knows(self, trigger: str) -> bool:
        """Whether ``trigger`` names a playable cube light animation."""
        return self.animation_for(trigger) is not None

    def names(self) -> set[str]:
        """Every name :meth:`knows`: the triggers and the animations' own names (for ``check``)."""
        return set(self._triggers) | set(self._lights)

    def connect(self, object_id: int, connected: bool, now: float) -> None:
        """A cube connected (it shows the base animation) or left (it is forgotten)."""
        if connected:
            self.connected.add(object_id)
            self._top.pop(object_id, None)
            self._start(object_id, self._base_trigger, now, base=True)
        else:
            self.connected.discard(object_id)
            self._base.pop(object_id, None)
            self._top.pop(object_id, None)

    def set_base(self, trigger: str, now: float) -> None:
        """What every cube shows when nothing plays on top (``Connected``, ``Sleep`` …)."""
        if trigger == self._base_trigger:
            return
        self._base_trigger = trigger
        for cube in sorted(self.connected):
            self._start(cube, trigger, now, base=True, show=cube not in self._top)

    def play(self, trigger: str, now: float, cube: int | None = None) -> list[int]:
        """Play ``trigger`` on top, on one cube or (None) every connected cube; the cubes lit."""
        if self.animation_for(trigger) is None:
            return []
        cubes = sorted(self.connected) if cube is None else [cube] if cube in self.connected else []
        for c in cubes:
            self._start(c, trigger, now, base=False)
        return cubes

    def stop(self, trigger: str | None, now: float, cube: int | None = None) -> None:
        """End what plays on top (only ``trigger``, unless None); the cubes go back to the base."""
        for c in sorted(self._top) if cube is None else [cube]:
            playing = self._top.get(c)
            if playing is not None and (trigger is None or playing.trigger == trigger):
                del self._top[c]
                self._show_base(c, now)

    def playing(self, cube: int) -> str | None:
        """The trigger a cube shows now (on top, else its base), or None."""
        top = self._top.get(cube) or self._base.get(cube)
        return None if top is None else top.trigger

    def update(self, events: Any, now: float) -> None:
        """Take the beat's cube connections and move timed stages on."""
        for event in events:
            if getattr(event, "kind", None) == "cube_connection":
                self.connect(int(event.object_id), bool(event.connected), now)
        for layer in (self._top, self._base):
            for cube, playing in list(layer.items()):
                if playing.ends_at is not None and now >= playing.ends_at:
                    self._next_stage(cube, playing, now, layer is self._top)

    def snapshot(self) -> dict[str, str | None]:
        """Each connected cube's lights, for the dashboard."""
        return {str(c): self.playing(c) for c in sorted(self.connected)}

    def _start(self, cube: int, trigger: str, now: float, *, base: bool, show: bool = True) -> None:
        animation = self.animation_for(trigger)
        if animation is None or not animation.stages:
            if base:
                self._base.pop(cube, None)
            return
        playing = _Playing(animation, trigger, 0, None)
        (self._base if base else self._top)[cube] = playing
        self._enter(cube, playing, now, show)

    def _enter(self, cube: int, playing: _Playing, now: float, show: bool) -> None:
        stage = playing.animation.stages[playing.stage]
        playing.ends_at = now + stage.duration_ms / 1000.0 if stage.duration_ms > 0 else None
        if show:
            self._send(cube, stage.pattern)

    def _next_stage(self, cube: int, playing: _Playing, now: float, top: bool) -> None:
        if playing.stage + 1 < len(playing.animation.stages):
            playing.stage += 1
            self._enter(cube, playing, now, show=top or cube not in self._top)
        elif top:
            del self._top[cube]
            self._show_base(cube, now)
        else:
            playing.ends_at = None  # a timed base animation ends on its last pattern

    def _show_base(self, cube: int, now: float) -> None:
        base = self._base.get(cube)
        if base is not None:
            self._send(cube, base.animation.stages[base.stage].pattern)
        else:
            self._send(cube, None)

    def _send(self, cube: int, pattern: CubeLightPattern | None) -> None:
        if pattern is None:
            off = m.LightState(on_color=0, off_color=0, on_frames=0, off_frames=0, transition_on_frames=0,
                               transition_off_frames=0, offset=0)
            states, rotation = [off] * 4, 0
        else:
            states, rotation = light_states(pattern), rotation_frames(pattern)
        try:
            self._robot.set_cube_lights(cube, states, rotation)
            self.sent += 1
        except Exception as exc:  # a light is not worth a beat
            log.debug("cube %d lights not sent: %s", cube, exc)
