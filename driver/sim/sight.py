"""What the simulated camera would see, from the room's geometry alone: face boxes and motion, without pixels.

``cozmo-brain simulate`` lives hours in minutes; rendering, encoding and detecting fifteen
pictures a second would cost far more than the rest of the stack. So by default the simulator
hands the robot's vision what its camera would see instead:

* each person's face becomes a box where the pinhole camera projects the point between the eyes,
  as wide as a face (:data:`~driver.vision.geometry.FACE_WIDTH_MM`) at that depth; it is seen only
  when the whole box is in the picture (the head's tilt hides a face above or below the view) and
  not further than the detector finds faces (:data:`MAX_FACE_MM`);
* a moving thing becomes motion where it is, with the places the motion detector names (the
  floor patch in front, the picture's left, right and top borders, the whole image), reported only
  while the robot holds still and at most every half second, as the detector does.

:class:`SightFeed` runs beside the simulator and gives these to a :class:`driver.vision.Vision`
(:meth:`~driver.vision.Vision.on_sight`), whose tracker, world placement and events are the
ones detected pictures go through, so the brain cannot tell the difference. ``simulate
--pixels`` renders and detects every frame for real instead.
"""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..samples import RobotStateSample
from ..vision.faces import Box
from ..vision.geometry import FACE_WIDTH_MM, CameraIntrinsics, pixel_ray, project, to_robot
from ..vision.motion import REGIONS, MotionArea, MotionConfig, MotionReport
from ..vision.sample import ImageSample
from .room import Room

log = logging.getLogger(__name__)

__all__ = ["MAX_FACE_MM", "RoomSight", "SightFeed"]

#: The furthest a face is found (mm): about 36 px wide at QVGA, where the HOG detector stops finding them.
MAX_FACE_MM = 1000.0
#: The floor patch the motion detector watches (mm ahead of the robot's origin, and to each side).
GROUND_FAR_MM = 300.0
GROUND_HALF_WIDTH_MM = 150.0
#: The share of the picture's width / height that makes its left, right and top borders.
BORDER = 0.3

_EMPTY = np.zeros((0, 0), dtype=np.uint8)
_EMPTY.setflags(write=False)


Pose4 = tuple[float, float, float, float]  # x, y, z (mm), heading (rad)


@dataclass
class RoomSight:
    """The room seen through a camera: :meth:`faces` and :meth:`motion` for a head angle and a body pose."""

    room: Room
    camera: CameraIntrinsics = CameraIntrinsics()
    max_face_mm: float = MAX_FACE_MM

    def faces(self, pose: Pose4, head_angle_rad: float, now: float) -> list[Box]:
        """The face boxes in the picture of a robot at ``pose`` with its head at ``head_angle_rad``,
        with the people where they are at loop time ``now``."""
        out = []
        for person in self.room.people.values():
            box, _ = self._face(person.at(now), pose, head_angle_rad)
            if box is not None:
                out.append(box)
        return out

    def where(self, name: str, pose: Pose4, head_angle_rad: float) -> str:
        """Where person ``name``'s face is in the picture once they stand where they are going, or why
        it is not seen: for the simulator's log."""
        person = self.room.people.get(name)
        if person is None:
            return "not in the room"
        box, why = self._face((person.x_mm, person.y_mm, person.z_mm), pose, head_angle_rad)
        head = f"head at {math.degrees(head_angle_rad):.0f}°"
        if box is not None:
            u, v = box.center
            return f"in view at ({u:.0f}, {v:.0f}) px, {why} ({head})"
        return why if why.startswith(("behind", "too far")) else f"{why} the picture ({head})"

    def _face(self, face: tuple[float, float, float], pose: Pose4, head_angle_rad: float) -> tuple[Box | None, str]:
        """The box of the face at world point ``face`` (None when not wholly in the picture) and a word on where it is.

        The words are for :meth:`where`; they are short, so building them costs little beside the
        projection on the hot path (:meth:`faces`).
        """
        cam = self.camera
        seen = project(to_robot(face, pose), head_angle_rad, cam)
        if seen is None:
            return None, "behind the camera"
        u, v, depth = seen
        if depth > self.max_face_mm:
            return None, f"too far to find ({depth:.0f} mm)"
        w = FACE_WIDTH_MM * cam.fx / depth
        h = w * 1.2
        box = Box(u - w / 2, v - h / 2, w, h, 1.0)
        if box.x >= 0 and box.y >= 0 and box.x + box.w <= cam.width and box.y + box.h <= cam.height:
            return box, f"{depth:.0f} mm"
        off = [side for side, out in (("left of", box.x < 0), ("right of", box.x + box.w > cam.width),
                                      ("above", box.y < 0), ("below", box.y + box.h > cam.height)) if out]
        return None, " and ".join(off)

    def motion(self, pose: Pose4, head_angle_rad: float, now: float,
               captured_at: float, robot_time_ms: int) -> MotionReport | None:
        """What moved in the picture at loop time ``now`` (the first moving thing in view), or None."""
        cam = self.camera
        for mover in self.room.movers:
            if not mover.start <= now < mover.until:
                continue
            point = to_robot(mover.position(now), pose)
            seen = project(point, head_angle_rad, cam)
            if seen is None:
                continue
            u, v, depth = seen
            # seen when any part of it is in the picture (a ball right under a lowered head shows its
            # lower half); the motion is where the visible part is, as much as is visible
            r = mover.radius_mm * cam.fx / depth
            left, right = max(u - r, 0.0), min(u + r, cam.width - 1.0)
            top, bottom = max(v - r, 0.0), min(v + r, cam.height - 1.0)
            if left >= right or top >= bottom:
                continue
            u, v = (left + right) / 2, (top + bottom) / 2
            amount = min(1.0, (right - left) * (bottom - top) / (cam.width * cam.height))
            ray = pixel_ray(u, v, head_angle_rad, cam)
            areas = [MotionArea("image", u, v, amount, ray.pan_rad, ray.tilt_rad)]
            if mover.kind == "ground" and 0 <= point[0] <= GROUND_FAR_MM and abs(point[1]) <= GROUND_HALF_WIDTH_MM:
                areas.append(MotionArea("ground", u, v, amount, ray.pan_rad, ray.tilt_rad, (point[0], point[1])))
            for where, inside in (("left", u < BORDER * cam.width), ("right", u > (1 - BORDER) * cam.width),
                                  ("top", v < BORDER * cam.height)):
                if inside:
                    areas.append(MotionArea(where, u, v, 3.0, ray.pan_rad, ray.tilt_rad))
            areas.sort(key=lambda a: REGIONS.index(a.where))
            return MotionReport(tuple(areas), captured_at, robot_time_ms)
        return None


