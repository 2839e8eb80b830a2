"""RobotAudio keyframes: WAV files found by audio event id (or sound name) under a resource tree's
sound folder, and played higher or lower when a playback asks for a pitch shift."""

from __future__ import annotations

import io
import logging
import math
import wave
from pathlib import Path

import numpy as np
import pytest

from driver.animation.audio import SAMPLE_RATE, SAMPLES_PER_FRAME, frames_to_pcm, scale_frames, wav_to_frames
from driver.animation.clip import Clip, HeadAngle, RobotAudio
from driver.animation.controller import AnimationController
from driver.animation.playback import PlaybackError, PlaybackParams
from driver.animation.sound_ids import audio_event_id
from driver.animation.sounds import PITCH_MAX_SEMITONES, SoundLibrary, pitch_step
from driver.robot import Robot
from driver.sim.server import SimulatedCozmo

from .audio_measure import dominant_frequency
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
    with caplog.at_level(logging.WARNING, logger="driver.animation.sounds"):
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
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
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


# ------------------------------------------------------------------ sound names and pitch


def _tone_wav(seconds: float, freq: float, rate: int = SAMPLE_RATE) -> bytes:
    return _wav(seconds, freq, rate)


def test_a_wav_named_after_a_sound_answers_that_names_wwise_id(tmp_path: Path) -> None:
    # Wwise's ids are FNV-1 (32 bit) of the lower-cased name; these pairs come from Wwise's own
    # generated id tables (the Init bank's id, and an event's).
    assert audio_event_id("Init") == 1355168291
    assert audio_event_id("Play_Test") == 3187507146
    assert audio_event_id("PLAY_TEST") == audio_event_id("play_test")
    root = _tree(tmp_path, {"vo_hello.wav": _wav(0.2, 440), "77.wav": _wav(0.1, 880), "not a name.wav": _wav(0.1, 300)})
    lib = SoundLibrary(root)
    hello = RobotAudio(0, (audio_event_id("vo_hello"),))
    assert lib(hello) == wav_to_frames(root / "sound" / "custom" / "vo_hello.wav")
    assert lib(RobotAudio(0, (77,))) is not None
    assert sorted(lib.files) == sorted([str(audio_event_id("vo_hello")), "77"])


def test_a_pitch_shift_moves_the_frequency_and_the_length_together_within_bounds(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"vo_tone.wav": _tone_wav(0.6, 600.0)})
    lib = SoundLibrary(root)
    kf = RobotAudio(0, (audio_event_id("vo_tone"),))
    plain = lib.resolve(kf)
    assert plain == lib(kf) and len(plain) == 18  # 0.6 s at 30 frames a second
    for semitones in (-2.0, -0.75, 1.5, 2.0):
        frames = lib.resolve(kf, semitones)
        ratio = 2.0 ** (semitones / 12.0)
        pcm = frames_to_pcm(frames)
        measured = dominant_frequency(pcm[500:-800], SAMPLE_RATE)
        assert measured == pytest.approx(600.0 * ratio, rel=0.003), semitones
        assert len(frames) == math.ceil(0.6 * SAMPLE_RATE / ratio / SAMPLES_PER_FRAME)  # quicker when higher
        assert lib.resolve(kf, semitones) is frames  # converted once, then cached
    # bounded: a request beyond the library's range plays at its edge, rounded to its steps
    assert pitch_step(9.0) == PITCH_MAX_SEMITONES and pitch_step(-9.0) == -PITCH_MAX_SEMITONES
    assert pitch_step(1.1) == 1.0 and pitch_step(float("nan")) == 0.0
    assert lib.resolve(kf, 9.0) == lib.resolve(kf, PITCH_MAX_SEMITONES)
    assert lib.preload([0.0, 1.5, 9.0]) == 1
    with pytest.raises(PlaybackError, match="pitch_semitones"):
        PlaybackParams(pitch_semitones=13.0)


def test_a_playbacks_pitch_reaches_the_robot_as_shifted_frames(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"vo_tone.wav": _tone_wav(0.3, 500.0)})
    kf = RobotAudio(0, (audio_event_id("vo_tone"),))
    clip = Clip("sing", head_angle=(HeadAngle(0, 600, 10),), robot_audio=(kf,))

    async def main() -> list[bytes]:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address, lost_after=2.0)
        await robot.connect()
        ctl = AnimationController(robot, seed=2, resources=tmp_path)
        try:
            await ctl.play(clip, params=PlaybackParams(pitch_semitones=1.5))
            msgs = list(sim.received)
            start = max(i for i, msg in enumerate(msgs) if type(msg).__name__ == "StartAnimation")
            return [bytes(msg.samples) for msg in msgs[start:] if type(msg).__name__ == "OutputAudio"]
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    sent = run(main(), timeout=30)
    expected = SoundLibrary(root).resolve(kf, 1.5)
    assert sent == expected and sent != SoundLibrary(root)(kf)
    measured = dominant_frequency(frames_to_pcm(sent)[300:-600], SAMPLE_RATE)
    assert measured == pytest.approx(500 * 2 ** (1.5 / 12), rel=0.003)


def _files_gone(root: Path) -> None:
    for path in (root / "sound" / "custom").iterdir():
        path.unlink()


def test_a_preload_keeps_every_sound_at_every_pitch_it_converted(tmp_path: Path) -> None:
    """More sounds x pitches than the cache holds: all are kept, so none is converted again while
    clips play (shown by the files being gone by then)."""
    sounds = {f"{1001 + i}.wav": _wav(0.1, 300.0 + 100 * i) for i in range(3)}
    root = _tree(tmp_path, sounds)
    lib = SoundLibrary(root, cache_size=2)
    want = {(i, p): SoundLibrary(root).resolve(RobotAudio(0, (i,)), p) for i in (1001, 1002, 1003) for p in (0.0, 1.5)}
    assert lib.preload([0.0, 1.5]) == 3
    _files_gone(root)
    for (i, p), frames in want.items():
        assert frames and lib.resolve(RobotAudio(0, (i,)), p) == frames, (i, p)
