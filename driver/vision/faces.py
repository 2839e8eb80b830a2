"""Face detectors: what finds faces in a grey frame, and how one is loaded.

The default is dlib's HOG frontal-face detector (``dlib-bin`` wheels for x86-64 and aarch64; the
model is compiled into the library, so nothing is downloaded). Its scanning window is 80×80
pixels, so faces smaller than about 70 px are missed at the camera's own size; a frame is
therefore scaled up before a search (``search_scale``, 1.5 by default: faces down to about 50 px,
a person about 0.7 m away) and a face already known is looked for in a small crop scaled so the
face is about :data:`TRACK_FACE_PX` wide, which is far cheaper than a search (see
:func:`detect_in_region`). OpenCV 4.x's Haar cascade (``opencv_haar``) is the alternative where
that OpenCV is installed; OpenCV 5, which the project installs, ships neither the cascade files
nor ``CascadeClassifier``.

:func:`load_face_detector` reports a detector that cannot be loaded once, by name, and returns
None; the rest of the vision pipeline runs without it.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from ..cache_folder import default_cache_folder, write_whole

log = logging.getLogger(__name__)

__all__ = [
    "FACE_DETECTORS",
    "TRACK_FACE_PX",
    "Box",
    "DlibHogDetector",
    "FaceDetector",
    "OpenCvHaarDetector",
    "detect_in_region",
    "load_face_detector",
]

#: Width (px) a tracked face is scaled to in its crop: comfortably above the HOG window's 80 px face.
TRACK_FACE_PX = 84.0


@dataclass(frozen=True, slots=True)
class Box:
    """A detection's box in image pixels (top-left x, y; width, height) and the detector's score."""

    x: float
    y: float
    w: float
    h: float
    score: float = 0.0

    @property
    def center(self) -> tuple[float, float]:
        """The box's centre (px)."""
        return (self.x + self.w / 2, self.y + self.h / 2)

    def iou(self, other: Box) -> float:
        """Intersection over union with another box (0 … 1)."""
        ix = max(0.0, min(self.x + self.w, other.x + other.w) - max(self.x, other.x))
        iy = max(0.0, min(self.y + self.h, other.y + other.h) - max(self.y, other.y))
        inter = ix * iy
        union = self.w * self.h + other.w * other.h - inter
        return inter / union if union > 0 else 0.0

    def as_ints(self) -> tuple[int, int, int, int]:
        """(x, y, w, h) rounded to whole pixels."""
        return (round(self.x), round(self.y), round(self.w), round(self.h))


class FaceDetector(Protocol):
    """Finds faces in a grey image; ``scale`` > 1 scales the image up first (smaller faces, more cost)."""

    name: str

    def detect(self, gray: np.ndarray, scale: float = 1.0, min_score: float | None = None) -> list[Box]:
        """Faces in ``gray`` (coordinates of ``gray`` itself, whatever ``scale``); ``min_score``, where
        the detector scores its faces, also reports those down to that score (None: its own threshold)."""
        ...


def _scaled(gray: np.ndarray, scale: float) -> np.ndarray:
    if abs(scale - 1.0) < 1e-3:
        return gray
    return cv2.resize(gray, None, fx=scale, fy=scale,
                      interpolation=cv2.INTER_LINEAR if scale > 1 else cv2.INTER_AREA)


class DlibHogDetector:
    """dlib's HOG + linear SVM frontal-face detector (5 pose filters, trained on LFW faces).

    ``threshold`` shifts the SVM's decision: above 0 fewer false faces, below 0 more faces found.
    dlib releases the GIL while it scans, so the event loop keeps running meanwhile.
    """

    name = "dlib_hog"

    def __init__(self, threshold: float = 0.0, cache: Path | None = None) -> None:
        import dlib  # the optional part: ImportError here is reported by load_face_detector

        self._detector: Any = _saved_dlib_detector(dlib, cache if cache is not None else default_cache_folder())
        self.threshold = threshold

    def detect(self, gray: np.ndarray, scale: float = 1.0, min_score: float | None = None) -> list[Box]:
        """Faces in ``gray`` (8-bit, one channel); a box's score is the SVM's margin (0 at ``threshold``).

        ``min_score`` below ``threshold`` also reports the weaker candidates, down to that margin.
        """
        image = np.ascontiguousarray(_scaled(gray, scale))
        threshold = self.threshold if min_score is None else min(min_score, self.threshold)
        rects, scores, _ = self._detector.run(image, 0, threshold)
        return [Box(r.left() / scale, r.top() / scale, r.width() / scale, r.height() / scale, float(s))
                for r, s in zip(rects, scores, strict=True)]


