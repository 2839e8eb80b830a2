"""Singing, PlayAnimWithFace and RequestGameSimple from the app's real files, end to end over UDP.

The daemon runs a personality that plays the real ``Singing_RowYourBoat``, a real
PlayAnimWithFace file (its clip swapped for one the project ships, through the personality's
``params``) and the real RequestSpeedTap and RequestMemoryMatch files, with the real resource
sample searched first and the project's resources filling in the clips; the simulator in the
test's process shows what reached the robot: the song's own clip, the turn to the person, the
request, its idle and deny clips, and the pleased answer to a poke.
"""

from __future__ import annotations

import math
import signal
from pathlib import Path

import pytest

from brain.assets.resource_set import ResourceSet
from driver.sim.script import parse_script

from .conftest import eventually, run
from .daemon_harness import RESOURCES, Daemon, start

pytestmark = pytest.mark.e2e


def _in_order(seq: list[int], part: list[int]) -> bool:
    """Whether ``part`` occurs in ``seq`` in order (a long head move arrives as several keyframes)."""
    it = iter(seq)
    return all(any(x == want for x in it) for want in part)


def _spans(d: Daemon, after: float) -> list[tuple[float, list[int]]]:
    """(start, head keyframe angles) of each clip that reached the simulator after ``after``."""
    starts = [t for t, _ in d.messages("StartAnimation", after)]
    out = []
    for i, begin in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else math.inf
        out.append((begin, [round(m.angle_deg) for _, m in d.messages("AnimHead", begin, end)]))
    return out


def _starts(d: Daemon, after: float, clips: list[list[int]]) -> list[float]:
    """When each clip that is one of ``clips`` (by their head keyframes) began reaching the
    simulator after ``after``."""
    return [begin for begin, heads in _spans(d, after)
            if heads and any(c and _in_order(heads, c) and heads[-1] == c[-1] for c in clips)]


def _played(d: Daemon, after: float, clips: list[list[int]]) -> float | None:
    """When the first of ``clips`` began reaching the simulator after ``after``."""
    return next(iter(_starts(d, after, clips)), None)


def _bearing_deg(d: Daemon, name: str) -> float:
    person = d.sim.room.people[name]
    b = d.sim.body
    world = math.atan2(person.y_mm - b.y_mm, person.x_mm - b.x_mm)
    return math.degrees(math.atan2(math.sin(world - b.angle_rad), math.cos(world - b.angle_rad)))


def test_sings_turns_to_the_person_asks_for_games(tmp_path: Path, sample_resources: Path) -> None:
    pytest.importorskip("skimage", reason="the face photographs come from scikit-image ([test] extra)")
    rs = ResourceSet.load([sample_resources, RESOURCES])

    def heads(trigger: str) -> list[list[int]]:
        group = rs.playable_group_for_trigger(trigger)
        assert group is not None, trigger
        return [[round(k.angle_deg) for k in rs.clips.get(m.name).head_angle] for m in group.members
                if m.name in rs.clips]

    song = [round(k.angle_deg) for k in rs.clips.get("anim_cozmosings_rowyourboat_01").head_angle]
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
        d = await start(tmp_path, "--personality", "social.yaml", "--resources", str(sample_resources),
                        "--resources", str(RESOURCES))
        try:
            t0 = d.now()
            (step,) = parse_script("- {at: 0, face: alice, bearing_deg: 22, distance_m: 0.6, height_m: 0.25}\n")
            d.sim.run_step(step)
            # the song's own clip (get-in, song, get-out): its notes on its beats
            await eventually(lambda: _played(d, t0, [song]) is not None, timeout=25.0, interval=0.2)
            sung = _played(d, t0, [song])
            assert sung is not None
            # then it turns to the person it saw and plays its clip to her (the get-out before it
            # is a happy clip too: the second one after the song is hers)
            await eventually(lambda: abs(_bearing_deg(d, "alice")) < 10.0, timeout=15.0, interval=0.1)
            turned = d.now()
            happy = heads("Happy")
            await eventually(lambda: len(_starts(d, sung, happy)) >= 2, timeout=10.0, interval=0.1)
            # a game request nobody answers: the request, its idle clip while it waits, the deny clip
            await eventually(lambda: _played(d, turned, heads("RequestGameSpeedTapRequest0")) is not None,
                             timeout=15.0, interval=0.1)
            asked = _played(d, turned, heads("RequestGameSpeedTapRequest0"))
            assert asked is not None
            await eventually(lambda: _played(d, asked, heads("RequestGameSpeedTapDeny0")) is not None,
                             timeout=15.0, interval=0.1)
            denied = _played(d, asked, heads("RequestGameSpeedTapDeny0"))
            assert denied is not None and denied - asked > 4.0, (asked, denied)
            assert _played(d, asked, heads("RequestGameSpeedTapIdle0")) is not None  # it idled while waiting
            # the next request is answered with a poke: pleased, not denied
            await eventually(lambda: _played(d, denied, heads("RequestGameMemoryMatchRequest0")) is not None,
                             timeout=15.0, interval=0.1)
            (poke,) = parse_script("- {at: 0, event: poke}\n")
            poked = d.now()
            d.sim.run_step(poke)
            await eventually(lambda: _played(d, poked, happy) is not None, timeout=10.0, interval=0.1)
            pleased = _played(d, poked, happy)
            assert pleased is not None and pleased - poked < 5.0
            assert _played(d, poked, heads("RequestGameMemoryMatchDeny0")) is None
        finally:
            d.signal(signal.SIGINT)
            code = await d.wait(20.0)
            await d.close()
        assert code == 0, d.text[-3000:]

    run(body(), timeout=150)
