"""The voice end to end: the real daemon against the real simulator over loopback UDP.

``cozmo-brain run --robot 127.0.0.1:PORT`` runs in its own process with the project's resources;
the simulator runs in the test's loop and keeps every message that reaches it. A clip with sound
must reach the robot as OutputAudio frames of 744 µ-law samples carrying exactly the clip's
sounds (silent frames go as OutputSilence), and the mood must colour the voice: the same song
sung by an excited robot and by a calm one differs in pitch by what the brain's table says,
which the test measures as the dominant frequency of what the robot received.
"""

from __future__ import annotations

import asyncio
import math
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from brain.voice import VOICE_PITCH, voice_pitch
from driver.animation.audio import SAMPLE_RATE, SAMPLES_PER_FRAME, frames_to_pcm
from driver.animation.clip import Clip
from driver.animation.index import ClipIndex
from driver.animation.sounds import SoundLibrary
from driver.animation.timeline import frame_of

from .audio_measure import dominant_frequency
from .conftest import REPO, run
from .daemon_harness import RESOURCES, Daemon, start

pytestmark = pytest.mark.e2e

DEFAULT = REPO / "trees" / "default.yaml"
SONG = "anim_cozmosings_120bpm_01"
AUDIO = ("OutputAudio", "OutputSilence")


def _clip(name: str) -> Clip:
    return ClipIndex.build([RESOURCES]).get(name)


def _expected_sound(clip: Clip, pitch: float) -> list[bytes]:
    """The clip's sounds at ``pitch``, one after the other (the test's clips never overlap them)."""
    lib = SoundLibrary(RESOURCES)
    out: list[bytes] = []
    end = 0
    for kf in clip.robot_audio:
        frames = lib.resolve(kf, pitch)
        assert frames is not None
        assert frame_of(kf.trigger_time_ms) >= end  # no overlap: each sound plays whole
        end = frame_of(kf.trigger_time_ms) + len(frames)
        out += frames
    return out


def _clip_audio(daemon: Daemon, after: float) -> tuple[list[Any], list[str]]:
    """Audio packets of the first whole clip that started after ``after``, and the names of all."""
    inside = False
    audio: list[Any] = []
    for t, name, msg in daemon.received:
        if t <= after:
            continue
        if name == "StartAnimation":
            inside, audio = True, []
        elif inside and name in AUDIO:
            audio.append(msg)
        elif inside and name == "EndAnimation":
            return [m for m in audio if type(m).__name__ == "OutputAudio"], [type(m).__name__ for m in audio]
    raise AssertionError("no whole clip after the event")


def test_a_reaction_clip_reaches_the_robot_as_its_sounds_in_744_sample_frames(tmp_path: Path) -> None:
    """The default personality is poked; its reaction clip's sounds arrive frame by frame, exact."""

    async def body() -> None:
        daemon = await start(tmp_path, "--personality", str(DEFAULT), "--resources", str(RESOURCES),
                             "--duration", "30")
        try:
            await asyncio.sleep(2.0)
            poked = daemon.now()
            daemon.sim.poke()
            reacted = await daemon.line(r"reaction Poked \(priority", timeout=5.0, after=poked)
            started, _ = await daemon.message("StartAnimation", timeout=3.0, after=max(poked, reacted - 0.05))
            await daemon.message("EndAnimation", timeout=10.0, after=started)
            sound, kinds = _clip_audio(daemon, started - 0.001)
        finally:
            daemon.signal(signal.SIGINT)
            code = await daemon.wait(20.0)
            await daemon.close()
        assert code == 0, daemon.text
        assert sound and all(len(bytes(m.samples)) == SAMPLES_PER_FRAME for m in sound)
        assert kinds.count("OutputSilence") > 0  # between and after the sounds
        received = [bytes(m.samples) for m in sound]
        pitches = {0.0, *(voice_pitch(mood) for mood in VOICE_PITCH)}
        candidates = {(name, p): _expected_sound(_clip(name), p) for p in pitches
                      for name in ("anim_reacttopoke_startled_01", "anim_reacttopoke_giggle_01")}
        assert any(received == frames for frames in candidates.values()), (len(received), daemon.text)
        pcm = frames_to_pcm(received).astype(np.float64)
        assert float(np.sqrt(np.mean(pcm * pcm))) > 1000.0  # audible, not near-silent codes

    run(body(), timeout=90)


def _singer(tmp_path: Path, name: str, excited: float) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(
        f"name: {name}\n"
        "mood:\n"
        f"  initial: {{Excited: {excited}}}\n"
        "  decay: {Excited: [[0, 1], [600, 1]]}\n"  # the mood holds while it sings
        "root:\n"
        "  type: play_clip\n"
        f"  params: {{clip: {SONG}}}\n")
    return path


def _first_note(daemon: Daemon) -> np.ndarray:
    """The first run of OutputAudio frames the robot received, decoded."""
    frames: list[bytes] = []
    for _, name, msg in daemon.received:
        if name == "OutputAudio":
            frames.append(bytes(msg.samples))
        elif name == "OutputSilence" and frames:
            break
    return frames_to_pcm(frames).astype(np.float64)


def _pitch_of_note(pcm: np.ndarray) -> float:
    """Dominant frequency of a sung note, leaving out its scoop at the start and its release."""
    return dominant_frequency(pcm[int(0.25 * pcm.size): int(0.8 * pcm.size)], SAMPLE_RATE)


def test_the_mood_colours_the_voice_within_bounds(tmp_path: Path) -> None:
    """An excited singer (HighStim) and a calm one (LowStim) sing the same first note; the robot
    gets it shifted by the table's semitones, which the dominant frequency shows."""

    async def sing(name: str, excited: float) -> np.ndarray:
        (tmp_path / name).mkdir()
        daemon = await start(tmp_path / name, "--personality", str(_singer(tmp_path, name, excited)),
                             "--resources", str(RESOURCES), "--duration", "8")
        try:
            await daemon.line(r"personality \w+ loaded", timeout=10.0)
            first, _ = await daemon.message("OutputAudio", timeout=10.0)
            await daemon.message("OutputSilence", timeout=5.0, after=first)
            return _first_note(daemon)
        finally:
            code = await daemon.wait(30.0)
            await daemon.close()
            assert code == 0, daemon.text

    async def body() -> tuple[np.ndarray, np.ndarray]:
        high, low = await asyncio.gather(sing("excited", 1.0), sing("calm", 0.0))
        return high, low

    high, low = run(body(), timeout=120)
    song = _clip(SONG)
    authored = SoundLibrary(RESOURCES).resolve(song.robot_audio[0])
    assert authored is not None
    base = _pitch_of_note(frames_to_pcm(authored).astype(np.float64))
    assert base == pytest.approx(523.25, rel=0.01)  # the tune starts on C5
    for pcm, mood in ((high, "HighStim"), (low, "LowStim")):
        shift = voice_pitch(mood)
        assert shift != 0.0 and abs(shift) <= 2.0
        expected = _expected_sound(Clip("first", robot_audio=song.robot_audio[:1]), shift)
        assert pcm.size == len(expected) * SAMPLES_PER_FRAME  # the note, shortened or lengthened with its pitch
        measured = _pitch_of_note(pcm)
        assert measured == pytest.approx(base * 2 ** (shift / 12), rel=0.004), (mood, measured, base)
        assert abs(12 * math.log2(measured / base)) <= 2.0 + 0.05  # within the bound
