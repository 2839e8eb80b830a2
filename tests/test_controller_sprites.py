"""FaceAnimation keyframes: sprite sequences (folders of PNGs) from a resource tree, shown frame by frame."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from brain.app.simulate import run_virtual
from driver.animation import display
from driver.animation.clip import Clip, FaceAnimation, HeadAngle, ProceduralFace
from driver.animation.controller import AnimationController
from driver.animation.display import DisplayFormatError, SpriteLibrary, sprite_image
from driver.animation.playback import PlaybackParams
from driver.animation.timeline import Timeline
from driver.memlink import MemoryNetwork
from driver.robot import Robot
from driver.sim.server import SimulatedCozmo

from .conftest import run


def _pattern(height: int, k: int) -> np.ndarray:
    """A distinct test picture: a lit bar whose position depends on ``k``, plus a frame border."""
    img = np.zeros((height, 128), dtype=np.uint8)
    img[:, 10 + 20 * k : 18 + 20 * k] = 255
    img[0, :] = img[-1, :] = 200
    return img


def _write_sequence(root: Path, name: str, pictures: list[np.ndarray], mode: str = "L") -> Path:
    folder = root / "cozmo_resources" / "assets" / "faceAnimations" / name
    folder.mkdir(parents=True, exist_ok=True)
    for i, pic in enumerate(pictures):
        Image.fromarray(pic).convert(mode).save(folder / f"{name}_{i:05d}.png")
    return folder


def _expected(pic: np.ndarray) -> np.ndarray:
    rows = pic[0::2] if pic.shape[0] == 64 else pic
    return rows >= 128


# ------------------------------------------------------------------------------ the library


def test_sprite_frames_of_both_sizes_are_encoded_as_the_robot_shows_them(tmp_path: Path) -> None:
    tall = [_pattern(64, k) for k in range(3)]
    short = [_pattern(32, k) for k in range(2)]
    _write_sequence(tmp_path, "tall_seq", tall)
    _write_sequence(tmp_path, "short_seq", short, mode="RGBA")
    lib = SpriteLibrary(tmp_path)  # the parent of cozmo_resources works as a root
    assert lib.names() == ["short_seq", "tall_seq"]
    for name, pics in (("tall_seq", tall), ("short_seq", short)):
        frames = lib(name)
        assert frames is not None and len(frames) == len(pics)
        for data, pic in zip(frames, pics, strict=True):
            assert np.array_equal(display.decode(data), _expected(pic))
    assert lib.load("TALL_SEQ") == lib.load("tall_seq")  # names are matched regardless of case
    # frames follow natural order: frame_10 after frame_9
    folder = _write_sequence(tmp_path, "numbered", [_pattern(32, 0)])
    (folder / "numbered_00000.png").rename(folder / "f_10.png")
    Image.fromarray(_pattern(32, 1)).save(folder / "f_9.png")
    got = lib.load("numbered")
    assert np.array_equal(display.decode(got[0]), _expected(_pattern(32, 1)))


def test_several_roots_are_searched_in_order(tmp_path: Path) -> None:
    first, second = tmp_path / "user", tmp_path / "project"
    _write_sequence(first, "shared_seq", [_pattern(32, 0)])
    _write_sequence(second, "shared_seq", [_pattern(32, 1)])
    _write_sequence(second, "only_here", [_pattern(32, 2)])
    lib = SpriteLibrary([first, second / "cozmo_resources"])
    assert lib.names() == ["only_here", "shared_seq"]
    shared, only = lib("shared_seq"), lib("only_here")
    assert shared is not None and only is not None
    assert np.array_equal(display.decode(shared[0]), _expected(_pattern(32, 0)))  # the first root wins
    assert np.array_equal(display.decode(only[0]), _expected(_pattern(32, 2)))


def test_bad_sprites_raise_naming_the_file_and_the_library_warns_once(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    bad = tmp_path / "cozmo_resources" / "assets" / "faceAnimations" / "odd_size"
    bad.mkdir(parents=True)
    Image.new("L", (100, 50)).save(bad / "odd_size_00000.png")
    with pytest.raises(DisplayFormatError, match=r"odd_size_00000\.png.*128x32 or 128x64.*100x50"):
        sprite_image(bad / "odd_size_00000.png")
    (tmp_path / "junk.png").write_bytes(b"not a png")
    with pytest.raises(DisplayFormatError, match=r"junk\.png: cannot read"):
        sprite_image(tmp_path / "junk.png")
    noisy = np.random.default_rng(1).integers(0, 2, (32, 128), dtype=np.uint8) * 255
    Image.fromarray(noisy).save(tmp_path / "noisy.png")
    with pytest.raises(DisplayFormatError, match="more than one DisplayImage carries"):
        sprite_image(tmp_path / "noisy.png")
    lib = SpriteLibrary(tmp_path)
    with caplog.at_level(logging.WARNING, logger="driver.animation.display"):
        assert lib("odd_size") is None
        assert lib("odd_size") is None
        assert lib("missing_seq") is None
        assert lib("../escape") is None
    messages = [r.getMessage() for r in caplog.records]
    assert sum("odd_size" in msg for msg in messages) == 1
    assert any("no sprite sequence 'missing_seq'" in msg for msg in messages)


def test_timeline_maps_sprite_frames_to_clip_frames_with_speed() -> None:
    clip = Clip("s", face_animation=(FaceAnimation(100, "seq"),))
    images = [b"a", b"b", b"c", b"d"]
    assert Timeline(clip, sprite_resolver=lambda name: images).sprites == {3: b"a", 4: b"b", 5: b"c", 6: b"d"}
    fast = Timeline(clip, PlaybackParams(speed=2.0), sprite_resolver=lambda name: images)
    assert fast.sprites == {2: b"a", 3: b"c"}  # trigger at 50 ms, every other sprite
    slow = Timeline(clip, PlaybackParams(speed=0.5), sprite_resolver=lambda name: images[:2])
    assert slow.sprites == {6: b"a", 7: b"a", 8: b"b", 9: b"b"}
    assert Timeline(clip).unsupported == {"FaceAnimation"}
    assert Timeline(clip, sprite_resolver=lambda name: None).sprites == {}


# ------------------------------------------------------------------------------ end to end


def _images_since(sim: SimulatedCozmo, t0: float) -> list[tuple[float, bytes]]:
    return [(t, img) for t, img in sim.display.history if t >= t0]


def test_a_clip_plays_its_sprite_sequence_one_image_per_frame_then_its_procedural_face(tmp_path: Path) -> None:
    pics = [_pattern(64, k) for k in range(4)]
    _write_sequence(tmp_path, "anim_sprite_test", pics)
    clip = Clip("sprites", head_angle=(HeadAngle(0, 300, 10),),
                procedural_face=(ProceduralFace(0), ProceduralFace(500, face_center_x=12.0)),
                face_animation=(FaceAnimation(100, "anim_sprite_test"),))

    # On the virtual clock over the in-memory network: the subject is one image per frame of the
    # robot's clock, which a loaded machine's stalls would blur in real time.
    async def main() -> list[tuple[float, bytes]]:
        net = MemoryNetwork(latency_s=0.002)
        sim = await SimulatedCozmo("127.0.0.1", 5551, calibrate=False).start(open_link=net.open_link)
        robot = Robot("127.0.0.1", 5551, lost_after=2.0)
        await robot.connect(open_link=net.open_link)
        ctl = AnimationController(robot, seed=5, resources=tmp_path / "cozmo_resources")
        try:
            t0 = asyncio.get_running_loop().time()
            await ctl.play(clip)
            return _images_since(sim, t0)
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    shown = run_virtual(main())
    decoded = [display.decode(img) for _, img in shown]
    hits = [next((i for i, px in enumerate(decoded) if np.array_equal(px, _expected(p))), None) for p in pics]
    assert None not in hits, "every sprite frame reached the robot's display"
    assert hits == list(range(hits[0], hits[0] + 4)), "in order, one after the other"
    times = [shown[i][0] for i in hits]
    span = times[-1] - times[0]
    assert 0.09 < span < 0.11, f"{span:.4f} s: one image per frame of the robot's clock (three periods)"
    # before the sequence: the procedural face; after it: the procedural face again
    assert hits[0] >= 1
    after = decoded[hits[-1] + 1 :]
    assert after and not any(np.array_equal(px, _expected(p)) for px in after for p in pics)


def test_a_missing_sprite_sequence_is_warned_about_and_the_rest_of_the_clip_plays(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    clip = Clip("nosprite", head_angle=(HeadAngle(0, 200, 20),),
                face_animation=(FaceAnimation(0, "anim_not_there"),))

    async def main() -> Any:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address, lost_after=2.0)
        await robot.connect()
        plain = AnimationController(robot, seed=5)  # no resources at all
        try:
            pb = plain.play(clip)
            await pb
            pb2 = plain.play(clip)  # warned once per clip and sequence, not per play
            await pb2
            heads = [m for m in sim.received if type(m).__name__ == "AnimHead"]
            return pb, pb2, heads
        finally:
            await plain.stop()
            await robot.disconnect()
            await sim.stop()

    with caplog.at_level(logging.WARNING, logger="driver.animation.controller"):
        pb, pb2, heads = run(main(), timeout=30)
    assert pb.succeeded and pb2.succeeded
    assert [h.angle_deg for h in heads] == [20, 20]
    warnings = [r.getMessage() for r in caplog.records if "anim_not_there" in r.getMessage()]
    assert len(warnings) == 1
    assert "FaceAnimation" in warnings[0] and "no sprite resolver" in warnings[0]
