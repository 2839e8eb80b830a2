"""The message layer's public behaviour: classes, registries, decoding rules, errors, helpers."""

from __future__ import annotations

import pickle
import struct

import pytest

from driver.protocol import frame, table
from driver.protocol import messages as m
from driver.protocol.frame import DecodeError, PacketType, RawPacket

# Every message protocol.md names, plus what a client exchanges at start-up. Where PyCozmo's name
# (which protocol.md follows) is wrong, the table uses the official one (hardware.md §9): see
# OFFICIAL_NAMES.
PROTOCOL_MD_NAMES = """
LightStateCenter CubeLights CubeId ObjectConnect SetHeadLight LightStateSide Enable DriveWheels
TurnInPlaceAtSpeed MoveLift MoveHead SetLiftHeight SetHeadAngle TurnInPlace StopAllMotors ClearPath
AppendPathSegLine AppendPathSegArc AppendPathSegPointTurn TrimPath ExecutePath SetOrigin SyncTime
EnableCamera SetCameraParams EnableStopOnCliff SetRobotVolume EnableColorImages AbortAnimation
OutputAudio OutputSilence RecordHeading TurnToRecordedHeading AnimHead AnimLift DisplayImage
AnimBackpackLights AnimBody EndAnimation StartAnimation EnableAnimationState
ObjectMoved ObjectStoppedMoving ObjectTapped ObjectTapFiltered ObjectUpAxisChanged RobotDelocalized
RobotPoked AcknowledgeAction PathFollowingEvent HardwareInfo AnimationStarted AnimationEnded
ObjectPowerLevel ObjectConnectionState MotorCalibration ButtonPressed FallingStarted FallingStopped
BodyInfo FirmwareSignature RobotState AnimationState ImageChunk ObjectAvailable ImageImuData ObjectAccel
Connect Disconnect Ping Keyframe DebugData
""".split()

PROTOCOL_MD_IDS = {
    "LightStateCenter": 0x03, "CubeLights": 0x04, "ObjectConnect": 0x05, "SetHeadLight": 0x0B,
    "CubeId": 0x10, "LightStateSide": 0x11, "Enable": 0x25, "DriveWheels": 0x32,
    "TurnInPlaceAtSpeed": 0x33, "MoveLift": 0x34, "MoveHead": 0x35, "SetLiftHeight": 0x36,
    "SetHeadAngle": 0x37, "TurnInPlace": 0x39, "StopAllMotors": 0x3B, "ClearPath": 0x3C,
    "AppendPathSegLine": 0x3D, "AppendPathSegArc": 0x3E, "AppendPathSegPointTurn": 0x3F,
    "TrimPath": 0x40, "ExecutePath": 0x41, "SetOrigin": 0x45, "SyncTime": 0x4B, "EnableCamera": 0x4C,
    "SetCameraParams": 0x57, "EnableStopOnCliff": 0x60, "SetRobotVolume": 0x64,
    "EnableColorImages": 0x66, "AbortAnimation": 0x8D, "OutputAudio": 0x8E, "OutputSilence": 0x8F,
    "RecordHeading": 0x91, "TurnToRecordedHeading": 0x92, "AnimHead": 0x93, "AnimLift": 0x94,
    "DisplayImage": 0x97, "AnimBackpackLights": 0x98, "AnimBody": 0x99, "EndAnimation": 0x9A,
    "StartAnimation": 0x9B, "EnableAnimationState": 0x9F, "ObjectMoved": 0xB4,
    "ObjectStoppedMoving": 0xB5, "ObjectTapped": 0xB6, "ObjectTapFiltered": 0xB9,
    "ObjectUpAxisChanged": 0xD7, "RobotDelocalized": 0xC2, "RobotPoked": 0xC3,
    "AcknowledgeAction": 0xC4, "PathFollowingEvent": 0xC6, "HardwareInfo": 0xC9,
    "AnimationStarted": 0xCA, "AnimationEnded": 0xCB, "ObjectPowerLevel": 0xCE,
    "ObjectConnectionState": 0xD0, "MotorCalibration": 0xD1, "ButtonPressed": 0xDB,
    "FallingStarted": 0xDD, "FallingStopped": 0xDE, "BodyInfo": 0xED, "FirmwareSignature": 0xEE,
    "RobotState": 0xF0, "AnimationState": 0xF1, "ImageChunk": 0xF2, "ObjectAvailable": 0xF3,
    "ImageImuData": 0xF4, "ObjectAccel": 0xF5,
}

