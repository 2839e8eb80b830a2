"""Captures of the robot's UDP traffic: reading them in every format, decoding them, recording them.

:mod:`~driver.capture.formats` reads recordings, hex-line logs, JSON lines and (through
:mod:`~driver.capture.pcap`) packet captures into :class:`Datagram` items;
:mod:`~driver.capture.decode` turns those into one :class:`Entry` per message with the driver's own
codecs, and counts them in :class:`CaptureStats`; :mod:`~driver.capture.recorder` writes
recordings (``run --record``).
"""

from __future__ import annotations

from .decode import MALFORMED, CaptureStats, Entry, decode_datagram, entries, plain
from .formats import (
    FROM_ROBOT,
    RECORDING_FORMAT,
    RECORDING_VERSION,
    ROBOT_PORT,
    TO_ROBOT,
    Datagram,
    Item,
    Skipped,
    Unreadable,
    detect_format,
    parse_iso_time,
    parse_text,
    read_capture,
)
from .recorder import CaptureRecorder

__all__ = [
    "FROM_ROBOT",
    "MALFORMED",
    "RECORDING_FORMAT",
    "RECORDING_VERSION",
    "ROBOT_PORT",
    "TO_ROBOT",
    "CaptureRecorder",
    "CaptureStats",
    "Datagram",
    "Entry",
    "Item",
    "Skipped",
    "Unreadable",
    "decode_datagram",
    "detect_format",
    "entries",
    "parse_iso_time",
    "parse_text",
    "plain",
    "read_capture",
]
