"""The robot's eyes: the camera's stream into a vision pipeline, its events back to the robot.

:class:`RobotVision` is mixed into :class:`driver.robot.Robot`. The camera's ImageChunk messages
and the RobotState samples reach a :class:`driver.vision.Vision` through a message listener, and
its face and motion events come back through the robot's ``_emit`` like every other robot event.
Nothing else in the Robot knows about vision; ``driver.vision`` (OpenCV, dlib) is imported only
when it is started.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import events as ev
from .connection import RobotError
from .protocol import messages as m

if TYPE_CHECKING:
    from .samples import RobotStateSample
    from .vision import Vision, VisionConfig
    from .vision.faces import FaceDetector

__all__ = ["RobotVision"]

log = logging.getLogger("driver.robot")


class RobotVision:
    """Vision of a :class:`~driver.robot.Robot` (a mixin: the robot provides the rest)."""

    name: str
    state: RobotStateSample | None
    _vision_unhook: tuple[Callable[[], None], ...]

    if TYPE_CHECKING:
        @property
        def connected(self) -> bool: ...  # noqa: D102
        def enable_camera(self, enable: bool = True, color: bool = False) -> None: ...  # noqa: D102
        def add_message_listener(self, listener: Callable[[Any], None]) -> Callable[[], None]: ...  # noqa: D102
        def add_listener(self, listener: Callable[[Any], None]) -> Callable[[], None]: ...  # noqa: D102
        def _now(self) -> float: ...
        def _emit(self, event: Any) -> None: ...


    vision: Vision | None = None
    _vision_camera = True

    def start_vision(self, config: VisionConfig | None = None, *, color: bool = False,
                     camera: bool = True, face_detector: FaceDetector | None | str = "config") -> Vision:
        """Stream the camera (QVGA, grey or colour) into a vision pipeline whose events
        (face_seen, face_moved, face_lost, face_glimpsed, motion_seen) reach this Robot's listeners.

        May be called before :meth:`connect`: the camera is switched on once connected, and again
        after every reconnection (a robot that rebooted has it off). With ``camera=False`` the
        camera stays off and the pipeline is fed otherwise (:meth:`driver.vision.Vision.on_sight`).
        ``face_detector`` hands the pipeline a detector already loaded (a stopped pipeline's: dlib's
        takes half a second to build, holding the interpreter all along); by default the config's
        detector is loaded."""
        from .vision import Vision

        if self.vision is not None:
            raise RobotError("vision is already running; stop_vision() first")
        vision = Vision(config, emit=self._emit, name=self.name, face_detector=face_detector if camera else None)
        self._vision_camera = camera

        def route(msg: Any) -> None:
            try:
                if isinstance(msg, m.ImageChunk):
                    vision.on_chunk(msg, self._now())
                elif isinstance(msg, m.RobotState) and self.state is not None:
                    vision.on_state(self.state)
            except Exception:  # never out into the receive path
                log.exception("%s: vision could not take %s", self.name, type(msg).__name__)

        def on_event(event: ev.RobotEvent) -> None:
            if isinstance(event, (ev.RobotLost, ev.Reconnected)):
                vision.reset()  # no half frame across the gap; the robot's clock starts again
            if camera and isinstance(event, (ev.Connected, ev.Reconnected)):
                self.enable_camera(True, color)

        self._vision_unhook = (self.add_message_listener(route), self.add_listener(on_event))
        self.vision = vision
        if camera and self.connected:
            self.enable_camera(True, color)
        return vision

    async def stop_vision(self) -> None:
        """Stop the camera stream (while connected) and the vision pipeline."""
        vision, self.vision = self.vision, None
        if vision is None:
            return
        for unhook in self._vision_unhook:
            unhook()
        if self._vision_camera and self.connected:
            self.enable_camera(False)
        await vision.close()

