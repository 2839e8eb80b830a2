"""The simulated room: timeline steps for people and moving things, where they end up, and drawing them."""

from __future__ import annotations

import logging
import math
import sys

import numpy as np
import pytest

from driver.sim.camera import CameraPose, Renderer
from driver.sim.room import PHOTO_ORDER, PHOTOS, WALK_MM_S, Room, photos_for
from driver.sim.script import ScriptError, parse_script
from driver.sim.sight import RoomSight

TIMELINE = """\
- {at: 5, face: alice, bearing_deg: 30, distance_m: 0.6, height_m: 0.25}
- {at: 9, face: alice, bearing_deg: -10}
- {at: 15, face_leaves: alice}
- {at: 20, motion: ground, bearing_deg: 15, for: 2}
- {at: 21, event: face, face: bob, photo: photographer}
- {at: 22, motion: air, bearing_deg: -20, height_m: 0.4}
"""


def test_timeline_steps_for_people_and_motion() -> None:
    steps = parse_script(TIMELINE, "room.yaml")
    assert [(s.at, s.event, s.args, s.line) for s in steps] == [
        (5.0, "face", {"face": "alice", "bearing_deg": 30.0, "distance_m": 0.6, "height_m": 0.25}, 1),
        (9.0, "face", {"face": "alice", "bearing_deg": -10.0}, 2),
        (15.0, "face_leaves", {"face_leaves": "alice"}, 3),
        (20.0, "motion", {"motion": "ground", "bearing_deg": 15.0, "for": 2.0}, 4),
        (21.0, "face", {"face": "bob", "photo": "photographer"}, 5),
        (22.0, "motion", {"motion": "air", "bearing_deg": -20.0, "height_m": 0.4, "for": 2.0}, 6),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- {at: 1, face: alice, distance_m: 0}", "room.yaml:1: step 0: 'distance_m' must be between 0.1 and 5, got 0"),
        ("- {at: 1, face: alice, bearing_deg: 270}", "'bearing_deg' must be between -180 and 180"),
        ("- {at: 1, face: alice, bearing_deg: left}", "'bearing_deg' must be a number, got 'left'"),
        ("- {at: 1, face: 7}", "'face' must be a non-empty string, got 7"),
        ("- {at: 1, face: ''}", "'face' must be a non-empty string"),
        ("- {at: 1, face: alice, photo: mona_lisa}", "'photo' must be one of astronaut, photographer"),
        ("- {at: 1, face: alice, wave: true}", "unknown field(s) wave for event 'face'"),
        ("- {at: 1, event: poke}\n- {at: 2, face_leaves: alice, distance_m: 1}",
         "room.yaml:2: step 1: unknown field(s) distance_m for event 'face_leaves'"),
        ("- {at: 1, motion: sideways}", "'motion' must be one of ground, air, got 'sideways'"),
        ("- {at: 1, motion: ground, for: 0}", "'for' must be between 0.05 and 3600"),
        ("- {at: 1, event: motion}", "event 'motion' needs 'motion'"),
    ],
)
def test_bad_room_steps_name_the_line_and_the_problem(text: str, message: str) -> None:
    with pytest.raises(ScriptError) as info:
        parse_script(text, "room.yaml")
    assert message in str(info.value)


def test_places_are_taken_from_the_robot_then_fixed_in_the_room() -> None:
    room = Room()
    robot = (100.0, 50.0, math.radians(90))  # facing +y
    alice = room.place_face("alice", robot, 0.0, bearing_deg=30, distance_m=0.6, height_m=0.25)
    # 30° to the robot's left while it faces +y: 120° in the room.
    assert (alice.x_mm, alice.y_mm, alice.z_mm) == pytest.approx(
        (100 + 600 * math.cos(math.radians(120)), 50 + 600 * math.sin(math.radians(120)), 250))
    assert alice.photo == "astronaut"
    # A move gives only the bearing: distance and height stay; the robot has turned meanwhile.
    moved = room.place_face("alice", (0.0, 0.0, 0.0), 1.0, bearing_deg=-10)
    assert (moved.x_mm, moved.y_mm, moved.z_mm) == pytest.approx(
        (600 * math.cos(math.radians(-10)), 600 * math.sin(math.radians(-10)), 250))
    assert moved.since == 0.0  # the same person, still in the room since t=0
    bob = room.place_face("bob", (0.0, 0.0, 0.0), 2.0)  # defaults: straight ahead, 0.6 m, 0.25 m
    assert (bob.x_mm, bob.y_mm, bob.z_mm) == pytest.approx((600, 0, 250))
    assert bob.photo == "photographer"  # the second person gets the second photograph
    assert room.face_leaves("alice") is True
    assert room.face_leaves("alice") is False
    assert list(room.people) == ["bob"]


