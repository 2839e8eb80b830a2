"""Typed robot events: edges of the status flags and the robot's discrete messages.

Cliff, picked-up, falling and on-charger exist on the wire only as bits of RobotState.status;
behaviours want to know when they *change*. The Robot turns each edge into a
:class:`StatusChanged` with a readable ``kind``; its attitude (:mod:`driver.attitude`, read from
the head's IMU the way Anki's engine did) into :class:`OrientationChanged` (in the air, on its
back, face or side, falling, on its treads again), :class:`ReturnedToTreads`, :class:`Shaken`,
:class:`PlacedOnSlope` and :class:`UnexpectedMovement`; and discrete messages (button, poke, cube
tap, animation started, …) into their own event classes. Every event carries ``at``, the host's
monotonic time in seconds.

Consumers tell events apart by their type (``isinstance``, tables keyed by class or by status
flag), never by comparing ``kind`` strings. ``kind`` is the stable name logs, reports and
personality files use; :data:`EVENT_KINDS` is the one table from those names to types
(:class:`EventType`), built from the classes below and :data:`FLAG_KINDS`, so a name a file gives
either resolves to a type at load time or is reported there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar

from .samples import RobotStatus

#: How the robot lies or moves, by the stable names events and personality files use; Anki's
#: engine called these states OnTreads, InAir, OnBack, OnFace, OnLeftSide, OnRightSide and
#: Falling (:data:`ENGINE_NAMES`).
UPRIGHT = "upright"
IN_AIR = "in_air"
ON_BACK = "on_back"
ON_FACE = "on_face"
ON_LEFT_SIDE = "on_left_side"
ON_RIGHT_SIDE = "on_right_side"
FALLING = "falling"
ORIENTATIONS: tuple[str, ...] = (UPRIGHT, IN_AIR, ON_BACK, ON_FACE, ON_LEFT_SIDE, ON_RIGHT_SIDE, FALLING)
#: Orientation name → the engine's name for the state.
ENGINE_NAMES: dict[str, str] = {
    UPRIGHT: "OnTreads", IN_AIR: "InAir", ON_BACK: "OnBack", ON_FACE: "OnFace", ON_LEFT_SIDE: "OnLeftSide",
    ON_RIGHT_SIDE: "OnRightSide", FALLING: "Falling",
}

#: status flag -> event kind (the name reactions and conditions use)
FLAG_KINDS: dict[RobotStatus, str] = {
    RobotStatus.CLIFF_DETECTED: "cliff",
    RobotStatus.IS_PICKED_UP: "picked_up",
    RobotStatus.IS_FALLING: "falling",
    RobotStatus.IS_ON_CHARGER: "on_charger",
    RobotStatus.IS_CHARGING: "charging",
    RobotStatus.IS_MOVING: "moving",
    RobotStatus.ARE_WHEELS_MOVING: "wheels_moving",
    RobotStatus.HEAD_IN_POS: "head_in_position",
    RobotStatus.LIFT_IN_POS: "lift_in_position",
    RobotStatus.IS_ANIMATING: "animating",
    RobotStatus.IS_ANIMATING_IDLE: "animating_idle",
    RobotStatus.IS_PATHING: "pathing",
    RobotStatus.IS_CARRYING_BLOCK: "carrying_block",
    RobotStatus.IS_PICKING_OR_PLACING: "picking_or_placing",
    RobotStatus.IS_BODY_ACC_MODE: "body_acc_mode",
    RobotStatus.IS_ANIM_BUFFER_FULL: "anim_buffer_full",
    RobotStatus.IS_CHARGER_OOS: "charger_out_of_spec",
}


@dataclass(frozen=True)
class RobotEvent:
    """Base of all robot events; ``kind`` is a stable snake_case name."""

    at: float
    KIND: ClassVar[str] = "event"

    @property
    def kind(self) -> str:
        """The event's stable name, e.g. ``cliff`` or ``cube_tapped``."""
        return self.KIND


