"""The ``backpack_lights`` node: the colours a personality writes reach the robot's five LEDs.

The daemon runs a personality of nothing but backpack lights (names, ``#rrggbb``, 0-1 floats,
one, three or five colours, a built-in pattern) on the virtual clock against the simulator, and
the test reads the AnimBackpackLights words the simulator received. The expected words are the
robot's own format worked out by hand: five 15-bit RGB words (left, front, middle, back, right),
5 bits a channel (each 0-255 value rounded to the nearest of 32 levels, as the clips' and cubes'
lights are), red highest; three colours light the middle three LEDs.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from .conftest import eventually
from .test_e2e_default import RESOURCES
from .virtual_daemon import run_on_virtual_clock, start_virtual

pytestmark = pytest.mark.e2e

LIGHTS = """\
name: lights
root:
  type: sequence
  children:
    - {type: backpack_lights, params: {colors: ["#ff8000"]}}
    - {type: wait, params: {seconds: 0.5}}
    - {type: backpack_lights, params: {colors: [red, green, blue]}}
    - {type: wait, params: {seconds: 0.5}}
    - {type: backpack_lights, params: {colors: [[0.0, 1.0, 0.0]]}}
    - {type: wait, params: {seconds: 0.5}}
    - {type: backpack_lights, params: {colors: [white, off, [255, 0, 0], black, blue]}}
    - {type: wait, params: {seconds: 0.5}}
    - {type: backpack_lights, params: {pattern: sleep}}
    - {type: running}
"""

RED, GREEN, BLUE = 31 << 10, 31 << 5, 31
EXPECTED = [
    ((31 << 10) | (16 << 5),) * 5,  # #ff8000: 255 -> 31, 128 -> 15.56 -> 16, 0 -> 0 on every LED
    (0, RED, GREEN, BLUE, 0),  # three colours: the middle three
    (GREEN,) * 5,  # 0-1 floats
    (RED | GREEN | BLUE, 0, RED, 0, BLUE),  # five, in LED order
    (0, 6, 6, 6, 0),  # "sleep": dim blue (0, 0, 48) -> 5.84 -> 6 in the middle three
]


def test_the_colours_written_reach_the_leds_in_order(tmp_path: Path) -> None:
    personality = tmp_path / "lights.yaml"
    personality.write_text(LIGHTS)

    async def body() -> list[tuple[int, ...]]:
        world = await start_virtual(tmp_path, "--personality", str(personality), "--resources", str(RESOURCES),
                                    "--duration", "30", ready=r"running \S+ at 10 Hz")
        try:
            def lit() -> list[tuple[int, ...]]:
                words: list[tuple[int, ...]] = []
                for _, msg in world.messages("AnimBackpackLights"):
                    colours = tuple(msg.colors)
                    if colours != (0,) * 5 and (not words or words[-1] != colours):
                        words.append(colours)
                return words

            await eventually(lambda: len(lit()) >= len(EXPECTED), timeout=10.0, interval=0.1)
            return lit()
        finally:
            world.signal(signal.SIGINT)
            code = await world.wait(20.0)
            await world.close()
            assert code == 0, world.text

    assert run_on_virtual_clock(body(), timeout=120) == EXPECTED