#: protocol.md's (PyCozmo's) name -> the official name the table uses (hardware.md §9). PyCozmo's
#: TurnInPlaceAtSpeed is 0x33, whose official name is DriveWheelsCurvature; the official
#: TurnInPlaceAtSpeed is 0x3a.
OFFICIAL_NAMES = {
    "ObjectConnect": "SetPropSlot", "Enable": "GetManufacturingInfo", "TurnInPlaceAtSpeed": "DriveWheelsCurvature",
    "RobotDelocalized": "SyncTimeAck", "BodyInfo": "ManufacturingID",
}

#: Messages PyCozmo lacks (hardware.md §9, and WiFiFlashID), with their ids and payload sizes.
ADDED = {
    "TurnInPlaceAtSpeed": (0x3A, 8), "IMURequest": (0x4A, 4), "CliffEvent": (0xC0, 6), "PotentialCliff": (0xC1, 0),
    "IMURawDataChunk": (0xC7, 14), "RobotStopped": (0xD4, 1), "MotorAutoEnabled": (0xD8, 2), "WiFiFlashID": (0xEC, 4),
}


# --- the table and registries -----------------------------------------------------------------


def test_table_covers_protocol_md():
    missing = [n for n in PROTOCOL_MD_NAMES if OFFICIAL_NAMES.get(n, n) not in m.BY_NAME]
    assert not missing
    for name, msg_id in PROTOCOL_MD_IDS.items():
        official = OFFICIAL_NAMES.get(name, name)
        assert m.BY_NAME[official].ID == msg_id, name
        assert m.BY_ID[msg_id] is m.BY_NAME[official]
    for wrong in ("ObjectConnect", "Enable", "RobotDelocalized", "BodyInfo"):
        assert wrong not in m.BY_NAME


def test_messages_pycozmo_lacks_have_the_official_ids_and_sizes():
    for name, (msg_id, size) in ADDED.items():
        assert m.BY_ID[msg_id] is m.BY_NAME[name], name
        assert m.BY_NAME[name].SIZE == size, name
    assert (m.DriveWheelsCurvature.ID, m.DriveWheelsCurvature.SIZE) == (0x33, 10)
    assert m.SetPropSlot.FIELDS == ("factory_id", "slot") and m.SetPropSlot.SIZE == 5


def test_sync_time_ack_is_not_a_delocalisation():
    """A real robot answers SyncTime with 0xc2: it must decode as SyncTimeAck."""
    msg = m.decode(RawPacket(PacketType.COMMAND, b"\xc2"))
    assert type(msg) is m.SyncTimeAck and msg.NAME == "SyncTimeAck"
    cliff = m.decode(RawPacket(PacketType.COMMAND, bytes.fromhex("c0 e8030000 03 01")))
    assert (cliff.timestamp, cliff.detected_flags, cliff.did_stop_for_cliff) == (1000, 3, True)


def test_registries_and_class_attributes():
    assert m.SetHeadAngle.ID == 0x37
    assert m.BY_ID[0x37] is m.SetHeadAngle
    assert m.BY_NAME["SetHeadAngle"] is m.SetHeadAngle
    assert m.SetHeadAngle.NAME == "SetHeadAngle"
    assert m.SetHeadAngle.PACKET_TYPE is PacketType.COMMAND
    assert m.RobotState.PACKET_TYPE is PacketType.EVENT
    assert m.BY_PACKET_TYPE[PacketType.PING] is m.Ping
    assert len(m.BY_ID) == len(m.BY_NAME) - 4  # Connect, Disconnect, Ping, Keyframe have no id
    with pytest.raises(TypeError):
        m.BY_ID[0x01] = m.GetManufacturingInfo  # read-only registry


