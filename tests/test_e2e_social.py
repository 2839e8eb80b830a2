"""Singing, PlayAnimWithFace and RequestGameSimple from the app's real files, end to end.

The daemon runs a personality that plays the real ``Singing_RowYourBoat``, a real
PlayAnimWithFace file (its clip swapped for one the project ships, through the personality's
``params``) and the real RequestSpeedTap and RequestMemoryMatch files, with the real resource
sample searched first and the project's resources filling in the clips; the simulator shows what
reached the robot: the song's own clip, the turn to the person, the request, its idle and deny
clips, and the pleased answer to a poke.

The subject is what the behaviours make the robot do over half a minute or more, not the wire:
the daemon runs in the test's process on the virtual clock (:mod:`tests.virtual_daemon`), so a
song takes the time the machine needs to compute it, and a loaded machine cannot make its eyes
miss the person.
"""

from __future__ import annotations

import math
import signal
from pathlib import Path

import pytest

from brain.assets.resource_set import ResourceSet
from driver.sim.script import parse_script

from .clip_spans import clip_heads, clip_started, clip_starts, group_heads
from .conftest import eventually
from .daemon_harness import RESOURCES, Daemon
from .virtual_daemon import run_on_virtual_clock, start_virtual

pytestmark = pytest.mark.e2e


def _bearing_deg(d: Daemon, name: str) -> float:
    person = d.sim.room.people[name]
    b = d.sim.body
    world = math.atan2(person.y_mm - b.y_mm, person.x_mm - b.x_mm)
    return math.degrees(math.atan2(math.sin(world - b.angle_rad), math.cos(world - b.angle_rad)))