def test_someone_in_the_room_walks_to_their_new_place_and_is_seen_on_the_way() -> None:
    room = Room()
    room.place_face("alice", (0.0, 0.0, 0.0), 10.0)  # new: there at once, 600 mm straight ahead
    assert room.people["alice"].at(10.0) == pytest.approx((600, 0, 250))
    # she steps to 40° right, out of a camera's picture (its edge is 29° aside)
    alice = room.place_face("alice", (0.0, 0.0, 0.0), 20.0, bearing_deg=-40)
    end = (600 * math.cos(math.radians(-40)), 600 * math.sin(math.radians(-40)), 250)
    walk_s = math.dist((600, 0, 250), end) / WALK_MM_S
    assert alice.at(20.0) == pytest.approx((600, 0, 250))
    assert alice.at(20.0 + walk_s / 2) == pytest.approx(((600 + end[0]) / 2, end[1] / 2, 250))
    assert alice.at(20.0 + walk_s) == pytest.approx(end) == alice.at(99.0)
    # the camera sees her on her way, at the picture's edge, and not once she stands there
    sight = RoomSight(room)
    seen = [sight.faces((0.0, 0.0, 0.0, 0.0), math.radians(10), 20.0 + f * walk_s) for f in (0.0, 0.4, 0.7, 1.0)]
    assert [len(boxes) for boxes in seen] == [1, 1, 0, 0]
    assert seen[1][0].center[0] > seen[0][0].center[0] + 60  # to the right in the picture
    # a new step half-way sets off from where she is then
    back = room.place_face("alice", (0.0, 0.0, 0.0), 20.0 + walk_s / 2, bearing_deg=0)
    assert back.came_from == pytest.approx(((600 + end[0]) / 2, end[1] / 2, 250))
    assert [p.position for p in room.snapshot(20.0 + walk_s / 2)] == [pytest.approx(back.came_from)]


def test_a_moving_thing_swings_and_is_gone_after_its_time() -> None:
    room = Room()
    room.apply("motion", {"motion": "ground", "bearing_deg": 15.0, "for": 2.0}, (0.0, 0.0, 0.0), 10.0)
    seen = [room.snapshot(10.0 + t) for t in (0.1, 0.4, 0.7, 1.9)]
    assert all(len(s) == 1 and s[0].kind == "ball" for s in seen)
    ys = [s[0].position[1] for s in seen]
    assert max(ys) - min(ys) > 60  # it moves across its place
    xs, zs = [s[0].position[0] for s in seen], [s[0].position[2] for s in seen]
    bearing = math.degrees(math.atan2(np.mean(ys), np.mean(xs)))
    assert 5 < bearing < 25 and set(zs) == {30.0}  # rolling on the floor around 15° left
    assert room.snapshot(12.1) == ()


def _pixel(point: tuple[float, float, float], head_rad: float) -> tuple[float, float]:
    """Where Cozmo's camera (robot at the origin facing +x) sees a point: written out from the
    reference geometry (camera 17.52 mm ahead of and 8 mm below the neck at (−13, 0, 49) mm)."""
    cx = -13 + 17.52 * math.cos(head_rad) + 8 * math.sin(head_rad)
    cz = 49 + 17.52 * math.sin(head_rad) - 8 * math.cos(head_rad)
    dx, dy, dz = point[0] - cx, point[1], point[2] - cz
    forward = dx * math.cos(head_rad) + dz * math.sin(head_rad)
    down = dx * math.sin(head_rad) - dz * math.cos(head_rad)
    return 155.11 + 288.87 * -dy / forward, 111.40 + 288.36 * down / forward


