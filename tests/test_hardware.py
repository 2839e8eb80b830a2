"""The robot's physical facts, read from one place by the simulator, the driver and vision alike.

Each test pins a fact of ``shared/reference/hardware.md`` where two parts of the project meet: what
the simulated robot does with a command and what the driver or vision assume about it.
"""

from __future__ import annotations

import asyncio
import math
import random

import pytest

from driver.animation.clip import Clip, HeadAngle, LiftHeight
from driver.animation.timeline import Timeline
from driver.hardware import DISPLAY_BLANK_AFTER_S, HEAD_MAX_DEG, HEAD_MIN_DEG, LIFT_MAX_MM, LIFT_MIN_MM, QVGA
from driver.samples import lift_angle_rad, lift_height_mm
from driver.sim.body import Body
from driver.sim.camera import CameraPose, project
from driver.vision.geometry import pixel_ray, to_world


def test_a_spin_turns_at_the_rate_of_treads_46_mm_apart() -> None:
    """Treads 46 mm apart (hardware.md §1): wheels at ∓23 mm/s turn the body 1 rad/s."""
    body = Body(wheel_lag=False)  # wheels at the asked speed (the real shortfall: test_sim_motors)
    body.drive(-23.0, 23.0)
    for _ in range(100):
        body.step(0.01)
    assert body.gyro_z == pytest.approx(1.0, rel=1e-6)
    assert body.angle_rad == pytest.approx(1.0, abs=0.01)  # less the first milliseconds' speeding up


def test_what_the_simulated_camera_sees_vision_turns_back_into_its_direction() -> None:
    """A point the simulator's camera puts at pixel (u, v) is where vision's ray through (u, v) points:
    both read the head's pivot, the camera's place in the head and the intrinsics from one place."""
    rng = random.Random(3)
    for _ in range(100):
        x, y, heading = rng.uniform(-300, 300), rng.uniform(-300, 300), rng.uniform(-math.pi, math.pi)
        head = math.radians(rng.uniform(HEAD_MIN_DEG, HEAD_MAX_DEG))
        pose = CameraPose.from_robot(x, y, heading, head)
        bearing = heading + rng.uniform(-0.4, 0.4)
        distance = rng.uniform(300, 1500)
        point = (x + distance * math.cos(bearing), y + distance * math.sin(bearing), rng.uniform(0, 400))
        u, v, depth = project(pose, QVGA, point)
        if not (depth > 0 and 0 <= u < QVGA.width and 0 <= v < QVGA.height):
            continue
        ray = pixel_ray(u, v, head, QVGA)
        origin = to_world(ray.origin_mm, x, y, 0.0, heading)
        tip = to_world(ray.point(1.0), x, y, 0.0, heading)
        direction = [b - a for a, b in zip(origin, tip, strict=True)]
        to_point = [p - o for o, p in zip(origin, point, strict=True)]
        n = math.dist(to_point, (0.0, 0.0, 0.0))
        cos = sum(a * b / n for a, b in zip(direction, to_point, strict=True))
        assert math.degrees(math.acos(min(1.0, cos))) < 0.01


def test_clips_the_lift_and_head_within_the_limits_the_wire_can_carry() -> None:
    """An animation asking beyond the head's and lift's stops is clamped to them, and the lift's
    limits are the heights of the arm angles the robot reports (−0.198 rad is 32 mm)."""
    clip = Clip("beyond", head_angle=(HeadAngle(0, 100, 80),), lift_height=(LiftHeight(0, 100, 200),))
    timeline = Timeline(clip)
    assert timeline.head is not None and timeline.lift is not None
    assert timeline.head.end_value == HEAD_MAX_DEG
    assert timeline.lift.end_value == LIFT_MAX_MM
    assert lift_height_mm(-0.198) == pytest.approx(LIFT_MIN_MM, abs=0.1)
    assert lift_height_mm(lift_angle_rad(LIFT_MAX_MM)) == pytest.approx(LIFT_MAX_MM)


