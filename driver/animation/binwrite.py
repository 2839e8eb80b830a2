"""Writing Cozmo animation .bin files (FlatBuffers ``CozmoAnim.AnimClips``), several clips per file.

The generated builder functions (``driver.animation.CozmoAnim``) do the layout; the output is
deterministic, so ``write_bin(read_bin(write_bin(clips)))`` is byte-identical to
``write_bin(clips)``. Reading is :mod:`driver.animation.binfmt`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import flatbuffers

from . import clip as model
from .binfmt import STRING_KINDS, VECTOR_KINDS
from .clip import Clip, Track
from .CozmoAnim import AnimClip as fb_AnimClip
from .CozmoAnim import AnimClips as fb_AnimClips
from .CozmoAnim import BackpackLights as fb_BackpackLights
from .CozmoAnim import BodyMotion as fb_BodyMotion
from .CozmoAnim import Event as fb_Event
from .CozmoAnim import FaceAnimation as fb_FaceAnimation
from .CozmoAnim import HeadAngle as fb_HeadAngle
from .CozmoAnim import Keyframes as fb_Keyframes
from .CozmoAnim import LiftHeight as fb_LiftHeight
from .CozmoAnim import ProceduralFace as fb_ProceduralFace
from .CozmoAnim import RecordHeading as fb_RecordHeading
from .CozmoAnim import RobotAudio as fb_RobotAudio
from .CozmoAnim import TurnToRecordedHeading as fb_TurnToRecordedHeading

__all__ = ["write_bin", "write_bin_file"]

# The generated modules, by schema table name.
_FB_MODULES: dict[str, Any] = {
    "LiftHeight": fb_LiftHeight,
    "ProceduralFace": fb_ProceduralFace,
    "HeadAngle": fb_HeadAngle,
    "RobotAudio": fb_RobotAudio,
    "BackpackLights": fb_BackpackLights,
    "FaceAnimation": fb_FaceAnimation,
    "Event": fb_Event,
    "BodyMotion": fb_BodyMotion,
    "RecordHeading": fb_RecordHeading,
    "TurnToRecordedHeading": fb_TurnToRecordedHeading,
}

def _camel(schema_name: str) -> str:
    """The accessor name flatc generates for a schema field (``triggerTime_ms`` -> ``TriggerTimeMs``)."""
    return "".join(part[:1].upper() + part[1:] for part in schema_name.split("_"))


def write_bin(clips: Iterable[Clip]) -> bytes:
    """Encode clips as one CozmoAnim .bin file (the generated builder API does the layout)."""
    clips = list(clips)
    builder = flatbuffers.Builder(4096)
    offsets = [_encode_clip(builder, c) for c in clips]
    fb_AnimClips.AnimClipsStartClipsVector(builder, len(offsets))
    for off in reversed(offsets):
        builder.PrependUOffsetTRelative(off)
    clips_vec = builder.EndVector()
    fb_AnimClips.AnimClipsStart(builder)
    fb_AnimClips.AnimClipsAddClips(builder, clips_vec)
    builder.Finish(fb_AnimClips.AnimClipsEnd(builder))
    return bytes(builder.Output())


def _offset_vector(builder: flatbuffers.Builder, offsets: Sequence[int]) -> int:
    builder.StartVector(4, len(offsets), 4)
    for off in reversed(offsets):
        builder.PrependUOffsetTRelative(off)
    return builder.EndVector()


def _encode_clip(builder: flatbuffers.Builder, clip: Clip) -> int:
    track_vectors: list[tuple[Track, int]] = []
    for track, frames in clip.iter_tracks():
        offsets = [_encode_keyframe(builder, track, kf) for kf in frames]
        track_vectors.append((track, _offset_vector(builder, offsets)))
    fb_Keyframes.KeyframesStart(builder)
    for track, vec in track_vectors:
        getattr(fb_Keyframes, "KeyframesAdd" + track.vector_name)(builder, vec)
    keyframes = fb_Keyframes.KeyframesEnd(builder)
    name = builder.CreateString(clip.name)
    fb_AnimClip.AnimClipStart(builder)
    fb_AnimClip.AnimClipAddName(builder, name)
    fb_AnimClip.AnimClipAddKeyframes(builder, keyframes)
    return fb_AnimClip.AnimClipEnd(builder)


def _encode_keyframe(builder: flatbuffers.Builder, track: Track, kf: model.Keyframe) -> int:
    table = track.value
    module = _FB_MODULES[table]
    cls = track.keyframe_type
    # Offsets (strings, vectors) must be built before the table is started.
    refs: dict[str, int] = {}
    for attr, schema_name, kind in cls.FIELDS:
        value = getattr(kf, attr)
        if kind in STRING_KINDS:
            refs[schema_name] = builder.CreateString(value)
        elif kind in VECTOR_KINDS:
            camel = _camel(schema_name)
            getattr(module, f"{table}Start{camel}Vector")(builder, len(value))
            prepend = builder.PrependInt64 if kind == "longs" else builder.PrependFloat32
            for v in reversed(value):
                prepend(v)
            refs[schema_name] = builder.EndVector()
    getattr(module, f"{table}Start")(builder)
    for attr, schema_name, _kind in cls.FIELDS:
        add = getattr(module, f"{table}Add{_camel(schema_name)}")
        if schema_name in refs:
            add(builder, refs[schema_name])
        else:
            add(builder, getattr(kf, attr))
    return getattr(module, f"{table}End")(builder)


def write_bin_file(clips: Iterable[Clip], path: str | os.PathLike) -> None:
    """Write clips to ``path`` as a .bin file."""
    Path(path).write_bytes(write_bin(clips))
