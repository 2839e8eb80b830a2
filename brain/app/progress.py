"""Progress of a long run on standard error: one updating line on a terminal, log lines otherwise.

``simulate`` runs for minutes; a person at a terminal wants to see it move without a screenful of
lines, and a log file (or a CI job) wants a few plain lines instead of carriage returns. On a
terminal :class:`Progress` keeps one line that it rewrites in place (``\\r``, then erase to the end
of the line), and clears it whenever a log record is about to be written so the two never mix;
elsewhere it hands the text to a logger, at most once per ``every_s`` wall seconds unless a line
is a milestone (a simulated hour, a day finished).
"""

from __future__ import annotations

import logging
import shutil
import sys
import time
from typing import TextIO

__all__ = ["Progress"]

#: On a terminal, redraw at most this often (wall seconds).
REDRAW_S = 0.2


class Progress:
    """Shows progress text on ``stream`` (a terminal) or through ``logger`` (anything else).

    Use it as a context manager, or call :meth:`close` at the end: on a terminal the line is
    cleared then, so what follows starts on a clean line.
    """

    def __init__(self, logger: logging.Logger, *, stream: TextIO | None = None, tty: bool | None = None,
                 every_s: float = 5.0) -> None:
        self.logger = logger
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(tty if tty is not None else getattr(self.stream, "isatty", lambda: False)())
        self.every_s = every_s
        self._shown = False
        self._last = -float("inf")
        self._filter: _ClearLine | None = None
        if self.tty:
            self._filter = _ClearLine(self)
            for handler in logging.getLogger().handlers:
                handler.addFilter(self._filter)

    def show(self, text: str, *, milestone: bool = False) -> bool:
        """Show ``text`` now if it is time to (always for a milestone); returns whether it was shown."""
        now = time.monotonic()
        if self.tty:
            if not milestone and now - self._last < REDRAW_S:
                return False
            width = max(20, shutil.get_terminal_size((100, 24)).columns - 1)
            self.stream.write("\r\x1b[K" + (text if len(text) <= width else text[:width - 1] + "…"))
            self.stream.flush()
            self._shown = True
        else:
            if not milestone and now - self._last < self.every_s:
                return False
            self.logger.info("%s", text)
        self._last = now
        return True

    def clear(self) -> None:
        """Take the terminal line away (before something else is written there)."""
        if self.tty and self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False

    def close(self) -> None:
        """Clear the line and stop watching the log."""
        self.clear()
        if self._filter is not None:
            for handler in logging.getLogger().handlers:
                handler.removeFilter(self._filter)
            self._filter = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _ClearLine(logging.Filter):
    """Clears the progress line before a log record is written below it."""

    def __init__(self, progress: Progress) -> None:
        super().__init__()
        self.progress = progress

    def filter(self, record: logging.LogRecord) -> bool:  # noqa: D102
        self.progress.clear()
        return True
