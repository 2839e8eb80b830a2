"""Sound for the robot's speaker: WAV files to 30 fps frames of Cozmo µ-law samples.

The robot plays audio in step with the animation clock: every 1/30 s frame carries one
OutputAudio message of exactly 744 8-bit samples, so the speaker runs at 30 x 744 = 22,320
samples/s (the app's sound sources are 22,050 Hz, played about 1 % fast). A frame without sound
is sent as OutputSilence instead.

The companding is a µ-law variant that PyCozmo determined against the robot: the magnitude plus a
bias of 132 is clipped to 0x7fff, coded as a sign bit, a 3-bit segment and a 4-bit mantissa, and
the byte sent is that code plus one (not G.711's bit inversion). Its largest negative code would
then be 256, which does not fit in a byte, so inputs are clipped to -31611 .. 32767 first; every
other int16 value gets the same byte PyCozmo's encoder gives it.

Any common WAV is accepted: 8/16/24/32-bit integer or 32/64-bit float samples, at any rate, mono
or multi-channel (channels are averaged). Rate conversion is band-limited (a Kaiser-windowed
sinc interpolator, evaluated per output sample from a table of filter phases), so content above
the robot's 11,160 Hz Nyquist frequency is removed instead of folding back as audible aliases.

Everything here is pure computation. Playing sound on this computer (a one-off preview, or the
simulator's speaker stream, through an :class:`AudioSink`) is :mod:`driver.animation.host_audio`.

:mod:`driver.animation.sounds` finds a clip's sounds in a resource tree and plays them higher or lower.
"""

from __future__ import annotations

import functools
import io
import logging
import math
import os
import struct
import wave
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

__all__ = [
    "FRAMES_PER_SECOND",
    "MULAW_BIAS",
    "MULAW_CLIP",
    "SAMPLES_PER_FRAME",
    "SAMPLE_RATE",
    "AudioFormatError",
    "AudioSink",
    "frames_to_pcm",
    "int16_scale_to_frames",
    "mulaw_decode",
    "mulaw_encode",
    "pcm_to_frames",
    "read_wav",
    "release_filters",
    "resample",
    "scale_frames",
    "silence_frame",
    "wav_to_frames",
]

log = logging.getLogger(__name__)

FRAMES_PER_SECOND = 30
SAMPLES_PER_FRAME = 744
#: The speaker's sample rate: one 744-sample frame per 1/30 s animation frame.
SAMPLE_RATE = FRAMES_PER_SECOND * SAMPLES_PER_FRAME
MULAW_BIAS = 132
MULAW_CLIP = 0x7FFF
#: Inputs below this are clipped: the encoding of anything lower would not fit in a byte.
_MIN_ENCODABLE = -(0x7BFF - MULAW_BIAS)  # -31611

_WAVE_FORMAT_PCM = 0x0001
_WAVE_FORMAT_IEEE_FLOAT = 0x0003
_WAVE_FORMAT_EXTENSIBLE = 0xFFFE

# µ-law byte -> int16 sample (segment midpoints), built once; read-only.
_DECODE_TABLE: np.ndarray


class AudioFormatError(ValueError):
    """A sound that cannot be read or converted; the message names the source and what was expected."""


# ---------------------------------------------------------------------------------------------
# µ-law


def _mulaw_codes(x: np.ndarray) -> np.ndarray:
    """µ-law codes (1..255) of integer samples already within -31611..32767."""
    sign = np.where(x < 0, 0x80, 0)
    mag = np.minimum(np.abs(x) + MULAW_BIAS, MULAW_CLIP)
    # Position of the highest set bit: 7 .. 14 (mag >= 132 always has bit 7 or higher set).
    top = np.full(mag.shape, 7, dtype=np.int64)
    for bit in range(8, 15):
        top += mag >= (1 << bit)
    mantissa = (mag >> (top - 4)) & 0x0F
    code = sign | ((top - 7) << 4) | mantissa
    return (code + 1).astype(np.uint8)


