"""Generate a synthetic Cozmo resource tree, consistent and at the real app's scale.

The real app ships about 2,000 clips in several hundred .bin files, ~600 animation groups,
~300 behaviours and ~60 activities. Those files cannot be redistributed, so the loader
benchmark and the "a complete tree validates cleanly" test use a generated tree with the
same layout, formats and quirks (``//`` comments, files starting with a comment, both
emotion-event shapes, both cube-light shapes), in which every reference resolves.

Usage::

    python tests/bench/gen_tree.py OUT_DIR [--small]

or from Python: ``generate(Path(tmp), TreeSpec.small())`` → the ``cozmo_resources`` dir.
The output is deterministic for a given spec.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # when run as a script
    sys.path.insert(0, str(REPO))

from driver.animation import clip as C  # noqa: E402
from driver.animation.binwrite import write_bin  # noqa: E402

#: Cozmo's emotion types (the generated mood_config declares all of them).
EMOTION_TYPES = ("WantToPlay", "Social", "Confident", "Excited", "Happy", "Calm", "Brave")
#: Reaction triggers of Cozmo's reaction map.
REACTION_TRIGGERS = (
    "CliffDetected", "CubeMoved", "DoubleTapDetected", "FacePositionUpdated", "FistBump", "Frustration",
    "Hiccup", "MotorCalibration", "NoPreDockPoses", "ObjectPositionUpdated", "PetInitialDetection",
    "PlacedOnCharger", "ReturnedToTreads", "RobotFalling", "RobotOnBack", "RobotOnFace", "RobotOnSide",
    "RobotPickedUp", "RobotPlacedOnSlope", "RobotShaken", "Sparked", "UnexpectedMovement", "VC",
)
#: Behaviour classes used, with the key their animation trigger goes under.
BEHAVIOR_SHAPES = (
    ("PlayAnim", "animTriggers"),
    ("PlayAnimWithFace", "animTriggers"),
    ("ReactToFrustration", "anim"),
    ("RespondToRenameFace", "animationTrigger"),
    ("AcknowledgeFace", "ReactionAnimGroup"),
    ("FindFaces", "s2_WaitAnimTrigger"),
    ("PounceOnMotion", "animTriggers"),
    ("DriveOffCharger", "animTriggers"),
)


@dataclass(frozen=True)
class TreeSpec:
    """How big a tree to generate; the defaults are the real app's scale."""

    clips: int = 2000
    bin_files: int = 700
    groups: int = 600
    behaviors: int = 300
    activities: int = 60
    events: int = 120
    event_files: int = 12
    cube_lights: int = 20
    keyframes_per_clip: int = 12
    seed: int = 1

    @classmethod
    def small(cls) -> TreeSpec:
        """About 100 clips: for tests."""
        return cls(clips=100, bin_files=35, groups=40, behaviors=30, activities=8, events=24, event_files=4,
                   cube_lights=4, keyframes_per_clip=4)


def _eye(rng: random.Random) -> tuple[float, ...]:
    return tuple(round(rng.uniform(-0.5, 1.0), 3) for _ in C.EYE_PARAMETERS)


