"""``cozmo-brain capture show FILE --frames DIR``: a capture's camera pictures, written as PNG files.

The robot's ImageChunk messages in a capture are put back together as the vision does
(:class:`driver.vision.chunks.ChunkReassembler`: a frame with a missing or out-of-order chunk is
dropped and counted), each complete frame's header-less JPEG is rebuilt and decoded
(:func:`driver.vision.sample.decode_frame`), and the picture is written as
``frame-<n>-image-<id>.png`` (grey, or colour when the robot sent colour). A frame that does
not decode is counted and skipped; the command goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from driver.capture import FROM_ROBOT, Entry

__all__ = ["FrameExport", "write_frames"]

log = logging.getLogger("cozmo_brain")


@dataclass
class FrameExport:
    """What ``--frames`` did: the files written, and the frames dropped or undecodable (by reason)."""

    written: list[Path] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)
    corrupt: int = 0

    def summary(self, directory: Path) -> str:
        """One line for the log."""
        lost = ", ".join(f"{n} {why}" for why, n in sorted(self.dropped.items()))
        return (f"{len(self.written)} camera frame(s) written to {directory}"
                + (f"; dropped: {lost}" if lost else "") + (f"; {self.corrupt} did not decode" if self.corrupt else ""))


def write_frames(entries: Iterable[Entry], directory: Path) -> FrameExport:
    """Reassemble, decode and write the robot's camera frames among ``entries``; raises OSError on a bad folder."""
    import cv2

    from driver.vision.chunks import ChunkReassembler
    from driver.vision.sample import CorruptFrame, decode_frame

    directory.mkdir(parents=True, exist_ok=True)
    frames = ChunkReassembler()
    export = FrameExport()
    for entry in entries:
        if entry.direction != FROM_ROBOT or entry.name != "ImageChunk" or entry.message is None:
            continue
        try:
            frame = frames.add_message(entry.message, entry.t)
        except (TypeError, ValueError) as exc:
            log.warning("an ImageChunk at %.3f s could not be taken: %s", entry.t, exc)
            continue
        if frame is None:
            continue
        try:
            decoded = decode_frame(frame)
        except CorruptFrame as exc:
            export.corrupt += 1
            log.warning("image %d did not decode: %s", frame.image_id, exc)
            continue
        path = directory / f"frame-{len(export.written) + 1:04d}-image-{frame.image_id}.png"
        pixels = cv2.cvtColor(decoded.pixels, cv2.COLOR_RGB2BGR) if decoded.color else decoded.gray
        if not cv2.imwrite(str(path), pixels):
            raise OSError(f"cannot write {path}")
        export.written.append(path)
    export.dropped = dict(frames.dropped)
    return export
