"""What the dashboard draws of the robot: the face bits the page decodes, the camera's detections,
the events in words, and the robot panel from a real Robot connected to the simulator."""

from __future__ import annotations

import base64

import numpy as np

from brain.dashboard.views import CameraView, FaceView, describe_event, is_noisy, robot_state
from driver import events as ev
from driver.animation.display import decode
from driver.animation.expressions import expression
from driver.animation.face_images import FaceRenderer
from driver.robot import Robot
from driver.samples import RobotStatus
from driver.sim.server import SimulatedCozmo

from .conftest import eventually, run


def _page_pixels(b64: str) -> np.ndarray:
    """The picture as the page reads it: row y, column x is bit 7 - x % 8 of byte y * 16 + x // 8."""
    data = np.frombuffer(base64.b64decode(b64), dtype=np.uint8)
    return np.unpackbits(data).reshape(32, 128).astype(bool)


def test_the_face_as_the_robot_shows_it() -> None:
    class Shown:  # what the Robot keeps of the last DisplayImage it sent
        display_shown: bytes | None = None

    robot = Shown()
    face = FaceView()
    assert face.poll(robot) is None  # nothing shown yet
    renderer = FaceRenderer()
    robot.display_shown = renderer.display_bytes(expression("happy"))
    happy = face.poll(robot)
    assert happy is not None and (_page_pixels(happy) == decode(robot.display_shown)).all()
    assert face.poll(robot) is None  # unchanged: not sent again
    robot.display_shown = renderer.display_bytes(expression("sad"))
    sad = face.poll(robot)
    assert sad is not None and sad != happy and (_page_pixels(sad) == decode(robot.display_shown)).all()
    face.reset()  # a new page: the picture goes out again
    assert face.poll(robot) == sad


def test_camera_detections_follow_the_face_and_motion_events() -> None:
    camera = CameraView()
    assert camera.poll(10.0) is None  # no frame: the page says "no camera"

    class Frame:  # the fields of driver.vision's ImageSample the panel reads
        image_id, width, height, jpeg = 7, 320, 240, b"\xff\xd8jpeg"

    camera._on_frame(Frame())
    camera.on_event(ev.FaceSeen(10.0, face_id=3, box=(40, 50, 60, 70)), 10.0)
    camera.on_event(ev.FaceSeen(10.0, face_id=4, box=(200, 50, 30, 30)), 10.0)
    camera.on_event(ev.FaceMoved(10.1, face_id=3, box=(44, 50, 60, 70)), 10.1)
    camera.on_event(ev.FaceLost(10.2, face_id=4), 10.2)
    camera.on_event(ev.MotionSeen(10.2, where="ground", img_x=160.0, img_y=200.0), 10.2)
    shown = camera.poll(10.3)
    assert shown is not None
    assert shown["faces"] == [{"id": 3, "box": [44, 50, 60, 70]}]
    assert shown["motion"] == {"x": 160.0, "y": 200.0, "where": "ground", "at": 10.2}
    assert base64.b64decode(shown["jpeg"]) == Frame.jpeg and (shown["width"], shown["height"]) == (320, 240)
    assert camera.poll(10.4) is None  # the same frame is not sent twice
    camera.reset()
    assert camera.poll(11.5)["motion"] is None  # a second later the motion mark is gone


def test_a_frame_of_a_stopped_camera_is_not_shown() -> None:
    class Vision:  # what the panel uses of driver.vision's pipeline: its frame listeners
        def __init__(self) -> None:
            self.listeners: list = []

        def add_frame_listener(self, fn):  # type: ignore[no-untyped-def]
            self.listeners.append(fn)
            return lambda: self.listeners.remove(fn)

        def deliver(self, image_id: int) -> None:
            frame = type("Frame", (), {"image_id": image_id, "width": 320, "height": 240, "jpeg": b"\xff\xd8"})()
            for fn in list(self.listeners):
                fn(frame)

    class Robot:
        vision: Vision | None = None

    robot, camera, first = Robot(), CameraView(), Vision()
    robot.vision = first
    camera.watch(robot)
    first.deliver(1)
    assert camera.poll(1.0) is not None
    first.deliver(2)  # the camera is switched off before this frame is sent
    robot.vision = None
    camera.watch(robot)
    assert camera.poll(1.1) is None
    first.deliver(3)  # late, from the stopped pipeline
    camera.reset()  # nor to a page that joins now
    assert camera.poll(1.2) is None
    second = Vision()  # on again: its frames are shown
    robot.vision = second
    camera.watch(robot)
    second.deliver(1)
    shown = camera.poll(1.3)
    assert shown is not None and shown["jpeg"]


def test_events_in_words() -> None:
    assert describe_event(ev.CubeTapped(1.0, object_id=1, taps=2)) == "cube_tapped object_id=1 taps=2"
    assert describe_event(ev.StatusChanged(1.0, flag=RobotStatus.IS_PICKED_UP, value=True)) == "picked_up on"
    assert is_noisy(ev.StatusChanged(1.0, flag=RobotStatus.IS_MOVING, value=True))
    assert not is_noisy(ev.StatusChanged(1.0, flag=RobotStatus.CLIFF_DETECTED, value=True))
    assert is_noisy(ev.AnimationEnded(1.0, anim_id=3)) and not is_noisy(ev.Poked(1.0))


def test_the_robot_panel_from_a_connected_robot() -> None:
    async def body() -> dict:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address)
        try:
            await robot.connect()
            sim.set_battery(3.71)
            sim.pick_up()
            await eventually(lambda: robot.state is not None and robot.state.has(RobotStatus.IS_PICKED_UP))
            await robot.set_head_angle(0.3)
            return robot_state(robot, hazard="picked_up", safety_stops=1, suspended=None)
        finally:
            await robot.disconnect()
            await sim.stop()

    state = run(body(), timeout=30)
    assert state["connected"] and state["firmware"] == 2381 and state["serial"] == "0x45a1b2c3"
    assert state["battery_v"] == 3.71 and "picked_up" in state["flags"] and state["hazard"] == "picked_up"
    assert abs(state["head_deg"] - 17.2) < 1.5 and state["lift_mm"] == 32.0
    assert state["link"]["state"] == "connected" and state["link"]["sent"] > 0 and state["link"]["rtt_ms"] > 0
