"""The simulated robot's camera: a pinhole camera in the head, drawing the room and what is in it.

Geometry is Cozmo's, from :mod:`driver.hardware` (the same numbers vision uses to turn pixels
back into directions): the head pivots at ``NECK_MM`` from the robot origin, the camera sits at
``CAMERA_IN_HEAD_MM`` from the pivot and tilts with the head angle (positive = up), and its
intrinsics are a typical Cozmo's at QVGA (``QVGA``), lens distortion left out (other
resolutions scale these). World frame: x forward and y left of where the robot
started, z up, millimetres; image: u to the right, v down.

The room is a 4 m × 4 m box with a wooden floor, painted walls with a skirting board, a door
and a window, lit by a ceiling lamp and some ambient light; the lens darkens the corners and the
sensor adds shot and read noise. The room only changes with the camera's pose, so its shading is
cached while the robot keeps still. People are their photographs on upright cards facing the
camera (the head-and-shoulders cut-out keeps them from looking like posters); moving things are
shaded balls. Everything is numpy and OpenCV on a QVGA frame: a few milliseconds a frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from ..hardware import CAMERA_IN_HEAD_MM, NECK_MM, QVGA, CameraIntrinsics
from .room import Drawable, Photo, PhotoLibrary

ROOM_HALF_MM = 2000.0
CEILING_MM = 2400.0
LAMP_MM = (300.0, -200.0, 2350.0)


@dataclass(frozen=True)
class CameraPose:
    """Where the camera is (mm, world frame) and where it looks (heading and tilt, radians)."""

    x_mm: float
    y_mm: float
    z_mm: float
    heading_rad: float
    tilt_rad: float

    @staticmethod
    def from_robot(x_mm: float, y_mm: float, heading_rad: float, head_rad: float, *, z_mm: float = 0.0,
                   pitch_rad: float = 0.0) -> CameraPose:
        """The camera of a robot at (x, y, heading) with its head at ``head_rad`` (body pitch adds to the tilt)."""
        tilt = head_rad + pitch_rad
        fwd, _, up = CAMERA_IN_HEAD_MM
        dx = NECK_MM[0] + fwd * math.cos(tilt) - up * math.sin(tilt)
        dz = NECK_MM[2] + fwd * math.sin(tilt) + up * math.cos(tilt)
        c, s = math.cos(heading_rad), math.sin(heading_rad)
        return CameraPose(x_mm + dx * c, y_mm + dx * s, z_mm + dz, heading_rad, tilt)

    def basis(self) -> np.ndarray:
        """Rows: the camera's right, down and forward directions in the world frame."""
        ch, sh = math.cos(self.heading_rad), math.sin(self.heading_rad)
        ct, st = math.cos(self.tilt_rad), math.sin(self.tilt_rad)
        return np.array([[sh, -ch, 0.0], [st * ch, st * sh, -ct], [ct * ch, ct * sh, st]])

    def key(self) -> tuple[float, ...]:
        """Rounded pose, to reuse the room's shading while the camera keeps still."""
        return (round(self.x_mm, 1), round(self.y_mm, 1), round(self.z_mm, 1),
                round(self.heading_rad, 4), round(self.tilt_rad, 4))


def project(pose: CameraPose, intr: CameraIntrinsics, point: tuple[float, float, float]) -> tuple[float, float, float]:
    """Room point → (u, v, depth mm); depth ≤ 0 means behind the camera."""
    d = np.array(point) - (pose.x_mm, pose.y_mm, pose.z_mm)
    xr, yd, zf = pose.basis() @ d
    if zf <= 1e-6:
        return (math.nan, math.nan, float(zf))
    return (intr.cx + intr.fx * xr / zf, intr.cy + intr.fy * yd / zf, float(zf))


#: Surface colours (linear RGB albedo): floor boards, wall paint, skirting, door, window, ceiling.
_PALETTE = np.array([
    [0.62, 0.45, 0.30],
    [0.82, 0.80, 0.74],
    [0.92, 0.92, 0.90],
    [0.42, 0.30, 0.22],
    [0.95, 0.97, 1.00],
    [0.88, 0.88, 0.86],
], dtype=np.float32)
_LUMA = np.array([0.299, 0.587, 0.114], dtype=np.float32)
_FLOOR, _WALL, _SKIRTING, _DOOR, _WINDOW, _CEILING = range(6)


