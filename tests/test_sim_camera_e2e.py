"""The simulated robot's camera over real UDP: what an engine, PyCozmo and a person at the command line get."""

from __future__ import annotations

import asyncio
import math
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from driver.protocol import messages as m
from driver.robot import Robot
from driver.sim.script import parse_script
from driver.sim.server import SimulatedCozmo

from .camera_frames import Frame, Reassembler, decode
from .conftest import eventually, run
from .daemon_harness import free_udp_port

pytestmark = pytest.mark.e2e

HEAD = math.radians(12.5)  # Anki's "ideal" head angle for faces


def _listen(robot: Robot) -> tuple[Reassembler, list[Any]]:
    """Reassemble the ImageChunks a Robot receives; also keep its ImageImuData."""
    frames = Reassembler()
    imu: list[Any] = []

    def on_message(msg: Any) -> None:
        if isinstance(msg, m.ImageChunk):
            frames.add(msg)
        elif isinstance(msg, m.ImageImuData):
            imu.append(msg)

    robot.add_message_listener(on_message)
    return frames, imu


def test_frames_stream_at_the_robots_rate_only_while_enabled_and_decode_as_drawn() -> None:
    async def body() -> None:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address)
        try:
            await robot.connect()
            frames, imu = _listen(robot)
            await robot.set_head_angle(HEAD)
            await asyncio.sleep(0.5)
            assert frames.frames == [] and sim.camera.frames_sent == 0  # nothing drawn while off

            robot.enable_camera(True, color=False)
            await asyncio.sleep(2.0)
            grey = list(frames.frames)
            # ~15 frames/s (a loaded machine may make the simulator skip a few, never send more)
            assert 15 <= len(grey) <= 31 and frames.dropped == 0
            steps = np.diff([f.timestamp for f in grey])
            assert abs(float(np.median(steps)) - 1000 / 15) < 12  # robot-clock ms between frames
            drawn = {s.image_id: s for s in sim.camera.recent}
            checked = 0
            for f in grey:
                assert f.payload[0] == 0 and f.chunks == -(-len(f.payload) // 1080)
                img = decode(f.payload)
                assert img.shape == (240, 320)
                if f.image_id in drawn:
                    assert np.abs(img.astype(int) - drawn[f.image_id].image).mean() < 4
                    checked += 1
            assert checked >= 5
            assert {f.image_id for f in grey} <= {i.image_id for i in imu}  # an ImageImuData per frame

            robot.enable_camera(True, color=True)
            # colour frames follow (eight take about half a second; a loaded machine's simulator
            # skips some, and the rate is the grey frames' subject above)
            await eventually(lambda: len([f for f in frames.frames if f.payload[0] != 0]) >= 8, timeout=5.0)
            colour = [f for f in frames.frames if f.payload[0] != 0]
            drawn = {s.image_id: s for s in sim.camera.recent}
            last = colour[-1]
            img = decode(last.payload)
            assert img.shape == (240, 320, 3) and drawn[last.image_id].colour
            assert np.abs(img.astype(int) - drawn[last.image_id].image).mean() < 8

            robot.enable_camera(False)
            await asyncio.sleep(0.3)
            count = len(frames.frames)
            robot.send(m.EnableCamera(image_send_mode=2, image_resolution=4))  # SingleShot
            await asyncio.sleep(0.6)
            assert len(frames.frames) == count + 1
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body(), timeout=60)


TIMELINE = """\
- {at: 2.5, face: alice, bearing_deg: 20, distance_m: 0.6, height_m: 0.25}
- {at: 4.0, face: alice, bearing_deg: -20}
- {at: 5.5, face: alice, bearing_deg: 0, distance_m: 1.0}
- {at: 7.0, face_leaves: alice}
"""


def _pixel(point: tuple[float, float, float], head_rad: float) -> tuple[float, float]:
    """Where Cozmo's camera (robot at the origin facing +x) sees a point, from the reference geometry."""
    cx = -13 + 17.52 * math.cos(head_rad) + 8 * math.sin(head_rad)
    cz = 49 + 17.52 * math.sin(head_rad) - 8 * math.cos(head_rad)
    dx, dy, dz = point[0] - cx, point[1], point[2] - cz
    forward = dx * math.cos(head_rad) + dz * math.sin(head_rad)
    down = dx * math.sin(head_rad) - dz * math.cos(head_rad)
    return 155.11 + 288.87 * -dy / forward, 111.40 + 288.36 * down / forward


