"""End to end over loopback UDP: the Robot's vision, fed by camera chunks the simulated Cozmo sends."""

from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest

from driver import events as ev
from driver.protocol import messages as m
from driver.robot import Robot
from driver.sim.faults import NetworkFaults
from driver.sim.server import SimulatedCozmo
from driver.vision import VisionConfig

from .conftest import eventually, run
from .vision_support import astronaut_face, chunk_messages, robot_payload, scene

pytestmark = pytest.mark.e2e


class Camera:
    """Sends frames from the simulator's end as the robot's camera does: 15 per second, chunked,
    while the engine has the camera streaming (EnableCamera)."""

    def __init__(self, sim: SimulatedCozmo) -> None:
        self.sim = sim
        # These frames stand in for the simulated room's: its own camera draws nothing meanwhile
        # (a sampler that answers None is how the stream is told no frame is due).
        sim.camera.sample = lambda: None
        self.image_id = 0x2000
        self.frame: np.ndarray = scene()
        self.sent = 0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self) -> None:
        while True:
            if self.sim.camera_mode != 1:
                await asyncio.sleep(1 / 15)
                continue
            captured = self.sim.robot_state().timestamp
            for msg in chunk_messages(robot_payload(self.frame), self.image_id, captured):
                self.sim.send(msg)
            self.image_id += 1
            self.sent += 1
            await asyncio.sleep(1 / 15)


def _face(x: int) -> np.ndarray:
    return scene(faces=((astronaut_face(), x, 20, 190),), noise=2.0, seed=x)


def test_faces_seen_and_lost_and_the_link_delivers_everything_else_through_garbage_chunks() -> None:
    async def body() -> None:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address, lost_after=2.0)
        await robot.connect()
        camera = Camera(sim)
        try:
            events: list[ev.RobotEvent] = []
            robot.add_listener(events.append)
            vision = robot.start_vision(VisionConfig(face_lost_after_s=0.6))
            await eventually(lambda: sim.camera_mode == 1 and sim.counts["EnableColorImages"] == 1)
            await robot.set_head_angle(math.radians(20))
            camera.start()
            await asyncio.sleep(0.5)
            assert vision.stats.decoded >= 3 and not any(isinstance(e, ev.FaceSeen) for e in events)  # empty room
            camera.frame = _face(30)  # a face at the left of the picture
            t0 = asyncio.get_running_loop().time()
            seen = await robot.wait_for("face_seen", timeout=5.0)
            assert isinstance(seen, ev.FaceSeen) and seen.pan_rad > math.radians(5)
            assert seen.tilt_rad == pytest.approx(math.radians(20), abs=math.radians(15))
            assert asyncio.get_running_loop().time() - t0 < 2.0
            # garbage and stray chunks amid the stream; the robot's other messages still come through
            rng = np.random.default_rng(1)
            for i in range(40):
                sim.send(m.ImageChunk(image_id=int(rng.integers(0, 2**32)), chunk_id=int(rng.integers(0, 5)),
                                      image_chunk_count=int(rng.integers(0, 5)),
                                      image_encoding=int(rng.integers(-5, 12)),
                                      image_resolution=int(rng.integers(-5, 15)),
                                      data=rng.integers(0, 256, int(rng.integers(0, 1100)), np.uint8).tobytes()))
                if i == 20:
                    sim.poke()
            await robot.wait_for("poked", timeout=3.0)
            camera.frame = _face(120)  # the face moves to the right
            moved = await robot.wait_for("face_moved", timeout=5.0, predicate=lambda e: e.pan_rad < seen.pan_rad)
            assert isinstance(moved, ev.FaceMoved) and moved.face_id == seen.face_id
            camera.frame = scene(noise=2.0, seed=9)  # the face leaves
            lost = await robot.wait_for("face_lost", timeout=5.0)
            assert isinstance(lost, ev.FaceLost) and lost.face_id == seen.face_id
            assert vision.stats.decoded >= 10 and vision.reassembler.dropped_total > 0
            assert robot.vision is vision
        finally:
            await camera.stop()
            await robot.stop_vision()
            assert robot.vision is None
            await eventually(lambda: sim.camera_mode == 0)
            await robot.disconnect()
            await sim.stop()

    run(body())


def test_through_ten_percent_loss_frames_with_lost_chunks_are_dropped_and_the_face_is_still_seen() -> None:
    async def body() -> None:
        sim = await SimulatedCozmo(port=0, calibrate=False, faults=NetworkFaults(loss=0.1, seed=4)).start()
        robot = Robot(*sim.address, lost_after=2.0)
        await robot.connect()
        camera = Camera(sim)
        try:
            events: list[ev.RobotEvent] = []
            robot.add_listener(events.append)
            vision = robot.start_vision()
            camera.frame = _face(70)
            camera.start()
            seen = await robot.wait_for("face_seen", timeout=8.0)
            assert isinstance(seen, ev.FaceSeen)
            await eventually(lambda: camera.sent >= 40, timeout=10.0)
            await vision.idle()
            dropped = vision.reassembler.dropped_total
            assert dropped > 0 and vision.stats.decoded > 10 and vision.stats.corrupt == 0
            # one face, one id, all along (no flapping through the lost frames)
            assert {e.face_id for e in events if isinstance(e, (ev.FaceSeen, ev.FaceMoved))} == {seen.face_id}
            assert not any(isinstance(e, ev.FaceLost) for e in events)
        finally:
            await camera.stop()
            await robot.stop_vision()
            await robot.disconnect()
            await sim.stop()

    run(body())


def test_the_camera_goes_on_when_connected_and_again_after_the_robot_reboots() -> None:
    async def body() -> None:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address, lost_after=1.0, reconnect_initial_s=0.2, reconnect_max_s=0.5)
        robot.start_vision(VisionConfig(face_lost_after_s=0.5))  # before connecting: on once connected
        await robot.connect()
        camera = Camera(sim)
        try:
            await eventually(lambda: sim.camera_mode == 1)
            camera.frame = _face(60)
            camera.start()
            first = await robot.wait_for("face_seen", timeout=5.0)
            sim.reboot(0.5)  # forgets the engine and everything it was asked, the camera included
            await eventually(lambda: sim.camera_mode == 0)
            await robot.wait_for("reconnected", timeout=10.0)
            await eventually(lambda: sim.camera_mode == 1, timeout=3.0)
            again = await robot.wait_for("face_seen", timeout=5.0)
            assert isinstance(first, ev.FaceSeen) and isinstance(again, ev.FaceSeen)
            assert again.face_id != first.face_id
        finally:
            await camera.stop()
            await robot.stop_vision()
            await robot.disconnect()
            await sim.stop()

    run(body())
