"""Daemon building blocks: config validation, the safety layer against the simulator, the heartbeat."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from brain.app.config import ConfigError, load_config, parse_robot_address
from brain.app.simulate import VirtualTimeLoop, run_virtual
from brain.heartbeat import Heartbeat
from brain.safety import Safety
from driver import events as ev
from driver.robot import Robot
from driver.sim.server import SimulatedCozmo

from .conftest import eventually, run


def test_config_defaults_and_relative_paths(tmp_path: Path) -> None:
    cfg_file = tmp_path / "c.yaml"
    cfg_file.write_text("robot: {host: 10.0.0.2, port: 6000}\npersonality: mine.yaml\nheartbeat_hz: 20\n"
                        "resources: [res]\n")
    cfg = load_config(cfg_file)
    assert (cfg.robot_host, cfg.robot_port, cfg.heartbeat_hz) == ("10.0.0.2", 6000, 20.0)
    assert cfg.personality == (tmp_path / "mine.yaml").resolve()
    assert cfg.resources == [(tmp_path / "res").resolve()]
    assert (cfg.frame_clock_priority, cfg.frame_clock_cpu) == (10, None)


def test_config_frame_clock(tmp_path: Path) -> None:
    cfg_file = tmp_path / "c.yaml"
    cfg_file.write_text("frame_clock: {priority: 0, cpu: 1}\n")
    cfg = load_config(cfg_file)
    assert (cfg.frame_clock_priority, cfg.frame_clock_cpu) == (0, 1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("robot: {port: 70000}", "c.yaml:1: robot.port: expected 1..65535, got 70000"),
        ("heartbeat_hz: fast", "c.yaml:1: heartbeat_hz: expected a number, got 'fast'"),
        ("robot: {}\nheartbeat: 3", "c.yaml:2: heartbeat: unknown setting"),
        ("resources: notalist", "resources: expected a list of folders"),
        ("logging: {level: LOUD}", "logging.level: expected DEBUG, INFO, WARNING or ERROR"),
        ("robot: [1", "not valid YAML"),
        ("frame_clock: {priority: 150}", "c.yaml:1: frame_clock.priority: expected 0..99, got 150"),
        ("frame_clock: {speed: 2}", "frame_clock.speed: unknown setting; expected priority or cpu"),
        ("frame_clock: 3", "frame_clock: expected a mapping"),
    ],
)
def test_config_errors_name_file_line_and_field(tmp_path: Path, text: str, message: str) -> None:
    cfg_file = tmp_path / "c.yaml"
    cfg_file.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(cfg_file)
    assert message in str(info.value)


def test_robot_address_parsing() -> None:
    assert parse_robot_address("192.168.1.5") == ("192.168.1.5", 5551)
    assert parse_robot_address("localhost:6001") == ("localhost", 6001)
    with pytest.raises(ConfigError):
        parse_robot_address("host:99999")


@pytest.mark.e2e
@pytest.mark.parametrize(("hazard", "name"), [("pick_up", "picked_up"), ("cliff", "cliff"), ("fall", "falling"),
                                              ("falling_flag", "falling")])
def test_safety_stops_the_motors_on_hazards_without_waiting_for_a_tick(hazard: str, name: str) -> None:
    async def body() -> None:
        sim = await SimulatedCozmo(port=0, calibrate=False).start()
        robot = Robot(*sim.address)
        await robot.connect()
        safety = Safety(robot)
        try:
            robot.drive_wheels(120, 120)
            await eventually(lambda: sim.body.wheels_moving)
            stops_before = sim.counts["StopAllMotors"]
            t0 = asyncio.get_running_loop().time()
            cause = {"pick_up": sim.pick_up, "cliff": sim.set_cliff, "fall": sim.fall,
                     # the falling flag alone, as when the FallingStarted message went missing
                     "falling_flag": lambda: setattr(sim.body, "falling", True)}
            cause[hazard]()
            await eventually(lambda: sim.counts["StopAllMotors"] > stops_before, timeout=1)
            latency = asyncio.get_running_loop().time() - t0
            assert latency < 0.1  # one RobotState period (30 ms) plus the trip, far below a 100 ms beat
            assert safety.stops >= 1 and safety.hazard == name
            await eventually(lambda: not sim.body.wheels_moving)
        finally:
            safety.close()
            await robot.disconnect()
            await sim.stop()

    run(body())


class _CountingTree:
    def __init__(self) -> None:
        self.ticks = 0

    def tick_once(self) -> None:
        self.ticks += 1


class _Mood:
    def __init__(self) -> None:
        self.elapsed = 0.0

    def update(self, dt: float) -> None:
        self.elapsed += dt

    def snapshot(self) -> dict[str, float]:
        return {"elapsed": self.elapsed}


def test_heartbeat_is_drift_free_and_drains_events_in_order() -> None:
    """Each beat starts at start + k·period on the clock, however long the beats themselves take.

    On the virtual clock every tick "works" for 3 ms (it moves the clock on), 6 % of a 50 ms period:
    a loop that slept a period after each beat would drift by that much per beat; this one must not.
    """
    loop_box: list[VirtualTimeLoop] = []
    beat_at: list[float] = []

    class _WorkingTree(_CountingTree):
        def tick_once(self) -> None:
            super().tick_once()
            beat_at.append(loop_box[0].time())
            loop_box[0]._virtual_now += 0.003  # the tick's own work takes 3 ms

    tree = _WorkingTree()
    mood = _Mood()
    seen: list[list[str]] = []

    async def body() -> None:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, VirtualTimeLoop)
        loop_box.append(loop)
        hb = Heartbeat(tree, rate_hz=20, mood=mood, describe=lambda: f"branch{tree.ticks // 10}",
                       explain=lambda: "test", clock=loop.time)
        hb.subscribe("events", lambda evs, now: seen.append([e.kind for e in evs]))
        stop = asyncio.Event()
        hb.post(ev.Poked(0.0))
        hb.post(ev.ButtonPressed(0.0))
        t0 = loop.time()
        await hb.run(stop, duration=10.0)
        assert 10.0 <= loop.time() - t0 <= 10.01
        assert hb.stats.missed == 0
        assert hb.last is not None and hb.last.beat == tree.ticks
        offsets = [at - t0 - k * 0.05 for k, at in enumerate(beat_at)]
        assert max(abs(o) for o in offsets) < 1e-4, offsets[:5]

    run_virtual(body())
    assert tree.ticks == 200
    assert seen[0] == ["poked", "button"] and all(s == [] for s in seen[1:])
    assert mood.elapsed == pytest.approx(199 * 0.05, abs=1e-3)


def test_a_face_coming_into_view_brings_a_beat_forward_without_moving_the_schedule() -> None:
    """A FaceSeen posted between beats is drained by an extra beat at once; the others stay on start + k·period."""
    beat_at: list[float] = []
    drained: list[tuple[float, list[str]]] = []

    async def body() -> None:
        loop = asyncio.get_running_loop()
        tree = _CountingTree()
        hb = Heartbeat(tree, rate_hz=10, clock=loop.time)
        hb.subscribe("snapshot", lambda snap: beat_at.append(loop.time()))
        hb.subscribe("events", lambda evs, now: drained.append((now, [e.kind for e in evs])))
        stop = asyncio.Event()
        t0 = loop.time()
        loop.call_at(t0 + 0.23, hb.post, ev.FaceSeen(0.0, face_id=1))
        loop.call_at(t0 + 0.46, hb.post, ev.Poked(0.0))  # not urgent: waits for its beat
        await hb.run(stop, duration=1.0)
        offsets = [round((at - t0) * 1000) for at in beat_at]
        assert offsets == [0, 100, 200, 230, 300, 400, 500, 600, 700, 800, 900], offsets
        assert [round((now - t0) * 1000) for now, kinds in drained if kinds] == [230, 500]

    run_virtual(body())
