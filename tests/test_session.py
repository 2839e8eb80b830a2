"""The connection state machine alone: two sessions joined by a list of datagrams on a made-up clock.

No socket, no event loop, no thread: :class:`Wire` is a third driver of the same sessions the
link drives (it feeds datagrams in, takes datagrams out, and jumps its clock to the next timer the
sessions ask for), with loss, duplication, reordering and silence of its own. Hours of protocol
time take milliseconds, and every time and count is exact.
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field

import pytest

from driver.protocol.frame import OOB_SEQ, FrameType, PacketType, RawPacket, decode_frame
from driver.protocol.linkstate import (
    STAGE_CANCELLED,
    STAGE_PENDING,
    STAGE_SENT,
    Backoff,
    LinkError,
    LinkState,
    PacketReceived,
    Retrying,
    Role,
    StateChanged,
)
from driver.protocol.session import Session

ROBOT_AT = ("10.0.0.1", 5551)
ENGINE_AT = ("10.0.0.2", 40001)


def _cmd(n: int) -> RawPacket:
    return RawPacket(PacketType.COMMAND, bytes([0x42]) + n.to_bytes(2, "little"))


@dataclass
class End:
    """One session and what came out of it."""

    session: Session
    address: tuple[str, int]
    packets: list[RawPacket] = field(default_factory=list)
    states: list[tuple[float, LinkState, LinkState]] = field(default_factory=list)
    retries: list[tuple[float, Retrying]] = field(default_factory=list)
    sent: list[tuple[float, bytes]] = field(default_factory=list)


class Wire:
    """Drives an engine and a robot session against each other; datagrams take ``delay`` seconds."""

    def __init__(self, *, delay: float = 0.002, loss: float = 0.0, duplicate: float = 0.0, reorder: float = 0.0,
                 seed: int = 1, **engine_kwargs: object) -> None:
        self.now = 100.0
        self.delay, self.loss, self.duplicate, self.reorder = delay, loss, duplicate, reorder
        self.silent = False  # the robot neither hears nor is heard
        self.rng = random.Random(seed)
        self.engine = End(Session(Role.ENGINE, peer=ROBOT_AT, **engine_kwargs), ENGINE_AT)  # type: ignore[arg-type]
        self.robot = End(Session(Role.ROBOT, lost_after=5.0), ROBOT_AT)
        self._flight: list[tuple[float, int, bytes, tuple[str, int], End]] = []
        self._n = 0

    def _ends(self) -> tuple[End, End]:
        return self.engine, self.robot

    def pump(self) -> None:
        """Take every end's output now, and its events."""
        for end in self._ends():
            for data, addr in end.session.datagrams_to_send(self.now):
                end.sent.append((self.now, data))
                dst = self.robot if addr == ROBOT_AT else self.engine if addr == ENGINE_AT else None
                if dst is None or self.silent or self.rng.random() < self.loss:
                    continue
                copies = 2 if self.rng.random() < self.duplicate else 1
                for _ in range(copies):
                    late = 0.015 if self.rng.random() < self.reorder else 0.0
                    self._n += 1
                    heapq.heappush(self._flight, (self.now + self.delay + late, self._n, data, end.address, dst))
            while (event := end.session.next_event()) is not None:
                if isinstance(event, PacketReceived):
                    end.packets.append(event.packet)
                elif isinstance(event, StateChanged):
                    end.states.append((self.now, event.old, event.new))
                elif isinstance(event, Retrying):
                    end.retries.append((self.now, event))
            when = end.session.next_timer()
            assert when is None or when > self.now, f"{end.session.role.value} asks to be woken at once, again"

    def run(self, until: float) -> None:
        """Advance to ``until``, waking each session at its own timers and delivering datagrams in time."""
        self.pump()
        while True:
            times = [t for t in (e.session.next_timer() for e in self._ends()) if t is not None]
            if self._flight:
                times.append(self._flight[0][0])
            if not times or min(times) > until:
                self.now = until
                return
            self.now = min(times)
            while self._flight and self._flight[0][0] <= self.now:
                _, _, data, src, dst = heapq.heappop(self._flight)
                if not self.silent:
                    dst.session.receive_datagram(data, src, self.now)
            for end in self._ends():
                when = end.session.next_timer()
                if when is not None and when <= self.now:
                    end.session.handle_timer(self.now)
            self.pump()

    def connect(self) -> None:
        self.engine.session.connect(self.now)
        for _ in range(100):
            self.run(self.now + 0.1)
            if self.engine.session.state is LinkState.CONNECTED:
                break
        assert self.engine.session.state is LinkState.CONNECTED and self.robot.session.state is LinkState.CONNECTED


def _resets(end: End) -> list[float]:
    return [t for t, data in end.sent if decode_frame(data).type == FrameType.RESET]


