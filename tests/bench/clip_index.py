"""Benchmark: cold clip-index build over an app-sized animation library, against PyCozmo.

Generates 2,000 clips (20-60 keyframes each over head, lift, procedural face, backpack
lights, body motion and audio) in 700 .bin files in a temporary directory, then times,
each in a fresh Python process so nothing is cached in memory:

- ``ClipIndex.build`` (reads clip names only; target <= 1 s),
- PyCozmo 0.8.0's start-up loader on the same directory, ``anim_encoder.get_clip_metadata``
  (what ``pycozmo.Client.load_anims`` runs), and its full parser
  ``AnimClips.from_fb_file`` on every file (what older PyCozmo did at start-up),
- the first-play decode of one clip through the index.

Run: ``python tests/bench/clip_index.py [--clips N] [--files N] [--repeat N]``.
The files are freshly written, so the OS page cache is warm for every contender alike.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from driver.animation.binwrite import write_bin  # noqa: E402
from driver.animation.clip import (  # noqa: E402
    EYE_PARAMETERS,
    BackpackLights,
    BodyMotion,
    Clip,
    HeadAngle,
    LiftHeight,
    ProceduralFace,
    RobotAudio,
)


def make_clip(rng: random.Random, name: str) -> Clip:
    """A clip shaped like the app's: 20-60 keyframes spread over six tracks."""
    total = rng.randint(20, 60)
    counts = dict.fromkeys(("head", "lift", "face", "lights", "body", "audio"), 1)
    for _ in range(total - len(counts)):
        counts[rng.choices(list(counts), weights=(4, 3, 6, 1, 1, 1))[0]] += 1

    def times(n: int) -> list[int]:
        step = rng.choice((33, 66, 100))
        return [i * step for i in range(n)]

    head = tuple(HeadAngle(t, 100, rng.randint(-25, 44), rng.randint(0, 3)) for t in times(counts["head"]))
    lift = tuple(LiftHeight(t, 100, rng.randint(32, 92)) for t in times(counts["lift"]))
    face = tuple(
        ProceduralFace(
            t,
            rng.uniform(-5, 5),
            rng.uniform(-10, 10),
            rng.uniform(-10, 10),
            rng.uniform(0.8, 1.2),
            rng.uniform(0.8, 1.2),
            tuple(rng.uniform(-1, 1) for _ in EYE_PARAMETERS),
            tuple(rng.uniform(-1, 1) for _ in EYE_PARAMETERS),
        )
        for t in times(counts["face"])
    )
    lights = tuple(
        BackpackLights(t, 200, *[tuple(rng.random() for _ in range(3)) + (1.0,) for _ in range(5)])
        for t in times(counts["lights"])
    )
    radii = ("STRAIGHT", "TURN_IN_PLACE", str(rng.randint(-200, 200)))
    body = tuple(BodyMotion(t, 300, rng.choice(radii), rng.randint(-100, 100)) for t in times(counts["body"]))
    audio = tuple(RobotAudio(t, (rng.getrandbits(32),), 1.0, (1.0,), False) for t in times(counts["audio"]))
    return Clip(
        name,
        head_angle=head,
        lift_height=lift,
        procedural_face=face,
        backpack_lights=lights,
        body_motion=body,
        robot_audio=audio,
    )


def generate(directory: Path, clips: int, files: int, seed: int = 7) -> int:
    """Write the library; return the total number of keyframes."""
    rng = random.Random(seed)
    names = [f"anim_bench_{i:04d}_{rng.choice(('happy', 'sad', 'wave', 'look'))}" for i in range(clips)]
    per_file: list[list[str]] = [[] for _ in range(files)]
    for i, name in enumerate(names):
        per_file[i % files].append(name)
    keyframes = 0
    for f, group in enumerate(per_file):
        built = [make_clip(rng, n) for n in group]
        keyframes += sum(c.keyframe_count for c in built)
        (directory / f"anim_file_{f:03d}.bin").write_bytes(write_bin(built))
    return keyframes


