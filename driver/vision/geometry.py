"""Where a pixel looks: camera intrinsics, the head's geometry, rays, faces' distance, the ground.

Every detection must become a direction in the world, because the robot turns its head and
body towards what it saw, and by then the picture is old. So each frame keeps the head angle and
the body pose of its capture time, and a pixel turns into a ray in the robot's frame (x forward,
y left, z up, origin between the wheels on the ground) with the camera's pinhole model and the
head's geometry:

* intrinsics: :class:`~driver.hardware.CameraIntrinsics`, a typical Cozmo's at QVGA unless a
  robot's own factory calibration is given, scaled to other resolutions;
* head: it pivots at :data:`~driver.hardware.NECK_MM` from the robot's origin; the camera sits
  :data:`~driver.hardware.CAMERA_IN_HEAD_MM` from the pivot in the head's frame and tilts with
  the head angle (positive = up).

A face's distance follows Anki's engine: faces are about 62 mm between the eyes, and without eye
landmarks the eyes sit at ±¼ of the face box's width, so the box is taken as 124 mm wide.
Pure: numbers in, numbers out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..hardware import CAMERA_IN_HEAD_MM, NECK_MM, CameraIntrinsics

__all__ = [
    "CAMERA_IN_HEAD_MM",
    "FACE_WIDTH_MM",
    "NECK_MM",
    "CameraIntrinsics",
    "Ray",
    "camera_position",
    "face_distance_mm",
    "ground_region",
    "pixel_ray",
    "project",
    "to_robot",
    "to_world",
    "view_shift",
]

#: Width of a face box (mm): twice the assumed 62 mm between the eyes (Anki's engine).
FACE_WIDTH_MM = 124.0


@dataclass(frozen=True, slots=True)
class Ray:
    """A ray from the camera in the robot frame: origin (mm), unit direction, and its angles.

    ``pan_rad`` is left of the body's heading (positive = left), ``tilt_rad`` above the horizontal
    (positive = up); turning the body by ``pan_rad`` and the head to ``tilt_rad`` looks along it
    (up to the camera's small offset from the neck).
    """

    origin_mm: tuple[float, float, float]
    direction: tuple[float, float, float]

    @property
    def pan_rad(self) -> float:
        """Angle left of the body's heading."""
        return math.atan2(self.direction[1], self.direction[0])

    @property
    def tilt_rad(self) -> float:
        """Angle above the horizontal."""
        return math.atan2(self.direction[2], math.hypot(self.direction[0], self.direction[1]))

    def point(self, distance_mm: float) -> tuple[float, float, float]:
        """The point ``distance_mm`` along the ray (robot frame, mm)."""
        o, d = self.origin_mm, self.direction
        return (o[0] + d[0] * distance_mm, o[1] + d[1] * distance_mm, o[2] + d[2] * distance_mm)

    def ground_point(self) -> tuple[float, float] | None:
        """Where the ray meets the floor (x, y in mm, robot frame); None when it points up."""
        if self.direction[2] >= -1e-9:
            return None
        t = -self.origin_mm[2] / self.direction[2]
        return (self.origin_mm[0] + self.direction[0] * t, self.origin_mm[1] + self.direction[1] * t)


def camera_position(head_angle_rad: float) -> tuple[float, float, float]:
    """The camera's position (mm, robot frame) at a head angle."""
    c, s = math.cos(head_angle_rad), math.sin(head_angle_rad)
    hx, _, hz = CAMERA_IN_HEAD_MM
    return (NECK_MM[0] + hx * c - hz * s, 0.0, NECK_MM[2] + hx * s + hz * c)


def pixel_ray(u: float, v: float, head_angle_rad: float, camera: CameraIntrinsics) -> Ray:
    """The ray through pixel (u, v) (x right, y down, in ``camera``'s image) at a head angle."""
    # camera frame, x forward, y left, z up: K^-1 (u, v, 1) with the image axes flipped
    x, y, z = 1.0, -(u - camera.cx) / camera.fx, -(v - camera.cy) / camera.fy
    c, s = math.cos(head_angle_rad), math.sin(head_angle_rad)
    x, z = x * c - z * s, x * s + z * c  # pitch up by the head angle
    n = math.sqrt(x * x + y * y + z * z)
    return Ray(camera_position(head_angle_rad), (x / n, y / n, z / n))


def view_shift(camera: CameraIntrinsics, before: tuple[float, float],
               after: tuple[float, float]) -> tuple[float, float]:
    """How far (dx, dy px) still things move in the picture between two viewpoints.

    A viewpoint is (head angle, body heading) in radians. Turning left moves the picture right,
    raising the head moves it down (exact at the optical centre, close enough near it).
    """
    return (camera.fx * math.tan(after[1] - before[1]), camera.fy * math.tan(after[0] - before[0]))


def face_distance_mm(box_width_px: float, camera: CameraIntrinsics, face_width_mm: float = FACE_WIDTH_MM) -> float:
    """Distance (mm) to a face whose box is ``box_width_px`` wide (pinhole model)."""
    return camera.fx * face_width_mm / max(box_width_px, 1.0)


def to_world(point_mm: tuple[float, float, float], pose_x_mm: float, pose_y_mm: float, pose_z_mm: float,
             pose_angle_rad: float) -> tuple[float, float, float]:
    """A point in the robot frame → the world frame of the robot's pose (heading about z)."""
    c, s = math.cos(pose_angle_rad), math.sin(pose_angle_rad)
    x, y, z = point_mm
    return (pose_x_mm + c * x - s * y, pose_y_mm + s * x + c * y, pose_z_mm + z)


def project(point_mm: tuple[float, float, float], head_angle_rad: float,
            camera: CameraIntrinsics) -> tuple[float, float, float] | None:
    """Pixel (u, v) and depth (mm) of a point in the robot frame, seen at a head angle; None behind the camera.

    The inverse of :func:`pixel_ray`.
    """
    ox, oy, oz = camera_position(head_angle_rad)
    dx, dy, dz = point_mm[0] - ox, point_mm[1] - oy, point_mm[2] - oz
    c, s = math.cos(head_angle_rad), math.sin(head_angle_rad)
    depth = dx * c + dz * s
    if depth <= 1.0:
        return None
    up = -dx * s + dz * c
    return camera.cx - camera.fx * dy / depth, camera.cy - camera.fy * up / depth, depth


def to_robot(point_mm: tuple[float, float, float],
             pose: tuple[float, float, float, float]) -> tuple[float, float, float]:
    """A world point in the frame of a robot at ``pose`` (x, y, z mm, heading rad): the inverse of :func:`to_world`."""
    x, y, z, angle = pose
    c, s = math.cos(angle), math.sin(angle)
    dx, dy = point_mm[0] - x, point_mm[1] - y
    return (c * dx + s * dy, -s * dx + c * dy, point_mm[2] - z)


@lru_cache(maxsize=16)
def ground_region(head_angle_deg: int, camera: CameraIntrinsics, width: int, height: int,
                  near_mm: float = 0.0, far_mm: float = 300.0, half_width_mm: float = 150.0) -> np.ndarray:
    """Boolean mask (height × width) of the pixels that see the floor in front of the robot.

    The floor patch is ``near_mm``..``far_mm`` ahead of the robot's origin and within
    ``half_width_mm`` to each side; the head angle comes in whole degrees so the masks can be
    cached. ``width`` × ``height`` may be smaller than the camera's image (a scaled copy).
    """
    cam = camera.scaled(width, height)
    theta = math.radians(head_angle_deg)
    us = np.arange(width, dtype=np.float64) + 0.5
    vs = np.arange(height, dtype=np.float64) + 0.5
    y = -(us[None, :] - cam.cx) / cam.fx           # (1, w): camera frame, x = 1 forward
    z = -(vs[:, None] - cam.cy) / cam.fy           # (h, 1)
    c, s = math.cos(theta), math.sin(theta)
    dx, dz = c - z * s, s + z * c                  # pitched up by the head angle; y is unchanged
    ox, _, oz = camera_position(theta)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(dz < -1e-9, -oz / dz, np.inf)  # along the ray to the floor, per row
    gx, gy = ox + dx * t, y * t                     # (h, 1) ahead and (h, w) to the left
    mask = np.isfinite(t) & (gx >= near_mm) & (gx <= far_mm) & (np.abs(gy) <= half_width_mm)
    mask.setflags(write=False)
    return mask
