"""Recording a connection: every datagram both ways, with the host's time, in bounded rotated files.

``cozmo-brain run --record FILE`` gives the link a :class:`CaptureRecorder` as its tap, so a user
can attach what went over the wire to a bug report and anyone can read it back with
``cozmo-brain capture show``. The format (see :mod:`driver.capture.formats`) is one JSON object a
line: a header line, then ``{"t": <UNIX time in s>, "dir": "to_robot"|"from_robot", "hex": "..."}``
per datagram.

The size is bounded: when ``FILE`` would grow past ``max_bytes`` it becomes ``FILE.1`` (``FILE.1``
becomes ``FILE.2`` and so on, up to ``keep`` old files; the oldest is deleted) and a new ``FILE``
starts with its own header, so the newest traffic is always in ``FILE`` and the whole set never
exceeds about ``(keep + 1) * max_bytes``. Lines are written whole and flushed at once: a crash
loses nothing already recorded. The link may call from its frame release thread as well as from
the event loop, so writing is serialised by a lock. A write that fails (disk full) is logged
once and recording stops; the connection goes on.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from .formats import FROM_ROBOT, RECORDING_FORMAT, RECORDING_VERSION, TO_ROBOT

__all__ = ["DEFAULT_KEEP", "DEFAULT_MAX_BYTES", "CaptureRecorder"]

log = logging.getLogger(__name__)

#: Default size of one recording file, and the number of rotated files kept beside it.
DEFAULT_MAX_BYTES = 20_000_000
DEFAULT_KEEP = 5


class CaptureRecorder:
    """Writes datagrams to ``path`` in the recording format, rotating at ``max_bytes``.

    ``peer`` (``host:port``) goes into each file's header. ``clock`` gives the UNIX time of a
    datagram (tests pass their own).
    """

    def __init__(self, path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES, keep: int = DEFAULT_KEEP,
                 peer: str = "", clock: Callable[[], float] = time.time) -> None:
        if max_bytes < 1024:
            raise ValueError(f"max_bytes: expected at least 1024, got {max_bytes}")
        if keep < 0:
            raise ValueError(f"keep: expected 0 or more, got {keep}")
        self.path = Path(path)
        self.max_bytes = max_bytes
        self.keep = keep
        self.peer = peer
        self.clock = clock
        #: datagrams written, and files started (the first included)
        self.datagrams = 0
        self.files = 0
        self._lock = threading.Lock()
        self._file: TextIO | None = None
        self._size = 0
        self._failed = False
        self._open()

    def _open(self) -> None:
        self._file = open(self.path, "w", encoding="ascii", newline="\n")  # closed in close()
        self._size = 0
        self.files += 1
        header = {"format": RECORDING_FORMAT, "version": RECORDING_VERSION, "started": round(self.clock(), 6),
                  "peer": self.peer, "part": self.files}
        self._write(json.dumps(header, separators=(",", ":")) + "\n")

    def _write(self, line: str) -> None:
        assert self._file is not None
        self._file.write(line)
        self._file.flush()
        self._size += len(line)

    def record(self, direction: str, data: bytes) -> None:
        """Write one datagram (``direction`` is ``to_robot`` or ``from_robot``) stamped with the time now."""
        t = self.clock()
        line = f'{{"t":{t:.6f},"dir":"{direction}","hex":"{data.hex()}"}}\n'
        with self._lock:
            if self._file is None or self._failed:
                return
            try:
                if self._size + len(line) > self.max_bytes and self._size > 0:
                    self._rotate()
                self._write(line)
                self.datagrams += 1
            except OSError as exc:
                self._failed = True
                log.error("recording to %s stopped: %s", self.path, exc.strerror or exc)

    def engine_tap(self, outgoing: bool, data: bytes) -> None:
        """The link tap of an engine (our side): what it sends goes to the robot."""
        self.record(TO_ROBOT if outgoing else FROM_ROBOT, data)

    def _rotate(self) -> None:
        assert self._file is not None
        self._file.close()
        if self.keep == 0:
            self.path.unlink(missing_ok=True)
        else:
            oldest = self._rotated(self.keep)
            oldest.unlink(missing_ok=True)
            for n in range(self.keep - 1, 0, -1):
                if self._rotated(n).exists():
                    self._rotated(n).replace(self._rotated(n + 1))
            self.path.replace(self._rotated(1))
        self._open()

    def _rotated(self, n: int) -> Path:
        return self.path.with_name(f"{self.path.name}.{n}")

    def close(self) -> None:
        """Finish the current file; later datagrams are ignored."""
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    def __enter__(self) -> CaptureRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
