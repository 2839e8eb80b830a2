"""What the robot knows of its surroundings: faces, the last motion, cubes.

The world model is brain state (:attr:`brain.context.BrainContext.world`): vision and robot
events update it at the start of a tick, nodes read it, the dashboard shows it. A face keeps a
stable id while it is tracked, the time it was last seen, and where it was in the robot's world
frame (from the pose and the head angle at capture), so a face that left the picture can still
be turned to. Entries older than their time to live are dropped by :meth:`WorldModel.expire`.

This module holds the model and its types; filling it from vision is the eyes' work.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Cube", "Face", "Motion", "WorldModel"]


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


@dataclass
class Motion:
    """The last motion seen: when, and where in the world frame (bearing and elevation, radians)."""

    at: float
    bearing_rad: float
    elevation_rad: float
    #: Share of the picture that moved (0–1).
    area: float = 0.0


@dataclass
class Cube:
    """A light cube: connected or not, and when it was last tapped or moved."""

    object_id: int
    connected: bool = False
    last_tapped: float | None = None
    last_moved: float | None = None


@dataclass
class WorldModel:
    """Faces by id, the last motion, cubes by id; entries expire after ``face_ttl_s`` / ``motion_ttl_s``."""

    faces: dict[int, Face] = field(default_factory=dict)
    motion: Motion | None = None
    cubes: dict[int, Cube] = field(default_factory=dict)
    face_ttl_s: float = 600.0
    motion_ttl_s: float = 60.0

    def expire(self, now: float) -> None:
        """Forget faces and motion not seen for longer than their time to live."""
        for face_id in [f for f, face in self.faces.items() if now - face.last_seen > self.face_ttl_s]:
            del self.faces[face_id]
        if self.motion is not None and now - self.motion.at > self.motion_ttl_s:
            self.motion = None

    def last_face(self) -> Face | None:
        """The face seen most recently, or None."""
        return max(self.faces.values(), key=lambda f: f.last_seen, default=None)

    def snapshot(self) -> dict[str, object]:
        """A plain summary for the dashboard and ``/api/state``."""
        return {
            "faces": [{"id": f.face_id, "last_seen": round(f.last_seen, 2), "distance_mm": round(f.distance_mm),
                       "bearing_deg": round(f.bearing_rad * 57.29578, 1)} for f in self.faces.values()],
            "motion": None if self.motion is None else {"at": round(self.motion.at, 2),
                                                        "bearing_deg": round(self.motion.bearing_rad * 57.29578, 1)},
            "cubes": [{"id": c.object_id, "connected": c.connected} for c in self.cubes.values()],
        }
