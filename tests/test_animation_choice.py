"""Choosing an animation group member: weight, cooldown, simple mood and head angle."""

from __future__ import annotations

import random
from collections import Counter

from brain.animations import choose_member
from brain.assets.records import AnimationGroupMember as M


def _pick(members: list[M], **kw: object) -> str:
    args = {"now": 100.0, "last_played": {}, "simple_mood": None, "head_angle_deg": None,
            "rng": random.Random(3)}
    args.update(kw)
    return choose_member(members, **args).name  # type: ignore[arg-type, union-attr]


def test_weights_bias_the_choice() -> None:
    members = [M("a", 3.0, 0.0), M("b", 1.0, 0.0)]
    rng = random.Random(11)
    counts = Counter(_pick(members, rng=rng) for _ in range(4000))
    assert 0.70 < counts["a"] / 4000 < 0.80


def test_cooling_members_are_skipped_and_the_closest_to_ready_plays_when_all_cool() -> None:
    members = [M("a", 1.0, 10.0), M("b", 1.0, 10.0)]
    assert _pick(members, last_played={"a": 95.0}) == "b"
    assert _pick(members, last_played={"a": 95.0, "b": 91.0}) == "b"  # b is ready in 1 s, a in 5 s


def test_simple_mood_filters_members_with_default_as_fallback() -> None:
    members = [M("calm", 1.0, 0.0, mood="LowStim"), M("wild", 1.0, 0.0, mood="HighStim"),
               M("any", 0.0001, 0.0, mood="Default")]
    assert _pick(members, simple_mood="HighStim", rng=random.Random(1)) == "wild"
    only_default = [M("calm", 1.0, 0.0, mood="LowStim"), M("any", 1.0, 0.0)]
    assert _pick(only_default, simple_mood="Frustrated") == "any"


def test_head_angle_range_is_respected_when_asked() -> None:
    members = [M("low", 1.0, 0.0, use_head_angle=True, head_angle_min_deg=-25, head_angle_max_deg=0),
               M("high", 1.0, 0.0, use_head_angle=True, head_angle_min_deg=10, head_angle_max_deg=45)]
    assert _pick(members, head_angle_deg=30.0) == "high"
    assert _pick(members, head_angle_deg=-10.0) == "low"


def test_empty_group_gives_none() -> None:
    assert choose_member([], now=0.0, last_played={}, simple_mood=None, head_angle_deg=None,
                         rng=random.Random()) is None


def test_the_clip_that_played_last_is_not_chosen_again_unless_the_group_has_nothing_else() -> None:
    members = [M("a", 100.0, 0.0), M("b", 1.0, 0.0)]
    assert {_pick(members, avoid="a", rng=random.Random(seed)) for seed in range(50)} == {"b"}
    # even a member that does not suit the mood is better than the same clip again
    moody = [M("a", 1.0, 0.0), M("b", 1.0, 0.0, mood="HighStim")]
    assert _pick(moody, simple_mood="LowStim", avoid="a") == "b"
    # a group of one plays its clip again
    assert _pick([M("a", 1.0, 0.0)], avoid="a") == "a"
