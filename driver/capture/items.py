"""What reading a capture yields: datagrams with their direction, and what could not be read.

Shared by every capture format's reader (:mod:`driver.capture.formats` for the text formats,
:mod:`driver.capture.pcap` for packet captures), so neither needs the other for its types.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FROM_ROBOT", "ROBOT_PORT", "TO_ROBOT", "Datagram", "Item", "Skipped", "Unreadable"]

#: Direction of a datagram sent by the engine (the app, PyCozmo, cozmo-brain) to the robot.
TO_ROBOT = "to_robot"
#: Direction of a datagram sent by the robot.
FROM_ROBOT = "from_robot"
#: The robot's UDP port.
ROBOT_PORT = 5551


@dataclass(frozen=True, slots=True)
class Datagram:
    """One UDP datagram of a capture.

    ``t`` is in seconds: UNIX time when the format gives a wall-clock time, else seconds from the
    capture's own origin. ``where`` says where it was read (``file:line`` or ``file#packet``).
    """

    t: float
    direction: str
    data: bytes
    where: str


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A line or record of a capture that could not be read, and why (shown, never fatal)."""

    where: str
    reason: str
    t: float | None = None


@dataclass(frozen=True, slots=True)
class Skipped:
    """A captured packet that is not Cozmo traffic (another protocol or port); counted, not shown."""

    where: str
    reason: str


Item = Datagram | Unreadable | Skipped
