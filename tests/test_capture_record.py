"""Recording the robot's traffic: the recorder's files and rotation, and ``run --sim --record`` read
back with ``capture show``."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from driver.capture import FROM_ROBOT, TO_ROBOT, CaptureStats, Datagram, entries, read_capture
from driver.capture.recorder import CaptureRecorder
from driver.protocol import messages as m
from driver.protocol.frame import OOB_SEQ, Frame, FrameType, encode_frame

from .conftest import REPO, SAMPLE_RESOURCES


def _state_frame(n: int) -> bytes:
    return encode_frame(Frame(FrameType.ROBOT, OOB_SEQ, OOB_SEQ, 0, [m.encode(m.RobotState(timestamp=n))]))


def test_a_recording_reads_back_as_it_was_written(tmp_path: Path) -> None:
    ticks = iter(range(1_000, 2_000))
    path = tmp_path / "rec.jsonl"
    with CaptureRecorder(path, peer="172.31.1.1:5551", clock=lambda: next(ticks) / 10) as rec:
        rec.engine_tap(True, encode_frame(Frame(FrameType.RESET, 0, 0, OOB_SEQ)))
        for n in range(5):
            rec.engine_tap(False, _state_frame(30 * n))
    header = json.loads(path.read_text().splitlines()[0])
    assert header["format"] == "cozmo-brain capture" and header["version"] == 1
    assert header["peer"] == "172.31.1.1:5551" and header["started"] == 100.0
    items = list(read_capture(path))
    assert all(isinstance(i, Datagram) for i in items)
    assert [(i.t, i.direction) for i in items] == [(100.1, TO_ROBOT)] + [
        ((1002 + n) / 10, FROM_ROBOT) for n in range(5)]
    listed = list(entries(items))
    assert [e.name for e in listed] == ["RESET"] + ["RobotState"] * 5
    assert [e.message.timestamp for e in listed[1:]] == [0, 30, 60, 90, 120]  # type: ignore[union-attr]
    assert rec.datagrams == 6


def test_rotation_keeps_the_newest_traffic_within_the_bound(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    rec = CaptureRecorder(path, max_bytes=2_000, keep=2, clock=lambda: 1.0)
    for n in range(200):
        rec.record(FROM_ROBOT, _state_frame(n))
    rec.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rec.jsonl", "rec.jsonl.1", "rec.jsonl.2"]
    assert all(p.stat().st_size <= 2_000 for p in tmp_path.iterdir())
    assert rec.files > 3
    stamps = []
    for part in (path.with_name("rec.jsonl.2"), path.with_name("rec.jsonl.1"), path):
        assert json.loads(part.read_text().splitlines()[0])["format"] == "cozmo-brain capture"
        stamps += [e.message.timestamp for e in entries(read_capture(part))]  # type: ignore[union-attr]
    assert stamps == list(range(stamps[0], 200)) and stamps[0] > 0  # the newest, in order, none lost between
    with pytest.raises(ValueError, match="max_bytes"):
        CaptureRecorder(tmp_path / "x", max_bytes=10)


def test_the_link_threads_and_the_loop_may_record_at_once(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    rec = CaptureRecorder(path, max_bytes=50_000, keep=1)

    def send(direction: bool) -> None:
        for n in range(300):
            rec.engine_tap(direction, _state_frame(n))

    threads = [threading.Thread(target=send, args=(d,)) for d in (True, False)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rec.close()
    stats = CaptureStats()
    for part in (path.with_name("rec.jsonl.1"), path):
        if part.exists():
            list(entries(read_capture(part), stats))
    assert stats.malformed == 0 and stats.unreadable == 0
    assert rec.datagrams == 600


def _brain(*args: str, cwd: Path, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "brain", *args], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd)


@pytest.mark.e2e
def test_run_sim_record_writes_what_capture_show_reads(tmp_path: Path) -> None:
    """The daemon records its connection to the simulator (the start-up, the state stream, the
    animation frames its release thread sends); capture show reads it back with nothing malformed,
    and a small configured size rotates it."""
    (tmp_path / "config.yaml").write_text("record:\n  max_mb: 0.03\n  files: 30\n")
    record = tmp_path / "robot.jsonl"
    args = ["run", "--sim", "--no-vision", "--duration", "6", "--record", str(record),
            "--config", str(tmp_path / "config.yaml")]
    if SAMPLE_RESOURCES.is_dir():
        args += ["--resources", str(SAMPLE_RESOURCES)]
    done = _brain(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"recording the robot's traffic to {record}" in done.stderr
    parts = sorted(tmp_path.glob("robot.jsonl*"))
    # Some 15-25 kB/s: six seconds fill a few 30 kB files, far fewer than the 30 kept.
    assert record in parts and 3 <= len(parts) < 31, parts
    assert all(p.stat().st_size <= 30_000 for p in parts)
    ordered = [record.with_name(f"robot.jsonl.{n}") for n in range(len(parts) - 1, 0, -1)] + [record]
    assert set(ordered) == set(parts)

    show = _brain("capture", "show", *map(str, ordered), "--stats", "--json", cwd=REPO)
    assert show.returncode == 0, show.stderr
    report = json.loads(show.stdout)
    assert (report["malformed_datagrams"], report["malformed_packets"], report["unreadable"]) == (0, 0, 0)
    assert report["unknown_messages"] == 0
    names = {(row["name"], row["dir"]) for row in report["messages"]}
    for expected in [("RESET", TO_ROBOT), ("Connect", FROM_ROBOT), ("GetManufacturingInfo", TO_ROBOT),
                     ("ManufacturingID", FROM_ROBOT), ("SyncTime", TO_ROBOT), ("SyncTimeAck", FROM_ROBOT)]:
        assert expected in names, expected  # the whole connection, from its start
    state = next(row for row in report["messages"] if row["name"] == "RobotState")
    assert state["dir"] == FROM_ROBOT and state["rate_hz"] == pytest.approx(33.3, rel=0.2)
    # Animation frames go out from the link's release thread: they are recorded too.
    assert ("OutputSilence", TO_ROBOT) in names or ("OutputAudio", TO_ROBOT) in names
    assert ("Disconnect", TO_ROBOT) in names  # the clean stop, at the very end

    lines = _brain("capture", "show", *map(str, ordered), "--only", "RobotState", cwd=REPO).stdout.splitlines()
    assert len(lines) == state["count"] + sum(" resent " in line for line in lines)
    assert all(" RobotState " in line for line in lines)
    lifts = [float(line.split("lift_angle_rad=")[1].split()[0]) for line in lines]
    assert all(-0.2 < a < 0.8 for a in lifts) and -0.198266 in lifts  # radians, the lift down at -0.198


def test_recording_settings_are_read_and_checked(tmp_path: Path) -> None:
    from brain.app.config import Config, ConfigError, load_config

    cfg_file = tmp_path / "c.yaml"
    cfg_file.write_text("record:\n  max_mb: 2.5\n  files: 0\n")
    cfg = load_config(cfg_file)
    assert (cfg.record_max_mb, cfg.record_files) == (2.5, 0)
    assert (Config().record_max_mb, Config().record_files) == (20.0, 5)
    for text, message in [
        ("record:\n  max_mb: 0", "c.yaml:2: record.max_mb: expected 0.01..100000, got 0"),
        ("record:\n  files: many", "c.yaml:2: record.files: expected a number, got 'many'"),
        ("record:\n  max_mb: 1\n  path: x", "c.yaml:3: record.path: unknown setting; expected max_mb or files"),
        ("record: 5", "c.yaml:1: record: expected a mapping (max_mb, files)"),
    ]:
        cfg_file.write_text(text)
        with pytest.raises(ConfigError) as info:
            load_config(cfg_file)
        assert message in str(info.value)


@pytest.mark.e2e
def test_run_says_when_it_cannot_write_the_recording(tmp_path: Path) -> None:
    done = _brain("run", "--sim", "--duration", "1", "--record", str(tmp_path / "no" / "such" / "dir" / "r.jsonl"),
                  cwd=tmp_path)
    assert done.returncode == 1
    assert "r.jsonl: cannot write: No such file or directory" in done.stderr
