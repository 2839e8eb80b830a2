"""Packet captures as tcpdump and Wireshark write them: pcap (both byte orders, micro- and
nanosecond times) and pcapng, over the link layers a capture on the robot's Wi-Fi gives. The files
are written here by a small writer of the published formats; their Cozmo datagrams come from the
driver's own encoder, with other traffic, damaged datagrams and cut records mixed in.
"""

from __future__ import annotations

import json
import math
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from driver.capture import FROM_ROBOT, TO_ROBOT, CaptureStats, entries, read_capture
from driver.protocol import messages as m
from driver.protocol.frame import OOB_SEQ, Frame, FrameType, RawPacket, encode_frame

from .conftest import REPO

ENGINE_IP, ROBOT_IP = "172.31.1.172", "172.31.1.1"
ETHERNET, RAW, SLL, SLL2 = 1, 101, 113, 276


# ----------------------------------------------------------------------------- the traffic


def _robot_frame(*msgs: m.Message, first: int = OOB_SEQ, last: int = OOB_SEQ) -> bytes:
    return encode_frame(Frame(FrameType.ROBOT, first, last, 0, [m.encode(x) for x in msgs]))


def cozmo_traffic() -> list[tuple[float, str, bytes]]:
    """(seconds, direction, datagram): a connection, a command, states, and three bad things."""
    state = m.RobotState(timestamp=1305, head_angle_rad=-0.4363, lift_angle_rad=-0.1983, status=0x3110,
                         cliff_data_raw=(874, 0, 0, 0), battery_voltage=4.67)
    return [
        (0.000, TO_ROBOT, encode_frame(Frame(FrameType.RESET, 0, 0, OOB_SEQ))),
        (0.001, FROM_ROBOT, _robot_frame(m.Connect(), first=0, last=0)),
        (0.030, TO_ROBOT, encode_frame(Frame(FrameType.ENGINE, 1, 1, 0, [m.encode(m.SetHeadAngle(0.25))]))),
        (0.033, FROM_ROBOT, _robot_frame(state, m.AcknowledgeAction(action_id=1), first=1, last=1)),
        (0.063, FROM_ROBOT, _robot_frame(m.RobotState(timestamp=1335, lift_angle_rad=0.4))),
        (0.070, FROM_ROBOT, _robot_frame(m.CliffEvent(timestamp=1340, detected_flags=3, did_stop_for_cliff=True))),
        (0.080, FROM_ROBOT, encode_frame(Frame(FrameType.ROBOT, OOB_SEQ, OOB_SEQ, 0,
                                               [RawPacket(0x05, b"\xe0\xaa\xbb")]))),  # an id nobody knows
        (0.090, FROM_ROBOT, encode_frame(Frame(FrameType.ROBOT, OOB_SEQ, OOB_SEQ, 0,
                                               [RawPacket(0x05, b"\xf0\x01\x02")]))),  # a RobotState cut short
        (0.095, TO_ROBOT, b"COZ\x03XX\x01\x07garbage"),  # not a frame at all
    ]


EXPECTED = [
    (TO_ROBOT, "RESET"), (FROM_ROBOT, "Connect"), (TO_ROBOT, "SetHeadAngle"), (FROM_ROBOT, "RobotState"),
    (FROM_ROBOT, "AcknowledgeAction"), (FROM_ROBOT, "RobotState"), (FROM_ROBOT, "CliffEvent"),
    (FROM_ROBOT, "UnknownMessage_0xe0"), (FROM_ROBOT, "MALFORMED"), (TO_ROBOT, "MALFORMED"),
]


# ----------------------------------------------------------------------------- a writer of the formats


def _ip(text: str) -> bytes:
    return bytes(int(x) for x in text.split("."))


def ipv4_udp(src: str, dst: str, sport: int, dport: int, payload: bytes, *, protocol: int = 17) -> bytes:
    """An IPv4 packet (header checksum included) carrying a UDP datagram (checksum 0: none)."""
    udp = struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload
    header = bytearray(struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 7, 0x4000, 64, protocol, 0,
                                   _ip(src), _ip(dst)))
    total = sum(struct.unpack(">10H", header))
    total = (total & 0xFFFF) + (total >> 16)
    header[10:12] = struct.pack(">H", ~total & 0xFFFF)
    return bytes(header) + udp


def link(linktype: int, ip: bytes, *, vlan: bool = False, ethertype: int = 0x0800) -> bytes:
    """``ip`` inside the link layer ``linktype``."""
    if linktype == ETHERNET:
        tag = b"\x81\x00\x00\x05" if vlan else b""
        return b"\x02" * 6 + b"\x5e\xcf\x7f\x00\x00\x01" + tag + struct.pack(">H", ethertype) + ip
    if linktype == SLL:
        return struct.pack(">HHH8sH", 0, 1, 6, b"\x5e\xcf\x7f\x00\x00\x01\x00\x00", ethertype) + ip
    if linktype == SLL2:
        return struct.pack(">HHIHBB8s", ethertype, 0, 3, 1, 0, 6, b"\x5e\xcf\x7f\x00\x00\x01\x00\x00") + ip
    assert linktype == RAW
    return ip


