"""The light cubes end to end, from the app's real cube light files.

The daemon runs against the simulator, whose three cubes advertise and connect only when asked.
What is asserted is what reaches the simulated cubes: the CubeId + CubeLights pairs the robot
received for a cube's slot, decoded back to each LED's colour, compared with the colours written
in the sample's ``config/engine/lights/cubeLights`` files, and the games the cubes are played
with. The subject is what the daemon does over tens of seconds, not the wire: it runs in the
test's process on the virtual clock (:mod:`tests.virtual_daemon`).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import signal
from pathlib import Path
from typing import Any

import pytest

from brain.assets.resource_set import ResourceSet
from driver.protocol import rgb555_to_rgb

from .clip_spans import clip_starts, group_heads
from .conftest import eventually
from .daemon_harness import RESOURCES, Daemon
from .virtual_daemon import run_on_virtual_clock, start_virtual

pytestmark = pytest.mark.e2e


def file_color(sample: Path, name: str, stage: int = 0) -> tuple[int, int, int]:
    """The first LED's on colour of a cube light file's ``stage`` (the files hold // comments)."""
    text = (sample / "config" / "engine" / "lights" / "cubeLights" / f"{name}.json").read_text()
    doc = json.loads(re.sub(r"//[^\n]*", "", text))
    stages = list(doc.values())[0]
    entry = stages[stage] if isinstance(stages, list) else list(doc.values())[stage]
    r, g, b, _ = entry["pattern"]["onColors"][0]
    return int(r), int(g), int(b)


def shown(d: Daemon, slot: int, after: float = -math.inf) -> list[tuple[float, tuple[int, int, int], int]]:
    """What a slot's cube was told to show: (arrival, first LED's on colour, rotation frames)."""
    out, selected, rotation = [], None, 0
    for t, name, msg in d.received:
        if name == "CubeId":
            selected, rotation = int(msg.object_id), int(msg.rotation_period_frames)
        elif name == "CubeLights" and selected == slot and t > after:
            out.append((t, rgb555_to_rgb(int(msg.states[0].on_color)), rotation))
    return out


def near(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    """Equal within RGB555's rounding (8-bit colours travel as 5 bits)."""
    return all(abs(x - y) <= 9 for x, y in zip(a, b, strict=True))


def colors(seq: list[Any]) -> list[tuple[int, int, int]]:
    return [c for _, c, _ in seq]


def test_the_cubes_glow_when_connected_go_dark_as_the_robot_sleeps_and_wake_with_it(
        tmp_path: Path, sample_resources: Path) -> None:
    (tmp_path / "nap.yaml").write_text(
        "name: nap\n"
        "root:\n"
        "  type: sequence\n"
        "  children:\n"
        "    - {type: wait, params: {seconds: 3}}\n"
        "    - {type: sleep, params: {max_s: 5}}\n"
        "    - {type: wait, params: {seconds: 600}}\n")
    connected = file_color(sample_resources, "connected")
    sleep, dark = file_color(sample_resources, "sleep"), file_color(sample_resources, "sleepNoFade")
    wake, fade = file_color(sample_resources, "wakeUp", 0), file_color(sample_resources, "wakeUp", 1)

    async def body() -> None:
        d = await start_virtual(tmp_path, "--personality", "nap.yaml", "--resources", str(sample_resources),
                        "--resources", str(RESOURCES))
        try:
            await eventually(lambda: d.sim.cubes.slot_of(1) is not None, timeout=10.0, interval=0.05)
            slot = d.sim.cubes.slot_of(1)
            assert slot is not None
            await eventually(lambda: shown(d, slot), timeout=5.0, interval=0.05)
            assert near(colors(shown(d, slot))[0], connected)
            asleep = await d.line(r"asleep \(", timeout=15.0)
            # Sleep (2 s on the file), then dark; awake again: WakeUp's two stages, then Connected
            await eventually(lambda: len(shown(d, slot, asleep - 0.5)) >= 5, timeout=20.0, interval=0.05)
            seen = colors(shown(d, slot, asleep - 0.5))[:5]
            expected = [sleep, dark, wake, fade, connected]
            assert [near(c, e) for c, e in zip(seen, expected, strict=True)] == [True] * 5, seen
            times = [t for t, _, _ in shown(d, slot, asleep - 0.5)][:5]
            assert 1.5 < times[1] - times[0] < 3.0          # the sleep file's 2000 ms
            assert 0.9 < times[3] - times[2] < 2.0          # wakeUp's 1280 ms
            assert 4.5 < times[4] - times[3] < 6.5          # wakeUpFadeOut's 5100 ms
            cube = d.sim.cubes.cube(1)
            assert cube is not None and near(cube.on_colors()[0], connected)
        finally:
            d.signal(signal.SIGINT)
            code = await d.wait(20.0)
            await d.close()
        assert code == 0, d.text[-3000:]

    run_on_virtual_clock(body(), timeout=90)


def test_a_tap_game_asked_for_with_the_cube_lit_and_played_by_tapping_on_its_flash(
        tmp_path: Path, sample_resources: Path) -> None:
    """TapGame from the project's behaviour file (its timing changed in the personality's
    ``behaviors:``), three rounds: a tap on the flash wins the first for
    the person, a tap before the flash the second for Cozmo, no tap the third: Cozmo wins 2-1."""
    (tmp_path / "game.yaml").write_text(
        "name: game\n"
        "behaviors:\n"
        "  TapGame: {readyWait_s: [2.0, 2.5], window_s: 1.5, waitForTap_s: 30}\n"
        "root:\n"
        "  type: sequence\n"
        "  children:\n"
        "    - {type: wait, params: {seconds: 2}}\n"
        "    - {behavior: TapGame}\n"
        "    - {type: wait, params: {seconds: 600}}\n")
    asking = file_color(sample_resources, "interacting")
    flash = file_color(sample_resources, "flash")
    person_wins = file_color(sample_resources, "cubePouncePlayerWin")
    robot_wins = file_color(sample_resources, "cubePouncePlayerLose")
    ready = file_color(RESOURCES / "cozmo_resources", "pounceReady")

    async def body() -> None:
        d = await start_virtual(tmp_path, "--personality", "game.yaml", "--resources", str(sample_resources),
                        "--resources", str(RESOURCES))
        try:
            await eventually(lambda: d.sim.cubes.slot_of(1) is not None, timeout=10.0, interval=0.05)
            slot = d.sim.cubes.slot_of(1)
            assert slot is not None

            def last() -> tuple[int, int, int] | None:
                seq = shown(d, slot)
                return seq[-1][1] if seq else None

            await eventually(lambda: last() is not None and near(last() or (0, 0, 0), asking), timeout=15.0,
                             interval=0.05)
            d.sim.tap_cube(1)                                     # yes, let's play
            await eventually(lambda: near(last() or (0, 0, 0), ready), timeout=5.0, interval=0.02)
            await eventually(lambda: near(last() or (0, 0, 0), flash), timeout=5.0, interval=0.02)
            d.sim.tap_cube(1)                                     # round 1: on the flash
            await d.line(r"round 1 to the person", timeout=5.0)
            await eventually(lambda: near(last() or (0, 0, 0), person_wins), timeout=3.0, interval=0.02)
            assert shown(d, slot)[-1][2] == 3                     # it spins (the file's 100 ms rotation)
            await eventually(lambda: near(last() or (0, 0, 0), ready), timeout=15.0, interval=0.02)
            d.sim.tap_cube(1)                                     # round 2: too early
            await d.line(r"round 2 to the robot \(a tap before the flash\)", timeout=5.0)
            await eventually(lambda: near(last() or (0, 0, 0), robot_wins), timeout=3.0, interval=0.02)
            over = await d.line(r"game over, 2-1: the robot won", timeout=30.0)   # round 3: no tap
            assert d.lines(r"round 3 to the robot \(no tap in time\)")
            await eventually(lambda: shown(d, slot, over - 0.5), timeout=3.0, interval=0.05)
            assert near(shown(d, slot, over - 0.5)[-1][1], file_color(sample_resources, "connected"))
        finally:
            d.signal(signal.SIGINT)
            code = await d.wait(20.0)
            await d.close()
        assert code == 0, d.text[-3000:]

    run_on_virtual_clock(body(), timeout=120)


def test_guard_dog_beaten_by_careful_flips_then_busted_by_a_cube_carried_off(
        tmp_path: Path, sample_resources: Path) -> None:
    """GuardDog from the project's file, twice. Once asleep (its cubes streaming their accelerometers
    to it), the three cubes are turned over slowly, unnoticed: the player wins. The second time a cube
    is carried about: its lights show it is being moved, then Cozmo is busted awake."""
    (tmp_path / "guard.yaml").write_text(
        "name: guard\n"
        "behaviors:\n"
        "  GuardDog: {sleepingMinDuration_s: 30, sleepingMaxDuration_s: 60, maxMovementBustedGracePeriod_s: 2}\n"
        "root:\n"
        "  type: sequence\n"
        "  children:\n"
        "    - {type: wait, params: {seconds: 2}}\n"
        "    - {behavior: GuardDog}\n"
        "    - {type: wait, params: {seconds: 1}}\n"
        "    - {behavior: GuardDog}\n"
        "    - {type: wait, params: {seconds: 600}}\n")
    rs = ResourceSet.load([sample_resources, RESOURCES])
    flipped = file_color(RESOURCES / "cozmo_resources", "cubePlayerWin")   # the sample names a file it lacks
    being_moved = file_color(RESOURCES / "cozmo_resources", "cubeGuardMoved")
    busted = file_color(RESOURCES / "cozmo_resources", "cubePlayerLose")

    def streams(d: Daemon, enable: bool, after: float = -math.inf) -> set[int]:
        return {int(m.object_id) for _, m in d.messages("StreamObjectAccel", after) if bool(m.enable) == enable}

    async def body() -> None:
        d = await start_virtual(tmp_path, "--personality", "guard.yaml", "--resources", str(sample_resources),
                        "--resources", str(RESOURCES))
        try:
            await eventually(lambda: all(d.sim.cubes.slot_of(n) is not None for n in (1, 2, 3)), timeout=10.0,
                             interval=0.05)
            slots = {n: d.sim.cubes.slot_of(n) for n in (1, 2, 3)}
            # asleep: every cube streams its accelerometer to it
            await eventually(lambda: streams(d, True) == set(slots.values()), timeout=30.0, interval=0.05)
            asleep = d.now()
            for n in (1, 2, 3):
                d.sim.flip_cube(n)                    # 3 s each, all at once: slow, careful hands
            beaten = await d.line(r"GuardDog: beaten: every cube flipped", timeout=10.0)
            assert beaten - asleep > 2.5
            # (the lights and the log line travel apart: the lights may come a moment later)
            await eventually(lambda: all(near(d.sim.cubes.cube(n).on_colors()[0], flipped)  # type: ignore[union-attr]
                                         for n in (1, 2, 3)), timeout=3.0, interval=0.02)
            await eventually(lambda: streams(d, False, asleep) == set(slots.values()), timeout=3.0, interval=0.05)
            assert not d.lines(r"busted")
            # the wake-up and the player-success clips reach the robot after the win
            wake, sad = group_heads(rs, "GuardDogTimeout"), group_heads(rs, "GuardDogPlayerSuccess")
            await eventually(lambda: clip_starts(d.messages, beaten, sad), timeout=20.0, interval=0.1)
            assert clip_starts(d.messages, beaten, wake)[0] < clip_starts(d.messages, beaten, sad)[0]

            # the second game: asleep again, then cube 2 is carried off
            await eventually(lambda: streams(d, True, beaten) == set(slots.values()), timeout=40.0, interval=0.05)
            again = d.now()
            await asyncio.sleep(2.5)                  # past the grace period
            d.sim.move_cube(2, 3.0)
            cube2 = d.sim.cubes.cube(2)
            assert cube2 is not None
            await eventually(lambda: near(cube2.on_colors()[0], being_moved), timeout=3.0, interval=0.02)
            caught = await d.line(r"GuardDog: busted: cube \d moved too much", timeout=5.0, after=again)
            assert caught - again < 7.0
            await eventually(lambda: all(near(d.sim.cubes.cube(n).on_colors()[0], busted)  # type: ignore[union-attr]
                                         for n in (1, 2, 3)), timeout=3.0, interval=0.02)
            await eventually(lambda: clip_starts(d.messages, caught, group_heads(rs, "GuardDogBusted")),
                             timeout=10.0, interval=0.1)
        finally:
            d.signal(signal.SIGINT)
            code = await d.wait(20.0)
            await d.close()
        assert code == 0, d.text[-3000:]

    run_on_virtual_clock(body(), timeout=150)


def test_keep_away_pounces_when_the_teased_cube_stops_and_misses_one_pulled_away(
        tmp_path: Path, sample_resources: Path) -> None:
    """KeepAway from the project's file: a cube moved about and then still is pounced on and caught;
    the next time it is pulled away as the pounce begins, and the pounce misses."""
    (tmp_path / "tease.yaml").write_text(
        "name: tease\n"
        "behaviors:\n"
        "  KeepAway: {rounds: 2, settle_s: [0.5, 0.6], escape_s: 1.0}\n"
        "root:\n"
        "  type: sequence\n"
        "  children:\n"
        "    - {type: wait, params: {seconds: 2}}\n"
        "    - {behavior: KeepAway}\n"
        "    - {type: wait, params: {seconds: 600}}\n")
    rs = ResourceSet.load([sample_resources, RESOURCES])
    ready = file_color(RESOURCES / "cozmo_resources", "pounceReady")
    caught_color = file_color(RESOURCES / "cozmo_resources", "pounceCaught")
    missed_color = file_color(sample_resources, "cubePouncePlayerWin")
    pounce = group_heads(rs, "PouncePounce")

    async def body() -> None:
        d = await start_virtual(tmp_path, "--personality", "tease.yaml", "--resources", str(sample_resources),
                        "--resources", str(RESOURCES))
        try:
            await eventually(lambda: d.sim.cubes.slot_of(1) is not None, timeout=10.0, interval=0.05)
            cube = d.sim.cubes.cube(1)
            assert cube is not None
            await eventually(lambda: near(cube.on_colors()[0], ready), timeout=15.0, interval=0.05)
            teased = d.now()
            d.sim.move_cube(1, 1.0)                    # wiggled for a second, then still
            caught = await d.line(r"KeepAway: pounce 1 caught the cube", timeout=10.0)
            assert clip_starts(d.messages, teased, pounce), d.text
            (lunge,) = clip_starts(d.messages, teased, pounce)
            assert 1.6 < lunge - teased < 4.0          # ObjectStoppedMoving ≈ 1.6 s, then its pause
            await eventually(lambda: near(cube.on_colors()[0], caught_color), timeout=3.0, interval=0.02)
            await eventually(lambda: near(cube.on_colors()[0], ready), timeout=15.0, interval=0.05)
            teased = d.now()
            d.sim.move_cube(1, 1.0)
            # the pounce's clip begins (the first clip after the cube's ObjectStoppedMoving, 1.6 s on)
            await d.message("StartAnimation", timeout=6.0, after=teased + 1.65)
            d.sim.move_cube(1, 0.3)                    # pulled away as it pounces
            await d.line(r"KeepAway: pounce 2 missed: pulled away", timeout=3.0)
            await eventually(lambda: near(cube.on_colors()[0], missed_color), timeout=3.0, interval=0.02)
            await d.line(r"KeepAway: game over, 1 of 2 pounces caught", timeout=15.0)
            assert caught < teased
        finally:
            d.signal(signal.SIGINT)
            code = await d.wait(20.0)
            await d.close()
        assert code == 0, d.text[-3000:]

    run_on_virtual_clock(body(), timeout=120)