def _build_encode_table() -> np.ndarray:
    """The code of every int16 value (index = value + 32768), built in blocks of 4,096 values:
    whole-range int64 scratch (half a megabyte an array) would stay resident in the heap after
    use and cost the daemon about 4 MB of RSS for a 64 KB table."""
    table = np.empty(65536, dtype=np.uint8)
    block = 4096
    for start in range(0, 65536, block):
        values = np.arange(start - 32768, start - 32768 + block, dtype=np.int64)
        table[start : start + block] = _mulaw_codes(np.clip(values, _MIN_ENCODABLE, 32767))
    table.setflags(write=False)
    return table


# The code of every int16 value, computed once: encoding is then one lookup per sample, with no
# int64 scratch the size of the sound (which, for a whole sound, could stay in the heap).
_ENCODE_TABLE = _build_encode_table()


def mulaw_encode(samples: np.ndarray) -> np.ndarray:
    """Encode int16-range samples to Cozmo µ-law bytes (uint8 array, values 1..255).

    Values outside -31611..32767 (including anything beyond the int16 range) are clipped first, so
    the result always fits in a byte.
    """
    x = np.asarray(samples)
    if x.dtype != np.int32 and x.dtype != np.int64:
        x = x.astype(np.int64)  # floats are cut towards zero
    index = np.clip(x, -32768, 32767).astype(np.int32)
    index += 32768
    return _ENCODE_TABLE[index]


def _build_decode_table() -> np.ndarray:
    code = np.arange(256, dtype=np.int64) - 1
    code[0] = 0  # byte 0 is never produced; treat it as silence
    segment = (code >> 4) & 0x07
    mantissa = code & 0x0F
    magnitude = (((mantissa << 3) + MULAW_BIAS) << segment) - MULAW_BIAS
    table = np.where(code & 0x80, -magnitude, magnitude)
    table[0] = 0
    out = np.clip(table, -32768, 32767).astype(np.int16)
    out.setflags(write=False)
    return out


_DECODE_TABLE = _build_decode_table()


def mulaw_decode(data: bytes | bytearray | memoryview | np.ndarray) -> np.ndarray:
    """Decode Cozmo µ-law bytes to int16 samples (each code's mid-point), e.g. for a simulator
    that plays or measures what the robot would output."""
    codes = np.frombuffer(bytes(data), dtype=np.uint8) if not isinstance(data, np.ndarray) else data
    return _DECODE_TABLE[np.asarray(codes, dtype=np.uint8)]


_SILENCE_CODE = int(mulaw_encode(np.zeros(1, dtype=np.int16))[0])
_SILENCE_FRAME = bytes([_SILENCE_CODE]) * SAMPLES_PER_FRAME


def silence_frame() -> bytes:
    """One frame of silence (744 bytes of the code for 0), for padding or explicit quiet frames."""
    return _SILENCE_FRAME


# ---------------------------------------------------------------------------------------------
# Resampling

_MAX_EXACT_PHASES = 4096
_QUANTISED_PHASES = 4096
#: Phases of a filter table computed at once, and the scratch bytes of one block of resampling.
_TABLE_BLOCK = 256
_RESAMPLE_SCRATCH = 1 << 18


@functools.lru_cache(maxsize=16)  # a memo of read-only tables: safe to share between robots
def _filter_bank(up: int, down: int, zero_crossings: int, rolloff: float, beta: float) -> tuple[np.ndarray, int]:
    """Polyphase table of a Kaiser-windowed sinc low-pass: one row of taps per fractional phase.

    Returns (table, half) where tap j of a row applies to input sample floor(t) - half + 1 + j.
    Cached because it depends only on the rate pair; the returned array is read-only.
    """
    cutoff = 0.5 * rolloff * min(1.0, up / down)  # cycles per input sample
    half = int(math.ceil(zero_crossings / (2.0 * cutoff)))
    phases = up if up <= _MAX_EXACT_PHASES else _QUANTISED_PHASES
    rows = phases + (0 if phases == up else 1)
    offsets = np.arange(-half + 1, half + 1, dtype=np.float64)
    table = np.empty((rows, offsets.size), dtype=np.float32)
    # Built a block of phases at a time: the float64 scratch stays small (a whole table's worth
    # of it, several times over, would stay in the process's heap after the table is built).
    for first in range(0, rows, _TABLE_BLOCK):
        frac = np.arange(first, min(first + _TABLE_BLOCK, rows), dtype=np.float64) / phases
        dist = offsets[None, :] - frac[:, None]
        window = np.i0(beta * np.sqrt(np.clip(1.0 - (dist / half) ** 2, 0.0, None))) / np.i0(beta)
        taps = 2.0 * cutoff * np.sinc(2.0 * cutoff * dist) * window
        taps /= taps.sum(axis=1, keepdims=True)  # unity gain at DC for every phase
        table[first : first + frac.size] = taps
    table.setflags(write=False)
    return table, half