@pytest.mark.parametrize(("bearing", "distance"), [(15, 0.6), (-12, 1.2)])
def test_faces_are_drawn_where_a_pinhole_camera_puts_them(bearing: float, distance: float) -> None:
    pytest.importorskip("skimage", reason="the face photographs come from scikit-image ([test] extra)")
    head = math.radians(12.5)
    room = Room()
    room.place_face("alice", (0.0, 0.0, 0.0), 0.0, bearing_deg=bearing, distance_m=distance, height_m=0.25)
    pose = CameraPose.from_robot(0, 0, 0, head)
    empty = Renderer(seed=3, noise=False).render(pose, (), room.photos, colour=False).astype(int)
    img = Renderer(seed=3, noise=False).render(pose, room.snapshot(0.0), room.photos, colour=False).astype(int)
    ys, xs = np.nonzero(np.abs(img - empty) > 8)
    a = math.radians(bearing)
    face = (1000 * distance * math.cos(a), 1000 * distance * math.sin(a), 250.0)
    u, v = _pixel(face, head)
    assert (u < 155) == (bearing > 0)  # a face to the left is in the left of the picture
    assert abs(np.median(xs) - u) < 0.1 * (xs.max() - xs.min())
    # The photo hangs at life size on a card through the face point, square to the line of sight.
    spec = PHOTOS["astronaut"]
    left = (spec.face[0] - spec.crop[0]) * spec.mm_per_px
    right = (spec.crop[2] - spec.face[0]) * spec.mm_per_px
    up = (spec.face[1] - spec.crop[1]) * spec.mm_per_px
    down = (spec.crop[3] - spec.face[1]) * spec.mm_per_px
    across = (-math.sin(a), math.cos(a))  # to the robot's left, seen from the robot
    corners = [_pixel((face[0] + side * across[0], face[1] + side * across[1], 250.0 + height), head)
               for side in (left, -right) for height in (up, -down)]
    u_left, u_right = min(c[0] for c in corners), max(c[0] for c in corners)
    v_top = min(c[1] for c in corners)
    assert xs.min() >= max(u_left - 3, 0) and xs.max() <= min(u_right + 3, 319)
    assert ys.min() >= max(v_top - 3, 0)
    assert xs.max() - xs.min() > 0.6 * (min(u_right, 319) - max(u_left, 0))  # and most of it shows


@pytest.mark.parametrize("bearing", [30, -30])
def test_a_face_30_degrees_aside_shows_at_that_edge_of_the_picture(bearing: float) -> None:
    """Cozmo's camera sees about 28° to the left and 30° to the right: the face point is at the edge."""
    pytest.importorskip("skimage", reason="the face photographs come from scikit-image ([test] extra)")
    head = math.radians(12.5)
    room = Room()
    room.place_face("alice", (0.0, 0.0, 0.0), 0.0, bearing_deg=bearing, distance_m=0.6, height_m=0.25)
    pose = CameraPose.from_robot(0, 0, 0, head)
    empty = Renderer(seed=3, noise=False).render(pose, (), room.photos, colour=False).astype(int)
    img = Renderer(seed=3, noise=False).render(pose, room.snapshot(0.0), room.photos, colour=False).astype(int)
    ys, xs = np.nonzero(np.abs(img - empty) > 8)
    a = math.radians(bearing)
    u, _ = _pixel((600 * math.cos(a), 600 * math.sin(a), 250.0), head)
    assert (u < 5) if bearing > 0 else (u > 305)  # at the edge (the optical centre is 5 px left of the middle)
    if bearing > 0:
        assert xs.min() == 0 and xs.max() < 155
    else:
        assert xs.max() == 319 and xs.min() > 155
    assert len(xs) > 3000  # a good part of her is in view


def test_without_scikit_image_the_room_is_empty_and_it_is_said_once(monkeypatch: pytest.MonkeyPatch,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setitem(sys.modules, "skimage", None)  # as if the package were not installed
    caplog.set_level(logging.WARNING, logger="driver.sim.room")
    room = Room()
    room.place_face("alice", (0.0, 0.0, 0.0), 0.0, bearing_deg=0)
    room.place_face("bob", (0.0, 0.0, 0.0), 0.0, bearing_deg=10)
    pose = CameraPose.from_robot(0, 0, 0, math.radians(12.5))
    img = Renderer(seed=1, noise=False).render(pose, room.snapshot(0.0), room.photos, colour=True)
    empty = Renderer(seed=1, noise=False).render(pose, (), room.photos, colour=True)
    assert np.array_equal(img, empty)
    warnings = [r.getMessage() for r in caplog.records if "scikit-image is not installed" in r.getMessage()]
    assert len(warnings) == 1 and "sim-faces" in warnings[0]


def test_the_photographs_a_timeline_will_show_are_known_before_it_runs() -> None:
    steps = parse_script("""\
- {at: 1, face: alice}
- {at: 2, face: alice, bearing_deg: 10}
- {at: 3, face: bob, photo: astronaut}
- {at: 4, face_leaves: alice}
""")
    assert set(photos_for(steps)) == set(PHOTO_ORDER[:2])  # alice may get either, as she comes first or not
    assert photos_for(steps[2:]) == ("astronaut",)
    assert photos_for(parse_script("- {at: 1, motion: ground}")) == ()
    many = parse_script("\n".join(f"- {{at: {i}, face: p{i}}}" for i in range(5)))
    assert photos_for(many) == PHOTO_ORDER
