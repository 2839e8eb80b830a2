"""What the dashboard shows of the robot itself: its state, its face, its camera, its events in words.

Each function reads the driver's public objects (the Robot, its samples and link statistics) and
returns plain JSON-ready values; none keeps anything between calls except :class:`FaceView` and
:class:`CameraView`, which remember what was sent last so an unchanged picture is not sent again.

The camera panel is built against a small interface so that it works with whatever vision the
Robot has: a ``robot.vision`` object with ``add_frame_listener(listener)`` that calls the listener
with image samples (``jpeg`` bytes, ``width``, ``height``, ``captured_at``, ``image_id``), and the
face and motion events (``face_seen``, ``face_moved``, ``face_lost`` with ``face_id`` and ``box``
(x, y, width, height); ``motion_seen`` with ``img_x``, ``img_y``, ``where``). Until frames arrive
the page says "no camera".
"""

from __future__ import annotations

import base64
import dataclasses
import logging
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from driver import events as ev
from driver.samples import RobotStatus

__all__ = ["CameraView", "FaceView", "describe_event", "is_noisy", "robot_state"]

log = logging.getLogger(__name__)

#: Events too frequent to show in the log unless asked: these types, and edges of these flags.
NOISY_TYPES = (ev.AnimationStarted, ev.AnimationEnded, ev.MotorCalibration)
NOISY_FLAGS = (RobotStatus.IS_MOVING | RobotStatus.ARE_WHEELS_MOVING | RobotStatus.HEAD_IN_POS
               | RobotStatus.LIFT_IN_POS | RobotStatus.IS_ANIMATING | RobotStatus.IS_ANIMATING_IDLE)
#: How long a motion report stays drawn on the camera picture (s).
MOTION_SHOWN_S = 1.0
#: Face events by kind name (they join driver.events with the camera's vision).
FACE_KINDS = ("face_seen", "face_moved")


def is_noisy(event: ev.RobotEvent) -> bool:
    """Whether an event is one of the frequent ones the log hides unless asked."""
    return isinstance(event, NOISY_TYPES) or (isinstance(event, ev.StatusChanged) and bool(event.flag & NOISY_FLAGS))


def describe_event(event: ev.RobotEvent) -> str:
    """One line for the event log: the kind and its fields (``cube_tapped object_id=1 taps=2``)."""
    if isinstance(event, ev.StatusChanged):
        return f"{event.kind} {'on' if event.value else 'off'}"
    parts = [event.kind]
    if dataclasses.is_dataclass(event):
        for f in dataclasses.fields(event):
            if f.name == "at":
                continue
            value = getattr(event, f.name)
            if isinstance(value, float):
                value = round(value, 3)
            parts.append(f"{f.name}={value}")
    return " ".join(parts)


def _flag_names(status: RobotStatus) -> list[str]:
    names = []
    for flag in RobotStatus:
        value = flag.value
        if value and not value & (value - 1) and status & flag:
            names.append(ev.FLAG_KINDS.get(flag, (flag.name or "status").lower()))
    return names


def robot_state(robot: Any, *, hazard: str | None, safety_stops: int, suspended: str | None) -> dict[str, Any]:
    """The robot panel: connection, link statistics, battery, head and lift, pose, flags, safety."""
    out: dict[str, Any] = {
        "connected": bool(robot.connected), "suspended": suspended,
        "address": f"{robot.address[0]}:{robot.address[1]}",
        "firmware": robot.info.firmware_version, "serial": f"0x{robot.info.serial_number:08x}",
        "orientation": robot.orientation, "hazard": hazard, "safety_stops": safety_stops,
        "losses": getattr(robot, "losses", 0), "reconnects": getattr(robot, "reconnects", 0),
        "camera": getattr(robot, "vision", None) is not None,
    }
    link = robot.link
    if link is not None:
        s = link.stats
        out["link"] = {
            "state": link.state.name.lower(), "rtt_ms": None if s.rtt_ms is None else round(s.rtt_ms, 2),
            "rto_ms": round(s.rto_ms, 1), "sent": s.sent_packets, "resent": s.resent_packets,
            "received": s.received_packets, "duplicates": s.duplicate_packets,
            "dropped": s.dropped_malformed + s.dropped_foreign + s.dropped_out_of_window,
            "loss_pct": round(100.0 * s.resent_packets / s.sent_packets, 2) if s.sent_packets else 0.0,
            "late_frames": s.late_releases,
        }
    state = robot.state
    if state is not None:
        p = state.proprioception
        out.update({
            "battery_v": round(state.battery.voltage_v, 3), "on_charger": state.battery.on_charger,
            "charging": state.battery.charging,
            "head_deg": round(math.degrees(p.head_angle_rad), 1), "lift_mm": round(p.lift_height_mm, 1),
            "lift_deg": round(math.degrees(p.lift_angle_rad), 1),
            "wheels_mmps": [round(p.left_wheel_mmps, 1), round(p.right_wheel_mmps, 1)],
            "pose": {"x_mm": round(p.pose.x_mm, 1), "y_mm": round(p.pose.y_mm, 1),
                     "angle_deg": round(math.degrees(p.pose.angle_rad), 1)},
            "flags": _flag_names(state.status), "robot_time_ms": p.robot_time_ms,
        })
    return out


