"""Loaders of light patterns: backpack lights (``lights/backpackLights``) and cube lights (``lights/cubeLights``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import fields as F
from .fields import FieldError, JsonPath
from .issues import Severity, json_type
from .reading import Document, IssueSink, _top_object
from .records import RGBA, BackpackLightPattern, CubeLightAnimation, CubeLightPattern, CubeLightStage

__all__ = ["load_backpack_lights", "load_cube_lights"]


# ---------------------------------------------------------------- lights


_PATTERN_LISTS = ("onPeriod_ms", "offPeriod_ms", "transitionOnPeriod_ms", "transitionOffPeriod_ms", "offset")


def _colors(p: Mapping[str, Any], key: str, path: JsonPath, scale: float) -> tuple[RGBA, ...]:
    out: list[RGBA] = []
    cpath = path + (key,)
    if key not in p:
        raise FieldError(cpath, "missing required field")
    for i, c in enumerate(F.expect_list(p[key], cpath)):
        c = F.expect_list(c, cpath + (i,))
        if len(c) != 4:
            raise FieldError(cpath + (i,), f"expected [r, g, b, a], got {len(c)} values")
        vals = []
        for j, v in enumerate(c):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise FieldError(cpath + (i, j), f"expected number, got {json_type(v)}")
            if not 0 <= v <= scale:
                raise FieldError(cpath + (i, j), f"expected a colour value in 0..{scale:g}, got {v!r}")
            vals.append(float(v) / scale)
        out.append((vals[0], vals[1], vals[2], vals[3]))
    return tuple(out)


def _ms_list(p: Mapping[str, Any], key: str, path: JsonPath) -> tuple[int, ...]:
    lpath = path + (key,)
    if key not in p:
        raise FieldError(lpath, "missing required field")
    out = []
    for i, v in enumerate(F.expect_list(p[key], lpath)):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise FieldError(lpath + (i,), f"expected number, got {json_type(v)}")
        out.append(int(round(v)))
    return tuple(out)


def _pattern_lists(p: Mapping[str, Any], path: JsonPath, scale: float) -> dict[str, Any]:
    lists = {
        "on_colors": _colors(p, "onColors", path, scale),
        "off_colors": _colors(p, "offColors", path, scale),
        "on_period_ms": _ms_list(p, "onPeriod_ms", path),
        "off_period_ms": _ms_list(p, "offPeriod_ms", path),
        "transition_on_period_ms": _ms_list(p, "transitionOnPeriod_ms", path),
        "transition_off_period_ms": _ms_list(p, "transitionOffPeriod_ms", path),
        "offset_ms": _ms_list(p, "offset", path),
    }
    leds = len(lists["on_colors"])
    for value, key in zip(lists.values(), ("onColors", "offColors", *_PATTERN_LISTS), strict=True):
        if len(value) != leds:
            raise FieldError(path + (key,), f"expected {leds} entries (one per LED, as onColors), got {len(value)}")
    return lists


def _max_color(value: Any) -> float:
    """The largest colour component in a backpack file, to tell 0..1 floats from 0..255 bytes."""
    best = 0.0
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            for k, x in v.items():
                if k in ("onColors", "offColors") and isinstance(x, list):
                    for c in x:
                        if isinstance(c, list):
                            best = max([best, *(n for n in c if isinstance(n, (int, float)))])
                elif isinstance(x, dict):
                    stack.append(x)
    return best


def load_backpack_lights(doc: Document, sink: IssueSink) -> list[BackpackLightPattern]:
    """``lights/backpackLights/*.json``: one pattern (named by the file) or a map of named patterns.

    Colours are kept as 0..1 floats. Files whose colours go above 1 are read as 0..255 bytes.
    """
    obj = _top_object(doc, sink, "backpack lights")
    if obj is None:
        return []
    scale = 255.0 if _max_color(obj) > 1.0 else 1.0

    def read(name: str, value: Any, path: JsonPath) -> BackpackLightPattern:
        p = F.expect_object(value, path)
        return BackpackLightPattern(name=name, origin=doc.origin, **_pattern_lists(p, path, scale))

    if "onColors" in obj:
        items: list[tuple[str, Any, JsonPath]] = [(doc.name, obj, ())]
    else:
        items = [(k, v, (k,)) for k, v in obj.items()]
    out = []
    for name, value, path in items:
        try:
            out.append(read(name, value, path))
        except FieldError as exc:
            sink.field_error(doc, exc, "light pattern")
    return out


def _cube_stage(name: str, value: Any, path: JsonPath) -> CubeLightStage:
    s = F.expect_object(value, path)
    if "pattern" not in s:
        raise FieldError(path + ("pattern",), "missing required field")
    ppath = path + ("pattern",)
    p = F.expect_object(s["pattern"], ppath)
    rotate = F.boolean(s, "rotate", path, None)
    pattern = CubeLightPattern(
        **_pattern_lists(p, ppath, 255.0),
        rotation_period_ms=int(F.number(p, "rotationPeriod_ms", ppath, 0.0)),
        rotate=F.boolean(p, "rotate", ppath, rotate),
    )
    return CubeLightStage(
        name=F.string(s, "patternDebugName", path, name),
        pattern=pattern,
        duration_ms=int(F.number(s, "duration_ms", path, 0.0)),
        can_be_overridden=F.boolean(s, "canBeOverridden", path, None),
    )


def load_cube_lights(doc: Document, sink: IssueSink) -> CubeLightAnimation | None:
    """``lights/cubeLights/**.json``, in either shape; colours 0..255 become 0..1 floats.

    Object of named stages → stages in key order (the files rely on it: ``flourish`` then
    ``zdenouement``). A key holding a list, or a top-level list → the stages in list order.
    """
    data = doc.data
    stages: list[CubeLightStage] = []
    try:
        if isinstance(data, list):
            stages = [_cube_stage(f"{doc.name}[{i}]", s, (i,)) for i, s in enumerate(data)]
        elif isinstance(data, dict):
            for key in sorted(data):
                value = data[key]
                if isinstance(value, list):
                    stages.extend(_cube_stage(f"{key}[{i}]", s, (key, i)) for i, s in enumerate(value))
                else:
                    stages.append(_cube_stage(key, value, (key,)))
        else:
            raise FieldError((), f"expected an object or a list of stages, got {json_type(data)}")
    except FieldError as exc:
        sink.field_error(doc, exc, "cube light animation")
        return None
    if not stages:
        sink.report(Severity.WARNING, "cube light animation has no stages", doc, code="empty")
    return CubeLightAnimation(doc.name, tuple(stages), doc.origin)