def _faces(img: np.ndarray) -> list[tuple[float, float, float]]:
    """Faces that scikit-image's LBP frontal-face cascade finds: (centre u, centre v, width)."""
    from skimage import data
    from skimage.feature import Cascade

    grey = img if img.ndim == 2 else img.mean(axis=2).astype(np.uint8)
    found = Cascade(data.lbp_frontal_face_cascade_filename()).detect_multi_scale(
        grey, scale_factor=1.1, step_ratio=1, min_size=(20, 20), max_size=(200, 200))
    return [(f["c"] + f["width"] / 2, f["r"] + f["height"] / 2, float(f["width"])) for f in found]


def _mean(frames: list[Frame]) -> np.ndarray:
    return np.mean([decode(f.payload).astype(float) for f in frames], axis=0)


def test_the_photographs_of_people_to_come_load_once_the_camera_is_on_before_they_come() -> None:
    """Loading a photograph (importing scikit-image) takes a second or more on a busy machine; done
    when the first person comes, the camera would skip every frame meanwhile."""
    pytest.importorskip("skimage", reason="the face photographs come from scikit-image ([test] extra)")

    async def body() -> None:
        script = parse_script("- {at: 60, face: alice, photo: astronaut}", "room.yaml")
        sim = await SimulatedCozmo(port=0, calibrate=False, script=script).start()
        robot = Robot(*sim.address)
        try:
            await robot.connect()
            await asyncio.sleep(0.3)
            assert sim.room.photos.loaded() == ()  # nothing loaded while the camera is off
            robot.enable_camera(True)
            await eventually(lambda: sim.room.photos.loaded() == ("astronaut",), timeout=30)
            assert sim.room.people == {}  # she has not come yet
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body(), timeout=60)


def test_a_face_from_the_timeline_is_seen_where_it_stands_and_sized_by_its_distance() -> None:
    pytest.importorskip("skimage", reason="the face photographs come from scikit-image ([test] extra)")

    async def body() -> list[Frame]:
        sim = await SimulatedCozmo(port=0, calibrate=False, script=parse_script(TIMELINE, "room.yaml")).start()
        robot = Robot(*sim.address)
        try:
            await robot.connect()
            frames, _ = _listen(robot)
            await robot.set_head_angle(HEAD)
            robot.enable_camera(True)
            await asyncio.sleep(8.1 - robot.state.proprioception.robot_time_ms / 1000)  # type: ignore[union-attr]
            return list(frames.frames)
        finally:
            await robot.disconnect()
            await sim.stop()

    frames = run(body(), timeout=60)

    def during(t0: float, t1: float) -> list[Frame]:
        picked = [f for f in frames if t0 * 1000 <= f.timestamp <= t1 * 1000]
        assert len(picked) >= 4, f"too few frames between {t0} and {t1} s"
        return picked

    # Robot time counts from SyncTime, as the timeline does; the camera starts after the robot's
    # calibration (about 1.3 s).
    before, gone = _mean(during(1.9, 2.4)), _mean(during(7.5, 8.1))
    assert np.abs(before - gone).mean() < 2.0  # the empty room, before she came and after she left
    expected = {  # phase -> (face point in the room, frames)
        "left": ((600 * math.cos(math.radians(20)), 600 * math.sin(math.radians(20)), 250.0), during(3.0, 3.8)),
        "right": ((600 * math.cos(math.radians(20)), -600 * math.sin(math.radians(20)), 250.0), during(4.5, 5.3)),
        "far": ((1000.0, 0.0, 250.0), during(6.0, 6.8)),
    }
    widths = {}
    for phase, (point, picked) in expected.items():
        u, v = _pixel(point, HEAD)
        # the middle frame of the phase first, then its neighbours outwards: on a loaded machine
        # the phase's first or last frames may straddle the step that moves her
        mid = len(picked) // 2
        order = sorted(range(len(picked)), key=lambda i: abs(i - mid))
        near: list[tuple[float, float, float]] = []
        found: list[tuple[float, float, float]] = []
        for i in order:
            found = _faces(decode(picked[i].payload))
            near = [f for f in found if abs(f[0] - u) < 0.25 * f[2] and abs(f[1] - v) < 0.4 * f[2]]
            if near:
                break
        assert near, f"{phase}: no face found near ({u:.0f}, {v:.0f}) in {len(picked)} frames; last found {found}"
        depth = math.dist(point[:2], (0.0, 0.0))
        eyes_px = 288.87 * 62 / depth  # 62 mm between a grown-up's eyes
        widths[phase] = near[0][2]
        assert 1.7 < near[0][2] / eyes_px < 3.4, f"{phase}: box {near[0][2]} px for eyes {eyes_px:.0f} px apart"
        # Only her side of the picture changed.
        diff = np.abs(_mean(picked) - gone)
        if phase == "left":
            assert diff[:, :100].mean() > 15 and diff[:, 220:].mean() < 2.0
        elif phase == "right":
            assert diff[:, 220:].mean() > 15 and diff[:, :100].mean() < 2.0
    assert 1.3 < widths["left"] / widths["far"] < 2.2  # 0.6 m against 1.0 m away


