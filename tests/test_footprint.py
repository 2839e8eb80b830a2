"""What the daemon keeps in memory: no library it does not use while idle, sounds converted once.

The figures themselves (CPU and resident memory beside PyCozmo's client) come from
``tests/bench/footprint.py``; these tests hold the causes in place: the real daemon, started as a
user starts it against a simulator in its own process, must not import OpenCV or the other
camera, test and imaging libraries, and the sound library's start-up conversion must leave behind
only the converted sounds.
"""

from __future__ import annotations

import functools
import io
import re
import subprocess
import sys
import wave
from pathlib import Path

import numpy as np
import pytest

from driver.animation import audio
from driver.animation.audio import scale_frames
from driver.animation.clip import RobotAudio
from driver.animation.sounds import SoundLibrary

ROOT = Path(__file__).resolve().parents[1]
#: Libraries the idle daemon has no use for: each costs megabytes of resident memory just by
#: being imported (OpenCV alone 17 MB). Vision and the tests load them where they need them.
NOT_AT_RUN_TIME = ("cv2", "dlib", "simplejpeg", "skimage", "scipy", "hypothesis", "pytest", "pycozmo",
                   "numpy.random")  # 6 MB resident; the idle face and the sounds draw from the stdlib's random


def _wav(seconds: float, freq: float, rate: int) -> bytes:
    t = np.arange(int(rate * seconds)) / rate
    pcm = (0.5 * np.sin(2 * np.pi * freq * t) * 32767).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return buf.getvalue()


def _library(tmp_path: Path) -> SoundLibrary:
    folder = tmp_path / "cozmo_resources" / "sound" / "custom"
    folder.mkdir(parents=True)
    for i, rate in enumerate((22050, 22050, 16000)):
        (folder / f"{1001 + i}.wav").write_bytes(_wav(0.3, 300.0 + 100 * i, rate))
    return SoundLibrary(tmp_path / "cozmo_resources")


def test_preload_builds_each_resampling_filter_once_and_lets_it_go(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    lib = _library(tmp_path)
    builds: list[tuple[int, int]] = []
    build = audio._filter_bank.__wrapped__

    def counting(up: int, down: int, *args: float) -> tuple[np.ndarray, int]:
        builds.append((up, down))
        return build(up, down, *args)  # type: ignore[arg-type]

    memo = functools.lru_cache(maxsize=16)(counting)
    monkeypatch.setattr(audio, "_filter_bank", memo)
    assert lib.preload([0.0, 1.5, -0.75]) == 3
    # two source rates, each at three pitches: six filters, none built twice, none kept
    assert len(builds) == 6 and len(set(builds)) == 6
    assert memo.cache_info().currsize == 0


def test_another_volume_of_a_converted_sound_is_scaled_not_resampled_again(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    lib = _library(tmp_path)
    lib.preload([0.0, 1.5])
    full = lib.resolve(RobotAudio(0, (1003,)), 1.5)
    assert full
    resamples: list[int] = []
    real = audio.resample

    def counting(*args: object, **kwargs: object) -> np.ndarray:
        resamples.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(audio, "resample", counting)
    quiet = lib.resolve(RobotAudio(0, (1003,), volume=0.4), 1.5)
    assert quiet == scale_frames(full, 0.4) and quiet != full
    assert resamples == []
    lib.resolve(RobotAudio(0, (1003,)), 0.75)  # a pitch nobody converted yet
    assert resamples == [1]


def _start_sim() -> tuple[subprocess.Popen[str], int]:
    sim = subprocess.Popen([sys.executable, "-m", "brain", "sim", "--port", "0"], cwd=ROOT, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert sim.stdout is not None
    for line in sim.stdout:
        found = re.search(r"listening on [\d.]+:(\d+)", line)
        if found:
            return sim, int(found.group(1))
    sim.wait(10)
    raise AssertionError(f"the simulator did not start (exit {sim.returncode})")


@pytest.mark.e2e
def test_the_running_daemon_imports_no_camera_imaging_or_test_library() -> None:
    """With its vision off (``--no-vision``), the idle daemon loads none of the camera's libraries."""
    sim, port = _start_sim()
    try:
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "brain", "run", "--robot", f"127.0.0.1:{port}",
             "--duration", "4", "--no-vision"],
            cwd=ROOT, capture_output=True, text=True, timeout=120)
    finally:
        sim.terminate()
        sim.wait(10)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "running" in done.stderr  # it got as far as ticking the personality
    modules = {m.group(1) for m in re.finditer(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)",
                                               done.stderr, re.MULTILINE)}
    imported = modules | {name.split(".")[0] for name in modules}
    assert "numpy" in imported and "py_trees" in imported  # the import log was read
    assert not imported & set(NOT_AT_RUN_TIME), sorted(imported & set(NOT_AT_RUN_TIME))