def test_packets_arrive_once_and_in_order_both_ways_through_loss_duplication_and_reordering() -> None:
    wire = Wire(loss=0.15, duplicate=0.1, reorder=0.1, seed=7)
    wire.connect()
    wire.engine.packets.clear()
    for i in range(3000):
        wire.engine.session.send(_cmd(i))
        wire.robot.session.send(_cmd(i))
        if i % 40 == 39:
            wire.run(wire.now + 0.02)
    wire.run(wire.now + 30.0)
    for end in (wire.robot, wire.engine):
        got = [int.from_bytes(p.body[1:3], "little") for p in end.packets if p.type == PacketType.COMMAND]
        assert got == list(range(3000))
    assert wire.engine.session.stats.resent_packets > 0 and wire.robot.session.stats.duplicate_packets > 0
    assert wire.engine.session.in_flight == 0 and wire.robot.session.in_flight == 0
    assert wire.engine.session.state is LinkState.CONNECTED  # pings kept it alive through the loss


def test_a_silent_robot_is_lost_in_time_and_the_engine_retries_with_backoff_until_it_answers() -> None:
    wire = Wire(retry_initial=0.5, retry_max=10.0)
    wire.connect()
    engine = wire.engine
    quiet_from = wire.now
    wire.silent = True
    wire.run(quiet_from + 60.0)
    lost = [t for t, _, new in engine.states if new is LinkState.LOST]
    last_heard = max(t for t, _ in wire.robot.sent if t <= quiet_from) + wire.delay
    assert len(lost) == 1 and lost[0] == pytest.approx(last_heard + 3.0)  # lost_after after the last frame
    resets = _resets(engine)[1:]  # the first one made the connection
    gaps = [round(b - a, 6) for a, b in zip([lost[0], *resets], resets, strict=False)]
    assert gaps[:9] == [0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0, 10.0]
    # one report per backoff step, none once the wait stays at the maximum
    assert [(r.attempt, r.next_in_s) for _, r in engine.retries] == [(2, 1.0), (3, 2.0), (4, 4.0), (5, 8.0), (6, 10.0)]
    # what the layer above sends meanwhile is thrown away, not kept for the next connection
    engine.session.send(_cmd(999))
    assert engine.session.stats.discarded_packets == 1
    # the robot dropped the silent engine after its own 5 s and takes the next Reset as a new one
    assert any(new is LinkState.IDLE for _, _, new in wire.robot.states)
    wire.silent = False
    back = wire.now
    wire.run(back + 11.0)
    assert engine.session.state is LinkState.CONNECTED
    reconnected = [t for t, old, new in engine.states if old is LinkState.LOST and new is LinkState.CONNECTED]
    assert len(reconnected) == 1 and reconnected[0] - back <= 10.0 + 0.01
    engine.session.send(_cmd(1000))
    wire.run(wire.now + 0.1)
    commands = [p for p in wire.robot.packets if p.type == PacketType.COMMAND]
    assert [(p.seq, p.body) for p in commands] == [(1, _cmd(1000).body)], "numbering starts afresh at 1"


def test_connecting_to_nobody_backs_off_and_reports_each_step_once() -> None:
    wire = Wire(retry_initial=0.25, retry_max=1.0)
    wire.silent = True
    start = wire.now
    wire.engine.session.connect(start)
    wire.run(start + 10.0)
    resets = [round(t - start, 6) for t in _resets(wire.engine)]
    assert resets[:7] == [0.0, 0.25, 0.75, 1.75, 2.75, 3.75, 4.75]
    assert [r.next_in_s for _, r in wire.engine.retries] == [0.5, 1.0]
    assert wire.engine.session.state is LinkState.CONNECTING
    with pytest.raises(ValueError, match="backoff"):
        Backoff(0.0, 1.0)
    with pytest.raises(ValueError, match="backoff"):
        Backoff(2.0, 1.0)


def test_a_reset_from_the_connected_engine_starts_a_new_connection_the_robot_announces_again() -> None:
    wire = Wire()
    wire.connect()
    wire.robot.states.clear()
    wire.engine.session.connect(wire.now)  # the engine starts over (after a failed start-up, say)
    wire.run(wire.now + 0.1)
    assert [(old, new) for _, old, new in wire.robot.states] == [
        (LinkState.CONNECTED, LinkState.IDLE), (LinkState.IDLE, LinkState.CONNECTED)]
    assert wire.robot.session.stats.connections == 2 and wire.engine.session.stats.connections == 2