def release_filters() -> None:
    """Let go of the resampling filters built so far (a megabyte or so each; they are needed only
    while converting)."""
    _filter_bank.cache_clear()


def resample(
    samples: np.ndarray,
    rate_in: int,
    rate_out: int = SAMPLE_RATE,
    *,
    zero_crossings: int = 32,
    rolloff: float = 0.92,
    beta: float = 9.0,
) -> np.ndarray:
    """Band-limited sample-rate conversion of a 1-D signal; returns float32.

    The low-pass corner sits at ``rolloff`` times the lower of the two Nyquist frequencies; with
    the defaults, content that would alias into the pass band is attenuated by roughly 100 dB.
    The output has ceil(len * rate_out / rate_in) samples; the signal is taken as silent outside.
    """
    if rate_in <= 0 or rate_out <= 0:
        raise AudioFormatError(f"sample rates must be positive, got {rate_in} -> {rate_out}")
    x = np.asarray(samples, dtype=np.float32).reshape(-1)
    if rate_in == rate_out or x.size == 0:
        return x.copy()
    g = math.gcd(int(rate_in), int(rate_out))
    up, down = rate_out // g, rate_in // g
    table, half = _filter_bank(up, down, zero_crossings, rolloff, beta)
    exact = up <= _MAX_EXACT_PHASES
    n_out = -(-x.size * up // down)
    padded = np.concatenate((np.zeros(half, dtype=np.float32), x, np.zeros(half + 1, dtype=np.float32)))
    # windows[i] is padded[i : i + 2 * half], without a copy
    windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * half)
    out = np.empty(n_out, dtype=np.float32)
    # Output samples a block at a time, so the scratch (two float32 copies of 2 * half taps per
    # sample) stays near _RESAMPLE_SCRATCH bytes whatever the length of the sound.
    chunk = max(64, _RESAMPLE_SCRATCH // (8 * 2 * half))
    for first in range(0, n_out, chunk):
        m = np.arange(first, min(first + chunk, n_out), dtype=np.int64)
        pos = m * down
        base = pos // up  # floor of the input position
        if exact:
            phase = pos % up
        else:
            phase = np.rint((pos % up) * (_QUANTISED_PHASES / up)).astype(np.int64)
        # padded[base + 1 + j] is input sample base - half + 1 + j
        out[first : first + m.size] = np.einsum("ij,ij->i", windows[base + 1], table[phase])
    return out


# ---------------------------------------------------------------------------------------------
# WAV input


def _describe(source: Any) -> str:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return f"<{len(source)} bytes of WAV data>"
    return str(source)


def _pcm_bytes_to_float(raw: bytes, width: int, fmt: int, name: str) -> np.ndarray:
    """Interleaved sample bytes -> float64 at int16 scale."""
    if fmt == _WAVE_FORMAT_IEEE_FLOAT:
        if width == 4:
            return np.frombuffer(raw, dtype="<f4").astype(np.float64) * 32768.0
        if width == 8:
            return np.frombuffer(raw, dtype="<f8") * 32768.0
        raise AudioFormatError(f"{name}: float samples must be 32 or 64 bits, got {8 * width}")
    if width == 1:
        return (np.frombuffer(raw, dtype=np.uint8).astype(np.float64) - 128.0) * 256.0
    if width == 2:
        return np.frombuffer(raw, dtype="<i2").astype(np.float64)
    if width == 3:
        b = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3).astype(np.int32)
        v = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        v = np.where(v & 0x800000, v - 0x1000000, v)
        return v.astype(np.float64) / 256.0
    if width == 4:
        return np.frombuffer(raw, dtype="<i4").astype(np.float64) / 65536.0
    raise AudioFormatError(f"{name}: integer samples must be 8, 16, 24 or 32 bits, got {8 * width}")


