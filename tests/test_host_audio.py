"""Host playback of the robot's speaker (driver.animation.host_audio).

The sink runs unchanged; only the audio library's device object (sounddevice's RawOutputStream)
is replaced, by a stand-in that records what would reach the sound card.
"""

from __future__ import annotations

import logging
import sys
import threading
import time

import numpy as np
import pytest

from driver.animation import host_audio
from driver.animation.audio import SAMPLES_PER_FRAME, frames_to_pcm, mulaw_decode, pcm_to_frames
from driver.animation.clip import Clip, HeadAngle
from driver.animation.controller import AnimationController
from driver.animation.host_audio import HostAudioSink, play_frames
from driver.robot import Robot
from driver.sim.server import SimulatedCozmo

from .conftest import eventually, run


class RecordingStream:
    """Stands in for the library's output device: records every call, plays nothing."""

    def __init__(self, fail_on_write: int | None = None, fail_on_open: bool = False) -> None:
        self.calls: list[str] = []
        self.writes: list[bytes] = []
        self.threads: set[str] = set()
        self.fail_on_write = fail_on_write
        self.fail_on_open = fail_on_open
        self.opened = 0

    def __call__(self) -> RecordingStream:  # the factory: one device per sink
        self.opened += 1
        if self.fail_on_open:
            raise OSError("no default output device")
        return self

    def start(self) -> None:
        self.calls.append("start")

    def write(self, data: bytes) -> bool:
        self.threads.add(threading.current_thread().name)
        if self.fail_on_write is not None and len(self.writes) == self.fail_on_write:
            raise OSError("device unplugged")
        self.calls.append("write")
        self.writes.append(bytes(data))
        return False

    def stop(self) -> None:
        self.calls.append("stop")

    def close(self) -> None:
        self.calls.append("close")

    def chunk_lengths(self) -> list[int]:
        """Length of each write in 744-sample frames."""
        return [len(w) // 2 / SAMPLES_PER_FRAME for w in self.writes]


def _frame(value: int) -> np.ndarray:
    return np.full(SAMPLES_PER_FRAME, value, dtype=np.int16)


def test_frames_are_gathered_into_chunks_and_written_in_order_by_the_speaker_thread() -> None:
    device = RecordingStream()
    sink = HostAudioSink(chunk_frames=3, open_stream=device)
    for i in range(7):
        sink.write(_frame(i))
    sink.close()
    assert device.opened == 1
    assert device.chunk_lengths() == [3, 3, 1]  # two full chunks, and the rest flushed by close()
    assert b"".join(device.writes) == np.concatenate([_frame(i) for i in range(7)]).tobytes()
    assert device.calls == ["start", "write", "write", "write", "stop", "close"]
    assert device.threads == {"speaker"}  # never the caller's (the event loop's) thread


def test_a_silent_frame_ends_a_chunk_early() -> None:
    device = RecordingStream()
    sink = HostAudioSink(chunk_frames=10, open_stream=device)
    for i in range(2):
        sink.write(_frame(i))
    sink.write(None)  # the sound ended
    sink.write(None)  # silence does not make empty chunks
    for i in range(2, 6):
        sink.write(_frame(i))
    sink.close()
    assert device.chunk_lengths() == [2, 4]


def test_a_device_that_cannot_open_is_reported_once_and_the_sound_discarded(caplog) -> None:
    device = RecordingStream(fail_on_open=True)
    sink = HostAudioSink(chunk_frames=2, open_stream=device)
    with caplog.at_level(logging.WARNING, logger="driver.animation.host_audio"):
        for i in range(4):
            sink.write(_frame(i))
        deadline = time.monotonic() + 5
        while sink.available and time.monotonic() < deadline:
            time.sleep(0.01)
        for i in range(10):
            sink.write(_frame(i))
        started = time.monotonic()
        sink.close()
    assert time.monotonic() - started < 1.0
    assert not sink.available and device.opened == 1 and not device.writes
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and "cannot open the audio output (no default output device)" in warnings[0]


def test_a_device_failing_mid_stream_is_reported_once_then_released(caplog) -> None:
    device = RecordingStream(fail_on_write=1)
    sink = HostAudioSink(chunk_frames=1, open_stream=device)
    with caplog.at_level(logging.WARNING, logger="driver.animation.host_audio"):
        for i in range(5):
            sink.write(_frame(i))
        sink.close()
    assert device.chunk_lengths() == [1]
    assert device.calls[-1] == "close" and not sink.available
    assert sum("host audio playback failed (device unplugged)" in r.getMessage() for r in caplog.records) == 1


def test_play_frames_plays_the_decoded_frames() -> None:
    t = np.arange(4 * SAMPLES_PER_FRAME) / 22320.0
    frames = pcm_to_frames((0.4 * np.sin(2 * np.pi * 300.0 * t) * 32767).astype(np.int16), 22320)
    device = RecordingStream()
    sink = play_frames(frames, open_stream=device)
    assert sink is not None
    sink.close()
    assert b"".join(device.writes) == frames_to_pcm(frames).tobytes()


@pytest.fixture
def without_sounddevice(monkeypatch):
    """As if the audio extra were not installed (an import of sounddevice fails)."""
    monkeypatch.setitem(sys.modules, "sounddevice", None)
    host_audio._sounddevice.cache_clear()
    host_audio._warn_unavailable_once.cache_clear()
    yield
    host_audio._sounddevice.cache_clear()
    host_audio._warn_unavailable_once.cache_clear()


def test_without_the_library_playback_is_off_with_one_warning(without_sounddevice, caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="driver.animation.host_audio"):
        assert play_frames([bytes(SAMPLES_PER_FRAME)]) is None
        sink = HostAudioSink()
        sink.write(_frame(1))
        sink.close()
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1
    assert "sounddevice is not installed" in warnings[0] and "cozmo-brain[audio]" in warnings[0]
    assert not sink.available and sink._thread is None


@pytest.mark.e2e
def test_the_simulators_speaker_reaches_the_device_in_chunks() -> None:
    t = np.arange(5 * SAMPLES_PER_FRAME) / 22320.0
    frames = pcm_to_frames((0.5 * np.sin(2 * np.pi * 440.0 * t) * 32767).astype(np.int16), 22320)
    device = RecordingStream()

    async def main() -> None:
        sink = HostAudioSink(chunk_frames=2, open_stream=device)
        sim = await SimulatedCozmo(port=0, calibrate=False, audio_out=sink).start()
        robot = Robot(*sim.address, lost_after=2.0)
        await robot.connect()
        ctl = AnimationController(robot, seed=1, idle=False)
        try:
            await ctl.play(Clip("say", head_angle=(HeadAngle(0, 100, 5),)), audio=frames)
            await eventually(lambda: sim.speaker.frames >= len(frames))
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()  # closes the sink: what is gathered is played

    run(main(), timeout=30)
    assert device.chunk_lengths() == [2, 2, 1]  # the sound's end (a silent frame) closed the last chunk
    assert b"".join(device.writes) == np.concatenate([mulaw_decode(f) for f in frames]).tobytes()
    assert device.calls[-2:] == ["stop", "close"]


@pytest.mark.e2e
def test_sim_with_audio_but_without_the_library_warns_once_and_runs(without_sounddevice, caplog) -> None:
    async def main() -> None:
        sim = await SimulatedCozmo(port=0, calibrate=False, play_audio=True).start()
        assert isinstance(sim.audio_out, HostAudioSink) and not sim.audio_out.available
        robot = Robot(*sim.address, lost_after=2.0)
        await robot.connect()
        ctl = AnimationController(robot, seed=1)
        try:
            t = np.arange(3 * SAMPLES_PER_FRAME) / 22320.0
            frames = pcm_to_frames((0.5 * np.sin(2 * np.pi * 440.0 * t) * 32767).astype(np.int16), 22320)
            await ctl.play(Clip("say", head_angle=(HeadAngle(0, 100, 5),)), audio=frames)
            assert sim.speaker.frames == 3
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    with caplog.at_level(logging.WARNING):
        run(main(), timeout=30)
    warnings = [r.getMessage() for r in caplog.records if "sounddevice is not installed" in r.getMessage()]
    assert len(warnings) == 1