def test_a_rebooted_robot_ignores_the_old_engine_until_it_resets() -> None:
    wire = Wire()
    wire.connect()
    wire.robot.session.forget("rebooting")
    assert wire.robot.session.peer is None and wire.robot.session.state is LinkState.IDLE
    wire.engine.session.send(_cmd(1))
    wire.run(wire.now + 2.0)
    assert wire.robot.session.stats.dropped_foreign > 0  # pings and the command from a stranger now
    assert not [p for p in wire.robot.packets if p.type == PacketType.COMMAND]
    wire.run(wire.now + 2.0)
    assert wire.engine.session.state is LinkState.CONNECTED  # lost and reconnected by itself
    assert [new for _, _, new in wire.engine.states][-2:] == [LinkState.LOST, LinkState.CONNECTED]


def test_the_robot_acknowledges_a_goodbye_before_it_forgets_the_engine() -> None:
    wire = Wire()
    wire.connect()
    wire.engine.session.send(RawPacket(PacketType.DISCONNECT, b""))
    wire.run(wire.now + 0.05)
    assert wire.robot.session.state is LinkState.IDLE and wire.robot.session.peer is None
    assert wire.engine.session.in_flight == 0, "the Disconnect was acknowledged"
    assert [p.type for p in wire.robot.packets][-1] == PacketType.DISCONNECT


def test_a_clocked_frame_goes_at_its_time_and_what_is_sent_after_it_waits_behind_it() -> None:
    wire = Wire(ping_interval=100.0)
    wire.connect()
    session, robot = wire.engine.session, wire.robot
    robot.packets.clear()
    session.send(_cmd(0))
    at = wire.now + 0.050
    stage = session.stage_frame([_cmd(1), _cmd(2), RawPacket(PacketType.EVENT, b"\xf0\x09")], at, wire.now)
    assert stage is not None and stage.state == STAGE_PENDING
    session.send(_cmd(3))
    wire.run(at - 0.001)
    assert [p.body for p in robot.packets] == [_cmd(0).body], "queued before the frame: out at once; nothing else"
    wire.run(at + 0.01)
    assert [p.body for p in robot.packets] == [_cmd(0).body, _cmd(1).body, _cmd(2).body, b"\xf0\x09", _cmd(3).body]
    assert stage.state == STAGE_SENT and stage.sent_at == pytest.approx(at)
    assert session.stats.clocked_frames == 1 and session.stats.late_releases == 0


def test_a_frame_for_a_release_thread_waits_for_it_and_a_loss_cancels_waiting_frames() -> None:
    wire = Wire(ping_interval=100.0)
    wire.connect()
    session = wire.engine.session
    stage = session.stage_frame([_cmd(1)], wire.now + 0.01, wire.now, external=True)
    assert stage is not None
    session.send(_cmd(2))
    wire.run(wire.now + 0.5)
    assert stage.state == STAGE_PENDING and not [p for p in wire.robot.packets if p.type == PacketType.COMMAND]
    stage.state, stage.sent_at = STAGE_SENT, wire.now  # what the release thread does (under the guard)
    for data in stage.datagrams:
        wire.robot.session.receive_datagram(data, ENGINE_AT, wire.now)
    session.stage_released(stage)
    assert session.pending_output
    wire.run(wire.now + 0.1)
    assert [p.body for p in wire.robot.packets if p.type == PacketType.COMMAND] == [_cmd(1).body, _cmd(2).body]
    late = session.stage_frame([_cmd(3)], wire.now + 10.0, wire.now)
    assert late is not None
    wire.silent = True
    wire.run(wire.now + 4.0)
    assert session.state is LinkState.LOST and late.state == STAGE_CANCELLED


def test_nothing_is_taken_from_a_stranger_or_before_the_handshake() -> None:
    engine = Session(Role.ENGINE, peer=ROBOT_AT)
    connect = RawPacket(PacketType.CONNECT, b"")
    from driver.protocol.frame import Frame, encode_frame

    hello = encode_frame(Frame(FrameType.ROBOT, 0, 0, 0, [connect]))
    engine.receive_datagram(hello, ROBOT_AT, 1.0)  # never asked: not a connection
    assert engine.state is LinkState.IDLE and engine.stats.dropped_stale == 1
    engine.connect(1.0)
    engine.receive_datagram(hello, ("10.9.9.9", 5551), 1.1)
    assert engine.state is LinkState.CONNECTING and engine.stats.dropped_foreign == 1
    engine.receive_datagram(b"COZ\x03RE\x01\x09garbage", ROBOT_AT, 1.1)
    assert engine.stats.dropped_malformed == 1
    engine.receive_datagram(hello, ROBOT_AT, 1.2)
    assert engine.state is LinkState.CONNECTED
    engine.close()
    with pytest.raises(LinkError):
        engine.send(_cmd(1))
    assert engine.next_timer() is None and engine.datagrams_to_send(2.0) == []
    robot = Session(Role.ROBOT)
    with pytest.raises(LinkError, match="engine end"):
        robot.connect(0.0, ENGINE_AT)
    assert OOB_SEQ == 0xFFFF