class FaceView:
    """The face display as the robot shows it: the last DisplayImage, decoded, 1 bit a pixel.

    Decoded only when the image changed and someone is looking; sent as base64 of 512 bytes
    (32 rows of 128 pixels, most significant bit first).
    """

    def __init__(self) -> None:
        self._shown: bytes | None = None
        self.changes = 0

    def poll(self, robot: Any) -> str | None:
        """The new picture (base64) if the robot shows another one since the last call, else None."""
        data = getattr(robot, "display_shown", None)
        if data is None or data == self._shown:
            return None
        self._shown = data
        try:
            from driver.animation.display import DisplayFormatError, decode
        except ImportError:  # pragma: no cover - part of the driver
            return None
        try:
            pixels = decode(data)
        except DisplayFormatError as exc:
            log.debug("face image not shown: %s", exc)
            return None
        self.changes += 1
        return base64.b64encode(np.packbits(pixels, axis=1).tobytes()).decode("ascii")

    def reset(self) -> None:
        """Send the current picture again on the next poll (a new page joined)."""
        self._shown = None


class CameraView:
    """The camera panel: the newest frame (JPEG) and the faces and motion seen in it."""

    def __init__(self) -> None:
        self.sample: Any = None
        self.faces: dict[int, dict[str, Any]] = {}
        self.motion: dict[str, Any] | None = None
        self._sent_id: Any = None
        self._vision: Any = None
        self._unhook: Callable[[], None] | None = None

    def watch(self, robot: Any) -> None:
        """Listen to the robot's vision once it has one (called each beat and before each update:
        vision may start late, stop and start again). The frame of a vision that was stopped is
        dropped, sent or not: sent now (or again, to a page that joins), it would show beside a
        camera that is off."""
        vision = getattr(robot, "vision", None)
        if vision is self._vision:
            return
        self.close()
        self.sample = None
        self._vision = vision
        add = getattr(vision, "add_frame_listener", None)
        if callable(add):
            self._unhook = add(self._on_frame)

    def _on_frame(self, sample: Any) -> None:
        self.sample = sample

    def on_event(self, event: ev.RobotEvent, now: float) -> None:
        """Keep the detections the page draws over the picture."""
        kind = event.kind
        if kind in FACE_KINDS:
            box = getattr(event, "box", None)
            face_id = int(getattr(event, "face_id", 0))
            self.faces[face_id] = {"id": face_id, "box": list(box) if box is not None else None}
        elif kind == "face_lost":
            self.faces.pop(int(getattr(event, "face_id", 0)), None)
        elif kind == "motion_seen":
            self.motion = {"x": float(getattr(event, "img_x", 0.0)), "y": float(getattr(event, "img_y", 0.0)),
                           "where": str(getattr(event, "where", "")), "at": now}

    def poll(self, now: float) -> dict[str, Any] | None:
        """The panel's update: a new frame (base64 JPEG) and the detections, or None if nothing new."""
        sample = self.sample
        if sample is None:
            return None
        frame_id = getattr(sample, "image_id", id(sample))
        if frame_id == self._sent_id:
            return None
        self._sent_id = frame_id
        jpeg = getattr(sample, "jpeg", None)
        motion = self.motion if self.motion is not None and now - self.motion["at"] < MOTION_SHOWN_S else None
        return {"jpeg": base64.b64encode(jpeg).decode("ascii") if jpeg else None,
                "width": int(getattr(sample, "width", 320)), "height": int(getattr(sample, "height", 240)),
                "faces": self._faces(), "motion": motion}

    def _faces(self) -> list[dict[str, Any]]:
        """The faces in view: the vision's tracks where it has them (their boxes follow the robot's
        turns into the newest picture), else the last face events' boxes."""
        tracks = getattr(self._vision, "faces", None)
        if not isinstance(tracks, list):
            return list(self.faces.values())
        out = []
        for track in tracks:
            box = track.box
            out.append({"id": int(track.face_id),
                        "box": [round(float(box.x)), round(float(box.y)), round(float(box.w)), round(float(box.h))]})
        return out

    def reset(self) -> None:
        """Send the newest frame again on the next poll (a new page joined)."""
        self._sent_id = None

    def close(self) -> None:
        """Stop listening to the vision."""
        if self._unhook is not None:
            self._unhook()
            self._unhook = None
        self._vision = None
