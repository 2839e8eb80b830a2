"""A new heartbeat rate (a re-read config's ``heartbeat_hz``) reaches the animation clock too.

The brain's beats come on the animation controller's frame slots, and the controller prepares
the frames between two beats a read ahead, up to the next beat's slot: it must know how many
slots a beat spans. At 10 Hz that is 3; at 15 Hz, 2; at 12 Hz no whole number (the beats fall
between slots, and the controller prepares each frame at its own tick). A simulated day in
virtual time changes the rate as a SIGHUP would (:meth:`brain.engine.Brain.set_rate`, what the
daemon's config reload calls) and checks that each beat then falls on a slot the controller
keeps for beats.
"""

from __future__ import annotations

import itertools
from typing import Any

from brain.app.simulate import run_virtual, simulate

from .conftest import REPO

#: beat number at which the rate changes, and the new rate
CHANGES = {20: 15.0, 60: 12.0, 100: 10.0, 140: 15.0}


def test_a_new_heartbeat_rate_keeps_the_beats_on_the_slots_the_animation_clock_keeps_for_them() -> None:
    beats: list[tuple[float, float, int, float]] = []  # at, rate, slots per beat, the controller's beat slot

    def watch(brain: Any) -> None:
        def beat(snap: Any) -> None:
            ctl = brain.controller
            beats.append((snap.at, brain.heartbeat.rate_hz, ctl.beat_every, ctl.next_beat_after(snap.at - 0.01)))
            if snap.beat in CHANGES:
                brain.set_rate(CHANGES[snap.beat])
        brain.heartbeat.subscribe("snapshot", beat)

    run_virtual(simulate(REPO / "trees" / "default.yaml", [REPO / "resources"], hours=20 / 3600, seed=1,
                         progress=False, on_start=watch))
    assert len(beats) > 180
    every = {rate: {n for _, r, n, _ in beats if r == rate} for rate in (10.0, 12.0, 15.0)}
    assert every == {10.0: {3}, 12.0: {1}, 15.0: {2}}, every
    # (the first beat comes at the start, before the schedule)
    for (before, rate, _, _), (at, new_rate, slots, slot) in itertools.pairwise(beats[1:]):
        if new_rate != rate:
            continue  # the first beat of a new rate's schedule
        assert abs((at - before) - 1.0 / rate) < 1e-6, (before, at, rate)
        if slots > 1:  # (at 12 Hz beats fall between slots, and no frame is prepared ahead)
            assert abs(at - slot) < 1e-6, (at, slot, rate)  # the controller's own beat slot