def _clip(name: str, rng: random.Random, frames: int) -> C.Clip:
    step = 33 * rng.randint(2, 6)
    return C.Clip(
        name=name,
        head_angle=tuple(C.HeadAngle(i * step, step, rng.randint(-25, 44)) for i in range(max(1, frames // 4))),
        lift_height=(C.LiftHeight(0, step, rng.randint(32, 92)),),
        procedural_face=tuple(
            C.ProceduralFace(i * step, face_center_x=rng.uniform(-20, 20), left_eye=_eye(rng), right_eye=_eye(rng))
            for i in range(frames)
        ),
        backpack_lights=(C.BackpackLights(0, step, left=(1.0, 0.5, 0.0, 1.0), back=(0.0, 0.0, 1.0, 1.0)),),
        body_motion=(C.BodyMotion(step, step, rng.choice(("STRAIGHT", "TURN_IN_PLACE", "120")), rng.randint(-80, 80)),),
        event=(C.Event(step * frames, "TAP_CUBE"),) if rng.random() < 0.2 else (),
    )


def _write_json(path: Path, data: Any, comment: str | None = None, inline_comments: bool = False) -> None:
    """Write JSON, optionally starting with a ``//`` comment and with comments after some values."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2)
    if inline_comments:
        lines = text.split("\n")
        text = "\n".join(
            line + "  // generated" if line.rstrip().endswith(("],", "},")) else line for line in lines
        )
    if comment:
        text = f"// {comment}\n{text}"
    path.write_text(text + "\n", encoding="ascii")


def _graph(points: list[tuple[float, float]]) -> dict[str, Any]:
    return {"nodes": [{"x": x, "y": y} for x, y in points]}


def generate(dest: Path, spec: TreeSpec | None = None) -> Path:
    """Write a complete tree under ``dest/cozmo_resources`` and return that directory."""
    spec = spec or TreeSpec()
    rng = random.Random(spec.seed)
    root = Path(dest) / "cozmo_resources"
    assets = root / "assets"
    engine = root / "config" / "engine"
    system = engine / "behaviorSystem"

    # Clips: names spread evenly over the .bin files.
    clip_names = [f"anim_gen_{i:04d}" for i in range(spec.clips)]
    anim_dir = assets / "animations"
    anim_dir.mkdir(parents=True, exist_ok=True)
    for f in range(spec.bin_files):
        lo, hi = f * spec.clips // spec.bin_files, (f + 1) * spec.clips // spec.bin_files
        clips = [_clip(n, rng, spec.keyframes_per_clip) for n in clip_names[lo:hi]]
        (anim_dir / f"anim_gen_{f:03d}.bin").write_bytes(write_bin(clips))

    # Animation groups in category sub-folders, and one trigger per group.
    groups = [f"ag_gen_{i:03d}" for i in range(spec.groups)]
    for i, g in enumerate(groups):
        members = []
        for name in rng.sample(clip_names, k=min(len(clip_names), rng.randint(1, 4))):
            m: dict[str, Any] = {"Name": name, "Weight": round(rng.uniform(0.2, 3.0), 2),
                                 "CooldownTime_Sec": rng.choice((0.0, 0.0, 5.0, 30.0)), "Mood": "Default"}
            if rng.random() < 0.15:
                m.update(UseHeadAngle=True, HeadAngleMin_Deg=-25.0, HeadAngleMax_Deg=10.0)
            members.append(m)
        _write_json(assets / "animationGroups" / f"Category{i % 12:02d}" / f"{g}.json", {"Animations": members})
    triggers = [f"GenTrigger{i:03d}" for i in range(spec.groups)]
    _write_json(assets / "animationGroupMaps" / "AnimationTriggerMap.json",
                {"Pairs": [{"CladEvent": t, "AnimName": g} for t, g in zip(triggers, groups, strict=True)]})

    # Cube lights (both shapes) and their trigger map; backpack lights (one map, one single).
    cube_names = [f"cubeGen{i:02d}" for i in range(spec.cube_lights)]
    pattern = {
        "onColors": [[0, 127, 255, 255]] * 4, "offColors": [[0, 0, 0, 255]] * 4,
        "onPeriod_ms": [100] * 4, "offPeriod_ms": [100] * 4, "transitionOnPeriod_ms": [0] * 4,
        "transitionOffPeriod_ms": [0] * 4, "offset": [0, 25, 50, 75], "rotationPeriod_ms": 0,
    }
    for i, name in enumerate(cube_names):
        data: Any
        if i % 2:
            data = {name: [{"pattern": pattern, "duration_ms": 500, "canBeOverridden": True, "patternDebugName": name}]}
        else:
            data = {"flourish": {"pattern": pattern, "duration_ms": 300},
                    "zdenouement": {"pattern": pattern, "duration_ms": 200, "canBeOverridden": False}}
        _write_json(engine / "lights" / "cubeLights" / f"{name}.json", data)
    _write_json(assets / "cubeAnimationGroupMaps" / "CubeAnimationTriggerMap.json",
                {"Pairs": [{"CladEvent": f"Cube{n[0].upper()}{n[1:]}", "AnimName": n} for n in cube_names]})
    backpack = {"onColors": [[0, 0.5, 0, 1]] * 3, "offColors": [[0, 0, 0, 1]] * 3, "onPeriod_ms": [300, 900, 0],
                "offPeriod_ms": [900, 300, 0], "transitionOnPeriod_ms": [300] * 3,
                "transitionOffPeriod_ms": [300] * 3, "offset": [-900, -300, 0]}
    _write_json(engine / "lights" / "backpackLights" / "backpackLightPatterns.json",
                {"charging": backpack, "charged": backpack}, comment="named patterns", inline_comments=True)
    _write_json(engine / "lights" / "backpackLights" / "offline.json", backpack)

    # Emotion events: list files, and one single-event file; every type used by several events.
    events = [f"GenEvent{i:03d}" for i in range(spec.events)]
    per_file = max(1, spec.events // spec.event_files)
    for f in range(spec.event_files):
        chunk = events[f * per_file:(f + 1) * per_file] if f < spec.event_files - 1 else events[f * per_file:]
        items = []
        for j, name in enumerate(chunk):
            types = [EMOTION_TYPES[(f + j + k) % len(EMOTION_TYPES)] for k in range(2)]
            e: dict[str, Any] = {"name": name, "emotionAffectors": [
                {"emotionType": t, "value": round(rng.uniform(-0.3, 0.3), 2)} for t in types]}
            if j % 5 == 0:
                e["repetitionPenalty"] = _graph([(0.0, 0.0), (0.5, 0.0), (10.0, 1.0)])
            items.append(e)
        _write_json(engine / "emotionevents" / f"gen_events_{f:02d}.json", {"emotionEvents": items})
    _write_json(engine / "emotionevents" / "single_event.json",
                {"name": "GenSingleEvent", "emotionAffectors": [{"emotionType": "Happy", "value": 0.1}]})

    # mood_config: decay graphs for default and every type, action-result events.
    decay = [{"emotionType": "default", "nodes": _graph([(0, 1), (10, 1), (30, 0.9), (75, 0.6), (150, 0)])["nodes"]}]
    decay += [{"emotionType": t, "nodes": _graph([(0, 1), (10, 1), (20, 0.6), (60, 0.2), (100, 0)])["nodes"]}
              for t in EMOTION_TYPES]
    actions = {f"ACTION_{i}": {"SUCCESS": events[i % len(events)], "FAILURE_ABORT": events[(i + 1) % len(events)]}
               for i in range(10)}
    # A few events defined inline by the config's eventMapper, two of them used by actions.
    mapped = [{"name": f"GenMappedEvent{i}", "emotionAffectors": [
        {"emotionType": EMOTION_TYPES[i], "value": 0.1}]} for i in range(3)]
    actions["ACTION_MAPPED"] = {"SUCCESS": "GenMappedEvent0", "FAILURE_RETRY": "GenMappedEvent2"}
    _write_json(engine / "mood_config.json", {
        "decayGraphs": decay, "eventMapper": {"emotionEvents": mapped},
        "defaultRepetitionPenalty": _graph([(0.0, 0.0), (30.0, 1.0)]), "actionResultEmotionEvents": actions,
    }, inline_comments=True)

    # Behaviours: modern format, trigger keys of several spellings, some files with comments.
    behaviors = [f"GenBehavior{i:03d}" for i in range(spec.behaviors)]
    for i, bid in enumerate(behaviors):
        cls, key = BEHAVIOR_SHAPES[i % len(BEHAVIOR_SHAPES)]
        b: dict[str, Any] = {"behaviorClass": cls, "behaviorID": bid, "displayNameKey": f"behavior.{bid}"}
        picked = rng.sample(triggers, k=min(len(triggers), 3))
        b[key] = picked if key == "animTriggers" else picked[0]
        if i % 7 == 0:
            b["repetitionPenalty"] = _graph([(10.0, 0.2), (30.0, 1.0)])
        if cls == "ReactToFrustration":
            b["finalEmotionEvent"] = rng.choice(events)
        comment = f"behaviour {bid}" if i % 5 == 0 else None
        _write_json(system / "behaviors" / f"group{i % 10}" / f"{bid}.json", b, comment=comment,
                    inline_comments=i % 3 == 0)

    # Reaction map: every trigger to some behaviour.
    reactions = []
    for i, trig in enumerate(REACTION_TRIGGERS):
        r: dict[str, Any] = {"reactionTrigger": trig, "behaviorID": behaviors[i % len(behaviors)]}
        if i % 3 == 0:
            r["genericStrategyParams"] = {"shouldResumeLast": bool(i % 2), "debugStrategyName": f"Strategy {trig}"}
        reactions.append(r)
    _write_json(system / "reactionTrigger_behavior_map.json", {"reactionTriggerBehaviorMap": reactions},
                inline_comments=True)

    # Activities: one file per activity, and a Freeplay root listing them all.
    activity_ids = [f"GenActivity{i:02d}" for i in range(max(1, spec.activities - 2))]
    for i, aid in enumerate(activity_ids):
        chosen = rng.sample(behaviors, k=min(len(behaviors), 6))
        chooser: dict[str, Any]
        if i % 3 == 0:
            chooser = {"type": "StrictPriority", "behaviors": chosen}
        else:
            chooser = {"type": "Scoring", "behaviors": [
                {"behaviorID": bid, "scoring": {"flatScore": round(rng.uniform(0.1, 10), 2),
                                                "repetitionPenalty": _graph([(0.0, 0.0), (10.0, 0.0), (60.0, 1.0)])}}
                for bid in chosen]}
        strategy: dict[str, Any] = {"type": "Simple", "cooldownBaseSecs": 30.0}
        if i % 4 == 0:
            strategy.update(requiredMinStartMoodScore=0.5, startMoodScorer=[
                {"emotionType": EMOTION_TYPES[i % len(EMOTION_TYPES)],
                 "scoreGraph": _graph([(-1.0, 1.0), (0.3, 1.0), (0.31, 0.0), (1.0, 0.0)]), "trackDelta": False}])
        a = {"activityID": aid, "activityType": "BehaviorsOnly", "behaviorChooser": chooser,
             "activityStrategy": strategy}
        if i % 5 == 0:
            a["interludeBehaviorChooser"] = {"type": "StrictPriority", "behaviors": rng.sample(behaviors, k=2)}
            a["driveStartAnimTrigger"] = rng.choice(triggers)
        _write_json(system / "activities" / f"set{i % 4}" / f"{aid}.json", a, comment=f"activity {aid}",
                    inline_comments=i % 2 == 0)
    freeplay = {
        "activityID": "Freeplay", "activityType": "Freeplay", "activityStrategy": {"type": "Simple"},
        "desiredActivityNames": {k: activity_ids[0] for k in ("faceAndCubeActivityName", "faceOnlyActivityName",
                                                                "cubeOnlyActivityName", "noFaceNoCubeActivityName")},
        "subActivities": [{"activityID": aid, "activityPriority": i} for i, aid in enumerate(activity_ids)],
    }
    selection = {"activityID": "Selection", "activityType": "BehaviorsOnly", "behaviorChooser": {"type": "Selection"},
                 "activityStrategy": {"type": "Simple"}}
    # As in the app: a list of activities, and the Freeplay root as a single object of its own.
    _write_json(system / "activities_config.json", [selection], comment="activities", inline_comments=True)
    _write_json(system / "behavior_system_config.json", freeplay, comment="the freeplay root", inline_comments=True)
    return root


def main(argv: list[str] | None = None) -> int:
    """Command line: write a tree into OUT_DIR."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--small", action="store_true", help="about 100 clips instead of 2,000")
    args = parser.parse_args(argv)
    root = generate(args.out, TreeSpec.small() if args.small else TreeSpec())
    print(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