def test_directions_and_packet_types_follow_the_id_ranges():
    for cls in m.BY_ID.values():
        assert cls.FROM_ROBOT == (cls.ID >= 0xB0), cls.NAME
        expected = PacketType.EVENT if cls.ID >= 0xF0 else PacketType.COMMAND
        assert cls.PACKET_TYPE is expected, cls.NAME
    assert m.Connect.FROM_ROBOT and not m.Disconnect.FROM_ROBOT
    assert m.RobotState in m.messages_from_robot() and m.SetHeadAngle in m.messages_to_robot()


def test_robot_state_is_the_firmware_2381_layout():
    assert m.RobotState.SIZE == 91
    assert len(m.encode(m.RobotState()).body) == 1 + 91
    assert m.RobotState.FIELDS[:3] == ("timestamp", "pose_frame_id", "pose_origin_id")
    assert m.RobotState.FIELDS[-3:] == ("cliff_data_raw", "backpack_touch_sensor_raw", "curr_path_segment")
    assert len(m.RobotState.FIELDS) == 23
    assert table.FIRMWARE_VERSION == m.FIRMWARE_VERSION == 2381


def test_known_sizes():
    assert m.SetHeadAngle.SIZE == 17
    assert m.OutputAudio.SIZE == 744
    assert m.LightStateCenter.SIZE == 3 * 10 + 1
    assert m.AnimBackpackLights.SIZE == 10
    assert m.Ping.SIZE == 17
    assert m.GetManufacturingInfo.SIZE == 0
    assert m.DisplayImage.SIZE is None and m.DisplayImage.MIN_SIZE == 2
    assert m.ImageChunk.SIZE is None and m.ImageChunk.MIN_SIZE == 20


# --- construction ------------------------------------------------------------------------------


def test_keyword_positional_and_defaults():
    a = m.SetHeadAngle(angle_rad=0.5)
    assert (a.max_speed_rad_per_sec, a.accel_rad_per_sec2, a.duration_sec, a.action_id) == (15.0, 20.0, 0, 0)
    assert m.SetHeadAngle(0.5, 15.0, 20.0, 0.0, 0) == a
    assert m.SetLiftHeight().max_speed_rad_per_sec == 3.0
    assert m.SetOrigin().pose_origin_id == 1 and m.SetOrigin().unknown5 == 0x80000000
    assert m.EnableCamera().image_send_mode == m.ImageSendMode.STREAM
    assert m.EnableCamera().image_resolution == m.ImageResolution.QVGA
    with pytest.raises(TypeError):
        m.SetHeadAngle(nonexistent=1)
    with pytest.raises(TypeError):
        m.MoveHead(1.0, 2.0)


def test_slots_not_dict():
    msg = m.MoveHead(1.0)
    with pytest.raises(AttributeError):
        msg.speed = 3  # a typo must not silently create an attribute
    assert not hasattr(msg, "__dict__")


def test_sequences_are_normalised():
    assert m.AnimBackpackLights(colors=[1, 2, 3, 4, 5]).colors == (1, 2, 3, 4, 5)
    assert m.DisplayImage(image=[0x3F, 0x3F]).image == b"\x3f\x3f"
    assert m.DisplayImage(image=bytearray(b"ab")).image == b"ab"
    with pytest.raises(ValueError, match="DisplayImage.image"):
        m.DisplayImage(image=[300])


def test_nested_defaults_are_fresh_per_instance():
    a, b = m.LightStateCenter(), m.LightStateCenter()
    a.states[0].on_color = 0x7C00
    assert b.states[0].on_color == 0
    assert a.states[0] is not a.states[1]


