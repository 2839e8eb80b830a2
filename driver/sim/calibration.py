"""The simulated robot's start-up calibration of lift and head (hardware.md §3 and §7.1).

After the engine's SyncTime a real Cozmo drives lift and head to their low stops and reports
MotorCalibration for each, started and done; its first RobotState comes in the frame of the
head's "done", about 1.3 s after SyncTime (the times are a real robot's, in :mod:`driver.hardware`).
It does so once per boot: an engine that connects again to a robot still powered gets states at
once. The engine may ask for a calibration again (StartMotorCalibration, as Anki's did for the head
after a put-down with the body pitched): the motors asked for run to their stops in the same times
and report started and done, while the states keep streaming. :class:`MotorCalibration` is that part
of :class:`~driver.sim.server.SimulatedCozmo`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..hardware import CALIBRATION_STARTS_S, HEAD_CALIBRATED_S, LIFT_CALIBRATED_S
from ..protocol import messages as m
from .body import Body

__all__ = ["HEAD_MOTOR", "LIFT_MOTOR", "MotorCalibration"]

#: MotorCalibration's motor ids.
LIFT_MOTOR, HEAD_MOTOR = 2, 3


class MotorCalibration:
    """Lift and head calibrating after SyncTime (mixed into the simulator)."""

    body: Body
    #: calibrate at all (False: report both calibrated and stream at once)
    calibrate: bool
    #: lift and head found their stops since the robot booted
    motors_calibrated: bool
    #: RobotState streams (the head has calibrated)
    streaming: bool
    #: (loop time, step) still to come
    _calibration: list[tuple[float, Callable[[], None]]]

    if TYPE_CHECKING:
        def send(self, msg: Any) -> None: ...  # noqa: D102

    def _calibrate_motors(self, now: float) -> None:
        """SyncTime came at loop time ``now``: calibrate, or report at once and stream."""
        if not self.calibrate or self.motors_calibrated:
            for motor in (LIFT_MOTOR, HEAD_MOTOR):
                self._calibration_report(motor, started=True)
                self._calibration_report(motor, started=False)
            self.streaming = True
            return
        self.streaming = False
        self._calibration = [(now + CALIBRATION_STARTS_S, self._calibration_starts),
                             (now + LIFT_CALIBRATED_S, lambda: self._calibrated(LIFT_MOTOR)),
                             (now + HEAD_CALIBRATED_S, lambda: self._calibrated(HEAD_MOTOR))]

    def _h_StartMotorCalibration(self, msg: Any) -> None:
        """Calibrate the lift and/or head on request: to their low stops, started and done."""
        motors = [motor for motor, asked in ((LIFT_MOTOR, msg.lift), (HEAD_MOTOR, msg.head)) if asked]
        if not motors:
            return
        now = asyncio.get_running_loop().time()
        b = self.body
        steps: list[tuple[float, Callable[[], None]]] = []
        for motor in motors:
            joint, done_s = (b.lift, LIFT_CALIBRATED_S) if motor == LIFT_MOTOR else (b.head, HEAD_CALIBRATED_S)
            took = done_s - CALIBRATION_STARTS_S
            joint.command_target(joint.lo, abs(joint.position - joint.lo) / took)
            self._calibration_report(motor, started=True)
            steps.append((now + took, lambda motor=motor: self._calibrated(motor)))  # type: ignore[misc]
        self._calibration = sorted(self._calibration + steps, key=lambda step: step[0])

    def _calibration_due(self, now: float) -> None:
        """Carry out the calibration's steps due by loop time ``now``."""
        while self._calibration and self._calibration[0][0] <= now:
            self._calibration.pop(0)[1]()

    def _calibration_report(self, motor: int, *, started: bool) -> None:
        self.send(m.MotorCalibration(motor_id=motor, calib_started=started, auto_started=False))

    def _calibration_starts(self) -> None:
        b = self.body
        b.lift.command_target(b.lift.lo, abs(b.lift.position - b.lift.lo) / (LIFT_CALIBRATED_S - CALIBRATION_STARTS_S))
        b.head.command_target(b.head.lo, abs(b.head.position - b.head.lo) / (HEAD_CALIBRATED_S - CALIBRATION_STARTS_S))
        for motor in (LIFT_MOTOR, HEAD_MOTOR):
            self._calibration_report(motor, started=True)

    def _calibrated(self, motor: int) -> None:
        joint = self.body.lift if motor == LIFT_MOTOR else self.body.head
        joint.position = joint.lo
        joint.command_speed(0.0)
        self._calibration_report(motor, started=False)
        if motor == HEAD_MOTOR:
            self.motors_calibrated = True
            self.streaming = True
