"""The robot's camera: frames from ImageChunk messages, faces and motion in them.

* :mod:`~driver.vision.chunks`: ImageChunk reassembly, drops counted by reason (pure);
* :mod:`~driver.vision.jpeg`: the robot's header-less JPEG, rebuilt (and made, for tests) (pure);
* :mod:`~driver.vision.sample`: :class:`ImageSample`, the robot's state at capture, decoding;
* :mod:`~driver.vision.geometry`: intrinsics, head geometry, pixel → direction, face distance;
* :mod:`~driver.vision.faces`: face detectors and their loading;
* :mod:`~driver.vision.tracking`: face ids, smoothing, lost faces (pure);
* :mod:`~driver.vision.motion`: Anki-style motion detection;
* :mod:`~driver.vision.pipeline`: :class:`Vision`, the worker that ties them together.

``Robot.start_vision()`` feeds a :class:`Vision` from the robot's messages and sends its events
to the robot's listeners.
"""

from .chunks import ChunkReassembler, CompletedFrame, DropReason
from .geometry import CameraIntrinsics
from .pipeline import Vision, VisionConfig, VisionStats
from .sample import ImageSample

__all__ = [
    "CameraIntrinsics",
    "ChunkReassembler",
    "CompletedFrame",
    "DropReason",
    "ImageSample",
    "Vision",
    "VisionConfig",
    "VisionStats",
]
