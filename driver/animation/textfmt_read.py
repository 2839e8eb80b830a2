"""Reading ``.cozanim`` text into a :class:`~driver.animation.clip.Clip`.

Kept apart from the writer because parsing is most of the format's code: sections, options,
parameters, the header and rows, and mapping every model error back to ``file:line:column``.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import clip as model
from .clip import (
    EYE_PARAMETERS,
    Clip,
    ClipError,
    Parameter,
    PlaybackHints,
    Track,
)
from .sound_ids import audio_event_id, is_sound_name
from .textfmt_grammar import (
    _COLUMNS,
    _CONTROL_OF,
    _INT_RE,
    _KIND_OF_TRACK,
    _KINDS,
    _LED_ALPHA_DEFAULT,
    _MAX_FREQUENCY,
    _OPTIONS,
    _TIME_COLUMNS,
    CONTROLS,
    GROUPS,
    PARAMETERS,
    TextFormatError,
    _Column,
    _Token,
    _tokenize,
)


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
