"""Camera frames from ImageChunk messages: reassembly, and what was dropped and why.

The robot splits every camera frame into ImageChunk messages sent out of band (never resent).
A frame is usable only whole: chunk ids run 0, 1, 2 … without a gap, all under one image id,
and the last chunk is the one whose ``chunk_id`` is ``image_chunk_count - 1``. Real firmware
fills ``image_chunk_count`` (and ``frame_timestamp``) only on the last chunk and leaves 0 on the
others, so the count cannot be known before the end; Anki's engine, the SDK and PyCozmo all
reassemble the same way.

Anything else drops the frame, counted by reason, and never shows half a picture: a chunk
missing or out of order, a chunk of another image before the end, a chunk too large, an
encoding or resolution the decoder cannot handle, a count that disagrees with the chunks seen,
a frame older than the last one delivered. A frame is counted once, however many of its chunks
arrive, and once dropped it stays dropped: its late chunks cannot start it again.
Pure: no I/O, no clock; the caller passes arrival times.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..protocol.table import ImageEncoding, ImageResolution

__all__ = [
    "MAX_CHUNK_BYTES",
    "RESOLUTION_SIZES",
    "ChunkReassembler",
    "CompletedFrame",
    "DropReason",
]

#: Largest chunk payload Anki's engine accepts (CLAD ``ImageConstants.IMAGE_CHUNK_SIZE``).
MAX_CHUNK_BYTES = 1200

#: Frame size (width, height) per ImageResolution.
RESOLUTION_SIZES: dict[int, tuple[int, int]] = {
    ImageResolution.VERIFICATION_SNAPSHOT: (16, 16),
    ImageResolution.QQQQVGA: (40, 30),
    ImageResolution.QQQVGA: (80, 60),
    ImageResolution.QQVGA: (160, 120),
    ImageResolution.QVGA: (320, 240),
    ImageResolution.CVGA: (400, 296),
    ImageResolution.VGA: (640, 480),
    ImageResolution.SVGA: (800, 600),
    ImageResolution.XGA: (1024, 768),
    ImageResolution.SXGA: (1280, 960),
    ImageResolution.UXGA: (1600, 1200),
    ImageResolution.QXGA: (2048, 1536),
    ImageResolution.QUXGA: (3200, 2400),
}

#: Encodings whose payload :mod:`driver.vision.jpeg` rebuilds (colour frames still say "gray").
SUPPORTED_ENCODINGS = frozenset({ImageEncoding.JPEG_MINIMIZED_GRAY, ImageEncoding.JPEG_MINIMIZED_COLOR})

#: A frame whose robot time is this far behind the last delivered one is taken as a restarted
#: robot clock, not as a stale frame.
CLOCK_RESET_MS = 5000


class DropReason:
    """Why a frame was dropped (the keys of :attr:`ChunkReassembler.dropped`)."""

    MISSING_CHUNK = "missing_chunk"      # a gap in the chunk ids, or a new frame began first
    MISSED_START = "missed_start"        # chunks of a frame whose chunk 0 never came
    OVERSIZE = "oversize"                # a chunk larger than MAX_CHUNK_BYTES
    UNSUPPORTED = "unsupported"          # an encoding or resolution that cannot be decoded
    BAD_COUNT = "bad_count"              # the count disagrees with the chunks received
    STALE = "stale"                      # older than the last frame delivered
    EMPTY = "empty"                      # no data at all
    MALFORMED = "malformed"              # a chunk whose fields could not be read
    CORRUPT = "corrupt"                  # rebuilt, but the JPEG did not decode (counted by the decoder)


@dataclass(frozen=True, slots=True)
class CompletedFrame:
    """All chunks of one frame, joined in order; still the robot's minimized JPEG."""

    image_id: int
    #: robot clock (ms) when the frame was captured; 0 when the firmware did not say
    robot_time_ms: int
    encoding: int
    resolution: int
    width: int
    height: int
    payload: bytes
    chunks: int
    #: host monotonic times (s) of the first and last chunk's arrival
    first_received_at: float
    received_at: float


@dataclass
class _Partial:
    image_id: int
    encoding: int
    resolution: int
    first_received_at: float
    parts: list[bytes] = field(default_factory=list)
    robot_time_ms: int = 0


