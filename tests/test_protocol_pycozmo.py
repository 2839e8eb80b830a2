"""Cross-check against PyCozmo 0.8.0's codec: same bytes, same values, both directions.

PyCozmo's generated encoder is the most complete public record of firmware 2381's layouts, so
agreeing with it byte for byte on a representative set is strong evidence the table is right.
Where PyCozmo's names are wrong the table takes the official ones (hardware.md §9): the cases
below use PyCozmo's names, and RENAMED / FIELD_RENAMES say what the table calls them.
"""

from __future__ import annotations

import enum

import pytest

from driver.protocol import frame
from driver.protocol import messages as m
from driver.protocol.frame import FrameType, PacketType, RawPacket

pe = pytest.importorskip("pycozmo.protocol_encoder", reason="PyCozmo (test extra) not installed")
pyc_frame = pytest.importorskip("pycozmo.frame")
pyc_ast = pytest.importorskip("pycozmo.protocol_ast")

#: PyCozmo's message name -> the official name the table uses (same id, same layout).
RENAMED = {"ObjectConnect": "SetPropSlot", "Enable": "GetManufacturingInfo",
           "TurnInPlaceAtSpeed": "DriveWheelsCurvature", "RobotDelocalized": "SyncTimeAck",
           "BodyInfo": "ManufacturingID"}
#: The table's message name -> {PyCozmo's field name: the table's}.
FIELD_RENAMES = {
    "RobotState": {"lift_height_mm": "lift_angle_rad"},
    "SetPropSlot": {"connect": "slot"},
    "DriveWheelsCurvature": {"wheel_speed_mmps": "speed_mmps", "wheel_accel_mmps2": "accel_mmps2",
                             "direction": "curvature_radius_mm"},
    "FallingStarted": {"unknown": "timestamp"},
    "FallingStopped": {"unknown": "timestamp"},
}

IMAGE = bytes([0x3F, 0x3F, 0x85, 0x9A, 0x12, 0xC3, 0x40]) * 40


def _ls(**kw: int) -> dict:
    return {"__light__": kw}


# Field values exactly representable in f32, enums valid for PyCozmo's stricter constructors.
CASES: dict[str, dict] = {
    "RobotState": dict(
        timestamp=123456, pose_frame_id=7, pose_origin_id=2, pose_x=12.5, pose_y=-3.25, pose_z=0.5,
        pose_angle_rad=1.5, pose_pitch_rad=-0.125, lwheel_speed_mmps=50.0, rwheel_speed_mmps=-50.0,
        head_angle_rad=0.25, lift_height_mm=32.0, accel_x=1.0, accel_y=2.0, accel_z=9.75, gyro_x=0.0625,
        gyro_y=-0.0625, gyro_z=0.5, battery_voltage=4.5, status=0x1201, cliff_data_raw=(100, 200, 300, 65535),
        backpack_touch_sensor_raw=4000, curr_path_segment=3,
    ),
    "SetHeadAngle": dict(angle_rad=0.25, max_speed_rad_per_sec=10.0, accel_rad_per_sec2=5.5,
                         duration_sec=1.5, action_id=42),
    "DisplayImage": dict(image=IMAGE),
    "LightStateCenter": dict(
        states=(_ls(on_color=0x7C00, off_color=0x001F, on_frames=10, off_frames=20, transition_on_frames=3,
                    transition_off_frames=4, offset=-5),
                _ls(on_color=0x03E0, off_color=0, on_frames=1, off_frames=2, transition_on_frames=0,
                    transition_off_frames=0, offset=300),
                _ls(on_color=0xFFFF, off_color=0x8000, on_frames=255, off_frames=0, transition_on_frames=9,
                    transition_off_frames=8, offset=-32768)),
        unknown=7,
    ),
    "AnimBackpackLights": dict(colors=(0x7C00, 0x03E0, 0x001F, 0xFFFF, 0)),
    "FirmwareSignature": dict(unknown=0xBEEF, signature='{"version": 2381, "git-rev": "abc"}'),
    "HardwareInfo": dict(serial_number_head=0x12345678, unknown1=4, unknown2=255),
    "BodyInfo": dict(serial_number=0x0A0B0C0D, body_hw_version=5, body_color=2),
    "Ping": dict(time_sent_ms=123456.789, counter=17, last=16, unknown=1),
    "OutputAudio": dict(samples=bytes(range(256)) * 2 + bytes(range(232))),
    "DriveWheels": dict(lwheel_speed_mmps=100.0, rwheel_speed_mmps=-75.5, lwheel_accel_mmps2=200.0,
                        rwheel_accel_mmps2=150.25),
    "TurnInPlace": dict(angle_rad=3.0, speed_rad_per_sec=2.0, accel_rad_per_sec2=10.0,
                        angle_tolerance_rad=0.125, unknown4=1, unknown5=2, is_absolute=True, action_id=9),
    "ObjectTapped": dict(timestamp=99999, object_id=3, num_taps=2, tap_time=40, tap_neg=-100, tap_pos=90),
    "PathFollowingEvent": dict(event_id=513, event_type=2),
    "AcknowledgeAction": dict(action_id=200),
    "ImageChunk": dict(frame_timestamp=1000, image_id=77, chunk_debug=5, image_encoding=8,
                       image_resolution=4, image_chunk_count=6, chunk_id=2, status=1, data=IMAGE[:200]),
    "DebugData": dict(format_id=10, unused=0, name_id=20, level=-1, args=(1, 2, 0xFFFFFFFF)),
    "EnableCamera": dict(image_send_mode=2, image_resolution=6),
    "SetOrigin": dict(unknown0=1, pose_frame_id=2, pose_origin_id=3, pose_x=4.0, pose_y=5.0, unknown5=6),
    "AnimationState": dict(timestamp=5, num_anim_bytes_played=-1, num_audio_frames_played=7,
                           enabled_anim_tracks=0xFF, tag=3, client_drop_count=2),
    "Enable": {},
}


