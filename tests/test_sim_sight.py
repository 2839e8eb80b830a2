"""The simulator's sight: what its camera would see, from the room's geometry (no pixels)."""

from __future__ import annotations

import math
import random

import pytest

from driver.sim.room import Room
from driver.sim.sight import RoomSight
from driver.vision.geometry import CameraIntrinsics, face_distance_mm, pixel_ray, project, to_robot

CAMERA = CameraIntrinsics()
HOME = (0.0, 0.0, 0.0, 0.0)


def test_project_is_the_inverse_of_a_pixel_ray() -> None:
    rng = random.Random(5)
    for _ in range(200):
        u, v = rng.uniform(0, 320), rng.uniform(0, 240)
        head = math.radians(rng.uniform(-25, 44.5))
        ray = pixel_ray(u, v, head, CAMERA)
        distance = rng.uniform(100, 2000)
        seen = project(ray.point(distance), head, CAMERA)
        assert seen is not None
        assert seen[0] == pytest.approx(u, abs=1e-6) and seen[1] == pytest.approx(v, abs=1e-6)
    assert project((-100.0, 0.0, 50.0), 0.0, CAMERA) is None  # behind the camera


def test_to_robot_undoes_the_pose() -> None:
    x, y, z = to_robot((100.0, 200.0, 30.0), (100.0, 100.0, 0.0, math.pi / 2))
    assert (x, y, z) == pytest.approx((100.0, 0.0, 30.0))


def _room(bearing_deg: float, distance_m: float = 0.6, height_m: float = 0.25) -> Room:
    room = Room()
    room.place_face("alice", (0.0, 0.0, 0.0), 0.0, bearing_deg=bearing_deg, distance_m=distance_m, height_m=height_m)
    return room


def test_a_face_in_view_is_a_box_of_a_face_s_size_where_the_camera_sees_it() -> None:
    sight = RoomSight(_room(10))
    (box,) = sight.faces(HOME, math.radians(15), 0.0)
    u, v = box.center
    ray = pixel_ray(u, v, math.radians(15), CAMERA)
    assert math.degrees(ray.pan_rad) == pytest.approx(10, abs=1.5)
    assert face_distance_mm(box.w, CAMERA) == pytest.approx(600, rel=0.1)


@pytest.mark.parametrize(("bearing", "distance", "head", "why"), [
    (40, 0.6, 15, "outside the camera's ±30°"),
    (0, 0.6, 44, "below the picture with the head up"),
    (0, 0.6, -25, "above the picture with the head down"),
    (0, 1.5, 15, "too far for the detector"),
    (180, 0.6, 15, "behind the robot"),
])
def test_faces_the_camera_cannot_see(bearing: float, distance: float, head: float, why: str) -> None:
    assert RoomSight(_room(bearing, distance)).faces(HOME, math.radians(head), 0.0) == [], why


@pytest.mark.parametrize(("bearing", "distance", "head", "said"), [
    (10, 0.6, 15, "in view at"),
    (40, 0.6, 15, "left of the picture (head at 15°)"),
    (-40, 0.6, 15, "right of the picture"),
    (0, 0.6, 44, "below the picture (head at 44°)"),
    (0, 0.6, -25, "above the picture (head at -25°)"),
    (0, 1.5, 15, "too far to find"),
    (180, 0.6, 15, "behind the camera"),
])
def test_the_simulator_says_where_a_face_is_in_the_picture(bearing: float, distance: float, head: float,
                                                          said: str) -> None:
    """What the simulator logs when a person comes, so a day's log tells why a face was not seen."""
    sight = RoomSight(_room(bearing, distance))
    assert said in sight.where("alice", HOME, math.radians(head))
    assert sight.where("bob", HOME, 0.0) == "not in the room"


def test_a_turned_robot_sees_what_is_in_front_of_it_now() -> None:
    sight = RoomSight(_room(40))
    assert sight.faces((0.0, 0.0, 0.0, math.radians(40)), math.radians(15), 0.0)


def test_motion_on_the_floor_in_front_is_ground_and_aside_is_a_border() -> None:
    room = Room()
    room.start_motion("ground", (0.0, 0.0, 0.0), 0.0, bearing_deg=0, duration=5)
    report = RoomSight(room).motion(HOME, math.radians(0), 1.0, 1.0, 1000)
    assert report is not None and report.primary.where == "ground"
    assert report.primary.ground_mm is not None and report.primary.ground_mm[0] == pytest.approx(220, abs=40)
    assert RoomSight(room).motion(HOME, 0.0, 6.0, 6.0, 1000) is None  # it stopped
    room = Room()
    room.start_motion("air", (0.0, 0.0, 0.0), 0.0, bearing_deg=18, distance_m=0.8, duration=5)
    report = RoomSight(room).motion(HOME, math.radians(10), 1.0, 1.0, 1000)
    assert report is not None and report.primary.where == "left"
    assert {a.where for a in report.areas} >= {"left", "image"}
