"""Cozmo animation clips as JSON: the same structure and field names as the .bin schema.

::

    {"clips": [{"Name": "anim_hello_01",
                "keyframes": {"HeadAngleKeyFrame": [{"triggerTime_ms": 0, "durationTime_ms": 100,
                                                     "angle_deg": 20, "angleVariability_deg": 0}],
                              "ProceduralFaceKeyFrame": [...], ...}}]}

This is the layout ``flatc --json`` produces from a .bin and accepts back (``flatc -b``),
so files can go through Google's tools too. Track keys are the schema's ``Keyframes``
field names (``HeadAngleKeyFrame`` …); on reading, the bare table names (``HeadAngle`` …)
are accepted as well. Absent fields take the schema's defaults; required ones
(``audioEventId``, ``animName``, ``event_id``, ``radius_mm``) must be present.

Floats are written with the fewest digits that read back as the same 32-bit float, so
``.bin -> JSON -> .bin`` is byte-identical while the JSON stays readable (``0.1``, not
``0.10000000149011612``).

Errors name the file, the line and the field path, e.g.
``walk.json:12: clips[0].keyframes.HeadAngleKeyFrame[1].angle_deg: 300 is outside -128..127``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable

# _locate uses the pure-Python scanner pieces, which report where each value starts: real, but
# undocumented, so typeshed does not declare them.
from json.decoder import JSONArray, JSONObject  # type: ignore[attr-defined]
from json.scanner import py_make_scanner  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

from . import clip as model
from .clip import AnimationError, Clip, ClipError, Track, f32_text

__all__ = [
    "JsonFormatError",
    "clips_from_json",
    "clips_to_json",
    "read_json_file",
    "scan_json_clip_names",
    "write_json_file",
]

_TRACK_KEYS: dict[str, Track] = {}
for _t in Track:
    _TRACK_KEYS[_t.vector_name] = _t
    _TRACK_KEYS[_t.value] = _t


class JsonFormatError(AnimationError):
    """A JSON clip file is malformed; names file, line (when known) and field path."""

    def __init__(self, file: str, reason: str, line: int | None = None, path: str = "") -> None:
        self.file = file
        self.line = line
        self.path = path
        self.reason = f"{path}: {reason}" if path else reason
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {self.reason}")


class _FieldError(Exception):
    """Internal: a structural error at a path (a tuple of keys / indexes)."""

    def __init__(self, path: tuple[Any, ...], reason: str) -> None:
        super().__init__(reason)
        self.path = path
        self.reason = reason


def _path_text(path: tuple[Any, ...]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


# --------------------------------------------------------------------------- writing


_float_text = f32_text


def _scalar_text(kind: str, value: Any) -> str:
    if kind == "float":
        return _float_text(value)
    if kind == "bool":
        return "true" if value else "false"
    if kind in ("str", "radius"):
        return json.dumps(value, ensure_ascii=False)
    if kind == "longs":
        return "[" + ", ".join(str(v) for v in value) + "]"
    if kind in ("eye", "probs", "rgba"):
        return "[" + ", ".join(_float_text(v) for v in value) + "]"
    return str(value)


def clips_to_json(clips: Iterable[Clip]) -> str:
    """The JSON text of clips (one keyframe per line, deterministic)."""
    lines = ['{"clips": [']
    clip_blocks = []
    for clip in clips:
        tracks = []
        for track, frames in clip.iter_tracks():
            rows = []
            for kf in frames:
                parts = [
                    f'"{schema_name}": {_scalar_text(kind, getattr(kf, attr))}' for attr, schema_name, kind in kf.FIELDS
                ]
                rows.append("        {" + ", ".join(parts) + "}")
            tracks.append(f'      "{track.vector_name}": [\n' + ",\n".join(rows) + "\n      ]")
        body = "{\n" + ",\n".join(tracks) + "\n    }" if tracks else "{}"
        name = json.dumps(clip.name, ensure_ascii=False)
        clip_blocks.append(f'  {{\n    "Name": {name},\n    "keyframes": {body}\n  }}')
    lines.append(",\n".join(clip_blocks))
    lines.append("]}")
    return "\n".join(lines) + "\n"


def write_json_file(clips: Iterable[Clip], path: str | os.PathLike) -> None:
    """Write clips to ``path`` as JSON (UTF-8)."""
    Path(path).write_text(clips_to_json(clips), encoding="utf-8")


# --------------------------------------------------------------------------- reading


def _read_text(path: str | os.PathLike) -> str:
    label = os.fspath(path)
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise JsonFormatError(label, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise JsonFormatError(label, f"cannot read: {exc.strerror or exc}") from None


def _parse(text: str, label: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonFormatError(label, f"{exc.msg} (column {exc.colno})", exc.lineno) from None
    except RecursionError:
        raise JsonFormatError(label, "nesting too deep") from None


def read_json_file(path: str | os.PathLike) -> list[Clip]:
    """Read and validate every clip of a JSON clip file."""
    label = os.fspath(path)
    return clips_from_json(_read_text(path), source=label)


def clips_from_json(text: str, source: str = "<json>") -> list[Clip]:
    """Parse JSON text into validated clips; raises :class:`JsonFormatError`."""
    data = _parse(text, source)
    try:
        return _clips(data, source)
    except _FieldError as exc:
        line = _locate(text, exc.path)
        raise JsonFormatError(source, exc.reason, line, _path_text(exc.path)) from None


def scan_json_clip_names(path: str | os.PathLike) -> list[str]:
    """The clip names of a JSON clip file; ``[]`` for JSON that holds no ``clips`` list.

    Resource trees hold many other JSON files; those are recognised cheaply and skipped
    rather than reported.
    """
    label = os.fspath(path)
    text = _read_text(path)
    if '"clips"' not in text:
        return []
    data = _parse(text, label)
    if not isinstance(data, dict) or not isinstance(data.get("clips"), list):
        return []
    names = []
    for i, entry in enumerate(data["clips"]):
        name = entry.get("Name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name:
            where = ("clips", i, "Name")
            raise JsonFormatError(label, "expected a non-empty string", _locate(text, where), _path_text(where))
        names.append(name)
    return names


def _expect(value: Any, typ: type, path: tuple[Any, ...], what: str) -> Any:
    if not isinstance(value, typ):
        raise _FieldError(path, f"expected {what}, got {_json_type(value)}")
    return value


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _clips(data: Any, source: str) -> list[Clip]:
    _expect(data, dict, (), 'an object {"clips": [...]}')
    for key in data:
        if key != "clips":
            raise _FieldError((key,), 'unknown field; the top level holds only "clips"')
    clips = _expect(data.get("clips", []), list, ("clips",), "a list of clips")
    return [_clip(entry, ("clips", i), source) for i, entry in enumerate(clips)]


def _clip(entry: Any, path: tuple[Any, ...], source: str) -> Clip:
    _expect(entry, dict, path, "a clip object")
    for key in entry:
        if key not in ("Name", "keyframes"):
            raise _FieldError(path + (key,), 'unknown field; a clip has "Name" and "keyframes"')
    name = _expect(entry.get("Name"), str, path + ("Name",), "the clip name (a string)")
    kfs = _expect(entry.get("keyframes", {}), dict, path + ("keyframes",), "an object of tracks")
    tracks: dict[Track, tuple[model.Keyframe, ...]] = {}
    for key, frames in kfs.items():
        kpath = path + ("keyframes", key)
        track = _TRACK_KEYS.get(key)
        if track is None:
            known = ", ".join(t.vector_name for t in Track)
            raise _FieldError(kpath, f"unknown track; expected one of {known}")
        if track in tracks:
            raise _FieldError(kpath, f"track {track.value} is given twice")
        _expect(frames, list, kpath, "a list of keyframes")
        tracks[track] = tuple(_keyframe(track, kf, kpath + (i,)) for i, kf in enumerate(frames))
    try:
        return Clip.from_tracks(name, tracks, source=source)
    except ClipError as exc:
        where = path
        if exc.track is not None:
            where = path + ("keyframes", Track(exc.track).vector_name)
            if exc.index is not None:
                where += (exc.index,)
        raise _FieldError(where, exc.reason) from None


def _keyframe(track: Track, data: Any, path: tuple[Any, ...]) -> model.Keyframe:
    cls = track.keyframe_type
    _expect(data, dict, path, f"a {track.value} keyframe object")
    by_schema = {schema_name: (attr, kind) for attr, schema_name, kind in cls.FIELDS}
    values: dict[str, Any] = {}
    for key, raw in data.items():
        if key not in by_schema:
            known = ", ".join(by_schema)
            raise _FieldError(path + (key,), f"unknown field of {track.value}; expected one of {known}")
        attr, kind = by_schema[key]
        values[attr] = _convert(kind, raw, path + (key,))
    for attr, schema_name, _kind in cls.FIELDS:
        if attr not in values:
            try:
                values[attr] = model.schema_default(cls, attr)
            except KeyError:
                raise _FieldError(path, f"required field {schema_name} is missing") from None
    return cls(**values)


def _convert(kind: str, raw: Any, path: tuple[Any, ...]) -> Any:
    """JSON value -> model value of ``kind``; range checks are left to Clip validation."""
    if kind in ("uint", "ubyte", "byte", "short", "ushort"):
        return _integer(raw, path)
    if kind == "float":
        if isinstance(raw, bool) or not isinstance(raw, (int, float)):
            raise _FieldError(path, f"expected a number, got {_json_type(raw)}")
        return raw
    if kind == "bool":
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, int) and raw in (0, 1):
            return bool(raw)
        raise _FieldError(path, f"expected true or false, got {_json_type(raw)}")
    if kind in ("str", "radius"):
        return _expect(raw, str, path, "a string")
    items = _expect(raw, list, path, "a list")
    if kind == "longs":
        return tuple(_integer(v, path + (i,)) for i, v in enumerate(items))
    out = []
    for i, v in enumerate(items):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise _FieldError(path + (i,), f"expected a number, got {_json_type(v)}")
        out.append(v)
    return tuple(out)


def _integer(raw: Any, path: tuple[Any, ...]) -> int:
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise _FieldError(path, f"expected an integer, got {_json_type(raw)}")
    if isinstance(raw, float):
        if not raw.is_integer():
            raise _FieldError(path, f"expected an integer, got {raw!r}")
        return int(raw)
    return raw


# --------------------------------------------------------------------------- error lines


class _ScannerDecoder(json.JSONDecoder):
    """A JSONDecoder with the hooks its pure-Python scanner reads declared (typeshed leaves them out)."""

    parse_object: Callable[..., Any]
    parse_array: Callable[..., Any]
    scan_once: Callable[[str, int], tuple[Any, int]]


def _locate(text: str, path: tuple[Any, ...]) -> int | None:
    """The 1-based line of the JSON value at ``path`` (None if it cannot be found).

    Only called after an error, so it may use the slower pure-Python scanner, which
    reports where each object and array starts.
    """
    starts: dict[int, int] = {}
    decoder = _ScannerDecoder()

    def parse_object(s_and_end: tuple[str, int], *args: Any) -> Any:
        result, end = JSONObject(s_and_end, *args)
        starts[id(result)] = s_and_end[1] - 1
        keep.append(result)
        return result, end

    def parse_array(s_and_end: tuple[str, int], scan_once: Any) -> Any:
        result, end = JSONArray(s_and_end, scan_once)
        starts[id(result)] = s_and_end[1] - 1
        keep.append(result)
        return result, end

    keep: list[Any] = []  # keeps parsed containers alive so their ids stay unique
    decoder.parse_object = parse_object
    decoder.parse_array = parse_array
    decoder.scan_once = py_make_scanner(decoder)
    try:
        node, _ = decoder.scan_once(text, _skip_ws(text, 0))
    except (json.JSONDecodeError, StopIteration, RecursionError):
        return None
    pos = starts.get(id(node), 0)
    for part in path:
        if isinstance(node, dict) and part in node:
            # The key's own text is the best place to point at.
            key_pos = _find_key(text, starts.get(id(node), 0), str(part))
            node = node[part]
            pos = starts.get(id(node), key_pos if key_pos is not None else pos)
            if not isinstance(node, (dict, list)) and key_pos is not None:
                pos = key_pos
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
            pos = starts.get(id(node), pos)
        else:
            break
    return text.count("\n", 0, pos) + 1


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n\ufeff":
        pos += 1
    return pos


def _find_key(text: str, obj_start: int, key: str) -> int | None:
    """Position of ``"key":`` at the top level of the object starting at ``obj_start``."""
    needle = json.dumps(key)
    pos = obj_start
    while True:
        pos = text.find(needle, pos + 1)
        if pos < 0:
            return None
        after = _skip_ws(text, pos + len(needle))
        if after < len(text) and text[after] == ":":
            return pos
