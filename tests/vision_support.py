"""Test material for the camera: real chunks from a robot, robot-style frames made from pictures.

Frames are made the way the robot makes them: a quality-50 baseline grey JPEG (Pillow writes
exactly the robot's tables), cut down to the payload with :func:`driver.vision.jpeg.minimize_jpeg`,
padded with 0xFF, and split into ImageChunk messages whose count and timestamp are filled only
on the last chunk, as real firmware does. Pictures of faces come from scikit-image's wheel
(``skimage.data.astronaut()``: Eileen Collins, NASA, public domain), never from the network.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from PIL import Image

from driver.protocol import messages as m
from driver.protocol.frame import decode_frame
from driver.vision.jpeg import minimize_jpeg

from .conftest import REPO

CONTROL_RUN = Path("cozmo-stack/re-analysis/acceptance/hardware/20260924-202748-CONTROL")


def real_data_dir() -> Path | None:
    """The shared real-robot data: ../shared/real_data beside the repository, else /work/shared/real_data."""
    for candidate in (REPO.parent / "shared" / "real_data", Path("/work/shared/real_data")):
        if candidate.is_dir():
            return candidate
    return None


def robot_messages(excerpt: str) -> list[tuple[float, Any]]:
    """(capture time in ms, decoded message) for every message the robot sent in a CONTROL excerpt.

    ``excerpt`` is ``CAMERA`` or ``ANIM``; skips the test when the real data is absent.
    """
    root = real_data_dir()
    path = None if root is None else root / CONTROL_RUN / f"frames.{excerpt}-excerpt.jsonl"
    if path is None or not path.is_file():
        pytest.skip(f"real camera chunks not found (looked for shared/real_data/{CONTROL_RUN}/frames.{excerpt}-"
                    "excerpt.jsonl beside the repository and under /work/shared)")
    out: list[tuple[float, Any]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["dir"] != "in":
            continue
        for msg in m.decode_packets(decode_frame(bytes.fromhex(record["hex"]))):
            out.append((float(record["t"]), msg))
    return out


def robot_payload(gray: np.ndarray, *, padding: int = 3) -> bytes:
    """The minimized payload the robot would send for a grey picture (quality 50, 0xFF padding)."""
    buf = io.BytesIO()
    Image.fromarray(gray).save(buf, "JPEG", quality=50, optimize=False)
    return minimize_jpeg(buf.getvalue()) + b"\xff" * padding


def chunk_messages(payload: bytes, image_id: int, frame_timestamp: int, *, size: int = 1080) -> list[Any]:
    """ImageChunk messages for a payload, as firmware sends them (count and time on the last only)."""
    parts = [payload[i:i + size] for i in range(0, len(payload), size)]
    last = len(parts) - 1
    return [m.ImageChunk(frame_timestamp=frame_timestamp if i == last else 0, image_id=image_id, status=2,
                         image_encoding=8, image_resolution=4, image_chunk_count=len(parts) if i == last else 0,
                         chunk_id=i, data=part) for i, part in enumerate(parts)]


def astronaut_face() -> np.ndarray:
    """A square grey crop around the astronaut's face (head and shoulders; the face fills about half)."""
    skdata = pytest.importorskip("skimage.data", reason="scikit-image (the test extra) ships the photographs")
    gray = cv2.cvtColor(skdata.astronaut(), cv2.COLOR_RGB2GRAY)
    return np.ascontiguousarray(gray[0:256, 100:356])


def scene(background: int = 90, *, faces: tuple[tuple[np.ndarray, int, int, int], ...] = (),
          seed: int | None = None, noise: float = 0.0) -> np.ndarray:
    """A 320×240 grey frame with pictures pasted at (x, y) with a side of ``size`` px; optional sensor noise."""
    frame = np.full((240, 320), background, np.uint8)
    for picture, x, y, size in faces:
        tile = cv2.resize(picture, (size, size), interpolation=cv2.INTER_AREA)
        x0, y0, x1, y1 = max(0, x), max(0, y), min(320, x + size), min(240, y + size)
        if x1 > x0 and y1 > y0:
            frame[y0:y1, x0:x1] = tile[y0 - y:y1 - y, x0 - x:x1 - x]
    if noise:
        rng = np.random.default_rng(seed)
        frame = np.clip(frame + rng.normal(0, noise, frame.shape), 0, 255).astype(np.uint8)
    return frame