class ChunkReassembler:
    """Joins ImageChunk messages into :class:`CompletedFrame` s, one frame at a time.

    :meth:`add` takes a chunk's fields and returns the frame it completes, or None. Counters:
    ``chunks`` received, ``completed`` frames, ``dropped`` frames by :class:`DropReason`.
    """

    def __init__(self) -> None:
        self.chunks = 0
        self.completed = 0
        self.dropped: Counter[str] = Counter()
        self._partial: _Partial | None = None
        self._last_dropped_id: int | None = None
        self._last_time_ms = 0

    @property
    def dropped_total(self) -> int:
        """Frames dropped for any reason."""
        return sum(self.dropped.values())

    def reset(self) -> None:
        """Forget the frame in progress and the last timestamp (a new connection, a new clock)."""
        self._partial = None
        self._last_dropped_id = None
        self._last_time_ms = 0

    def add_message(self, msg: Any, received_at: float) -> CompletedFrame | None:
        """:meth:`add` with the fields of a decoded ImageChunk message."""
        return self.add(image_id=int(msg.image_id), chunk_id=int(msg.chunk_id),
                        chunk_count=int(msg.image_chunk_count), frame_timestamp=int(msg.frame_timestamp),
                        encoding=int(msg.image_encoding), resolution=int(msg.image_resolution),
                        data=msg.data, received_at=received_at)

    def add(self, *, image_id: int, chunk_id: int, chunk_count: int, frame_timestamp: int, encoding: int,
            resolution: int, data: bytes, received_at: float) -> CompletedFrame | None:
        """Take one chunk; returns the frame it completes, else None (dropped frames are counted)."""
        self.chunks += 1
        if image_id == self._last_dropped_id:
            return None  # the rest of a frame already dropped (and counted): it stays dropped
        partial = self._partial
        if partial is not None and (image_id != partial.image_id or chunk_id != len(partial.parts)):
            # another frame began, or a chunk was lost or came out of order: the frame is gone
            self._drop(partial.image_id, DropReason.MISSING_CHUNK)
            partial = self._partial = None
            if image_id == self._last_dropped_id:
                return None  # a late or repeated chunk of the frame just dropped
        if partial is None:
            if chunk_id != 0:
                self._drop(image_id, DropReason.MISSED_START)
                return None
            partial = self._partial = _Partial(image_id, encoding, resolution, received_at)
        if len(data) > MAX_CHUNK_BYTES:
            self._abandon(DropReason.OVERSIZE)
            return None
        partial.parts.append(bytes(data))
        if frame_timestamp:
            partial.robot_time_ms = frame_timestamp
        if chunk_count and chunk_id >= chunk_count:
            self._abandon(DropReason.BAD_COUNT)
            return None
        if chunk_count == 0 or chunk_id < chunk_count - 1:
            return None  # more to come (the count is known only on the last chunk)
        return self._finish(partial, received_at)

    def _finish(self, partial: _Partial, received_at: float) -> CompletedFrame | None:
        self._partial = None
        size = RESOLUTION_SIZES.get(partial.resolution)
        if size is None or partial.encoding not in SUPPORTED_ENCODINGS:
            self._drop(partial.image_id, DropReason.UNSUPPORTED)
            return None
        payload = b"".join(partial.parts)
        if len(payload) < 2:
            self._drop(partial.image_id, DropReason.EMPTY)
            return None
        t = partial.robot_time_ms
        if t and self._last_time_ms and t < self._last_time_ms and self._last_time_ms - t < CLOCK_RESET_MS:
            self._drop(partial.image_id, DropReason.STALE)
            return None
        if t:
            self._last_time_ms = t
        self.completed += 1
        return CompletedFrame(
            image_id=partial.image_id, robot_time_ms=t, encoding=partial.encoding, resolution=partial.resolution,
            width=size[0], height=size[1], payload=payload, chunks=len(partial.parts),
            first_received_at=partial.first_received_at, received_at=received_at,
        )

    def _abandon(self, reason: str) -> None:
        assert self._partial is not None
        self._drop(self._partial.image_id, reason)
        self._partial = None

    def _drop(self, image_id: int, reason: str) -> None:
        self._last_dropped_id = image_id
        self.dropped[reason] += 1
