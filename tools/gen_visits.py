#!/usr/bin/env python3
"""Write a simulator timeline of a visited day: a person comes by every 20–40 minutes.

``cozmo-brain simulate --script`` takes it, so a personality can be judged on a day with people
in it, not only on a quiet one. Each visit mixes what people do: most visitors sit down in front
of the robot (a ``face`` step placed where its camera sees it), move about a little, touch it a
few times (a poke, a pick-up, a cube tap, the button) and leave (``face_leaves``); some only pass
by and look; some only give it a poke on their way. The same ``--seed`` writes the same day.

    python tools/gen_visits.py --hours 8 --seed 14 > tests/data/visited_day.yaml

``tests/data/visited_day.yaml`` is this tool's output with the defaults; a test keeps the two
in step.
"""

from __future__ import annotations

import argparse
import random
import sys

#: Defaults of the day kept in tests/data/visited_day.yaml.
DEFAULT_HOURS = 8.0
DEFAULT_SEED = 14
PEOPLE = ("alice", "bob", "carol", "dan")
TOUCHES = ("poke", "pick_up", "cube_tap", "button")


def _touch(rng: random.Random, at: float) -> str:
    kind = rng.choice(TOUCHES)
    if kind == "pick_up":
        return f"- {{at: {at:.0f}, event: pick_up, for: {rng.uniform(2.0, 6.0):.1f}}}"
    if kind == "cube_tap":
        return f"- {{at: {at:.0f}, event: cube_tap, object_id: 1, taps: {rng.choice((1, 1, 2))}}}"
    return f"- {{at: {at:.0f}, event: {kind}}}"


def _face(name: str, at: float, bearing: float, distance: float | None = None) -> str:
    where = f", distance_m: {distance:.2f}, height_m: 0.25, photo: astronaut" if distance is not None else ""
    return f"- {{at: {at:.0f}, face: {name}, bearing_deg: {bearing:.0f}{where}}}"


def visits(hours: float = DEFAULT_HOURS, seed: int = DEFAULT_SEED) -> str:
    """The timeline's YAML text."""
    rng = random.Random(seed)
    end = hours * 3600.0
    lines = [f"# A visited day: a person every 20-40 minutes ({hours:g} h, seed {seed}; written by",
             "# tools/gen_visits.py - edit the tool, not this file). Faces are placed in the camera's view.",
             "- {at: 1, event: cube_connect, object_id: 1}"]
    t = rng.uniform(20.0, 40.0) * 60.0
    n = 0
    while t < end - 120.0:
        name = PEOPLE[n % len(PEOPLE)]
        kind = rng.choices(("sit", "pass", "poke"), weights=(6, 2, 2))[0]
        if kind == "poke":
            lines.append(_touch(rng, t))
        else:
            stay = rng.uniform(120.0, 360.0) if kind == "sit" else rng.uniform(15.0, 45.0)
            lines.append(_face(name, t, rng.uniform(-20.0, 20.0), rng.uniform(0.45, 0.9)))
            u = t + rng.uniform(15.0, 40.0)
            while kind == "sit" and u < t + stay - 10.0:
                if rng.random() < 0.3:
                    lines.append(_face(name, u, rng.uniform(-20.0, 20.0)))
                else:
                    lines.append(_touch(rng, u))
                u += rng.uniform(20.0, 70.0)
            lines.append(f"- {{at: {min(t + stay, end - 1.0):.0f}, face_leaves: {name}}}")
        n += 1
        t += rng.uniform(20.0, 40.0) * 60.0
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hours", type=float, default=DEFAULT_HOURS)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args(argv)
    sys.stdout.write(visits(args.hours, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