def test_equality_repr_to_dict():
    assert m.MoveHead(1.0) == m.MoveHead(1.0)
    assert m.MoveHead(1.0) != m.MoveHead(2.0)
    assert m.MoveHead(1.0) != m.MoveLift(1.0)  # same layout, different message
    assert m.GetManufacturingInfo() == m.GetManufacturingInfo() and m.GetManufacturingInfo() != m.AbortAnimation()
    expected = "PathFollowingEvent(event_id=3, event_type=PathEventType.COMPLETED)"
    assert repr(m.PathFollowingEvent(3, 2)) == expected
    r = repr(m.RobotState(status=0x201))
    assert "status=RobotStatusFlag(IS_MOVING|HEAD_IN_POS)" in r
    assert "...<744 bytes>" in repr(m.OutputAudio())
    d = m.LightStateSide(states=(m.LightState(on_color=5), m.LightState()), unknown=1).to_dict()
    assert d["unknown"] == 1 and d["states"][0]["on_color"] == 5
    assert m.SetHeadAngle(0.25).to_dict()["angle_rad"] == 0.25
    with pytest.raises(TypeError):
        hash(m.MoveHead(1.0))


def test_pickle_round_trip():
    msg = m.LightStateCenter(states=(m.LightState(1), m.LightState(2), m.LightState(3)), unknown=4)
    assert pickle.loads(pickle.dumps(msg)) == msg


# --- encode / decode ---------------------------------------------------------------------------


def test_encode_gives_a_command_packet_with_the_id_byte():
    raw = m.encode(m.SetHeadAngle(angle_rad=0.5))
    assert raw == RawPacket(PacketType.COMMAND, bytes([0x37]) + struct.pack("<ffffB", 0.5, 15, 20, 0, 0))
    assert raw.seq == frame.OOB_SEQ
    assert m.decode(raw) == m.SetHeadAngle(angle_rad=0.5)
    assert m.encode_body(m.GetManufacturingInfo()) == b"\x25"


def test_event_packets_and_is_oob():
    raw = m.encode(m.RobotState(timestamp=7))
    assert raw.type == PacketType.EVENT and raw.body[0] == 0xF0
    assert m.is_oob(m.RobotState()) and m.is_oob(m.Ping()) and m.is_oob(m.Keyframe())
    assert not m.is_oob(m.SetHeadAngle()) and not m.is_oob(m.Connect())
    assert not m.is_oob(m.AcknowledgeAction())


def test_packet_level_messages():
    assert m.encode(m.Connect()) == RawPacket(PacketType.CONNECT, b"")
    assert m.encode(m.Disconnect()) == RawPacket(PacketType.DISCONNECT, b"")
    assert m.encode(m.Keyframe()) == RawPacket(PacketType.KEYFRAME, b"")
    ping = m.Ping(time_sent_ms=1234.5, counter=7, last=6, unknown=1)
    raw = m.encode(ping)
    assert raw == RawPacket(PacketType.PING, struct.pack("<dIIB", 1234.5, 7, 6, 1))
    assert m.decode(raw) == ping
    for msg in (m.Connect(), m.Disconnect(), m.Keyframe()):
        assert m.decode(m.encode(msg)) == msg
    assert m.decode(RawPacket(PacketType.CONNECT, b"\x01\x02")) == m.Connect()  # extra bytes ignored


def test_unknown_ids_are_kept_raw():
    msg = m.decode(RawPacket(PacketType.COMMAND, b"\x01abc"))
    assert msg == m.UnknownMessage(PacketType.COMMAND, 0x01, b"abc")
    assert msg.ID == 1 and msg.PACKET_TYPE == PacketType.COMMAND and msg.NAME == "UnknownMessage_0x01"
    assert not msg.FROM_ROBOT and not m.is_oob(msg)
    assert m.encode(msg) == RawPacket(PacketType.COMMAND, b"\x01abc")
    ev = m.decode(RawPacket(PacketType.EVENT, b"\xfa"))
    assert ev == m.UnknownMessage(PacketType.EVENT, 0xFA, b"") and m.is_oob(ev) and ev.FROM_ROBOT
    assert "msg_id=0xfa" in repr(ev)


