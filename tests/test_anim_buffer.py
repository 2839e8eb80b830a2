"""The robot's animation buffer (the simulator's) and the engine's view of it (the controller's budget)."""

from __future__ import annotations

import asyncio

import pytest

from brain.app.simulate import run_virtual
from driver.animation.budget import StreamBudget
from driver.animation.clip import Clip, ProceduralFace
from driver.animation.controller import AnimationController
from driver.hardware import ANIM_BUFFER_BYTES, ANIM_BUFFER_FRAMES, AUDIO_FRAME_PLAY_S
from driver.memlink import MemoryNetwork
from driver.protocol import messages as m
from driver.robot import Robot
from driver.sim.anim_buffer import AnimationBuffer
from driver.sim.server import SimulatedCozmo

AUDIO = m.OutputAudio(samples=bytes(744))


def _frame(buf: AnimationBuffer, *extra: object, audio: object = AUDIO) -> None:
    for msg in extra:
        buf.add(msg, len(m.encode(msg).body))
    buf.add(audio, len(m.encode(audio).body))


def test_a_frame_waits_for_its_audio_and_plays_on_the_robots_clock() -> None:
    buf = AnimationBuffer()
    head = m.AnimHead(angle_deg=10, duration_ms=33)
    buf.add(head, 8)
    assert buf.buffered_frames == 0 and buf.due(0.0) == []  # no audio yet: not a frame
    buf.add(AUDIO, 745)
    assert buf.buffered_frames == 1
    _frame(buf)
    _frame(buf)
    assert [len(f) for f in buf.due(0.0)] == [2]  # keyframe and audio together, one frame per tick
    assert buf.due(AUDIO_FRAME_PLAY_S / 2) == []
    assert len(buf.due(2 * AUDIO_FRAME_PLAY_S)) == 2
    assert buf.frames_played == 3 and buf.bytes_played == 8 + 3 * 745 and buf.buffered_bytes == 0


def test_what_does_not_fit_is_dropped_and_counted() -> None:
    buf = AnimationBuffer()
    for _ in range(ANIM_BUFFER_FRAMES + 6):
        _frame(buf, audio=m.OutputSilence())
    assert buf.buffered_frames == ANIM_BUFFER_FRAMES and buf.dropped == 6
    buf.clear()
    for _ in range(20):  # audio frames: the bytes bind first (8,192 / 745 = 10)
        _frame(buf)
    assert buf.buffered_frames == ANIM_BUFFER_BYTES // 745 and buf.dropped == 20 - ANIM_BUFFER_BYTES // 745
    assert buf.high_water_bytes <= ANIM_BUFFER_BYTES


def test_a_stream_at_the_hosts_30_fps_creeps_ahead_of_the_robots_clock() -> None:
    """Why the engine must pace itself: the robot plays a frame every 33.5 ms, not 33.3."""
    buf = AnimationBuffer()
    for k in range(30 * 120):  # two minutes of continuous audio
        _frame(buf)
        buf.due(k / 30.0)
    assert buf.dropped > 0


def test_the_budget_holds_the_stream_within_the_robots_buffer() -> None:
    buf, budget = AnimationBuffer(), StreamBudget()
    held = 0
    for k in range(30 * 120):
        now = k / 30.0
        for _ in buf.due(now):
            pass
        budget.played(buf.frames_played, buf.bytes_played, buf.dropped & 0xFF)  # AnimationState
        if not budget.has_room():
            held += 1
            continue
        _frame(buf)
        budget.sent(745, closes_frame=True)
    assert buf.dropped == 0 and held > 0
    assert budget.high_water_frames <= ANIM_BUFFER_FRAMES and budget.high_water_bytes <= ANIM_BUFFER_BYTES


def test_the_budget_does_not_hold_before_the_robot_reports_and_forgets_dropped_frames() -> None:
    budget = StreamBudget()
    for _ in range(30):
        budget.sent(745, closes_frame=True)
    assert budget.has_room()  # no AnimationState yet: nothing to pace by
    budget.played(5, 5 * 745, 0)
    assert budget.frames_in_buffer == 25 and not budget.has_room()
    budget.played(5, 5 * 745, 20)  # the robot dropped 20 of them
    assert budget.dropped == 20 and budget.frames_in_buffer == 5 and budget.bytes_in_buffer == 5 * 745
    budget.played(10, 10 * 745, 20)
    assert budget.frames_in_buffer == 0 and budget.has_room()
    budget.played(10, 10 * 745, 3)  # the one-byte drop count wrapped: 239 more
    assert budget.dropped == 20 + 239
    budget.reset()
    assert budget.frames_in_buffer == 0 and not budget.reporting