@dataclass(frozen=True)
class StatusChanged(RobotEvent):
    """A status flag turned on (``value`` True) or off; ``status`` and ``before`` are the whole
    status words of the state that changed it and of the one before."""

    flag: RobotStatus = RobotStatus(0)
    value: bool = False
    status: int = 0
    before: int = 0

    @property
    def kind(self) -> str:
        """The flag's event name, e.g. ``cliff`` or ``picked_up``."""
        return FLAG_KINDS.get(self.flag, self.flag.name or "status")

    @property
    def held(self) -> bool:
        """The robot was picked up (or lay off its treads) in the state that changed the flag."""
        return bool(self.status & RobotStatus.IS_PICKED_UP)

    @property
    def edge_of_the_floor(self) -> bool:
        """A cliff met while driving: the cliff flag turned on with the wheels moving just before
        and the robot not held. The cliff sensor also loses the floor when the robot is lifted,
        tipped over or put down at an edge; those are not edges it drove to (Anki's engine holds
        its cliff report 500 ms to rule out a pick-up)."""
        return (self.flag == RobotStatus.CLIFF_DETECTED and self.value
                and bool(self.before & RobotStatus.ARE_WHEELS_MOVING)
                and not self.held)


@dataclass(frozen=True)
class Connected(RobotEvent):
    """The start-up sequence finished; the robot streams state."""
    KIND: ClassVar[str] = "connected"

    firmware_version: int = 0


@dataclass(frozen=True)
class RobotLost(RobotEvent):
    """No frames from the robot for the configured time."""
    KIND: ClassVar[str] = "robot_lost"

    silent_for_s: float = 0.0


@dataclass(frozen=True)
class RobotRecovered(RobotEvent):
    """The robot answers again after it was lost (a new handshake; the start-up sequence follows)."""
    KIND: ClassVar[str] = "robot_recovered"


@dataclass(frozen=True)
class Reconnected(RobotEvent):
    """The robot is back after a loss: start-up sequence done again, state streaming, mirror fresh."""
    KIND: ClassVar[str] = "reconnected"

    firmware_version: int = 0
    #: seconds from the loss being noticed to now
    lost_for_s: float = 0.0


@dataclass(frozen=True)
class Disconnected(RobotEvent):
    """The link closed."""
    KIND: ClassVar[str] = "disconnected"


@dataclass(frozen=True)
class ButtonPressed(RobotEvent):
    """The backpack button went down (``pressed``) or up."""
    KIND: ClassVar[str] = "button"

    pressed: bool = True


@dataclass(frozen=True)
class Poked(RobotEvent):
    """Someone poked the robot."""
    KIND: ClassVar[str] = "poked"


@dataclass(frozen=True)
class CliffReported(RobotEvent):
    """The robot's own cliff report (CliffEvent): a cliff it held for 500 ms to rule out a
    pick-up (``detected``), or the floor back (not ``detected``). The CLIFF_DETECTED status flag
    (kind ``cliff``) changes at once; this says whether the firmware stopped the wheels."""
    KIND: ClassVar[str] = "cliff_reported"

    detected: bool = True
    stopped: bool = False
    sensors: int = 0


@dataclass(frozen=True)
class PotentialCliff(RobotEvent):
    """A cliff reading while the robot's stop-on-cliff is off."""
    KIND: ClassVar[str] = "potential_cliff"


@dataclass(frozen=True)
class RobotStopped(RobotEvent):
    """The firmware stopped the motors by itself (``reason`` as the robot gives it)."""
    KIND: ClassVar[str] = "robot_stopped"

    reason: int = 0


@dataclass(frozen=True)
class MotorAutoEnabled(RobotEvent):
    """The firmware switched a motor off (``enabled`` False) or back on by itself; the lift goes
    off when someone forces it (2 = lift, 3 = head)."""
    KIND: ClassVar[str] = "motor_auto_enabled"

    motor_id: int = 0
    enabled: bool = True


@dataclass(frozen=True)
class CubeTapped(RobotEvent):
    """A light cube was tapped ``taps`` times; the event's ``value`` is ``double`` for two or more
    taps at once (Anki's DoubleTapDetected), else ``single``."""
    KIND: ClassVar[str] = "cube_tapped"

    object_id: int = 0
    taps: int = 1

    @property
    def value(self) -> str:
        """``double`` or ``single`` (what an event filter's ``value`` is compared with)."""
        return "double" if self.taps >= 2 else "single"


