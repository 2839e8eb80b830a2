"""What the simulated robot can see: the room, people (faces) and moving things, placed by the timeline.

Positions are in the simulator's world frame (millimetres, x forward and y left of where the robot
started, z up from the floor). A timeline step gives a place *relative to the robot at that
moment* (``bearing_deg`` left-positive, ``distance_m`` from the robot, ``height_m`` of the face
above the floor); the world turns it into a fixed point, so when the robot turns towards a face,
the face stays where it was and comes to the middle of the picture.

Faces are real photographs that scikit-image ships in its wheel (public domain and CC0; see the
README, "The simulated Cozmo"); they are read from the installed package, never downloaded and
never stored in this repository. scikit-image is optional (the ``sim-faces`` extra): without it
the simulator says so once and the room stays empty of people.
"""

from __future__ import annotations

import importlib.util
import logging
import math
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

#: Where a person appears when the step does not say (a face at a table's edge, seen by Cozmo).
DEFAULT_DISTANCE_M = 0.6
DEFAULT_HEIGHT_M = 0.25
#: Moving things: "ground" rolls on the floor, "air" moves at height (a waving hand).
MOTION_KINDS = ("ground", "air")
#: A ball rolls about 0.22 m ahead by default: inside the floor patch the motion detector watches
#: (up to 0.3 m ahead, :class:`driver.vision.motion.MotionConfig`), where a pounce can reach.
DEFAULT_MOTION_DISTANCE_M = 0.22
DEFAULT_AIR_HEIGHT_M = 0.3
DEFAULT_MOTION_S = 2.0
#: How fast a person goes from one place to the next when a step moves them (a step aside at a
#: table): they walk there, seen on the way, as a real person is, instead of vanishing from one
#: place and appearing at another (a face that jumps out of the picture cannot be followed).
WALK_MM_S = 500.0
#: Timeline steps that change the world (see :mod:`driver.sim.script`).
ROOM_EVENTS = ("face", "face_leaves", "motion")


@dataclass(frozen=True)
class PhotoSpec:
    """Where the face is in one of scikit-image's photographs.

    ``crop`` (left, top, right, bottom) cuts head and shoulders out of the picture; ``face`` is the
    point between the eyes in picture pixels; ``mm_per_px`` scales the picture to life size (from
    the eye distance, 62 mm in a grown-up, or the head height where the eyes are not both seen);
    ``head`` is the head's ellipse (centre x, centre y, half width, half height) that, with the
    shoulders below it, is kept.
    """

    loader: str
    crop: tuple[int, int, int, int]
    face: tuple[float, float]
    mm_per_px: float
    head: tuple[float, float, float, float]
    who: str


#: The people: Eileen Collins (NASA portrait, public domain; frontal, eyes 41 px apart) and the
#: photographer of scikit-image's "camera" picture (CC0, Lav Varshney; in profile, head ≈ 130 px
#: from crown to chin ≈ 230 mm), who looks through his camera rather than at the robot.
PHOTOS: dict[str, PhotoSpec] = {
    "astronaut": PhotoSpec("astronaut", (135, 5, 318, 235), (225.5, 102.0), 62.0 / 41.0,
                           (224.0, 95.0, 78.0, 92.0), "Eileen Collins (NASA, public domain)"),
    "photographer": PhotoSpec("camera", (150, 55, 300, 235), (228.0, 146.0), 230.0 / 130.0,
                              (218.0, 132.0, 62.0, 78.0), "photographer (scikit-image camera, CC0)"),
}
PHOTO_ORDER = tuple(PHOTOS)


@dataclass(frozen=True)
class Photo:
    """A ready-to-draw picture: RGB pixels, an alpha mask (0..1), its scale and the face point."""

    name: str
    rgb: np.ndarray
    alpha: np.ndarray
    face: tuple[float, float]
    mm_per_px: float


def faces_available() -> bool:
    """True when the package with the face photographs (scikit-image) is installed."""
    try:
        return importlib.util.find_spec("skimage") is not None
    except (ImportError, ValueError):
        return False


