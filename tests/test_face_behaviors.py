"""FindFaces, InteractWithFaces, AcknowledgeFace and PounceOnMotion read from the app's real behaviour files.

The files come from the real Cozmo resource sample (skipped where it is absent); what is checked is
that every one builds, that the values the subtree uses are the file's (also from FindFaces'
nested ``params`` object), and that a wrong value is refused at its key. What the behaviours do
on a robot is tested end to end in ``test_e2e_eyes.py``.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from brain.assets.resource_set import ResourceSet
from brain.context import BrainContext
from brain.nodes.behavior_class import BehaviorParamError, BehaviorSpec
from brain.nodes.registry import BEHAVIOR_CLASSES
from brain.nodes.world_actions import SearchForFaces, TrackFace
from brain.nodes.world_conditions import MotionSeenWithin

CLASSES = ("FindFaces", "InteractWithFaces", "AcknowledgeFace", "PounceOnMotion")


def _built(resources: Path, behavior_id: str) -> object:
    rs = ResourceSet.load([resources], index_clips=False)
    record = rs.behaviors[behavior_id]
    ctx = BrainContext(rng=random.Random(1))
    return BEHAVIOR_CLASSES[record.behavior_class](ctx, BehaviorSpec.from_record(record))


def test_every_real_file_of_the_four_classes_builds(sample_resources: Path) -> None:
    rs = ResourceSet.load([sample_resources], index_clips=False)
    records = [r for r in rs.behaviors.values() if r.behavior_class in CLASSES]
    assert {r.behavior_class for r in records} == set(CLASSES)
    ctx = BrainContext(rng=random.Random(1))
    for record in records:
        tree = BEHAVIOR_CLASSES[record.behavior_class](ctx, BehaviorSpec.from_record(record))
        assert tree.name == record.behavior_id


def test_find_faces_reads_its_nested_params(sample_resources: Path) -> None:
    tree = _built(sample_resources, "MeetCozmo_FindFaces_Socialize")
    (search,) = [n for n in tree.iterate() if isinstance(n, SearchForFaces)]  # type: ignore[attr-defined]
    assert search.back_turn_deg == (10.0, 30.0) and search.short_turn_deg == (5.0, 25.0)
    assert search.turn_deg == (30.0, 65.0) and search.head_deg == (20.0, 45.0)
    assert search.pause_s == (0.3, 0.7) and search.head_moves == (2, 3)
    assert search.body_speed_dps == 150.0 and search.head_speed_dps == 90.0
    assert search.pause_trigger == "LookInPlaceForFacesBodyPause"


def test_interact_and_pounce_read_their_files(sample_resources: Path) -> None:
    interact = _built(sample_resources, "InteractWithFaces")
    (track,) = [n for n in interact.iterate() if isinstance(n, TrackFace)]  # type: ignore[attr-defined]
    assert track.period_s == (0.2, 0.7) and track.clamp_deg == 3.0
    hiking = _built(sample_resources, "Hiking_PounceOnMotion")
    windows = sorted(n.within_s for n in hiking.iterate() if isinstance(n, MotionSeenWithin))  # type: ignore[attr-defined]
    assert windows == [1.5, 3.0]  # the hiking file's short boredom times


def test_a_wrong_value_is_refused_at_its_nested_key() -> None:
    spec = BehaviorSpec("FindFaces", "Mine", {"params": {"s2_WaitMin_sec": "soon"}})
    with pytest.raises(BehaviorParamError) as caught:
        BEHAVIOR_CLASSES["FindFaces"](BrainContext(rng=random.Random(1)), spec)
    assert caught.value.key == "params.s2_WaitMin_sec"
    top = BehaviorSpec("FindFaces", "Mine", {"params": {"s2_WaitMin_sec": 0.3}, "s2_WaitMin_sec": 1.5})
    tree = BEHAVIOR_CLASSES["FindFaces"](BrainContext(rng=random.Random(1)), top)
    (search,) = [n for n in tree.iterate() if isinstance(n, SearchForFaces)]
    assert search.pause_s == (0.7, 1.5)  # the top-level key (a YAML override) wins; min and max kept in order