# ---------------------------------------------------------------------- the command line


class SimProcess:
    """``cozmo-brain sim`` in a subprocess, its standard error collected line by line."""

    def __init__(self, *args: str, prelude: str = "") -> None:
        self.port = free_udp_port()
        code = f"{prelude}import sys; from brain.app.cli import main; sys.exit(main())"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code, "sim", "--host", "127.0.0.1", "--port", str(self.port), *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        deadline = time.monotonic() + 20
        while not any("listening on" in line for line in self.lines):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("the simulator did not start:\n" + "".join(self.lines))
            time.sleep(0.05)

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)

    def stop(self) -> str:
        """Interrupt it as a person would (Ctrl-C) and return everything it logged."""
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=15)
        finally:
            self.proc.kill()
        self._reader.join(timeout=5)
        return "".join(self.lines)


def _summary(log: str) -> dict[str, float]:
    lines = [line for line in log.splitlines() if "sim: stopped;" in line]
    assert len(lines) == 1, log
    return {k: float(v) for k, v in re.findall(r"(\w+)=(-?[\d.]+)", lines[0])}


def _until_images(images: list[tuple[bool, Any]], colour: bool, count: int, timeout: float = 15.0) -> None:
    """Wait until ``count`` images came since the camera was switched to ``colour`` (about 0.7 s at
    15 fps; a machine loaded by other tests renders and decodes them slower, never queues them)."""
    deadline = time.monotonic() + timeout
    while sum(1 for was_colour, _ in images if was_colour == colour) < count and time.monotonic() < deadline:
        time.sleep(0.05)


def _pycozmo_camera(addr: tuple[str, int], out: dict[str, Any]) -> None:
    import pycozmo

    cli = pycozmo.Client(robot_addr=addr)
    images: list[tuple[bool, Any]] = []
    colour = [False]
    calibrated = threading.Event()  # the first RobotState comes once lift and head have calibrated
    cli.add_handler(pycozmo.event.EvtNewRawCameraImage, lambda c, image: images.append((colour[0], image)))
    cli.conn.add_handler(pycozmo.protocol_encoder.RobotState, lambda c, pkt: calibrated.set())
    try:
        cli.start()
        cli.connect()
        cli.wait_for_robot(timeout=5)
        # PyCozmo waits 0.5 s after SyncTime; a real robot calibrates for about 1.3 s, and a head
        # command before that is the calibration's to override.
        assert calibrated.wait(5), "no RobotState within 5 s"
        cli.set_head_angle(HEAD)
        cli.enable_camera(enable=True, color=False)
        _until_images(images, False, 10)
        colour[0] = True
        cli.enable_camera(enable=True, color=True)
        _until_images(images, True, 10)
        cli.enable_camera(enable=False)
        time.sleep(0.2)
    except Exception as exc:  # reported by the test
        out["error"] = repr(exc)
    finally:
        cli.disconnect()
        cli.stop()
        out["images"] = images


