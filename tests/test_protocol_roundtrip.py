"""Round trips of every message in the table, and fuzzing of the frame and message decoders."""

from __future__ import annotations

import random
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driver.protocol import frame
from driver.protocol import messages as m
from driver.protocol import table as t
from driver.protocol.frame import DecodeError, FrameType, PacketType, RawPacket

ALL = list(m.BY_NAME.values())


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


# --- deterministic non-default values ----------------------------------------------------------


def _scalar_value(s: t.Scalar, default: object, rng: random.Random) -> object:
    if s == t.BOOL:
        return not default
    while True:
        if s == t.F32:
            v: object = _f32(rng.uniform(-1000, 1000))
        elif s == t.F64:
            v = rng.uniform(-1e6, 1e6)
        else:
            v = rng.randint(s.lo, s.hi)
        if v != default:
            return v


def _value(ftype: t.FieldType, default: object, rng: random.Random) -> object:
    if isinstance(ftype, t.Scalar):
        return _scalar_value(ftype, default, rng)
    if isinstance(ftype, t.StructSpec):
        cls = m.STRUCTS[ftype.name]
        return cls(**{f.name: _value(f.type, f.type.default, rng) for f in ftype.fields})
    if isinstance(ftype, t.String):
        return '{"version": 2381, "build": "' + "é" * rng.randint(1, 5) + '"}'
    el = ftype.element
    n = ftype.length if isinstance(ftype, t.FixedArray) else rng.randint(1, 40)
    if el == t.U8:
        return bytes(rng.randrange(256) for _ in range(n))
    if isinstance(el, t.StructSpec):
        return tuple(_value(el, None, rng) for _ in range(n))
    return tuple(_scalar_value(el, el.default, rng) for _ in range(n))


def _non_default(cls: type[m.Message]) -> m.Message:
    rng = random.Random(cls.NAME)
    defaults = cls()
    return cls(**{f.name: _value(f.type, getattr(defaults, f.name), rng) for f in cls.SPEC.fields})


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.NAME)
def test_round_trip_every_message_with_non_default_values(cls):
    msg = _non_default(cls)
    for name in cls.FIELDS:
        assert getattr(msg, name) != getattr(cls(), name), name
    raw = m.encode(msg)
    assert raw.type == cls.PACKET_TYPE
    if cls.ID is not None:
        assert raw.body[0] == cls.ID
    header = 0 if cls.ID is None else 1
    if cls.SIZE is not None:
        assert len(raw.body) == header + cls.SIZE
    else:
        assert len(raw.body) > header + cls.MIN_SIZE
    back = m.decode(raw)
    assert type(back) is cls
    assert back == msg
    assert back.to_dict() == msg.to_dict()
    # Through a whole frame as well.
    ftype = FrameType.ROBOT if cls.FROM_ROBOT else FrameType.ENGINE
    f = frame.decode_frame(frame.encode_frame(frame.Frame(ftype, 1, 1, 0, [raw])))
    assert m.decode_packets(f) == [msg]


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.NAME)
def test_every_truncation_raises_decode_error(cls):
    body = m.encode(_non_default(cls)).body
    start = 1 if cls.ID is not None else 0
    for cut in range(start, len(body)):
        with pytest.raises(DecodeError, match=cls.NAME):
            m.decode(RawPacket(cls.PACKET_TYPE, body[:cut]))


# --- hypothesis: random valid values round-trip ------------------------------------------------


