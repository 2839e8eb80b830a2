"""Message codec throughput, ours against PyCozmo 0.8.0's, in one run.

    python tests/bench/codec.py [--seconds S]

Operations (each side does the same work):
  robotstate-decode   RobotState packet body -> message object
  displayimage-encode build a DisplayImage (a ~300-byte face image) and encode it to packet bytes
  robot-frame-rt      a ROBOT frame of 5 mixed messages -> datagram bytes -> 5 message objects
  engine-frame-rt     an ENGINE frame of 5 mixed messages -> datagram bytes -> 5 message objects
Prints ops/s for both and the ratio; the target is >= 3x on every row.
"""

from __future__ import annotations

import argparse
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PIL import Image, ImageDraw  # noqa: E402

from driver.protocol import frame  # noqa: E402
from driver.protocol import messages as m  # noqa: E402

try:
    from pycozmo import frame as pyc_frame  # noqa: E402
    from pycozmo import image_encoder as pyc_image  # noqa: E402
    from pycozmo import protocol_ast as pyc_ast  # noqa: E402
    from pycozmo import protocol_encoder as pe  # noqa: E402
except ImportError:  # pragma: no cover
    sys.exit("PyCozmo 0.8.0 is needed for the comparison: pip install -e '.[test]'")

TARGET = 3.0


def face_image() -> bytes:
    """A realistic run-length-encoded 128x32 display image (text and a circle), ~300 bytes."""
    im = Image.new("1", (128, 32))
    draw = ImageDraw.Draw(im)
    draw.text((2, 2), "Hello, Cozmo!", fill=1)
    draw.text((2, 16), "12:34", fill=1)
    draw.ellipse((100, 4, 124, 28), outline=1)
    return bytes(pyc_image.ImageEncoder(im).encode())


def robot_state_fields(cls: object = m.RobotState) -> dict:
    """RobotState's fields for ``cls``: ours calls the lift float lift_angle_rad, PyCozmo lift_height_mm."""
    lift = "lift_angle_rad" if "lift_angle_rad" in getattr(cls, "FIELDS", ()) else "lift_height_mm"
    fields = dict(
        timestamp=123456, pose_frame_id=7, pose_origin_id=2, pose_x=12.5, pose_y=-3.25, pose_z=0.5,
        pose_angle_rad=1.5, pose_pitch_rad=-0.125, lwheel_speed_mmps=50.0, rwheel_speed_mmps=-50.0,
        head_angle_rad=0.25, accel_x=1.0, accel_y=2.0, accel_z=9.75, gyro_x=0.0625,
        gyro_y=-0.0625, gyro_z=0.5, battery_voltage=4.5, status=0x1201, cliff_data_raw=(100, 200, 300, 400),
        backpack_touch_sensor_raw=4000, curr_path_segment=3,
    )
    fields[lift] = -0.1875  # lift down (about -0.198 rad), exact in f32
    return fields


def robot_messages(ns: object, image: bytes) -> list:
    """RobotState, AnimationState, an ImageChunk (events) + AcknowledgeAction, PathFollowingEvent."""
    return [
        ns.RobotState(**robot_state_fields(ns.RobotState)),
        ns.AnimationState(timestamp=5, num_anim_bytes_played=1000, num_audio_frames_played=30,
                          enabled_anim_tracks=0xFF, tag=3, client_drop_count=0),
        ns.ImageChunk(frame_timestamp=1000, image_id=77, chunk_debug=5, image_encoding=8, image_resolution=4,
                      image_chunk_count=6, chunk_id=2, status=1, data=image),
        ns.AcknowledgeAction(action_id=9),
        ns.PathFollowingEvent(event_id=3, event_type=2),
    ]


def engine_messages(ns: object, image: bytes) -> list:
    """What an animation frame sends: audio, face, lights, head, wheels."""
    return [
        ns.OutputAudio(samples=bytes(range(248)) * 3),
        ns.DisplayImage(image=image),
        ns.AnimBackpackLights(colors=(0x7C00, 0x03E0, 0x001F, 0x7FFF, 0)),
        ns.SetHeadAngle(angle_rad=0.25, max_speed_rad_per_sec=10.0, accel_rad_per_sec2=5.5,
                        duration_sec=1.5, action_id=42),
        ns.DriveWheels(lwheel_speed_mmps=100.0, rwheel_speed_mmps=-75.5, lwheel_accel_mmps2=200.0,
                       rwheel_accel_mmps2=150.25),
    ]


def check(ok: bool, what: str) -> None:
    """Both codecs must agree before their speeds are worth comparing."""
    if not ok:
        sys.exit(f"codecs disagree on {what}; not benchmarking")