def _our_class(name: str) -> type[m.Message]:
    """Our class for PyCozmo's message ``name``."""
    return m.BY_NAME[RENAMED.get(name, name)]


def _our_field(cls: type[m.Message], pyc_field: str) -> str:
    return FIELD_RENAMES.get(cls.NAME, {}).get(pyc_field, pyc_field)


def _ours(name: str) -> m.Message:
    cls = _our_class(name)
    kw = {_our_field(cls, k): _our_value(v) for k, v in CASES[name].items()}
    return cls(**kw)


def _our_value(v: object) -> object:
    if isinstance(v, tuple) and v and isinstance(v[0], dict):
        return tuple(m.LightState(**x["__light__"]) for x in v)
    return v


def _theirs(name: str) -> object:
    cls = getattr(pe, name)
    kw = {}
    for k, v in CASES[name].items():
        if isinstance(v, tuple) and v and isinstance(v[0], dict):
            v = tuple(pe.LightState(**x["__light__"]) for x in v)
        kw[k] = v
    return cls(**kw)


def _plain(v: object) -> object:
    """PyCozmo values in the shape ours have (enums -> ints, lists -> tuples, structs -> dicts)."""
    if isinstance(v, enum.Enum):
        return v.value
    if isinstance(v, pe.LightState):
        return {f: getattr(v, f) for f in m.LightState.FIELDS}
    if isinstance(v, (list, tuple)):
        return tuple(_plain(x) for x in v)
    return v


def _our_plain(v: object) -> object:
    if isinstance(v, m.Record):
        return v.to_dict()
    if isinstance(v, tuple):
        return tuple(_our_plain(x) for x in v)
    return v


def _assert_same(ours: m.Message, theirs: object) -> None:
    theirs_by_ours = {v: k for k, v in FIELD_RENAMES.get(ours.NAME, {}).items()}
    for name in ours.FIELDS:
        assert _plain(getattr(theirs, theirs_by_ours.get(name, name))) == _our_plain(getattr(ours, name)), name


def _payload(raw: RawPacket, msg: m.Message) -> bytes:
    return raw.body if msg.ID is None else raw.body[1:]


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_bytes_as_pycozmo(name):
    ours, theirs = _ours(name), _theirs(name)
    raw = m.encode(ours)
    assert _payload(raw, ours) == theirs.to_bytes()
    assert int(raw.type) == theirs.type.value
    assert ours.ID == theirs.id