def _saved_dlib_detector(dlib: Any, cache: Path) -> Any:
    """dlib's frontal face detector, read from ``cache`` where dlib saved it before.

    Building it (``get_frontal_face_detector``) takes half a second of CPU here and several
    seconds on a small computer, at every start; reading the saved model (dlib's own format,
    155 KB, named by dlib's version) takes a millisecond and gives the same detector. A file
    that is missing or damaged is built and saved again; a folder that cannot be written only
    costs the time.
    """
    path = cache / "models" / f"dlib-{dlib.__version__}-frontal_face_detector.svm"
    try:
        return dlib.fhog_object_detector(str(path))
    except RuntimeError as exc:  # missing ("Unable to open") or damaged ("Error deserializing")
        if path.exists():
            log.info("face detector: %s is damaged (%s); building the detector again", path, exc)
    detector = dlib.get_frontal_face_detector()
    try:
        write_whole(path, lambda tmp: detector.save(str(tmp)))
    except (OSError, RuntimeError) as exc:
        log.debug("face detector: cannot save the model to %s (%s)", path, exc)
    return detector


class OpenCvHaarDetector:
    """OpenCV 4.x's Haar cascade ``haarcascade_frontalface_default.xml`` (needs ``cv2.data``)."""

    name = "opencv_haar"

    def __init__(self, scale_factor: float = 1.2, min_neighbors: int = 4) -> None:
        classifier = getattr(cv2, "CascadeClassifier", None)
        folder = getattr(getattr(cv2, "data", None), "haarcascades", None)
        if classifier is None or not folder:
            raise RuntimeError(f"OpenCV {cv2.__version__} has no Haar cascades (OpenCV 4.x has them)")
        self._cascade: Any = classifier(folder + "haarcascade_frontalface_default.xml")
        if self._cascade.empty():
            raise RuntimeError("haarcascade_frontalface_default.xml did not load")
        self.scale_factor, self.min_neighbors = scale_factor, min_neighbors

    def detect(self, gray: np.ndarray, scale: float = 1.0, min_score: float | None = None) -> list[Box]:
        """Faces in ``gray`` (8-bit, one channel); the cascade does not score, so ``min_score`` is ignored."""
        image = _scaled(gray, scale)
        found = self._cascade.detectMultiScale(image, scaleFactor=self.scale_factor, minNeighbors=self.min_neighbors)
        return [Box(x / scale, y / scale, w / scale, h / scale, 1.0) for (x, y, w, h) in found]


#: Face detectors by name (the first is the default).
FACE_DETECTORS: dict[str, Callable[[], FaceDetector]] = {
    DlibHogDetector.name: DlibHogDetector,
    OpenCvHaarDetector.name: OpenCvHaarDetector,
}


def load_face_detector(name: str | None = DlibHogDetector.name) -> FaceDetector | None:
    """The face detector ``name``, or None (logged once, by name) when it cannot be loaded.

    None or ``"none"`` asks for no face detection and logs nothing.
    """
    if name is None or name == "none":
        return None
    factory = FACE_DETECTORS.get(name)
    if factory is None:
        log.error("face detector %r is unknown (known: %s); vision runs without face detection",
                  name, ", ".join(FACE_DETECTORS))
        return None
    try:
        return factory()
    except Exception as exc:  # an ImportError, a missing model, a broken wheel: report, run without
        log.error("face detector %s could not be loaded (%s: %s); vision runs without face detection",
                  name, type(exc).__name__, exc)
        return None


def detect_in_region(detector: FaceDetector, gray: np.ndarray, near: Box, *, margin: float = 0.6,
                     face_px: float = TRACK_FACE_PX, max_scale: float = 3.0) -> list[Box]:
    """Faces in a crop around ``near`` (a face seen before), scaled so it is about ``face_px`` wide.

    The crop reaches ``margin`` box widths beyond each side of ``near``, so a face that moved
    by up to that much between two looks is still inside. Boxes come back in ``gray``'s coordinates.
    """
    h, w = gray.shape[:2]
    side = max(near.w, near.h)
    cx, cy = near.center
    half = side * (0.5 + margin)
    x0, y0 = max(0, math.floor(cx - half)), max(0, math.floor(cy - half))
    x1, y1 = min(w, math.ceil(cx + half)), min(h, math.ceil(cy + half))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return []
    scale = min(max_scale, max(1.0, face_px / max(side, 1.0)))
    crop = gray[y0:y1, x0:x1]
    return [Box(b.x + x0, b.y + y0, b.w, b.h, b.score) for b in detector.detect(crop, scale)]
