"""The simulated Cozmo: the robot's end of the protocol, over real UDP.

It answers the start-up sequence (HardwareInfo, FirmwareSignature 2381, ManufacturingID,
SyncTimeAck), streams RobotState at ~33 Hz after SyncTime (the lift as the arm's angle, as a real
robot sends it), moves a simulated body (see :mod:`driver.sim.body`), acks
actions, plays back what an animation streams (head, lift, body, lights, face, audio) and keeps
what the robot would show so tests can assert on it. It can follow a scripted timeline and
inject network faults. Third-party clients (PyCozmo) connect to it as to a real robot.

What the robot would say can be heard on the host: ``play_audio=True`` (``cozmo-brain sim
--audio``) decodes every OutputAudio frame and plays it through the optional ``sounddevice``
package; ``audio_out`` takes any :class:`~driver.animation.audio.AudioSink` instead.

It sees, too: ``room`` holds a room with people and moving things (placed by the timeline's
``face``, ``face_leaves`` and ``motion`` steps), and while the engine has the camera enabled
``camera`` streams what the head would see as ImageChunk messages, grey or colour (see
:mod:`driver.sim.camera_stream`). When it stops it logs one summary line: the body's final pose,
the head angle and how many of each message it received.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections import Counter, deque
from collections.abc import Callable
from typing import Any

from ..animation.audio import AudioSink
from ..hardware import (
    DISPLAY_BLANK_AFTER_S,
    RADIO_FRAME_S,
    ROBOT_STATE_PERIOD_S,
)
from ..link import Link, LinkState, Role
from ..protocol import messages as m
from ..protocol.frame import DecodeError, RawPacket
from ..samples import lift_angle_rad
from .anim_buffer import AnimationBuffer
from .body import Body, Status, clamp
from .calibration import MotorCalibration
from .camera_stream import CameraStream, Sample, camera_pose_of, gyro_rates_of
from .cubes import CubeRadio
from .faults import NetworkFaults
from .motion_commands import MotionCommands
from .output import ANIM_STREAM, AnimationOutput, Display, Speaker
from .room import ROOM_EVENTS, Room, photos_for
from .script import Step
from .sight import RoomSight
from .table import Table
from .world import WorldEvents

log = logging.getLogger(__name__)

FIRMWARE_VERSION = 2381


# Enum members read once, as module names: on Python 3.11 reading one through its class goes
# through the enum metaclass's attribute hook, about 0.1 µs, on paths taken many times a second.
_LINKSTATE_CONNECTED = LinkState.CONNECTED
_LINKSTATE_IDLE = LinkState.IDLE
_ROLE_ROBOT = Role.ROBOT


class SimulatedCozmo(AnimationOutput, MotorCalibration, MotionCommands, WorldEvents):
    """A Cozmo robot in software, listening on UDP like the real one.

    Use ``await sim.start()`` then ``await sim.stop()`` (or ``async with``). Everything observable
    is public: ``body``, ``display``, ``speaker``, ``backpack``, ``received`` (the last
    ``record_limit`` decoded messages, for tests and tools that look at what arrived; the
    commands keep none: 50,000 of them hold some 30 MB), ``counts`` (messages by name) and
    ``link.stats``.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 5551,
        *,
        faults: NetworkFaults | None = None,
        script: list[Step] | None = None,
        record_limit: int = 50_000,
        serial_number: int = 0x45A1B2C3,
        firmware_version: int = FIRMWARE_VERSION,
        state_period: float = ROBOT_STATE_PERIOD_S,
        engine_timeout: float = 5.0,
        audio_out: AudioSink | None = None,
        play_audio: bool = False,
        table: Table | None = None,
        cubes: int = 3,
        calibrate: bool = True,
    ) -> None:
        self.host = host
        self.port = port
        self.faults = faults or NetworkFaults()
        self.script = list(script or [])
        self.serial_number = serial_number
        self.firmware_version = firmware_version
        self.state_period = state_period
        self.engine_timeout = engine_timeout
        self.body = Body(table=table)
        self.display = Display()
        self.speaker = Speaker()
        #: where decoded speaker output goes (None: nowhere; ``play_audio`` makes it the host's speakers)
        self.audio_out: AudioSink | None = audio_out
        if self.audio_out is None and play_audio:
            from ..animation.host_audio import HostAudioSink

            self.audio_out = HostAudioSink()
        self.backpack: tuple[int, ...] = (0, 0, 0, 0, 0)
        self.backpack_center: Any = None
        self.cube_lights: dict[int, Any] = {}
        self.head_light = False
        self.camera_mode = 0
        self.received: deque[Any] = deque(maxlen=record_limit)
        self.counts: Counter[str] = Counter()
        self.malformed = 0
        self.link: Link | None = None
        self.streaming = False
        self.connections = 0
        self.current_animation: int | None = None
        self._message_listeners: list[Callable[[Any], None]] = []
        self._step_listeners: list[Callable[[Step], None]] = []
        self._played_listeners: list[Callable[[Any], None]] = []
        self._sync_time = 0.0
        #: EnableAnimationState came on this connection: face, sound and keyframes are honoured.
        self.anim_ready = False
        #: Face, sound and keyframe messages that came before it and were ignored.
        self.ignored_before_anim_init = 0
        self._first_state: tuple[float, int] | None = None  # (loop time, robot ms) of the first state
        self._connected_at: float | None = None
        self._peer: tuple[str, int] | None = None
        self._since_connect: Counter[str] = Counter()
        #: the timeline's zero: the first connection (it runs on through losses and reconnects)
        self._script_t0: float | None = None
        self._script_pos = 0
        self._reverts: list[tuple[float, Callable[[], None]]] = []
        self._clock: asyncio.TimerHandle | None = None  # the body clock's next radio frame
        self._path_event_id = 0
        self._pending_actions: dict[str, int] = {}
        self._prev_status = 0
        self._body_info_sent = False
        # What the robot sees: the room's contents and the camera that streams them.
        self.room = Room(expected_photos=photos_for(self.script))
        self.camera = CameraStream(self.room, self.send, self._camera_sample)
        #: The animation stream waits here for the robot's audio clock (hardware.md §4, §7.7).
        self.anim_buffer = AnimationBuffer()
        #: After SyncTime, calibrate lift and head for about 1.3 s before the first RobotState, as a
        #: real robot does (False: report both calibrated and stream at once, for tests whose
        #: subject is not the start-up and that would only wait for it in real time).
        self.calibrate = calibrate
        self._calibration: list[tuple[float, Callable[[], None]]] = []
        #: Lift and head found their stops since the robot booted: a later connection (the engine
        #: lost and found again, the robot still powered) streams at once; a reboot forgets it.
        self.motors_calibrated = False
        #: The kit's light cubes (``cubes`` of them, numbered from 1): they connect only when asked.
        self.cubes = CubeRadio(self.send, cubes, timestamp=self._timestamp)
        self._stopped = False

    # ------------------------------------------------------------------ lifecycle

    async def start(self, *, open_link: Callable[..., Any] | None = None) -> SimulatedCozmo:
        """Bind the UDP port and start the body clock.

        ``open_link`` replaces :meth:`Link.open` (same signature), e.g. with an in-memory network's
        opener (:class:`driver.memlink.MemoryNetwork`) for offline, virtual-time runs.
        """
        self.link = await (open_link or Link.open)(
            _ROLE_ROBOT,
            (self.host, self.port),
            on_packet=self._on_packet,
            on_state=self._on_link_state,
            impairment=self.faults,
            lost_after=self.engine_timeout,
            # A real robot transmits on its radio clock: what it has to say, acks of the engine's
            # packets included, goes out with its next frame (hardware.md §3).
            clocked=True,
            ack_delay=RADIO_FRAME_S,
            name="sim",
        )
        self.port = self.link.local_address[1]
        self._start_clock(asyncio.get_running_loop())
        log.info("simulated Cozmo listening on %s:%d (firmware %d)", self.host, self.port, self.firmware_version)
        return self

    async def stop(self) -> None:
        """Stop the clock and close the socket."""
        if self._clock is not None:
            self._clock.cancel()
            self._clock = None
        if self.link is not None:
            self.link.close()
        if self.audio_out is not None:
            self.audio_out.close()
        self.camera.close()
        if self.link is not None and not self._stopped:
            self._stopped = True
            log.info("%s", self.summary())

    def summary(self) -> str:
        """One line: the body's pose, the head angle, and what was received (messages by name)."""
        b, buf = self.body, self.anim_buffer
        got = ", ".join(f"{name} {n}" for name, n in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0])))
        return (f"sim: stopped; x_mm={b.x_mm:.1f} y_mm={b.y_mm:.1f} heading_deg={math.degrees(b.angle_rad):.1f} "
                f"head_deg={math.degrees(b.head.position):.1f}; received {sum(self.counts.values())} messages"
                f" ({got or 'none'}), {self.malformed} malformed; camera frames sent {self.camera.frames_sent}; "
                f"animation buffer: high-water {buf.high_water_frames} frames/{buf.high_water_bytes} bytes, "
                f"{buf.total_dropped} frames dropped")

    async def __aenter__(self) -> SimulatedCozmo:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def address(self) -> tuple[str, int]:
        """Where engines should connect."""
        return (self.host, self.port)

    @property
    def connected(self) -> bool:
        """True while an engine holds a connection."""
        return self.link is not None and self.link.state is _LINKSTATE_CONNECTED

    # ------------------------------------------------------------------ sending

    def send(self, msg: Any) -> None:
        """Send one message to the connected engine (dropped when nobody is connected)."""
        if self.link is None or self.link.state is not _LINKSTATE_CONNECTED:
            return
        self.link.send(m.encode(msg))

    def _on_link_state(self, old: LinkState, new: LinkState) -> None:
        loop = asyncio.get_running_loop()
        if new is _LINKSTATE_CONNECTED:
            self.connections += 1
            self._connected_at = loop.time()
            self._peer = self.link.peer if self.link is not None else None
            self._since_connect.clear()
            if self._script_t0 is None:
                self._script_t0 = self._connected_at
            self.streaming = False
            self.anim_ready = False
            self.anim_buffer.clear()
            self._body_info_sent = False
            self.send(m.HardwareInfo(serial_number_head=self.serial_number, unknown1=0, unknown2=0))
            sig = json.dumps({"version": self.firmware_version, "time": 1512610000, "date": "2017-12-07",
                              "build": "SIMULATED", "sim": True})
            self.send(m.FirmwareSignature(signature=sig))
        elif new is _LINKSTATE_IDLE:
            self._log_connection("ended")
            self.streaming = False
            self._connected_at = None
            self._calibration = []
            self.cubes.forget()
            self.body.stop_all()
            self.camera.enable(0, self.camera.resolution)  # the next engine enables it again

    @property
    def connected_since(self) -> float | None:
        """Loop time of the first connection: the zero of the script's timeline (None before it)."""
        return self._script_t0

    def _log_connection(self, how: str) -> None:
        """One line per connection: who, how long, and what arrived (messages by name, most frequent first)."""
        if self._connected_at is None:
            return
        peer = f"{self._peer[0]}:{self._peer[1]}" if self._peer else "?"
        took = asyncio.get_running_loop().time() - self._connected_at
        top = ", ".join(f"{name} {n}" for name, n in self._since_connect.most_common())
        log.info("sim: connection %d from %s %s after %.1f s: %d messages (%s)", self.connections, peer, how,
                 took, sum(self._since_connect.values()), top or "none")

    # ------------------------------------------------------------------ receiving

    def _on_packet(self, raw: RawPacket) -> None:
        try:
            msg = m.decode(raw)
        except DecodeError as exc:
            self.malformed += 1
            log.debug("sim: undecodable packet: %s", exc)
            return
        name = type(msg).__name__
        self.counts[name] += 1
        self._since_connect[name] += 1
        self.received.append(msg)
        if name in ANIM_STREAM:
            if not self.anim_ready:
                # a real robot ignores face, sound and animation keyframes until the engine has set up
                # its animation controller (EnableAnimationState, Anki's InitAnimController; hardware.md §7.6)
                self.ignored_before_anim_init += 1
                if self.ignored_before_anim_init == 1:
                    log.warning("sim: %s before EnableAnimationState is ignored, as a real robot ignores it", name)
                return
            self._buffer_stream(msg, len(raw.body))  # played on the audio clock (hardware.md §4)
        elif (handler := getattr(self, f"_h_{name}", None)) is not None:
            try:
                handler(msg)
            except (TypeError, ValueError, AttributeError) as exc:
                log.warning("sim: could not act on %s: %s", name, exc)
        for listener in tuple(self._message_listeners):
            listener(msg)

    def add_message_listener(self, listener: Callable[[Any], None]) -> Callable[[], None]:
        """Call ``listener(msg)`` for every message the simulated robot receives; returns the remover."""
        return _listen(self._message_listeners, listener)

    def add_played_listener(self, listener: Callable[[Any], None]) -> Callable[[], None]:
        """Call ``listener(msg)`` for every message of the animation stream when the robot's
        audio clock plays it (hardware.md §4: what the robot shows, when it shows it; a message
        listener hears it when it arrives); returns the remover."""
        return _listen(self._played_listeners, listener)

    def add_step_listener(self, listener: Callable[[Step], None]) -> Callable[[], None]:
        """Call ``listener(step)`` before every scripted or requested step runs; returns the remover."""
        return _listen(self._step_listeners, listener)

    def _h_GetManufacturingInfo(self, msg: Any) -> None:
        # The robot answers ManufacturingID once per connection, however often the request is
        # repeated (clients send it twice); PyCozmo re-initialises on every answer it sees.
        if self._body_info_sent:
            return
        self._body_info_sent = True
        self.send(m.ManufacturingID(serial_number=self.serial_number, body_hw_version=5, body_color=0))

    def _h_SyncTime(self, msg: Any) -> None:
        now = self._sync_time = asyncio.get_running_loop().time()
        self._first_state = None
        self.send(m.SyncTimeAck())
        self.cubes.start(now)
        self._calibrate_motors(now)

    def _h_StreamObjectAccel(self, msg: Any) -> None:
        self.cubes.stream(int(msg.object_id), bool(msg.enable))

    def _h_SetPropSlot(self, msg: Any) -> None:
        self.cubes.set_slot(int(msg.factory_id), int(msg.slot))

    def _h_SetOrigin(self, msg: Any) -> None:
        self.body.x_mm = self.body.y_mm = 0.0
        self.body.angle_rad = 0.0

    def _h_SetHeadLight(self, msg: Any) -> None:
        self.head_light = bool(msg.enable)

    def _h_SetRobotVolume(self, msg: Any) -> None:
        self.speaker.volume = msg.level

    def _h_EnableCamera(self, msg: Any) -> None:
        self.camera_mode = int(msg.image_send_mode)
        self.camera.enable(msg.image_send_mode, msg.image_resolution)

    def _h_EnableColorImages(self, msg: Any) -> None:
        self.camera.colour = bool(msg.enable)

    def _h_LightStateCenter(self, msg: Any) -> None:
        self.backpack_center = msg.states

    def _h_CubeLights(self, msg: Any) -> None:
        slot = getattr(self, "_cube_id", 0)
        self.cube_lights[slot] = msg.states
        self.cubes.set_lights(slot, msg.states, getattr(self, "_cube_rotation", 0))

    def _h_CubeId(self, msg: Any) -> None:
        self._cube_id = msg.object_id
        self._cube_rotation = int(msg.rotation_period_frames)

    def _h_Disconnect(self, msg: Any) -> None:
        log.info("sim: engine disconnected")

    def _forget_all(self) -> None:
        """What a reboot clears: motion, face, sound, lights, animation, path (the world stays)."""
        picked_up, cliff, on_charger = self.body.picked_up, self.body.cliff, self.body.on_charger
        self.body = Body(table=self.body.table)
        self.body.picked_up, self.body.cliff, self.body.on_charger = picked_up, cliff, on_charger
        self.display = Display()
        self.speaker = Speaker()
        self.backpack = (0, 0, 0, 0, 0)
        self.backpack_center = None
        self.cube_lights = {}
        self.cubes.forget()
        self._calibration = []
        self.head_light = False
        self.camera_mode = 0
        self.camera.enable(0, self.camera.resolution)  # the room stays; the camera is off after a boot
        self.current_animation = None
        self._path = []
        self._pending_actions = {}

    # ------------------------------------------------------------------ the clock

    def _timestamp(self) -> int:
        loop = asyncio.get_running_loop()
        return int((loop.time() - self._sync_time) * 1000) & 0xFFFFFFFF

    def _state_timestamp(self, now: float) -> int:
        """The robot time of the state sent at loop time ``now``: exactly one state period after the last.

        A real robot samples its state every 6 ticks of its own 200 Hz loop, so timestamps step by
        exactly 30 ms whatever the host's clock does (hardware.md §2); a stalled loop skips whole
        periods. The first counts from SyncTime.
        """
        first = self._first_state
        if first is None:
            first = self._first_state = (now, int((now - self._sync_time) * 1000))
        periods = round((now - first[0]) / self.state_period)
        return (first[1] + int(round(periods * self.state_period * 1000))) & 0xFFFFFFFF

    def _start_clock(self, loop: asyncio.AbstractEventLoop) -> None:
        """The robot's clocks: a radio frame every 33.3 ms carries the states its 30 ms control
        ticks produced since the last (so about one frame in ten carries two, hardware.md §7.2),
        and the animation stream plays on its audio clock. Each frame is a loop timer that sets
        the next (no task: an 8-hour simulated day has 864,000 of them)."""
        start = loop.time()
        frame = ticks = 0
        last = start

        def radio_frame() -> None:
            nonlocal frame, ticks, last
            while True:
                now = loop.time()
                due = int((now - start) / self.state_period + 1e-9)
                if due - ticks > 3:
                    ticks = due - 1  # and whole control periods: one state for the stall
                try:
                    while ticks < due:
                        ticks += 1
                        at = start + ticks * self.state_period
                        self._tick(at, at - last)
                        last = at
                    self._play_stream(now)
                except Exception:
                    log.exception("sim: tick failed")
                if self.link is not None:
                    self.link.flush()
                frame += 1
                at = start + frame * RADIO_FRAME_S
                if at > loop.time():
                    self._clock = loop.call_at(at, radio_frame)
                    return
                # Fell behind (a stalled loop): skip missed frames instead of bursting.
                frame = int((loop.time() - start) / RADIO_FRAME_S)

        frame = 1
        self._clock = loop.call_later(RADIO_FRAME_S, radio_frame)

    def _tick(self, now: float, dt: float) -> None:
        finished = self.body.step(dt)
        if self.display.check_blank(now):
            log.info("sim: no face image for %.0f s: the screen goes dark, as a real robot's does",
                     DISPLAY_BLANK_AFTER_S)
        if "path" in finished:
            self.send(m.PathFollowingEvent(event_id=self._path_event_id, event_type=2))
        if "over the edge" in finished:
            b = self.body
            log.warning("sim: the robot's middle reached the table's edge at (%.0f, %.0f) mm, heading %.0f deg: "
                        "a real robot would have gone over", b.x_mm, b.y_mm, math.degrees(b.angle_rad))
        self._calibration_due(now)
        if self._reverts:
            due = [r for r in self._reverts if r[0] <= now]
            if due:
                self._reverts = [r for r in self._reverts if r[0] > now]
                for _, fn in due:
                    fn()
        if self._script_t0 is not None:
            elapsed = now - self._script_t0
            while self._script_pos < len(self.script) and self.script[self._script_pos].at <= elapsed:
                self.run_step(self.script[self._script_pos])
                self._script_pos += 1
        if self.connected:
            self.cubes.tick(now)
        if self.streaming and self.connected:
            stamp = self._state_timestamp(now)
            self.send(self.robot_state(stamp))
            if self.anim_ready:
                self.send(self._animation_state(stamp))

    def run_step(self, step: Step) -> None:
        """Carry out one scripted event; people and moving things go into the room."""
        for listener in tuple(self._step_listeners):
            listener(step)
        if step.event in ROOM_EVENTS:
            log.info("sim: scripted %s at %.1f s %s", step.event, step.at, step.args)
            b = self.body
            self.room.apply(step.event, step.args, (b.x_mm, b.y_mm, b.angle_rad), asyncio.get_running_loop().time())
            if step.event == "face":
                log.info("sim: %s's face is %s", step.args["face"],
                         RoomSight(self.room).where(step.args["face"], (b.x_mm, b.y_mm, 0.0, b.angle_rad),
                                                    b.head.position))
            return
        super().run_step(step)

    def _camera_sample(self) -> Sample | None:
        """The camera's pose, the robot clock and the gyro now; None while no engine takes frames."""
        if not (self.streaming and self.connected):
            return None
        return camera_pose_of(self.body), self._timestamp(), gyro_rates_of(self.body)

    def robot_state(self, timestamp: int | None = None) -> Any:
        """The RobotState message for the body as it is now (at robot time ``timestamp``, default now)."""
        b = self.body
        ax, ay, az = b.accel()
        gx, gy, gz = b.gyro()
        return m.RobotState(
            timestamp=self._timestamp() if timestamp is None else timestamp,
            pose_frame_id=0,
            pose_origin_id=1,
            pose_x=b.x_mm,
            pose_y=b.y_mm,
            pose_z=b.z_mm,
            pose_angle_rad=b.angle_rad,
            pose_pitch_rad=b.pitch_rad,
            lwheel_speed_mmps=b.left_speed,
            rwheel_speed_mmps=b.right_speed,
            head_angle_rad=b.head.position,
            lift_angle_rad=lift_angle_rad(b.lift.position),
            accel_x=ax,
            accel_y=ay,
            accel_z=az,
            gyro_x=gx,
            gyro_y=gy,
            gyro_z=gz,
            battery_voltage=b.reported_battery_v,
            status=b.status(),
            cliff_data_raw=b.cliff_raw(),
            backpack_touch_sensor_raw=0,
            curr_path_segment=int(clamp(b.path_index, 0, 255)) if b.path_active else 0,
        )


__all__ = ["Display", "SimulatedCozmo", "Speaker", "Status"]


def _listen(listeners: list[Callable[[Any], None]], listener: Callable[[Any], None]) -> Callable[[], None]:
    listeners.append(listener)

    def remove() -> None:
        if listener in listeners:
            listeners.remove(listener)

    return remove
