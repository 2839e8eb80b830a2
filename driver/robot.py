"""The Robot: the driver's public face, used by the brain.

It connects (the firmware-2381 start-up sequence), mirrors RobotState as typed samples, turns
status-flag edges, the robot's attitude (:mod:`driver.attitude`: how it lies, shaking, slopes,
pushes, read from the head's IMU) and discrete robot messages into typed events, and offers
commands. The connection (:mod:`driver.connection`), the cubes (:mod:`driver.robot_cubes`) and
the camera's stream into vision (:mod:`driver.robot_vision`) are parts of their own. Commands
that take time (head, lift, turn, paths) return an :class:`Action`: awaitable, but also
pollable with ``done()`` so a behaviour-tree node can start it on one tick and look at it on the
next. Nothing here blocks the event loop.

Event listeners are called synchronously, in the receive path: first the hazard listeners
(:meth:`Robot.add_hazard_listener`), then the ordinary ones, each tier in registration order. That
is what lets the brain's safety layer stop the motors the instant a cliff or pick-up arrives,
before the next heartbeat tick and before any other listener acts on the event, however the
listeners were registered.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
from collections.abc import Callable
from typing import Any

from . import events as ev
from .actions import Action, ActionCancelled, ActionFailed, ActionTimeout
from .animation.budget import AUDIO_MESSAGES, BUFFERED, StreamBudget
from .attitude import Attitude, describe
from .connection import RobotConnection, RobotError
from .cubes import CubeMotion, CubePool
from .hardware import HEAD_ARRIVED_RAD, HEAD_MAX_RAD, HEAD_MIN_RAD, LIFT_ARRIVED_MM, LIFT_MAX_MM, LIFT_MIN_MM
from .link import Address, Link, LinkStats
from .protocol import messages as m
from .protocol.frame import DecodeError, RawPacket
from .protocol.linkstate import Backoff
from .robot_cubes import RobotCubes
from .robot_vision import RobotVision
from .samples import RobotStateSample, RobotStatus, state_from_message
from .startup import RobotInfo, StartUp, firmware_problem

log = logging.getLogger(__name__)

#: The status flags a StatusChanged can name, in their order, with their bits.
_STATUS_BITS = tuple((flag, int(flag)) for flag in RobotStatus)
#: The status bits of a robot that moves: a motor turns, or an animation plays from its buffer.
_MOVING_BITS = int(RobotStatus.IS_MOVING | RobotStatus.ARE_WHEELS_MOVING | RobotStatus.IS_ANIMATING)
#: The commands that set a motor going.
_MOTION_MESSAGES = frozenset({
    "DriveWheels", "DriveWheelsCurvature", "ExecutePath", "MoveHead", "MoveLift", "SetHeadAngle", "SetLiftHeight",
    "StartMotorCalibration", "TurnInPlace", "TurnInPlaceAtSpeed", "TurnToRecordedHeading",
})
#: A motion command counts as motion until a RobotState this much later (s) says otherwise: the
#: robot reports a motor it was told to move some states after the command.
STILL_AFTER_S = 0.25

__all__ = ["Action", "ActionCancelled", "ActionFailed", "ActionTimeout", "Robot", "RobotError", "RobotInfo"]

DEFAULT_ADDRESS: Address = ("172.31.1.1", 5551)


EventListener = Callable[[ev.RobotEvent], None]


class Robot(RobotCubes, RobotVision, RobotConnection):
    """A connection to one Cozmo (real or simulated) and everything it does.

    How it connects and reconnects (and what ``reconnect_initial_s``, ``reconnect_max_s``,
    ``connect_timeout_s`` and ``startup_timeout_s`` mean): :class:`~driver.connection.RobotConnection`.
    Two Robots can live in one process; nothing is global.
    """

    def __init__(
        self,
        host: str = DEFAULT_ADDRESS[0],
        port: int = DEFAULT_ADDRESS[1],
        *,
        lost_after: float = 3.0,
        reconnect_initial_s: float = 0.5,
        reconnect_max_s: float = 10.0,
        connect_timeout_s: float | None = None,
        startup_timeout_s: float = 5.0,
        local_addr: Address = ("0.0.0.0", 0),
        stop_on_cliff: bool = True,
        connect_cubes: bool = True,
        name: str = "robot",
    ) -> None:
        Backoff(reconnect_initial_s, reconnect_max_s)  # checks the pair, with a clear message
        if connect_timeout_s is not None and connect_timeout_s <= 0:
            raise ValueError(f"connect_timeout_s must be positive or None, got {connect_timeout_s}")
        self.address: Address = (host, port)
        self.lost_after = lost_after
        self.reconnect_initial_s = reconnect_initial_s
        self.reconnect_max_s = reconnect_max_s
        self.connect_timeout_s = connect_timeout_s
        self.local_addr = local_addr
        self.stop_on_cliff = stop_on_cliff
        #: Connect one cube of each type as they advertise (Anki's engine did; the robot never does
        #: by itself). Off: cubes stay unconnected, and their taps reach no one.
        self.connect_cubes = connect_cubes
        self.cubes = CubePool()
        #: how much each streaming cube (by slot) is being moved: see :meth:`stream_cube_accel`
        self.cube_motion: dict[int, CubeMotion] = {}
        self.name = name
        self.info = RobotInfo()
        self.state: RobotStateSample | None = None
        self.link: Link | None = None
        self.malformed_messages = 0
        #: the last image sent to the face display (run-length encoded, see driver.animation.display)
        self.display_shown: bytes | None = None
        #: times the robot was lost, and reconnected after it
        self.losses = 0
        self.reconnects = 0
        self._listeners: list[EventListener] = []
        self._hazard_listeners: list[EventListener] = []
        self._msg_listeners: list[Callable[[Any], None]] = []
        self._actions: dict[str, Action] = {}
        self._action_by_id: dict[int, Action] = {}
        self._next_action_id = 0
        #: Counts wheel commands (drive, turn, path, stop all): a node that drove the wheels stops
        #: them when it ends only if nobody has commanded them since.
        self.wheel_commands = 0
        self._path_event_id = 0
        self._startup = StartUp(self._send_start_up, startup_timeout_s)
        self._ready = False
        self._lost_at: float | None = None
        self._in_connect = False
        self._closed = False
        self._resume: asyncio.Task[None] | None = None
        #: Reads the IMU of every RobotState: how the robot lies (OrientationChanged, ReturnedToTreads),
        #: Shaken, PlacedOnSlope, UnexpectedMovement.
        self.attitude = Attitude()
        #: The robot's animation buffer as the engine sees it (sent minus AnimationState's played).
        self.anim_budget = StreamBudget()
        #: loop time of the last motion command (see :attr:`still`)
        self._moved_at = -math.inf

    async def __aenter__(self) -> Robot:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.disconnect()

    @property
    def orientation(self) -> str:
        """How the robot lies now: ``upright`` (on its treads), ``in_air``, ``on_back``, ``on_face``,
        ``on_left_side``, ``on_right_side`` or ``falling``."""
        return self.attitude.state

    @property
    def still(self) -> bool:
        """True when nothing of the robot moves or was just told to: no action in flight, no motion
        command in the :data:`STILL_AFTER_S` before the latest RobotState, and that state shows no
        motor turning and no animation playing.

        A still robot has no motor for the safety layer to stop, so what it sends may be read less
        often (:meth:`driver.animation.controller.AnimationController.next_read_after`).
        """
        s = self.state
        return s is not None and not self._actions and not int(s.status) & _MOVING_BITS \
            and s.received_at - self._moved_at > STILL_AFTER_S

    @property
    def stats(self) -> LinkStats:
        """Link statistics (sent, resent, dropped, RTT)."""
        assert self.link is not None
        return self.link.stats

    # ------------------------------------------------------------------ events

    def add_listener(self, listener: EventListener) -> Callable[[], None]:
        """Call ``listener`` for every robot event; returns a function that removes it."""
        return self._register(self._listeners, listener)

    def add_hazard_listener(self, listener: EventListener) -> Callable[[], None]:
        """Call ``listener`` for every robot event before any ordinary listener sees it.

        For the safety layer: a motor stop it sends reaches the robot before anything another
        listener sends in answer to the same event, whichever was registered first. Returns a
        function that removes it.
        """
        return self._register(self._hazard_listeners, listener)

    @staticmethod
    def _register(listeners: list[EventListener], listener: EventListener) -> Callable[[], None]:
        listeners.append(listener)

        def remove() -> None:
            with contextlib.suppress(ValueError):
                listeners.remove(listener)

        return remove

    def add_message_listener(self, listener: Callable[[Any], None]) -> Callable[[], None]:
        """Call ``listener`` with every decoded message (for tools and diagnostics)."""
        self._msg_listeners.append(listener)
        return lambda: self._msg_listeners.remove(listener) if listener in self._msg_listeners else None

    async def wait_for(self, kind: str, timeout: float | None = None,
                       predicate: Callable[[ev.RobotEvent], bool] | None = None) -> ev.RobotEvent:
        """Wait for the next event of ``kind`` (a name of :data:`driver.events.EVENT_KINDS`,
        optionally matching ``predicate``); ValueError at once for a name that is none."""
        event_type = ev.EVENT_KINDS.get(kind)
        if event_type is None:
            raise ValueError(f"unknown robot event kind {kind!r}; known: {', '.join(sorted(ev.EVENT_KINDS))}")
        fut: asyncio.Future[ev.RobotEvent] = asyncio.get_running_loop().create_future()

        def listener(e: ev.RobotEvent) -> None:
            if event_type.matches(e) and not fut.done() and (predicate is None or predicate(e)):
                fut.set_result(e)

        remove = self.add_listener(listener)
        try:
            return await asyncio.wait_for(fut, timeout)
        finally:
            remove()

    def _emit(self, event: ev.RobotEvent) -> None:
        if isinstance(event, (ev.Connected, ev.Reconnected)):
            self._ask_for_cubes(self.cubes.poll(self._now()))  # adverts that came during the start-up
        for listener in (*self._hazard_listeners, *self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("%s: event listener failed on %s", self.name, event.kind)

    # ------------------------------------------------------------------ receiving

    def _on_packet(self, raw: RawPacket) -> None:
        try:
            msg = m.decode(raw)
        except DecodeError as exc:
            self.malformed_messages += 1
            log.debug("%s: dropped undecodable packet: %s", self.name, exc)
            return
        handler = self._handlers.get(type(msg).__name__)
        if handler is not None:
            try:
                handler(self, msg)
            except Exception:
                log.exception("%s: failed to handle %s", self.name, type(msg).__name__)
        for listener in list(self._msg_listeners):
            listener(msg)

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    def _resolve(self, key: str) -> None:
        self._startup.answered(key)

    def _on_robot_state(self, msg: Any) -> None:
        sample = state_from_message(msg, self._now())
        prev = self.state
        self.state = sample
        self._resolve("state")
        if prev is not None and prev.status is not sample.status:  # a Flag value is one cached object
            # in ints: a Flag's own ^ and & make new Flags through Python-level calls
            now_bits = int(sample.status)
            changed = int(prev.status) ^ now_bits
            for flag, bit in _STATUS_BITS:
                if changed & bit:
                    self._emit(ev.StatusChanged(sample.received_at, flag, bool(now_bits & bit),
                                                sample.status, prev.status))
        for event in self.attitude.update(sample):
            log.info("%s: %s", self.name, describe(event))
            self._emit(event)
        for action in list(self._actions.values()):
            action._check(sample)

    def _on_firmware(self, msg: Any) -> None:
        try:
            info = json.loads(msg.signature)
            version = int(info.get("version", 0))
        except (ValueError, TypeError, AttributeError):
            info, version = None, 0
        self.info.firmware, self.info.firmware_version = info, version
        refused, warning = firmware_problem(version)
        if refused:
            self._startup.fail(refused, refused=True)
            return
        if warning:
            log.warning("%s: %s", self.name, warning)
        self._resolve("firmware")

    def _on_motor_calibration(self, msg: Any) -> None:
        self.attitude.motor_calibration(int(msg.motor_id), bool(msg.calib_started))
        self._startup.calibrating(int(msg.motor_id), bool(msg.calib_started))  # the start-up waits for it
        self._emit(ev.MotorCalibration(self._now(), motor_id=int(msg.motor_id), started=bool(msg.calib_started)))

    def _on_hardware(self, msg: Any) -> None:
        self.info.serial_number = int(msg.serial_number_head)

    def _on_body(self, msg: Any) -> None:
        self.info.body_hw_version = int(msg.body_hw_version)
        self.info.body_color = int(msg.body_color)
        if not self.info.serial_number:
            self.info.serial_number = int(msg.serial_number)
        self._resolve("body")

    def _on_animation_ended(self, msg: Any) -> None:
        # Its buffered frames may have moved the head, lift or treads after a command for them was
        # sent: the commands of actions still under way go again (turns to their heading).
        for slot in ("head", "lift", "wheels"):
            action = self._actions.get(slot)
            if action is not None and action.command is not None and not action.done() and self._ready:
                self.send(action.command)
        self._emit(ev.AnimationEnded(self._now(), anim_id=int(msg.anim_id)))

    def _on_ack(self, msg: Any) -> None:
        action = self._action_by_id.get(int(msg.action_id))
        if action is not None:
            action._acknowledged()  # not finished here: the state at hand is from before the motion

    def _on_path(self, msg: Any) -> None:
        states = {0: "started", 1: "interrupted", 2: "completed"}
        state = states.get(int(msg.event_type), str(msg.event_type))
        self._emit(ev.PathFollowing(self._now(), event_id=int(msg.event_id), state=state))
        action = self._actions.get("path")
        if action is not None and action.action_id == int(msg.event_id):
            if state == "completed":
                action._finish(None)
            elif state == "interrupted":
                action._finish(ActionCancelled("path interrupted"))

    _handlers: dict[str, Callable[[Robot, Any], None]] = {
        "RobotState": _on_robot_state,
        "FirmwareSignature": _on_firmware,
        "HardwareInfo": _on_hardware,
        "ManufacturingID": _on_body,
        "AcknowledgeAction": _on_ack,
        "PathFollowingEvent": _on_path,
        "ButtonPressed": lambda self, msg: self._emit(ev.ButtonPressed(self._now(), pressed=bool(msg.pressed))),
        "RobotPoked": lambda self, msg: self._emit(ev.Poked(self._now())),
        "SyncTimeAck": lambda self, msg: log.debug("%s: the robot acknowledged SyncTime", self.name),
        "CliffEvent": lambda self, msg: self._emit(ev.CliffReported(
            self._now(), detected=bool(msg.detected_flags), stopped=bool(msg.did_stop_for_cliff),
            sensors=int(msg.detected_flags))),
        "PotentialCliff": lambda self, msg: self._emit(ev.PotentialCliff(self._now())),
        "RobotStopped": lambda self, msg: self._emit(ev.RobotStopped(self._now(), reason=int(msg.reason))),
        "MotorAutoEnabled": lambda self, msg: self._emit(ev.MotorAutoEnabled(
            self._now(), motor_id=int(msg.motor_id), enabled=bool(msg.enabled))),
        "ObjectTapped": lambda self, msg: self._emit(
            ev.CubeTapped(self._now(), object_id=int(msg.object_id), taps=int(msg.num_taps))),
        "ObjectMoved": lambda self, msg: self._emit(ev.CubeMoved(self._now(), object_id=int(msg.object_id))),
        "ObjectStoppedMoving": lambda self, msg: self._emit(
            ev.CubeStopped(self._now(), object_id=int(msg.object_id))),
        "ObjectConnectionState": RobotCubes._on_cube_connection,
        "ObjectAccel": RobotCubes._on_cube_accel,
        "ObjectUpAxisChanged": RobotCubes._on_cube_up_axis,
        "ObjectAvailable": RobotCubes._on_cube_advert,
        "FallingStarted": lambda self, msg: self._emit(ev.FallingStarted(self._now())),
        "FallingStopped": lambda self, msg: self._emit(ev.FallingStopped(
            self._now(), duration_ms=int(msg.duration_ms), impact_intensity=float(msg.impact_intensity))),
        "AnimationStarted": lambda self, msg: self._emit(ev.AnimationStarted(self._now(), anim_id=int(msg.anim_id))),
        "AnimationEnded": _on_animation_ended,
        "MotorCalibration": _on_motor_calibration,
        "AnimationState": lambda self, msg: self.anim_budget.played(
            int(msg.num_audio_frames_played), int(msg.num_anim_bytes_played), int(msg.client_drop_count)),
    }

    # ------------------------------------------------------------------ commands

    def send(self, msg: Any) -> None:
        """Send any message (sequenced or out-of-band as its type says).

        Raises :class:`RobotError` unless connected and started up: a command made while the
        robot is lost (or before it is back from its start-up sequence) is never kept for later.
        """
        if not self._ready or self.link is None:
            raise RobotError(self._why_not_ready())
        packet = m.encode(msg)
        if msg.NAME in _MOTION_MESSAGES:
            self._moved_at = self._now()
        if msg.NAME in BUFFERED:  # what waits in the robot's animation buffer, counted
            self.anim_budget.sent(len(packet.body), closes_frame=msg.NAME in AUDIO_MESSAGES)
        self.link.send(packet)

    def _new_action(self, slot: str, action_id: int | None, timeout: float,
                    is_finished: Callable[[RobotStateSample], bool]) -> Action:
        if not self._ready:
            raise RobotError(self._why_not_ready())
        old = self._actions.get(slot)
        if old is not None:
            old.cancel(f"superseded by a new {slot} command")
        action = Action(self, slot, action_id, timeout, is_finished)
        self._actions[slot] = action
        if action_id is not None and slot != "path":
            self._action_by_id[action_id] = action
        return action

    def _forget(self, action: Action) -> None:
        if self._actions.get(action.kind) is action:
            del self._actions[action.kind]
        if action.action_id is not None and self._action_by_id.get(action.action_id) is action:
            del self._action_by_id[action.action_id]

    def _action_id(self) -> int:
        self._next_action_id = self._next_action_id % 255 + 1
        return self._next_action_id

    def set_head_angle(self, angle_rad: float, *, max_speed: float = 15.0, accel: float = 20.0,
                       duration: float = 0.0, timeout: float = 5.0) -> Action:
        """Move the head to ``angle_rad`` (clamped to −25°…44.5°)."""
        target = min(HEAD_MAX_RAD, max(HEAD_MIN_RAD, angle_rad))
        aid = self._action_id()
        action = self._new_action("head", aid, timeout, lambda s: s.has(RobotStatus.HEAD_IN_POS)
                                  and abs(s.proprioception.head_angle_rad - target) < HEAD_ARRIVED_RAD)
        action.command = m.SetHeadAngle(angle_rad=target, max_speed_rad_per_sec=max_speed,
                                        accel_rad_per_sec2=accel, duration_sec=duration, action_id=aid)
        self.send(action.command)
        return action

    def set_lift_height(self, height_mm: float, *, max_speed: float = 3.0, accel: float = 20.0,
                        duration: float = 0.0, timeout: float = 5.0) -> Action:
        """Move the lift to ``height_mm`` (clamped to 32…92 mm)."""
        target = min(LIFT_MAX_MM, max(LIFT_MIN_MM, height_mm))
        aid = self._action_id()
        action = self._new_action("lift", aid, timeout, lambda s: s.has(RobotStatus.LIFT_IN_POS)
                                  and abs(s.proprioception.lift_height_mm - target) < LIFT_ARRIVED_MM)
        action.command = m.SetLiftHeight(height_mm=target, max_speed_rad_per_sec=max_speed,
                                         accel_rad_per_sec2=accel, duration_sec=duration, action_id=aid)
        self.send(action.command)
        return action

    def calibrate_motors(self, *, head: bool = True, lift: bool = False) -> None:
        """Drive the head and/or lift to their stops to find zero again; MotorCalibration events
        (started, then done) report the progress."""
        self.send(m.StartMotorCalibration(head=head, lift=lift))

    def turn_in_place(self, angle_rad: float, *, speed: float = math.pi, accel: float = 10.0,
                      tolerance: float = math.radians(2), absolute: bool = False, timeout: float = 10.0) -> Action:
        """Turn by (or to, with ``absolute``) ``angle_rad``."""
        self.wheel_commands += 1
        start = self.state.proprioception.pose.angle_rad if self.state else 0.0
        target = angle_rad if absolute else start + angle_rad
        aid = self._action_id()

        def finished(s: RobotStateSample) -> bool:
            err = math.atan2(math.sin(target - s.proprioception.pose.angle_rad),
                             math.cos(target - s.proprioception.pose.angle_rad))
            return abs(err) <= tolerance + math.radians(2) and not s.has(RobotStatus.ARE_WHEELS_MOVING)

        action = self._new_action("wheels", aid, timeout, finished)
        self.send(m.TurnInPlace(angle_rad=angle_rad, speed_rad_per_sec=speed, accel_rad_per_sec2=accel,
                                angle_tolerance_rad=tolerance, is_absolute=absolute, action_id=aid))
        action.command = m.TurnInPlace(angle_rad=target, speed_rad_per_sec=speed, accel_rad_per_sec2=accel,
                                       angle_tolerance_rad=tolerance, is_absolute=True, action_id=aid)
        return action

    def drive_path(self, segments: list[tuple[str, dict[str, float]]], timeout: float = 30.0) -> Action:
        """Follow a path of ``("line"|"arc"|"turn", params)`` segments; completes on PathFollowingEvent."""
        self.wheel_commands += 1
        self._path_event_id = self._path_event_id % 255 + 1
        eid = self._path_event_id
        old = self._actions.get("wheels")
        if old is not None:
            old.cancel("superseded by a path")
        action = self._new_action("path", eid, timeout, lambda s: False)
        action._acknowledged()
        self.send(m.ClearPath())
        kinds = {"line": m.AppendPathSegLine, "arc": m.AppendPathSegArc, "turn": m.AppendPathSegPointTurn}
        for kind, params in segments:
            cls = kinds.get(kind)
            if cls is None:
                raise ValueError(f"unknown path segment {kind!r}; expected line, arc or turn")
            self.send(cls(**params))
        self.send(m.ExecutePath(event_id=eid))
        return action

    def drive_wheels(self, left_mmps: float, right_mmps: float, left_accel: float = 0.0,
                     right_accel: float = 0.0) -> None:
        """Set wheel speeds (mm/s); cancels a turn or path in progress."""
        self.wheel_commands += 1
        for slot in ("wheels", "path"):
            if slot in self._actions:
                self._actions[slot].cancel("wheels commanded directly")
        self.send(m.DriveWheels(lwheel_speed_mmps=left_mmps, rwheel_speed_mmps=right_mmps,
                                lwheel_accel_mmps2=left_accel, rwheel_accel_mmps2=right_accel))

    def move_head(self, speed_rad_per_sec: float) -> None:
        """Move the head continuously (0 stops)."""
        if "head" in self._actions:
            self._actions["head"].cancel("head commanded directly")
        self.send(m.MoveHead(speed_rad_per_sec=speed_rad_per_sec))

    def move_lift(self, speed_rad_per_sec: float) -> None:
        """Move the lift continuously (0 stops)."""
        if "lift" in self._actions:
            self._actions["lift"].cancel("lift commanded directly")
        self.send(m.MoveLift(speed_rad_per_sec=speed_rad_per_sec))

    def stop_all_motors(self) -> None:
        """Stop wheels, head and lift now; cancels every action in progress."""
        self.wheel_commands += 1
        for action in list(self._actions.values()):
            action.cancel("all motors stopped")
        self.send(m.StopAllMotors())

    def set_backpack_lights(self, colors: tuple[int, int, int, int, int]) -> None:
        """Set the five backpack LEDs (left, front, middle, back, right) as RGB555 words."""
        self.send(m.AnimBackpackLights(colors=list(colors)))

    def set_backpack_light_states(self, states: list[Any]) -> None:
        """Set the three centre backpack LEDs with full LightState patterns (blinks, fades)."""
        self.send(m.LightStateCenter(states=states))

    def set_head_light(self, enable: bool) -> None:
        """Switch the IR head light."""
        self.send(m.SetHeadLight(enable=enable))

    def set_volume(self, level: int) -> None:
        """Speaker volume, 0…65535."""
        self.send(m.SetRobotVolume(level=max(0, min(65535, int(level)))))

    def enable_camera(self, enable: bool = True, color: bool = False) -> None:
        """Start (or stop) camera streaming at QVGA."""
        self.send(m.EnableCamera(image_send_mode=1 if enable else 0, image_resolution=4))
        self.send(m.EnableColorImages(enable=color))

    def set_camera_params(self, gain: float, exposure_ms: int, auto_exposure: bool = False) -> None:
        """Manual gain/exposure, or auto exposure."""
        self.send(m.SetCameraParams(gain=gain, exposure_ms=exposure_ms, auto_exposure_enabled=auto_exposure))

    def display_image(self, encoded: bytes) -> None:
        """Show a run-length-encoded 128×32 image on the face (see driver.animation.display)."""
        self.send(m.DisplayImage(image=encoded))
        self.display_shown = encoded

    def play_audio_frame(self, samples: bytes | None) -> None:
        """Send one animation frame of audio: 744 µ-law bytes, or None for silence."""
        if samples is None:
            self.send(m.OutputSilence())
        else:
            self.send(m.OutputAudio(samples=samples))

    # ================================================================== clocked frames
    # The animation controller's interface (driver.clocked.AnimationTarget), delegated to the
    # link's public frame_at / flush and its release-thread settings; nothing above uses it.

    #: release-thread settings asked for (priority, cpu), and the link they were given to
    _frame_release: tuple[int | None, int | None] = (None, None)
    _frame_release_link: Link | None = None
    #: the clock the link reads the socket on (None: as datagrams arrive): read_input_on
    _input_clock: Callable[[float], float] | None = None
    #: the link a frame begun with begin_frame gathers on, until end_frame
    _framing: Link | None = None

    def frame_at(self, at: float) -> contextlib.AbstractContextManager[None]:
        """Send every message sent inside the block as one frame, on the wire at loop time ``at``
        (see :meth:`driver.link.Link.frame_at`). Raises :class:`RobotError` before :meth:`connect`."""
        return self._frame_link().frame_at(at)

    def begin_frame(self) -> None:
        """Start a frame as entering :meth:`frame_at` does; :meth:`end_frame` always follows
        (the animation controller's way, without a ``with`` block's generator each frame).
        Raises :class:`RobotError` before :meth:`connect`."""
        link = self._frame_link()
        link.begin_frame()
        self._framing = link

    def end_frame(self, at: float, *, early: bool = False) -> None:
        """Send the frame :meth:`begin_frame` started (on the link it started on), on the wire
        at loop time ``at`` (``early``: as soon as the frames before it went; see
        :meth:`driver.link.Link.end_frame`)."""
        link, self._framing = self._framing, None
        if link is not None:
            link.end_frame(at, early=early)

    def flush(self) -> None:
        """Put what was sent so far on the wire now rather than on the event loop's next turn."""
        self._frame_link().flush()

    def set_frame_release(self, *, priority: int | None = None, cpu: int | None = None) -> None:
        """SCHED_FIFO ``priority`` and ``cpu`` for the thread that releases clocked frames (None:
        the link's own); given to each connection's link before its first clocked frame."""
        self._frame_release = (priority, cpu)
        self._frame_release_link = None

    def read_input_on(self, clock: Callable[[float], float] | None) -> None:
        """Read what the robot sends on ``clock`` (see :attr:`driver.link.Link.input_clock`)
        once a connection's start-up sequence is done (its answers are taken as they arrive)."""
        self._input_clock = clock
        if self.link is not None and self._ready:
            self.link.input_clock = clock

    @property
    def input_on_clock(self) -> bool:
        """True while what the robot sends is read only on the clock (see :meth:`read_input_on`)."""
        return self.link is not None and self.link.input_on_clock

    def poll_input(self) -> None:
        """Take in what the robot sent and was not read yet (reading on a clock)."""
        if self.link is not None:
            self.link.poll_input()

    def _frame_link(self) -> Link:
        link = self.link
        if link is None:
            raise RobotError("not connected")
        if self._frame_release_link is not link:
            priority, cpu = self._frame_release
            link.release_priority = priority if priority is not None else link.release_priority
            link.release_cpu = cpu if cpu is not None else link.release_cpu
            self._frame_release_link = link
        return link
