"""The animation controller's counters (:class:`ControllerStats`), read by logs, benchmarks and tests."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

__all__ = ["ControllerStats"]


@dataclass
class ControllerStats:
    """What the clock did: frames sent and missed, lateness, images, time spent per frame."""

    frames: int = 0
    missed_frames: int = 0
    #: frames prepared after their release time (sent at once, late), release="thread" only
    late_frames: int = 0
    images_sent: int = 0
    audio_frames: int = 0
    silence_frames: int = 0
    send_errors: int = 0
    offline_frames: int = 0
    #: idle frames with nothing new for the robot (no clip, no sound, the same face): not sent
    quiet_frames: int = 0
    #: frames held back because the robot's animation buffer had no room (the clip waited a frame)
    held_frames: int = 0
    max_late_ms: float = 0.0
    max_frame_cost_ms: float = 0.0
    max_render_ms: float = 0.0
    #: how late each of the last 2000 clock wake-ups was (ms after it was due)
    late_ms: deque[float] = field(default_factory=lambda: deque(maxlen=2000))
    events_fired: int = 0
