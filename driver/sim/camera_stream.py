"""The simulated robot's camera stream: frames on the robot's clock while the camera is enabled.

Each frame is captured on the event loop (the robot's pose, head angle and the world frozen at
that instant, stamped with the robot's millisecond clock), drawn and JPEG-encoded on a worker
thread so the simulator's 30 ms state clock (and, in ``run --sim``, the brain sharing the loop)
keeps its timing, and sent back on the loop as an ImageImuData and the frame's ImageChunks.
When the worker is still busy with the previous frame at the next capture time, that frame is
skipped (counted), never queued: a late frame is worth less than a fresh one. Nothing is drawn
while the camera is off.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..protocol import messages as m
from ..protocol.table import ImageResolution, ImageSendMode
from .camera import QVGA, CameraPose, Renderer
from .jpeg import RESOLUTIONS, chunk_payload, encode_colour, encode_grey
from .room import Drawable, Room

log = logging.getLogger(__name__)

#: The robot streams about 15 frames a second (Anki's engine assumes 65 ms between frames).
FRAME_PERIOD_S = 1.0 / 15.0
#: Largest resolution drawn; bigger requests get QVGA (the robot's own engine only takes QVGA).
MAX_RESOLUTION = ImageResolution.VGA


@dataclass(frozen=True)
class Capture:
    """Everything one frame needs, frozen on the event loop at capture time."""

    image_id: int
    timestamp: int
    resolution: int
    colour: bool
    pose: CameraPose
    things: tuple[Drawable, ...]
    rates: tuple[float, float, float]


@dataclass(frozen=True)
class SentFrame:
    """A frame as drawn (before encoding) and what went out for it; kept for tests and tools."""

    image_id: int
    timestamp: int
    colour: bool
    image: np.ndarray
    pose: CameraPose
    payload_bytes: int
    chunks: int


#: What the robot is like at a capture: camera pose, robot clock (ms) and gyro rates; None = not streaming.
Sample = tuple[CameraPose, int, tuple[float, float, float]]
Sampler = Callable[[], Sample | None]


class CameraStream:
    """Renders and sends camera frames while ``mode`` is Stream (or once for SingleShot).

    Frames are captured on their own timer, every ``period_s`` (the sensor's cadence, not the
    30 ms state clock's). ``sample`` tells the robot's pose and clock at a capture (None while no
    engine is streaming); ``send`` takes a message for the engine. ``in_thread=False`` draws on
    the event loop's thread (deterministic, for virtual-time runs). ``recent`` keeps the last
    few frames as drawn.
    """

    def __init__(self, room: Room, send: Callable[[Any], None], sample: Sampler, *, seed: int = 0,
                 in_thread: bool = True, keep: int = 8, period_s: float = FRAME_PERIOD_S) -> None:
        self.room = room
        self.send = send
        self.sample = sample
        self.seed = seed
        self.in_thread = in_thread
        self.period_s = period_s
        self.mode = int(ImageSendMode.OFF)
        self.resolution = int(ImageResolution.QVGA)
        self.colour = False
        self.frames_sent = 0
        self.frames_skipped = 0
        self.recent: deque[SentFrame] = deque(maxlen=keep)
        self._next_id = 1
        self._due = 0.0
        self._timer: asyncio.Handle | None = None
        self._busy = False
        self._renderers: dict[int, Renderer] = {}
        self._pool: ThreadPoolExecutor | None = None

    @property
    def enabled(self) -> bool:
        """True while frames are due (Stream, or a SingleShot not yet taken)."""
        return self.mode in (ImageSendMode.STREAM, ImageSendMode.SINGLE_SHOT)

    def enable(self, mode: int, resolution: int) -> None:
        """EnableCamera: start (Stream), take one frame (SingleShot) or stop (Off)."""
        if int(resolution) not in RESOLUTIONS or int(resolution) > MAX_RESOLUTION:
            log.warning("sim: camera resolution %s is not simulated; sending QVGA", resolution)
            resolution = ImageResolution.QVGA
        was_on = self.enabled
        self.mode = int(mode)
        self.resolution = int(resolution)
        if self.enabled and not was_on:
            if self.in_thread:  # (drawn on the loop, frames wait for the loop: none is skipped)
                self.room.photos.warm(self.room.expected_photos)
            loop = asyncio.get_running_loop()
            self._due = loop.time()
            self._timer = loop.call_soon(self._tick)
        elif not self.enabled and self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _tick(self) -> None:
        """The sensor's clock: capture now and come back one frame period later."""
        self._timer = None
        if not self.enabled:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        self._due += self.period_s
        if self._due <= now:  # fell behind (a stalled loop): skip ahead, do not burst
            self._due = now + self.period_s
        self._timer = loop.call_at(self._due, self._tick)
        try:
            self._capture(now)
        except Exception:
            log.exception("sim: camera capture failed")

    def _capture(self, now: float) -> None:
        sample = self.sample()
        if sample is None:
            return
        pose, timestamp, rates = sample
        if self.mode == ImageSendMode.SINGLE_SHOT:
            self.mode = int(ImageSendMode.OFF)
        if self._busy:
            self.frames_skipped += 1
            return
        cap = Capture(self._next_id, timestamp, self.resolution, self.colour, pose, self.room.snapshot(now), rates)
        self._next_id = (self._next_id + 1) & 0xFFFFFFFF
        if not self.in_thread:
            self._deliver(cap, self._draw(cap))
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sim-camera")
        self._busy = True
        fut = asyncio.get_running_loop().run_in_executor(self._pool, self._draw, cap)
        fut.add_done_callback(lambda f: self._done(cap, f))

    def _done(self, cap: Capture, fut: asyncio.Future[tuple[np.ndarray, bytes]]) -> None:
        self._busy = False
        if fut.cancelled():
            return
        exc = fut.exception()
        if exc is not None:
            log.error("sim: camera frame %d failed: %r", cap.image_id, exc)
            return
        self._deliver(cap, fut.result())

    def _draw(self, cap: Capture) -> tuple[np.ndarray, bytes]:
        """Render and encode one frame (runs on the worker thread)."""
        renderer = self._renderers.get(cap.resolution)
        if renderer is None:
            w, h = RESOLUTIONS[cap.resolution]
            renderer = Renderer(QVGA.scaled(w, h), seed=self.seed + cap.resolution)
            self._renderers[cap.resolution] = renderer
        image = renderer.render(cap.pose, cap.things, self.room.photos, colour=cap.colour)
        payload = encode_colour(image) if cap.colour else encode_grey(image)
        return image, payload

    def _deliver(self, cap: Capture, result: tuple[np.ndarray, bytes]) -> None:
        image, payload = result
        chunks = chunk_payload(payload, image_id=cap.image_id, timestamp=cap.timestamp, resolution=cap.resolution)
        rx, ry, rz = cap.rates
        self.send(m.ImageImuData(image_id=cap.image_id, rate_x=rx, rate_y=ry, rate_z=rz, line_2_number=0))
        for chunk in chunks:
            self.send(chunk)
        self.frames_sent += 1
        self.recent.append(SentFrame(cap.image_id, cap.timestamp, cap.colour, image, cap.pose, len(payload),
                                     len(chunks)))

    def close(self) -> None:
        """Stop the clock and the worker (waiting for a frame being drawn, which is then dropped)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        self._busy = False


def camera_pose_of(body: Any) -> CameraPose:
    """The camera pose of a simulated :class:`~driver.sim.body.Body` as it is now."""
    return CameraPose.from_robot(body.x_mm, body.y_mm, body.angle_rad, body.head.position, z_mm=body.z_mm,
                                 pitch_rad=body.pitch_rad)


def gyro_rates_of(body: Any) -> tuple[float, float, float]:
    """Head-frame gyro rates (rad/s) while a frame is taken: the body's turn, and the head's tilt about y."""
    return (0.0, -float(body.head.velocity), float(body.gyro_z) if math.isfinite(body.gyro_z) else 0.0)


__all__ = ["FRAME_PERIOD_S", "CameraStream", "Capture", "Sample", "Sampler", "SentFrame", "camera_pose_of",
           "gyro_rates_of"]
