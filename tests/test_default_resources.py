"""The project's own resource set (``resources/``): complete, consistent and built from its sources.

These tests hold the default set to the promise the README makes: it loads with no issue at all,
every behaviour's animation trigger reaches a clip that decodes, every behaviour builds with the
brain's behaviour classes, the mood has Cozmo's seven emotion types with their own decay, and the
checked-in ``.bin`` files are exactly what ``tools/build_resources.py`` makes from the sources.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import random
from pathlib import Path
from types import ModuleType

import pytest

from brain.assets import Severity, load_resource_set, validate
from brain.assets.resource_set import ResourceSet
from brain.context import BrainContext
from brain.mood import EmotionEvent, Mood, MoodConfig, SimpleMood
from brain.nodes.behavior_check import check_behavior_params
from brain.nodes.cozmo_behaviors import BehaviorSpec, anim_triggers
from brain.nodes.registry import BEHAVIOR_CLASSES
from driver.animation.clip import Clip, Track
from driver.animation.textfmt import read_text_file

REPO = Path(__file__).resolve().parents[1]
RESOURCES = REPO / "resources"
SOURCES = RESOURCES / "src" / "animations"
BINS = RESOURCES / "cozmo_resources" / "assets" / "animations"

COZMO_EMOTIONS = {"WantToPlay", "Social", "Confident", "Excited", "Happy", "Calm", "Brave"}

#: Every theme the default set must cover → the animation trigger that plays it.
THEMES = {
    "idle": "IdleLookAround",
    "look-around": "IdleLookAround",
    "blink": "Blink",
    "happy": "Happy",
    "sad": "Sad",
    "bored": "Bored",
    "sleepy": "Sleepy",
    "falling asleep": "FallingAsleep",
    "waking": "WakeUp",
    "surprised": "Surprised",
    "scared": "Scared",
    "frustrated": "Frustrated",
    "hiccup": "Hiccup",
    "greeting a face": "GreetFace",
    "pouncing": "Pounce",
    "reacting to a cliff": "ReactToCliff",
    "being picked up": "ReactToPickup",
    "being put down": "ReactToPutDown",
    "falling": "Falling",
    "placed on the charger": "ReactToOnCharger",
    "cube tapped": "CubeTapped",
    "singing": "Singing_120bpm",
}

#: Reaction trigger → behaviour ID the freeplay personality relies on.
REACTIONS = {
    "CliffDetected": "ReactToCliff",
    "RobotPickedUp": "ReactToPickup",
    "ReturnedToTreads": "ReactToPutDown",
    "RobotFalling": "ReactToFalling",
    "PlacedOnCharger": "ReactToOnCharger",
    "Poked": "ReactToPoke",
    "CubeTapped": "ReactToCubeTap",
}


@pytest.fixture(scope="module")
def rs() -> ResourceSet:
    return load_resource_set([RESOURCES])


@pytest.fixture(scope="module")
def builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_resources", REPO / "tools" / "build_resources.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _clip(rs: ResourceSet, name: str) -> Clip:
    return rs.clips.get(name)


# ------------------------------------------------------------------ the check


def test_check_reports_no_errors_warnings_or_info(rs: ResourceSet) -> None:
    result = validate(rs, BEHAVIOR_CLASSES)
    assert [str(i) for i in result.issues] == []
    # and every behaviour's parameters fit its class's declaration
    assert check_behavior_params(rs.behaviors.values(), BEHAVIOR_CLASSES).issues == []
    assert result.ok
    assert result.count(Severity.WARNING) == 0


def test_check_command_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    from argparse import Namespace

    from brain.app.check import check_command

    assert check_command(Namespace(resources=[str(RESOURCES)])) == 0
    assert "Summary: 0 errors, 0 warnings" in capsys.readouterr().out


def test_every_behaviour_class_is_implemented(rs: ResourceSet) -> None:
    assert rs.behaviors
    assert {b.behavior_class for b in rs.behaviors.values()} <= set(BEHAVIOR_CLASSES)


# ------------------------------------------------------------------ animations


def test_at_least_forty_clips_each_with_a_source(rs: ResourceSet) -> None:
    sources = sorted(p.stem for p in SOURCES.glob("*.cozanim"))
    assert len(sources) >= 40
    assert sorted(rs.clips.names()) == sources


def test_every_trigger_reaches_a_clip_that_decodes(rs: ResourceSet) -> None:
    for trigger in rs.anim_triggers:
        group = rs.group_for_trigger(trigger)
        assert group is not None and group.members, trigger
        for member in group.members:
            assert _clip(rs, member.name).name == member.name
    # every group is used by some trigger, and every clip by some group
    targets = {p.target for p in rs.anim_triggers.values()}
    assert set(rs.animation_groups) == targets
    used = {m.name for g in rs.animation_groups.values() for m in g.members}
    assert used == set(rs.clips.names())


def test_every_group_has_a_member_for_any_mood_and_head_angle(rs: ResourceSet) -> None:
    """Some member is always eligible: a Default-mood member without a head-angle limit."""
    for name, group in rs.animation_groups.items():
        assert any(m.mood == "Default" and not m.use_head_angle for m in group.members), name


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_every_required_theme_has_a_trigger(rs: ResourceSet, theme: str) -> None:
    group = rs.group_for_trigger(THEMES[theme])
    assert group is not None, theme


#: Clips that leave the face alone: the sleeping loop breathes in the lift and lights under the
#: sleeping face, which holds still (nothing to draw or send for the whole of a nap).
LEAVES_THE_FACE = frozenset({"anim_gotosleep_sleeping_01"})


def test_clips_are_expressive_and_sized(rs: ResourceSet) -> None:
    moving = 0
    for name in rs.clips.names():
        clip = _clip(rs, name)
        length = max(k.end_ms for k in clip.all_keyframes())
        # a song takes longer than a gesture
        assert 500 <= length <= (10000 if name.startswith("anim_cozmosings_") else 4000), (name, length)
        tracks = clip.tracks_used()
        assert Track.BACKPACK_LIGHTS in tracks, name
        if tracks & {Track.HEAD_ANGLE, Track.LIFT_HEIGHT, Track.BODY_MOTION}:
            moving += 1
        if name in LEAVES_THE_FACE:
            assert Track.PROCEDURAL_FACE not in tracks, name
            continue
        assert Track.PROCEDURAL_FACE in tracks, name
        faces = clip.procedural_face
        assert len(faces) >= 2 and len({dataclasses.replace(f, trigger_time_ms=0) for f in faces}) >= 2, name
    assert moving >= len(rs.clips) - 2  # all but the blinks move the body


def test_sources_carry_descriptions() -> None:
    for path in SOURCES.glob("*.cozanim"):
        clip = read_text_file(path)
        assert clip.playback.description, path.name


# ------------------------------------------------------------------ the build step


def test_checked_in_bins_are_up_to_date(builder: ModuleType) -> None:
    built = builder.build(SOURCES)
    assert builder.check(built, BINS) == []
    assert builder.main(["--check"]) == 0


def test_build_is_deterministic(builder: ModuleType, tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    assert builder.main(["--out", str(first)]) == 0
    assert builder.main(["--out", str(second)]) == 0
    names = sorted(p.name for p in first.iterdir())
    assert names == sorted(p.name for p in second.iterdir()) == sorted(p.name for p in BINS.iterdir())
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes() == (BINS / name).read_bytes()


def test_check_notices_an_edited_source_and_a_stale_file(builder: ModuleType, tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    for p in sorted(SOURCES.glob("anim_blink*.cozanim")):
        (src / p.name).write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
    assert builder.main(["--src", str(src), "--out", str(out)]) == 0
    assert builder.main(["--src", str(src), "--out", str(out), "--check"]) == 0
    (out / "old.bin").write_bytes(b"")
    edited = src / "anim_blink_01.cozanim"
    edited.write_text(edited.read_text(encoding="utf-8").replace("One quick blink", "A blink")
                      .replace("\n330 ", "\n340 "), encoding="utf-8")
    problems = builder.check(builder.build(src), out)
    assert any("blink.bin: out of date" in p for p in problems)
    assert any("old.bin: no source produces it" in p for p in problems)
    assert builder.main(["--src", str(src), "--out", str(out), "--check"]) == 1


def test_build_rejects_a_misnamed_clip(builder: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "blink.cozanim").write_text((SOURCES / "anim_blink_01.cozanim").read_text(encoding="utf-8"),
                                            encoding="utf-8")
    with pytest.raises(builder.BuildError, match="anim_<theme>_<what>"):
        builder.build(tmp_path)


# ------------------------------------------------------------------ mood and behaviours


def _mood(rs: ResourceSet) -> Mood:
    assert rs.mood is not None
    return Mood(MoodConfig.from_record(rs.mood), [EmotionEvent.from_record(e) for e in rs.emotion_events.values()])


def test_mood_has_cozmos_seven_emotions_with_their_own_decay(rs: ResourceSet) -> None:
    assert rs.emotion_types == COZMO_EMOTIONS
    assert rs.mood is not None
    assert set(rs.mood.decay_graphs) == COZMO_EMOTIONS | {"default"}
    mood = _mood(rs)
    assert set(mood.emotion_types) == COZMO_EMOTIONS
    assert mood.trigger_event("Falling", now=0.0)
    assert mood.value("Calm") < 0 and mood.value("Excited") > 0
    for _ in range(700):  # every decay graph reaches zero within ten minutes
        mood.update(1.0)
    assert all(abs(v) < 1e-9 for v in mood.values().values())


def test_frustration_makes_the_simple_mood_frustrated(rs: ResourceSet) -> None:
    mood = _mood(rs)
    assert mood.simple_mood() == SimpleMood.LOW_STIM
    mood.trigger_event("Frustrated", now=0.0)
    mood.trigger_event("Frustrated", now=20.0)
    assert mood.simple_mood() == SimpleMood.FRUSTRATED


def test_every_reaction_has_a_behaviour_and_an_emotion_event(rs: ResourceSet) -> None:
    mapped = {r.trigger: r.behavior_id for r in rs.reactions}
    assert mapped.items() >= REACTIONS.items()
    for reaction in rs.reactions:
        behavior = rs.behavior(reaction.behavior_id)
        assert behavior is not None, reaction.trigger
        assert [e.name for e in behavior.emotion_events], reaction.behavior_id
        assert all(e.name in rs.emotion_events for e in behavior.emotion_events)


def test_every_behaviour_builds_a_subtree(rs: ResourceSet) -> None:
    ctx = BrainContext(mood=_mood(rs), rng=random.Random(3))
    for behavior in rs.behaviors.values():
        spec = BehaviorSpec.from_record(behavior)
        tree = BEHAVIOR_CLASSES[behavior.behavior_class](ctx, spec)
        assert tree.name == behavior.behavior_id
        for trigger in anim_triggers(spec):
            assert trigger in rs.anim_triggers, (behavior.behavior_id, trigger)


def test_light_patterns_the_behaviours_ask_for_exist(rs: ResourceSet) -> None:
    assert {"calm", "sleep", "charging", "happy", "sad", "frustrated"} <= set(rs.backpack_lights)
    for pattern in rs.backpack_lights.values():
        assert len(pattern.on_colors) == 3
        assert all(0.0 <= c <= 1.0 for rgba in pattern.on_colors for c in rgba)
    assert rs.cube_lights


def test_every_song_of_the_app_has_its_own_clip(rs: ResourceSet, sample_resources: Path) -> None:
    """Each of the app's Singing files names a song (``audioSwitch``) the project sings with a clip
    of its own, at the file's tempo (``audioSwitchGroup``); the project's own files are the same."""
    from brain.nodes.social_classes import SONG_TRIGGERS, song_clip

    sample = ResourceSet.load([sample_resources], index_clips=False)
    songs = [b for b in [*sample.behaviors.values(), *rs.behaviors.values()] if b.behavior_class == "Singing"]
    assert len(songs) == 12
    for song in songs:
        clip = song_clip(song.params["audioSwitch"])
        group = rs.group_for_trigger(SONG_TRIGGERS[song.params["audioSwitchGroup"]])
        assert group is not None and clip in {m.name for m in group.members}, (song.behavior_id, clip)
