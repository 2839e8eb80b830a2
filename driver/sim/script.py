"""Scripted timelines for the simulated Cozmo: "pick me up at 5 s, show a cliff at 8 s".

A timeline is a YAML list of steps, each with a time ``at`` (seconds after an engine first
connects; the clock runs on through losses and reconnects) and an ``event``, plus that event's
own fields::

    - {at: 5, event: pick_up}
    - {at: 7, event: put_down}
    - {at: 8, event: cliff, for: 1.5}        # cliff for 1.5 s, then the floor comes back
    - {at: 10, event: button}
    - {at: 11, event: poke}
    - {at: 12, event: cube_tap, object_id: 1, taps: 2}  # cube 1 of the kit (1-3); heard only if connected
    - {at: 12.5, event: cube_off, object_id: 3}       # switched off: it disconnects (cube_connect: on again)
    - {at: 12.7, event: cube_move, object_id: 2, for: 1.5}  # carried about for 1.5 s (default 0.5)
    - {at: 12.9, event: cube_flip, object_id: 2}      # turned upside down (or back upright) in 3 s
    - {at: 13, orientation: on_back, for: 3}  # on its back for 3 s (also: on_face, on_left_side,
                                             # on_right_side, on_side, upright)
    - {at: 14, event: shake, for: 3}          # picked up, shaken for 3 s, put down
    - {at: 18, event: on_charger}
    - {at: 20, event: battery, volts: 3.5}
    - {at: 25, event: silent, for: 4}        # stop answering for 4 s
    - {at: 40, event: reboot, for: 5}        # forgets the engine; answers nothing for 5 s while it boots

and what the camera sees (places are relative to the robot at that moment, then fixed in the room;
bearings are degrees to the left, negative to the right)::

    - {at: 5, face: alice, bearing_deg: 30, distance_m: 0.6, height_m: 0.25}   # someone comes
    - {at: 9, face: alice, bearing_deg: -10}                                   # walks there (the rest stays)
    - {at: 15, face_leaves: alice}
    - {at: 20, motion: ground, bearing_deg: 15, for: 2}  # a ball rolls about (also: air, a waving hand)

Errors name the file, the line and the step, and what was expected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .body import POSES
from .room import MOTION_KINDS, PHOTOS

#: event name -> {field: (type, default or REQUIRED)}
REQUIRED = object()
EVENTS: dict[str, dict[str, tuple[type, Any]]] = {
    "pick_up": {"for": (float, None)},
    "put_down": {},
    "cliff": {"for": (float, None)},
    "cliff_clear": {},
    "fall": {"for": (float, 0.6)},
    "button": {},
    "poke": {},
    "cube_tap": {"object_id": (int, 1), "taps": (int, 1)},
    "cube_move": {"object_id": (int, 1), "for": (float, 0.5)},
    "cube_flip": {"object_id": (int, 1), "for": (float, 3.0)},
    "cube_connect": {"object_id": (int, 1)},
    "cube_off": {"object_id": (int, 1)},
    "on_charger": {},
    "off_charger": {},
    "battery": {"volts": (float, REQUIRED)},
    "silent": {"for": (float, REQUIRED)},
    "reboot": {"for": (float, None)},
    "orientation": {"orientation": (str, REQUIRED), "for": (float, None)},
    "face": {"face": (str, REQUIRED), "bearing_deg": (float, None), "distance_m": (float, None),
             "height_m": (float, None), "photo": (str, None)},
    "face_leaves": {"face_leaves": (str, REQUIRED)},
    "motion": {"motion": (str, REQUIRED), "bearing_deg": (float, 0.0), "distance_m": (float, None),
               "height_m": (float, None), "for": (float, 2.0)},
    "shake": {"for": (float, 2.0)},
    "fist_bump": {},
}
#: Steps that may leave out ``event``: the field of that name says which it is ({at: 5, face: alice}).
SHORT_FORMS = ("orientation", "face_leaves", "face", "motion")
#: Allowed ranges of number fields: (event, field) -> (lowest, highest), both included.
RANGES: dict[tuple[str, str], tuple[float, float]] = {
    ("face", "bearing_deg"): (-180.0, 180.0),
    ("face", "distance_m"): (0.1, 5.0),
    ("face", "height_m"): (0.0, 2.5),
    ("motion", "bearing_deg"): (-180.0, 180.0),
    ("motion", "distance_m"): (0.1, 5.0),
    ("motion", "height_m"): (0.0, 2.5),
    ("motion", "for"): (0.05, 3600.0),
}
#: Allowed values of the string fields: (event, field) -> choices. ``on_side`` is the right side.
CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("orientation", "orientation"): (*POSES, "on_side"),
    ("motion", "motion"): MOTION_KINDS,
    ("face", "photo"): tuple(PHOTOS),
}


class ScriptError(ValueError):
    """A timeline that cannot be used, with file, line and the reason."""


@dataclass(frozen=True)
class Step:
    """One scripted event at time ``at`` seconds."""

    at: float
    event: str
    args: dict[str, Any] = field(default_factory=dict)
    line: int = 0


def parse_script(text: str, source: str = "<script>") -> list[Step]:
    """Parse a timeline from YAML text; steps come back sorted by time."""
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark else source
        raise ScriptError(f"{where}: not valid YAML: {getattr(exc, 'problem', exc)}") from None
    if root is None:
        return []
    if not isinstance(root, yaml.SequenceNode):
        raise ScriptError(f"{source}:{root.start_mark.line + 1}: expected a list of steps")
    steps: list[Step] = []
    for i, node in enumerate(root.value):
        line = node.start_mark.line + 1
        where = f"{source}:{line}: step {i}"
        if not isinstance(node, yaml.MappingNode):
            raise ScriptError(f"{where}: expected a mapping like {{at: 5, event: pick_up}}")
        data = yaml.safe_load(yaml.serialize(node))
        steps.append(_step(data, where, line))
    steps.sort(key=lambda s: s.at)
    return steps


def load_script(path: str | Path) -> list[Step]:
    """Read and parse a timeline file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScriptError(f"{p}: cannot read: {exc.strerror}") from None
    return parse_script(text, str(p))