class Renderer:
    """Draws frames for one resolution; keeps the room's shading for the last pose and a noise bank."""

    def __init__(self, intrinsics: CameraIntrinsics = QVGA, *, seed: int = 0, noise: bool = True) -> None:
        self.intr = intrinsics
        self.noise = noise
        self._rng = np.random.default_rng(seed)
        w, h = intrinsics.width, intrinsics.height
        # The room is shaded at half resolution (pixel centres of 2×2 blocks) and scaled up: it is
        # smooth, and that is a quarter of the work whenever the robot moves.
        self._room_size = (max(w // 2, 1), max(h // 2, 1))
        scale = w / self._room_size[0]
        u, v = np.meshgrid((np.arange(self._room_size[0], dtype=np.float32) + 0.5) * scale - 0.5,
                           (np.arange(self._room_size[1], dtype=np.float32) + 0.5) * (h / self._room_size[1]) - 0.5)
        self._rays = np.stack(((u - intrinsics.cx) / intrinsics.fx, (v - intrinsics.cy) / intrinsics.fy,
                               np.ones_like(u)), axis=-1).reshape(-1, 3)
        uf, vf = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        tan2 = ((uf - intrinsics.cx) / intrinsics.fx) ** 2 + ((vf - intrinsics.cy) / intrinsics.fy) ** 2
        cos_a = 1.0 / np.sqrt(1.0 + tan2)
        self._vignette = (0.45 + 0.55 * cos_a ** 4).astype(np.float32)
        self._room_key: tuple[float, ...] | None = None
        self._room_rgb: np.ndarray | None = None
        self._noise_bank: dict[int, np.ndarray] = {}

    def render(self, pose: CameraPose, things: tuple[Drawable, ...], photos: PhotoLibrary, *,
               colour: bool) -> np.ndarray:
        """One frame: H×W×3 RGB uint8 when ``colour``, else H×W grey uint8."""
        img = self._room(pose).copy()
        ordered = sorted(things, key=lambda t: -project(pose, self.intr, t.position)[2])
        for thing in ordered:
            if thing.kind == "photo":
                photo = photos.get(thing.photo)
                if photo is not None:
                    self._draw_photo(img, pose, thing, photo)
            elif thing.kind == "ball":
                self._draw_ball(img, pose, thing)
        if not colour:
            img = img @ _LUMA
        return self._expose(img)

    # ------------------------------------------------------------------ the room

    def _room(self, pose: CameraPose) -> np.ndarray:
        key = pose.key()
        if self._room_key != key or self._room_rgb is None:
            self._room_rgb = self._shade_room(pose)
            self._room_key = key
        return self._room_rgb

    def _shade_room(self, pose: CameraPose) -> np.ndarray:
        """Cast one ray per pixel into the box room; returns linear RGB (H, W, 3) float32."""
        dirs = self._rays @ pose.basis().astype(np.float32)  # (N, 3) world directions
        origin = np.array([pose.x_mm, pose.y_mm, pose.z_mm], dtype=np.float32)
        with np.errstate(divide="ignore", invalid="ignore"):
            tz = np.where(dirs[:, 2] < 0, -origin[2] / dirs[:, 2],
                          np.where(dirs[:, 2] > 0, (CEILING_MM - origin[2]) / dirs[:, 2], np.inf))
            tx = np.where(dirs[:, 0] != 0, (np.sign(dirs[:, 0]) * ROOM_HALF_MM - origin[0]) / dirs[:, 0], np.inf)
            ty = np.where(dirs[:, 1] != 0, (np.sign(dirs[:, 1]) * ROOM_HALF_MM - origin[1]) / dirs[:, 1], np.inf)
        t = np.minimum(np.minimum(tx, ty), tz)
        hit = origin + dirs * t[:, None]
        hx, hy, hz = hit[:, 0], hit[:, 1], hit[:, 2]
        on_floor = (tz <= tx) & (tz <= ty) & (dirs[:, 2] < 0)
        on_ceiling = (tz <= tx) & (tz <= ty) & (dirs[:, 2] > 0)
        on_xwall = ~on_floor & ~on_ceiling & (tx <= ty)
        surface = np.full(t.shape, _WALL, dtype=np.int32)
        surface[on_floor] = _FLOOR
        surface[on_ceiling] = _CEILING
        along = np.where(on_xwall, hy, hx)  # position along the wall
        wall = ~on_floor & ~on_ceiling
        surface[wall & (hz < 90.0)] = _SKIRTING
        door = wall & on_xwall & (hx > 0) & (np.abs(along - 600.0) < 450.0) & (hz < 2050.0)
        surface[door] = _DOOR
        window = wall & ~on_xwall & (hy > 0) & (np.abs(along + 300.0) < 700.0) & (hz > 900.0) & (hz < 2000.0)
        surface[window] = _WINDOW
        # Texture: floor boards 120 mm wide with grain and dark seams; a faint pattern on the walls.
        board = np.floor(hy / 120.0)
        grain = 0.9 + 0.12 * np.sin(board * 12.9898) + 0.05 * np.sin(hx / 37.0 + board * 3.1)
        seam = np.abs(hy / 120.0 - np.round(hy / 120.0)) < 0.04
        tex = np.where(on_floor, grain * np.where(seam, 0.6, 1.0), 1.0 + 0.03 * np.sin(along / 23.0) * wall)
        # Light: a ceiling lamp (inverse square, cosine) plus ambient; the window glows by itself.
        lx, ly, lz = LAMP_MM
        to_lamp = np.stack((lx - hx, ly - hy, lz - hz), axis=1)
        dist2 = np.maximum(np.einsum("ij,ij->i", to_lamp, to_lamp), 1.0)
        normal_dot = np.where(on_floor, to_lamp[:, 2],
                              np.where(on_ceiling, 0.0,
                                       np.where(on_xwall, -np.sign(hx) * to_lamp[:, 0],
                                                -np.sign(hy) * to_lamp[:, 1])))
        lamp = np.clip(normal_dot, 0.0, None) / np.sqrt(dist2) * (2200.0 ** 2) / dist2
        light = 0.35 + 0.9 * lamp
        light = np.where(surface == _WINDOW, 1.6, light).astype(np.float32)
        shade = (tex * light).astype(np.float32)
        rw, rh = self._room_size
        rgb = (_PALETTE[surface] * shade[:, None]).reshape(rh, rw, 3)
        rgb = cv2.resize(rgb, (self.intr.width, self.intr.height), interpolation=cv2.INTER_LINEAR)
        return (rgb * self._vignette[:, :, None]).astype(np.float32)

    # ------------------------------------------------------------------ people and things

    def _draw_photo(self, img: np.ndarray, pose: CameraPose, thing: Drawable, photo: Photo) -> None:
        """Paste a person's photo on an upright card through their face point, turned to the camera."""
        px, py, pz = thing.position
        nx, ny = pose.x_mm - px, pose.y_mm - py
        norm = math.hypot(nx, ny)
        if norm < 1.0:
            return
        right = (-ny / norm, nx / norm)  # the card's left-to-right, as the camera sees it
        s = photo.mm_per_px
        fx0, fy0 = photo.face
        h, w = photo.rgb.shape[:2]
        src, dst = [], []
        for cu, cv_ in ((0.0, 0.0), (w, 0.0), (w, h), (0.0, h)):
            wx = px + (cu - fx0) * s * right[0]
            wy = py + (cu - fx0) * s * right[1]
            wz = pz - (cv_ - fy0) * s
            u, v, depth = project(pose, self.intr, (wx, wy, wz))
            if not depth > 30.0:
                return  # (part of) the card is behind the camera
            src.append((cu, cv_))
            dst.append((u, v))
        shade = self._light_at(px, py, pz)
        corners = (np.array(src, dtype=np.float32), np.array(dst, dtype=np.float32))
        self._paste(img, *corners, photo.rgb.astype(np.float32) / 255.0 * shade, photo.alpha)

    def _paste(self, img: np.ndarray, src: np.ndarray, dst: np.ndarray, rgb: np.ndarray, alpha: np.ndarray) -> None:
        """Warp ``rgb`` (with ``alpha``) from ``src`` corners to ``dst`` corners, over the image's visible part."""
        hh, ww = img.shape[:2]
        x0, y0 = max(int(math.floor(dst[:, 0].min())), 0), max(int(math.floor(dst[:, 1].min())), 0)
        x1, y1 = min(int(math.ceil(dst[:, 0].max())) + 1, ww), min(int(math.ceil(dst[:, 1].max())) + 1, hh)
        if x1 <= x0 or y1 <= y0:
            return
        m = cv2.getPerspectiveTransform(src, dst - np.array([x0, y0], dtype=np.float32))
        size = (x1 - x0, y1 - y0)
        warped = cv2.warpPerspective(rgb, m, size, flags=cv2.INTER_AREA if size[0] < rgb.shape[1] else cv2.INTER_LINEAR)
        a = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_LINEAR)[:, :, None]
        region = img[y0:y1, x0:x1]
        region *= 1.0 - a
        region += warped * a

    def _draw_ball(self, img: np.ndarray, pose: CameraPose, thing: Drawable) -> None:
        u, v, depth = project(pose, self.intr, thing.position)
        if not depth > 30.0:
            return
        r = self.intr.fx * thing.radius_mm / depth
        hh, ww = img.shape[:2]
        x0, x1 = max(int(u - r) - 1, 0), min(int(u + r) + 2, ww)
        y0, y1 = max(int(v - r) - 1, 0), min(int(v + r) + 2, hh)
        if x1 <= x0 or y1 <= y0 or r < 0.5:
            return
        ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        d2 = ((xs - u) ** 2 + (ys - v) ** 2) / (r * r)
        cover = np.clip((1.0 - d2) * r, 0.0, 1.0)[:, :, None]  # soft edge about a pixel wide
        bulge = np.sqrt(np.clip(1.0 - d2, 0.0, 1.0))
        lit = (0.35 + 0.75 * bulge * np.clip(1.0 - 0.5 * (ys - v + 0.5 * r) / r, 0.2, 1.0))[:, :, None]
        colour = np.array(thing.colour, dtype=np.float32) * self._light_at(*thing.position)
        region = img[y0:y1, x0:x1]
        region *= 1.0 - cover
        region += (colour * lit) * cover

    def _light_at(self, x: float, y: float, z: float) -> float:
        """How brightly the lamp and the room light a thing at (x, y, z) facing the room."""
        lx, ly, lz = LAMP_MM
        d = math.dist((x, y, z), (lx, ly, lz))
        return 0.55 + 0.5 * min(1.0, (2200.0 / d) ** 2)

    # ------------------------------------------------------------------ the sensor

    def _expose(self, linear: np.ndarray) -> np.ndarray:
        """Linear light → 8-bit pixels: exposure, gamma, shot and read noise, clipping."""
        signal = np.sqrt(np.clip(linear, 0.0, None)) * 205.0  # gamma 2 and a mid-grey exposure
        if self.noise:
            bank = self._noise_for(signal.size)
            offset = int(self._rng.integers(0, bank.size - signal.size))
            n = bank[offset:offset + signal.size].reshape(signal.shape)
            signal = signal + n * np.sqrt(2.0 + 0.04 * signal)
        return np.clip(signal + 0.5, 0, 255).astype(np.uint8)

    def _noise_for(self, size: int) -> np.ndarray:
        """Standard normal samples for one frame, cut at a random place out of a bank twice its size."""
        bank = self._noise_bank.get(size)
        if bank is None:
            bank = self._rng.standard_normal(size * 2, dtype=np.float32)
            self._noise_bank[size] = bank
        return bank


__all__ = ["QVGA", "CameraPose", "Renderer", "project"]