def test_the_simulated_lift_turns_at_the_arms_angular_speed() -> None:
    """SetLiftHeight's speed is the arm's (rad/s): at 1 rad/s the lift's 66 mm arm raises it from 32
    to 92 mm in about a second (about 65 mm/s near the bottom), through the robot as the brain uses it."""
    from brain.app.virtual_time import run_virtual
    from driver.memlink import MemoryNetwork
    from driver.robot import Robot
    from driver.sim.server import SimulatedCozmo

    async def main() -> float:
        loop = asyncio.get_running_loop()
        net = MemoryNetwork()
        sim = SimulatedCozmo("127.0.0.1", 5551, calibrate=False)
        await sim.start(open_link=net.open_link)
        robot = Robot("127.0.0.1", 5551, lost_after=2.0)
        await robot.connect(open_link=net.open_link)
        try:
            start = loop.time()
            await robot.set_lift_height(LIFT_MAX_MM, max_speed=1.0, timeout=10.0)
            return loop.time() - start
        finally:
            await robot.disconnect()
            await sim.stop()

    took = run_virtual(main())
    assert 0.7 < took < 1.4, took


@pytest.mark.e2e
def test_the_simulator_ignores_face_and_sound_until_the_animation_controller_is_set_up() -> None:
    """A real robot drops face images, audio and keyframes that come before EnableAnimationState (§7.6)."""
    from driver.link import Link, Role
    from driver.protocol import messages as m
    from driver.sim.server import SimulatedCozmo

    from .conftest import eventually, run

    async def body() -> None:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        link = await Link.open(Role.ENGINE, peer=sim.address)
        try:
            await link.connect(timeout=5.0)
            link.send(m.encode(m.DisplayImage(image=b"\x3f\x3f")))
            link.send(m.encode(m.OutputAudio()))
            await eventually(lambda: sim.counts["OutputAudio"] == 1, timeout=5)
            assert (sim.display.images, sim.speaker.frames, sim.ignored_before_anim_init) == (0, 0, 2)
            link.send(m.encode(m.EnableAnimationState()))
            link.send(m.encode(m.DisplayImage(image=b"\x3f\x3f")))
            link.send(m.encode(m.OutputAudio()))
            await eventually(lambda: sim.speaker.frames == 1, timeout=5)
            assert sim.display.images == 1 and sim.ignored_before_anim_init == 2
        finally:
            link.close()
            await sim.stop()

    run(body(), timeout=30)


def test_the_simulated_screen_goes_dark_30_s_after_the_last_image_and_the_controller_keeps_it_lit() -> None:
    """A real robot blanks its face 30 s after the last DisplayImage (hardware.md §7.10); the
    animation controller resends the face before that, so the daemon's robot never goes dark."""
    from brain.app.virtual_time import run_virtual
    from driver.animation.controller import AnimationController
    from driver.memlink import MemoryNetwork
    from driver.robot import Robot
    from driver.sim.server import SimulatedCozmo

    async def main() -> tuple[int, int, bool, int, bool]:
        net = MemoryNetwork()
        sim = SimulatedCozmo("127.0.0.1", 5551, calibrate=False)
        await sim.start(open_link=net.open_link)
        robot = Robot("127.0.0.1", 5551, lost_after=2.0)
        await robot.connect(open_link=net.open_link)
        ctl = AnimationController(robot, seed=1)
        ctl.start()
        ctl.idle.still = True  # asleep: no blinks, no saccades, the face never changes
        try:
            await asyncio.sleep(95.0)
            kept = (sim.display.images, sim.display.blanks)
            lit = bool(sim.display.pixels().any())
        finally:
            await ctl.stop()
        loop = asyncio.get_running_loop()
        last = sim.display.shown_at
        assert last is not None
        await asyncio.sleep(max(0.0, last + DISPLAY_BLANK_AFTER_S - 1.0 - loop.time()))
        still_lit = not sim.display.blanked
        await asyncio.sleep(2.0)
        dark = sim.display.blanked and not sim.display.pixels().any()
        await robot.disconnect()
        await sim.stop()
        return kept[0], kept[1], lit and still_lit, sim.display.blanks, dark

    images, blanks_while_kept, lit, blanks, dark = run_virtual(main())
    assert images >= 4 and blanks_while_kept == 0 and lit  # resent at least every 25 s: never dark
    assert dark and blanks == 1  # nobody resends: dark 30 s after the last one