@pytest.mark.parametrize("name", ["OutputAudio", "OutputSilence"])
def test_either_audio_packet_closes_a_frame(name: str) -> None:
    buf = AnimationBuffer()
    msg = AUDIO if name == "OutputAudio" else m.OutputSilence()
    buf.add(m.DisplayImage(image=b"\x01\x02"), 4)
    buf.add(msg, len(m.encode(msg).body))
    assert buf.buffered_frames == 1


def _long_clip_over_the_memory_network(seconds: float) -> tuple[AnimationBuffer, int, StreamBudget]:
    """The controller plays a clip of ``seconds`` (a face moving every frame) to the simulator,
    in virtual time; what the robot's buffer saw, the frames held, the engine's budget."""
    long = Clip("long", procedural_face=(ProceduralFace(0, face_center_x=-30.0),
                                         ProceduralFace(int(seconds * 1000), face_center_x=30.0)))

    async def main() -> tuple[AnimationBuffer, int, StreamBudget]:
        net = MemoryNetwork(latency_s=0.002)
        sim = await SimulatedCozmo("127.0.0.1", 5551).start(open_link=net.open_link)
        robot = Robot("127.0.0.1", 5551)
        await robot.connect(open_link=net.open_link)
        ctl = AnimationController(robot)
        try:
            await ctl.play(long)
            await asyncio.sleep(1.0)
            assert sim.anim_buffer.frames_played >= seconds * 30 * 0.99  # the whole clip reached the face
            return sim.anim_buffer, ctl.stats.held_frames, robot.anim_budget
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    return run_virtual(main())


def test_a_long_clip_is_paced_by_animation_state_and_nothing_is_dropped() -> None:
    """150 s at the host's 30 fps would run 22 frames ahead of a robot playing every 33.5 ms."""
    buf, held, budget = _long_clip_over_the_memory_network(150.0)
    assert buf.total_dropped == 0 and held >= 10
    assert buf.high_water_frames <= ANIM_BUFFER_FRAMES and budget.high_water_frames <= ANIM_BUFFER_FRAMES
    assert budget.reporting and budget.dropped == 0


def test_an_abort_counts_what_it_emptied_as_played() -> None:
    """As the firmware's Clear(): AnimationState goes on adding up to everything that was buffered."""
    buf = AnimationBuffer()
    for _ in range(5):
        _frame(buf)
    buf.add(m.DisplayImage(image=b"\x01\x02"), 4)  # the start of a frame whose audio has not come
    waiting = buf.buffered_bytes + 4
    buf.clear_waiting()
    assert buf.buffered_frames == 0 and buf.frames_played == 5 and buf.bytes_played == waiting


def test_clips_cut_short_again_and_again_leave_the_stream_room() -> None:
    """Forty clips aborted mid-play over the memory network, then one played whole.

    Each abort empties the robot's buffer; the engine's budget must see it empty too (the abort
    itself is not buffered, and what it emptied is reported played), or after a few aborts the
    controller waits for room that never comes and every later clip hangs (a simulated day's
    robot stopped animating after its first few interrupted clips).
    """
    clip = Clip("long", procedural_face=(ProceduralFace(0, face_center_x=-30.0),
                                         ProceduralFace(3000, face_center_x=30.0)))
    short = Clip("short", procedural_face=(ProceduralFace(0, face_center_x=-10.0),
                                          ProceduralFace(500, face_center_x=10.0)))

    async def main() -> tuple[int, int]:
        net = MemoryNetwork(latency_s=0.002)
        sim = await SimulatedCozmo("127.0.0.1", 5551, calibrate=False).start(open_link=net.open_link)
        robot = Robot("127.0.0.1", 5551)
        await robot.connect(open_link=net.open_link)
        ctl = AnimationController(robot)
        try:
            for _ in range(40):
                handle = ctl.play(clip)
                await asyncio.sleep(0.4)  # the buffer full of its frames
                handle.cancel()
                await asyncio.sleep(0.05)
            played_before = sim.anim_buffer.frames_played
            await asyncio.wait_for(ctl.play(short), timeout=5.0)
            played = sim.anim_buffer.frames_played - played_before
            await asyncio.sleep(1.0)  # the rest of the stream plays out
            budget = robot.anim_budget
            return budget.frames_in_buffer + budget.bytes_in_buffer, played
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    left, played = run_virtual(main())
    assert played >= 15  # the short clip reached the face
    assert left == 0, f"{left} frames and bytes still counted in the robot's buffer"