def _read_riff(data: bytes, name: str) -> tuple[np.ndarray, int]:
    """Minimal RIFF/WAVE reader for what the stdlib ``wave`` module refuses (float samples and
    WAVE_FORMAT_EXTENSIBLE headers)."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise AudioFormatError(f"{name}: not a WAV file (expected a RIFF/WAVE header)")
    pos = 12
    fmt_chunk: bytes | None = None
    payload: bytes | None = None
    while pos + 8 <= len(data):
        cid, size = struct.unpack_from("<4sI", data, pos)
        body = data[pos + 8 : pos + 8 + size]
        if cid == b"fmt ":
            fmt_chunk = body
        elif cid == b"data":
            payload = body
        pos += 8 + size + (size & 1)
    if fmt_chunk is None or len(fmt_chunk) < 16:
        raise AudioFormatError(f"{name}: missing or short 'fmt ' chunk")
    if payload is None:
        raise AudioFormatError(f"{name}: missing 'data' chunk")
    fmt, channels, rate, _, block_align, bits = struct.unpack_from("<HHIIHH", fmt_chunk)
    if fmt == _WAVE_FORMAT_EXTENSIBLE:
        if len(fmt_chunk) < 26:
            raise AudioFormatError(f"{name}: WAVE_FORMAT_EXTENSIBLE header too short")
        fmt = struct.unpack_from("<H", fmt_chunk, 24)[0]  # first two bytes of the sub-format GUID
    if fmt not in (_WAVE_FORMAT_PCM, _WAVE_FORMAT_IEEE_FLOAT):
        raise AudioFormatError(f"{name}: unsupported WAV sample format 0x{fmt:04x} (expected PCM or float)")
    if channels < 1 or rate < 1:
        raise AudioFormatError(f"{name}: bad header ({channels} channels at {rate} Hz)")
    width = (bits + 7) // 8
    if block_align != width * channels:
        raise AudioFormatError(
            f"{name}: block align {block_align} does not match {channels} channels of {bits}-bit samples"
        )
    usable = len(payload) - len(payload) % block_align
    samples = _pcm_bytes_to_float(payload[:usable], width, fmt, name)
    return samples.reshape(-1, channels), rate


def read_wav(source: str | os.PathLike[str] | bytes | bytearray | memoryview) -> tuple[np.ndarray, int]:
    """Read a WAV file (path or its bytes) as float64 samples at int16 scale, shape (n, channels),
    and its sample rate."""
    name = _describe(source)
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        try:
            data = Path(source).read_bytes()
        except OSError as exc:
            raise AudioFormatError(f"{name}: cannot read: {exc.strerror or exc}") from exc
    try:
        with wave.open(io.BytesIO(data), "rb") as w:
            channels, width, rate = w.getnchannels(), w.getsampwidth(), w.getframerate()
            raw = w.readframes(w.getnframes())
    except (wave.Error, EOFError, struct.error):
        return _read_riff(data, name)  # float / extensible, or a clear error for non-WAV input
    if channels < 1 or rate < 1:
        raise AudioFormatError(f"{name}: bad header ({channels} channels at {rate} Hz)")
    usable = len(raw) - len(raw) % (width * channels)
    samples = _pcm_bytes_to_float(raw[:usable], width, _WAVE_FORMAT_PCM, name)
    return samples.reshape(-1, channels), rate


# ---------------------------------------------------------------------------------------------
# Frames


def _to_int16_scale(samples: np.ndarray) -> np.ndarray:
    """Mono float64 at int16 scale from an array as described in :func:`pcm_to_frames`."""
    arr = np.asarray(samples)
    if arr.ndim not in (1, 2):
        raise AudioFormatError(f"samples must be 1-D (mono) or 2-D (frames, channels), got shape {arr.shape}")
    if arr.dtype == np.int16:
        x = arr.astype(np.float64)
    elif arr.dtype == np.uint8:
        x = (arr.astype(np.float64) - 128.0) * 256.0
    elif arr.dtype == np.int8:
        x = arr.astype(np.float64) * 256.0
    elif arr.dtype == np.int32:
        x = arr.astype(np.float64) / 65536.0
    elif np.issubdtype(arr.dtype, np.floating):
        x = arr.astype(np.float64) * 32768.0
    else:
        raise AudioFormatError(f"unsupported sample dtype {arr.dtype} (expected int16, int32, uint8, int8 or float)")
    if x.ndim == 2:
        x = x.mean(axis=1)
    if not np.all(np.isfinite(x)):
        raise AudioFormatError("samples contain NaN or infinity")
    return x


def int16_scale_to_frames(mono: np.ndarray, rate: int) -> list[bytes]:
    """Mono samples at ``rate`` Hz, as floats in the int16 range (what :func:`read_wav` gives), as
    744-byte µ-law frames at the speaker's rate, the last one padded with silence."""
    y = resample(mono, int(rate), SAMPLE_RATE)
    pcm = np.rint(np.clip(y, -32768.0, 32767.0)).astype(np.int32)
    codes = mulaw_encode(pcm)
    pad = (-codes.size) % SAMPLES_PER_FRAME
    if pad:
        codes = np.concatenate((codes, np.full(pad, _SILENCE_CODE, dtype=np.uint8)))
    buf = codes.tobytes()
    return [buf[i : i + SAMPLES_PER_FRAME] for i in range(0, len(buf), SAMPLES_PER_FRAME)]


