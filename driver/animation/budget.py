"""How full the robot's animation buffer is, seen from the engine (hardware.md §4, §7.7).

A real Cozmo holds about 14 audio frames and 8 KB of the animation stream and drops a frame that
does not fit. It plays one frame every 33.5 ms, a little slower than a host's 30 fps, so a stream
sent on the host's clock alone creeps ahead and, in a long animation, overflows. Anki's engine
kept what it had sent minus what AnimationState reported played within those bounds;
:class:`StreamBudget` does the same for the animation controller: the Robot counts what it sends
and what the robot reports, and the controller holds a frame back (its clip waits a frame) while
there is no room for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..hardware import ANIM_BUFFER_BYTES, ANIM_BUFFER_FRAMES

__all__ = ["ANIM_STREAM", "AUDIO_MESSAGES", "BUFFERED", "FRAME_BYTES_MAX", "StreamBudget"]

#: The messages of the animation stream: they wait in the robot's buffer and play on its audio
#: clock, and a real robot ignores them until the engine's EnableAnimationState (InitAnimController).
ANIM_STREAM = frozenset({"DisplayImage", "OutputAudio", "OutputSilence", "AnimHead", "AnimLift", "AnimBody",
                         "AnimBackpackLights", "StartAnimation", "EndAnimation", "AbortAnimation"})

#: The stream messages that wait in the robot's buffer, and so count against it: all but the
#: abort, which the robot acts on as it arrives (it empties the buffer).
BUFFERED = ANIM_STREAM - {"AbortAnimation"}
#: The messages that close a frame of the stream: each frame carries exactly one.
AUDIO_MESSAGES = frozenset({"OutputAudio", "OutputSilence"})

#: The most one frame is taken to need before it is built: an audio packet (745 bytes with its
#: tag), a face image and a few keyframes.
FRAME_BYTES_MAX = 1600


@dataclass
class StreamBudget:
    """Frames and bytes sent to the robot's animation buffer and not yet reported played."""

    max_frames: int = ANIM_BUFFER_FRAMES
    max_bytes: int = ANIM_BUFFER_BYTES
    sent_frames: int = 0
    sent_bytes: int = 0
    played_frames: int = 0
    played_bytes: int = 0
    #: frames the robot reported dropped (from AnimationState's client_drop_count), all connections
    dropped: int = 0
    #: the most frames and bytes ever in the robot's buffer, as far as the engine can tell
    high_water_frames: int = 0
    high_water_bytes: int = 0
    #: AnimationState has come on this connection: until it does the budget does not hold back
    reporting: bool = False
    _drop_byte: int = 0

    def reset(self) -> None:
        """A new connection: the robot's counters start again (the high-water marks stay)."""
        self.sent_frames = self.sent_bytes = self.played_frames = self.played_bytes = self._drop_byte = 0
        self.reporting = False

    @property
    def frames_in_buffer(self) -> int:
        """Frames sent and not reported played."""
        return max(0, self.sent_frames - self.played_frames)

    @property
    def bytes_in_buffer(self) -> int:
        """Bytes sent and not reported played."""
        return max(0, self.sent_bytes - self.played_bytes)

    def sent(self, nbytes: int, closes_frame: bool) -> None:
        """A stream message of ``nbytes`` (tag included) went out; an audio packet closes a frame."""
        self.sent_bytes += nbytes
        if closes_frame:
            self.sent_frames += 1
            self.high_water_frames = max(self.high_water_frames, self.frames_in_buffer)
            self.high_water_bytes = max(self.high_water_bytes, self.bytes_in_buffer)

    def played(self, frames: int, nbytes: int, drop_count: int) -> None:
        """AnimationState: the robot's own counts of frames and bytes played, and its drop count
        (one byte, wrapping). A dropped frame is never played: it leaves the estimate with the
        average size of what is in flight, so one overflow does not hold the stream for ever."""
        new_drops = (drop_count - self._drop_byte) & 0xFF if self.reporting else drop_count & 0xFF
        self._drop_byte = drop_count & 0xFF
        self.reporting = True
        self.played_frames, self.played_bytes = frames, nbytes
        if new_drops:
            self.dropped += new_drops
            in_flight = self.frames_in_buffer
            if in_flight:
                gone = min(new_drops, in_flight)
                self.sent_bytes -= self.bytes_in_buffer * gone // in_flight
                self.sent_frames -= gone

    def has_room(self, frame_bytes: int = FRAME_BYTES_MAX) -> bool:
        """True when one more frame of up to ``frame_bytes`` fits in the robot's buffer."""
        if not self.reporting:
            return True
        return (self.frames_in_buffer + 1 <= self.max_frames
                and self.bytes_in_buffer + frame_bytes <= self.max_bytes)
