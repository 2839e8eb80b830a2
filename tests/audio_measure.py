"""Measurements of sound for the tests: the dominant frequency of a stretch of samples."""

from __future__ import annotations

import numpy as np


def dominant_frequency(samples: np.ndarray, rate: float) -> float:
    """The frequency (Hz) of the strongest spectral peak, to a small fraction of a bin.

    A Hann window and eight-fold zero padding, then a parabola through the peak bin and its
    neighbours (on the log magnitude).
    """
    x = np.asarray(samples, dtype=np.float64)
    x = (x - x.mean()) * np.hanning(x.size)
    n = 8 * x.size
    mag = np.abs(np.fft.rfft(x, n))
    k = int(np.argmax(mag[1:-1])) + 1
    a, b, c = np.log(mag[k - 1 : k + 2] + 1e-12)
    offset = 0.5 * (a - c) / (a - 2 * b + c) if (a - 2 * b + c) != 0 else 0.0
    return float((k + offset) * rate / n)
