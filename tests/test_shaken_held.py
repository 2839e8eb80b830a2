"""ReactToRobotShaken when the person keeps holding the robot after the shaking: the dizzy stop and
the held clip play, but no dizzy reaction (the app's: a reaction on the treads only), and the
reaction ends, rather than waiting for the robot to be put down.

The daemon runs on the virtual clock against the simulator (:mod:`tests.virtual_daemon`); the
test shakes the simulated robot, picks it up again the moment the shaking stops, and reads the
animation keyframes that reached the simulator.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from brain.assets.resource_set import ResourceSet

from .clip_spans import clip_started, group_heads
from .test_e2e_default import RESOURCES
from .virtual_daemon import run_on_virtual_clock, start_virtual

pytestmark = pytest.mark.e2e

SHAKEN = """\
name: shaken
reactions:
  RobotShaken: {behavior: ReactToRobotShaken, priority: 92}
root: {type: running}
"""


def _run(tmp_path: Path, held_after: bool) -> tuple[bool, bool, str]:
    """(the held clip played, a dizzy reaction played, the log) for a 3 s shake, held again after it or not."""
    rs = ResourceSet.load([RESOURCES])
    held = group_heads(rs, "DizzyStillPickedUp")
    dizzy = [c for t in ("DizzyReactionSoft", "DizzyReactionMedium", "DizzyReactionHard") for c in group_heads(rs, t)]
    personality = tmp_path / "shaken.yaml"
    personality.write_text(SHAKEN)

    async def body() -> tuple[bool, bool, str]:
        world = await start_virtual(tmp_path, "--personality", str(personality), "--resources", str(RESOURCES),
                                    "--duration", "60", ready=r"running \S+ at 10 Hz")
        sim = world.sim
        try:
            shaken = world.now()
            sim.body.shake(3.0)
            while sim.body.shaking:
                await asyncio.sleep(0.01)
            if held_after:
                sim.pick_up()  # the hands do not let go
            await world.line(r"reaction RobotShaken finished", timeout=15.0, after=shaken)
            if held_after:
                assert sim.body.picked_up, "put down before the reaction ended"
                sim.put_down()
            await asyncio.sleep(2.0)
            return (clip_started(world.messages, shaken, held) is not None,
                    clip_started(world.messages, shaken, dizzy) is not None, world.text)
        finally:
            world.signal(signal.SIGINT)
            code = await world.wait(20.0)
            await world.close()
            assert code == 0, world.text

    return run_on_virtual_clock(body(), timeout=120)


def test_still_held_after_the_shaking_no_dizzy_reaction_and_the_reaction_ends(tmp_path: Path) -> None:
    held, dizzy, log = _run(tmp_path, held_after=True)
    assert held, "the held clip did not play:\n" + log
    assert not dizzy, "a dizzy reaction played in the air"


def test_put_down_after_the_shaking_the_dizzy_reaction_plays(tmp_path: Path) -> None:
    held, dizzy, log = _run(tmp_path, held_after=False)
    assert dizzy, "no dizzy reaction on the treads:\n" + log
