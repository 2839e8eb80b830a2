"""Tests for WAV -> Cozmo µ-law frame conversion (driver.animation.audio)."""

from __future__ import annotations

import io
import struct
import wave
from pathlib import Path

import numpy as np
import pytest

from driver.animation.audio import (
    SAMPLE_RATE,
    SAMPLES_PER_FRAME,
    AudioFormatError,
    frames_to_pcm,
    mulaw_decode,
    mulaw_encode,
    pcm_to_frames,
    read_wav,
    resample,
    silence_frame,
    wav_to_frames,
)

SILENCE_CODE = silence_frame()[0]


def _tone(freq: float, rate: int, seconds: float, amplitude: float = 0.5) -> np.ndarray:
    t = np.arange(int(round(rate * seconds))) / rate
    return amplitude * np.sin(2.0 * np.pi * freq * t)


def _pcm16_wav(samples: np.ndarray, rate: int, width: int = 2) -> bytes:
    """WAV bytes from float samples in -1..1, shape (n,) or (n, channels), via the stdlib."""
    x = np.atleast_2d(samples.T).T if samples.ndim == 1 else samples
    channels = x.shape[1]
    if width == 1:
        raw = np.clip(np.rint(x * 127 + 128), 0, 255).astype(np.uint8).tobytes()
    elif width == 2:
        raw = np.clip(np.rint(x * 32767), -32768, 32767).astype("<i2").tobytes()
    elif width == 3:
        v = np.clip(np.rint(x * 8388607), -8388608, 8388607).astype("<i4")
        raw = v.view(np.uint8).reshape(-1, 4)[:, :3].tobytes()
    else:
        raise ValueError(width)
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(raw)
    return buf.getvalue()


def _float_wav(samples: np.ndarray, rate: int, extensible: bool = False) -> bytes:
    """IEEE-float WAV bytes (which the stdlib wave module cannot write or read)."""
    data = samples.astype("<f4").tobytes()
    if extensible:
        guid = struct.pack("<H", 3) + b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"
        fmt = struct.pack("<HHIIHHHHI", 0xFFFE, 1, rate, rate * 4, 4, 32, 22, 32, 0) + guid
    else:
        fmt = struct.pack("<HHIIHH", 3, 1, rate, rate * 4, 4, 32)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body


def _dominant_frequency(x: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(x * np.hanning(x.size)))
    return float(np.argmax(spectrum)) * rate / x.size


# --------------------------------------------------------------------------------------------
# µ-law


def test_mulaw_matches_pycozmo_for_every_in_range_sample():
    audio = pytest.importorskip("pycozmo.audio")
    samples = np.arange(-31611, 32768)  # below -31611 PyCozmo returns 256, which is not a byte
    ours = mulaw_encode(samples)
    theirs = np.array([audio.u_law_encoding(int(s)) for s in samples])
    assert ours.dtype == np.uint8
    np.testing.assert_array_equal(ours, theirs)


def test_mulaw_known_codes():
    # zero -> code 0 + 1; the positive and negative ends of the scale
    assert mulaw_encode(np.array([0, 32767, -31611])).tolist() == [1, 128, 255]
    assert SILENCE_CODE == 1


@pytest.mark.parametrize("value", [-32768, -31612, -(10**9), 10**9, 32767, 2**40, -(2**40)])
def test_mulaw_extremes_never_overflow(value):
    code = int(mulaw_encode(np.array([value]))[0])
    assert 1 <= code <= 255
    assert code == (255 if value < 0 else 128)


def test_mulaw_decode_inverts_encode_on_codes():
    codes = np.arange(1, 256, dtype=np.uint8)
    decoded = mulaw_decode(codes)
    assert decoded.dtype == np.int16
    again = mulaw_encode(decoded)
    # every code survives except 129 ("minus zero"), which decodes to 0 and comes back as 1
    np.testing.assert_array_equal(again[codes != 129], codes[codes != 129])
    assert again[codes == 129][0] == 1
    assert mulaw_decode(bytes([0]))[0] == 0


def test_mulaw_round_trip_error_is_small_relative_to_level():
    x = np.arange(-31611, 32768, 7)
    err = np.abs(mulaw_decode(mulaw_encode(x)).astype(np.int64) - x)
    assert np.all(err <= np.maximum(16, np.abs(x) * 0.035))


def test_silence_frame():
    frame = silence_frame()
    assert len(frame) == SAMPLES_PER_FRAME
    assert not mulaw_decode(frame).any()


# --------------------------------------------------------------------------------------------
# Resampling and framing


def test_sample_rate_is_thirty_frames_of_744():
    assert SAMPLE_RATE == 22320


def test_one_khz_tone_keeps_its_frequency():
    y = resample(_tone(1000.0, 44100, 1.0) * 32768, 44100)
    assert y.size == SAMPLE_RATE
    assert abs(_dominant_frequency(y, SAMPLE_RATE) - 1000.0) <= 1.0
    # and the level is preserved in the pass band
    assert np.sqrt(np.mean(y[500:-500] ** 2)) == pytest.approx(0.5 * 32768 / np.sqrt(2), rel=0.01)


def test_tone_survives_the_whole_chain():
    frames = pcm_to_frames(_tone(1000.0, 44100, 1.0), 44100)
    pcm = frames_to_pcm(frames).astype(np.float64)
    assert abs(_dominant_frequency(pcm, SAMPLE_RATE) - 1000.0) <= 1.0


