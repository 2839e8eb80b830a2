"""Cube light animations to LightState records, and the base/on-top layering of CubeLights."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from brain.assets.resource_set import ResourceSet
from brain.cube_lights import CubeLights, light_states, rotation_frames
from driver import events as ev
from driver.protocol import rgb555

from .conftest import REPO

RESOURCES = REPO / "resources"


@pytest.fixture
def rs(sample_resources: Path) -> ResourceSet:
    return ResourceSet.load([sample_resources, RESOURCES])


class CubeWire:
    """Where the lights go: (cube, first LED's on colour, rotation) in the order sent."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, int, int]] = []

    def set_cube_lights(self, object_id: int, states: list[Any], rotation_frames: int = 0) -> None:
        self.sent.append((object_id, int(states[0].on_color), rotation_frames))


def test_a_pattern_in_thirty_millisecond_frames(rs: ResourceSet) -> None:
    wake = rs.cube_lights["wakeUp"].stages[0].pattern       # on 10, off 380, fade 200/50, offsets 0..300 ms
    states = light_states(wake)
    assert [s.offset for s in states] == [0, 3, 7, 10]
    assert (states[0].on_frames, states[0].off_frames) == (0, 13)
    assert (states[0].transition_on_frames, states[0].transition_off_frames) == (7, 2)
    assert states[0].on_color == rgb555(0, 255, 0) and states[0].off_color == 0
    connected = rs.cube_lights["connected"].stages[0].pattern   # 5000 ms off: 167 frames, in a byte
    assert light_states(connected)[0].off_frames == 167
    assert rotation_frames(rs.cube_lights["cubePouncePlayerWin"].stages[0].pattern) == 3


def test_timed_lights_on_top_fall_back_to_the_base_and_held_ones_wait_to_be_stopped(rs: ResourceSet) -> None:
    wire = CubeWire()
    lights = CubeLights(wire, rs.cube_lights, {k: p.target for k, p in rs.cube_triggers.items()})
    assert lights.play("Flash", 0.0) == []                    # no cube connected: nothing sent
    lights.update([ev.CubeConnection(0.0, object_id=2, factory_id=7, connected=True)], 0.0)
    assert lights.playing(2) == "Connected" and len(wire.sent) == 1
    assert lights.play("Flash", 1.0) == [2]                   # 600 ms
    lights.update([], 1.5)
    assert lights.playing(2) == "Flash"
    lights.update([], 1.7)
    assert lights.playing(2) == "Connected" and wire.sent[-1] == wire.sent[0]
    lights.play("CubePouncePlayerWin", 2.0)                   # holds (0 ms)
    lights.update([], 60.0)
    assert lights.playing(2) == "CubePouncePlayerWin"
    lights.stop("Flash", 60.0)                                # not what plays: nothing changes
    assert lights.playing(2) == "CubePouncePlayerWin"
    lights.stop(None, 60.0)
    assert lights.playing(2) == "Connected" and wire.sent[-1] == wire.sent[0]
    assert not lights.knows("NoSuchLight") and lights.play("NoSuchLight", 61.0) == []
    lights.update([ev.CubeConnection(62.0, object_id=2, factory_id=7, connected=False)], 62.0)
    assert lights.playing(2) is None and lights.play("Flash", 63.0) == []