def test_sings_turns_to_the_person_asks_for_games(tmp_path: Path, sample_resources: Path) -> None:
    pytest.importorskip("skimage", reason="the face photographs come from scikit-image ([test] extra)")
    rs = ResourceSet.load([sample_resources, RESOURCES])

    def heads(trigger: str) -> list[list[int]]:
        return group_heads(rs, trigger)  # the installed clips the trigger may play

    song = clip_heads(rs, "anim_cozmosings_rowyourboat_01")
    (tmp_path / "social.yaml").write_text(
        "name: social\n"
        "root:\n"
        "  type: sequence\n"
        "  children:\n"
        "    - {behavior: Singing_RowYourBoat}\n"
        "    - {behavior: Needs_SevereLowEnergyRequest, params: {animTriggers: [Happy]}}\n"
        "    - {behavior: RequestSpeedTap, params: {minRequestDelay_s: 4}}\n"
        "    - {behavior: RequestMemoryMatch, params: {minRequestDelay_s: 30}}\n"
        "    - {type: wait, params: {seconds: 300}}\n")

    async def body() -> None:
        d = await start_virtual(tmp_path, "--personality", "social.yaml", "--resources", str(sample_resources),
                        "--resources", str(RESOURCES), vision=True)
        msgs = d.messages
        try:
            t0 = d.now()
            # 16° to the left: well inside the picture (±30°) wherever the song takes the head, yet
            # more than the 10° of the turn to her. At 22° her face was near the picture's edge, and
            # in a full-suite run the loaded machine's vision had not found her when the song ended
            (step,) = parse_script("- {at: 0, face: alice, bearing_deg: 16, distance_m: 0.6, height_m: 0.25}\n")
            d.sim.run_step(step)
            # the song's own clip (get-in, song, get-out): its notes on its beats
            await eventually(lambda: clip_started(msgs, t0, [song]) is not None, timeout=25.0, interval=0.2)
            sung = clip_started(msgs, t0, [song])
            assert sung is not None
            # then it turns to the person it saw and plays its clip to her (the get-out before it
            # is a happy clip too: the second one after the song is hers)
            # (a machine loaded by other tests slows the vision and the beats: the waits have margin)
            await eventually(lambda: abs(_bearing_deg(d, "alice")) < 10.0, timeout=30.0, interval=0.1)
            happy = heads("Happy")
            await eventually(lambda: len(clip_starts(msgs, sung, happy)) >= 2, timeout=20.0, interval=0.1)
            # a game request nobody answers: the request, its idle clip while it waits, the deny clip.
            # The request is told, as the deny is, by the branch that plays it and the clip that then
            # reaches the robot: its two head keyframes alone also match a happy or initial clip still
            # arriving, and on a loaded machine the turn to the person may end after the request began
            request = await d.line(r"the request > RequestGameSpeedTapRequest0", timeout=60.0, after=sung)
            asked, _ = await d.message("StartAnimation", timeout=5.0, after=request - 0.5)
            # the deny clip: the branch that plays it, and a clip reaching the robot then (a machine loaded
            # by other tests may skip a late frame of it, so its head keyframes are not all asked for)
            chose = await d.line(r"ignored > RequestGameSpeedTapDeny0", timeout=30.0, after=asked)
            denied, _ = await d.message("StartAnimation", timeout=5.0, after=chose - 0.5)
            assert denied - asked > 4.0, (asked, denied)
            assert clip_started(msgs, asked, heads("RequestGameSpeedTapIdle0")) is not None  # it idled while waiting
            # the next request is answered with a poke: pleased, not denied (the poke comes once the
            # branch plays the request itself and its clip reaches the robot, told as the speed-tap
            # request was: the request's head keyframes alone also match the start of the clip
            # before it, and a loaded machine may skip a late frame of it)
            memory = await d.line(r"the request > RequestGameMemoryMatchRequest0", timeout=30.0, after=denied)
            await d.message("StartAnimation", timeout=5.0, after=memory - 0.5)
            (poke,) = parse_script("- {at: 0, event: poke}\n")
            poked = d.now()
            d.sim.run_step(poke)
            await eventually(lambda: clip_started(msgs, poked, happy) is not None, timeout=20.0, interval=0.1)
            pleased = clip_started(msgs, poked, happy)
            assert pleased is not None and pleased - poked < 5.0
            assert clip_started(msgs, poked, heads("RequestGameMemoryMatchDeny0")) is None
        except AssertionError as exc:  # say what the daemon was doing
            raise AssertionError(f"{exc}; the daemon's log:\n{d.text[-6000:]}") from None
        finally:
            d.signal(signal.SIGINT)
            code = await d.wait(20.0)
            await d.close()
        assert code == 0, d.text[-3000:]

    run_on_virtual_clock(body(), timeout=240)


def test_fist_bump_bumped_then_left_hanging(tmp_path: Path, sample_resources: Path) -> None:
    """The real FistBump file twice: the first time a knuckle knocks the raised lift (the simulator's
    fist_bump) and the success clip follows; the second time nobody does: it asks again, then is
    left hanging (the sad clip), and no success clip comes."""
    pytest.importorskip("skimage", reason="the face photographs come from scikit-image ([test] extra)")
    rs = ResourceSet.load([sample_resources, RESOURCES])

    def heads(trigger: str) -> list[list[int]]:
        return group_heads(rs, trigger)  # the installed clips the trigger may play

    ask, happy, sad = heads("FistBumpRequestOnce"), heads("FistBumpSuccess"), heads("FistBumpLeftHanging")
    (tmp_path / "bump.yaml").write_text(
        "name: bump\n"
        "root:\n"
        "  type: sequence\n"
        "  children:\n"
        "    - {type: wait, params: {seconds: 3}}\n"      # the face is seen first
        "    - {behavior: FistBump}\n"
        "    - {type: wait, params: {seconds: 2}}\n"
        "    - {behavior: FistBump}\n"
        "    - {type: wait, params: {seconds: 300}}\n")

    async def body() -> None:
        d = await start_virtual(tmp_path, "--personality", "bump.yaml", "--resources", str(sample_resources),
                        "--resources", str(RESOURCES), vision=True)
        msgs = d.messages
        try:
            t0 = d.now()
            (step,) = parse_script("- {at: 0, face: alice, bearing_deg: 15, distance_m: 0.6, height_m: 0.25}\n")
            d.sim.run_step(step)
            await eventually(lambda: clip_started(msgs, t0, ask) is not None, timeout=15.0, interval=0.05)
            asked = clip_started(msgs, t0, ask)
            assert asked is not None
            # the fist is up and still; a knuckle knocks it
            await eventually(lambda: d.now() - asked > 2.6, timeout=5.0, interval=0.05)
            (bump,) = parse_script("- {at: 0, event: fist_bump}\n")
            bumped = d.now()
            d.sim.run_step(bump)
            await eventually(lambda: clip_started(msgs, bumped, happy) is not None, timeout=5.0, interval=0.05)
            pleased = clip_started(msgs, bumped, happy)
            assert pleased is not None and pleased - bumped < 2.0, pleased - bumped
            # the second time nobody bumps: asked twice, then left hanging
            await eventually(lambda: len(clip_starts(msgs, pleased, ask)) >= 2, timeout=25.0, interval=0.1)
            again = clip_starts(msgs, pleased, ask)
            await eventually(lambda: clip_started(msgs, again[1], sad) is not None, timeout=15.0, interval=0.1)
            assert clip_started(msgs, again[0], happy) is None  # no success without a bump
        finally:
            d.signal(signal.SIGINT)
            code = await d.wait(20.0)
            await d.close()
        assert code == 0, d.text[-3000:]

    run_on_virtual_clock(body(), timeout=150)