class PhotoLibrary:
    """Loads the photographs from scikit-image on first use (off the event loop) and keeps them.

    Missing package or a picture that will not load: said once in the log, and :meth:`get`
    returns None, so the room is drawn without that person.
    """

    def __init__(self) -> None:
        self._photos: dict[str, Photo | None] = {}
        self._lock = threading.Lock()
        self._warned = False
        self._warming = False

    def warm(self, names: tuple[str, ...]) -> None:
        """Start loading ``names`` on a thread of their own, once, so that the first frame a person
        is in does not wait for scikit-image to be imported (a second or more on a busy small
        computer, during which the camera would skip its frames)."""
        if self._warming or not names or not faces_available():
            return
        self._warming = True

        def load() -> None:
            for name in names:
                self.get(name)

        threading.Thread(target=load, name="sim-photos", daemon=True).start()

    def warn_missing_once(self) -> None:
        """Log once that faces cannot be shown (the package is missing)."""
        if not self._warned:
            self._warned = True
            log.warning("sim: no face photographs: scikit-image is not installed (pip install "
                        "'cozmo-brain[sim-faces]'); the room stays empty of people")

    def loaded(self) -> tuple[str, ...]:
        """The photographs loaded (or found missing) so far. Not under the lock, which a load holds
        for as long as it takes: copying the keys is one step for the interpreter."""
        return tuple(self._photos)

    def get(self, name: str) -> Photo | None:
        """The photo called ``name``, loading it on first use; None when it cannot be had."""
        with self._lock:
            if name not in self._photos:
                self._photos[name] = self._load(name)
            return self._photos[name]

    def _load(self, name: str) -> Photo | None:
        spec = PHOTOS[name]
        if not faces_available():
            self.warn_missing_once()
            return None
        try:
            from skimage import data  # the pictures ship inside the wheel: no network

            picture = np.asarray(getattr(data, spec.loader)())
        except Exception as exc:  # a broken install must not take the robot down
            log.warning("sim: cannot load the %s photograph from scikit-image (%s); that person is not drawn",
                        name, exc)
            return None
        if picture.ndim == 2:
            picture = np.repeat(picture[:, :, None], 3, axis=2)
        x0, y0, x1, y1 = spec.crop
        rgb = np.ascontiguousarray(picture[y0:y1, x0:x1, :3], dtype=np.uint8)
        alpha = _head_and_shoulders(rgb.shape[0], rgb.shape[1], spec, x0, y0)
        face = (spec.face[0] - x0, spec.face[1] - y0)
        return Photo(name, rgb, alpha, face, spec.mm_per_px)


def _head_and_shoulders(h: int, w: int, spec: PhotoSpec, x0: int, y0: int) -> np.ndarray:
    """A soft-edged mask: the head's ellipse, and the shoulders below it fading at the bottom."""
    cx, cy, ax, ay = spec.head
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    xs += x0
    ys += y0
    r = np.sqrt(((xs - cx) / ax) ** 2 + ((ys - cy) / ay) ** 2)
    head = np.clip((1.08 - r) / 0.16, 0.0, 1.0)
    neck_top = cy + 0.6 * ay
    widen = np.clip((ys - neck_top) / (0.8 * ay), 0.0, 1.0)
    half_width = ax * (0.55 + 0.75 * widen)
    body = np.clip((half_width - np.abs(xs - cx)) / 6.0, 0.0, 1.0) * (ys > neck_top)
    fade = np.clip((y0 + h - ys) / 20.0, 0.0, 1.0)
    return np.maximum(head, body * fade).astype(np.float32)


@dataclass
class Person:
    """Someone in the room: a face (the point between the eyes) looking at the robot, standing at
    (``x_mm``, ``y_mm``, ``z_mm``) or walking there from ``came_from`` between ``set_off`` and
    ``arrives`` (loop times)."""

    name: str
    photo: str
    x_mm: float
    y_mm: float
    z_mm: float
    since: float
    came_from: tuple[float, float, float] | None = None
    set_off: float = 0.0
    arrives: float = 0.0

    def at(self, now: float) -> tuple[float, float, float]:
        """Where the face is at loop time ``now``: on the straight way from where they set off."""
        if self.came_from is None or now >= self.arrives:
            return self.x_mm, self.y_mm, self.z_mm
        f = max(0.0, (now - self.set_off) / (self.arrives - self.set_off))
        x0, y0, z0 = self.came_from
        return x0 + f * (self.x_mm - x0), y0 + f * (self.y_mm - y0), z0 + f * (self.z_mm - z0)


