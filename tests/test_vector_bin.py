"""Animation files written with Vector's schema are recognised as foreign: reported and skipped.

Vector's ``cozmo_anim.fbs`` (Anki.VectorAnim in the Anki.Resources.SDK's copy) shares its root
type (``AnimClips``) and its first ten keyframe tracks with Cozmo's, but not their tables:
``RobotAudio`` holds ``eventGroups:[AudioEventGroup]`` (tables) plus audio states, switches and
parameters where Cozmo has ``audioEventId:[long]``, ``volume``, ``probability`` and ``hasAlts``;
``BackpackLights`` has three LEDs (Front, Middle, Back) instead of five; ``ProceduralFace`` and
``FaceAnimation`` gain ``scanlineOpacity``; ``Keyframes`` gains an eleventh track,
``SpriteBoxKeyFrame:[SpriteBox]``. FlatBuffers files carry no namespace, so the difference has to
be seen in the structure. The files below are built field by field after that schema.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import flatbuffers
import pytest

from driver.animation.binfmt import BinFormatError, read_bin, scan_clip_names
from driver.animation.binwrite import write_bin
from driver.animation.clip import AnimationError, Clip, HeadAngle
from driver.animation.index import ClipIndex

# ----------------------------------------------------------------------------- a Vector writer

Field = tuple[int, str, Any]  # (slot, kind, value); kinds as in _put


def _put(b: flatbuffers.Builder, slot: int, kind: str, value: Any) -> None:
    if kind == "uint":
        b.PrependUint32Slot(slot, value, 0)
    elif kind == "int":
        b.PrependInt32Slot(slot, value, 0)
    elif kind == "ubyte":
        b.PrependUint8Slot(slot, value, 0)
    elif kind == "byte":
        b.PrependInt8Slot(slot, value, 0)
    elif kind == "short":
        b.PrependInt16Slot(slot, value, 0)
    elif kind == "float":
        b.PrependFloat32Slot(slot, value, float("nan"))  # always written, as flatc does for non-defaults
    elif kind == "ref":
        b.PrependUOffsetTRelativeSlot(slot, value, 0)
    else:
        raise AssertionError(kind)


def _table(b: flatbuffers.Builder, slots: int, fields: list[Field]) -> int:
    b.StartObject(slots)
    for slot, kind, value in fields:
        _put(b, slot, kind, value)
    return b.EndObject()


def _floats(b: flatbuffers.Builder, values: list[float]) -> int:
    b.StartVector(4, len(values), 4)
    for v in reversed(values):
        b.PrependFloat32(v)
    return b.EndVector()


def _uints(b: flatbuffers.Builder, values: list[int]) -> int:
    b.StartVector(4, len(values), 4)
    for v in reversed(values):
        b.PrependUint32(v)
    return b.EndVector()


def _refs(b: flatbuffers.Builder, offsets: list[int]) -> int:
    b.StartVector(4, len(offsets), 4)
    for off in reversed(offsets):
        b.PrependUOffsetTRelative(off)
    return b.EndVector()


# Vector's keyframe tracks, by slot of its Keyframes table (Cozmo's ten, then SpriteBox).
HEAD, PROC_FACE, AUDIO, LIGHTS, FACE_ANIM, EVENT, SPRITE_BOX = 2, 1, 3, 4, 5, 6, 10


def head_angle(b: flatbuffers.Builder) -> int:
    return _table(b, 4, [(0, "uint", 0), (1, "uint", 300), (2, "byte", 20), (3, "ubyte", 0)])


def procedural_face(b: flatbuffers.Builder) -> int:
    left, right = _floats(b, [0.0] * 19), _floats(b, [0.0] * 19)
    return _table(b, 9, [(0, "uint", 0), (4, "float", 1.0), (6, "ref", left), (7, "ref", right),
                         (8, "float", 0.5)])  # scanlineOpacity


def robot_audio(b: flatbuffers.Builder) -> int:
    ids, volumes, probs = _uints(b, [3405691582, 12345]), _floats(b, [1.0, 0.8]), _floats(b, [0.5, 0.5])
    group = _table(b, 3, [(0, "ref", ids), (1, "ref", volumes), (2, "ref", probs)])  # AudioEventGroup
    state = _table(b, 2, [(0, "uint", 7), (1, "uint", 9)])  # AudioState
    param = _table(b, 4, [(0, "uint", 42), (1, "float", 0.25), (2, "uint", 100), (3, "ubyte", 1)])  # AudioParameter
    groups, states, params = _refs(b, [group]), _refs(b, [state]), _refs(b, [param])
    return _table(b, 5, [(0, "uint", 100), (1, "ref", groups), (2, "ref", states), (4, "ref", params)])


def backpack_lights(b: flatbuffers.Builder) -> int:
    front, middle, back = (_floats(b, [1.0, 0.0, 0.0, 0.0]) for _ in range(3))
    return _table(b, 5, [(0, "uint", 0), (1, "uint", 500), (2, "ref", front), (3, "ref", middle), (4, "ref", back)])


def face_animation(b: flatbuffers.Builder) -> int:
    name = b.CreateString("anim_face_sprite")
    return _table(b, 3, [(0, "uint", 0), (1, "ref", name), (2, "float", 0.7)])  # scanlineOpacity


def event(b: flatbuffers.Builder) -> int:
    name = b.CreateString("TRIGGER")
    return _table(b, 2, [(0, "uint", 200), (1, "ref", name)])


def sprite_box(b: flatbuffers.Builder) -> int:
    strings = [b.CreateString(s) for s in ("SpriteBox_1", "Layer_1", "anim_eyes", "CustomHue", "hold")]
    return _table(b, 11, [(0, "uint", 0), *((i + 1, "ref", s) for i, s in enumerate(strings)),
                          (6, "float", 100.0), (7, "int", -10), (8, "int", 4), (9, "uint", 184), (10, "uint", 96)])


MAKERS: dict[int, Callable[[flatbuffers.Builder], int]] = {
    HEAD: head_angle, PROC_FACE: procedural_face, AUDIO: robot_audio, LIGHTS: backpack_lights,
    FACE_ANIM: face_animation, EVENT: event, SPRITE_BOX: sprite_box,
}


def vector_file(*clips: tuple[str, list[int]]) -> bytes:
    """An AnimClips file after Vector's schema: each clip has one keyframe of each listed track."""
    b = flatbuffers.Builder(1024)
    clip_offsets = []
    for name, tracks in clips:
        vectors = {slot: _refs(b, [MAKERS[slot](b)]) for slot in tracks}
        keyframes = _table(b, 11, [(slot, "ref", vec) for slot, vec in sorted(vectors.items())])
        clip_name = b.CreateString(name)
        clip_offsets.append(_table(b, 2, [(0, "ref", clip_name), (1, "ref", keyframes)]))
    clips_vec = _refs(b, clip_offsets)
    b.Finish(_table(b, 1, [(0, "ref", clips_vec)]))
    return bytes(b.Output())


