"""What reaches the robot in a seeded simulated minute, against the record kept beside the tests.

Work that makes the daemon cheaper must not change what the robot shows: the face, its blinks,
the animations, the sounds, the motors. The default personality runs for one simulated minute
(seed 5) over the in-memory network, and every message the simulator acts on is listed as (ms
after the first one, message name, a digest of its bytes): a message of the animation stream
when the robot's audio clock plays it (hardware.md §4), which is what the robot shows and when,
whenever it arrived; any other message (and an abort, which acts at once) as it arrives.
``tests/data/stream_minute.txt`` keeps how many of each message came, and a hash of each
second's list; the test compares both.

A change meant to change the stream (a new behaviour, a different clip) records the new minute
with ``COZMO_BRAIN_RECORD_STREAM=1 pytest tests/test_stream_golden.py``; the file's diff then
shows which messages and which seconds moved.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections import Counter
from pathlib import Path
from typing import Any

from brain.app.simulate import run_virtual, simulate
from driver.animation.budget import ANIM_STREAM
from driver.protocol.registry import encode_body

from .conftest import REPO

RECORD = Path(__file__).parent / "data" / "stream_minute.txt"
SEED = 5


def _minute() -> list[tuple[int, str, str]]:
    received: list[tuple[float, Any]] = []

    def watch(sim: Any) -> None:
        loop = asyncio.get_running_loop()

        def arrived(msg: Any) -> None:
            if type(msg).__name__ not in ANIM_STREAM or type(msg).__name__ == "AbortAnimation":
                received.append((loop.time(), msg))  # acted on as it arrives

        sim.add_message_listener(arrived)
        sim.add_played_listener(lambda msg: received.append((loop.time(), msg)))

    run_virtual(simulate(REPO / "trees" / "default.yaml", [REPO / "resources"], hours=1 / 60, seed=SEED,
                         progress=False, watch_sim=watch))
    t0 = received[0][0]
    return [(round((t - t0) * 1000.0), type(msg).__name__,
             hashlib.blake2b(encode_body(msg), digest_size=6).hexdigest()) for t, msg in received]


def _summary(lines: list[tuple[int, str, str]]) -> list[str]:
    counts = Counter(name for _, name, _ in lines)
    out = [f"count {name} {n}" for name, n in sorted(counts.items())]
    seconds: dict[int, list[str]] = {}
    for ms, name, digest in lines:
        seconds.setdefault(ms // 1000, []).append(f"{ms} {name} {digest}")
    for second, entries in sorted(seconds.items()):
        digest = hashlib.blake2b("\n".join(entries).encode(), digest_size=8).hexdigest()
        out.append(f"second {second} {len(entries)} {digest}")
    return out


def test_a_seeded_minute_reaches_the_robot_as_recorded() -> None:
    summary = _summary(_minute())
    if os.environ.get("COZMO_BRAIN_RECORD_STREAM"):
        RECORD.write_text("\n".join(summary) + "\n", encoding="utf-8")
    expected = RECORD.read_text(encoding="utf-8").splitlines()
    assert summary[:1] and any(line.startswith("count DisplayImage ") for line in summary)
    moved = [f"- {a}\n+ {b}" for a, b in zip(expected, summary, strict=False) if a != b]
    assert summary == expected, (f"what reached the robot differs from {RECORD.name} "
                                 f"({len(expected)} lines recorded, {len(summary)} now):\n" + "\n".join(moved[:20]))