@dataclass
class Mover:
    """A moving thing (a rolling ball, a waving hand) that swings across its place for a while."""

    kind: str
    x_mm: float
    y_mm: float
    z_mm: float
    across: tuple[float, float]
    start: float
    until: float
    radius_mm: float
    colour: tuple[float, float, float]
    swing_mm: float = 80.0
    period_s: float = 1.2

    def position(self, now: float) -> tuple[float, float, float]:
        """Where it is at loop time ``now``: swinging sideways (and, in the air, bobbing)."""
        phase = 2.0 * math.pi * (now - self.start) / self.period_s
        side = self.swing_mm * math.sin(phase)
        lift = 0.3 * self.swing_mm * math.sin(2 * phase) if self.kind == "air" else 0.0
        return (self.x_mm + side * self.across[0], self.y_mm + side * self.across[1], self.z_mm + lift)


@dataclass(frozen=True)
class Drawable:
    """One thing to draw in a frame, frozen at capture time: a person's photo or a ball."""

    kind: str  # "photo" or "ball"
    position: tuple[float, float, float]
    photo: str = ""
    radius_mm: float = 0.0
    colour: tuple[float, float, float] = (1.0, 1.0, 1.0)


Pose = tuple[float, float, float]  # robot x_mm, y_mm, heading_rad


def _ahead(pose: Pose, bearing_deg: float, distance_m: float) -> tuple[float, float]:
    """The world point ``distance_m`` away from the robot at ``bearing_deg`` (left-positive)."""
    x, y, heading = pose
    a = heading + math.radians(bearing_deg)
    return (x + 1000.0 * distance_m * math.cos(a), y + 1000.0 * distance_m * math.sin(a))