def test_longer_body_decodes_declared_fields_and_ignores_the_rest():
    msg = m.RobotState(timestamp=99, curr_path_segment=3)
    body = m.encode(msg).body + b"\x01\x02\x03\x04"
    assert m.decode(RawPacket(PacketType.EVENT, body)) == msg
    img = m.DisplayImage(image=b"\x3f\x3f")
    assert m.decode(RawPacket(PacketType.COMMAND, m.encode(img).body + b"zz")) == img


@pytest.mark.parametrize("cut", [1, 10, 91])
def test_short_body_raises_decode_error_naming_the_message(cut):
    body = m.encode(m.RobotState()).body[:cut]
    with pytest.raises(DecodeError, match=r"RobotState \(id 0xf0\).*needs at least 92"):
        m.decode(RawPacket(PacketType.EVENT, body))


def test_bad_length_prefix_and_bad_text():
    body = b"\x97" + struct.pack("<H", 10) + b"abc"
    with pytest.raises(DecodeError, match=r"DisplayImage.image: length prefix says 10 .* only 3 bytes"):
        m.decode(RawPacket(PacketType.COMMAND, body))
    with pytest.raises(DecodeError, match=r"DisplayImage .*needs at least 3"):
        m.decode(RawPacket(PacketType.COMMAND, b"\x97\x01"))
    bad_utf8 = b"\xee\x00\x00" + struct.pack("<H", 2) + b"\xff\xfe"
    with pytest.raises(DecodeError, match="FirmwareSignature.signature: not UTF-8"):
        m.decode(RawPacket(PacketType.COMMAND, bad_utf8))
    with pytest.raises(DecodeError, match="DebugData.args"):
        m.decode(RawPacket(PacketType.COMMAND, b"\xb0" + bytes(7) + b"\x02" + bytes(5)))


def test_empty_or_unknown_packets_raise_decode_error():
    with pytest.raises(DecodeError, match="message id"):
        m.decode(RawPacket(PacketType.COMMAND, b""))
    with pytest.raises(DecodeError, match="unknown packet type"):
        m.decode(RawPacket(0x42, b"\x00"))
    with pytest.raises(DecodeError, match="Ping"):
        m.decode(RawPacket(PacketType.PING, b"\x00" * 16))


def test_decode_accepts_bytearray_and_memoryview_bodies():
    body = m.encode(m.DisplayImage(image=b"xyz")).body
    assert m.decode(RawPacket(PacketType.COMMAND, bytearray(body))).image == b"xyz"
    assert type(m.decode(RawPacket(PacketType.COMMAND, memoryview(body))).image) is bytes


def test_variable_length_messages():
    sig = m.FirmwareSignature(unknown=0x1234, signature='{"version": 2381, "note": "é"}')
    assert m.decode(m.encode(sig)) == sig
    dbg = m.DebugData(format_id=1, unused=0, name_id=2, level=-1, args=(1, 0xFFFFFFFF))
    assert m.encode(dbg).body == b"\xb0" + struct.pack("<HHHbB2I", 1, 0, 2, -1, 2, 1, 0xFFFFFFFF)
    assert m.decode(m.encode(dbg)) == dbg
    chunk = m.ImageChunk(image_id=5, chunk_id=1, image_chunk_count=3, data=b"\x00" * 100)
    assert m.decode(m.encode(chunk)) == chunk


