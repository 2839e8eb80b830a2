"""The robot's voice synthesiser: sound parameters in, 16-bit PCM out, the same bytes everywhere.

``tools/build_voice.py`` reads the voice's parameters (``resources/src/voice.yaml``) into the
:class:`Sound` records below and renders each with :func:`render`. A sound is a sum of layers:

- :class:`Tone`: a voiced sound, additive synthesis of a pitch that glides between points (in
  semitones, eased), with vibrato, a trill (a fast alternation with a second pitch), a growl
  (a fast amplitude wobble), a slow random pitch wander and an amplitude envelope;
- :class:`Noise`: a band of noise (breath), with its envelope.

Either may repeat (``count`` times, ``every`` seconds apart, each repetition transposed and
scaled), which makes giggles, hiccups and snores out of one short layer.

Same bytes on every machine: the output is compared byte for byte with the WAV files in
``resources/``, so rendering uses only operations that IEEE 754 rounds exactly and that every
platform computes alike: +, −, ×, ÷, floor, rint, min/max, each as its own numpy call (a C
compiler cannot fuse two of them into one multiply-add), sequential sums (``cumsum``), and
recursive filters in plain Python floats. Sine and 2^x are polynomials written here, not the
C library's or numpy's (whose SIMD versions differ between CPUs by a unit in the last place,
which can flip a rounded sample). Noise comes from PCG64's raw 64-bit output, whose stream numpy
keeps stable across versions and platforms.
"""

from __future__ import annotations

import io
import math
import wave
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "FADE_S",
    "HARMONIC_LIMIT_HZ",
    "RATE",
    "Noise",
    "Repeat",
    "Sound",
    "Tone",
    "exp2",
    "hz_to_semitone",
    "render",
    "render_wav",
    "semitone_to_hz",
    "sin_cycles",
    "wav_bytes",
]

#: The robot speaker's rate (30 frames of 744 samples a second): sounds need no rate conversion.
RATE = 22320
#: Harmonics fade out between this frequency and 2 kHz above it, so a sound raised by the mood's
#: largest pitch shift still stays below the speaker's 11,160 Hz Nyquist frequency.
HARMONIC_LIMIT_HZ = 7500.0
#: Every sound starts and ends with a fade this long (no click at either end).
FADE_S = 0.005

_LN2 = 0.6931471805599453
_TWO_PI = 6.283185307179586

Points = tuple[tuple[float, float], ...]


# ---------------------------------------------------------------------------------------------
# Elementary functions from basic arithmetic only


def sin_cycles(c: np.ndarray) -> np.ndarray:
    """sin(2π·c) for phases ``c`` in cycles (any real), to about 1e-15 (Taylor to x**21 on ±π/2)."""
    u = c - np.floor(c) - 0.5  # in [-0.5, 0.5); sin(2π c) = -sin(2π u)
    u = np.where(u > 0.25, 0.5 - u, u)  # sin(π - x) = sin(x): fold into [-0.25, 0.25]
    u = np.where(u < -0.25, -0.5 - u, u)
    x = u * _TWO_PI
    x2 = x * x
    acc = np.full_like(x, 1.0 / math.factorial(21))
    for k in (19, 17, 15, 13, 11, 9, 7, 5, 3):
        acc = acc * (-x2) + 1.0 / math.factorial(k)
    acc = acc * (-x2) + 1.0
    return -(acc * x)


def exp2(x: np.ndarray) -> np.ndarray:
    """2**x, to about 1e-15 relative."""
    k = np.floor(x)
    y = (x - k) * _LN2  # e**y for y in [0, ln 2)
    acc = np.full_like(y, 1.0 / math.factorial(17))
    for n in range(16, -1, -1):
        acc = acc * y + 1.0 / math.factorial(n)
    return np.ldexp(acc, k.astype(np.int32))


def _log2_scalar(value: float) -> float:
    """log2 of a positive float from frexp and the atanh series (no C library logarithm)."""
    mantissa, exponent = math.frexp(value)  # value = mantissa * 2**exponent, mantissa in [0.5, 1)
    y = (mantissa - 1.0) / (mantissa + 1.0)
    y2 = y * y
    term, total = y, 0.0
    for n in range(1, 60, 2):
        total += term / n
        term *= y2
    return exponent + 2.0 * total / _LN2


