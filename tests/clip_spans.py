"""Telling which clip reached the simulator, by its head keyframes: shared by the end-to-end tests.

A clip's head keyframes are its signature at the robot: each clip that began streaming
(StartAnimation) is matched against the head angles of the clips it may be. A keyframe longer
than one message can say is sent as several, so a clip's angles arrive in order with steps
between them (:func:`in_order`), and its last angle is its last.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from brain.assets.resource_set import ResourceSet

#: ``messages(name, after)``: the (arrival time, message) pairs of one type after a time, as the
#: harnesses' ``World.messages`` and ``Daemon.messages`` give them.
Messages = Callable[[str, float], list[tuple[float, Any]]]


def in_order(seq: list[int], part: list[int]) -> bool:
    """Whether ``part`` occurs in ``seq`` in order, with anything between."""
    it = iter(seq)
    return all(any(x == want for x in it) for want in part)


def clip_heads(rs: ResourceSet, name: str) -> list[int]:
    """The head keyframe angles (°) of one clip."""
    return [round(k.angle_deg) for k in rs.clips.get(name).head_angle]


def group_heads(rs: ResourceSet, trigger: str) -> list[list[int]]:
    """The head keyframe angles of each installed clip the trigger may play."""
    group = rs.playable_group_for_trigger(trigger)
    assert group is not None, trigger
    return [clip_heads(rs, m.name) for m in group.members if m.name in rs.clips]


def clip_starts(messages: Messages, after: float, clips: list[list[int]]) -> list[float]:
    """When each clip that is one of ``clips`` (by head keyframes) began reaching the simulator after ``after``."""
    starts = [t for t, _ in messages("StartAnimation", after)]
    found = []
    for i, begin in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else math.inf
        # from the StartAnimation's own moment on: on the virtual clock its first keyframe, in the
        # same datagram, arrives at the very same time
        heads = [round(m.angle_deg) for t, m in messages("AnimHead", math.nextafter(begin, -math.inf)) if t < end]
        if heads and any(c and in_order(heads, c) and heads[-1] == c[-1] for c in clips):
            found.append(begin)
    return found


def clip_started(messages: Messages, after: float, clips: list[list[int]]) -> float | None:
    """When the first of ``clips`` began reaching the simulator after ``after`` (None: not yet)."""
    return next(iter(clip_starts(messages, after, clips)), None)
