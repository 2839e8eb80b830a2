"""Offline simulation: the virtual-time loop, the in-memory network, and ``cozmo-brain simulate``.

The simulation runs the real stack (simulator, Robot, animation controller, Brain) on a loop
whose clock jumps to the next timer, so these tests cover minutes of robot life in seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import time
from pathlib import Path
from typing import Any

import pytest

from brain.app import simulate as sim_mod
from brain.app.simulate import SimulationReport, VirtualTimeLoop, run_virtual, simulate, simulate_command
from driver.link import Link, LinkState, Role
from driver.memlink import MemoryNetwork
from driver.protocol.frame import PacketType, RawPacket
from driver.robot import Robot
from driver.sim.server import SimulatedCozmo

from .conftest import REPO

RESOURCES = REPO / "resources"
DEFAULT = REPO / "trees" / "default.yaml"
IDLE_BEHAVIOURS = {"LookAround", "Blink", "Idle", "play_animation IdleBreathe", "play_animation IdleLookAround",
                   "set_head_angle 10"}


def _args(tmp_path: Path, **kw: Any) -> argparse.Namespace:
    base: dict[str, Any] = dict(hours=0.01, personality=str(DEFAULT), report=None, resources=[str(RESOURCES)],
                                config=None, verbose=0, quiet=False, script=None, seed=7)
    base.update(kw)
    return argparse.Namespace(**base)


# ----------------------------------------------------------------------------- the loop


def test_virtual_loop_runs_an_hour_of_timers_at_once_and_in_order() -> None:
    order: list[tuple[str, float]] = []

    async def main() -> float:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, VirtualTimeLoop)
        t0 = loop.time()
        loop.call_later(1800.0, lambda: order.append(("half", loop.time() - t0)))
        loop.call_later(0.25, lambda: order.append(("quarter s", loop.time() - t0)))
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.Event().wait(), 10.0)  # a timeout with nobody to wake it
        order.append(("timeout", loop.time() - t0))
        await asyncio.sleep(3600.0)
        return loop.time() - t0

    started = time.perf_counter()
    elapsed = run_virtual(main())
    assert time.perf_counter() - started < 1.0
    assert [name for name, _ in order] == ["quarter s", "timeout", "half"]
    for (_, at), expected in zip(order, (0.25, 10.0, 1800.0), strict=True):
        assert expected <= at < expected + 1e-3
    assert 3610.0 <= elapsed < 3610.0 + 1e-3


def test_virtual_loop_never_freezes_on_a_deadline_check_that_rounds_the_wrong_way() -> None:
    """``now - t >= d`` at ``now == t + d`` can be false by a rounding step: the clock must still move."""

    async def main() -> int:
        loop = asyncio.get_running_loop()
        last, rto, fired = 360.060001, 0.03, 0
        assert not (last + rto) - last >= rto  # the case that froze the link's resend timer
        done = loop.create_future()

        def on_timer() -> None:
            nonlocal fired
            fired += 1
            if loop.time() - last >= rto:
                done.set_result(fired)
            else:
                loop.call_at(last + rto, on_timer)  # re-arm for the same deadline, as the link does

        loop.call_at(last + rto, on_timer)
        return await done

    assert run_virtual(main(), start=360.0) < 1000


def test_loop_turns_cost_a_tenth_of_a_microsecond_of_virtual_time() -> None:
    async def main() -> float:
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        for _ in range(1000):
            await asyncio.sleep(0)
        return loop.time() - t0

    assert 0 < run_virtual(main()) < 1000 * 2e-7
    with pytest.raises(ValueError):
        VirtualTimeLoop(turn_s=0)


# ----------------------------------------------------------------------------- the network


def test_memory_network_carries_a_link_connection_and_drops_what_has_no_receiver() -> None:
    async def main() -> None:
        net = MemoryNetwork()
        got: list[bytes] = []
        robot_end = await net.open_link(Role.ROBOT, ("127.0.0.1", 5551), on_packet=lambda p: got.append(p.body))
        engine = await net.open_link(Role.ENGINE, ("0.0.0.0", 0), peer=("127.0.0.1", 5551))
        assert robot_end.local_address == ("127.0.0.1", 5551)
        assert engine.local_address[1] != 5551
        await engine.connect(timeout=1.0)
        assert engine.state is LinkState.CONNECTED and robot_end.state is LinkState.CONNECTED
        for i in range(300):  # several windows' worth, in order, exactly once
            engine.send(RawPacket(PacketType.COMMAND, bytes([0x42, i % 256])))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 5.0
        while len(got) < 300 and loop.time() < deadline:
            await asyncio.sleep(0.05)
        assert [b[1] for b in got] == [i % 256 for i in range(300)]
        assert engine.stats.resent_packets == 0
        with pytest.raises(OSError):
            net.bind(Link(Role.ROBOT), ("127.0.0.1", 5551))
        transport = engine._transport
        assert transport is not None
        before = net.dropped
        transport.sendto(b"nobody", ("127.0.0.1", 9))
        await asyncio.sleep(0)
        assert net.dropped == before + 1
        engine.close()
        robot_end.close()
        await asyncio.sleep(0)
        assert transport.is_closing() and engine.state is LinkState.CLOSED

    run_virtual(main())


def test_memory_network_delivers_in_the_order_sent_with_a_latency() -> None:
    """Datagrams sent in one loop turn are due at the same moment; they arrive in the order sent
    (a camera frame's chunks, say: out of order, the robot's reassembly drops the frame)."""

    class Inbox(asyncio.DatagramProtocol):
        def __init__(self) -> None:
            self.got: list[tuple[float, bytes]] = []

        def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
            self.got.append((asyncio.get_running_loop().time(), data))

    async def main() -> None:
        loop = asyncio.get_running_loop()
        net = MemoryNetwork(latency_s=0.002)
        inbox = Inbox()
        net.bind(inbox, ("127.0.0.1", 5551))
        sender = net.bind(asyncio.DatagramProtocol())
        sent_at = loop.time()
        for i in range(200):
            sender.sendto(bytes([i]), ("127.0.0.1", 5551))
        await asyncio.sleep(0.001)
        assert inbox.got == []  # still on the way
        for i in range(200, 256):  # sent later, land later
            sender.sendto(bytes([i]), ("127.0.0.1", 5551))
        await asyncio.sleep(0.01)
        assert [d[0] for _, d in inbox.got] == list(range(256))
        assert all(t - sent_at >= 0.002 for t, _ in inbox.got[:200])
        assert all(t - sent_at >= 0.003 for t, _ in inbox.got[200:])
        assert net.delivered == 256

    run_virtual(main())


def test_robot_and_simulator_over_the_memory_network_in_virtual_time() -> None:
    async def main() -> tuple[float, int]:
        loop = asyncio.get_running_loop()
        net = MemoryNetwork(latency_s=0.002)
        sim = await SimulatedCozmo("127.0.0.1", 5551).start(open_link=net.open_link)
        robot = Robot("127.0.0.1", 5551)
        await robot.connect(open_link=net.open_link)
        try:
            assert robot.info.firmware_version == 2381
            t0 = loop.time()
            await robot.set_head_angle(math.radians(30.0))
            took = loop.time() - t0
            await asyncio.sleep(60.0)  # a virtual minute of state streaming
            assert abs(sim.body.head.position - math.radians(30.0)) < math.radians(3.0)
            return took, sim.counts["SetHeadAngle"]
        finally:
            await robot.disconnect()
            await sim.stop()

    started = time.perf_counter()
    took, commands = run_virtual(main())
    assert time.perf_counter() - started < 10.0
    assert 0.05 < took < 2.0 and commands == 1


# ----------------------------------------------------------------------------- simulate


@pytest.mark.e2e
def test_simulate_default_personality_sleeps_when_left_alone_and_idles_with_variety(tmp_path: Path) -> None:
    """Nine simulated minutes of the default tiring in a minute: quiet until it naps, a poke wakes
    it, quiet again until the next nap."""
    (tmp_path / "world.yaml").write_text("- {at: 240, event: poke}\n")
    (tmp_path / "quick.yaml").write_text(f"extends: {DEFAULT}\nname: quick\n"
                                         "arousal: {sleepy_after_s: 60, rest_rate: 0.2}\n")
    report_file = tmp_path / "out" / "report.json"
    started = time.perf_counter()
    code = simulate_command(_args(tmp_path, hours=0.15, report=str(report_file), script=str(tmp_path / "world.yaml"),
                                  personality=str(tmp_path / "quick.yaml")))
    wall = time.perf_counter() - started
    assert code == 0
    report = json.loads(report_file.read_text())
    assert report["personality"] == "quick"
    assert report["simulated_s"] == pytest.approx(540.0, abs=0.5)
    # far faster than real time (the speed itself is the benchmark's to measure, not a test's)
    assert report["speedup"] > 10 and wall < 540.0 / 10
    # left alone, it idles, its excitement decays, it tires, and it falls asleep within two minutes
    assert report["first_sleep_at_s"] is not None and 20.0 < report["first_sleep_at_s"] < 120.0
    episodes = report["sleep_episodes"]
    assert report["sleep_count"] == len(episodes) >= 2
    assert episodes[0]["ended_by"] == "poked" and 240.0 <= episodes[0]["start_s"] + episodes[0]["duration_s"] < 250.0
    assert episodes[1]["start_s"] > 250.0  # bored again after the poke, asleep again
    # the poke, and nothing else but the desk's edges it may meet exploring
    assert report["reactions"].get("Poked") == 1 and set(report["reactions"]) <= {"Poked", "CliffDetected"}
    # each sleep played its get-in animation on the robot
    assert sum(n for clip, n in report["animations"].items() if "gotosleep_getin" in clip) == report["sleep_count"]
    # and breathed in its sleeping loop (4 s a breath) while it slept
    asleep_s = sum(e["duration_s"] for e in episodes)
    assert report["animations"].get("anim_gotosleep_sleeping_01", 0) >= asleep_s / 6.0
    # idling varies: several idle behaviours and several different clips
    idle = IDLE_BEHAVIOURS & set(report["behavior_starts"])
    assert len(idle) >= 3, report["behavior_starts"]
    assert len(report["animations"]) >= 5
    # time accounting adds up, and the needs branch (the nap) took most of it
    assert sum(report["branch_s"].values()) == pytest.approx(report["simulated_s"], abs=0.5)
    assert sum(report["behavior_s"].values()) == pytest.approx(report["simulated_s"], abs=0.5)
    assert report["branch_s"]["needs"] > report["branch_s"]["idle"] > 20.0
    assert report["sleep_total_s"] == pytest.approx(report["behavior_s"]["Sleep"], abs=5.0)
    # mood: it started excited (play may have excited it more) and the excitement decayed
    excited = report["mood"]["Excited"]
    assert excited["max"] >= 0.49 and excited["min"] < 0.1 and excited["final"] < 0.1
    series = report["mood_series"]
    assert 20 <= len(series) <= sim_mod.SERIES_POINTS + 1
    assert series[0]["emotions"]["Excited"] > series[-1]["emotions"]["Excited"]
    assert {p["branch"] for p in series} >= {"needs", "idle"}
    assert report["link"]["resent_packets"] == 0 and report["link"]["missed_animation_frames"] == 0


@pytest.mark.e2e
def test_same_seed_same_life(tmp_path: Path) -> None:
    """Virtual time makes a run reproducible: only the wall-clock figures differ."""

    def once() -> dict[str, Any]:
        report = run_virtual(simulate(DEFAULT, [RESOURCES], hours=0.02, seed=3, progress=False))
        data = report.as_dict()
        for key in ("wall_s", "speedup", "median_beat_ms"):
            data.pop(key)
        return data

    first, second = once(), once()
    assert first == second
    # ten beats a second from the first beat on; the day before it is the robot's start-up
    # (its calibration, about 1.3 s, and the start-up sequence)
    assert 1.3 <= first["branch_s"]["start-up"] <= 1.5
    assert first["beats"] == pytest.approx(10 * (72 - first["branch_s"]["start-up"]), abs=1)


@pytest.mark.e2e
def test_markdown_report_and_progress_lines(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sim_mod, "PROGRESS_WALL_S", 0.0)  # a progress line at every check
    out = tmp_path / "r.md"
    with caplog.at_level(logging.INFO, logger="brain.app.simulate"):
        assert simulate_command(_args(tmp_path, hours=0.02, report=str(out))) == 0
    text = out.read_text()
    for heading in ("# Simulation of `default`", "## Sleep", "## Time per top-level branch", "## Behaviours",
                    "## Animations that reached the robot", "## Reactions", "## Mood", "## Mood over time"):
        assert heading in text
    assert "x** real time" in text and "| Excited |" in text
    messages = [r.getMessage() for r in caplog.records if r.name == "brain.app.simulate"]
    assert any("simulated 0:00:30 of 0:01:12 (42%)" in m for m in messages), messages
    assert any(m.startswith("simulated 0.02 h of default in") for m in messages)
    assert any(m.startswith("[sim 0:00:30]") for m in messages)  # lines carry the simulated time
    assert any(m == f"report written to {out}" for m in messages)


def test_usage_and_input_errors(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    assert simulate_command(_args(tmp_path, hours=0)) == 2
    assert simulate_command(_args(tmp_path, hours=float("nan"))) == 2
    assert simulate_command(_args(tmp_path, report=str(tmp_path / "r.txt"))) == 2
    assert "the report's extension says its format" in caplog.text
    assert simulate_command(_args(tmp_path, personality=str(tmp_path / "nope.yaml"))) == 1
    assert "nope.yaml: personality file not found" in caplog.text
    (tmp_path / "bad.yaml").write_text("- {at: 5, event: explode}\n")
    assert simulate_command(_args(tmp_path, script=str(tmp_path / "bad.yaml"))) == 1
    assert "bad.yaml:1: step 0: unknown event 'explode'" in caplog.text
    (tmp_path / "broken.yaml").write_text("name: broken\nroot: {type: wait, params: {seconds: lots}}\n")
    assert simulate_command(_args(tmp_path, personality=str(tmp_path / "broken.yaml"))) == 1
    assert "cannot load the personality" in caplog.text
    assert "broken.yaml:2: root.params.seconds: expected a number" in caplog.text


def test_report_formats_round_numbers_sensibly() -> None:
    report = SimulationReport(personality="p", personality_file="p.yaml", seed=1, heartbeat_hz=10.0,
                              simulated_s=7200.0, wall_s=36.0, branch_s={"idle": 5400.0, "needs": 1800.0},
                              sleep_count=1, sleep_total_s=1800.0, first_sleep_at_s=3600.0)
    assert report.speedup == 200.0
    lines = report.summary_lines()
    assert lines[0].startswith("simulated 2.00 h of p in 36.0 s wall (200x real time")
    assert lines[1] == "time per branch: idle 75.0%, needs 25.0%"
    assert "slept 1 time(s), 0:30:00 in total, first after 1:00:00" in lines
    assert json.loads(report.to_json())["speedup"] == 200.0


@pytest.mark.e2e
def test_a_simulated_day_keeps_the_faces_it_rendered_and_no_record_of_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    """A day asks for thousands of distinct faces in minutes: simulate keeps many more than a
    daemon does, and renders each face it shows once."""
    from driver.animation import face, face_images
    from driver.animation.expressions import expression

    drawn: list[Any] = []

    def counting_render(params: Any, width: int = 128, height: int = 64) -> Any:
        drawn.append(params)
        return face.render(params, width, height)

    monkeypatch.setattr(face_images, "render", counting_render)
    brains: list[Any] = []
    sims: list[Any] = []
    run_virtual(simulate(DEFAULT, [RESOURCES], hours=0.02, seed=3, progress=False, on_start=brains.append,
                         watch_sim=sims.append))
    # nor does the simulator keep the messages it took in (its record would hold some 30 MB of a day)
    assert sum(sims[0].counts.values()) > 1000 and len(sims[0].received) == 0
    renderer = brains[0].controller._images.renderer
    assert renderer.cache_size == sim_mod.SIMULATED_FACE_CACHE >= 16 * face_images.FACE_CACHE
    assert len(drawn) > 50
    # (the start-up draws the neutral face once more, with a renderer of its own)
    twice = {params for params in drawn if drawn.count(params) > 1}
    assert twice <= {expression("neutral")}, f"{len(twice)} faces rendered more than once"


def test_the_day_report_counts_each_time_the_robot_went_over_the_tables_edge(tmp_path: Path,
                                                                              caplog: pytest.LogCaptureFixture) -> None:
    """A personality that backs blindly (the cliff sensor looks ahead) reaches the table's rim: the
    simulator warns where a real robot would have gone over, and the report counts it."""
    personality = tmp_path / "reverse.yaml"
    personality.write_text("name: reverse\nreactions: {}\nroot:\n  type: sequence\n  children:\n"
                           "    - {type: drive, params: {left: -60, right: -60, seconds: 20}}\n"
                           "    - {type: running}\n")
    caplog.set_level(logging.WARNING, logger="driver.sim.server")
    report = run_virtual(simulate(personality, [RESOURCES], hours=0.01, seed=1, progress=False))
    assert report.over_the_edge == 1
    assert [r for r in caplog.records if "a real robot would have gone over" in r.getMessage()]
    assert "over the table's edge 1" in report.to_markdown()