@pytest.mark.parametrize(
    ("msg", "pattern"),
    [
        (m.AcknowledgeAction(action_id=256), r"AcknowledgeAction.action_id: expected u8 in 0..255, got 256"),
        (m.AnimHead(angle_deg=-129), r"AnimHead.angle_deg: expected i8"),
        (m.MoveHead(speed_rad_per_sec="fast"), r"MoveHead.speed_rad_per_sec: expected a number"),
        (m.MoveHead(speed_rad_per_sec=1e300), r"MoveHead.speed_rad_per_sec: expected f32"),
        (m.AnimBackpackLights(colors=(1, 2, 3, 4)), r"AnimBackpackLights.colors: expected exactly 5 items"),
        (m.AnimBackpackLights(colors=(1, 2, 3, 4, -1)), r"AnimBackpackLights.colors\[4\]: expected u16"),
        (m.OutputAudio(samples=b"\x00" * 743), r"OutputAudio.samples: expected exactly 744 items, got 743"),
        (m.DisplayImage(image=bytes(70000)), r"DisplayImage.image: 70000 items, at most 65535"),
        (m.DebugData(args=tuple(range(256))), r"DebugData.args: 256 items, at most 255 fit the u8 prefix"),
        (m.FirmwareSignature(signature=5), r"FirmwareSignature.signature: expected str"),
        (m.CubeLights(states=(m.LightState(),) * 3), r"CubeLights.states: expected exactly 4 items"),
        (
            m.LightStateSide(states=(m.LightState(), m.LightState(offset=40000))),
            r"LightStateSide.states\[1\].offset: expected i16",
        ),
        (m.LightStateSide(states=(m.LightState(), 5)), r"LightStateSide.states\[1\]: expected a LightState"),
    ],
)
def test_encode_errors_name_message_and_field(msg, pattern):
    with pytest.raises(ValueError, match=pattern):
        m.encode(msg)


def test_encode_rejects_non_messages():
    with pytest.raises(TypeError, match="expected a protocol message"):
        m.encode(b"\x37")  # type: ignore[arg-type]


def test_set_after_construction_is_encoded():
    msg = m.AnimBackpackLights()
    msg.colors = [1, 2, 3, 4, 5]  # a list assigned later still encodes
    assert m.decode(m.encode(msg)).colors == (1, 2, 3, 4, 5)


def test_decode_packets_of_a_frame():
    msgs = [m.RobotState(timestamp=1), m.AcknowledgeAction(action_id=3), m.AnimationStarted(anim_id=2)]
    f = frame.Frame(frame.FrameType.ROBOT, 10, 11, 5, [m.encode(x) for x in msgs])
    decoded = frame.decode_frame(frame.encode_frame(f))
    assert m.decode_packets(decoded) == msgs
    assert [p.seq for p in decoded.packets] == [frame.OOB_SEQ, 10, 11]
    decoded.packets.append(RawPacket(PacketType.EVENT, b"\xf0\x00"))
    with pytest.raises(DecodeError):
        m.decode_packets(decoded)


# --- helpers ------------------------------------------------------------------------------------


def test_rgb555():
    assert m.rgb555(255, 0, 0) == 0x7C00
    assert m.rgb555(0, 255, 0) == 0x03E0
    assert m.rgb555(0, 0, 255) == 0x001F
    assert m.rgb555(255, 255, 255, ir=True) == 0xFFFF
    assert m.rgb555(0, 0, 0) == 0
    assert m.rgb555_to_rgb(0x7C00) == (255, 0, 0)
    assert m.rgb555_to_rgb(0x8000 | 0x03E0) == (0, 255, 0)
    for c in range(0, 256, 17):
        r, g, b = m.rgb555_to_rgb(m.rgb555(c, c, c))
        assert abs(r - c) <= 4 and r == g == b
    with pytest.raises(ValueError, match="g=256"):
        m.rgb555(0, 256, 0)
    assert m.LightState(on_color=m.rgb555(255, 0, 0)).on_color == 0x7C00


def test_status_flags():
    flags = m.RobotStatusFlag
    assert len([f for f in flags if f.value]) == 17
    assert flags.IS_CHARGER_OOS == 0x10000 and flags.CLIFF_DETECTED == 0x4000
    status = m.decode(m.encode(m.RobotState(status=flags.IS_PICKED_UP | flags.IS_ON_CHARGER))).status
    assert status & flags.IS_PICKED_UP and not status & flags.IS_FALLING


def test_package_reexports():
    import driver.protocol as p

    assert p.messages is m and p.encode is m.encode and p.decode is m.decode
    assert p.decode_frame is frame.decode_frame and p.DecodeError is DecodeError
