"""The simulated robot's animation buffer: the audio stream is the clock (hardware.md §4, §7.6-7).

A real Cozmo does not act on a streamed animation message when it arrives. Each frame of the
stream ends with exactly one audio message (OutputAudio or OutputSilence); the frame waits in a
small buffer and the robot plays one frame per audio tick (about 33.5 ms measured), applying the
keyframes queued behind its audio. The buffer holds about 14 audio frames and 8 KB (whole messages,
tag included); a frame that does not fit is dropped, and AnimationState reports how many frames
and bytes were played and how many were dropped, which is what lets an engine pace its stream.

:class:`AnimationBuffer` is sans-I/O: the simulator adds the messages as they arrive and asks it
for the frames due at a loop time.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any

from ..animation.budget import AUDIO_MESSAGES
from ..hardware import ANIM_BUFFER_BYTES, ANIM_BUFFER_FRAMES, AUDIO_FRAME_PLAY_S

__all__ = ["AnimationBuffer"]


class AnimationBuffer:
    """Frames of the animation stream waiting for the robot's audio clock."""

    def __init__(self, max_frames: int = ANIM_BUFFER_FRAMES, max_bytes: int = ANIM_BUFFER_BYTES,
                 play_period_s: float = AUDIO_FRAME_PLAY_S) -> None:
        self.max_frames = max_frames
        self.max_bytes = max_bytes
        self.play_period_s = play_period_s
        #: the most frames and bytes ever waiting at once, and frames dropped, over all connections
        self.high_water_frames = 0
        self.high_water_bytes = 0
        self.total_dropped = 0
        self.clear()

    def clear(self) -> None:
        """Forget what waits and start AnimationState's counters again (a new connection)."""
        self._frames: deque[tuple[list[Any], int]] = deque()
        self._open: list[Any] = []
        self._open_bytes = 0
        #: bytes waiting in whole frames (the open frame not counted until its audio arrives)
        self.buffered_bytes = 0
        #: what AnimationState reports: audio frames and bytes played, frames dropped
        self.frames_played = 0
        self.bytes_played = 0
        self.dropped = 0
        self._next_play: float | None = None

    @property
    def buffered_frames(self) -> int:
        """Whole frames waiting to be played."""
        return len(self._frames)

    def add(self, msg: Any, size: int) -> None:
        """A message of the stream arrived (``size``: its bytes on the wire, tag included)."""
        self._open.append(msg)
        self._open_bytes += size
        if type(msg).__name__ not in AUDIO_MESSAGES:
            return
        frame, nbytes = self._open, self._open_bytes
        self._open, self._open_bytes = [], 0
        if len(self._frames) >= self.max_frames or self.buffered_bytes + nbytes > self.max_bytes:
            self.dropped += 1  # a real robot drops what does not fit ("BufferFull")
            self.total_dropped += 1
            return
        self._frames.append((frame, nbytes))
        self.buffered_bytes += nbytes
        self.high_water_frames = max(self.high_water_frames, len(self._frames))
        self.high_water_bytes = max(self.high_water_bytes, self.buffered_bytes)

    def due(self, now: float) -> list[list[Any]]:
        """The frames the audio clock plays by loop time ``now``, oldest first.

        The clock is the robot's own: it ticks every ``play_period_s`` from the first call,
        whether or not anything waits, and each tick plays at most one frame.
        """
        played: list[list[Any]] = []
        if self._next_play is None:
            self._next_play = now
        if not self._frames:
            if self._next_play < now:  # idle ticks went by: keep the phase, play nothing
                self._next_play += math.ceil((now - self._next_play) / self.play_period_s) * self.play_period_s
            return played
        while self._next_play <= now:
            self._next_play += self.play_period_s
            if not self._frames:
                continue
            frame, nbytes = self._frames.popleft()
            self.buffered_bytes -= nbytes
            self.frames_played += 1
            self.bytes_played += nbytes
            played.append(frame)
        return played

    def clear_waiting(self) -> None:
        """Drop the frames not yet played (an aborted animation), counting them as played.

        The firmware's Clear() adds what it empties to the played counts that AnimationState
        reports, so an engine pacing its stream on them sees the buffer empty; left out, every
        abort would leave its frames "in flight" for good, and after a few the engine would wait
        for room that never comes.
        """
        self.frames_played += len(self._frames)
        self.bytes_played += self.buffered_bytes + self._open_bytes
        self._frames.clear()
        self._open, self._open_bytes = [], 0
        self.buffered_bytes = 0