def packets(linktype: int, start: float = 1_764_000_000.0) -> list[tuple[float, bytes, int]]:
    """(time, captured bytes, original length): the Cozmo traffic among other traffic, one record cut short."""
    out: list[tuple[float, bytes, int]] = []
    for i, (t, direction, data) in enumerate(cozmo_traffic()):
        sport, dport = (50123, 5551) if direction == TO_ROBOT else (5551, 50123)
        src, dst = (ENGINE_IP, ROBOT_IP) if direction == TO_ROBOT else (ROBOT_IP, ENGINE_IP)
        frame = link(linktype, ipv4_udp(src, dst, sport, dport, data), vlan=(linktype == ETHERNET and i == 2))
        out.append((start + t, frame, len(frame)))
        if i == 1:  # other traffic: DHCP, another UDP port pair, TCP, and (on Ethernet) ARP and IPv6
            for other in (ipv4_udp("0.0.0.0", "255.255.255.255", 68, 67, b"\x01" * 40),
                          ipv4_udp(ENGINE_IP, ROBOT_IP, 40000, 40001, b"hello"),
                          ipv4_udp(ENGINE_IP, ROBOT_IP, 40000, 22, b"\x00" * 20, protocol=6)):
                out.append((start + t, link(linktype, other), len(link(linktype, other))))
            if linktype == ETHERNET:
                out.append((start + t, link(ETHERNET, b"\x00" * 28, ethertype=0x0806), 42))
                out.append((start + t, link(ETHERNET, b"\x60" + b"\x00" * 39, ethertype=0x86DD), 54))
    whole = out[-1][1]
    out.append((start + 0.1, whole[:30], len(whole)))  # cut by a small snap length
    return out


