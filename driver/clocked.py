"""The clocked-frame interface: what the animation controller needs of a robot.

The animation controller puts one frame on the air every 1/30 s. It prepares each frame on the
event loop a little early and asks the connection to send it at the frame's exact time, so the
loop can be busy, or wake a millisecond late, without the robot noticing. This module names that
contract, so the controller depends on it and not on how the connection does it:
:class:`driver.robot.Robot` implements it by delegating to its link (``Link.frame_at`` and
``Link.flush``), whether the link sits on a UDP socket (with a release thread) or on the
in-memory network of virtual-time runs (released from a loop timer).

Sending raises :class:`ConnectionError` or :class:`driver.robot.RobotError` when the robot is
not reachable; the controller counts such a frame as not sent and carries on.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol

from .animation.budget import StreamBudget
from .events import RobotEvent
from .samples import RobotStateSample

__all__ = ["AnimationTarget", "ClockedFrames"]


class ClockedFrames(Protocol):
    """Frames of packets put on the wire at an exact loop time."""

    def frame_at(self, at: float) -> AbstractContextManager[None]:
        """Send every message sent inside the block as one frame, on the wire at loop time ``at``.

        The frame is sequenced and encoded when the block ends and released at ``at`` (at once
        when ``at`` has passed); what was sent before the block goes out first. Blocks do not nest.
        """
        ...

    def begin_frame(self) -> None:
        """Enter a frame as :meth:`frame_at` does, without a context manager; the caller always
        follows it with :meth:`end_frame` (in a ``finally``)."""
        ...

    def end_frame(self, at: float, *, early: bool = False) -> None:
        """End the frame :meth:`begin_frame` started: it goes on the wire at loop time ``at``, or
        with ``early`` as soon as the frames before it went (a frame the robot keeps in its
        buffer until its audio clock comes to it)."""
        ...

    def flush(self) -> None:
        """Put what was sent so far on the wire now, not on the event loop's next turn."""
        ...

    def set_frame_release(self, *, priority: int | None = None, cpu: int | None = None) -> None:
        """Real-time priority (SCHED_FIFO) and CPU of whatever releases the frames; None: no change.

        Takes effect before the first clocked frame of a connection.
        """
        ...

    def read_input_on(self, clock: Callable[[float], float] | None) -> None:
        """Read what the robot sends on a clock (``clock(t)``: the next read's time after a read
        at ``t``) rather than as it arrives, so that one wake-up serves the frame and the input;
        None: as it arrives (see :attr:`driver.link.Link.input_clock`)."""
        ...

    def poll_input(self) -> None:
        """Take in what the robot sent and was not read yet (when reading on a clock)."""
        ...

    @property
    def input_on_clock(self) -> bool:
        """True while what the robot sends is read only on the clock, so nothing it says is heard
        between two reads."""
        ...


class AnimationTarget(ClockedFrames, Protocol):
    """Everything the animation controller uses of a robot: clocked frames, a few commands, the
    head and lift positions it reports, and its animation events."""

    #: what of the animation stream the robot's buffer holds (from its AnimationState reports):
    #: the controller holds a frame back while there is no room
    anim_budget: StreamBudget

    @property
    def connected(self) -> bool:
        """True while messages reach the robot."""
        ...

    @property
    def still(self) -> bool:
        """True when no motor turns or was just told to and no animation plays (its input may
        then be read less often)."""
        ...

    @property
    def state(self) -> RobotStateSample | None:
        """The latest RobotState (head angle, lift height), None before the first."""
        ...

    def send(self, msg: Any) -> None:
        """Send one protocol message."""
        ...

    def display_image(self, encoded: bytes) -> None:
        """Show an encoded 128×32 image on the face."""
        ...

    def play_audio_frame(self, samples: bytes | None) -> None:
        """Send one frame of audio (744 µ-law bytes) or silence (None): the packet that closes a frame."""
        ...

    def add_listener(self, listener: Callable[[RobotEvent], None]) -> Callable[[], None]:
        """Hear every robot event (AnimationStarted/AnimationEnded among them); returns the remover."""
        ...