@dataclass(frozen=True)
class CubeMoved(RobotEvent):
    """A light cube started moving."""
    KIND: ClassVar[str] = "cube_moved"

    object_id: int = 0


@dataclass(frozen=True)
class CubeStopped(RobotEvent):
    """A light cube stopped moving."""
    KIND: ClassVar[str] = "cube_stopped"

    object_id: int = 0


@dataclass(frozen=True)
class CubeUpAxisChanged(RobotEvent):
    """A light cube was turned onto another face: ``axis`` is the one pointing up now
    (``Z_POSITIVE`` upright, ``Z_NEGATIVE`` upside down …)."""
    KIND: ClassVar[str] = "cube_up_axis"

    object_id: int = 0
    axis: str = "UNKNOWN"

    @property
    def value(self) -> str:
        """The face up now, for ``event: {kind: cube_up_axis, value: Z_NEGATIVE}``."""
        return self.axis


@dataclass(frozen=True)
class CubeConnection(RobotEvent):
    """A light cube connected or disconnected."""
    KIND: ClassVar[str] = "cube_connection"

    object_id: int = 0
    factory_id: int = 0
    connected: bool = True


@dataclass(frozen=True)
class FallingStarted(RobotEvent):
    """Free fall detected."""
    KIND: ClassVar[str] = "falling_started"


@dataclass(frozen=True)
class FallingStopped(RobotEvent):
    """The fall ended, with its length and impact."""
    KIND: ClassVar[str] = "falling_stopped"

    duration_ms: int = 0
    impact_intensity: float = 0.0


@dataclass(frozen=True)
class AnimationStarted(RobotEvent):
    """The robot began playing a streamed animation."""
    KIND: ClassVar[str] = "animation_started"

    anim_id: int = 0


@dataclass(frozen=True)
class AnimationEnded(RobotEvent):
    """The robot finished a streamed animation."""
    KIND: ClassVar[str] = "animation_ended"

    anim_id: int = 0


@dataclass(frozen=True)
class PathFollowing(RobotEvent):
    """Progress of a path: ``state`` is started, interrupted or completed."""
    KIND: ClassVar[str] = "path_following"

    event_id: int = 0
    state: str = "started"


@dataclass(frozen=True)
class MotorCalibration(RobotEvent):
    """A motor started or finished calibrating (0/1 = left/right wheel, 2 = lift, 3 = head)."""
    KIND: ClassVar[str] = "motor_calibration"

    motor_id: int = 0
    started: bool = False


@dataclass(frozen=True)
class OrientationChanged(RobotEvent):
    """The robot's attitude changed (confirmed: debounced the engine's way, see
    :class:`driver.attitude.Attitude`).

    ``orientation`` and ``previous`` are ``upright`` (on its treads), ``in_air`` (held, level),
    ``on_back``, ``on_face``, ``on_left_side``, ``on_right_side`` or ``falling``; ``value`` is
    ``orientation``, so reactions and conditions can select one with ``value: on_back``
    (``on_side`` selects either side).
    """
    KIND: ClassVar[str] = "orientation"

    orientation: str = UPRIGHT
    previous: str = UPRIGHT

    @property
    def value(self) -> str:
        """The new orientation (what an event filter's ``value`` is compared with)."""
        return self.orientation

    def matches(self, name: str) -> bool:
        """True when the new orientation is ``name`` (``on_side``: either side)."""
        return name == self.orientation or (name == "on_side" and self.on_side)

    @property
    def upright(self) -> bool:
        """Back on its treads."""
        return self.orientation == UPRIGHT

    @property
    def in_air(self) -> bool:
        """Held in the air, more or less level."""
        return self.orientation == IN_AIR

    @property
    def on_back(self) -> bool:
        """Lying on its back."""
        return self.orientation == ON_BACK

    @property
    def on_face(self) -> bool:
        """Lying on its face."""
        return self.orientation == ON_FACE

    @property
    def on_side(self) -> bool:
        """Lying on its left or right side."""
        return self.orientation in (ON_LEFT_SIDE, ON_RIGHT_SIDE)