def write_pcap(path: Path, linktype: int, *, big_endian: bool = False, nanoseconds: bool = False) -> Path:
    order = ">" if big_endian else "<"
    magic = 0xA1B23C4D if nanoseconds else 0xA1B2C3D4
    ticks = 1_000_000_000 if nanoseconds else 1_000_000
    parts = [struct.pack(order + "IHHiIII", magic, 2, 4, 0, 0, 65535, linktype)]
    for t, data, original in packets(linktype):
        whole = round(t * ticks)
        parts.append(struct.pack(order + "IIII", whole // ticks, whole % ticks, len(data), original) + data)
    path.write_bytes(b"".join(parts))
    return path


def _block(order: str, block_type: int, body: bytes) -> bytes:
    body += b"\x00" * (-len(body) % 4)
    length = 12 + len(body)
    return struct.pack(order + "II", block_type, length) + body + struct.pack(order + "I", length)


def write_pcapng(path: Path, linktype: int, *, big_endian: bool = False, tsresol: int = 6) -> Path:
    """A section header, the capture's interface (with if_tsresol), an unrelated interface, a name
    resolution block to skip, enhanced packet blocks, and a simple packet block (no time) at the end."""
    o = ">" if big_endian else "<"
    ticks = 10**tsresol
    parts = [
        _block(o, 0x0A0D0D0A, struct.pack(o + "IHHq", 0x1A2B3C4D, 1, 0, -1)),
        _block(o, 1, struct.pack(o + "HHI", linktype, 0, 65535) + struct.pack(o + "HH", 9, 1) + bytes([tsresol])
               + b"\x00" * 3 + struct.pack(o + "HH", 0, 0)),
        _block(o, 1, struct.pack(o + "HHI", 147, 0, 0)),  # interface 1: a user link type, unused
        _block(o, 4, b"\x00" * 8),
    ]
    for t, data, original in packets(linktype):
        when = round(t * ticks)
        body = struct.pack(o + "IIIII", 0, when >> 32, when & 0xFFFFFFFF, len(data), original) + data
        parts.append(_block(o, 6, body))
    ping = encode_frame(Frame(FrameType.PING, OOB_SEQ, OOB_SEQ, 0, [m.encode(m.Ping(counter=9))]))
    frame = link(linktype, ipv4_udp(ROBOT_IP, ENGINE_IP, 5551, 50123, ping))
    parts.append(_block(o, 3, struct.pack(o + "I", len(frame)) + frame))
    path.write_bytes(b"".join(parts))
    return path


# ----------------------------------------------------------------------------- tests


def _names(path: Path) -> list[tuple[str, str]]:
    return [(e.direction, e.name) for e in entries(read_capture(path)) if e.scope != "line"]


@pytest.mark.parametrize(("kind", "linktype", "options"), [
    ("pcap", ETHERNET, {}),
    ("pcap", SLL, {"big_endian": True, "nanoseconds": True}),
    ("pcap", RAW, {"nanoseconds": True}),
    ("pcapng", ETHERNET, {}),
    ("pcapng", SLL2, {"tsresol": 9}),
    ("pcapng", RAW, {"big_endian": True}),
])
def test_every_file_layout_gives_the_same_messages_and_times(tmp_path: Path, kind: str, linktype: int,
                                                             options: dict) -> None:
    write = write_pcap if kind == "pcap" else write_pcapng
    path = write(tmp_path / f"cozmo.{kind}", linktype, **options)
    stats = CaptureStats()
    listed = list(entries(read_capture(path), stats))
    if kind == "pcapng":  # the simple packet block at the end: a robot Ping with no time
        last = listed.pop()
        assert (last.direction, last.name, last.message.counter) == (FROM_ROBOT, "Ping", 9)  # type: ignore[union-attr]
        assert math.isnan(last.t)
    assert [(e.direction, e.name) for e in listed if e.scope != "line"] == EXPECTED
    times = [e.t for e in listed if e.scope != "line"]
    assert times[0] == pytest.approx(1_764_000_000.0, abs=1e-6)
    assert times[3] - times[0] == pytest.approx(0.033, abs=1e-6)
    state = listed[3].message
    assert isinstance(state, m.RobotState) and state.cliff_data_raw == (874, 0, 0, 0)
    assert stats.skipped == (5 if linktype == ETHERNET else 3)
    assert (stats.malformed_datagrams, stats.malformed_packets, stats.unreadable) == (1, 1, 1)
    cut = [e for e in listed if e.scope == "line"]
    assert len(cut) == 1 and "snap length" in (cut[0].error or "")


def test_capture_show_reads_a_pcap_through_the_command_line(tmp_path: Path) -> None:
    path = write_pcap(tmp_path / "wlan0.pcap", ETHERNET)
    done = subprocess.run([sys.executable, "-m", "brain", "capture", "show", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[1] for line in lines] == [d for d, _ in EXPECTED] + ["-"]
    assert lines[2].split()[:4] == ["0.0300", TO_ROBOT, "#1", "SetHeadAngle"] and "angle_rad=0.25" in lines[2]
    assert "lift_angle_rad=0.4" in lines[5]
    assert "CliffEvent  timestamp=1340 detected_flags=3 did_stop_for_cliff=True" in lines[6]
    assert lines[7].endswith("UnknownMessage_0xe0  payload=<2 bytes aabb>")
    assert "MALFORMED  RobotState (id 0xf0): body is 3 bytes" in lines[8]
    assert "MALFORMED  frame: bad frame id" in lines[9]
    assert "snap length" in lines[10]

    stats = subprocess.run([sys.executable, "-m", "brain", "capture", "show", str(path), "--stats", "--json"],
                           cwd=REPO, capture_output=True, text=True, timeout=120)
    report = json.loads(stats.stdout)
    assert report["skipped"] == 5 and report["unknown_messages"] == 1
    assert (report["malformed_datagrams"], report["malformed_packets"], report["unreadable"]) == (1, 1, 1)
    assert report["datagrams"] == {TO_ROBOT: 3, FROM_ROBOT: 6}


def test_a_file_cut_in_the_middle_shows_what_it_holds_and_says_where_it_ends(tmp_path: Path) -> None:
    whole = write_pcap(tmp_path / "whole.pcap", ETHERNET).read_bytes()
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(whole[:200])
    listed = list(entries(read_capture(cut)))
    assert [e.name for e in listed[:2]] == ["RESET", "Connect"]
    assert listed[-1].malformed and "runs past the end of the file" in (listed[-1].error or "")
    ng = write_pcapng(tmp_path / "whole.pcapng", ETHERNET).read_bytes()
    cut.write_bytes(ng[:-7])
    last = list(entries(read_capture(cut)))[-1]
    assert last.malformed and "does not fit the file" in (last.error or "")


def test_packets_to_another_robot_port_are_found_with_port(tmp_path: Path) -> None:
    path = write_pcap(tmp_path / "cozmo.pcap", RAW)
    data = bytearray(path.read_bytes())
    data = bytearray(data.replace(struct.pack(">H", 5551), struct.pack(">H", 6000)))
    path.write_bytes(bytes(data))
    assert [n for _, n in _names(path)] == []
    assert [(e.direction, e.name) for e in entries(read_capture(path, robot_port=6000))
            if e.scope != "line"] == EXPECTED
