"""The ARQ windows alone: in-order exactly-once delivery under any loss, duplication and reordering."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from driver.protocol.arq import ReceiveWindow, RttEstimator, SendWindow
from driver.protocol.frame import MAX_SEQ, OOB_SEQ, PacketType, RawPacket


def _pkt(i: int) -> RawPacket:
    return RawPacket(PacketType.COMMAND, i.to_bytes(4, "little"))


def test_send_window_holds_at_most_62_and_backlogs_the_rest() -> None:
    w = SendWindow()
    for i in range(100):
        w.queue(_pkt(i))
    first = w.take_new(0.0)
    assert len(first) == 62 and w.backlog == 38
    assert [e.seq for e in first] == list(range(62))
    assert w.acknowledge(9, 0.05) == [0.05] * 10
    more = w.take_new(0.1)
    assert [e.seq for e in more] == list(range(62, 72))


def test_only_expired_packets_are_resent() -> None:
    w = SendWindow()
    for i in range(3):
        w.queue(_pkt(i))
    w.take_new(0.0)
    w.queue(_pkt(3))
    w.take_new(0.08)
    due = w.due(0.1, rto=0.1)
    assert [e.seq for e in due] == [0, 1, 2]  # packet 3 is only 20 ms old
    assert w.acknowledge(2, 0.15) == []  # resent packets give no RTT sample (Karn)


def test_stale_and_bogus_acks_are_ignored() -> None:
    w = SendWindow()
    for i in range(5):
        w.queue(_pkt(i))
    w.take_new(0.0)
    assert w.acknowledge(OOB_SEQ, 0.1) == []
    assert w.acknowledge(40, 0.1) == []  # beyond what was sent
    assert len(w) == 5
    w.acknowledge(1, 0.1)
    assert w.acknowledge(0, 0.2) == [] and len(w) == 3  # older than the window


def test_receive_window_reorders_and_drops_duplicates() -> None:
    r = ReceiveWindow()
    out = []
    for seq in (1, 0, 1, 3, 2, 0):
        p = _pkt(seq)
        p.seq = seq
        out += [int.from_bytes(x.body, "little") for x in r.receive(p)]
    assert out == [0, 1, 2, 3]
    assert r.duplicates == 2
    assert r.last_in_order == 3


def test_sequence_numbers_wrap() -> None:
    start = MAX_SEQ - 3
    w = SendWindow(first_seq=start)
    r = ReceiveWindow(expected=start)
    for i in range(8):
        w.queue(_pkt(i))
    sent = w.take_new(0.0)
    assert [e.seq for e in sent] == [MAX_SEQ - 3, MAX_SEQ - 2, MAX_SEQ - 1, 0, 1, 2, 3, 4]
    got = []
    for e in reversed(sent):
        got += r.receive(e.packet)
    assert [int.from_bytes(p.body, "little") for p in got] == list(range(8))
    w.acknowledge(r.last_in_order, 0.01)
    assert len(w) == 0


def test_rto_follows_measured_rtt_within_bounds() -> None:
    est = RttEstimator(initial_rto=0.1, min_rto=0.03, max_rto=1.0)
    assert est.rto == 0.1
    for _ in range(20):
        est.sample(0.2)
    assert 0.2 <= est.rto <= 0.3
    for _ in range(50):
        est.sample(0.001)
    assert est.rto == 0.03


def test_the_default_rto_outlasts_a_robot_frame_however_steady_the_round_trips() -> None:
    """A robot acknowledges with its next radio frame, up to 33 ms after a packet (hardware.md §3):
    steady acks a frame late, or instant ping echoes, must not bring the timeout down to where
    the next ack, a little later by the clock's jitter, finds the packet already sent again."""
    for rtt in (0.0333, 0.0):
        est = RttEstimator()
        for _ in range(200):
            est.sample(rtt)
        assert est.rto >= 0.045


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 400),
    loss=st.floats(0, 0.5),
    dup=st.floats(0, 0.5),
    seed=st.integers(0, 2**32 - 1),
    start=st.integers(0, MAX_SEQ - 1),
)
def test_any_loss_duplication_and_reordering_delivers_exactly_once_in_order(
    n: int, loss: float, dup: float, seed: int, start: int
) -> None:
    """Drive a sender and receiver through a hostile channel until everything is acknowledged."""
    rng = random.Random(seed)
    w = SendWindow(first_seq=start)
    r = ReceiveWindow(expected=start)
    for i in range(n):
        w.queue(_pkt(i))
    delivered: list[int] = []
    now = 0.0
    for _ in range(100_000):
        if not len(w) and not w.backlog:
            break
        now += 0.01
        batch = [e.packet for e in w.due(now, 0.05) + w.take_new(now)]
        wire = [RawPacket(p.type, p.body, p.seq) for p in batch if rng.random() >= loss]
        wire += [p for p in wire if rng.random() < dup]
        rng.shuffle(wire)
        for p in wire:
            delivered += [int.from_bytes(x.body, "little") for x in r.receive(p)]
        if rng.random() >= loss:
            w.acknowledge(r.last_in_order, now)
    assert delivered == list(range(n))