@dataclass(frozen=True)
class ReturnedToTreads(RobotEvent):
    """The robot is on its treads again after being ``previous`` (in the air, on its back …)."""
    KIND: ClassVar[str] = "returned_to_treads"

    previous: str = IN_AIR


@dataclass(frozen=True)
class Shaken(RobotEvent):
    """The robot was shaken; sent when the shaking stops.

    ``strength`` is ``soft`` (shaken for less than 2.5 s), ``medium`` (less than 5 s) or ``hard``,
    the engine's three dizzy reactions; it is also the event's ``value`` (``value: hard``).
    """
    KIND: ClassVar[str] = "shaken"

    duration_s: float = 0.0
    strength: str = "soft"

    @property
    def value(self) -> str:
        """The strength (what an event filter's ``value`` is compared with)."""
        return self.strength


@dataclass(frozen=True)
class PlacedOnSlope(RobotEvent):
    """The robot was held, or put down, tilted nose-up by ``pitch_deg`` (10–55°) and kept still."""
    KIND: ClassVar[str] = "placed_on_slope"

    pitch_deg: float = 0.0


@dataclass(frozen=True)
class UnexpectedMovement(RobotEvent):
    """The wheels drove but the body did not turn as commanded: something pushed or blocked it.

    ``side`` is where the push came from (``front``, ``back``, ``left`` or ``right``; also the
    event's ``value``); ``movement`` is ``turned_but_stopped`` (it should have turned and did
    not) or ``turned_in_opposite_direction``.
    """
    KIND: ClassVar[str] = "unexpected_movement"

    side: str = "front"
    movement: str = "turned_but_stopped"

    @property
    def value(self) -> str:
        """The side pushed from (what an event filter's ``value`` is compared with)."""
        return self.side


# ----------------------------------------------------------------------------- vision


@dataclass(frozen=True)
class FaceInView:
    """Where a face is, as the camera saw it (the fields of the face events).

    ``box`` is (x, y, width, height) in image pixels, smoothed over the frames; ``pan_rad`` is the
    direction left of the body's heading and ``tilt_rad`` above the horizontal, both at capture
    time (the head angle then, not now); ``heading_rad`` is the same direction in the world frame
    (the body's heading at capture plus ``pan_rad``); ``distance_mm`` is estimated from the box's
    width; ``x_mm``, ``y_mm``, ``z_mm`` put the face in the robot's world frame (its pose's
    origin), so a face that left the picture can still be turned to. ``captured_at`` is the host
    time (s) of the frame it was last detected in, ``image_id`` that frame.
    """

    face_id: int = 0
    box: tuple[int, int, int, int] = (0, 0, 0, 0)
    pan_rad: float = 0.0
    tilt_rad: float = 0.0
    heading_rad: float = 0.0
    distance_mm: float = 0.0
    x_mm: float = 0.0
    y_mm: float = 0.0
    z_mm: float = 0.0
    captured_at: float = 0.0
    image_id: int = 0


@dataclass(frozen=True)
class FaceSeen(FaceInView, RobotEvent):
    """A face came into view (detected in more than one frame); ``face_id`` stays while it is in view."""
    KIND: ClassVar[str] = "face_seen"


@dataclass(frozen=True)
class FaceMoved(FaceInView, RobotEvent):
    """A face in view moved (or came nearer or went further) noticeably since it was last reported."""
    KIND: ClassVar[str] = "face_moved"


@dataclass(frozen=True)
class FaceLost(FaceInView, RobotEvent):
    """A face was not seen for a while (the vision settings' timeout); the fields say where it was last."""
    KIND: ClassVar[str] = "face_lost"

    seen_for_s: float = 0.0


@dataclass(frozen=True)
class FaceGlimpsed(FaceInView, RobotEvent):
    """A face detected once and not again before the vision's timeout: too little to call it a face
    (a single frame's detection is often a false one), but where someone may have passed while the
    robot turned. The fields say where it was; ``face_id`` is the unconfirmed track's, never reused."""
    KIND: ClassVar[str] = "face_glimpsed"


