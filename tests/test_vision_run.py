"""Vision on by default: ``run`` turns the camera on once connected and after every reconnect, as config says.

The daemon runs as a subprocess against a simulator hosted by the test (tests/daemon_harness.py):
what reaches the simulator (EnableCamera) and what it sends back (camera frames) are the subject.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from driver.sim.script import parse_script

from .conftest import run
from .daemon_harness import RESOURCES, start

pytestmark = pytest.mark.e2e

IDLE = """
name: idle
root: {type: sequence, name: idle, children: [{type: wait, name: rest, params: {seconds: 30}}]}
"""


def _camera(d: object) -> list[int]:
    """The camera modes the daemon asked for, in order (1: on, 0: off)."""
    return [msg.image_send_mode for _, msg in d.messages("EnableCamera")]  # type: ignore[attr-defined]


def test_the_camera_goes_on_after_start_up_and_after_a_reboot_and_frames_flow(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(IDLE)

    async def body() -> None:
        d = await start(tmp_path, "--personality", "p.yaml", "--resources", str(RESOURCES), vision=True)
        try:
            await d.line(r"vision on: grey camera, faces every 0.3 s, motion every frame")
            await d.message("EnableCamera", timeout=10)
            assert _camera(d) == [1]
            await asyncio.sleep(2.0)
            assert d.sim.camera.frames_sent > 10, d.sim.camera.frames_sent
            t0 = d.now()
            (reboot,) = parse_script("- {at: 0, event: reboot}\n")
            d.sim.run_step(reboot)  # a rebooted robot has its camera off
            back = await d.line(r"robot back \(reconnected\)", after=t0, timeout=15)
            await d.message("EnableCamera", after=back - 0.5, timeout=5)
            assert _camera(d) == [1, 1]
            frames = d.sim.camera.frames_sent
            await asyncio.sleep(1.5)
            assert d.sim.camera.frames_sent > frames + 5

            # stopped, it turns the camera off and gives the vision's account
            stopped = d.signal(signal.SIGINT)
            assert await d.wait() == 0, d.text
            assert _camera(d) == [1, 1, 0]
            assert d.lines(r"vision: \d+ frames, \d+ dropped", after=stopped), d.text[-2000:]
        finally:
            await d.close()

    run(body(), timeout=60)


def test_no_vision_and_vision_false_leave_the_camera_off(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(IDLE)
    (tmp_path / "off.yaml").write_text("vision: false\n")

    async def body() -> None:
        for args, why in ((["--no-vision"], "--no-vision"), (["--config", "off.yaml"], "vision.enabled is false")):
            d = await start(tmp_path, "--personality", "p.yaml", "--resources", str(RESOURCES), *args, vision=True)
            try:
                await d.line(rf"vision off \({why}\)")
                await asyncio.sleep(1.5)
                assert _camera(d) == [] and d.sim.camera.frames_sent == 0
            finally:
                await d.close()

    run(body(), timeout=60)


def test_a_config_reload_switches_the_vision(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(IDLE)
    config = tmp_path / "c.yaml"
    config.write_text("vision: {enabled: true}\n")

    async def body() -> None:
        d = await start(tmp_path, "--personality", "p.yaml", "--resources", str(RESOURCES), "--config", str(config),
                        vision=True)
        try:
            await d.line(r"vision on")
            await d.message("EnableCamera", timeout=10)
            config.write_text("vision: {enabled: false}\n")
            sent = d.signal(signal.SIGHUP)
            await d.line(r"re-read: .*vision", after=sent)
            await d.line(r"vision off \(vision.enabled is false\)", after=sent)
            await asyncio.sleep(0.5)
            assert _camera(d) == [1, 0]
            frames = d.sim.camera.frames_sent
            await asyncio.sleep(1.0)
            assert d.sim.camera.frames_sent == frames  # no more pictures
        finally:
            await d.close()

    run(body(), timeout=60)


def test_new_vision_settings_restart_it_with_the_face_detector_it_had(tmp_path: Path) -> None:
    """Building dlib's detector holds the daemon for half a second: a reload hands it on."""
    (tmp_path / "p.yaml").write_text(IDLE)
    config = tmp_path / "c.yaml"
    config.write_text("vision: {face_interval_s: 0.3}\n")

    async def body() -> None:
        d = await start(tmp_path, "--personality", "p.yaml", "--resources", str(RESOURCES), "--config", str(config),
                        vision=True)
        try:
            await d.line(r"vision on: grey camera, faces every 0.3 s, motion")
            await d.message("EnableCamera", timeout=10)
            config.write_text("vision: {face_interval_s: 0.5}\n")
            sent = d.signal(signal.SIGHUP)
            restarted = await d.line(r"vision on: grey camera, faces every 0.5 s \(the face detector kept\)",
                                     after=sent)
            await d.line(r"vision: \d+ frames", after=sent)  # the first pipeline's account as it stopped
            await asyncio.sleep(2.0)
            assert _camera(d)[-2:] == [0, 1]  # off with the old pipeline, on with the new
            frames = d.sim.camera.frames_sent
            await asyncio.sleep(1.0)
            assert d.sim.camera.frames_sent > frames
            config.write_text("vision: {enabled: false}\n")  # the new pipeline stops and gives its account
            sent = d.signal(signal.SIGHUP)
            await d.line(r"vision off", after=sent)
            (_, closing), = d.lines(r"vision: \d+ frames", after=restarted)
            match = re.search(r"(\d+) face searches", closing)
            assert match is not None and int(match.group(1)) > 0, closing  # the kept detector looks for faces
        finally:
            await d.close()

    run(body(), timeout=60)


