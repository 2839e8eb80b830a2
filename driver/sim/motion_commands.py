"""The simulated robot's motors taking the engine's motion commands.

Head and lift to an angle or height (acknowledged as actions), at a speed; the wheels at speeds,
along an arc or turning on the spot; a turn in place to an angle (acknowledged); a path built
segment by segment and executed (PathFollowingEvent when it starts; the clock reports its end);
and all motors stopped. Each command only sets what :class:`~driver.sim.body.Body` moves towards
on the simulator's 30 ms control ticks. :class:`MotionCommands` is that part of
:class:`~driver.sim.server.SimulatedCozmo`, whose packet handler finds these ``_h_<Message>``
methods by name.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..hardware import MAX_BODY_ROTATION_ACCEL_RAD_S2, TRACK_MM
from ..protocol import messages as m
from .body import Body, PathSegment, lift_mm_per_rad

__all__ = ["MotionCommands"]


class MotionCommands:
    """The engine's motion commands acted on by the body (mixed into the simulator)."""

    body: Body
    #: the event id of the path being followed, for its PathFollowingEvent
    _path_event_id: int
    _path: list[PathSegment]

    if TYPE_CHECKING:
        def send(self, msg: Any) -> None: ...  # noqa: D102

    def _ack(self, action_id: int) -> None:
        self.send(m.AcknowledgeAction(action_id=action_id))

    def _h_SetHeadAngle(self, msg: Any) -> None:
        self._ack(msg.action_id)
        speed = msg.max_speed_rad_per_sec or 15.0
        if msg.duration_sec and msg.duration_sec > 0:
            speed = abs(msg.angle_rad - self.body.head.position) / msg.duration_sec
        self.body.head.command_target(msg.angle_rad, speed, msg.action_id)

    def _h_SetLiftHeight(self, msg: Any) -> None:
        self._ack(msg.action_id)
        speed_mm = (msg.max_speed_rad_per_sec or 3.0) * lift_mm_per_rad(self.body.lift.position)
        if msg.duration_sec and msg.duration_sec > 0:
            speed_mm = abs(msg.height_mm - self.body.lift.position) / msg.duration_sec
        self.body.lift.command_target(msg.height_mm, speed_mm, msg.action_id)

    def _h_MoveHead(self, msg: Any) -> None:
        self.body.head.command_speed(msg.speed_rad_per_sec)

    def _h_MoveLift(self, msg: Any) -> None:
        self.body.lift.command_speed(msg.speed_rad_per_sec * lift_mm_per_rad(self.body.lift.position))

    def _h_DriveWheels(self, msg: Any) -> None:
        self.body.drive(msg.lwheel_speed_mmps, msg.rwheel_speed_mmps, msg.lwheel_accel_mmps2)

    def _h_DriveWheelsCurvature(self, msg: Any) -> None:
        radius = int(msg.curvature_radius_mm)
        if radius == 0:  # the firmware's point turn: the speed is in rad/s, the acceleration in rad/s²
            self._point_turn(float(msg.speed_mmps), float(msg.accel_mmps2))
        else:
            self._drive_arc(float(msg.speed_mmps), radius, float(msg.accel_mmps2))

    def _h_TurnInPlaceAtSpeed(self, msg: Any) -> None:
        self._point_turn(float(msg.speed_rad_per_sec), float(msg.accel_rad_per_sec2))

    def _point_turn(self, rate: float, accel: float) -> None:
        """Turn on the spot at ``rate`` rad/s until told otherwise, as the firmware's steering
        controller does for TurnInPlaceAtSpeed and a curvature of radius 0: closed on its odometry
        (the treads reach their speeds), the rate clamped to MAX_BODY_ROTATION_DPS, an acceleration
        of 0 taken as MAX_BODY_ROTATION_ACCEL_RAD_S2, a rate of 0 a stop (VC-cfg)."""
        if not rate or not math.isfinite(rate) or not math.isfinite(accel):
            self.body.drive(0.0, 0.0)
            return
        self.body.spin(rate, abs(accel) or MAX_BODY_ROTATION_ACCEL_RAD_S2)

    def _drive_arc(self, speed: float, radius: int, accel: float = 0.0) -> None:
        """Drive at ``speed`` mm/s along an arc of ``radius`` mm (32767 or -32768: straight;
        counter-clockwise for a positive radius), as the firmware does: the inner wheel at
        ``speed·(1 − half track/radius)``, the outer at ``speed·(1 + half track/radius)``, each
        within the wheels' cap. A radius of ±1 is an arc too (the wheels at their caps, in
        opposite directions), not the point turn of radius 0."""
        if radius in (32767, -32768):
            self.body.drive(speed, speed, abs(accel))
        else:
            half = TRACK_MM / 2
            self.body.drive(speed * (1.0 - half / radius), speed * (1.0 + half / radius), abs(accel))

    def _h_TurnInPlace(self, msg: Any) -> None:
        self._ack(msg.action_id)
        self.body.turn_in_place(msg.angle_rad, msg.speed_rad_per_sec, msg.angle_tolerance_rad,
                                bool(msg.is_absolute), msg.action_id)

    def _h_StopAllMotors(self, msg: Any) -> None:
        self.body.stop_all()

    def _h_EnableStopOnCliff(self, msg: Any) -> None:
        self.body.stop_on_cliff = bool(msg.enable)

    def _h_ClearPath(self, msg: Any) -> None:
        self._path = []

    def _path_list(self) -> list[PathSegment]:
        if not hasattr(self, "_path"):
            self._path = []
        return self._path

    def _h_AppendPathSegLine(self, msg: Any) -> None:
        self._path_list().append(PathSegment("line", x=msg.to_x, y=msg.to_y, speed=msg.speed_mmps))

    def _h_AppendPathSegArc(self, msg: Any) -> None:
        end = msg.start_angle_rad + msg.sweep_rad
        x = msg.center_x + msg.radius_mm * math.cos(end)
        y = msg.center_y + msg.radius_mm * math.sin(end)
        self._path_list().append(PathSegment("arc", x=x, y=y, speed=msg.speed_mmps))

    def _h_AppendPathSegPointTurn(self, msg: Any) -> None:
        self._path_list().append(PathSegment("turn", angle=msg.angle_rad, speed=msg.speed_mmps or 100.0))

    def _h_ExecutePath(self, msg: Any) -> None:
        self._path_event_id = msg.event_id
        self.body.start_path(self._path_list())
        self.send(m.PathFollowingEvent(event_id=msg.event_id, event_type=0))

