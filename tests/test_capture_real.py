"""Real robot captures (firmware 2457, read from ../shared/real_data, never copied here) decode
completely with the driver's codecs, say what the real robot said, and read through the command line.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from driver.capture import FROM_ROBOT, TO_ROBOT, CaptureStats, Datagram, decode_datagram, entries, read_capture
from driver.samples import state_from_message

from .conftest import REPO

FIRST120 = "cozmo-stack/cozmo-stack/tests/Cozmo.Protocol.Tests/Fixtures/hw_fw2457_first120.log"
CONTROL = "cozmo-stack/re-analysis/acceptance/hardware/20260924-202748-CONTROL"


def _captures(real_data: Path) -> list[Path]:
    """Every capture of robot traffic in the real data: the hex-line logs and the JSON lines."""
    return sorted([*real_data.rglob("*.log"), *real_data.rglob("*.jsonl")])


def test_every_real_capture_decodes_with_nothing_malformed_or_unknown(real_data: Path) -> None:
    captures = _captures(real_data)
    assert len(captures) >= 4, captures
    for path in captures:
        stats = CaptureStats()
        listed = list(entries(read_capture(path), stats))
        assert listed, path
        report = stats.as_dict()
        assert stats.malformed == 0, (path.name, [e.error for e in listed if e.malformed])
        assert stats.unknown_messages == 0, (path.name, [e.name for e in listed if e.unknown])
        assert stats.skipped == 0 and sum(report["datagrams"].values()) > 0, path.name
        assert set(report["datagrams"]) == {TO_ROBOT, FROM_ROBOT}, path.name


def test_the_first_real_session_says_what_sources_md_says(real_data: Path) -> None:
    stats = CaptureStats()
    listed = list(entries(read_capture(real_data / FIRST120), stats))
    counts = stats.counts()
    assert sum(stats.datagrams.values()) == 120
    assert counts["RobotState"] == 28 and counts["ObjectAvailable"] == 5 and counts["DebugData"] == 9
    assert stats.messages[("Ping", TO_ROBOT)].count == 52 and stats.messages[("Ping", FROM_ROBOT)].count == 52
    # The robot's answer to SyncTime is SyncTimeAck (0xc2), and WiFiFlashID (0xec) is known.
    assert counts["SyncTimeAck"] == 1 and counts["WiFiFlashID"] == 1 and counts["ManufacturingID"] == 1
    assert "RobotDelocalized" not in counts
    names = [e.name for e in listed if not e.resent]
    assert names.index("SyncTime") < names.index("SyncTimeAck") < names.index("RobotState")
    # RobotState: robot timestamps step by exactly 30 ms; the state streams at ~33 Hz.
    states = [e.message for e in listed if e.name == "RobotState"]
    steps = {b.timestamp - a.timestamp for a, b in zip(states, states[1:], strict=False)}  # type: ignore[union-attr]
    assert steps == {30}
    assert stats.messages[("RobotState", FROM_ROBOT)].rate_hz == pytest.approx(33.3, abs=2)
    # The lift float is an angle: -0.198 rad with the lift down, which is 32 mm.
    first = state_from_message(states[0], 0.0).proprioception
    assert first.lift_angle_rad == pytest.approx(-0.198, abs=0.001)
    assert first.lift_height_mm == pytest.approx(32.0, abs=0.2)
    # The head starts at its low stop and goes to the 0.4 rad SetHeadAngle asked for.
    assert first.head_angle_rad == pytest.approx(-0.436, abs=0.001)
    assert states[-1].head_angle_rad == pytest.approx(0.399, abs=0.002)  # type: ignore[union-attr]
    firmware = next(e.message for e in listed if e.name == "FirmwareSignature")
    assert json.loads(firmware.signature)["version"] == 2457  # type: ignore[union-attr]


def test_control_run_excerpts_hold_camera_animation_and_audio_streaming(real_data: Path) -> None:
    def counts(name: str) -> dict[str, int]:
        stats = CaptureStats()
        for _ in entries(read_capture(real_data / CONTROL / name), stats):
            pass
        return stats.counts()

    camera = counts("frames.CAMERA-excerpt.jsonl")
    assert camera["ImageChunk"] == 9 and camera["ImageImuData"] >= 4  # four images of two chunks + an orphan
    anim = counts("frames.ANIM-excerpt.jsonl")
    assert anim["OutputSilence"] >= 1 and anim["AnimHead"] >= 1 and anim["AnimLift"] >= 1
    assert anim["DisplayImage"] >= 1 and anim["AnimationState"] >= 1
    audio = counts("frames.AUDIO-excerpt.jsonl")
    assert audio["OutputAudio"] == 2 and audio["AnimationState"] == 1


def test_a_short_older_firmware_message_is_shown_as_malformed_and_the_rest_decodes(real_data: Path) -> None:
    """PyCozmo's test frames: an engine animation batch, and a firmware-2214 robot frame whose
    AnimationState is one byte short of the 2381 layout."""
    frames = json.loads((real_data / "pycozmo/pycozmo/tests/test_frame.bytes.json").read_text())["frames"]
    batch = decode_datagram(Datagram(0.0, TO_ROBOT, bytes.fromhex(frames[0]["hex"]), "batch"))
    assert [e.name for e in batch] == ["OutputSilence", "DisplayImage", "LightStateCenter", "LightStateSide"]
    assert [e.seq for e in batch] == [2716, 2717, 2718, 2719]
    old = decode_datagram(Datagram(0.0, FROM_ROBOT, bytes.fromhex(frames[1]["hex"]), "fw2214"))
    assert [e.name for e in old] == ["Ping", "MALFORMED"]
    assert old[1].scope == "packet" and old[1].msg_id == 0xF1 and "AnimationState" in (old[1].error or "")


def _show(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "brain", "capture", "show", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_capture_show_on_a_real_capture_through_the_command_line(real_data: Path) -> None:
    path = str(real_data / FIRST120)
    listed = list(entries(read_capture(path)))
    done = _show(path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(listed) == 162
    state = next(line for line in lines if " RobotState " in line)
    assert "from_robot" in state and "lift_angle_rad=-0.198266" in state and "cliff_data_raw=[874, 0, 0, 0]" in state
    assert "status=0x3110(IS_BODY_ACC_MODE|LIFT_IN_POS|IS_ON_CHARGER|IS_CHARGING)" in state
    assert any(" SyncTimeAck" in line for line in lines)
    assert any("WiFiFlashID  flash_id=" in line for line in lines)
    assert any("MotorCalibration  motor_id=LIFT(2) calib_started=True" in line for line in lines)
    assert float(lines[0].split()[0]) == 0.0 and float(lines[-1].split()[0]) == pytest.approx(2.475, abs=0.01)

    only = _show(path, "--only", "RobotState", "0xc2")
    assert only.returncode == 0, only.stderr
    assert len(only.stdout.splitlines()) == 29 and all(
        (" RobotState " in line) or line.endswith(" SyncTimeAck") for line in only.stdout.splitlines())

    as_json = _show(path, "--json", "--only", "SetHeadAngle")
    [head] = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert head["name"] == "SetHeadAngle" and head["dir"] == TO_ROBOT and head["id"] == 0x37
    assert math.isclose(head["fields"]["angle_rad"], 0.4, abs_tol=1e-6)

    stats = _show(path, "--stats")
    assert stats.returncode == 0, stats.stderr
    row = next(line.split() for line in stats.stdout.splitlines() if line.startswith("RobotState "))
    assert row[:3] == ["RobotState", "from_robot", "28"] and float(row[3]) == pytest.approx(33.3, abs=2)
    assert "malformed: 0 datagrams, 0 packets, 0 unreadable" in stats.stdout
    as_dict = json.loads(_show(path, "--stats", "--json").stdout)
    assert as_dict["malformed_packets"] == 0 and as_dict["datagrams"] == {FROM_ROBOT: 65, TO_ROBOT: 55}


def test_unknown_names_for_only_are_a_usage_error_with_suggestions(real_data: Path) -> None:
    done = _show(str(real_data / FIRST120), "--only", "RobotStat")
    assert done.returncode == 2
    assert "--only RobotStat: no such message; did you mean RobotState" in done.stderr
    assert _show("/nonexistent/capture.log").returncode == 1