class SightFeed:
    """Gives a Vision what the simulator's camera would see, every ``interval_s`` of loop time.

    Faces go at the vision's face search rate; motion while the simulated robot holds still
    (head within 0.1°, body within 0.1° and 0.5 mm since the previous look) and at most every
    ``motion_min_interval_s``. Where the robot believes it is (its RobotState) places the
    detections, as it places a real picture's; nothing is done while the room is empty and no
    face is being followed.
    """

    def __init__(self, sim: Any, vision: Any, robot: Any, *, interval_s: float = 0.1,
                 motion_min_interval_s: float = 0.5) -> None:
        self.sim, self.vision, self.robot = sim, vision, robot
        self.sight = RoomSight(sim.room, vision.config.camera)
        self.interval_s = interval_s
        self.motion_min_interval_s = motion_min_interval_s
        self.looks = 0
        self._timer: asyncio.TimerHandle | None = None
        self._last_faces: float | None = None
        self._last_motion: float | None = None
        self._previous: tuple[float, ...] | None = None
        self._image_id = 0

    def start(self) -> SightFeed:
        """Start looking: a look every ``interval_s`` on the running loop, from a timer that sets
        the next (no task: ten looks a simulated second for hours)."""
        loop = asyncio.get_running_loop()

        def look() -> None:
            self._timer = loop.call_later(self.interval_s, look)
            try:
                self.look(loop.time())
            except Exception:  # a bad look must not end the feed
                log.exception("sim: the simulated sight failed")

        self._timer = loop.call_later(self.interval_s, look)
        return self

    async def stop(self) -> None:
        """Stop looking."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def look(self, now: float) -> None:
        """One look at the room: faces when due, motion when due and the robot is still."""
        body = self.sim.body
        pose = (body.x_mm, body.y_mm, 0.0, body.angle_rad)
        head = body.head.position
        view = (head, *pose)
        previous, self._previous = self._previous, view
        state: RobotStateSample | None = self.robot.state
        room = self.sim.room
        if state is None or not self.sim.connected:
            return
        every = self.vision.config.face_search_interval_s
        faces_due = self._last_faces is None or now - self._last_faces >= every - 1e-6
        faces_wanted = faces_due and (room.people or self.vision.tracker.tracks)
        motion = None
        if room.movers and previous is not None and _still(previous, view) and (
                self._last_motion is None or now - self._last_motion >= self.motion_min_interval_s):
            motion = self.sight.motion(pose, head, now, now, state.proprioception.robot_time_ms)
            if motion is not None:
                self._last_motion = now
        if not faces_wanted and motion is None:
            return
        boxes = None
        if faces_wanted:
            self._last_faces = now
            boxes = self.sight.faces(pose, head, now)
        self.looks += 1
        self._image_id += 1
        self.vision.on_sight(self._sample(state, now), boxes, motion)

    def _sample(self, state: RobotStateSample, now: float) -> ImageSample:
        p = state.proprioception
        cam = self.sight.camera
        return ImageSample(
            source="sight", image_id=self._image_id, robot_time_ms=p.robot_time_ms, captured_at=now, received_at=now,
            width=cam.width, height=cam.height, color=False, encoding="JPEG_MINIMIZED_GRAY", pixels=_EMPTY,
            gray=_EMPTY, jpeg=b"", head_angle_rad=p.head_angle_rad, pose=p.pose, state_robot_time_ms=p.robot_time_ms,
            camera=cam)


#: The motion detector's stillness limits, which the sight's motion keeps to as well.
_STILL = MotionConfig()


def _still(a: tuple[float, ...], b: tuple[float, ...], c: MotionConfig = _STILL) -> bool:
    """Head and body as still between two views (head, x, y, z, heading) as the motion detector asks."""
    turn = math.atan2(math.sin(b[4] - a[4]), math.cos(b[4] - a[4]))
    return (abs(b[0] - a[0]) < c.still_head_rad and abs(turn) < c.still_body_rad
            and math.hypot(b[1] - a[1], b[2] - a[2]) < c.still_body_mm)
