"""A camera frame as an image sample (BOW style), the robot's state at its capture, and decoding.

:class:`ImageSample` is what the rest of the system sees of a frame: the pixels, how they were
sent, when the frame was captured (robot clock and host clock) and where the camera looked at
that moment (head angle and body pose from the RobotState closest in robot time, kept by
:class:`StateHistory`). :func:`decode_frame` turns a :class:`~driver.vision.chunks.CompletedFrame`
into pixels; it is what the vision worker thread runs, so it holds no state and touches nothing
shared. It decodes with libjpeg-turbo (``simplejpeg``) in strict mode: a damaged scan raises
instead of decoding to a picture with grey bands, so a corrupt frame is counted and skipped.
"""

from __future__ import annotations

import bisect
from collections import deque
from dataclasses import dataclass, field

import cv2
import numpy as np
import simplejpeg

from ..protocol.table import ImageEncoding
from ..samples import PoseSample, RobotStateSample
from .chunks import CompletedFrame
from .geometry import CameraIntrinsics
from .jpeg import JpegError, rebuild_jpeg

__all__ = ["CorruptFrame", "DecodedFrame", "ImageSample", "StateHistory", "decode_frame", "locate", "make_sample"]


class CorruptFrame(ValueError):
    """A frame whose JPEG could not be rebuilt or decoded cleanly."""


@dataclass(frozen=True, slots=True, eq=False)
class DecodedFrame:
    """Pixels of one frame: grey (H×W) or colour (H×W×3, RGB), widened to the full size."""

    pixels: np.ndarray
    gray: np.ndarray
    jpeg: bytes
    color: bool


def decode_frame(frame: CompletedFrame) -> DecodedFrame:
    """Rebuild and decode a frame; raises :class:`CorruptFrame` when it does not decode cleanly.

    Colour frames arrive half width (Y sampled 2×1) and are widened back with bilinear
    interpolation, as Anki's engine did. ``gray`` is always the luminance (for detectors).
    """
    try:
        jpeg, color = rebuild_jpeg(frame.payload, frame.width, frame.height)
        if color:
            half = simplejpeg.decode_jpeg(jpeg, colorspace="RGB")
            pixels = cv2.resize(half, (frame.width, frame.height), interpolation=cv2.INTER_LINEAR)
            gray = cv2.cvtColor(pixels, cv2.COLOR_RGB2GRAY)
        else:
            pixels = simplejpeg.decode_jpeg(jpeg, colorspace="GRAY")[:, :, 0]
            gray = pixels
    except (JpegError, ValueError) as exc:  # simplejpeg raises ValueError for damaged data
        raise CorruptFrame(f"image {frame.image_id}: {exc}") from exc
    expected = (frame.height, frame.width)
    if pixels.shape[:2] != expected:
        raise CorruptFrame(f"image {frame.image_id}: decoded {pixels.shape[1]}x{pixels.shape[0]}, "
                           f"expected {frame.width}x{frame.height}")
    return DecodedFrame(pixels, gray, jpeg, color)


@dataclass(frozen=True, slots=True, eq=False)
class ImageSample:
    """One camera frame, in the style of the BOW data model's ImageSample.

    ``robot_time_ms`` is the robot's clock at capture (the frame's own timestamp, or the
    closest RobotState's when the firmware sent none); ``captured_at`` is the same instant on
    the host's monotonic clock (s), estimated through that RobotState; ``received_at`` is when
    the frame's last chunk arrived. ``head_angle_rad`` and ``pose`` are from the RobotState
    closest in robot time (``state_robot_time_ms``); both are None before the first RobotState.
    """

    source: str
    image_id: int
    robot_time_ms: int
    captured_at: float
    received_at: float
    width: int
    height: int
    color: bool
    #: the wire encoding (ImageEncoding name); colour frames still say JPEG_MINIMIZED_GRAY
    encoding: str
    pixels: np.ndarray = field(repr=False)
    gray: np.ndarray = field(repr=False)
    jpeg: bytes = field(repr=False)
    head_angle_rad: float | None
    pose: PoseSample | None
    state_robot_time_ms: int | None
    camera: CameraIntrinsics

    @property
    def image_type(self) -> str:
        """``RGB`` or ``GRAY`` (BOW's ImageTypeEnum names)."""
        return "RGB" if self.color else "GRAY"

    @property
    def data_shape(self) -> tuple[int, ...]:
        """Dimensions of ``pixels`` (BOW's DataShape)."""
        return tuple(self.pixels.shape)

    @property
    def hfov_deg(self) -> float:
        """Horizontal field of view (degrees)."""
        return self.camera.hfov_deg

    @property
    def vfov_deg(self) -> float:
        """Vertical field of view (degrees)."""
        return self.camera.vfov_deg


