"""Writing a :class:`~driver.animation.clip.Clip` as ``.cozanim`` text.

Kept apart from the reader: the writer chooses the fewest columns that hold the clip's data,
aligns them for reading by hand, and writes floats with the fewest digits that read back exactly.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from . import clip as model
from .clip import (
    Clip,
    ClipError,
    f32_text,
)
from .textfmt_grammar import (
    _COLUMNS,
    _CONTROL_OF,
    _KINDS,
    CONTROLS,
    _Column,
    _Kind,
    _quote,
)


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