def make_step(fields: dict[str, Any], where: str = "step", at: float = 0.0) -> Step:
    """One step from its fields (``event`` and that event's own, as a timeline writes them), checked
    like a timeline's steps; ScriptError names ``where`` and what was expected."""
    return _step({"at": at, **fields}, where, 0)


def _step(data: dict[str, Any], where: str, line: int) -> Step:
    if "at" not in data:
        raise ScriptError(f"{where}: missing 'at' (seconds after connect)")
    if "event" not in data:
        for key in SHORT_FORMS:  # the short forms {at: 5, orientation: on_back}, {at: 5, face: alice}
            if key in data:
                data["event"] = key
                break
    if "event" not in data:
        raise ScriptError(f"{where}: missing 'event' (one of {', '.join(sorted(EVENTS))})")
    at = data.pop("at")
    if isinstance(at, bool) or not isinstance(at, (int, float)) or at < 0:
        raise ScriptError(f"{where}: 'at' must be a number of seconds >= 0, got {at!r}")
    event = data.pop("event")
    spec = EVENTS.get(str(event))
    if spec is None:
        raise ScriptError(f"{where}: unknown event {event!r}; expected one of {', '.join(sorted(EVENTS))}")
    args: dict[str, Any] = {}
    for key, (typ, default) in spec.items():
        if key in data:
            value = data.pop(key)
            if typ is str:
                choices = CHOICES.get((str(event), key))
                if not isinstance(value, str) or not value or (choices is not None and value not in choices):
                    expected = f"one of {', '.join(choices)}" if choices else "a non-empty string"
                    raise ScriptError(f"{where}: '{key}' must be {expected}, got {value!r}")
                args[key] = "on_right_side" if value == "on_side" else value
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ScriptError(f"{where}: '{key}' must be a number, got {value!r}")
            bounds = RANGES.get((str(event), key))
            if bounds is not None and not bounds[0] <= value <= bounds[1]:
                raise ScriptError(f"{where}: '{key}' must be between {bounds[0]:g} and {bounds[1]:g}, got {value!r}")
            args[key] = typ(value)
        elif default is REQUIRED:
            raise ScriptError(f"{where}: event {event!r} needs '{key}'")
        elif default is not None:
            args[key] = default
    if data:
        raise ScriptError(f"{where}: unknown field(s) {', '.join(map(str, data))} for event {event!r}")
    return Step(float(at), str(event), args, line)