def rate(fn: Callable[[], object], seconds: float) -> float:
    """Best-of-3 operations per second, each repeat lasting about seconds/3."""
    timer = timeit.Timer(fn)
    n, t = timer.autorange()
    per_repeat = max(1, int(n * (seconds / 3) / t))
    best = min(timer.repeat(repeat=3, number=per_repeat))
    return per_repeat / best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=1.2, help="time per operation and side (default 1.2)")
    args = ap.parse_args()
    image = face_image()

    # (a) RobotState decode.
    rs_raw = m.encode(m.RobotState(**robot_state_fields()))
    rs_payload = rs_raw.body[1:]
    decode = m.decode
    pyc_rs = pe.RobotState
    theirs_rs = pyc_rs.from_bytes(rs_payload)
    same = m.RobotState(**{k: getattr(theirs_rs, "lift_height_mm" if k == "lift_angle_rad" else k)
                           for k in m.RobotState.FIELDS})
    check(decode(rs_raw) == same, "RobotState")

    # (b) DisplayImage encode.
    encode, display = m.encode, m.DisplayImage
    pyc_display = pe.DisplayImage
    check(encode(display(image=image)).body[1:] == pyc_display(image=image).to_bytes(), "DisplayImage")

    # (c) frame round trips.
    def ours_rt(ftype: int, msgs: list, first: int, last: int) -> Callable[[], list]:
        enc_frame, dec_frame, Frame = frame.encode_frame, frame.decode_frame, frame.Frame  # noqa: N806

        def run() -> list:
            data = enc_frame(Frame(ftype, first, last, 11, [encode(x) for x in msgs]))
            return [decode(p) for p in dec_frame(data).packets]

        return run

    def theirs_rt(ftype: int, msgs: list, first: int, last: int) -> Callable[[], list]:
        pft, PFrame = pyc_ast.FrameType(ftype), pyc_frame.Frame  # noqa: N806

        def run() -> list:
            data = PFrame(pft, first, last, 11, msgs).to_bytes()
            return PFrame.from_bytes(data).pkts

        return run

    robot_ours, robot_theirs = robot_messages(m, image[:200]), robot_messages(pe, image[:200])
    engine_ours, engine_theirs = engine_messages(m, image), engine_messages(pe, image)
    cases = [
        ("robotstate-decode", lambda: decode(rs_raw), lambda: pyc_rs.from_bytes(rs_payload)),
        ("displayimage-encode", lambda: encode(display(image=image)),
         lambda: pyc_display(image=image).to_bytes()),
        ("robot-frame-rt (5 msgs)", ours_rt(frame.FrameType.ROBOT, robot_ours, 40, 41),
         theirs_rt(frame.FrameType.ROBOT, robot_theirs, 40, 41)),
        ("engine-frame-rt (5 msgs)", ours_rt(frame.FrameType.ENGINE, engine_ours, 40, 44),
         theirs_rt(frame.FrameType.ENGINE, engine_theirs, 40, 44)),
    ]
    # Both sides must produce the same datagram before we compare their speed.
    for ftype, ours, theirs, first, last in (
        (frame.FrameType.ROBOT, robot_ours, robot_theirs, 40, 41),
        (frame.FrameType.ENGINE, engine_ours, engine_theirs, 40, 44),
    ):
        a = frame.encode_frame(frame.Frame(ftype, first, last, 11, [encode(x) for x in ours]))
        b = pyc_frame.Frame(pyc_ast.FrameType(ftype), first, last, 11, theirs).to_bytes()
        check(a == b, f"{ftype!r} frame bytes")
        check(m.decode_packets(frame.decode_frame(a)) == ours, f"{ftype!r} frame messages")

    print(f"cozmo-brain message codec vs PyCozmo 0.8.0 (image {len(image)} bytes, "
          f"{args.seconds:.1f} s per side per op, Python {sys.version.split()[0]})")
    print(f"{'op':<26}{'ours ops/s':>14}{'pycozmo ops/s':>16}{'ratio':>9}")
    worst = float("inf")
    for name, ours_fn, theirs_fn in cases:
        ours_rate = rate(ours_fn, args.seconds)
        theirs_rate = rate(theirs_fn, args.seconds)
        ratio = ours_rate / theirs_rate
        worst = min(worst, ratio)
        flag = "" if ratio >= TARGET else "  < target"
        print(f"{name:<26}{ours_rate:>14,.0f}{theirs_rate:>16,.0f}{ratio:>8.1f}x{flag}")
    print(f"worst ratio {worst:.1f}x (target >= {TARGET:.0f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
