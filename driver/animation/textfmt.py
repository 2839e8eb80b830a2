"""The ``.cozanim`` text keyframe format: one clip per file, written and read by hand.

The grammar is documented with examples in ``docs/animation-text-format.md``; in short::

    controls head lift                 # Options: which tracks the clip drives, …
    extendable

    no parameters                      # Parameters: tunables, or `no parameters`

    time_ms  head_angle_deg  lift      # Body: a header of columns / column groups,
    0        -10             32        # then one row per time; `-` = no keyframe
    300      20              -         # of that kind in this row

Every error carries ``file:line:column``. The format stores everything the model holds
(all ten tracks, the playback hints and tunable parameters); times are whole
milliseconds and floats are written with the fewest digits that read back as the same
32-bit float, so ``Clip -> text -> Clip`` is exact.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]  # real, undocumented: not in typeshed
from pathlib import Path
from typing import Any

from . import clip as model
from .clip import (
    EYE_PARAMETERS,
    AnimationError,
    BackpackLights,
    Clip,
    ClipError,
    Parameter,
    PlaybackHints,
    Track,
    f32_text,
)
from .sound_ids import audio_event_id, is_sound_name

__all__ = [
    "CONTROLS",
    "GROUPS",
    "PARAMETERS",
    "SUFFIX",
    "TextFormatError",
    "clip_from_text",
    "clip_to_text",
    "read_text_file",
    "safe_file_stem",
    "scan_text_clip_name",
    "write_text_file",
]

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


# --------------------------------------------------------------------------- reading


@dataclass
class _Line:
    number: int
    tokens: list[_Token]
    text: str


@dataclass
class _Options:
    controls: list[str] = field(default_factory=list)
    frequency: float | None = None
    frequency_at: tuple[int, int] = (0, 0)
    name: str | None = None
    hints: dict[str, Any] = field(default_factory=dict)


class _Reader:
    """Parses one file's text; every failure is a TextFormatError with a position."""

    def __init__(self, text: str, label: str, default_name: str) -> None:
        self.text = text
        self.label = label
        self.default_name = default_name
        self.columns: list[_Column | None] | None = None
        self.time_index: int | None = None

    def fail(self, line: int, column: int, reason: str) -> TextFormatError:
        return TextFormatError(self.label, line, column, reason)

    # -- sections

    def sections(self) -> list[list[_Line]]:
        raw = self.text.split("\n")
        if raw and raw[-1] == "":
            raw.pop()
        blank = [not line.strip() for line in raw]
        content = [i for i, b in enumerate(blank) if not b]
        if not content:
            raise self.fail(1, 1, "missing Options section (the file is empty)")
        first, last = content[0], content[-1]
        sections: list[list[_Line]] = [[]]
        for i in range(first, last + 1):
            if blank[i]:
                if blank[i - 1]:
                    raise self.fail(
                        i + 1, 1, "two blank lines in a row: sections are separated by exactly one blank line"
                    )
                sections.append([])
                continue
            tokens = _tokenize(raw[i], i + 1, self.label)
            sections[-1].append(_Line(i + 1, tokens, raw[i]))
        if len(sections) > 3:
            raise self.fail(
                sections[3][0].number,
                1,
                "a fourth section: a file has exactly three (Options, Parameters, Body)",
            )
        if len(sections) < 3:
            missing = "Parameters" if len(sections) == 1 else "Body"
            raise self.fail(last + 2, 1, f"missing {missing} section (sections are separated by one blank line)")
        return sections

    # -- options

    def options(self, lines: list[_Line]) -> _Options:
        opts = _Options()
        seen: dict[str, int] = {}
        for line in lines:
            if not line.tokens:
                continue
            head, args = line.tokens[0], line.tokens[1:]
            key = head.text
            if head.quoted or key not in _OPTIONS:
                known = ", ".join(_OPTIONS)
                raise self.fail(line.number, head.column, f"unknown option {key!r}; known options: {known}")
            if key in seen:
                raise self.fail(line.number, head.column, f"option {key} given twice (first on line {seen[key]})")
            seen[key] = line.number
            if key == "controls":
                self.controls(opts, line, args)
            elif key in ("frequency", "bpm"):
                self.count(line, head, args, 1)
                value = self.number(line, args[0], f"{key} value")
                if value <= 0:
                    raise self.fail(line.number, args[0].column, f"{key} must be positive, got {args[0].text}")
                if key == "frequency":
                    if value > _MAX_FREQUENCY:
                        raise self.fail(
                            line.number,
                            args[0].column,
                            f"frequency above {_MAX_FREQUENCY:g} Hz is not supported",
                        )
                    opts.frequency = value
                    opts.frequency_at = (line.number, head.column)
                else:
                    opts.hints["bpm"] = value
            elif key == "name":
                self.count(line, head, args, 1)
                if not args[0].text:
                    raise self.fail(line.number, args[0].column, "the clip name is empty")
                opts.name = args[0].text
            elif key == "description":
                opts.hints["description"] = self.description(line, head, args)
            else:
                self.count(line, head, args, 0)
                opts.hints[key] = True
        if not opts.controls:
            first = lines[0].number if lines else 1
            raise self.fail(first, 1, "the Options section must have a `controls` line naming the tracks")
        return opts

    def controls(self, opts: _Options, line: _Line, args: list[_Token]) -> None:
        if not args:
            raise self.fail(line.number, len(line.text.rstrip()) + 2, "controls needs at least one track")
        for tok in args:
            if tok.text not in CONTROLS:
                known = " ".join(CONTROLS)
                raise self.fail(line.number, tok.column, f"unknown track {tok.text!r} in controls; known: {known}")
            if tok.text in opts.controls:
                raise self.fail(line.number, tok.column, f"track {tok.text} listed twice in controls")
            opts.controls.append(tok.text)

    def description(self, line: _Line, head: _Token, args: list[_Token]) -> str:
        if len(args) == 1 and args[0].quoted:
            return args[0].text
        if any(t.quoted for t in args):
            bad = next(t for t in args if t.quoted)
            raise self.fail(line.number, bad.column, "quote the whole description or none of it")
        if not args:
            return ""
        # The raw text (spacing kept) from the first word to the end of the last one.
        start = args[0].column - 1
        end = args[-1].column - 1 + len(args[-1].text)
        return line.text[start:end]

    def count(self, line: _Line, head: _Token, args: list[_Token], expected: int) -> None:
        if len(args) != expected:
            where = args[expected].column if len(args) > expected else len(line.text.rstrip()) + 2
            plural = "value" if expected == 1 else "values"
            raise self.fail(line.number, where, f"option {head.text} takes {expected} {plural}, got {len(args)}")

    def number(self, line: _Line, tok: _Token, what: str) -> float:
        try:
            value = float(tok.text) if not tok.quoted else math.nan
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise self.fail(line.number, tok.column, f"non-numeric value {tok.text!r}: {what} must be a number")
        return value

    # -- parameters

    def parameters(self, lines: list[_Line]) -> tuple[Parameter, ...]:
        content = [ln for ln in lines if ln.tokens]
        if not content:
            raise self.fail(lines[0].number, 1, "the Parameters section is empty: write `no parameters`")
        first = content[0]
        if [t.text for t in first.tokens] == ["no", "parameters"]:
            if len(content) > 1:
                raise self.fail(content[1].number, 1, "`no parameters` must be the only line of its section")
            return ()
        params: list[Parameter] = []
        seen: set[str] = set()
        for line in content:
            head, args = line.tokens[0], line.tokens[1:]
            if head.text not in PARAMETERS:
                known = ", ".join(PARAMETERS)
                raise self.fail(line.number, head.column, f"unknown parameter {head.text!r}; known: {known}")
            if head.text in seen:
                raise self.fail(line.number, head.column, f"parameter {head.text} given twice")
            seen.add(head.text)
            if not args:
                params.append(Parameter(head.text))
                continue
            if len(args) != 3:
                where = args[3].column if len(args) > 3 else len(line.text.rstrip()) + 2
                raise self.fail(
                    line.number,
                    where,
                    f"parameter {head.text} takes MIN DEFAULT MAX (3 values) or none, got {len(args)}",
                )
            lo, default, hi = (self.number(line, t, f"parameter {head.text}") for t in args)
            if not lo <= default <= hi:
                raise self.fail(line.number, args[1].column, f"parameter {head.text}: need MIN <= DEFAULT <= MAX")
            params.append(Parameter(head.text, lo, default, hi))
        return tuple(params)

    # -- body

    def header(self, line: _Line, opts: _Options) -> tuple[list[_Column | None], int | None, str | None]:
        """Columns of the body (None for the time column), time column index and unit."""
        columns: list[_Column | None] = []
        seen: dict[str, int] = {}
        time_index: int | None = None
        time_unit: str | None = None
        allowed = {t for c in opts.controls for t in CONTROLS[c]}
        for tok in line.tokens:
            if tok.quoted:
                raise self.fail(line.number, tok.column, "column names are not quoted")
            if tok.text in _TIME_COLUMNS:
                if opts.frequency is not None:
                    fl = opts.frequency_at[0]
                    raise self.fail(
                        line.number,
                        tok.column,
                        f"both a {tok.text} column and the frequency option (line {fl}): use one",
                    )
                if time_index is not None:
                    raise self.fail(line.number, tok.column, f"duplicate column {tok.text}: only one time column")
                time_index = len(columns)
                time_unit = tok.text
                columns.append(None)
                seen[tok.text] = tok.column
                continue
            names = GROUPS.get(tok.text) or ((tok.text,) if tok.text in _COLUMNS else None)
            if names is None:
                raise self.fail(
                    line.number,
                    tok.column,
                    f"unknown column {tok.text!r}; groups: {', '.join(GROUPS)} (see the format reference)",
                )
            for name in names:
                if name in seen:
                    raise self.fail(
                        line.number, tok.column, f"duplicate column {name} (already at column {seen[name]})"
                    )
                seen[name] = tok.column
                col = _COLUMNS[name]
                track = _KINDS[col.kind].track
                if track not in allowed:
                    raise self.fail(
                        line.number,
                        tok.column,
                        f"column {name} belongs to track `{_CONTROL_OF[track]}`, not listed in `controls`",
                    )
                columns.append(col)
        if time_index is None and opts.frequency is None:
            raise self.fail(line.number, 1, "no time: add a `time` (s) or `time_ms` column, or the frequency option")
        self.check_complete(line, columns, opts)
        return columns, time_index, time_unit

    def check_complete(self, line: _Line, columns: list[_Column | None], opts: _Options) -> None:
        """Every kind present has its key columns; every controlled track has a kind."""
        present = {c.name for c in columns if c is not None}
        kinds_present = {c.kind for c in columns if c is not None}
        end_col = len(line.text.rstrip()) + 1
        for kind in sorted(kinds_present):
            for col in _COLUMNS.values():
                if col.kind == kind and col.key and col.name not in present:
                    raise self.fail(line.number, end_col, f"missing column {col.name} (needed by the {kind} columns)")
        for side, attr in (("l", "left_eye"), ("r", "right_eye")):
            have = [f"{side}_{p}" in present for p in EYE_PARAMETERS]
            if any(have):
                n = have.index(False) if False in have else len(have)
                if any(have[n:]):
                    raise self.fail(
                        line.number,
                        end_col,
                        f"missing column {side}_{EYE_PARAMETERS[n]}: {attr} columns must be a leading run "
                        f"of the {len(EYE_PARAMETERS)} eye parameters",
                    )
        for control in opts.controls:
            if not any(_KINDS[k].track in CONTROLS[control] for k in kinds_present):
                needs = {
                    "head": "head_angle_deg (group head)",
                    "lift": "lift_height_mm (group lift)",
                    "wheels": "body_speed body_radius (group wheels), record_heading or turn_speed_dps",
                    "lights": "the 15 LED colour columns (group lights)",
                    "face": "the procedural face columns (group face) or face_anim",
                    "audio": "audio_id (group audio)",
                    "events": "event (group events)",
                }[control]
                raise self.fail(line.number, end_col, f"missing column for controlled track `{control}`: needs {needs}")

    def body(self, lines: list[_Line], opts: _Options) -> tuple[dict[str, list[Any]], int]:
        """Parse rows into per-kind keyframe values; return them and the clip end time."""
        content = [ln for ln in lines if ln.tokens]
        if not content:
            raise self.fail(lines[0].number, 1, "the Body section has no header line")
        header = content[0]
        columns, time_index, time_unit = self.header(header, opts)
        self.columns, self.time_index = columns, time_index
        width = len(columns)
        rows: list[tuple[_Line, int]] = []
        previous: int | None = None
        for n, line in enumerate(content[1:]):
            if len(line.tokens) != width:
                where = line.tokens[width].column if len(line.tokens) > width else len(line.text.rstrip()) + 1
                raise self.fail(
                    line.number,
                    where,
                    f"wrong value count: the header has {width} columns, this row {len(line.tokens)}",
                )
            if time_index is None:
                assert opts.frequency is not None
                t = round(n * 1000.0 / opts.frequency)
            else:
                t = self.time(line, line.tokens[time_index], time_unit, previous)
            previous = t
            rows.append((line, t))
        if time_index is None:
            assert opts.frequency is not None
            end = round(len(rows) * 1000.0 / opts.frequency)
        else:
            end = rows[-1][1] if rows else 0
        return self.keyframes(rows, columns, end), end

    def time(self, line: _Line, tok: _Token, unit: str | None, previous: int | None) -> int:
        if unit == "time_ms":
            if tok.quoted or not _INT_RE.match(tok.text):
                self.number(line, tok, "time_ms")
                raise self.fail(line.number, tok.column, f"time_ms must be a whole number of ms, got {tok.text}")
            t = int(tok.text)
        else:
            seconds = self.number(line, tok, "time")
            t = round(seconds * 1000.0)
        if t < 0:
            raise self.fail(line.number, tok.column, f"time {tok.text} is negative")
        if previous is not None and t <= previous:
            raise self.fail(
                line.number,
                tok.column,
                f"time {tok.text} is not after the previous row's ({previous} ms): times must increase",
            )
        return t

    def keyframes(self, rows: list[tuple[_Line, int]], columns: list[_Column | None], end: int) -> dict[str, list[Any]]:
        """Per kind: a list of (line, time, values dict, explicit duration or None)."""
        by_kind: dict[str, list[int]] = {}
        for i, col in enumerate(columns):
            if col is not None:
                by_kind.setdefault(col.kind, []).append(i)
        out: dict[str, list[Any]] = {}
        for kind, idxs in by_kind.items():
            frames: list[Any] = []
            for line, t in rows:
                cells = [(columns[i], line.tokens[i]) for i in idxs]
                kf = self.row_keyframe(kind, line, cells)
                if kf is not None:
                    frames.append((line, t, *kf))
            out[kind] = frames
        return out

    def row_keyframe(
        self, kind: str, line: _Line, cells: list[tuple[_Column | None, _Token]]
    ) -> tuple[dict[str, Any], int | None] | None:
        keys = [(c, t) for c, t in cells if c is not None and c.key]
        dashes = [t.text == "-" and not t.quoted for _, t in keys]
        if all(dashes):
            for col, tok in cells:
                if not (tok.text == "-" and not tok.quoted):
                    assert col is not None
                    first_key = keys[0][0].name
                    raise self.fail(
                        line.number,
                        tok.column,
                        f"value for {col.name} in a row without a {first_key} keyframe",
                    )
            return None
        if any(dashes):
            col, tok = next((c, t) for (c, t), d in zip(keys, dashes, strict=True) if d)
            raise self.fail(
                line.number,
                tok.column,
                f"partial keyframe: {col.name} is '-' while other {kind} columns have values",
            )
        values: dict[str, Any] = {}
        lists: dict[str, dict[int, Any]] = {}
        duration: int | None = None
        for col, tok in cells:
            assert col is not None
            if tok.text == "-" and not tok.quoted:
                continue
            value = self.cell(line, col, tok)
            if col.name == _KINDS[kind].duration_column:
                duration = value
            elif isinstance(col.target, tuple):
                attr, index = col.target
                lists.setdefault(attr, {})[index] = value
            elif col.target is not None:
                values[col.target] = value
        for attr, items in lists.items():
            if attr in ("left_eye", "right_eye"):
                indexes = sorted(items)
                if indexes != list(range(len(indexes))):
                    gap = next(i for i in range(len(EYE_PARAMETERS)) if i not in items)
                    side = "l" if attr == "left_eye" else "r"
                    tok = next(t for c, t in cells if c is not None and c.name == f"{side}_{EYE_PARAMETERS[gap]}")
                    raise self.fail(
                        line.number,
                        tok.column,
                        f"{attr} values must not have gaps: '-' must only end the list",
                    )
                values[attr] = tuple(items[i] for i in indexes)
            else:  # an LED: r g b from key columns, a optional
                values[attr] = tuple(items.get(i, _LED_ALPHA_DEFAULT) for i in range(4))
        return values, duration

    def cell(self, line: _Line, col: _Column, tok: _Token) -> Any:
        text = tok.text
        kind = col.type
        if kind in ("str", "radius"):
            if kind == "radius" and not tok.quoted and text not in model.RADIUS_WORDS:
                self.number(line, tok, f"{col.name} (STRAIGHT, TURN_IN_PLACE or mm)")
            return text
        if tok.quoted:
            raise self.fail(line.number, tok.column, f"non-numeric value {text!r} in column {col.name}")
        if kind == "flag":
            if text != "1":
                raise self.fail(line.number, tok.column, f"{col.name} takes 1 (a keyframe here) or -, got {text!r}")
            return True
        if kind == "bool":
            lowered = text.lower()
            if lowered in ("1", "true"):
                return True
            if lowered in ("0", "false"):
                return False
            raise self.fail(line.number, tok.column, f"{col.name} takes 0 or 1, got {text!r}")
        if kind == "int":
            return self.integer(line, tok, col.name, text)
        if kind == "float":
            return self.number(line, tok, col.name)
        # lists: a,b,c or [] for none
        if text == "[]":
            return ()
        parts = text.strip("[]").split(",")
        if kind == "ilist":  # audio event ids: numbers, or sound names standing for their ids
            return tuple(self.audio_id(line, tok, col.name, p) for p in parts)
        return tuple(self.number(line, _Token(p, tok.column), col.name) for p in parts)

    def audio_id(self, line: _Line, tok: _Token, name: str, text: str) -> int:
        """An audio event id: a whole number, or a sound name (its Wwise id, see ``sound_ids``)."""
        if is_sound_name(text):
            return audio_event_id(text)
        if not _INT_RE.match(text):
            raise self.fail(line.number, tok.column,
                            f"{name} takes audio event ids (whole numbers) or sound names, got {text!r}")
        return int(text)

    def integer(self, line: _Line, tok: _Token, name: str, text: str) -> int:
        if _INT_RE.match(text):
            return int(text)
        try:
            float(text)
        except ValueError:
            raise self.fail(line.number, tok.column, f"non-numeric value {text!r} in column {name}") from None
        raise self.fail(line.number, tok.column, f"{name} takes whole numbers, got {text}")

    def field_column(self, line: _Line, track: Track, schema_field: str | None) -> int:
        """Text column of the cell holding ``schema_field`` of ``track`` in ``line`` (1 if unknown)."""
        if schema_field is None or self.columns is None:
            return 1
        kind = _KIND_OF_TRACK[track]
        attr = next((a for a, s, _k in track.keyframe_type.FIELDS if s == schema_field), None)
        if schema_field == "triggerTime_ms" and self.time_index is not None:
            return line.tokens[self.time_index].column
        for i, col in enumerate(self.columns):
            if col is None or col.kind != kind.name:
                continue
            target = col.target[0] if isinstance(col.target, tuple) else col.target
            if target == attr or (attr == "duration_time_ms" and col.name == kind.duration_column):
                return line.tokens[i].column
        return 1

    # -- all together

    def read(self) -> Clip:
        options_lines, parameter_lines, body_lines = self.sections()
        opts = self.options(options_lines)
        params = self.parameters(parameter_lines)
        frames, end = self.body(body_lines, opts)
        name = opts.name or self.default_name
        tracks: dict[Track, tuple[model.Keyframe, ...]] = {}
        rows_of: dict[Track, list[_Line]] = {}
        for kind_name, entries in frames.items():
            kind = _KINDS[kind_name]
            cls = kind.track.keyframe_type
            built = []
            for n, (_line, t, values, duration) in enumerate(entries):
                if kind.duration_column is not None:
                    if duration is None:
                        following = entries[n + 1][1] if n + 1 < len(entries) else end
                        duration = following - t
                    values["duration_time_ms"] = duration
                built.append(cls(trigger_time_ms=t, **values))
            tracks[kind.track] = tuple(built)
            rows_of[kind.track] = [e[0] for e in entries]
        hints = PlaybackHints(parameters=params, **opts.hints)
        try:
            return Clip.from_tracks(name, tracks, playback=hints, source=self.label)
        except ClipError as exc:
            if exc.track is not None and exc.index is not None:
                track = Track(exc.track)
                line = rows_of[track][exc.index]
                raise self.fail(line.number, self.field_column(line, track, exc.field), exc.reason) from None
            raise self.fail(options_lines[0].number, 1, exc.reason) from None