@pytest.mark.parametrize("name", sorted(CASES))
def test_pycozmo_decodes_ours_and_we_decode_theirs(name):
    ours, theirs = _ours(name), _theirs(name)
    # Ours -> PyCozmo.
    decoded_by_them = getattr(pe, name).from_bytes(_payload(m.encode(ours), ours))
    _assert_same(ours, decoded_by_them)
    # PyCozmo -> ours.
    head = b"" if ours.ID is None else bytes([ours.ID])
    decoded_by_us = m.decode(RawPacket(theirs.type.value, head + theirs.to_bytes()))
    assert decoded_by_us == ours
    _assert_same(decoded_by_us, theirs)


def test_robot_state_size_matches_pycozmo():
    assert len(_theirs("RobotState").to_bytes()) == m.RobotState.SIZE == 91


ROBOT_SET = ["RobotState", "AcknowledgeAction", "PathFollowingEvent", "ObjectTapped", "ImageChunk",
             "HardwareInfo", "BodyInfo", "FirmwareSignature", "AnimationState", "DebugData"]
ENGINE_SET = ["SetHeadAngle", "DisplayImage", "LightStateCenter", "AnimBackpackLights", "OutputAudio",
              "DriveWheels", "TurnInPlace", "EnableCamera", "SetOrigin", "Enable"]


def _seq_span(names: list[str]) -> int:
    return sum(1 for n in names if _our_class(n).PACKET_TYPE is PacketType.COMMAND)


@pytest.mark.parametrize(("ftype", "names"), [(FrameType.ROBOT, ROBOT_SET), (FrameType.ENGINE, ENGINE_SET)])
def test_whole_frames_both_directions(ftype, names):
    first, ack = 300, 77
    last = first + _seq_span(names) - 1
    # PyCozmo frame -> our decoder.
    pyc = pyc_frame.Frame(pyc_ast.FrameType(int(ftype)), first, last, ack, [_theirs(n) for n in names])
    data = pyc.to_bytes()
    f = frame.decode_frame(data)
    assert (f.type, f.first_seq, f.seq, f.ack) == (ftype, first, last, ack)
    assert m.decode_packets(f) == [_ours(n) for n in names]
    # Our encoder -> PyCozmo's decoder, and the same bytes.
    ours = frame.encode_frame(frame.Frame(ftype, first, last, ack, [m.encode(_ours(n)) for n in names]))
    assert ours == data
    back = pyc_frame.Frame.from_bytes(ours)
    assert len(back.pkts) == len(names)
    for n, pkt in zip(names, back.pkts, strict=True):
        assert type(pkt).__name__ == n
        _assert_same(_ours(n), pkt)


def test_ping_frame_both_directions():
    theirs = _theirs("Ping")
    data = pyc_frame.Frame(pyc_ast.FrameType.PING, frame.OOB_SEQ, frame.OOB_SEQ, 5, [theirs]).to_bytes()
    f = frame.decode_frame(data)
    assert m.decode_packets(f) == [_ours("Ping")]
    ping = m.encode(_ours("Ping"))
    ours = frame.encode_frame(frame.Frame(FrameType.PING, frame.OOB_SEQ, frame.OOB_SEQ, 5, [ping]))
    assert ours == data


def test_table_agrees_with_pycozmo_on_every_shared_message():
    """Ids, names, field names and (for fixed layouts) sizes of every message both tables know."""
    theirs_by_id = dict(pe.PACKETS_BY_ID)
    assert set(theirs_by_id) <= set(m.BY_ID), "a PyCozmo message is missing from the table"
    for msg_id, pcls in theirs_by_id.items():
        ours = m.BY_ID[msg_id]
        assert ours.NAME == RENAMED.get(pcls.__name__, pcls.__name__)
        slots = tuple(_our_field(ours, s.lstrip("_")) for s in pcls.__slots__)
        assert ours.FIELDS == slots, ours.NAME
        payload = m.encode(ours()).body[1:]
        again = pcls.from_bytes(payload)
        assert again.to_bytes() == payload, ours.NAME  # PyCozmo reads exactly our layout back
        if ours.SIZE is not None:
            assert len(again) == ours.SIZE, ours.NAME