# ----------------------------------------------------------------------------- the checks

EVERYTHING = [HEAD, PROC_FACE, AUDIO, LIGHTS, FACE_ANIM, EVENT, SPRITE_BOX]

# Vector clips whose tables differ from Cozmo's: each must be refused as foreign.
FOREIGN = {
    "everything": [EVERYTHING],
    "sprite_box_track": [[HEAD, SPRITE_BOX]],
    "scanline_opacity_face": [[PROC_FACE]],
    "scanline_opacity_face_animation": [[FACE_ANIM, EVENT]],
    "second_clip_foreign": [[HEAD], [HEAD, SPRITE_BOX]],
}


def _file(tracks_per_clip: list[list[int]]) -> bytes:
    return vector_file(*((f"anim_vector_{i:02d}", tracks) for i, tracks in enumerate(tracks_per_clip)))


@pytest.mark.parametrize("case", sorted(FOREIGN))
def test_a_vector_schema_file_is_refused_as_foreign_not_misread(case: str) -> None:
    data = _file(FOREIGN[case])
    with pytest.raises(BinFormatError) as err:
        read_bin(data, source=f"{case}.bin")
    assert err.value.file == f"{case}.bin"
    assert "Vector" in err.value.reason or "does not define" in err.value.reason or "expected" in err.value.reason


def test_the_new_track_is_named_as_a_sign_of_vectors_schema() -> None:
    data = _file([[HEAD, SPRITE_BOX]])
    for reader in (read_bin, scan_clip_names):
        with pytest.raises(BinFormatError, match="Vector"):
            reader(data, source="sprites.bin")


def test_vector_robot_audio_is_refused_as_foreign() -> None:
    with pytest.raises(BinFormatError):
        read_bin(_file([[HEAD, AUDIO]]), source="audio.bin")


def test_every_track_combination_ends_in_clips_or_a_format_error_never_a_crash() -> None:
    for mask in range(1, 1 << len(EVERYTHING)):
        tracks = [t for i, t in enumerate(EVERYTHING) if mask >> i & 1]
        data = _file([tracks])
        for reader in (scan_clip_names, read_bin):
            try:
                result = reader(data, source=f"mask{mask}.bin")
            except BinFormatError:
                continue
            assert len(result) == 1
        try:
            read_bin(data, source=f"mask{mask}.bin")
        except BinFormatError:
            continue
        # Only tables that Cozmo's schema lays out alike read as Cozmo clips (a three-LED
        # BackpackLights is a valid Cozmo keyframe).
        assert set(tracks) <= {HEAD, LIGHTS, EVENT}, f"tracks {tracks} were misread as Cozmo's"


def test_the_clip_index_skips_and_reports_vector_files_and_keeps_cozmos(tmp_path: Path) -> None:
    (tmp_path / "cozmo.bin").write_bytes(write_bin([Clip("anim_cozmo_01", head_angle=(HeadAngle(0, 100, 10),))]))
    (tmp_path / "vector_sprites.bin").write_bytes(vector_file(("anim_vector_sprites", [HEAD, SPRITE_BOX])))
    (tmp_path / "vector_face.bin").write_bytes(vector_file(("anim_vector_face", [PROC_FACE])))
    index = ClipIndex.build([tmp_path])
    assert index.get("anim_cozmo_01").head_angle[0].angle_deg == 10
    # the SpriteBox track shows in the name scan: that file never enters the index
    assert "anim_vector_sprites" not in index
    reasons = {p.name: why for p, why in index.errors}
    assert "Vector" in reasons["vector_sprites.bin"]
    # a foreign table deeper down shows when the file is first decoded: an error, reported, not a crash
    if "anim_vector_face" in index:
        with pytest.raises(AnimationError):
            index.get("anim_vector_face")
        with pytest.raises(AnimationError):  # and again, from the record, without decoding again
            index.get("anim_vector_face")
    reasons = {p.name: why for p, why in index.errors}
    assert "does not define" in reasons["vector_face.bin"]
    assert index.get("anim_cozmo_01").name == "anim_cozmo_01"  # the good file is unaffected
