"""``run --seed N``: the daemon's random choices replay from run to run.

The daemon as a subprocess against the simulator over UDP, twice with the same seed: the first
decisions of the default personality (which idle fidget, which clip of a group: the brain's and
the animation controller's random picks) come out the same. The robot and the clock still differ
between runs, so only the decisions of the first seconds are compared.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .conftest import run
from .daemon_harness import start

pytestmark = pytest.mark.e2e


async def _decisions(tmp_path: Path, seed: int) -> tuple[list[str], str]:
    d = await start(tmp_path, "--seed", str(seed), "--duration", "20")
    try:
        await d.line(r"doing .*", timeout=20)
        # the first three decisions: the branches, without the reasons (which give times)
        for n in range(3):
            if len(d.lines(r"doing ")) > n:
                continue
            await d.line(r"doing .*", after=d.lines(r"doing ")[-1][0], timeout=20)
        branches = [re.sub(r" - because .*", "", line.split("doing ", 1)[1]) for _, line in d.lines(r"doing ")[:3]]
        return branches, d.text
    finally:
        await d.close()


def test_the_same_seed_makes_the_same_first_decisions(tmp_path: Path) -> None:
    async def body() -> None:
        first, text = await _decisions(tmp_path, 11)
        assert re.search(r"running \S+ at 10 Hz .*, seed 11", text), text[-2000:]
        second, _ = await _decisions(tmp_path, 11)
        assert first == second, f"{first}\n{second}"

    run(body(), timeout=120)