def semitone_to_hz(semitones: np.ndarray) -> np.ndarray:
    """Frequency of MIDI note numbers (69 = A4 = 440 Hz; fractions allowed)."""
    return exp2((semitones - 69.0) / 12.0) * 440.0


def hz_to_semitone(hz: float) -> float:
    """The MIDI note number of a frequency in Hz."""
    return 69.0 + 12.0 * _log2_scalar(hz / 440.0)


def _smoothstep(u: np.ndarray) -> np.ndarray:
    return u * u * (3.0 - 2.0 * u)


def _curve(points: Points, t: np.ndarray, *, smooth: bool = True) -> np.ndarray:
    """Values of a piecewise curve through (time, value) points at times ``t`` (held outside)."""
    out = np.full_like(t, points[0][1])
    for (t0, v0), (t1, v1) in zip(points[:-1], points[1:], strict=True):
        if t1 <= t0:
            out = np.where(t >= t1, v1, out)
            continue
        u = np.clip((t - t0) / (t1 - t0), 0.0, 1.0)
        if smooth:
            u = _smoothstep(u)
        seg = u * (v1 - v0) + v0
        out = np.where(t >= t0, seg, out)
    return out


def _uniform(seed: int, n: int) -> np.ndarray:
    """``n`` uniform values in [-1, 1) from PCG64's raw output (a stream numpy keeps stable)."""
    raw = np.random.PCG64(seed).random_raw(n)
    return (raw >> np.uint64(11)).astype(np.float64) * (2.0 / 9007199254740992.0) - 1.0


def _bandpass(x: list[float], low_hz: float, high_hz: float) -> list[float]:
    """A two-pole band-pass filter (constant 0 dB peak) centred between ``low_hz`` and ``high_hz``,
    run in Python floats: each step is rounded the same way everywhere."""
    centre = math.sqrt(low_hz * high_hz)  # sqrt is exactly rounded by IEEE 754
    q = centre / (high_hz - low_hz)
    cycles = np.array([centre / RATE, centre / RATE + 0.25])
    sin_w, cos_w = (float(v) for v in sin_cycles(cycles))
    alpha = sin_w / (2.0 * q)
    norm = 1.0 + alpha
    b0, a1, a2 = alpha / norm, -2.0 * cos_w / norm, (1.0 - alpha) / norm
    x1 = x2 = y1 = y2 = 0.0
    out = []
    for v in x:
        y = b0 * v - b0 * x2 - a1 * y1 - a2 * y2
        x2, x1 = x1, v
        y2, y1 = y1, y
        out.append(y)
    return out


# ---------------------------------------------------------------------------------------------
# Sound records


@dataclass(frozen=True)
class Repeat:
    """A layer played ``count`` times, ``every`` s apart, each time ``transpose`` semitones
    further and ``gain`` times as loud as the one before."""

    count: int = 1
    every: float = 0.0
    transpose: float = 0.0
    gain: float = 1.0


@dataclass(frozen=True)
class Tone:
    """A voiced layer: pitch points (s, MIDI note number), harmonic amplitudes, envelope (s, 0..1).

    ``vibrato`` and ``trill`` are (rate Hz, semitones); ``growl`` is (rate Hz, depth 0..1);
    ``wander`` is the depth in semitones of a slow random pitch drift (seeded by the sound).
    """

    pitch: Points
    envelope: Points
    harmonics: tuple[float, ...] = (1.0,)
    start: float = 0.0
    level: float = 1.0
    vibrato: tuple[float, float] = (0.0, 0.0)
    trill: tuple[float, float] = (0.0, 0.0)
    growl: tuple[float, float] = (0.0, 0.0)
    wander: float = 0.0
    linear: bool = False
    repeat: Repeat = field(default_factory=Repeat)


@dataclass(frozen=True)
class Noise:
    """Breath: noise between ``band`` (low Hz, high Hz) shaped by an envelope (s, 0..1)."""

    band: tuple[float, float]
    envelope: Points
    start: float = 0.0
    level: float = 1.0
    repeat: Repeat = field(default_factory=Repeat)


@dataclass(frozen=True)
class Sound:
    """One sound: its layers, its length (s), its loudness (peak as a fraction of full scale)."""

    name: str
    duration: float
    layers: tuple[Tone | Noise, ...]
    peak: float = 0.7
    seed: int = 0
    description: str = ""


