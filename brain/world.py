"""What the robot knows of its surroundings: faces, the last motion, cubes, the edges it met.

The world model is brain state (:attr:`brain.context.BrainContext.world`): vision and robot
events update it at the start of a tick, nodes read it, the dashboard shows it. A face keeps a
stable id while it is tracked, the time it was last seen, and where it was in the robot's world
frame (from the pose and the head angle at capture), so a face that left the picture can still
be turned to. Entries older than their time to live are dropped by :meth:`WorldModel.expire`.

The engine hands it the robot events of each beat (:meth:`WorldModel.update`) before the tree
ticks: the vision's ``face_seen`` / ``face_moved`` / ``face_lost`` and ``motion_seen``, and the
cubes' connection, tap and move events. A ``face_glimpsed`` (a face detected once, not confirmed)
is kept apart from the faces, as the last :class:`Glimpse`, for a few seconds: it is no one the
robot knows, only a place worth a look, and a face seen after it answers it.

With the robot's pose of the beat it also keeps the places where the cliff sensor saw the floor
end while it drove (Anki's engine adds a cliff obstacle to its map the same way; a lifted robot's
sensor loses the floor too, and that is no edge), so driving about can keep away from a table's
edges it has already met; a pick-up forgets them, since the robot may be put down anywhere.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from driver import events as ev
from driver.hardware import CLIFF_SENSOR_AHEAD_MM
from driver.samples import PoseSample

__all__ = ["EDGE_HALF_MM", "Cube", "Edge", "Face", "Glimpse", "Motion", "WorldModel"]

#: An edge met is taken as a stretch of the floor's end this long (mm) either side of the place the
#: cliff sensor looked at, square to the way the robot was heading: it drives into an edge about
#: head-on, and a table's edge runs on from where it met it.
EDGE_HALF_MM = 150.0
#: At most this many edge points are kept (the oldest go first).
MAX_EDGES = 64


@dataclass
class Face:
    """A face the robot has seen: where (world frame, mm and radians), how far, and when."""

    face_id: int
    first_seen: float
    last_seen: float
    x_mm: float
    y_mm: float
    z_mm: float
    distance_mm: float
    #: Direction from the robot when last seen, in the world frame (radians, counter-clockwise).
    bearing_rad: float = 0.0
    name: str = ""
    #: In the picture now (False once the vision lost it: it is remembered where it was last)
    in_view: bool = True
    #: How long no face had been seen when this one came (inf: none remembered), for greetings
    unseen_before_s: float = math.inf


@dataclass
class Glimpse:
    """A face detected once and never confirmed: when (capture time) and where (world frame, mm)."""

    at: float
    x_mm: float
    y_mm: float
    z_mm: float
    #: Direction from the robot when glimpsed, in the world frame (radians, counter-clockwise).
    bearing_rad: float = 0.0


@dataclass
class Motion:
    """The last motion seen: when, and where in the world frame (bearing and elevation, radians)."""

    at: float
    bearing_rad: float
    elevation_rad: float
    #: Share of the picture that moved (0–1).
    area: float = 0.0
    #: Where in the picture: ``ground``, ``left``, ``right``, ``top`` or ``image``.
    where: str = "image"


@dataclass
class Cube:
    """A light cube: connected or not, when it was last tapped, moved and still again, which face
    is up (as its last ObjectUpAxisChanged said; upright until one does)."""

    object_id: int
    connected: bool = False
    last_tapped: float | None = None
    last_moved: float | None = None
    last_stopped: float | None = None
    up_axis: str = "Z_POSITIVE"

    @property
    def moving(self) -> bool:
        """Moved and not yet still again."""
        return self.last_moved is not None and (self.last_stopped is None or self.last_stopped < self.last_moved)


@dataclass
class Edge:
    """A place where the cliff sensor saw the floor end (world frame, mm), when, and the robot's
    heading then (rad): the floor ends across that heading, for :data:`EDGE_HALF_MM` either side."""

    at: float
    x_mm: float
    y_mm: float
    heading_rad: float = 0.0

    def clearance_mm(self, x_mm: float, y_mm: float) -> float:
        """How far a point is on the floor's side of this stretch of edge (mm; negative beyond it).

        Beside the stretch (further along the edge than it reaches) it is the distance to the
        stretch's nearer end: the edge may turn there, and nothing is known of it.
        """
        ux, uy = math.cos(self.heading_rad), math.sin(self.heading_rad)
        dx, dy = x_mm - self.x_mm, y_mm - self.y_mm
        beyond = dx * ux + dy * uy
        across = dy * ux - dx * uy
        if abs(across) <= EDGE_HALF_MM:
            return -beyond
        return math.hypot(beyond, across - math.copysign(EDGE_HALF_MM, across))


@dataclass
class WorldModel:
    """Faces by id, the last motion, cubes by id, edges met; entries expire after their ``*_ttl_s``."""

    faces: dict[int, Face] = field(default_factory=dict)
    motion: Motion | None = None
    cubes: dict[int, Cube] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    #: The last face glimpsed and not yet answered by a face seen (see the module docstring).
    glimpse: Glimpse | None = None
    face_ttl_s: float = 600.0
    motion_ttl_s: float = 60.0
    edge_ttl_s: float = 1800.0
    glimpse_ttl_s: float = 10.0

    def expire(self, now: float) -> None:
        """Forget faces, glimpses and motion not seen for longer than their time to live."""
        for face_id in [f for f, face in self.faces.items() if now - face.last_seen > self.face_ttl_s]:
            del self.faces[face_id]
        if self.glimpse is not None and now - self.glimpse.at > self.glimpse_ttl_s:
            self.glimpse = None
        if self.motion is not None and now - self.motion.at > self.motion_ttl_s:
            self.motion = None
        if self.edges and now - self.edges[0].at > self.edge_ttl_s:
            self.edges = [e for e in self.edges if now - e.at <= self.edge_ttl_s]

    def update(self, events: Iterable[Any], now: float, pose: PoseSample | None = None) -> None:
        """Take in one beat's robot events (faces, motion, cubes, cliffs and pick-ups with the
        beat's ``pose``), then forget what is too old."""
        for event in events:
            if isinstance(event, ev.StatusChanged) and event.value:
                if event.kind == "cliff" and pose is not None and event.edge_of_the_floor:
                    self._edge(float(event.at), pose)
                elif event.kind == "picked_up":
                    self.edges.clear()
            if isinstance(event, (ev.FaceSeen, ev.FaceMoved, ev.FaceLost)):
                self._face(event)
                if isinstance(event, ev.FaceSeen):
                    self.glimpse = None
            elif isinstance(event, ev.FaceGlimpsed):
                self.glimpse = Glimpse(event.captured_at or float(event.at), event.x_mm, event.y_mm, event.z_mm,
                                       event.heading_rad)
            elif isinstance(event, ev.MotionSeen):
                self.motion = Motion(float(event.at), event.heading_rad, event.tilt_rad, event.amount, event.where)
            elif isinstance(event, ev.CubeConnection):
                self._cube(event.object_id).connected = event.connected
            elif isinstance(event, ev.CubeTapped):
                self._cube(event.object_id).last_tapped = float(event.at)
            elif isinstance(event, ev.CubeMoved):
                self._cube(event.object_id).last_moved = float(event.at)
            elif isinstance(event, ev.CubeStopped):
                self._cube(event.object_id).last_stopped = float(event.at)
            elif isinstance(event, ev.CubeUpAxisChanged):
                self._cube(event.object_id).up_axis = event.axis
        self.expire(now)

    def _face(self, event: ev.FaceSeen | ev.FaceMoved | ev.FaceLost) -> None:
        seen = event.captured_at or float(event.at)
        known = self.faces.get(event.face_id)
        if known is not None:
            gap = known.unseen_before_s
        else:
            before = max((f.last_seen for f in self.faces.values()), default=-math.inf)
            gap = max(0.0, seen - before) if before > -math.inf else math.inf
        self.faces[event.face_id] = Face(
            event.face_id, known.first_seen if known is not None else seen, seen, event.x_mm, event.y_mm,
            event.z_mm, event.distance_mm, event.heading_rad, known.name if known is not None else "",
            in_view=not isinstance(event, ev.FaceLost),
            unseen_before_s=gap)

    def _edge(self, at: float, pose: PoseSample) -> None:
        ahead = CLIFF_SENSOR_AHEAD_MM
        self.edges.append(Edge(at, pose.x_mm + ahead * math.cos(pose.angle_rad),
                               pose.y_mm + ahead * math.sin(pose.angle_rad), pose.angle_rad))
        del self.edges[:-MAX_EDGES]

    def clearance_mm(self, x_mm: float, y_mm: float) -> float:
        """How far the point is on the floor's side of the nearest edge met (mm; negative beyond
        one, infinite when none is known; see :meth:`Edge.clearance_mm`)."""
        return min((e.clearance_mm(x_mm, y_mm) for e in self.edges), default=math.inf)

    def _cube(self, object_id: int) -> Cube:
        cube = self.cubes.get(object_id)
        if cube is None:
            cube = self.cubes[object_id] = Cube(object_id)
        return cube

    def faces_in_view(self) -> list[Face]:
        """The faces in the picture now, nearest first."""
        if not self.faces:  # (most beats of most days: conditions ask several times a beat)
            return []
        return sorted((f for f in self.faces.values() if f.in_view), key=lambda f: f.distance_mm)

    def last_face(self) -> Face | None:
        """The face seen most recently, or None."""
        if not self.faces:
            return None
        return max(self.faces.values(), key=lambda f: f.last_seen)

    def snapshot(self) -> dict[str, object]:
        """A plain summary for the dashboard and ``/api/state``."""
        return {
            "faces": [{"id": f.face_id, "in_view": f.in_view, "last_seen": round(f.last_seen, 2),
                       "distance_mm": round(f.distance_mm), "bearing_deg": round(math.degrees(f.bearing_rad), 1),
                       "x_mm": round(f.x_mm), "y_mm": round(f.y_mm), "z_mm": round(f.z_mm)}
                      for f in self.faces.values()],
            "glimpse": None if self.glimpse is None else {
                "at": round(self.glimpse.at, 2), "bearing_deg": round(math.degrees(self.glimpse.bearing_rad), 1),
                "x_mm": round(self.glimpse.x_mm), "y_mm": round(self.glimpse.y_mm), "z_mm": round(self.glimpse.z_mm)},
            "motion": None if self.motion is None else {
                "at": round(self.motion.at, 2), "where": self.motion.where,
                "bearing_deg": round(math.degrees(self.motion.bearing_rad), 1)},
            "cubes": [{"id": c.object_id, "connected": c.connected, "last_tapped": c.last_tapped,
                       "last_moved": c.last_moved, "moving": c.moving, "up_axis": c.up_axis}
                      for c in self.cubes.values()],
            "edges": [{"at": round(e.at, 2), "x_mm": round(e.x_mm), "y_mm": round(e.y_mm),
                       "heading_deg": round(math.degrees(e.heading_rad))} for e in self.edges],
        }
