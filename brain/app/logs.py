"""Logging for every command, set up in one place: to standard error, for a terminal or for journald.

On a terminal (or a file) each record is one line with a time stamp. Under systemd, standard error
is usually a stream into the journal, which stamps every line itself and reads a ``<N>`` syslog
priority prefix from the start of each line: then records carry that prefix and no time stamp, so
``journalctl -p warning`` shows exactly the warnings and errors. systemd says a process's stderr
is such a stream by setting ``JOURNAL_STREAM`` to the ``device:inode`` of that stream; the value
is compared with stderr's own, so a child whose stderr was redirected elsewhere keeps the
terminal format. Each line of a multi-line record (a traceback, a list of validation errors) gets
the prefix, so none of it falls to the journal's default priority.

Verbosity: ``-q`` keeps warnings and errors; the default is INFO (one line per change of what the
robot does); ``-v`` adds the brain's DEBUG detail (a line per heartbeat beat with the branch, mood
and events); ``-vv`` turns on DEBUG everywhere, the driver included.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from typing import TextIO

__all__ = ["JournalFormatter", "TERMINAL_FORMAT", "journal_stream", "setup_logging", "syslog_priority"]

TERMINAL_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
TERMINAL_DATEFMT = "%H:%M:%S"
JOURNAL_FORMAT = "%(levelname)s %(name)s: %(message)s"
#: Loggers whose DEBUG output ``-v`` turns on: the personality's per-beat detail.
BRAIN_LOGGERS = ("brain", "cozmo_brain")


def syslog_priority(levelno: int) -> int:
    """The syslog priority (0 emergency .. 7 debug) for a logging level."""
    if levelno >= logging.CRITICAL:
        return 2
    if levelno >= logging.ERROR:
        return 3
    if levelno >= logging.WARNING:
        return 4
    if levelno >= logging.INFO:
        return 6
    return 7


class JournalFormatter(logging.Formatter):
    """No time stamp (journald adds one) and a ``<N>`` priority prefix on every line."""

    def __init__(self) -> None:
        super().__init__(JOURNAL_FORMAT)

    def format(self, record: logging.LogRecord) -> str:  # noqa: D102
        prefix = f"<{syslog_priority(record.levelno)}>"
        return "\n".join(prefix + line for line in super().format(record).split("\n"))


def journal_stream(stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``stream`` is the journal stream systemd announced in ``JOURNAL_STREAM``."""
    value = (os.environ if environ is None else environ).get("JOURNAL_STREAM", "")
    dev, sep, ino = value.partition(":")
    if not sep:
        return False
    try:
        st = os.fstat(stream.fileno())
        return (st.st_dev, st.st_ino) == (int(dev), int(ino))
    except (OSError, ValueError, AttributeError):  # no file descriptor, or a malformed variable
        return False


class _Handler(logging.StreamHandler):
    """The handler this module installs (recognised, and replaced, when set up again).

    Without a stream of its own it writes to whatever ``sys.stderr`` is at the time of each
    record, so a replaced standard error (a test's capture, a redirect) is followed.
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        super().__init__(sys.stderr if stream is None else stream)
        self._follow_stderr = stream is None

    def emit(self, record: logging.LogRecord) -> None:  # noqa: D102
        if self._follow_stderr:
            self.stream = sys.stderr
        super().emit(record)


def setup_logging(verbose: int = 0, quiet: bool = False, *, stream: TextIO | None = None,
                  environ: Mapping[str, str] | None = None) -> None:
    """Configure the root logger for this process: level from -v/-q, format for a terminal or journald.

    Calling it again replaces what an earlier call set up (and nothing else: handlers that
    others installed on the root logger stay).
    """
    out = sys.stderr if stream is None else stream
    handler = _Handler(stream)
    if journal_stream(out, environ):
        handler.setFormatter(JournalFormatter())
    else:
        handler.setFormatter(logging.Formatter(TERMINAL_FORMAT, TERMINAL_DATEFMT))
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, _Handler)]:
        root.removeHandler(old)
    root.addHandler(handler)
    if quiet:
        root.setLevel(logging.WARNING)
    elif verbose >= 2:
        root.setLevel(logging.DEBUG)
    else:
        root.setLevel(logging.INFO)
    brain_level = logging.DEBUG if verbose == 1 and not quiet else logging.NOTSET
    for name in BRAIN_LOGGERS:
        logging.getLogger(name).setLevel(brain_level)
