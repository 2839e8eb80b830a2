"""The robot's voice: sounds synthesised from ``resources/src/voice.yaml`` by ``tools/build_voice.py``.

The checked-in WAV files must be exactly what the tool renders (like the clips' ``.bin`` files);
each sound must be audible, of a sensible length and free of clipping, also when the mood shifts
its pitch to either bound; every sound a clip names must exist and every sound must be used; the
singing clips' notes must sit on their beats; and a broken voice file must be reported by file,
line and field.
"""

from __future__ import annotations

import importlib.util
import math
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from brain.assets import load_resource_set
from brain.assets.resource_set import ResourceSet
from brain.mood import SimpleMood
from brain.voice import MAX_VOICE_SHIFT, voice_pitch
from driver.animation.audio import SAMPLE_RATE, SAMPLES_PER_FRAME, frames_to_pcm, read_wav
from driver.animation.clip import RobotAudio
from driver.animation.sound_ids import audio_event_id
from driver.animation.sounds import SoundLibrary
from driver.animation.timeline import frame_of

from .audio_measure import dominant_frequency
from .conftest import REPO

RESOURCES = REPO / "resources"
VOICE_SRC = RESOURCES / "src" / "voice.yaml"
WAVS = RESOURCES / "cozmo_resources" / "sound" / "voice"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def builder() -> ModuleType:
    return _load("build_voice")


@pytest.fixture(scope="module")
def rs() -> ResourceSet:
    return load_resource_set([RESOURCES])


def _sound(name: str) -> np.ndarray:
    samples, rate = read_wav(WAVS / f"{name}.wav")
    assert rate == SAMPLE_RATE and samples.shape[1] == 1, name
    return samples[:, 0]


def _wav_names() -> list[str]:
    return sorted(p.stem for p in WAVS.glob("*.wav"))


# ------------------------------------------------------------------ the build step


def test_checked_in_wavs_are_exactly_what_the_tool_renders(builder: ModuleType) -> None:
    built = builder.build(VOICE_SRC)
    assert len(built) >= 30
    assert builder.check(built, WAVS) == []


@pytest.mark.e2e
def test_check_command_finds_stale_missing_and_orphaned_files(tmp_path: Path) -> None:
    out = tmp_path / "voice"
    script = str(REPO / "tools" / "build_voice.py")

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, script, "--out", str(out), *args], capture_output=True, text=True,
                              timeout=120)

    assert cli("--check").returncode == 1  # nothing built yet
    assert cli().returncode == 0
    done = cli("--check")
    assert done.returncode == 0 and "up to date" in done.stderr
    (out / "vo_yawn.wav").write_bytes((out / "vo_yawn.wav").read_bytes()[:-2] + b"\x01\x00")
    (out / "vo_sigh.wav").unlink()
    (out / "vo_extra.wav").write_bytes(b"RIFF")
    stale = cli("--check")
    assert stale.returncode == 1
    assert "vo_yawn.wav: out of date" in stale.stderr and "vo_sigh.wav: missing" in stale.stderr
    assert "vo_extra.wav: no sound of the voice file makes it" in stale.stderr
    assert cli().returncode == 0 and not (out / "vo_extra.wav").exists()
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in WAVS.iterdir())


def test_the_synthesisers_own_sine_and_powers_of_two_are_exact_enough() -> None:
    synth = _load("voice_synth")
    c = np.linspace(-40.0, 40.0, 200_001)
    assert np.max(np.abs(synth.sin_cycles(c) - np.sin(2 * np.pi * c))) < 1e-12
    x = np.linspace(-8.0, 8.0, 100_001)
    assert np.max(np.abs(synth.exp2(x) / np.exp2(x) - 1.0)) < 1e-14
    assert synth.hz_to_semitone(440.0) == pytest.approx(69.0, abs=1e-12)
    assert synth.hz_to_semitone(261.6255653005986) == pytest.approx(60.0, abs=1e-12)
    assert synth.semitone_to_hz(np.array([81.0]))[0] == pytest.approx(880.0, rel=1e-14)


# ------------------------------------------------------------------ the sounds


@pytest.mark.parametrize("name", _wav_names())
def test_every_sound_is_audible_sized_and_free_of_clipping(name: str) -> None:
    x = _sound(name) / 32768.0
    seconds = x.size / SAMPLE_RATE
    assert 0.15 <= seconds <= 4.0, seconds
    rms_db = 20 * math.log10(float(np.sqrt(np.mean(x * x))))
    window = int(0.1 * SAMPLE_RATE)
    power = np.convolve(x * x, np.ones(window) / window, mode="valid")
    loudest_db = 10 * math.log10(float(power.max()))
    assert rms_db > -30.0 and loudest_db > -20.0, (rms_db, loudest_db)
    peak = float(np.max(np.abs(x)))
    assert peak <= 0.9, peak  # headroom: no sample near full scale
    assert abs(x[0]) < 0.01 and abs(x[-1]) < 0.01  # starts and ends at rest: no click
    # what the robot gets, at both ends of the mood's range, is still unclipped
    lib = SoundLibrary(RESOURCES)
    kf = RobotAudio(0, (audio_event_id(name),))
    for shift in (-MAX_VOICE_SHIFT, 0.0, MAX_VOICE_SHIFT):
        frames = lib.resolve(kf, shift)
        assert frames and all(len(f) == SAMPLES_PER_FRAME for f in frames)
        assert int(np.max(np.abs(frames_to_pcm(frames).astype(np.int32)))) < 31000, shift


