"""``cozmo-brain capture show FILE…``: what a capture of the robot's traffic says, message by message.

Reads the project's recordings (``run --record``), hex-line logs, JSON lines and pcap/pcapng
files (see :mod:`driver.capture`) and prints one line per message: the time in seconds from the
first datagram, the direction, the sequence number of sequenced packets, the message's name and
its decoded fields. ``--only NAME…`` keeps the named messages, ``--stats`` prints counts, rates,
gaps and what could not be decoded instead, and ``--json`` prints the same as JSON (one object a
line for messages, one object for the statistics). ``--frames DIR`` writes the robot's camera
pictures as PNG files instead (:mod:`brain.app.capture_frames`).

Unknown and malformed packets are shown like any message (``UnknownMessage_0x..`` with their
payload, ``MALFORMED`` with the reason) and never end the command; only a file that cannot be
opened does (exit 1). Several files are read one after another, as one capture (for a recording
and its rotated parts: ``capture show FILE.2 FILE.1 FILE``).
"""

from __future__ import annotations

import argparse
import difflib
import json
import logging
import math
import os
import sys
from collections.abc import Iterable, Iterator
from enum import IntEnum, IntFlag
from typing import Any, TextIO

from driver.capture import MALFORMED, CaptureStats, Datagram, Entry, Item, entries, plain, read_capture
from driver.protocol import messages as m

__all__ = ["capture_command", "format_entry", "format_stats", "match_names"]

log = logging.getLogger("cozmo_brain")

#: Longest string or byte dump shown in a text line (JSON output is never shortened).
TEXT_LIMIT = 160
BYTES_SHOWN = 16
_FRAME_NAMES = ("RESET", "RESET_ACK", "FIN")


def capture_command(args: argparse.Namespace) -> int:
    """Run ``cozmo-brain capture show``; returns the exit code."""
    try:
        only = match_names(args.only or [])
    except ValueError as exc:
        log.error("%s", exc)
        return 2
    out: TextIO = sys.stdout
    stats = CaptureStats()
    try:
        items = list(_read_all(args.files, args.port))
    except OSError as exc:
        log.error("%s: cannot read: %s", exc.filename, exc.strerror or exc)
        return 1
    if getattr(args, "frames", None):
        from pathlib import Path

        from .capture_frames import write_frames

        try:
            export = write_frames(entries(items, stats), Path(args.frames))
        except OSError as exc:
            log.error("%s: cannot write the frames: %s", args.frames, getattr(exc, "strerror", None) or exc)
            return 1
        log.info("%s", export.summary(Path(args.frames)))
        return 0
    selected = (e for e in entries(items, stats) if not only or e.name in only)
    try:
        if args.stats:
            for _ in selected:
                pass
            if only:  # the message table lists the chosen messages; the totals stay the capture's
                stats.messages = {k: v for k, v in stats.messages.items() if k[0] in only}
            text = json.dumps(stats.as_dict(), indent=2) if args.json else format_stats(stats)
            out.write(text + "\n")
        elif args.json:
            for entry in selected:
                out.write(json.dumps(_entry_json(entry)) + "\n")
        else:
            origin = next((i.t for i in items if isinstance(i, Datagram) and not math.isnan(i.t)), 0.0)
            for entry in selected:
                out.write(format_entry(entry, origin) + "\n")
        out.flush()
    except BrokenPipeError:  # the reader went away (``| head``): not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, out.fileno())  # so the interpreter's final flush does not complain
    return 0


def _read_all(files: Iterable[str], port: int) -> Iterator[Item]:
    for name in files:
        yield from read_capture(name, robot_port=port)


