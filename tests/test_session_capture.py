"""A real robot's datagrams fed straight into a session, with no socket and no event loop.

The capture (shared/real_data, see its SOURCES.md) is the first 2.5 s of a real Cozmo session:
a third-party engine's Reset, the robot's Connect and identity burst, GetManufacturingInfo and SyncTime, 52
pings and their echoes, a SetHeadAngle and its acknowledgement, RobotState. Each direction is
replayed into the matching end of our protocol, at the recorded times, and our session must do
what the real other end did: deliver every packet once and in order, acknowledge exactly what the
real engine and robot acknowledged at each point, measure the recorded round trips, and echo
pings unchanged. The data stays in shared/; the test skips when it is not there.
"""

from __future__ import annotations

import json
import statistics
import struct
from pathlib import Path

import pytest

from driver.protocol import messages as m
from driver.protocol.frame import OOB_SEQ, FrameType, PacketType, RawPacket, decode_frame
from driver.protocol.linkstate import LinkState, PacketReceived, Role, StateChanged
from driver.protocol.session import Session

from .conftest import REAL_DATA

CAPTURE = REAL_DATA / "cozmo-stack" / "cozmo-stack" / "tests" / "Cozmo.Protocol.Tests" / "Fixtures" / \
    "hw_fw2457_first120.log"
ROBOT = ("172.31.1.1", 5551)
ENGINE = ("172.31.1.2", 50123)
_PING = struct.Struct("<dIIB")

Row = tuple[float, str, bytes]


def _capture() -> list[Row]:
    """(seconds, "TX" engine→robot | "RX" robot→engine, datagram) per line of the capture."""
    if not CAPTURE.is_file():
        pytest.skip(f"real capture not found at {CAPTURE} (shared/real_data, see its SOURCES.md)")
    rows: list[Row] = []
    for line in Path(CAPTURE).read_text(encoding="utf-8-sig").splitlines():
        stamp, direction, *hex_bytes = line.split()
        h, mi, sec = stamp.split("T")[1].rstrip("Z").split(":")
        rows.append((int(h) * 3600 + int(mi) * 60 + float(sec), direction, bytes.fromhex("".join(hex_bytes))))
    assert len(rows) == 120
    return rows


def _pings(data: bytes) -> list[bytes]:
    return [p.body for p in decode_frame(data).packets if p.type == PacketType.PING]


def _engine_clock_offset(rows: list[Row]) -> float:
    """The engine's pings carry its own clock (ms); our ``now`` must be that clock for RTTs to mean anything."""
    offsets = [t - _PING.unpack_from(body)[0] / 1000.0 for t, d, data in rows if d == "TX" for body in _pings(data)]
    return statistics.median(offsets)


def _drain(session: Session) -> tuple[list[RawPacket], list[tuple[LinkState, LinkState]]]:
    packets: list[RawPacket] = []
    states: list[tuple[LinkState, LinkState]] = []
    while (event := session.next_event()) is not None:
        if isinstance(event, PacketReceived):
            packets.append(event.packet)
        elif isinstance(event, StateChanged):
            states.append((event.old, event.new))
    return packets, states


