"""RobotAudio keyframes: WAV files found by audio event id under a resource tree's sound folder."""

from __future__ import annotations

import io
import logging
import wave
from pathlib import Path

import numpy as np
import pytest

from driver.animation.audio import SoundLibrary, scale_frames, wav_to_frames
from driver.animation.clip import Clip, HeadAngle, RobotAudio
from driver.animation.controller import AnimationController
from driver.robot import Robot
from driver.sim.server import SimulatedCozmo

from .conftest import run


def _wav(seconds: float, freq: float, rate: int = 22050) -> bytes:
    t = np.arange(int(rate * seconds)) / rate
    pcm = (0.6 * np.sin(2 * np.pi * freq * t) * 32767).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return buf.getvalue()


def _tree(tmp_path: Path, sounds: dict[str, bytes]) -> Path:
    root = tmp_path / "cozmo_resources"
    folder = root / "sound" / "custom"
    folder.mkdir(parents=True)
    for name, data in sounds.items():
        (folder / name).write_bytes(data)
    return root


def test_the_library_finds_wavs_by_event_id_picks_by_probability_and_scales_by_volume(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"1001.wav": _wav(0.2, 440), "1002.WAV": _wav(0.1, 880)})
    lib = SoundLibrary(root, seed=1)
    one = lib(RobotAudio(0, (1001,)))
    assert one == wav_to_frames(root / "sound" / "custom" / "1001.wav")
    assert len(one) == 6  # 0.2 s at 30 frames per second
    # the weights decide among alternatives: all weight on the second
    assert lib(RobotAudio(0, (1001, 1002), probability=(0.0, 1.0))) == lib(RobotAudio(0, (1002,)))
    half = lib(RobotAudio(0, (1001,), volume=0.5))
    assert half == scale_frames(one, 0.5) and half != one
    assert lib.preload() == 2


def test_several_roots_are_searched_in_order(tmp_path: Path) -> None:
    user = _tree(tmp_path / "user", {"5.wav": _wav(0.1, 300)})
    project = _tree(tmp_path / "project", {"5.wav": _wav(0.2, 600), "6.wav": _wav(0.1, 900)})
    lib = SoundLibrary([user, project])
    assert lib(RobotAudio(0, (5,))) == wav_to_frames(user / "sound" / "custom" / "5.wav")
    assert lib(RobotAudio(0, (6,))) == wav_to_frames(project / "sound" / "custom" / "6.wav")


def test_missing_sounds_are_silent_with_one_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="driver.animation.audio"):
        no_folder = SoundLibrary(tmp_path)
        assert no_folder(RobotAudio(0, (5,))) is None
        assert no_folder(RobotAudio(0, (6,))) is None
        lib = SoundLibrary(_tree(tmp_path, {"7.wav": _wav(0.1, 300), "8.wav": b"RIFF-not-really"}))
        assert lib(RobotAudio(0, (5,))) is None
        assert lib(RobotAudio(0, (6,))) is None
        assert lib(RobotAudio(0, (8,))) is None
        assert lib(RobotAudio(0, (7,))) is not None
    messages = [r.getMessage() for r in caplog.records]
    assert sum("no sound folder" in msg for msg in messages) == 1
    assert sum("no WAV for audio event" in msg for msg in messages) == 1
    assert sum("8.wav" in msg for msg in messages) == 1


def test_a_clip_with_robot_audio_sends_the_sound_frame_by_frame_to_the_robot(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"424242.wav": _wav(0.3, 500)})
    expected = wav_to_frames(root / "sound" / "custom" / "424242.wav")
    clip = Clip("talk", head_angle=(HeadAngle(0, 600, 10),), robot_audio=(RobotAudio(100, (424242,)),))

    async def main() -> list[bytes]:
        sim = await SimulatedCozmo(port=0).start()
        robot = Robot(*sim.address, lost_after=2.0)
        await robot.connect()
        ctl = AnimationController(robot, seed=2, resources=tmp_path)
        try:
            sim.speaker.recent.clear()
            pb = ctl.play(clip)
            await pb
            msgs = list(sim.received)
            start = max(i for i, msg in enumerate(msgs) if type(msg).__name__ == "StartAnimation")
            audio = [msg for msg in msgs[start:] if type(msg).__name__ in ("OutputAudio", "OutputSilence")]
            first = next(i for i, msg in enumerate(audio) if type(msg).__name__ == "OutputAudio")
            assert first == 3  # the keyframe is at 100 ms: frame 3
            return [bytes(msg.samples) for msg in audio if type(msg).__name__ == "OutputAudio"]
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    assert run(main(), timeout=30) == expected