@dataclass
class Room:
    """The room's contents; the timeline changes them, the camera draws :meth:`snapshot`.

    (Being picked up, poked and the like are :class:`~driver.sim.world.WorldEvents`; this is what
    the camera sees.)
    """

    people: dict[str, Person] = field(default_factory=dict)
    movers: list[Mover] = field(default_factory=list)
    photos: PhotoLibrary = field(default_factory=PhotoLibrary)
    #: The photographs the timeline will bring in (:func:`photos_for`), loaded ahead once the camera is on.
    expected_photos: tuple[str, ...] = ()
    _assigned: dict[str, str] = field(default_factory=dict)
    #: What the robot was last placed relative to, per person (bearing, distance, height), for moves.
    _placement: dict[str, tuple[float, float, float]] = field(default_factory=dict)

    def place_face(self, name: str, pose: Pose, now: float, *, bearing_deg: float | None = None,
                   distance_m: float | None = None, height_m: float | None = None,
                   photo: str | None = None) -> Person:
        """Bring ``name`` in, or move them: fields left out keep their last value (or the defaults).

        The place is taken relative to the robot's ``pose`` now and then fixed in the world. Someone
        new is there at once; someone already in the room walks there at :data:`WALK_MM_S` from
        wherever they are now (half-way through a walk, too).
        """
        if not faces_available():
            self.photos.warn_missing_once()
        last = self._placement.get(name, (0.0, DEFAULT_DISTANCE_M, DEFAULT_HEIGHT_M))
        bearing = last[0] if bearing_deg is None else bearing_deg
        distance = last[1] if distance_m is None else distance_m
        height = last[2] if height_m is None else height_m
        self._placement[name] = (bearing, distance, height)
        if photo is None:
            photo = self._assigned.get(name) or PHOTO_ORDER[len(self._assigned) % len(PHOTO_ORDER)]
        self._assigned[name] = photo
        x, y = _ahead(pose, bearing, distance)
        z = 1000.0 * height
        before = self.people.get(name)
        if before is None:
            person = Person(name, photo, x, y, z, now)
        else:
            start = before.at(now)
            walk_s = math.dist(start, (x, y, z)) / WALK_MM_S
            person = Person(name, photo, x, y, z, before.since, start, now, now + walk_s)
        self.people[name] = person
        return person

    def face_leaves(self, name: str) -> bool:
        """``name`` walks away; False when they were not there."""
        return self.people.pop(name, None) is not None

    def start_motion(self, kind: str, pose: Pose, now: float, *, bearing_deg: float = 0.0,
                     distance_m: float | None = None, height_m: float | None = None,
                     duration: float = 2.0) -> Mover:
        """Something moves at ``bearing_deg`` for ``duration`` seconds: a ball on the floor or a hand in the air."""
        if kind not in MOTION_KINDS:
            raise ValueError(f"unknown motion {kind!r}; expected one of {', '.join(MOTION_KINDS)}")
        distance = DEFAULT_MOTION_DISTANCE_M if distance_m is None else distance_m
        x, y = _ahead(pose, bearing_deg, distance)
        a = pose[2] + math.radians(bearing_deg)
        across = (-math.sin(a), math.cos(a))
        if kind == "ground":
            mover = Mover(kind, x, y, 30.0, across, now, now + duration, 30.0, (0.85, 0.18, 0.12))
        else:
            z = 1000.0 * (DEFAULT_AIR_HEIGHT_M if height_m is None else height_m)
            mover = Mover(kind, x, y, z, across, now, now + duration, 45.0, (0.92, 0.72, 0.58),
                          swing_mm=100.0, period_s=0.8)
        self.movers.append(mover)
        return mover

    def apply(self, event: str, args: dict[str, Any], pose: Pose, now: float) -> None:
        """Carry out a timeline step (one of :data:`ROOM_EVENTS`) with the robot at ``pose``."""
        if event == "face":
            self.place_face(args["face"], pose, now, bearing_deg=args.get("bearing_deg"),
                            distance_m=args.get("distance_m"), height_m=args.get("height_m"), photo=args.get("photo"))
        elif event == "face_leaves":
            if not self.face_leaves(args["face_leaves"]):
                log.warning("sim: %s leaves, but was not in the room", args["face_leaves"])
        elif event == "motion":
            self.start_motion(args["motion"], pose, now, bearing_deg=args.get("bearing_deg", 0.0),
                              distance_m=args.get("distance_m"), height_m=args.get("height_m"),
                              duration=args.get("for", DEFAULT_MOTION_S))
        else:
            raise ValueError(f"not a room event: {event!r}")

    def snapshot(self, now: float) -> tuple[Drawable, ...]:
        """What is there at loop time ``now``, frozen for a render on another thread."""
        self.movers = [mv for mv in self.movers if mv.until > now]
        out: list[Drawable] = [Drawable("photo", p.at(now), photo=p.photo) for p in self.people.values()]
        out += [Drawable("ball", mv.position(now), radius_mm=mv.radius_mm, colour=mv.colour)
                for mv in self.movers if mv.start <= now]
        return tuple(out)

    def describe(self) -> dict[str, Any]:
        """People and moving things, for logs and tests."""
        return {"people": {n: (round(p.x_mm), round(p.y_mm), round(p.z_mm), p.photo) for n, p in self.people.items()},
                "movers": len(self.movers)}


__all__ = [
    "DEFAULT_DISTANCE_M",
    "DEFAULT_HEIGHT_M",
    "MOTION_KINDS",
    "WALK_MM_S",
    "PHOTOS",
    "ROOM_EVENTS",
    "Drawable",
    "Mover",
    "Person",
    "Photo",
    "PhotoLibrary",
    "Room",
    "faces_available",
    "photos_for",
]


def photos_for(steps: Iterable[Any]) -> tuple[str, ...]:
    """The photographs a timeline's ``face`` steps may show: those they name, and for people given
    none, the ones :meth:`Room.place_face` hands out in turn (as many as there are people)."""
    named: list[str] = []
    people: set[str] = set()
    unnamed = False
    for step in steps:
        if step.event != "face":
            continue
        people.add(step.args.get("face", ""))
        photo = step.args.get("photo")
        if photo is not None:
            named.append(photo)
        else:
            unnamed = True
    out = dict.fromkeys(named)
    if unnamed:
        out.update(dict.fromkeys(PHOTO_ORDER[:min(len(people), len(PHOTO_ORDER))]))
    return tuple(out)
