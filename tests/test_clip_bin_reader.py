"""The .bin reader against an independent one: the code flatc generated from the schema.

``read_bin`` checks and reads each field in one pass with its own offset arithmetic; the
generated accessors (``driver.animation.CozmoAnim``) read the same bytes through the
FlatBuffers runtime. Both must give the same keyframes for every clip the project ships, for
random clips, and for keyframes whose fields were all left out of the file (the builder omits
a value equal to the schema's default, so the reader's defaults are what the clip then holds).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driver.animation import clip as model
from driver.animation.binfmt import read_bin
from driver.animation.binwrite import _camel, write_bin
from driver.animation.clip import Clip, Track
from driver.animation.CozmoAnim import AnimClips as fb_AnimClips
from tests.test_clip_model import clips, every_track_clip

from .conftest import REPO

_SCALARS = ("uint", "ubyte", "byte", "short", "ushort", "float", "bool")


def _generated_read(data: bytes) -> list[tuple[str, dict[Track, tuple[model.Keyframe, ...]]]]:
    """Every clip's name and tracks as the generated accessors read them."""
    root = fb_AnimClips.AnimClips.GetRootAs(data, 0)
    out = []
    for i in range(root.ClipsLength()):
        fbclip = root.Clips(i)
        tracks: dict[Track, tuple[model.Keyframe, ...]] = {}
        fbkfs = fbclip.Keyframes()
        for track in Track if fbkfs is not None else ():
            length = getattr(fbkfs, track.vector_name + "Length")()
            if length:
                getter = getattr(fbkfs, track.vector_name)
                tracks[track] = tuple(_keyframe(track, getter(j)) for j in range(length))
        out.append((fbclip.Name().decode("utf-8"), tracks))
    return out


def _keyframe(track: Track, fbkf: Any) -> model.Keyframe:
    cls = track.keyframe_type
    values: dict[str, Any] = {}
    for attr, schema_name, kind in cls.FIELDS:
        camel = _camel(schema_name)
        if kind in _SCALARS:
            value = getattr(fbkf, camel)()
            values[attr] = bool(value) if kind == "bool" else value
        elif kind in ("str", "radius"):
            raw = getattr(fbkf, camel)()
            values[attr] = raw.decode("utf-8") if raw is not None else ""
        elif getattr(fbkf, camel + "IsNone")():
            values[attr] = model.schema_default(cls, attr)
        else:
            getter = getattr(fbkf, camel)
            values[attr] = tuple(getter(j) for j in range(getattr(fbkf, camel + "Length")()))
    return cls(**values)


def _same_as_generated(data: bytes) -> list[Clip]:
    ours = read_bin(data, source="x.bin")
    theirs = _generated_read(data)
    assert [c.name for c in ours] == [name for name, _ in theirs]
    for clip, (_name, tracks) in zip(ours, theirs, strict=True):
        assert {t: clip.keyframes(t) for t in clip.tracks_used()} == tracks, clip.name
    return ours


def _files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.bin"))


def test_every_shipped_clip_reads_as_the_generated_code_reads_it() -> None:
    files = _files(REPO / "resources")
    assert len(files) >= 20
    clips = [c for f in files for c in _same_as_generated(f.read_bytes())]
    keyframes = sum(len(kfs) for c in clips for kfs in map(c.keyframes, Track))
    assert keyframes > 1000


def test_fields_left_out_read_as_the_schemas_defaults() -> None:
    bare = Clip.from_tracks("anim_defaults", {
        track: (track.keyframe_type(**{a: model.schema_default(track.keyframe_type, a) if
                                       (track.value, s) not in model.REQUIRED_FIELDS else _required(k)
                                       for a, s, k in track.keyframe_type.FIELDS
                                       if a != "trigger_time_ms"}, trigger_time_ms=0),)
        for track in Track})
    ours = _same_as_generated(write_bin([bare, every_track_clip()]))
    assert ours[0] == bare


def _required(kind: str) -> Any:
    return {"str": "anim_x", "longs": (1,), "radius": "STRAIGHT"}[kind]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(clips(), max_size=3, unique_by=lambda c: c.name))
def test_random_clips_read_as_the_generated_code_reads_them(original: list[Clip]) -> None:
    assert _same_as_generated(write_bin(original)) == original