def test_peekaboo_two_peeks_then_happy(tmp_path: Path, sample_resources: Path) -> None:
    """The real FPPeekABoo file, held to two peeks: it asks, the person hides (leaves the picture)
    and comes back: surprised; it asks again, she hides and comes back: it ends happy."""
    pytest.importorskip("skimage", reason="the face photographs come from scikit-image ([test] extra)")
    rs = ResourceSet.load([sample_resources, RESOURCES])

    def heads(trigger: str) -> list[list[int]]:
        return group_heads(rs, trigger)  # the installed clips the trigger may play

    request, surprised, happy = heads("PeekABooLowIntensity"), heads("PeekABooSurprised"), heads("PeekABooGetOutHappy")
    (tmp_path / "peek.yaml").write_text(
        "name: peek\n"
        "root:\n"
        "  type: sequence\n"
        "  children:\n"
        "    - {type: wait, params: {seconds: 3}}\n"
        "    - {behavior: FPPeekABoo, params: {minTimesPeekBeforeQuit: 2, maxTimesPeekBeforeQuit: 2}}\n"
        "    - {type: wait, params: {seconds: 300}}\n")
    here = "- {at: 0, face: alice, bearing_deg: 10, distance_m: 0.6, height_m: 0.25}\n"

    async def body() -> None:
        d = await start_virtual(tmp_path, "--personality", "peek.yaml", "--resources", str(sample_resources),
                        "--resources", str(RESOURCES), vision=True)
        msgs = d.messages
        try:
            t0 = d.now()
            d.sim.run_step(parse_script(here)[0])
            after = t0
            for peek in (1, 2):
                await eventually(lambda a=after: clip_started(msgs, a, request) is not None, timeout=20.0,
                                 interval=0.05)
                asked = clip_started(msgs, after, request)
                assert asked is not None
                await eventually(lambda a=asked: d.now() - a > 3.0, timeout=5.0, interval=0.05)
                d.sim.run_step(parse_script("- {at: 0, face_leaves: alice}\n")[0])  # hides her face
                await eventually(lambda a=asked: d.now() - a > 6.0, timeout=5.0, interval=0.05)
                back = d.now()
                d.sim.run_step(parse_script(here)[0])  # peekaboo!
                answer = surprised if peek == 1 else happy
                await eventually(lambda b=back, c=answer: clip_started(msgs, b, c) is not None, timeout=8.0,
                                 interval=0.05)
                after = back
        finally:
            d.signal(signal.SIGINT)
            code = await d.wait(20.0)
            await d.close()
        assert code == 0, d.text[-3000:]

    run_on_virtual_clock(body(), timeout=150)
