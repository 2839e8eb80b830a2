"""Benchmark: cold load + validation of a full-scale resource tree, against PyCozmo 0.8.0.

Generates a tree at the real Cozmo app's scale (2,000 clips in 700 .bin files, 600 groups,
300 behaviours, 60 activities, mood config, emotion events, reaction map; see
``gen_tree.py``) into a temporary directory, then times, in this one process:

- ours: ``load_resource_set`` + ``validate`` (clip names indexed, clips decoded lazily);
- PyCozmo 0.8.0: the loaders ``pycozmo.brain.Brain.__init__`` calls — activities,
  behaviours, reaction map, emotion types and events, then ``Client.load_anims`` (clip
  metadata of every .bin, animation groups through the trigger map).

Both sides' modules are imported before timing. "Cold" is the first load in the process
(the operating system's file cache is warm: the tree was just written). Targets: ours
≤ 1.5 s cold, and ≥ 10× faster than PyCozmo. Run::

    python tests/bench/resources.py [--runs N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_tree import TreeSpec, generate  # noqa: E402

from brain.assets import load_resource_set, validate  # noqa: E402

TARGET_S = 1.5
TARGET_RATIO = 10.0


def import_everything() -> None:
    """Import both sides' modules up front: the figures are about loading resources, not Python start-up."""
    from pycozmo import activity, anim, anim_encoder, behavior, emotions  # noqa: F401

    import driver.animation.index  # noqa: F401  (ours imports it on first use)


def ours(parent: Path) -> tuple[Any, Any]:
    """Load and check the tree the way ``cozmo-brain check`` does."""
    rs = load_resource_set([parent])
    return rs, validate(rs, implemented=set())


def pycozmo_loaders(parent: Path) -> dict[str, int]:
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


def _time(fn: Callable[[], Any], runs: int) -> tuple[float, float, Any]:
    """(first run, best run, first result) in seconds."""
    times = []
    result = None
    for i in range(runs):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
        if i == 0:
            result = out
    return times[0], min(times), result


def main(argv: list[str] | None = None) -> int:
    """Generate, time both loaders, print figures; exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(description="resource loading benchmark")
    parser.add_argument("--runs", type=int, default=3, help="runs of each loader (the first is the cold one)")
    parser.add_argument("--keep", type=Path, help="generate into this directory and keep it")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("pycozmo").setLevel(logging.ERROR)

    import_everything()
    with tempfile.TemporaryDirectory(prefix="cozmo-tree-") as tmp:
        parent = args.keep or Path(tmp)
        spec = TreeSpec()
        t0 = time.perf_counter()
        generate(parent, spec)
        print(f"generated: {spec.clips} clips in {spec.bin_files} .bin files, {spec.groups} groups, "
              f"{spec.behaviors} behaviours, {spec.activities} activities, {spec.events} emotion events "
              f"in {time.perf_counter() - t0:.1f} s")

        first, best, (rs, result) = _time(lambda: ours(parent), args.runs)
        errors = sum(1 for i in result.issues if i.severity.name == "ERROR")
        counts = rs.counts()
        print(f"ours:    cold {first:.3f} s, best of {args.runs} {best:.3f} s "
              f"({counts['animation clips']} clips indexed, {counts['animation groups']} groups, "
              f"{counts['behaviours']} behaviours, {counts['activities']} activities; {errors} errors)")

        _, json_best, _ = _time(lambda: validate(load_resource_set([parent], index_clips=False), implemented=set()),
                                args.runs)
        print(f"         of which JSON files + checks {json_best * 1000:.0f} ms, clip name index "
              f"{(best - json_best) * 1000:.0f} ms (best runs)")

        p_first, p_best, p_counts = _time(lambda: pycozmo_loaders(parent), args.runs)
        print(f"pycozmo: cold {p_first:.3f} s, best of {args.runs} {p_best:.3f} s "
              f"({p_counts['clips']} clips, {p_counts['animation groups']} groups, "
              f"{p_counts['behaviours']} behaviours, {p_counts['activities']} activities; no validation)")

    ratio_cold = p_first / first
    ratio_best = p_best / best
    print(f"ratio:   {ratio_cold:.1f}x cold, {ratio_best:.1f}x best (target >= {TARGET_RATIO:.0f}x)")
    ok = first <= TARGET_S and ratio_cold >= TARGET_RATIO and errors == 0
    print(f"targets: cold load+validate <= {TARGET_S} s: {'met' if first <= TARGET_S else 'MISSED'}; "
          f">= {TARGET_RATIO:.0f}x PyCozmo: {'met' if ratio_cold >= TARGET_RATIO else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