@dataclass(frozen=True)
class MotionSeen(RobotEvent):
    """Something moved in front of the still robot.

    ``where`` is the most specific place: ``ground`` (the floor just in front), ``left``,
    ``right``, ``top`` (the picture's borders) or ``image`` (anywhere); ``regions`` lists every
    place that saw it, and :meth:`matches` accepts any of them, so ``value: ground`` selects
    motion on the floor. ``img_x``/``img_y`` are the centroid in image pixels, ``amount`` how much
    (changed share of the image or floor; a border region's response), ``pan_rad``/``tilt_rad``
    its direction in the robot frame at capture, ``heading_rad`` in the world frame, and for
    ``ground`` the floor point ``ground_x_mm``/``ground_y_mm`` (ahead, left; robot frame).
    """
    KIND: ClassVar[str] = "motion_seen"

    where: str = "image"
    regions: tuple[str, ...] = ()
    img_x: float = 0.0
    img_y: float = 0.0
    amount: float = 0.0
    pan_rad: float = 0.0
    tilt_rad: float = 0.0
    heading_rad: float = 0.0
    ground_x_mm: float | None = None
    ground_y_mm: float | None = None
    captured_at: float = 0.0
    image_id: int = 0

    @property
    def value(self) -> str:
        """The most specific place (what an event filter's ``value`` is compared with)."""
        return self.where

    def matches(self, name: str) -> bool:
        """True when motion was seen in ``name`` (``ground``, ``left``, ``right``, ``top``, ``image``)."""
        return name == self.where or name in self.regions


# ----------------------------------------------------------------------------- the day clock


@dataclass(frozen=True)
class QuietHoursChanged(RobotEvent):
    """Quiet hours began (``value`` True) or ended, by the personality's schedule and the local clock.

    Not from the robot: the brain's day clock posts it (and :class:`NightChanged`). It is typed
    here with the robot's events because this module is the one table of the event kinds that
    personality files name.
    """
    KIND: ClassVar[str] = "quiet_hours"

    value: bool = False


@dataclass(frozen=True)
class NightChanged(RobotEvent):
    """The personality's bedtime came (``value`` True) or its wake-up time (False); see :class:`QuietHoursChanged`."""
    KIND: ClassVar[str] = "night"

    value: bool = False


# ----------------------------------------------------------------------------- kinds as types


@dataclass(frozen=True)
class EventType:
    """One kind of robot event as a type: its class and, for a status-flag edge, the flag.

    Each discrete message has its own class (:class:`Poked`, :class:`CubeTapped` …); the status
    flags share :class:`StatusChanged` and differ by ``flag``. :meth:`matches` decides by class and
    flag, so an event whose ``kind`` merely reads the same (another class, a plain object) does not
    match.
    """

    event_class: type[RobotEvent]
    flag: RobotStatus | None = None

    @property
    def kind(self) -> str:
        """The stable name of this kind (``cliff``, ``poked`` …)."""
        if self.flag is not None:
            return FLAG_KINDS.get(self.flag, self.flag.name or "status")
        return self.event_class.KIND

    def matches(self, event: object) -> bool:
        """Whether *event* is of this kind."""
        if not isinstance(event, self.event_class):
            return False
        return self.flag is None or (isinstance(event, StatusChanged) and event.flag == self.flag)


def _event_kinds() -> Mapping[str, EventType]:
    """Every event class of this module by its ``KIND``, and every single status flag by its name."""
    kinds: dict[str, EventType] = {}

    def add(kind: str, event_type: EventType) -> None:
        if kind in kinds:  # two types under one name would make personality files ambiguous
            raise RuntimeError(f"event kind {kind!r} names both {kinds[kind]} and {event_type}")
        kinds[kind] = event_type

    classes = list(RobotEvent.__subclasses__())
    while classes:
        cls = classes.pop(0)
        classes.extend(cls.__subclasses__())
        if cls is not StatusChanged:
            add(cls.KIND, EventType(cls))
    for flag in RobotStatus:
        if flag.value and not flag.value & (flag.value - 1):  # single bits only
            add(FLAG_KINDS.get(flag, flag.name or "status"), EventType(StatusChanged, flag))
    return MappingProxyType(kinds)


#: Event kind name → its type: the one table that turns the names personality files use into
#: types. Built from the event classes above (their ``KIND``) and :data:`FLAG_KINDS`.
EVENT_KINDS: Mapping[str, EventType] = _event_kinds()