def test_pycozmo_gets_grey_and_colour_camera_images_from_the_sim_command(tmp_path: Path) -> None:
    pytest.importorskip("pycozmo", reason="PyCozmo is a test-only dependency ([test] extra)")
    pytest.importorskip("skimage", reason="the face photographs come from scikit-image ([test] extra)")
    script = tmp_path / "room.yaml"
    script.write_text("- {at: 0.2, face: alice, bearing_deg: 15, distance_m: 0.6, height_m: 0.25}\n")
    sim = SimProcess("--script", str(script))
    out: dict[str, Any] = {}
    try:
        th = threading.Thread(target=_pycozmo_camera, args=(("127.0.0.1", sim.port), out), daemon=True)
        th.start()
        th.join(timeout=40)
    finally:
        log = sim.stop()
    assert "error" not in out, out.get("error")
    images = out["images"]
    grey = [np.asarray(im) for was_colour, im in images if not was_colour]
    colour = [np.asarray(im) for was_colour, im in images[-10:] if was_colour]
    assert len(grey) >= 10 and len(colour) >= 5, (len(grey), len(colour))
    assert all(im.shape == (240, 320, 3) for im in grey + colour)
    g, c = grey[-1].astype(int), colour[-1].astype(int)
    assert (g[..., 0] == g[..., 1]).all() and (g[..., 1] == g[..., 2]).all()  # grey frames carry no colour
    assert np.abs(c[..., 0] - c[..., 2]).mean() > 8  # colour frames do (a wooden floor, her skin and hair)
    u, v = _pixel((600 * math.cos(math.radians(15)), 600 * math.sin(math.radians(15)), 250.0), HEAD)
    for img in (grey[-1], colour[-1]):
        assert any(abs(f[0] - u) < 0.25 * f[2] and abs(f[1] - v) < 0.4 * f[2] for f in _faces(img)), _faces(img)
    summary = _summary(log)
    assert summary["head_deg"] == pytest.approx(12.5, abs=1.0)  # a real head stops a little short going up
    assert re.search(r"EnableCamera 3\b", log) and re.search(r"EnableColorImages 3\b", log)


def test_the_sim_command_ends_with_a_summary_of_pose_head_and_what_it_received() -> None:
    sim = SimProcess()

    async def drive() -> None:
        robot = Robot("127.0.0.1", sim.port)
        await robot.connect()
        await robot.turn_in_place(math.radians(90))
        await robot.set_head_angle(0.3)
        robot.drive_wheels(50, 50)
        await asyncio.sleep(1.0)
        robot.stop_all_motors()
        await asyncio.sleep(0.2)
        await robot.disconnect()

    try:
        run(drive(), timeout=30)
    finally:
        log = sim.stop()
    s = _summary(log)
    # the turn ends within its tolerance; the drive then curves left a few degrees, the right wheel
    # running a little faster than the left, as on a real robot (hardware.md §1 "measured wheels")
    assert 88 < s["heading_deg"] < 100, s
    assert s["head_deg"] == pytest.approx(math.degrees(0.3), abs=1)
    # About a second at 50 mm/s after turning to face +y: the body went up the y axis.
    assert 30 < s["y_mm"] < 80 and abs(s["x_mm"]) < 15
    line = next(line for line in log.splitlines() if "sim: stopped;" in line)
    for name in ("TurnInPlace 1", "SetHeadAngle 1", "DriveWheels 1", "SyncTime 1", "Disconnect 1"):
        assert re.search(rf"\b{name}\b", line), name
    assert re.search(r"\bStopAllMotors [12]\b", line)  # ours, and maybe one more on disconnect
    assert re.search(r"received \d+ messages", line) and "camera frames sent 0" in line


def test_without_scikit_image_the_sim_says_so_once_and_shows_an_empty_room(tmp_path: Path) -> None:
    script = tmp_path / "room.yaml"
    script.write_text("- {at: 2.5, face: alice, bearing_deg: 0}\n- {at: 2.7, face: bob, bearing_deg: 10}\n")
    # As if scikit-image were not installed: the import fails and no spec is found.
    sim = SimProcess("--script", str(script), prelude="import sys; sys.modules['skimage'] = None; ")

    async def watch() -> list[Frame]:
        robot = Robot("127.0.0.1", sim.port)
        await robot.connect()
        frames, _ = _listen(robot)
        await robot.set_head_angle(HEAD)
        robot.enable_camera(True)
        await asyncio.sleep(3.9 - robot.state.proprioception.robot_time_ms / 1000)  # type: ignore[union-attr]
        await robot.disconnect()
        return list(frames.frames)

    try:
        frames = run(watch(), timeout=30)
    finally:
        log = sim.stop()
    before = _mean([f for f in frames if 1700 <= f.timestamp <= 2300])  # the robot calibrated until 1.3 s
    after = _mean([f for f in frames if 3200 <= f.timestamp <= 3800])
    assert np.abs(before - after).mean() < 2.0  # nobody came in
    assert log.count("scikit-image is not installed") == 1, log
