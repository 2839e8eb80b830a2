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

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

#: Where each name lives: importing the package (say for :mod:`.geometry`, which the brain's
#: nodes use) must not load OpenCV and the JPEG codec into a daemon that runs without vision.
_HOMES = {"ChunkReassembler": "chunks", "CompletedFrame": "chunks", "DropReason": "chunks",
          "CameraIntrinsics": "geometry", "Vision": "pipeline", "VisionConfig": "pipeline",
          "VisionStats": "pipeline", "ImageSample": "sample"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{home}", __name__), name)
