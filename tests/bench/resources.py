"""Benchmark: cold load + validation of a full-scale resource tree, against PyCozmo 0.8.0.

Generates a tree at the real Cozmo app's scale (2,000 clips in 700 .bin files, 600 groups,
300 behaviours, 60 activities, mood config, emotion events, reaction map; see
``gen_tree.py``) into a temporary directory, then times, on that same tree:

- ours: ``load_resource_set`` + ``validate`` (clip names indexed, clips decoded lazily);
- PyCozmo 0.8.0: the loaders ``pycozmo.brain.Brain.__init__`` calls — activities,
  behaviours, reaction map, emotion types and events, then ``Client.load_anims`` (clip
  metadata of every .bin, animation groups through the trigger map).

"Cold" means a fresh process: every measurement runs in a new Python process that imports
both sides' modules first (the figures are about loading resources, not Python start-up)
and then loads the tree exactly once, so nothing is cached in memory between runs. The
operating system's file cache is warm for both alike (the tree was just written). Each
side is measured ``--runs`` times, alternating which side goes first; the report gives the
median (and the range) of each, and the ratio of the medians. Targets: ours ≤ 1.5 s cold,
and ≥ 10× faster than PyCozmo. Run::

    python tests/bench/resources.py [--runs N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

TARGET_S = 1.5
TARGET_RATIO = 10.0


def import_everything() -> None:
    """Import both sides' modules up front: the figures are about loading resources, not Python start-up."""
    from pycozmo import activity, anim, anim_encoder, behavior, emotions  # noqa: F401

    import brain.assets  # noqa: F401
    import driver.animation.index  # noqa: F401  (ours imports it on first use)


def ours(parent: Path) -> dict[str, Any]:
    """Load and check the tree the way ``cozmo-brain check`` does; timed by the caller."""
    from brain.assets import load_resource_set, validate

    rs = load_resource_set([parent])
    result = validate(rs, implemented=set())
    counts = rs.counts()
    return {
        "clips": counts["animation clips"],
        "animation groups": counts["animation groups"],
        "behaviours": counts["behaviours"],
        "activities": counts["activities"],
        "errors": sum(1 for i in result.issues if i.severity.name == "ERROR"),
        "index_s": rs.clips.build_seconds if rs.clips is not None else 0.0,
    }


def pycozmo_loaders(parent: Path) -> dict[str, Any]:
    """The resource loading of ``pycozmo.brain.Brain.__init__`` and ``Client.load_anims``, without a robot."""
    from pycozmo import activity, anim, anim_encoder, behavior, emotions

    resource_dir = str(parent)
    anim_dir = os.path.join(resource_dir, "cozmo_resources", "assets", "animations")
    activities = activity.load_activities(resource_dir)
    behaviors = behavior.load_behaviors(resource_dir, None)  # the client is only stored by behaviours
    reactions = behavior.load_reaction_trigger_behavior_map(resource_dir)
    emotion_types = emotions.load_emotion_types(resource_dir)
    emotion_events = emotions.load_emotion_events(resource_dir)
    clip_metadata = anim_encoder.get_clip_metadata(anim_dir)
    groups = anim.load_animation_groups(resource_dir)
    return {
        "activities": len(activities),
        "behaviours": len(behaviors),
        "reaction triggers": len(reactions),
        "emotion types": len(emotion_types),
        "emotion events": len(emotion_events),
        "clips": len(clip_metadata),
        "animation groups": len(groups),
    }


SIDES = {"ours": ours, "pycozmo": pycozmo_loaders}


def child(side: str, parent: Path) -> int:
    """One cold measurement in this (fresh) process: import, then load once; print JSON."""
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("pycozmo").setLevel(logging.ERROR)
    import_everything()
    t0 = time.perf_counter()
    out = SIDES[side](parent)
    out["seconds"] = time.perf_counter() - t0
    print(json.dumps(out))
    return 0


def measure(side: str, parent: Path) -> dict[str, Any]:
    """Run one cold measurement of *side* in a fresh interpreter."""
    proc = subprocess.run(
        [sys.executable, __file__, "--child", side, str(parent)],
        capture_output=True, text=True, check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{side} run failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _ms(xs: list[float]) -> str:
    return f"median {statistics.median(xs) * 1000:.1f} ms (range {min(xs) * 1000:.1f}-{max(xs) * 1000:.1f})"


def main(argv: list[str] | None = None) -> int:
    """Generate, time both loaders in fresh processes, print figures; exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(description="resource loading benchmark")
    parser.add_argument("--runs", type=int, default=5, help="cold runs of each side (one fresh process each)")
    parser.add_argument("--keep", type=Path, help="generate into this directory and keep it")
    parser.add_argument("--child", nargs=2, metavar=("SIDE", "TREE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child[0], Path(args.child[1]))

    from gen_tree import TreeSpec, generate

    with tempfile.TemporaryDirectory(prefix="cozmo-tree-") as tmp:
        parent = args.keep or Path(tmp)
        spec = TreeSpec()
        t0 = time.perf_counter()
        generate(parent, spec)
        print(f"generated: {spec.clips} clips in {spec.bin_files} .bin files, {spec.groups} groups, "
              f"{spec.behaviors} behaviours, {spec.activities} activities, {spec.events} emotion events "
              f"in {time.perf_counter() - t0:.1f} s")
        runs: dict[str, list[dict[str, Any]]] = {"ours": [], "pycozmo": []}
        for i in range(args.runs):
            order = ("ours", "pycozmo") if i % 2 == 0 else ("pycozmo", "ours")
            for side in order:
                runs[side].append(measure(side, parent))

    o, p = runs["ours"], runs["pycozmo"]
    o_s = [r["seconds"] for r in o]
    p_s = [r["seconds"] for r in p]
    index_s = [r["index_s"] for r in o]
    json_s = [r["seconds"] - r["index_s"] for r in o]
    errors = max(r["errors"] for r in o)
    print(f"ours:    {_ms(o_s)} over {args.runs} fresh processes ({o[0]['clips']} clips indexed, "
          f"{o[0]['animation groups']} groups, {o[0]['behaviours']} behaviours, {o[0]['activities']} activities; "
          f"{errors} errors)")
    print(f"         of which JSON files + checks {_ms(json_s)}, clip name index {_ms(index_s)}")
    print(f"pycozmo: {_ms(p_s)} over {args.runs} fresh processes ({p[0]['clips']} clips, "
          f"{p[0]['animation groups']} groups, {p[0]['behaviours']} behaviours, {p[0]['activities']} activities; "
          "no validation)")
    ratio = statistics.median(p_s) / statistics.median(o_s)
    pair_ratios = [b / a for a, b in zip(o_s, p_s, strict=True)]
    print(f"ratio:   {ratio:.1f}x (medians); per run {min(pair_ratios):.1f}x-{max(pair_ratios):.1f}x "
          f"(target >= {TARGET_RATIO:.0f}x)")
    cold = statistics.median(o_s)
    ok = cold <= TARGET_S and ratio >= TARGET_RATIO and errors == 0
    print(f"targets: cold load+validate <= {TARGET_S} s: {'met' if cold <= TARGET_S else 'MISSED'}; "
          f">= {TARGET_RATIO:.0f}x PyCozmo: {'met' if ratio >= TARGET_RATIO else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