def test_the_voice_has_the_vocalisations_it_needs() -> None:
    """Chirps, trills, hums, a yawn, a grumble, a happy rising call and a startled squeak, each as it
    should sound: the call rises, the squeak is short and high, the grumble low, the yawn long."""
    names = _wav_names()
    for kind in ("vo_chirp", "vo_trill", "vo_hum", "vo_yawn", "vo_grumble", "vo_call_happy", "vo_squeak"):
        assert any(n.startswith(kind) for n in names), kind

    def pitch(x: np.ndarray) -> float:
        return dominant_frequency(x, SAMPLE_RATE)

    call = _sound("vo_call_happy")
    third = call.size // 3
    assert pitch(call[-third:]) > 1.25 * pitch(call[:third])  # rising
    squeak = _sound("vo_squeak_startled")
    assert squeak.size < 0.4 * SAMPLE_RATE and pitch(squeak) > 1500.0
    grumble = _sound("vo_grumble")
    assert pitch(grumble) < 400.0
    yawn = _sound("vo_yawn")
    assert yawn.size > 1.5 * SAMPLE_RATE


def test_every_sound_a_clip_names_exists_and_every_sound_is_played(rs: ResourceSet) -> None:
    lib = SoundLibrary(RESOURCES)
    played: set[int] = set()
    with_sound = 0
    for name in rs.clips.names():
        clip = rs.clips.get(name)
        with_sound += bool(clip.robot_audio)
        for kf in clip.robot_audio:
            played.update(kf.audio_event_id)
            assert lib(kf), (name, kf)
    assert {int(i) for i in lib.files} == played
    assert with_sound >= 40  # all but the blinks and a quiet look-around


def test_singing_keeps_time_with_its_clip(builder: ModuleType, rs: ResourceSet) -> None:
    voice = builder.load_voice(VOICE_SRC)
    assert len(voice.tunes) >= 2
    lib = SoundLibrary(RESOURCES)
    for tune in voice.tunes:
        clip = rs.clips.get(tune.clip)  # the built .bin, as the robot plays it
        notes = [(k.trigger_time_ms, k.audio_event_id) for k in clip.robot_audio]
        assert notes == [(t, (audio_event_id(name),)) for t, name in tune.keyframes()]
        heads = {k.trigger_time_ms for k in clip.head_angle}
        frames_per_beat = tune.beat_ms * 30 / 1000
        first = frame_of(tune.start_ms)
        beats = 0.0
        slots = iter(tune.slots())
        for note, length in tune.notes:
            if note != "R":
                start, _, slot = next(slots)
                # on its beat, to the nearest frame (at 80 bpm a beat is 22.5 frames: half a frame either way)
                assert abs(frame_of(start) - (first + beats * frames_per_beat)) <= 0.5, (tune.clip, start)
                if float(beats).is_integer():
                    assert start in heads  # the head bobs on the same beat
                # even sung at the slowest the mood allows, a note ends before the next one starts
                frames = lib.resolve(RobotAudio(start, (audio_event_id(builder.sung_note_name(note, slot)),)),
                                     -MAX_VOICE_SHIFT)
                assert frames and len(frames) <= frame_of(start + slot) - frame_of(start)
            beats += length


def test_the_moods_colour_on_the_voice_is_bounded() -> None:
    for mood in SimpleMood:
        assert abs(voice_pitch(mood.value)) <= MAX_VOICE_SHIFT
    assert voice_pitch("HighStim") > voice_pitch("MedStim") > voice_pitch("LowStim") > voice_pitch("Frustrated")
    assert voice_pitch(None) == 0.0 and voice_pitch("Unknown") == 0.0
    assert voice_pitch("HighStim", {"HighStim": 7.0}) == MAX_VOICE_SHIFT
    assert voice_pitch("LowStim", {"LowStim": -7.0}) == -MAX_VOICE_SHIFT


# ------------------------------------------------------------------ errors


def test_voice_file_errors_name_the_file_line_and_field(builder: ModuleType, tmp_path: Path) -> None:
    bad = tmp_path / "voice.yaml"
    bad.write_text(
        "sounds:\n"
        "  vo_ok:\n"
        "    duration: 0.2\n"
        "    layers:\n"
        "      - tone: {pitch: [[0, A5]], envelope: [[0, 0], [0.1, 1], [0.2, 0]]}\n"
        "  vo_bad:\n"
        "    duration: long\n"
        "    layers:\n"
        "      - tone:\n"
        "          pitch: [[0, Q9]]\n"
        "          envelope: [[0, 0], [0.1, 2]]\n"
        "          colour: red\n"
        "      - hum: {}\n"
        "singing:\n"
        "  voice: {harmonics: [1], vibrato: [5, 0.1], scoop: 1, attack: 0.02, release: 0.05, length: 0.8}\n"
        "  tunes:\n"
        "    anim_x: {bpm: 120, notes: C5:1 H5:1}\n")
    with pytest.raises(builder.VoiceError) as info:
        builder.load_voice(bad)
    text = str(info.value)
    for expected in (
        f"{bad}:7: sounds.vo_bad.duration: expected a number, got 'long'",
        f"{bad}:10: sounds.vo_bad.layers[0].tone.pitch[0][1]: expected a note name",
        f"{bad}:11: sounds.vo_bad.layers[0].tone.envelope[1][1]: 2 is outside 0.0..1.0",
        f"{bad}:12: sounds.vo_bad.layers[0].tone.colour: unknown key",
        f"{bad}:13: sounds.vo_bad.layers[1]: expected one key, tone or noise",
        f"{bad}:17: singing.tunes.anim_x.notes[1]: expected note:beats",
    ):
        assert expected in text, text
    assert "vo_ok" not in text
    assert builder.main(["--src", str(bad), "--out", str(tmp_path / "out")]) == 1
    assert not (tmp_path / "out").exists()
