"""Capture files: what each format looks like, and reading any of them as a stream of datagrams.

A capture is a sequence of UDP datagrams between an engine and a robot, each with a time and a
direction. Four formats are read, told apart by their content (never by the file name):

* the project's own recording (``cozmo-brain run --record FILE``): one JSON object a line; a
  header line ``{"format": "cozmo-brain capture", "version": 1, ...}``, then one line per
  datagram ``{"t": 1764000000.123456, "dir": "to_robot", "hex": "434f5a03..."}`` with the host's
  UNIX time in seconds and the direction ``to_robot`` or ``from_robot``;
* hex-line logs: ``<ISO-8601 UTC time> TX|RX <hex bytes separated by spaces>``, TX being the
  engine's datagrams and RX the robot's;
* JSON lines with ``dir`` ``out``/``in`` (``in`` from the robot), ``hex`` and a time as ``utc``
  (ISO-8601) or ``t`` (milliseconds since the start);
* pcap and pcapng files, as tcpdump or Wireshark write them (see :mod:`driver.capture.pcap`).

Nothing here is fatal: a line or packet that cannot be read becomes an :class:`Unreadable` item
naming where it is and why, and reading goes on; packets of other traffic in a packet capture
become :class:`Skipped`. The parsers take bytes or lines and do no I/O;
:func:`read_capture` is the one function that opens a file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path

from .items import FROM_ROBOT, ROBOT_PORT, TO_ROBOT, Datagram, Item, Skipped, Unreadable
from .pcap import PCAP_MAGICS, PCAPNG_MAGIC, parse_pcap, parse_pcapng

__all__ = [
    "FROM_ROBOT",
    "RECORDING_FORMAT",
    "RECORDING_VERSION",
    "ROBOT_PORT",
    "TO_ROBOT",
    "Datagram",
    "Item",
    "Skipped",
    "Unreadable",
    "detect_format",
    "parse_iso_time",
    "parse_text",
    "read_capture",
]

#: The ``format`` value of a recording's header line, and the version this code writes.
RECORDING_FORMAT = "cozmo-brain capture"
RECORDING_VERSION = 1

_DIRECTIONS = {
    TO_ROBOT: TO_ROBOT, FROM_ROBOT: FROM_ROBOT,
    "out": TO_ROBOT, "in": FROM_ROBOT, "tx": TO_ROBOT, "rx": FROM_ROBOT,
}
_HEX_LINE = re.compile(r"^(\S+)\s+(TX|RX)\s+([0-9A-Fa-f]{2}(?:\s+[0-9A-Fa-f]{2})*)\s*$")
_ISO = re.compile(
    r"^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d+))?(Z|[+-]\d\d:?\d\d)?$"
)


def parse_iso_time(text: str) -> float:
    """An ISO-8601 time (``2026-09-18T14:31:15.5510634Z``, any number of fraction digits; no zone
    means UTC) as UNIX seconds. Raises ValueError naming what was expected."""
    match = _ISO.match(text.strip())
    if match is None:
        raise ValueError(f"expected an ISO-8601 time like 2026-09-18T14:31:15.551Z, got {text!r}")
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    fraction = float("0." + match.group(7)) if match.group(7) else 0.0
    zone = match.group(8) or "Z"
    try:
        whole = datetime(year, month, day, hour, minute, second, tzinfo=timezone.utc).timestamp()
    except ValueError as exc:
        raise ValueError(f"expected an ISO-8601 time, got {text!r} ({exc})") from None
    if zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        whole -= sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
    return whole + fraction


def detect_format(head: bytes) -> str:
    """``pcap``, ``pcapng`` or ``text`` from a file's first bytes."""
    if head[:4] in PCAP_MAGICS:
        return "pcap"
    if head[:4] == PCAPNG_MAGIC:
        return "pcapng"
    return "text"


def parse_text(lines: Iterable[str], source: str) -> Iterator[Item]:
    """The datagrams of a text capture: recordings, hex-line logs and JSON lines, line by line.

    Each line is read on its own, so one file may even mix the formats; blank lines and the
    recording's header lines are skipped.
    """
    for number, line in enumerate(lines, 1):
        text = line.strip().lstrip("\ufeff")
        if not text:
            continue
        where = f"{source}:{number}"
        item = _json_line(text, where) if text.startswith("{") else _hex_line(text, where)
        if item is not None:
            yield item


def _hex_line(text: str, where: str) -> Item:
    match = _HEX_LINE.match(text)
    if match is None:
        return Unreadable(where, "expected '<ISO time> TX|RX <hex bytes>' or a JSON object")
    try:
        t = parse_iso_time(match.group(1))
    except ValueError as exc:
        return Unreadable(where, str(exc))
    return Datagram(t, _DIRECTIONS[match.group(2).lower()], bytes.fromhex(match.group(3)), where)


def _json_line(text: str, where: str) -> Item | None:
    try:
        obj = json.loads(text)
    except ValueError as exc:
        return Unreadable(where, f"not valid JSON: {exc}")
    if not isinstance(obj, dict):
        return Unreadable(where, "expected a JSON object")
    if "format" in obj and "hex" not in obj:
        if obj["format"] != RECORDING_FORMAT:
            return Unreadable(where, f"unknown capture format {obj['format']!r}; expected {RECORDING_FORMAT!r}")
        return None
    written = str(obj.get("dir", ""))
    direction = _DIRECTIONS.get(written.lower())
    if direction is None:
        return Unreadable(where, f"dir: expected to_robot, from_robot, out or in, got {obj.get('dir')!r}")
    raw = obj.get("hex")
    if not isinstance(raw, str):
        return Unreadable(where, "hex: expected the datagram as a hex string")
    try:
        data = bytes.fromhex(raw)
    except ValueError:
        return Unreadable(where, "hex: not a hex string")
    # Recordings (to_robot/from_robot) give UNIX seconds in t; JSON lines with in/out give an ISO
    # time in utc, and t in milliseconds from their start.
    t: float
    if "utc" in obj:
        try:
            t = parse_iso_time(str(obj["utc"]))
        except ValueError as exc:
            return Unreadable(where, f"utc: {exc}")
    else:
        value = obj.get("t")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return Unreadable(where, f"t: expected a number, got {value!r}")
        t = float(value) if written in (TO_ROBOT, FROM_ROBOT) else float(value) / 1000.0
    return Datagram(t, direction, data, where)


def read_capture(path: str | Path, *, robot_port: int = ROBOT_PORT) -> Iterator[Item]:
    """Every datagram of the capture file at ``path`` (any of the formats above), in file order.

    An unreadable file raises OSError; anything wrong inside it is yielded as :class:`Unreadable`.
    ``robot_port`` tells the robot's side of the UDP traffic in pcap files.
    """
    source = Path(path)
    data = source.read_bytes()
    kind = detect_format(data[:4])
    if kind == "pcap":
        yield from parse_pcap(data, str(source), robot_port=robot_port)
    elif kind == "pcapng":
        yield from parse_pcapng(data, str(source), robot_port=robot_port)
    else:
        yield from parse_text(data.decode("utf-8", errors="replace").splitlines(), str(source))
