"""What the simulated robot shows and plays: its face, its speaker, and the animation stream.

:class:`Display` and :class:`Speaker` keep what arrived; :class:`AnimationOutput` is the part of
:class:`~driver.sim.server.SimulatedCozmo` that takes the animation stream (face images, audio
and silence frames, head, lift and body keyframes, backpack lights, the start and end of an
animation), which a real robot honours only after EnableAnimationState (hardware.md §4).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..animation.audio import AudioSink, mulaw_decode
from ..animation.budget import ANIM_STREAM
from ..animation.display import BLANK_SCREEN
from ..hardware import DISPLAY_BLANK_AFTER_S, POINT_TURN_ACCEL_RAD_S2
from ..protocol import messages as m
from .anim_buffer import AnimationBuffer
from .body import Body

log = logging.getLogger("driver.sim.server")

__all__ = ["ANIM_STREAM", "AnimationOutput", "Display", "Speaker"]  # ANIM_STREAM: driver.animation.budget's



@dataclass
class Display:
    """What the face shows: the last DisplayImage payload and how many arrived."""

    last_image: bytes | None = None
    images: int = 0
    history: deque[tuple[float, bytes]] = field(default_factory=lambda: deque(maxlen=600))
    #: Loop time of the last image; the screen goes dark ``DISPLAY_BLANK_AFTER_S`` later without another.
    shown_at: float | None = None
    #: The screen went dark for want of a new image (until the next one), and how often it did.
    blanked: bool = False
    blanks: int = 0

    def show(self, data: bytes, now: float) -> None:
        """A DisplayImage arrived at loop time ``now``."""
        self.last_image, self.shown_at, self.blanked = data, now, False
        self.images += 1
        self.history.append((now, data))

    def check_blank(self, now: float) -> bool:
        """Blank the screen if its image is older than the robot keeps one; True when it just went dark."""
        if self.blanked or self.shown_at is None or now - self.shown_at <= DISPLAY_BLANK_AFTER_S:
            return False
        self.blanked = True
        self.blanks += 1
        self.history.append((now, BLANK_SCREEN))
        return True

    def pixels(self) -> Any:
        """What the screen shows as a (32, 128) boolean array (None before the first image; dark once blanked)."""
        if self.last_image is None:
            return None
        from ..animation.display import decode  # local: the codec is only needed when asked

        return decode(BLANK_SCREEN if self.blanked else self.last_image)


@dataclass
class Speaker:
    """Audio the robot was asked to play: µ-law frames and silence frames, counted and kept."""

    frames: int = 0
    silence: int = 0
    volume: int = 65535
    recent: deque[bytes] = field(default_factory=lambda: deque(maxlen=300))


class AnimationOutput:
    """The animation stream's handlers (mixed into :class:`~driver.sim.server.SimulatedCozmo`)."""

    body: Body
    display: Display
    speaker: Speaker
    audio_out: AudioSink | None
    anim_ready: bool
    backpack: tuple[int, ...]
    current_animation: int | None

    anim_buffer: AnimationBuffer
    _played_listeners: list[Callable[[Any], None]]

    if TYPE_CHECKING:
        def send(self, msg: Any) -> None: ...  # noqa: D102
        def _drive_arc(self, speed: float, radius: int, accel: float = 0.0) -> None: ...

    def _buffer_stream(self, msg: Any, size: int) -> None:
        """A message of the animation stream: it waits for the audio clock (an abort acts at once
        and empties the buffer, as the animation it ends is over)."""
        if type(msg).__name__ == "AbortAnimation":
            self.anim_buffer.clear_waiting()
            self._h_AbortAnimation(msg)
            return
        self.anim_buffer.add(msg, size)

    def _play_stream(self, now: float) -> None:
        """Play the frames the robot's audio clock has reached by loop time ``now``."""
        for frame in self.anim_buffer.due(now):
            for msg in frame:
                for listener in tuple(self._played_listeners):
                    listener(msg)
                handler = getattr(self, f"_h_{type(msg).__name__}", None)
                if handler is None:
                    continue
                try:
                    handler(msg)
                except (TypeError, ValueError, AttributeError) as exc:
                    log.warning("sim: could not act on %s: %s", type(msg).__name__, exc)

    def _animation_state(self, timestamp_ms: int) -> Any:
        """AnimationState as a real robot sends it beside each RobotState once the engine enabled
        it: the time in µs, what was played, the open animation's tag and the drop count."""
        buf = self.anim_buffer
        return m.AnimationState(timestamp=(timestamp_ms * 1000) & 0xFFFFFFFF,
                                num_anim_bytes_played=buf.bytes_played & 0x7FFFFFFF,
                                num_audio_frames_played=buf.frames_played & 0x7FFFFFFF,
                                enabled_anim_tracks=0xFF, tag=(self.current_animation or 0) & 0xFF,
                                client_drop_count=buf.dropped & 0xFF)

    def _h_AnimBackpackLights(self, msg: Any) -> None:
        self.backpack = tuple(msg.colors)

    def _h_EnableAnimationState(self, msg: Any) -> None:
        self.anim_ready = True

    def _h_DisplayImage(self, msg: Any) -> None:
        self.display.show(bytes(msg.image), asyncio.get_running_loop().time())

    def _h_OutputAudio(self, msg: Any) -> None:
        samples = bytes(msg.samples)
        self.speaker.frames += 1
        self.speaker.recent.append(samples)
        if self.audio_out is not None:
            pcm = mulaw_decode(samples)
            if self.speaker.volume < 65535:
                pcm = (pcm.astype(np.int32) * self.speaker.volume // 65535).astype(np.int16)
            self._to_speaker(pcm)

    def _h_OutputSilence(self, msg: Any) -> None:
        self.speaker.silence += 1
        if self.audio_out is not None:
            self._to_speaker(None)

    def _to_speaker(self, pcm: Any) -> None:
        assert self.audio_out is not None
        try:
            self.audio_out.write(pcm)
        except Exception:  # a broken sink must not take the robot down
            log.exception("sim: audio output failed; speaker output is discarded from now on")
            self.audio_out = None

    def _h_AnimHead(self, msg: Any) -> None:
        target = math.radians(msg.angle_deg)
        dur = max(msg.duration_ms, 1) / 1000.0
        self.body.head.command_target(target, abs(target - self.body.head.position) / dur)

    def _h_AnimLift(self, msg: Any) -> None:
        dur = max(msg.duration_ms, 1) / 1000.0
        self.body.lift.command_target(msg.height_mm, abs(msg.height_mm - self.body.lift.position) / dur)

    def _h_AnimBody(self, msg: Any) -> None:
        # As the firmware's animation controller: speed 0 stops; radius 0 is a turn in place at
        # ``speed`` °/s; any other radius (32767: straight) drives at ``speed`` mm/s.
        if not msg.speed:
            self.body.drive(0.0, 0.0)
        elif msg.unknown == 0:
            self.body.spin(math.radians(msg.speed), POINT_TURN_ACCEL_RAD_S2)
        else:
            self._drive_arc(float(msg.speed), int(msg.unknown))

    def _h_StartAnimation(self, msg: Any) -> None:
        self.current_animation = msg.anim_id
        self.body.animating = True
        self.send(m.AnimationStarted(anim_id=msg.anim_id))

    def _h_EndAnimation(self, msg: Any) -> None:
        anim_id = self.current_animation if self.current_animation is not None else 0
        self.body.animating = False
        self.current_animation = None
        self.send(m.AnimationEnded(anim_id=anim_id))

    def _h_AbortAnimation(self, msg: Any) -> None:
        self._h_EndAnimation(msg)