def test_tone_above_nyquist_does_not_alias():
    # 15 kHz is above the output Nyquist (11,160 Hz); decimating without a low-pass would fold it
    # to 22,320 - 15,000 = 7,320 Hz at full level.
    x = _tone(15000.0, 44100, 1.0, amplitude=0.9) * 32768
    y = resample(x, 44100)
    level = np.sqrt(np.mean(y[500:-500] ** 2)) / (0.9 * 32768 / np.sqrt(2))
    assert level < 1e-3  # better than -60 dB
    # Through µ-law too: the decoded output is (near) silent.
    pcm = frames_to_pcm(pcm_to_frames(x / 32768, 44100)).astype(np.float64)
    assert np.sqrt(np.mean(pcm[500:-500] ** 2)) < 20.0


def test_naive_decimation_would_alias():
    # The check above can fail: dropping samples puts the 15 kHz tone at 7,320 Hz.
    x = _tone(15000.0, 44100, 1.0)
    idx = np.floor(np.arange(SAMPLE_RATE) * 44100 / SAMPLE_RATE).astype(int)
    assert abs(_dominant_frequency(x[idx], SAMPLE_RATE) - 7320.0) < 5.0


@pytest.mark.parametrize(
    "rate, seconds, frames",
    [(44100, 1.0, 30), (22050, 0.5, 15), (22050, 0.51, 16), (48000, 2.0, 60), (8000, 0.1, 3), (22320, 1.0, 30)],
)
def test_frame_count_for_known_durations(rate, seconds, frames):
    out = pcm_to_frames(_tone(440.0, rate, seconds), rate)
    assert len(out) == frames
    assert all(isinstance(f, bytes) and len(f) == SAMPLES_PER_FRAME for f in out)


def test_last_frame_is_padded_with_silence():
    out = pcm_to_frames(np.full(1000, 0.5), SAMPLE_RATE)
    assert len(out) == 2
    assert out[1][256 + 10 :] == bytes([SILENCE_CODE]) * (SAMPLES_PER_FRAME - 266)


def test_empty_input_gives_no_frames():
    assert pcm_to_frames(np.zeros(0), 22050) == []


def test_extreme_pcm_values_never_overflow():
    # A full-scale square wave rings above full scale when band-limited; float input far beyond
    # +-1 must clip too.
    square = np.where(np.arange(22050) % 50 < 25, 32767, -32768).astype(np.int16)
    for samples, rate in ((square, 22050), (np.full(5000, 40.0), 16000), (np.full(5000, -40.0), 44100)):
        pcm = frames_to_pcm(pcm_to_frames(samples, rate))
        assert pcm.dtype == np.int16
        assert pcm.max() <= 32767 and pcm.min() >= -32768


def test_stereo_is_downmixed():
    left = _tone(1000.0, 22050, 0.5)
    stereo = np.stack((left, -left), axis=1)  # cancels to silence
    assert set(b"".join(pcm_to_frames(stereo, 22050))) == {SILENCE_CODE}
    half = np.stack((left, np.zeros_like(left)), axis=1)
    mono = pcm_to_frames(left * 0.5, 22050)
    assert pcm_to_frames(half, 22050) == mono


def test_pcm_dtypes():
    x = _tone(500.0, 22050, 0.2)
    reference = pcm_to_frames(x, 22050)
    as_int16 = np.rint(x * 32768).astype(np.int16)
    assert pcm_to_frames(as_int16, 22050) == reference
    with pytest.raises(AudioFormatError, match="dtype"):
        pcm_to_frames(x.astype(np.complex64), 22050)
    with pytest.raises(AudioFormatError, match="NaN"):
        pcm_to_frames(np.array([0.0, np.nan]), 22050)
    with pytest.raises(AudioFormatError, match="sample rate"):
        pcm_to_frames(x, 0)


# --------------------------------------------------------------------------------------------
# WAV files


@pytest.mark.parametrize("width", [1, 2, 3])
def test_integer_wavs_of_every_width(width):
    x = _tone(800.0, 16000, 0.3, amplitude=0.6)
    samples, rate = read_wav(_pcm16_wav(x, 16000, width))
    assert rate == 16000 and samples.shape == (x.size, 1)
    tolerance = {1: 300.0, 2: 2.0, 3: 1.0}[width]
    assert np.max(np.abs(samples[:, 0] - x * 32767)) < tolerance


@pytest.mark.parametrize("extensible", [False, True])
def test_float_wavs(extensible):
    x = _tone(800.0, 48000, 0.25, amplitude=0.7)
    samples, rate = read_wav(_float_wav(x, 48000, extensible))
    assert rate == 48000
    np.testing.assert_allclose(samples[:, 0], x.astype(np.float32) * 32768, atol=1e-3)
    frames = wav_to_frames(_float_wav(x, 48000, extensible))
    assert len(frames) == 8  # 0.25 s = 7.5 frames, the last one padded


def test_wav_path_and_bytes_agree(tmp_path: Path):
    data = _pcm16_wav(np.stack((_tone(300.0, 44100, 0.4), _tone(600.0, 44100, 0.4)), axis=1), 44100)
    path = tmp_path / "stereo.wav"
    path.write_bytes(data)
    assert wav_to_frames(path) == wav_to_frames(str(path)) == wav_to_frames(data)
    assert len(wav_to_frames(data)) == 12


def test_bad_wavs_raise_clear_errors(tmp_path: Path):
    with pytest.raises(AudioFormatError, match="not a WAV"):
        wav_to_frames(b"hello, this is not audio")
    with pytest.raises(AudioFormatError, match="missing.wav"):
        wav_to_frames(tmp_path / "missing.wav")
    bad_format = _float_wav(np.zeros(10), 8000).replace(struct.pack("<HH", 3, 1), struct.pack("<HH", 0x55, 1), 1)
    with pytest.raises(AudioFormatError, match="0x0055"):
        wav_to_frames(bad_format)