def pcm_to_frames(samples: np.ndarray, rate: int) -> list[bytes]:
    """Convert PCM samples at ``rate`` Hz to 744-byte µ-law frames, the last one padded with silence.

    ``samples`` is 1-D (mono) or 2-D (frames, channels; channels are averaged). int16 is used as
    is, int32 is taken as full-range 32-bit, uint8 as 8-bit WAV (128 = zero), int8 as signed
    8-bit, and floating point as -1.0 .. 1.0. Out-of-range values are clipped.
    """
    if int(rate) != rate or rate <= 0:
        raise AudioFormatError(f"sample rate must be a positive integer, got {rate!r}")
    return int16_scale_to_frames(_to_int16_scale(samples), int(rate))


def wav_to_frames(source: str | os.PathLike[str] | bytes | bytearray | memoryview) -> list[bytes]:
    """Read a WAV file (path or its bytes) and convert it to 744-byte µ-law frames at 30 fps."""
    samples, rate = read_wav(source)
    return int16_scale_to_frames(samples.mean(axis=1), rate)


def frames_to_pcm(frames: Iterable[bytes]) -> np.ndarray:
    """Decode µ-law frames back to one int16 array at :data:`SAMPLE_RATE` (for previews and tests)."""
    chunks = [mulaw_decode(f) for f in frames]
    return np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int16)


def scale_frames(frames: Sequence[bytes], gain: float) -> list[bytes]:
    """µ-law frames with their loudness scaled by ``gain`` (0..1 turns a sound down)."""
    if gain == 1.0:
        return [bytes(f) for f in frames]
    if not math.isfinite(gain) or gain < 0:
        raise AudioFormatError(f"gain must be a finite number >= 0, got {gain!r}")
    pcm = frames_to_pcm(frames).astype(np.float64) * gain
    codes = mulaw_encode(np.rint(np.clip(pcm, -32768.0, 32767.0))).tobytes()
    return [codes[i : i + SAMPLES_PER_FRAME] for i in range(0, len(codes), SAMPLES_PER_FRAME)]


# ---------------------------------------------------------------------------------------------
# Where a simulated robot's speaker output goes


class AudioSink(Protocol):
    """Where a simulated robot's speaker output goes: one call per 1/30 s animation frame."""

    def write(self, pcm: np.ndarray | None) -> None:
        """One frame: 744 int16 samples at :data:`SAMPLE_RATE`, or None for a silent frame."""

    def close(self) -> None:
        """No more frames (flush what is buffered, release the device)."""
