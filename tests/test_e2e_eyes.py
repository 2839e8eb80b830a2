"""The default personality with eyes, end to end: the daemon as a subprocess, the simulator's room over UDP.

A person appears 40° to the robot's left, outside the camera's view: the robot searches, turns
until she is within 10° of its heading and greets her (the greeting in its log); she steps to
its right and it follows (she walks there, seen on the way); a ball rolls in front of it and it
pounces; she leaves, and after a while alone it searches again. The personality is the default
one with shorter waits for being alone (a file that extends it), so the test takes a minute, not
many. It runs on a clean link and again with a tenth of the datagrams lost each way.

The step aside runs once more in virtual time, with four datagrams in ten lost while she walks:
most camera frames of her walk never arrive, yet the robot keeps her as the face it follows.
"""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest

from driver.sim.script import parse_script
from driver.sim.server import SimulatedCozmo

from .conftest import REPO, run
from .daemon_harness import RESOURCES, Daemon, start
from .virtual_daemon import VirtualDaemon, run_on_virtual_clock, start_virtual

pytestmark = pytest.mark.e2e


def _bearing_deg(sim: SimulatedCozmo, name: str) -> float:
    """Where the person stands from the simulated robot's heading (degrees, left positive)."""
    person = sim.room.people[name]
    b = sim.body
    world = math.atan2(person.y_mm - b.y_mm, person.x_mm - b.x_mm)
    return math.degrees(math.atan2(math.sin(world - b.angle_rad), math.cos(world - b.angle_rad)))


def _step(d: Daemon | VirtualDaemon, text: str) -> float:
    (step,) = parse_script(f"- {text}\n")
    d.sim.run_step(step)
    return d.now()


async def _facing(d: Daemon | VirtualDaemon, name: str, within_deg: float, timeout: float) -> None:
    loop = asyncio.get_running_loop()
    since = loop.time()
    deadline = since + timeout
    while abs(_bearing_deg(d.sim, name)) > within_deg:
        if loop.time() >= deadline:
            story = "\n".join(line for t, line in d.log if t > since - 2)
            raise AssertionError(f"{name} is still {_bearing_deg(d.sim, name):.0f}° away\n{story}")
        await asyncio.sleep(0.1)


@pytest.mark.parametrize("loss", [0.0, 0.1], ids=["clean", "10% loss"])
def test_it_finds_greets_follows_and_misses_a_person_and_pounces_on_a_ball(tmp_path: Path, loss: float) -> None:
    pytest.importorskip("skimage", reason="the face photographs come from scikit-image ([test] extra)")
    (tmp_path / "eyes.yaml").write_text(
        f"extends: {REPO / 'trees' / 'default.yaml'}\nname: eyes\n"
        "parameters: {alone_after_s: 12, search_cooldown_s: 5}\n")

    async def body() -> None:
        d = await start(tmp_path, "--personality", "eyes.yaml", "--resources", str(RESOURCES), vision=True)
        d.sim.faults.loss = loss  # each way, per datagram: camera frames lose chunks, commands are resent
        try:
            await d.line(r"vision on")
            t0 = _step(d, "{at: 0, face: alice, bearing_deg: 40, distance_m: 0.6, height_m: 0.25}")
            assert abs(_bearing_deg(d.sim, "alice")) > 30  # outside the camera's view
            # A search can run out of its 30 s without her coming into view (it happened once with
            # 10 % loss on a loaded machine); the next search, after the cooldown, finds her.
            greeted = await d.line(r"doing .*greet > .*AcknowledgeFace", after=t0, timeout=90)
            await d.line(r"AcknowledgeFace > follow the face > greeting", after=greeted, timeout=10)
            await _facing(d, "alice", 10, timeout=10)

            # she steps to its right, out of the picture (its edge is at 29°): it sees
            # her on the way and follows her, without losing her and searching
            heading = math.degrees(d.sim.body.angle_rad)
            moved = _step(d, "{at: 0, face: alice, bearing_deg: -30}")
            await _facing(d, "alice", 10, timeout=20)
            assert abs(math.degrees(d.sim.body.angle_rad) - heading) > 12
            assert not d.lines(r"FindFaces", after=moved), d.text[-3000:]

            # with her in view its head is up and the floor out of the picture: it looks towards the
            # motion first, and pounces once it sees it on the floor (a look may come too late for
            # one swing of the ball, so the ball keeps rolling for a few looks). Once (10 % loss,
            # the full suite's load) a flickering face's glimpse, a game and a greeting took the
            # whole 30 s of the roll: then the ball rolls a second time.
            for attempt in range(2):
                rolled = _step(d, "{at: 0, motion: ground, bearing_deg: 0, for: 30}")
                try:
                    await d.line(r"doing .*PounceOnMotion .*PouncePounce", after=rolled, timeout=35)
                    break
                except AssertionError:
                    if attempt:
                        raise

            # Alone, it goes looking for people once the ball is still: the roll may go on for
            # up to 30 s after the first pounce and a pounce begun just before its end finishes
            # some 8 s later (once, under the full suite's load, it was still pouncing 39 s after).
            left = _step(d, "{at: 0, face_leaves: alice}")
            await d.line(r"doing .*find people > .*FindFaces", after=left, timeout=60)
        finally:
            await d.close()

    run(body(), timeout=280)


@pytest.mark.parametrize("seed", range(6))
def test_a_person_stepping_aside_is_followed_when_most_frames_of_her_walk_are_lost(tmp_path: Path, seed: int) -> None:
    """Four datagrams in ten lost each way while she walks 30° aside: nearly nine frames in ten of
    her walk never arrive whole (a frame is four datagrams), and the few that do find her far from
    where a look at her last place would search. The robot still follows her as the face it greets
    (no search for people) and faces her again within a few seconds. Without the tracker's
    velocity, its reach that grows while a face is unseen and the whole-picture look after a missed
    one, she is lost in seeds 1, 4 and 5 and found only by the search for people 12 s later."""
    pytest.importorskip("skimage", reason="the face photographs come from scikit-image ([test] extra)")
    (tmp_path / "eyes.yaml").write_text(
        f"extends: {REPO / 'trees' / 'default.yaml'}\nname: eyes\n"
        "parameters: {alone_after_s: 12, search_cooldown_s: 5}\n")

    async def body() -> None:
        d = await start_virtual(tmp_path, "--personality", "eyes.yaml", "--resources", str(RESOURCES),
                                "--seed", str(seed), vision=True)
        try:
            await d.line(r"vision on")
            _step(d, "{at: 0, face: alice, bearing_deg: 40, distance_m: 0.6, height_m: 0.25}")
            await d.line(r"AcknowledgeFace > follow the face > greeting", timeout=90)
            await _facing(d, "alice", 10, timeout=10)
            heading = math.degrees(d.sim.body.angle_rad)
            d.sim.faults.reseed(seed)
            d.sim.faults.loss = 0.4
            moved = _step(d, "{at: 0, face: alice, bearing_deg: -30}")
            await _facing(d, "alice", 10, timeout=8)
            assert abs(math.degrees(d.sim.body.angle_rad) - heading) > 12
            assert not d.lines(r"FindFaces", after=moved), d.text[-3000:]
        finally:
            d.sim.faults.loss = 0.0
            await d.close()

    run_on_virtual_clock(body(), timeout=120)