def encoding_name(encoding: int) -> str:
    """The ImageEncoding name of a wire value (the number itself when unknown)."""
    try:
        return ImageEncoding(encoding).name
    except ValueError:
        return str(encoding)


class StateHistory:
    """The last few seconds of RobotState samples, searchable by robot time.

    Frames are captured some tens of milliseconds before they arrive, while the head and body
    keep moving; the state closest to the capture time says where the camera looked. A robot
    clock that runs backwards (a reconnect, a reboot) clears the history.
    """

    def __init__(self, maxlen: int = 100) -> None:
        self._states: deque[RobotStateSample] = deque(maxlen=maxlen)
        self._times: deque[int] = deque(maxlen=maxlen)

    def __len__(self) -> int:
        return len(self._states)

    def clear(self) -> None:
        """Forget every state."""
        self._states.clear()
        self._times.clear()

    def add(self, state: RobotStateSample) -> None:
        """Remember a state (in arrival order)."""
        t = state.proprioception.robot_time_ms
        if self._times and t < self._times[-1]:
            self.clear()
        self._states.append(state)
        self._times.append(t)

    def latest(self) -> RobotStateSample | None:
        """The newest state, if any."""
        return self._states[-1] if self._states else None

    def closest(self, robot_time_ms: int) -> RobotStateSample | None:
        """The state whose robot time is closest to ``robot_time_ms`` (None when empty)."""
        if not self._states:
            return None
        i = bisect.bisect_left(self._times, robot_time_ms)
        if i == 0:
            return self._states[0]
        if i >= len(self._times):
            return self._states[-1]
        before, after = self._times[i - 1], self._times[i]
        return self._states[i] if after - robot_time_ms < robot_time_ms - before else self._states[i - 1]

    def since(self, robot_time_ms: int) -> list[RobotStateSample]:
        """The states at or after ``robot_time_ms`` (robot clock), oldest first."""
        i = bisect.bisect_left(self._times, robot_time_ms)
        return [self._states[j] for j in range(i, len(self._states))]

    def closest_host(self, host_time: float) -> RobotStateSample | None:
        """The state that arrived closest to host time ``host_time`` (for frames without a timestamp)."""
        if not self._states:
            return None
        return min(self._states, key=lambda s: abs(s.received_at - host_time))


def locate(frame: CompletedFrame, history: StateHistory) -> tuple[int, RobotStateSample | None]:
    """The frame's capture time on the robot's clock and the RobotState closest to it.

    A frame without a timestamp (firmware that sends none) takes the state that arrived closest
    to its first chunk. Runs where the history is written (the event loop), never in a worker.
    """
    if frame.robot_time_ms:
        return frame.robot_time_ms, history.closest(frame.robot_time_ms)
    state = history.closest_host(frame.first_received_at)
    return (state.proprioception.robot_time_ms if state is not None else 0), state


def make_sample(frame: CompletedFrame, decoded: DecodedFrame, robot_time_ms: int, state: RobotStateSample | None,
                camera: CameraIntrinsics, source: str = "camera") -> ImageSample:
    """An :class:`ImageSample` for a decoded frame, placed in time and space by ``state``
    (from :func:`locate`); ``camera`` is scaled to the frame's size when it differs."""
    if state is not None:
        p = state.proprioception
        captured_at = p.received_at - (p.robot_time_ms - robot_time_ms) / 1000.0
        head, pose, state_time = p.head_angle_rad, p.pose, p.robot_time_ms
    else:
        captured_at, head, pose, state_time = frame.first_received_at, None, None, None
    if camera.width != frame.width or camera.height != frame.height:
        camera = camera.scaled(frame.width, frame.height)
    return ImageSample(
        source=source, image_id=frame.image_id, robot_time_ms=robot_time_ms, captured_at=captured_at,
        received_at=frame.received_at, width=frame.width, height=frame.height, color=decoded.color,
        encoding=encoding_name(frame.encoding), pixels=decoded.pixels, gray=decoded.gray, jpeg=decoded.jpeg,
        head_angle_rad=head, pose=pose, state_robot_time_ms=state_time, camera=camera,
    )