def test_an_engine_session_fed_the_real_robots_datagrams_does_what_the_real_engine_did() -> None:
    rows = _capture()
    offset = _engine_clock_offset(rows)
    session = Session(Role.ENGINE, peer=ROBOT)
    t0 = rows[0][0] - offset
    session.connect(t0)
    assert session.datagrams_to_send(t0) == [(rows[0][2], ROBOT)], "the very Reset the real engine sent"
    delivered, states = _drain(session)
    ping_sent: dict[int, float] = {}
    rtts: list[tuple[float, float]] = []
    acks_checked = 0
    for i, (t, direction, data) in enumerate(rows[1:], start=1):
        now = t - offset
        frame = decode_frame(data)
        if direction == "TX":
            for body in _pings(data):
                ping_sent[_PING.unpack_from(body)[1]] = t
            if frame.ack != OOB_SEQ:
                # The real engine acknowledged this much here, and the robot accepted it: so must we.
                assert session.ack == frame.ack, f"line {i + 1}"
                acks_checked += 1
            continue
        session.receive_datagram(data, ROBOT, now)
        packets, changes = _drain(session)
        delivered += packets
        states += changes
        for body in _pings(data):
            measured = session.rtt.last_sample
            assert measured is not None
            rtts.append((measured, t - ping_sent[_PING.unpack_from(body)[1]]))
        if i == 2:
            # the identity burst (sequence 0..8): our next frame acknowledges it, as the real engine's did
            out = [decode_frame(d) for d, _ in session.datagrams_to_send(now + session.ack_delay)]
            assert [(f.type, f.ack, f.packets) for f in out] == [(FrameType.ENGINE, 8, [])]
    assert states == [(LinkState.IDLE, LinkState.CONNECTING), (LinkState.CONNECTING, LinkState.CONNECTED)]
    assert acks_checked == 54  # every engine frame after the Reset
    sequenced = [p for p in delivered if p.seq != OOB_SEQ]
    assert [p.seq for p in sequenced] == list(range(20)), "every reliable packet once, in order"
    assert session.stats.duplicate_packets == 1  # the robot resent its Connect inside the identity burst
    names = [type(m.decode(p)).__name__ for p in sequenced]
    assert names[:3] == ["Connect", "HardwareInfo", "FirmwareSignature"]
    assert "ManufacturingID" in names and names[-3] == "AcknowledgeAction"
    assert json.loads(m.decode(sequenced[2]).signature)["version"] == 2457
    oob = [p.body for p in delivered if p.seq == OOB_SEQ]
    expected_oob = [p.body for _, d, data in rows if d == "RX" for p in decode_frame(data).packets
                    if p.type == PacketType.EVENT]
    assert oob == expected_oob and sum(type(m.decode(RawPacket(PacketType.EVENT, b))).__name__ == "RobotState"
                                       for b in oob) == 28
    # 52 echoes; each round trip as recorded (the engine stamps a ping a fraction of a ms before its log line)
    assert session.stats.pongs_received == len(rtts) == 52
    for measured, recorded in rtts:
        assert measured == pytest.approx(recorded, abs=0.0015)
    assert session.state is LinkState.CONNECTED and session.stats.dropped_malformed == 0


def test_a_robot_session_fed_the_real_engines_datagrams_does_what_the_real_robot_did() -> None:
    rows = _capture()
    session = Session(Role.ROBOT)
    delivered: list[RawPacket] = []
    echoes: list[bytes] = []
    out_frames = []
    acks_checked = 0
    for i, (t, direction, data) in enumerate(rows):
        frame = decode_frame(data)
        if direction == "RX":
            if frame.ack != OOB_SEQ:
                # what the real robot acknowledged at this point
                assert session.ack == frame.ack, f"line {i + 1}"
                acks_checked += 1
            continue
        session.receive_datagram(data, ENGINE, t)
        packets, _ = _drain(session)
        delivered += packets
        out = session.datagrams_to_send(t)
        assert all(addr == ENGINE for _, addr in out)
        if i == 0:
            # our answer to the Reset is byte for byte the real robot's: its Connect, acknowledging 0
            assert [d for d, _ in out] == [rows[1][2]]
        out_frames += [decode_frame(d) for d, _ in out]
        echoes += [body for d, _ in out for body in _pings(d)]
    assert session.state is LinkState.CONNECTED and session.peer == ENGINE
    assert acks_checked == 65  # every robot frame
    commands = [(p.seq, type(m.decode(p)).__name__) for p in delivered if p.seq != OOB_SEQ]
    assert commands == [(1, "GetManufacturingInfo"), (2, "SyncTime"), (3, "SetHeadAngle")]
    assert math_close(m.decode(delivered[-1]).angle_rad, 0.4)
    sent_pings = [body for _, d, data in rows if d == "TX" for body in _pings(data)]
    assert echoes == sent_pings and len(echoes) == 52, "every ping echoed unchanged, as the robot does"
    assert all(f.type == FrameType.ROBOT for f in out_frames)


def math_close(a: float, b: float) -> bool:
    return abs(a - b) < 1e-6