def _strategy(ftype: t.FieldType) -> st.SearchStrategy:
    if isinstance(ftype, t.Scalar):
        if ftype == t.BOOL:
            return st.booleans()
        if ftype == t.F32:
            return st.floats(width=32, allow_nan=False)
        if ftype == t.F64:
            return st.floats(allow_nan=False)
        return st.integers(ftype.lo, ftype.hi)
    if isinstance(ftype, t.StructSpec):
        cls = m.STRUCTS[ftype.name]
        return st.builds(cls, **{f.name: _strategy(f.type) for f in ftype.fields})
    if isinstance(ftype, t.String):
        return st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
    el = ftype.element
    if isinstance(ftype, t.FixedArray):
        if el == t.U8:
            return st.binary(min_size=ftype.length, max_size=ftype.length)
        return st.tuples(*[_strategy(el)] * ftype.length)
    limit = min(ftype.length_type.hi, 300)
    if el == t.U8:
        return st.binary(max_size=limit)
    return st.lists(_strategy(el), max_size=min(limit, 20)).map(tuple)


def _message_strategy(cls: type[m.Message]) -> st.SearchStrategy:
    return st.builds(cls, **{f.name: _strategy(f.type) for f in cls.SPEC.fields})


MESSAGES = st.sampled_from(ALL).flatmap(_message_strategy)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MESSAGES)
def test_fuzz_valid_values_round_trip(msg):
    assert m.decode(m.encode(msg)) == msg


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MESSAGES, max_size=6), st.integers(0, frame.MAX_SEQ - 1), st.integers(0, frame.MAX_SEQ - 1))
def test_fuzz_frames_of_messages_round_trip(msgs, first_seq, ack):
    raws = [m.encode(x) for x in msgs]
    f = frame.Frame(FrameType.ENGINE, first_seq, first_seq, ack, raws)
    back = frame.decode_frame(frame.encode_frame(f))
    assert (back.first_seq, back.ack) == (first_seq, ack)
    assert m.decode_packets(back) == msgs


# --- hypothesis: arbitrary bytes never raise anything but DecodeError --------------------------


def _decode_or_decode_error(raw: RawPacket) -> None:
    try:
        msg = m.decode(raw)
    except DecodeError:
        return
    assert isinstance(msg, m.Message)


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from([*PacketType, 0, 1, 6, 0xFF]), st.binary(max_size=120))
def test_fuzz_decode_any_body(ptype, body):
    _decode_or_decode_error(RawPacket(ptype, body))


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(sorted(m.BY_ID)), st.binary(max_size=120))
def test_fuzz_decode_known_ids(msg_id, rest):
    cls = m.BY_ID[msg_id]
    _decode_or_decode_error(RawPacket(cls.PACKET_TYPE, bytes([msg_id]) + rest))


@settings(max_examples=300, deadline=None)
@given(MESSAGES, st.data())
def test_fuzz_mutated_valid_bodies(msg, data):
    body = bytearray(m.encode(msg).body)
    for _ in range(data.draw(st.integers(1, 4))):
        if not body:
            break
        i = data.draw(st.integers(0, len(body) - 1))
        body[i] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(body)))
    _decode_or_decode_error(RawPacket(msg.PACKET_TYPE, bytes(body[:cut])))


def _frame_or_decode_error(data: bytes) -> None:
    try:
        f = frame.decode_frame(data)
    except DecodeError:
        return
    assert isinstance(f, frame.Frame)
    for p in f.packets:
        _decode_or_decode_error(p)


@settings(max_examples=1000, deadline=None)
@given(st.binary(max_size=200))
def test_fuzz_decode_frame_any_bytes(data):
    _frame_or_decode_error(data)


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from([*FrameType, 0, 5, 0xFF]), st.binary(min_size=6, max_size=6), st.binary(max_size=200))
def test_fuzz_decode_frame_with_valid_magic(ftype, seqs, rest):
    _frame_or_decode_error(frame.FRAME_ID + bytes([ftype]) + seqs + rest)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(list(PacketType)), st.binary(max_size=60)), max_size=5),
    st.binary(max_size=8),
)
def test_fuzz_decode_frame_of_well_framed_random_packets(packets, tail):
    body = b"".join(struct.pack("<BH", pt, len(b)) + b for pt, b in packets)
    _frame_or_decode_error(frame.FRAME_ID + bytes([FrameType.ROBOT]) + bytes(6) + body + tail)