def test_bad_vision_settings_are_refused_with_file_line_and_key(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("heartbeat_hz: 10\nvision:\n  faces: sometimes\n")
    done = subprocess.run([sys.executable, "-m", "brain", "--config", "bad.yaml", "run", "--sim", "--duration", "1"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 1
    assert "bad.yaml:3: vision.faces: expected true or false, got 'sometimes'" in done.stderr, done.stderr


def test_a_second_start_reads_the_face_detector_the_first_one_saved(tmp_path: Path) -> None:
    """The first daemon with vision builds dlib's detector and saves it in the cache folder
    (models/); the next one reads that file instead of building and saving it again."""
    dlib = pytest.importorskip("dlib", reason="dlib-bin is a dependency; this environment lacks it")
    (tmp_path / "p.yaml").write_text(IDLE)
    cache = tmp_path / "cache"
    # a cache folder of its own for the model; the run's converted sounds are shared, not converted again
    run_cache = Path(os.environ["XDG_CACHE_HOME"]) / "cozmo-brain" / "sounds"
    run_cache.mkdir(parents=True, exist_ok=True)
    (cache / "cozmo-brain").mkdir(parents=True)
    (cache / "cozmo-brain" / "sounds").symlink_to(run_cache, target_is_directory=True)
    saved = cache / "cozmo-brain" / "models" / f"dlib-{dlib.__version__}-frontal_face_detector.svm"

    async def one_start() -> int:
        """Run the daemon until it has searched for faces; how many searches its vision reports."""
        d = await start(tmp_path, "--personality", "p.yaml", "--resources", str(RESOURCES),
                        env={"XDG_CACHE_HOME": str(cache)}, vision=True)
        try:
            await d.line(r"vision on: grey camera")
            await d.message("EnableCamera", timeout=10)
            await asyncio.sleep(1.5)  # faces are looked for every 0.3 s
            stopped = d.signal(signal.SIGINT)
            assert await d.wait() == 0, d.text
            (_, account), = d.lines(r"vision: \d+ frames", after=stopped)
            found = re.search(r"(\d+) face searches", account)
            assert found is not None, account
            return int(found.group(1))
        finally:
            await d.close()

    assert run(one_start(), timeout=60) > 0
    first = saved.stat()
    assert run(one_start(), timeout=60) > 0  # the detector was there and used
    second = saved.stat()
    assert (second.st_ino, second.st_mtime_ns) == (first.st_ino, first.st_mtime_ns)  # read, not saved again
