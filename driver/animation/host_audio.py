"""The robot's speaker on this computer's speakers: what ``sim --audio`` and ``run --sim --audio`` play.

Playback goes through `sounddevice`_ (the optional ``audio`` extra), a maintained binding to the
PortAudio library. It installs from a pure-Python wheel on every platform, with its C binding
from ``cffi``'s wheels, so ``pip install 'cozmo-brain[audio]'`` needs no compiler and no system
headers; on Linux it uses the system's PortAudio library at run time (Debian, Ubuntu and
Raspberry Pi OS: ``apt install libportaudio2``). When the package or the library is missing,
or no output device can be opened, the sink says so once and discards the sound: hearing the
robot is a convenience, never a reason for the simulator to stop.

The sink is fed one 1/30 s frame at a time from the event loop, which must never wait for the
sound card. Frames are gathered into chunks (``chunk_frames``, default 10 = 1/3 s; a silent
frame, a sound's end, closes a chunk early) and handed to a small thread that writes them to one
open output stream; the stream's blocking writes pace that thread, and the stream's own buffer
joins consecutive chunks of a long sound without gaps. The cost is up to one chunk of latency.

The output stream is opened through a factory (``open_stream``): by default sounddevice's
``RawOutputStream`` (mono, 16-bit, :data:`~driver.animation.audio.SAMPLE_RATE`), and in tests a
recording stand-in for that device object, so the chunking runs unchanged without a sound card.

.. _sounddevice: https://python-sounddevice.readthedocs.io/
"""

from __future__ import annotations

import functools
import importlib
import logging
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from .audio import SAMPLE_RATE, SAMPLES_PER_FRAME, frames_to_pcm

__all__ = ["HostAudioSink", "OutputStream", "play_frames", "unavailable_reason"]

log = logging.getLogger(__name__)

#: How long close() waits for the device beyond the audio still queued, in seconds.
CLOSE_MARGIN_S = 2.0
_INSTALL_HINT = "install the 'audio' extra: pip install 'cozmo-brain[audio]'"


class OutputStream(Protocol):
    """The part of an audio output device the sink uses (sounddevice's ``RawOutputStream``)."""

    def start(self) -> None:
        """Begin playing."""

    def write(self, data: bytes) -> Any:
        """Queue mono int16 samples, blocking while the device's buffer is full."""

    def stop(self) -> None:
        """Play what is queued, then stop."""

    def close(self) -> None:
        """Release the device."""


StreamFactory = Callable[[], OutputStream]


@functools.cache  # the import's outcome is the same for every caller
def _sounddevice() -> tuple[Any, str]:
    """(the sounddevice module, "") or (None, why host audio is unavailable)."""
    try:
        sounddevice = importlib.import_module("sounddevice")  # optional: typed or not, installed or not
    except ImportError:
        return None, f"sounddevice is not installed ({_INSTALL_HINT})"
    except OSError as exc:  # the package is there, the PortAudio library is not
        return None, f"sounddevice cannot load the PortAudio library ({exc}; on Debian, Ubuntu or Raspberry Pi " \
                     "OS: apt install libportaudio2)"
    return sounddevice, ""


def unavailable_reason() -> str:
    """Why host audio cannot play ("" when it can)."""
    return _sounddevice()[1]


@functools.cache  # once per process, however many sinks are made
def _warn_unavailable_once() -> None:
    log.warning("%s: the robot's speaker output is not played", unavailable_reason())


def _open_default_stream() -> OutputStream:
    sd, reason = _sounddevice()
    if sd is None:
        raise OSError(reason)
    stream: OutputStream = sd.RawOutputStream(samplerate=SAMPLE_RATE, channels=1, dtype="int16", latency="high")
    return stream


class HostAudioSink:
    """Plays a robot's speaker stream on the host; an :class:`~driver.animation.audio.AudioSink`.

    ``open_stream`` makes the output device (default: sounddevice's, see the module's doc); it is
    called once, by the playing thread, when the first chunk is ready. A device that fails to open
    or to play is reported once, and everything after it is discarded.
    """

    def __init__(self, chunk_frames: int = 10, *, open_stream: StreamFactory | None = None) -> None:
        self.chunk_frames = max(1, chunk_frames)
        self._open_stream = open_stream or _open_default_stream
        self.available = open_stream is not None or not unavailable_reason()
        if not self.available:
            _warn_unavailable_once()
        self._buffer: list[np.ndarray] = []
        self._chunks: queue.Queue[np.ndarray | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._queued_samples = 0  # handed to the thread and not yet written (for close()'s wait)
        self._lock = threading.Lock()

    def write(self, pcm: np.ndarray | None) -> None:
        """One frame of int16 samples (None: a silent frame, which ends the current chunk)."""
        if not self.available:
            return
        if pcm is None:
            self.flush()
            return
        self._buffer.append(np.asarray(pcm, dtype=np.int16))
        if len(self._buffer) >= self.chunk_frames:
            self.flush()

    def flush(self) -> None:
        """Hand what is gathered to the playing thread now."""
        if not self._buffer or not self.available:
            self._buffer = []
            return
        chunk = np.concatenate(self._buffer)
        self._buffer = []
        with self._lock:
            self._queued_samples += len(chunk)
        if self._thread is None:
            self._thread = threading.Thread(target=self._play, name="speaker", daemon=True)
            self._thread.start()
        self._chunks.put(chunk)

    def close(self) -> None:
        """Play what is gathered and queued (waiting at most its length plus a margin), release the device."""
        self.flush()
        if self._thread is not None:
            with self._lock:
                pending_s = self._queued_samples / SAMPLE_RATE
            self._chunks.put(None)
            self._thread.join(timeout=pending_s + CLOSE_MARGIN_S)
            self._thread = None

    def _play(self) -> None:
        try:
            stream = self._open_stream()
            stream.start()
        except Exception as exc:  # no device, busy device, no library: say so once and stop playing
            self._fail("cannot open the audio output", exc)
            return
        try:
            while True:
                chunk = self._chunks.get()
                if chunk is None:
                    stream.stop()  # lets the device play what it holds
                    return
                stream.write(chunk.tobytes())
                with self._lock:
                    self._queued_samples -= len(chunk)
        except Exception as exc:
            self._fail("host audio playback failed", exc)
        finally:
            try:
                stream.close()
            except Exception as exc:  # closing a broken device: nothing more to do than say so
                log.debug("closing the audio output: %s", exc)

    def _fail(self, what: str, exc: Exception) -> None:
        log.warning("%s (%s); the robot's speaker output is discarded from now on", what, exc)
        self.available = False
        while True:  # drop what was queued, so close() does not wait for it
            try:
                self._chunks.get_nowait()
            except queue.Empty:
                break
        with self._lock:
            self._queued_samples = 0


def play_frames(frames: Sequence[bytes], *, open_stream: StreamFactory | None = None) -> HostAudioSink | None:
    """Start playing µ-law frames on the host's speakers and return at once.

    Returns the sink playing them (its ``close()`` waits until they are played), or None when
    host audio is unavailable (then nothing is played and the reason is logged).
    """
    sink = HostAudioSink(chunk_frames=max(1, len(frames)), open_stream=open_stream)
    if not sink.available:
        return None
    pcm = frames_to_pcm(frames)
    for start in range(0, len(pcm), SAMPLES_PER_FRAME):
        sink.write(pcm[start:start + SAMPLES_PER_FRAME])
    sink.flush()
    return sink
