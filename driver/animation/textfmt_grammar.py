"""The ``.cozanim`` grammar's shared tables: controls, parameters, columns, groups, tokens.

The reader (:mod:`.textfmt_read`) and the writer (:mod:`.textfmt_write`) must agree on every
column name, kind and default, and on how a token is quoted; keeping those tables here, in one
place, is what makes ``Clip -> text -> Clip`` exact.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from json.decoder import scanstring  # type: ignore[attr-defined]  # real, undocumented: not in typeshed
from typing import Any

from .clip import (
    EYE_PARAMETERS,
    AnimationError,
    BackpackLights,
    Track,
)

SUFFIX = ".cozanim"

#: ``controls`` names -> the schema tracks they cover.
CONTROLS: dict[str, tuple[Track, ...]] = {
    "head": (Track.HEAD_ANGLE,),
    "lift": (Track.LIFT_HEIGHT,),
    "wheels": (Track.BODY_MOTION, Track.RECORD_HEADING, Track.TURN_TO_RECORDED_HEADING),
    "lights": (Track.BACKPACK_LIGHTS,),
    "face": (Track.PROCEDURAL_FACE, Track.FACE_ANIMATION),
    "audio": (Track.ROBOT_AUDIO,),
    "events": (Track.EVENT,),
}
_CONTROL_OF: dict[Track, str] = {t: name for name, tracks in CONTROLS.items() for t in tracks}

#: Known tunable parameters: name -> (minimum, default, maximum) used when a file names one bare.
PARAMETERS: dict[str, tuple[float, float, float]] = {
    "speed": (0.1, 1.0, 10.0),
    "offset_ms": (0.0, 0.0, 600000.0),
    "entry_ms": (0.0, 0.0, 5000.0),
    "exit_ms": (0.0, 0.0, 5000.0),
    "head_multiplier": (0.0, 1.0, 2.0),
    "head_offset_deg": (-45.0, 0.0, 45.0),
    "lift_multiplier": (0.0, 1.0, 2.0),
    "lift_offset_mm": (-60.0, 0.0, 60.0),
    "drive_multiplier": (0.0, 1.0, 2.0),
}

_OPTIONS = ("controls", "frequency", "name", "description", "extendable", "truncatable", "no_looping", "bpm")
_MAX_FREQUENCY = 1000.0
_LED_ALPHA_DEFAULT = 1.0


class TextFormatError(AnimationError):
    """A ``.cozanim`` file breaks the grammar; ``file:line:column: reason``."""

    def __init__(self, file: str, line: int, column: int, reason: str) -> None:
        self.file = file
        self.line = line
        self.column = column
        self.reason = reason
        super().__init__(f"{file}:{line}:{column}: {reason}")


# --------------------------------------------------------------------------- columns


@dataclass(frozen=True, slots=True)
class _Column:
    """One body column: which keyframe kind it feeds, how to parse it, where the value goes.

    ``target`` is a keyframe attribute, or ``(attribute, index)`` for one element of a
    tuple attribute (an LED channel, an eye parameter). ``key`` columns decide whether a
    row holds a keyframe of the kind; the others are optional (``-`` = default).
    """

    name: str
    kind: str
    type: str
    target: Any
    key: bool = False
    default: Any = None


@dataclass(frozen=True, slots=True)
class _Kind:
    """A keyframe kind of the text format (one per schema track)."""

    name: str
    track: Track
    duration_column: str | None = None


_KINDS: dict[str, _Kind] = {
    "head": _Kind("head", Track.HEAD_ANGLE, "head_ms"),
    "lift": _Kind("lift", Track.LIFT_HEIGHT, "lift_ms"),
    "body": _Kind("body", Track.BODY_MOTION, "body_ms"),
    "record": _Kind("record", Track.RECORD_HEADING),
    "turn": _Kind("turn", Track.TURN_TO_RECORDED_HEADING, "turn_ms"),
    "lights": _Kind("lights", Track.BACKPACK_LIGHTS, "lights_ms"),
    "face": _Kind("face", Track.PROCEDURAL_FACE),
    "face_anim": _Kind("face_anim", Track.FACE_ANIMATION),
    "audio": _Kind("audio", Track.ROBOT_AUDIO),
    "event": _Kind("event", Track.EVENT),
}
_KIND_OF_TRACK: dict[Track, _Kind] = {k.track: k for k in _KINDS.values()}

_LED_CHANNELS = ("r", "g", "b", "a")
_FACE_SCALARS = (
    ("face_angle", "face_angle"),
    ("face_center_x", "face_center_x"),
    ("face_center_y", "face_center_y"),
    ("face_scale_x", "face_scale_x"),
    ("face_scale_y", "face_scale_y"),
)


def _build_columns() -> dict[str, _Column]:
    cols: list[_Column] = [
        _Column("head_angle_deg", "head", "int", "angle_deg", key=True),
        _Column("head_ms", "head", "int", "duration_time_ms"),
        _Column("head_variability_deg", "head", "int", "angle_variability_deg", default=0),
        _Column("lift_height_mm", "lift", "int", "height_mm", key=True),
        _Column("lift_ms", "lift", "int", "duration_time_ms"),
        _Column("lift_variability_mm", "lift", "int", "height_variability_mm", default=0),
        _Column("body_speed", "body", "int", "speed", key=True),
        _Column("body_radius", "body", "radius", "radius_mm", key=True),
        _Column("body_ms", "body", "int", "duration_time_ms"),
        _Column("record_heading", "record", "flag", None, key=True),
        _Column("turn_speed_dps", "turn", "int", "speed_deg_per_sec", key=True),
        _Column("turn_offset_deg", "turn", "int", "offset_deg", default=0),
        _Column("turn_ms", "turn", "int", "duration_time_ms"),
        _Column("turn_accel", "turn", "int", "accel_deg_per_sec2", default=1000),
        _Column("turn_decel", "turn", "int", "decel_deg_per_sec2", default=1000),
        _Column("turn_tolerance_deg", "turn", "int", "tolerance_deg", default=2),
        _Column("turn_half_revs", "turn", "int", "num_half_revs", default=0),
        _Column("turn_shortest", "turn", "bool", "use_shortest_dir", default=False),
    ]
    for led in BackpackLights.LEDS:
        for i, ch in enumerate(_LED_CHANNELS):
            alpha = ch == "a"
            cols.append(_Column(f"{led}_{ch}", "lights", "float", (led, i), key=not alpha, default=_LED_ALPHA_DEFAULT))
    cols.append(_Column("lights_ms", "lights", "int", "duration_time_ms"))
    for name, attr in _FACE_SCALARS:
        cols.append(_Column(name, "face", "float", attr, key=True))
    for prefix, attr in (("l", "left_eye"), ("r", "right_eye")):
        for i, param in enumerate(EYE_PARAMETERS):
            cols.append(_Column(f"{prefix}_{param}", "face", "float", (attr, i)))
    cols += [
        _Column("face_anim", "face_anim", "str", "anim_name", key=True),
        _Column("audio_id", "audio", "ilist", "audio_event_id", key=True),
        _Column("audio_volume", "audio", "float", "volume", default=1.0),
        _Column("audio_prob", "audio", "flist", "probability", default=()),
        _Column("audio_alts", "audio", "bool", "has_alts", default=True),
        _Column("event", "event", "str", "event_id", key=True),
    ]
    return {c.name: c for c in cols}


_COLUMNS = _build_columns()
_COLUMN_ORDER = {name: i for i, name in enumerate(_COLUMNS)}
_TIME_COLUMNS = ("time", "time_ms")

#: Header group names -> the columns they stand for.
GROUPS: dict[str, tuple[str, ...]] = {
    "head": ("head_angle_deg",),
    "lift": ("lift_height_mm",),
    "wheels": ("body_speed", "body_radius"),
    "turn": ("turn_speed_dps", "turn_offset_deg"),
    "lights": tuple(f"{led}_{ch}" for led in BackpackLights.LEDS for ch in "rgb"),
    "face": tuple(n for n, _ in _FACE_SCALARS)
    + tuple(f"l_{p}" for p in EYE_PARAMETERS)
    + tuple(f"r_{p}" for p in EYE_PARAMETERS),
    "audio": ("audio_id", "audio_volume"),
    "events": ("event",),
}


# --------------------------------------------------------------------------- tokens


@dataclass(frozen=True, slots=True)
class _Token:
    text: str
    column: int
    quoted: bool = False


_INT_RE = re.compile(r"[+-]?\d+\Z")


def _tokenize(line: str, lineno: int, label: str) -> list[_Token]:
    """Split a line into tokens; ``#`` or ``//`` outside quotes starts a comment."""
    tokens: list[_Token] = []
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if ch in " \t\r\f\v":
            i += 1
            continue
        if ch == "#" or line.startswith("//", i):
            break
        if ch == '"':
            try:
                value, end = scanstring(line, i + 1)
            except json.JSONDecodeError as exc:
                raise TextFormatError(label, lineno, i + 1, f"bad quoted string: {exc.msg}") from None
            tokens.append(_Token(value, i + 1, quoted=True))
            i = end
            continue
        start = i
        while i < n and line[i] not in ' \t\r\f\v"#' and not line.startswith("//", i):
            i += 1
        tokens.append(_Token(line[start:i], start + 1))
    return tokens


def _quote(text: str) -> str:
    """``text`` as one token: bare when it is safe, else a JSON-style quoted string."""
    if text and text != "-" and not re.search(r"[\s\"#]|//", text):
        return text
    return json.dumps(text, ensure_ascii=False)




def iter_columns() -> Iterator[tuple[str, str, str]]:
    """(column, kind, value type) for every body column, for documentation and tools."""
    for col in _COLUMNS.values():
        yield col.name, col.kind, col.type