def run_child(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; it prints one JSON object as its last line."""
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


OURS = """
import json, sys, time
t0 = time.perf_counter()
from pathlib import Path
from driver.animation.index import ClipIndex
t1 = time.perf_counter()
index = ClipIndex.build([Path({d!r})])
t2 = time.perf_counter()
name = index.names()[len(index) // 2]
clip = index.get(name)
t3 = time.perf_counter()
clip2 = index.get(name)
t4 = time.perf_counter()
print(json.dumps(dict(import_s=t1 - t0, build_s=t2 - t1, clips=len(index), files=index.files_scanned,
                      errors=len(index.errors), decoded_after_build=0, first_get_s=t3 - t2,
                      cached_get_s=t4 - t3, keyframes=clip.keyframe_count)))
"""

PYCOZMO_META = """
import json, logging, time
logging.disable(logging.CRITICAL)
t0 = time.perf_counter()
from pycozmo import anim_encoder
t1 = time.perf_counter()
meta = anim_encoder.get_clip_metadata({d!r})
t2 = time.perf_counter()
print(json.dumps(dict(import_s=t1 - t0, build_s=t2 - t1, clips=len(meta))))
"""

PYCOZMO_FULL = """
import glob, json, logging, os, time
logging.disable(logging.CRITICAL)
t0 = time.perf_counter()
from pycozmo import anim_encoder
t1 = time.perf_counter()
clips = {{}}
for fspec in sorted(glob.glob(os.path.join({d!r}, "*.bin"))):
    for clip in anim_encoder.AnimClips.from_fb_file(fspec).clips:
        clips[clip.name] = clip
t2 = time.perf_counter()
print(json.dumps(dict(import_s=t1 - t0, build_s=t2 - t1, clips=len(clips))))
"""


def best(code: str, repeat: int) -> dict:
    runs = [run_child(code) for _ in range(repeat)]
    return min(runs, key=lambda r: r["build_s"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=int, default=2000)
    parser.add_argument("--files", type=int, default=700)
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per contender (best is kept)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="clip_bench_") as tmp:
        d = Path(tmp)
        keyframes = generate(d, args.clips, args.files)
        size = sum(p.stat().st_size for p in d.glob("*.bin"))
        print(f"library: {args.clips} clips, {keyframes} keyframes, {args.files} .bin files, {size / 1e6:.1f} MB")

        ours = best(OURS.format(d=str(d)), args.repeat)
        meta = best(PYCOZMO_META.format(d=str(d)), args.repeat)
        full = best(PYCOZMO_FULL.format(d=str(d)), args.repeat)
        assert ours["clips"] == meta["clips"] == full["clips"] == args.clips, (ours, meta, full)

        print(
            f"cozmo-brain ClipIndex.build (cold process):   {ours['build_s'] * 1000:8.1f} ms"
            f"   (import {ours['import_s'] * 1000:.0f} ms)  target <= 1000 ms"
        )
        print(
            f"PyCozmo get_clip_metadata (its start-up):      {meta['build_s'] * 1000:8.1f} ms"
            f"   ratio {meta['build_s'] / ours['build_s']:.1f}x"
        )
        print(
            f"PyCozmo AnimClips.from_fb_file, every file:    {full['build_s'] * 1000:8.1f} ms"
            f"   ratio {full['build_s'] / ours['build_s']:.1f}x"
        )
        print(
            f"first play decode of one clip (index.get):    {ours['first_get_s'] * 1000:8.2f} ms"
            f"   ({ours['keyframes']} keyframes; that clip alone decoded and cached)"
        )
        print(f"second get of the same clip (cached):          {ours['cached_get_s'] * 1e6:8.1f} us")
        verdict = "PASS" if ours["build_s"] <= 1.0 else "FAIL"
        print(f"{verdict}: cold index build {ours['build_s'] * 1000:.0f} ms for {ours['clips']} clips")


if __name__ == "__main__":
    main()
