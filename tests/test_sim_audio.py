"""The simulator's speaker on the host: OutputAudio frames decoded and routed to an audio sink."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from driver.animation.audio import (
    SAMPLES_PER_FRAME,
    mulaw_decode,
    pcm_to_frames,
)
from driver.animation.clip import Clip, HeadAngle
from driver.animation.controller import AnimationController
from driver.robot import Robot
from driver.sim.server import SimulatedCozmo

from .conftest import eventually, run

pytestmark = pytest.mark.e2e


class RecordingSink:
    """An audio sink that keeps what it is given (the thing under test is the simulator's routing)."""

    def __init__(self) -> None:
        self.writes: list[np.ndarray | None] = []
        self.closed = False

    def write(self, pcm: np.ndarray | None) -> None:
        self.writes.append(None if pcm is None else np.array(pcm, copy=True))

    def close(self) -> None:
        self.closed = True

    @property
    def sound(self) -> list[np.ndarray]:
        return [w for w in self.writes if w is not None]


def _sound_frames(n: int = 6) -> list[bytes]:
    t = np.arange(n * SAMPLES_PER_FRAME) / 22320.0
    return pcm_to_frames((0.5 * np.sin(2 * np.pi * 440.0 * t) * 32767).astype(np.int16), 22320)


def test_output_audio_reaches_the_sink_decoded_in_order_and_silence_as_none() -> None:
    frames = _sound_frames()

    async def main() -> None:
        sink = RecordingSink()
        sim = await SimulatedCozmo(port=0, calibrate=False, audio_out=sink).start()
        robot = Robot(*sim.address, lost_after=2.0)
        await robot.connect()
        ctl = AnimationController(robot, seed=1, idle=False)
        try:
            pb = ctl.play(Clip("say", head_angle=(HeadAngle(0, 100, 5),)), audio=frames)
            await pb
            await eventually(lambda: len(sink.sound) >= len(frames))
            await eventually(lambda: bool(sink.writes) and sink.writes[-1] is None)
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()
        assert sink.closed
        # every sound frame arrives decoded (µ-law -> int16), exactly once and in order
        assert len(sink.sound) == len(frames)
        for got, sent in zip(sink.sound, frames, strict=True):
            assert got.dtype == np.int16 and got.shape == (SAMPLES_PER_FRAME,)
            assert np.array_equal(got, mulaw_decode(sent))
        # silent frames are passed on as None (one per frame), before and after the sound
        first = next(i for i, w in enumerate(sink.writes) if w is not None)
        assert all(w is None for w in sink.writes[:first])
        assert sum(w is None for w in sink.writes) == sim.speaker.silence

    run(main(), timeout=30)


def test_the_robot_volume_scales_what_the_sink_hears() -> None:
    frames = _sound_frames(3)

    async def main() -> None:
        sink = RecordingSink()
        sim = await SimulatedCozmo(port=0, calibrate=False, audio_out=sink).start()
        robot = Robot(*sim.address, lost_after=2.0)
        await robot.connect()
        ctl = AnimationController(robot, seed=1, idle=False)
        try:
            robot.set_volume(65535 // 4)
            await eventually(lambda: sim.speaker.volume == 65535 // 4)
            await ctl.play(Clip("say", head_angle=(HeadAngle(0, 100, 5),)), audio=frames)
            await eventually(lambda: len(sink.sound) >= len(frames))
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()
        full = mulaw_decode(frames[1]).astype(np.int64)
        quarter = sink.sound[1].astype(np.int64)
        assert np.max(np.abs(full)) > 8000
        assert np.allclose(quarter, full * (65535 // 4) // 65535, atol=1)

    run(main(), timeout=30)


def test_a_failing_sink_is_dropped_and_the_robot_keeps_working(caplog: pytest.LogCaptureFixture) -> None:
    class Broken(RecordingSink):
        def write(self, pcm: np.ndarray | None) -> None:
            raise OSError("device unplugged")

    async def main() -> None:
        sim = await SimulatedCozmo(port=0, calibrate=False, audio_out=Broken()).start()
        robot = Robot(*sim.address, lost_after=2.0)
        await robot.connect()
        ctl = AnimationController(robot, seed=1, idle_silence=True)  # a steady stream of silence
        try:
            ctl.start()
            await eventually(lambda: sim.speaker.silence > 10)
            assert sim.audio_out is None
            assert sim.connected
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    with caplog.at_level(logging.ERROR, logger="driver.sim.server"):
        run(main(), timeout=30)
    assert sum("audio output failed" in r.getMessage() for r in caplog.records) == 1
