"""Text captures: recordings, hex-line logs and JSON lines, with damaged lines shown, never fatal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from driver.capture import FROM_ROBOT, TO_ROBOT, CaptureStats, Datagram, Unreadable, entries, parse_iso_time, parse_text
from driver.protocol import messages as m
from driver.protocol.frame import OOB_SEQ, Frame, FrameType, encode_frame

from .conftest import REPO

RESET = encode_frame(Frame(FrameType.RESET, 0, 0, OOB_SEQ))
STATE = encode_frame(Frame(FrameType.ROBOT, OOB_SEQ, OOB_SEQ, 0, [m.encode(m.RobotState(timestamp=42))]))


def _spaced(data: bytes) -> str:
    return " ".join(f"{b:02x}" for b in data)


def test_iso_times_with_any_fraction_and_zone() -> None:
    assert parse_iso_time("1970-01-01T00:00:01.5Z") == 1.5
    assert parse_iso_time("2026-09-18T14:31:15.5510634Z") == pytest.approx(1789741875.5510634, abs=1e-6)
    assert parse_iso_time("1970-01-01T01:00:00+01:00") == 0.0
    assert parse_iso_time("1970-01-01 00:00:02") == 2.0
    with pytest.raises(ValueError, match="expected an ISO-8601 time"):
        parse_iso_time("yesterday")


def test_every_text_format_in_one_file_and_every_bad_line_named() -> None:
    lines = [
        '{"format":"cozmo-brain capture","version":1,"started":100.0,"peer":"127.0.0.1:5551","part":1}',
        f'{{"t":100.25,"dir":"to_robot","hex":"{RESET.hex()}"}}',
        f"1970-01-01T00:01:40.5Z RX {_spaced(STATE)}",
        f'{{"t":1500.0,"utc":"1970-01-01T00:01:41Z","dir":"in","len":{len(STATE)},"hex":"{STATE.hex().upper()}"}}',
        f'{{"t":2000,"dir":"out","len":{len(RESET)},"hex":"{RESET.hex()}"}}',
        "",
        "not a capture line",
        '{"t": 1, "dir": "sideways", "hex": "00"}',
        '{"t": 1, "dir": "in", "hex": "xyz"}',
        "1970-01-01T00:01:40Z TX 4",
        "{broken json",
        '{"format":"someone else\'s"}',
        f"2026-13-45T99:00:00Z TX {_spaced(RESET)}",
    ]
    items = list(parse_text(lines, "cap.txt"))
    good = [i for i in items if isinstance(i, Datagram)]
    assert [(i.t, i.direction, i.where) for i in good] == [
        (100.25, TO_ROBOT, "cap.txt:2"), (100.5, FROM_ROBOT, "cap.txt:3"), (101.0, FROM_ROBOT, "cap.txt:4"),
        (2.0, TO_ROBOT, "cap.txt:5"),
    ]
    bad = {i.where: i.reason for i in items if isinstance(i, Unreadable)}
    assert bad["cap.txt:7"].startswith("expected '<ISO time> TX|RX <hex bytes>'")
    assert bad["cap.txt:8"].startswith("dir: expected to_robot, from_robot, out or in")
    assert bad["cap.txt:9"] == "hex: not a hex string"
    assert bad["cap.txt:10"].startswith("expected '<ISO time>")
    assert bad["cap.txt:11"].startswith("not valid JSON")
    assert bad["cap.txt:12"].startswith("unknown capture format")
    assert bad["cap.txt:13"].startswith("expected an ISO-8601 time, got '2026-13-45T99:00:00Z' (")
    assert len(items) == len(good) + len(bad) == 11
    stats = CaptureStats()
    listed = list(entries(items, stats))
    assert [e.name for e in listed if not e.malformed] == ["RESET", "RobotState", "RobotState", "RESET"]
    assert stats.unreadable == 7 and stats.malformed == 7


def test_capture_show_lists_bad_lines_with_file_and_line_and_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "mixed.log"
    path.write_text("\n".join([
        f"1970-01-01T00:00:01Z TX {_spaced(RESET)}",
        "garbage here",
        f"1970-01-01T00:00:01.25Z RX {_spaced(STATE)}",
    ]) + "\n")
    done = subprocess.run([sys.executable, "-m", "brain", "capture", "show", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["0.0000", TO_ROBOT, "RESET"]
    assert "MALFORMED  expected '<ISO time> TX|RX <hex bytes>'" in lines[1] and f"({path}:2)" in lines[1]
    assert lines[2].split()[:3] == ["0.2500", FROM_ROBOT, "RobotState"] and "timestamp=42" in lines[2]