def match_names(names: Iterable[str]) -> set[str]:
    """The message names ``--only`` was given, checked: table names, ``UnknownMessage_0xNN``,
    ``MALFORMED``, the connection frames, or an id as ``0xNN`` (its table name). Raises
    ValueError naming the first unknown name and the closest known ones."""
    known = {*m.BY_NAME, MALFORMED, *_FRAME_NAMES}
    out: set[str] = set()
    for name in names:
        for part in filter(None, name.split(",")):
            if part in known or part.startswith("UnknownMessage_0x"):
                out.add(part)
                continue
            if part.lower().startswith("0x"):
                try:
                    msg_id = int(part, 16)
                except ValueError:
                    msg_id = -1
                cls = m.BY_ID.get(msg_id)
                if 0 <= msg_id <= 0xFF:
                    out.add(cls.NAME if cls is not None else f"UnknownMessage_0x{msg_id:02x}")
                    continue
            close = difflib.get_close_matches(part, sorted(known), n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ValueError(f"--only {part}: no such message{hint}")
    return out


# ----------------------------------------------------------------------------- text output


def format_entry(entry: Entry, origin: float = 0.0) -> str:
    """One entry as a line: seconds from ``origin``, direction, sequence number, name, fields."""
    t = "?" if math.isnan(entry.t) else f"{entry.t - origin:.4f}"
    seq = f"#{entry.seq}" if entry.seq is not None else ""
    if entry.resent:
        seq += " resent"
    head = f"{t:>10}  {entry.direction or '-':<10} {seq:<8} {entry.name}"
    if entry.malformed:
        dump = f" [{_bytes_text(entry.raw)}]" if entry.raw else ""
        return f"{head}  {entry.error} ({entry.where}){dump}"
    msg = entry.message
    if msg is None:
        return head
    if isinstance(msg, m.UnknownMessage):
        return f"{head}  payload={_bytes_text(msg.payload)}"
    enums = type(msg)._ENUMS
    parts = [f"{name}={_value_text(getattr(msg, name), enums.get(name))}" for name in msg.FIELDS]
    return f"{head}  {' '.join(parts)}" if parts else head


def _value_text(value: object, enum: Any = None) -> str:
    if enum is not None and isinstance(value, int) and not isinstance(value, bool):
        if issubclass(enum, IntFlag):
            names = [f.name for f in enum if f.name and f.value and not f.value & (f.value - 1) and value & f.value]
            return f"0x{value:x}({'|'.join(names)})" if names else f"0x{value:x}"
        if issubclass(enum, IntEnum):
            try:
                return f"{enum(value).name}({value})"
            except ValueError:
                return str(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (bytes, bytearray)):
        return _bytes_text(bytes(value))
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT] + "…"
    if isinstance(value, m.Record):
        return "{" + " ".join(f"{k}={_value_text(getattr(value, k))}" for k in value.FIELDS) + "}"
    if isinstance(value, tuple):
        return "[" + ", ".join(_value_text(v) for v in value) + "]"
    return str(value)


def _bytes_text(data: bytes) -> str:
    shown = data[:BYTES_SHOWN].hex()
    return f"<{len(data)} bytes {shown}{'…' if len(data) > BYTES_SHOWN else ''}>"


def format_stats(stats: CaptureStats) -> str:
    """The statistics as a readable table."""
    d = stats.as_dict()
    datagrams = ", ".join(f"{k} {v}" for k, v in sorted(d["datagrams"].items()))
    lines = [f"duration {d['duration_s']:.3f} s; datagrams: {datagrams or 'none'}"]
    if d["frames"]:
        lines.append("frames: " + ", ".join(f"{k} {v}" for k, v in d["frames"].items()))
    lines.append(f"{'message':<26}{'direction':<12}{'count':>7}{'rate/s':>9}{'max gap ms':>12}")
    for row in d["messages"]:
        rate = f"{row['rate_hz']:.2f}" if row["rate_hz"] is not None else "-"
        gap = f"{row['max_gap_ms']:.1f}" if row["max_gap_ms"] is not None else "-"
        lines.append(f"{row['name']:<26}{row['dir']:<12}{row['count']:>7}{rate:>9}{gap:>12}")
    silence = ", ".join(f"{k} {v:.1f} ms" for k, v in d["longest_silence_ms"].items())
    lines.append(f"longest silence: {silence or '-'}")
    lines.append(f"malformed: {d['malformed_datagrams']} datagrams, {d['malformed_packets']} packets, "
                 f"{d['unreadable']} unreadable lines or records; unknown messages: {d['unknown_messages']}; "
                 f"resent: {d['resent']}; other traffic skipped: {d['skipped']}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- JSON output


def _entry_json(entry: Entry) -> dict[str, Any]:
    out: dict[str, Any] = {
        "t": None if math.isnan(entry.t) else entry.t,
        "dir": entry.direction or None,
        "name": entry.name,
        "id": entry.msg_id,
        "seq": entry.seq,
    }
    if entry.resent:
        out["resent"] = True
    if entry.malformed:
        out.update(error=entry.error, where=entry.where, raw=entry.raw.hex())
    elif entry.message is not None:
        out["fields"] = {k: plain(v) for k, v in entry.fields().items()}
    return out