# ---------------------------------------------------------------------------------------------
# Rendering


def _tone(layer: Tone, t: np.ndarray, transpose: float, seed: int) -> np.ndarray:
    """One pass of a tone layer at times ``t`` (s, from the layer's start)."""
    semis = _curve(layer.pitch, t, smooth=not layer.linear) + transpose
    rate, depth = layer.vibrato
    if rate > 0 and depth:
        semis = semis + sin_cycles(t * rate) * depth
    rate, depth = layer.trill
    if rate > 0 and depth:
        square = np.clip(sin_cycles(t * rate) * 3.0, -1.0, 1.0) * 0.5 + 0.5
        semis = semis + square * depth
    if layer.wander:
        step = 0.05  # a new random target every 50 ms, eased between
        knots = _uniform(seed, int(t[-1] / step) + 3) if t.size else np.zeros(3)
        points = tuple((i * step, float(v) * layer.wander) for i, v in enumerate(knots))
        semis = semis + _curve(points, t)
    hz = semitone_to_hz(semis)
    phase = np.cumsum(hz / RATE)  # cycles; a sequential sum, the same on every machine
    out = np.zeros_like(t)
    for h, amp in enumerate(layer.harmonics, start=1):
        if not amp:
            continue
        fade = np.clip((HARMONIC_LIMIT_HZ + 2000.0 - hz * h) / 2000.0, 0.0, 1.0)
        out = out + sin_cycles(phase * h) * fade * amp
    rate, depth = layer.growl
    if rate > 0 and depth:
        out = out * (1.0 - (sin_cycles(t * rate) * 0.5 + 0.5) * depth)
    return out * _curve(layer.envelope, t)


def _noise(layer: Noise, t: np.ndarray, seed: int) -> np.ndarray:
    """One pass of a noise layer: white noise through the band-pass filter twice, scaled to an RMS
    of 0.35 (a tone of amplitude 1 has 0.71) before its envelope."""
    white = [float(v) for v in _uniform(seed, t.size)]
    lo, hi = layer.band
    band = _bandpass(_bandpass(white, lo, hi), lo, hi)
    power = math.fsum(v * v for v in band) / max(1, len(band))  # fsum: exactly rounded, order-free
    scale = 0.35 / math.sqrt(power) if power > 0 else 0.0
    return np.array(band) * scale * _curve(layer.envelope, t)


def _layer_seconds(layer: Tone | Noise) -> float:
    """How long one pass of a layer lasts: to its envelope's last point."""
    return layer.envelope[-1][0]


def render(sound: Sound) -> np.ndarray:
    """The sound as int16 samples at :data:`RATE`, its peak at ``sound.peak`` of full scale."""
    n = int(round(sound.duration * RATE))
    mix = np.zeros(n)
    for index, layer in enumerate(sound.layers):
        rep = layer.repeat
        for k in range(rep.count):
            first = int(round((layer.start + k * rep.every) * RATE))
            length = min(n - first, int(round(_layer_seconds(layer) * RATE)) + 1)
            if first >= n or length <= 0:
                continue
            t = np.arange(length) / RATE
            seed = sound.seed * 1009 + index * 101 + k
            if isinstance(layer, Tone):
                part = _tone(layer, t, rep.transpose * k, seed)
            else:
                part = _noise(layer, t, seed)
            mix[first:first + length] = mix[first:first + length] + part * (layer.level * rep.gain ** k)
    fade = int(round(FADE_S * RATE))
    ramp = _smoothstep(np.arange(fade) / fade)
    mix[:fade] = mix[:fade] * ramp
    mix[n - fade:] = mix[n - fade:] * ramp[::-1]
    peak = float(np.max(np.abs(mix))) if n else 0.0
    if peak <= 0.0:
        raise ValueError(f"sound {sound.name!r} is silent: its layers add up to nothing")
    scaled = mix * (sound.peak * 32767.0 / peak)
    return np.rint(scaled).astype("<i2")


def wav_bytes(samples: np.ndarray) -> bytes:
    """Mono 16-bit PCM samples at :data:`RATE` as a WAV file."""
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(np.asarray(samples, dtype="<i2").tobytes())
    return buf.getvalue()


def render_wav(sound: Sound) -> bytes:
    """:func:`render` as a WAV file."""
    return wav_bytes(render(sound))
