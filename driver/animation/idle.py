"""The idle face: what the robot's face does while no clip and no behaviour drives it.

A face that holds perfectly still looks dead, so between clips the controller shows a held gaze
with a blink every 1–7 s and a small saccade every 1.5–5 s (now and then back to the centre).
At each blink the lit row set of the display swaps (``row_offset``), against burn-in of the
OLED. After a clip, the face returns to the gaze over a few frames instead of jumping.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

from . import face as facemod
from .face import FaceParams

__all__ = ["IdleFace", "Waking"]

T = TypeVar("T")

#: Seconds between blinks and between saccades (drawn uniformly).
BLINK_EVERY_S = (1.0, 7.0)
SACCADE_EVERY_S = (1.5, 5.0)
#: How far a saccade looks from the base face (display pixels, x and y).
SACCADE_REACH = (4.0, 2.0)
#: The share of saccades that look back at the base face.
BACK_TO_CENTRE = 0.3
#: Frames over which the face returns from a clip's last face to the gaze.
RETURN_FRAMES = 6


class Waking(Generic[T]):
    """An attribute whose assignment calls its owner's ``_changed()``.

    The animation controller dozes through frames in which nothing can change (see
    :meth:`IdleFace.next_change`); every knob that could change what the next frame shows is one
    of these, so setting it wakes the clock at once, whoever sets it.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self._slot = "_w_" + name

    @overload
    def __get__(self, obj: None, objtype: type | None = None) -> Waking[T]: ...
    @overload
    def __get__(self, obj: object, objtype: type | None = None) -> T: ...
    def __get__(self, obj: object | None, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        return obj.__dict__[self._slot]

    def __set__(self, obj: Any, value: T) -> None:
        obj.__dict__[self._slot] = value
        obj._changed()


class IdleFace:
    """The idle face of one controller: ``frame(now)`` gives the face of each frame.

    ``base`` is the resting face the gaze wanders around; ``gaze`` where it looks now;
    ``next_blink`` and ``next_saccade`` the loop times of the next ones (set them to ``inf`` to
    hold the gaze still). ``still`` holds the base face with no blinks and no saccades (a robot
    asleep); ``pace`` stretches the time between them (2: half as often, a drowsy robot). ``rng``
    makes the timing reproducible. ``on_change`` is called whenever one of these is set (the
    controller's clock wakes if it was dozing).
    """

    base: Waking[FaceParams] = Waking()
    next_blink: Waking[float] = Waking()
    next_saccade: Waking[float] = Waking()
    still: Waking[bool] = Waking()

    def __init__(self, base: FaceParams, rng: random.Random) -> None:
        self.on_change: Callable[[], None] | None = None
        self.base = base
        self.gaze = base
        self.row_offset = 0
        self.next_blink = 0.0
        self.next_saccade = 0.0
        self.still = False
        self.pace = 1.0
        self._was_still = False
        self._rng = rng
        self._frames: deque[FaceParams] = deque()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def next_change(self, now: float) -> float:
        """The loop time from which :meth:`frame` may give another face than the gaze it gives
        now (``now`` when it is changing already; ``inf`` while it holds still)."""
        if self._frames or self.still != self._was_still:
            return now
        if self.still:
            return math.inf
        return min(self.next_blink, self.next_saccade)

    def schedule(self, now: float) -> None:
        """Draw the first blink and saccade times after ``now`` (when the clock starts)."""
        self.next_blink = now + self.pace * self._rng.uniform(*BLINK_EVERY_S)
        self.next_saccade = now + self.pace * self._rng.uniform(*SACCADE_EVERY_S)

    def return_from(self, face: FaceParams | None) -> None:
        """Blend smoothly from ``face`` (a clip's last face) back to the gaze over the next frames."""
        if face is not None and face != self.gaze:
            self._frames = deque(
                facemod.interpolate(face, self.gaze, k / RETURN_FRAMES) for k in range(1, RETURN_FRAMES + 1))

    def frame(self, now: float) -> FaceParams:
        """The idle face for the frame of loop time ``now``."""
        if self.still:
            if not self._was_still:
                self._was_still = True
                self._frames.clear()
            self.gaze = self.base
            return self.base
        if self._was_still:  # awake again: the next blink and saccade from now
            self._was_still = False
            self.schedule(now)
        if not self._frames:
            if now >= self.next_blink:
                self._frames.extend(facemod.blink(self.gaze))
                self.row_offset ^= 1  # swap the lit row set at a blink, against burn-in
                self.next_blink = now + self.pace * self._rng.uniform(*BLINK_EVERY_S)
            elif now >= self.next_saccade:
                if self._rng.random() < BACK_TO_CENTRE:
                    target = self.base
                else:
                    # whole pixels, the screen's grain: the same few glances recur and their frames
                    # come from the renderer's cache
                    target = facemod.look(self.base, round(self._rng.uniform(-SACCADE_REACH[0],
                                                                                    SACCADE_REACH[0])),
                                          round(self._rng.uniform(-SACCADE_REACH[1], SACCADE_REACH[1])))
                self._frames.extend(facemod.saccade(self.gaze, target, frames=3))
                self.gaze = target
                self.next_saccade = now + self.pace * self._rng.uniform(*SACCADE_EVERY_S)
        if self._frames:
            return self._frames.popleft()
        return self.gaze