def clip_from_text(text: str, source: str = "<text>", default_name: str | None = None) -> Clip:
    """Parse one clip from ``.cozanim`` text; the clip is called ``default_name`` unless
    the file has a ``name`` option (``default_name`` defaults to ``source``'s stem)."""
    if default_name is None:
        default_name = Path(source).stem if source and not source.startswith("<") else "clip"
    return _Reader(text, source, default_name).read()


def _read_text(path: str | os.PathLike) -> str:
    label = os.fspath(path)
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise TextFormatError(label, 1, 1, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise TextFormatError(label, 1, 1, f"cannot read: {exc.strerror or exc}") from None


def read_text_file(path: str | os.PathLike) -> Clip:
    """Read one ``.cozanim`` file."""
    return clip_from_text(_read_text(path), source=os.fspath(path), default_name=Path(path).stem)


def scan_text_clip_name(path: str | os.PathLike) -> str:
    """The clip name a text file defines (its ``name`` option, else its file stem), cheaply.

    Only the Options section is looked at; the full grammar is checked when the clip is read.
    """
    label = os.fspath(path)
    text = _read_text(path)
    seen_content = False
    for number, raw in enumerate(text.split("\n"), 1):
        if not raw.strip():
            if seen_content:
                break
            continue
        seen_content = True
        tokens = _tokenize(raw, number, label)
        if tokens and tokens[0].text == "name" and not tokens[0].quoted:
            if len(tokens) != 2 or not tokens[1].text:
                raise TextFormatError(label, number, tokens[0].column, "option name takes 1 value")
            return tokens[1].text
    return Path(path).stem


# --------------------------------------------------------------------------- writing


def safe_file_stem(name: str) -> str:
    """A file name stem for a clip name (unusual characters become ``_``)."""
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", name).strip(".")
    return stem or "clip"


def _cell_text(col: _Column, value: Any) -> str:
    kind = col.type
    if kind == "float":
        return f32_text(value)
    if kind == "bool":
        return "1" if value else "0"
    if kind in ("str", "radius"):
        return _quote(value)
    if kind == "flag":
        return "1"
    if kind == "ilist":
        return ",".join(str(v) for v in value) if value else "[]"
    if kind == "flist":
        return ",".join(f32_text(v) for v in value) if value else "[]"
    return str(value)


def _implicit_durations(times: list[int], end: int) -> list[int]:
    return [(times[i + 1] if i + 1 < len(times) else end) - t for i, t in enumerate(times)]


def _value_of(col: _Column, kf: model.Keyframe) -> Any:
    """The value column ``col`` shows for keyframe ``kf`` (``None`` = written as ``-``)."""
    if col.target is None:
        return True
    if isinstance(col.target, tuple):
        attr, index = col.target
        seq = getattr(kf, attr)
        return seq[index] if index < len(seq) else None
    return getattr(kf, col.target)


def _columns_for(kind: _Kind, frames: tuple[model.Keyframe, ...], end: int) -> list[_Column]:
    """The columns needed to write ``frames``: key columns, plus optional ones that carry data."""
    out: list[_Column] = []
    for col in _COLUMNS.values():
        if col.kind != kind.name:
            continue
        if col.key:
            out.append(col)
        elif col.name == kind.duration_column:
            implicit = _implicit_durations([kf.trigger_time_ms for kf in frames], end)
            if [kf.duration_ms for kf in frames] != implicit:
                out.append(col)
        elif col.default is None:  # an eye parameter: written while any eye list is that long
            if any(_value_of(col, kf) is not None for kf in frames):
                out.append(col)
        elif any(_value_of(col, kf) != col.default for kf in frames):
            out.append(col)
    return out


def _description_text(desc: str) -> str:
    bare = desc == desc.strip() and not re.search(r"[\n\r\"#]|//", desc) and not desc.startswith("-")
    return desc if bare else json.dumps(desc, ensure_ascii=False)


def clip_to_text(clip: Clip, file_stem: str | None = None) -> str:
    """The ``.cozanim`` text of a clip.

    A ``name`` option is written unless ``file_stem`` (the stem of the file it will be
    saved as) equals the clip name. Raises :class:`ClipError` for the one thing the
    format cannot hold: two keyframes of one track at the same time.
    """
    kinds = [(k, clip.keyframes(k.track)) for k in _KINDS.values() if clip.keyframes(k.track)]
    times = sorted({kf.trigger_time_ms for _, frames in kinds for kf in frames})
    end = times[-1] if times else 0
    for kind, frames in kinds:
        stamps = [kf.trigger_time_ms for kf in frames]
        for i in range(1, len(stamps)):
            if stamps[i] == stamps[i - 1]:
                raise ClipError(
                    clip.name,
                    f"two keyframes at {stamps[i]} ms cannot be written as text (one row per time)",
                    kind.track.value,
                    i,
                )

    columns: list[_Column] = []
    for kind, frames in kinds:
        columns += _columns_for(kind, frames, end)
    if not columns:
        columns = [_COLUMNS["event"]]
    controls = sorted({_CONTROL_OF[_KINDS[c.kind].track] for c in columns}, key=list(CONTROLS).index)

    hints = clip.playback
    lines: list[str] = [f"controls {' '.join(controls)}"]
    if file_stem != clip.name:
        lines.append(f"name {_quote(clip.name)}")
    if hints.description:
        lines.append(f"description {_description_text(hints.description)}")
    lines += [flag for flag in ("extendable", "truncatable", "no_looping") if getattr(hints, flag)]
    if hints.bpm is not None:
        lines.append(f"bpm {_number_text(hints.bpm)}")
    lines.append("")
    for p in hints.parameters:
        if p.minimum is None or p.default is None or p.maximum is None:
            lines.append(p.name)
        else:
            lines.append(f"{p.name} {_number_text(p.minimum)} {_number_text(p.default)} {_number_text(p.maximum)}")
    if not hints.parameters:
        lines.append("no parameters")
    lines.append("")

    table: list[list[str]] = [["time_ms"] + [c.name for c in columns]]
    by_time = {kind.name: {kf.trigger_time_ms: kf for kf in frames} for kind, frames in kinds}
    for t in times:
        row = [str(t)]
        for col in columns:
            kf = by_time.get(col.kind, {}).get(t)
            if kf is None:
                row.append("-")
            elif col.name == _KINDS[col.kind].duration_column:
                row.append(str(kf.duration_ms))
            else:
                value = _value_of(col, kf)
                row.append("-" if value is None else _cell_text(col, value))
        table.append(row)
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    for r in table:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip())
    return "\n".join(lines) + "\n"


def _number_text(value: float | None) -> str:
    if value is None:
        return "0"
    return repr(int(value)) if float(value).is_integer() else repr(float(value))


def write_text_file(clip: Clip, path: str | os.PathLike) -> None:
    """Write one clip as a ``.cozanim`` file (no ``name`` option when the file stem matches)."""
    Path(path).write_text(clip_to_text(clip, file_stem=Path(path).stem), encoding="utf-8")


def iter_columns() -> Iterator[tuple[str, str, str]]:
    """(column, kind, value type) for every body column, for documentation and tools."""
    for col in _COLUMNS.values():
        yield col.name, col.kind, col.type
