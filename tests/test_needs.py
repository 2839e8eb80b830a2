"""The needs (Energy, Play, Repair): levels, brackets, decay, holds and what fills and drains them.

The model is driven with explicit times (it takes the clock from its caller); what a robot shows
when a need is low is tested end to end in ``test_e2e_needs.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brain.needs import Needs, NeedsConfig, NeedsConfigError, load_needs_config
from driver import events as ev

REPO = Path(__file__).resolve().parents[1]


def test_the_projects_file_holds_cozmos_numbers() -> None:
    config, path = load_needs_config([REPO / "resources"])
    assert path is not None and path.name == "needs_config.json"
    assert config == NeedsConfig()  # the file says what the defaults say
    assert config.brackets["Play"] == (0.99, 0.5, 0.2, 0.0) and config.decay_per_minute["Play"] == 0.015


def test_decay_by_the_minute_while_connected_not_while_lost() -> None:
    needs = Needs()
    needs.update(0.0)
    needs.update(600.0)  # ten minutes
    assert needs.levels["Play"] == pytest.approx(1.0 - 0.15)
    assert needs.levels["Energy"] == pytest.approx(1.0 - 0.05)
    assert needs.levels["Repair"] == pytest.approx(1.0 - 0.02)
    play = needs.levels["Play"]
    needs.update(1200.0, connected=False)
    assert needs.levels["Play"] == play
    needs.update(100_000.0)
    assert needs.levels["Play"] == NeedsConfig().min_level  # never below the minimum


def test_brackets_and_a_refill_to_full_holds_before_decaying() -> None:
    needs = Needs()
    needs.levels["Play"] = 0.45
    assert needs.bracket("Play") == "Warning"
    needs.levels["Play"] = 0.1
    assert needs.bracket("Play") == "Critical"
    needs.update(0.0)
    needs.change("Play", 2.0, 0.0)  # filled to Full: it holds 20 minutes
    needs.update(1199.0)
    assert needs.levels["Play"] == 1.0 and needs.bracket("Play") == "Full"
    needs.update(1259.0)
    assert needs.levels["Play"] == pytest.approx(1.0 - 0.015)


def test_what_fills_and_drains_them() -> None:
    needs = Needs()
    needs.levels.update(Play=0.3, Energy=0.3)
    needs.emotion_event("PlayedPeekABoo", 0.0)
    assert needs.levels["Play"] == pytest.approx(0.5)
    needs.emotion_event("NotANeedsEvent", 0.0)
    needs.update(0.0, events=[ev.FallingStarted(0.0)])
    assert needs.levels["Repair"] == pytest.approx(0.7) and needs.levels["Play"] == pytest.approx(0.4)
    needs.update(60.0, on_charger=True)  # a minute on the charger
    assert needs.levels["Energy"] == pytest.approx(0.35)
    assert needs.snapshot()["Energy"] == {"level": 0.35, "bracket": "Warning"}


def test_a_bad_file_is_refused_naming_the_key(tmp_path: Path) -> None:
    engine = tmp_path / "config" / "engine"
    engine.mkdir(parents=True)
    (engine / "needs_config.json").write_text(json.dumps({"DecayPerMinutePlay": "fast"}))
    with pytest.raises(NeedsConfigError, match=r"needs_config.json: DecayPerMinutePlay: expected a number"):
        load_needs_config([tmp_path])
    (engine / "needs_config.json").write_text(json.dumps({"BracketLevelPlayWarning": 0.7}))
    with pytest.raises(NeedsConfigError, match=r"BracketLevelPlay…: expected Full ≥ Normal ≥ Warning ≥ Critical"):
        load_needs_config([tmp_path])
    (engine / "needs_config.json").write_text(json.dumps({"EmotionEventDeltas": {"Sang": {"Fun": 0.1}}}))
    with pytest.raises(NeedsConfigError, match=r"EmotionEventDeltas.Sang: expected \{need: change\}"):
        load_needs_config([tmp_path])
    # Anki's own file, comments and all, reads
    anki = '// exported\n{"InitialNeedLevelPlay": 0.4, "DecayPeriodSeconds": 60}\n'
    (engine / "needs_config.json").write_text(anki)
    config, _ = load_needs_config([tmp_path])
    assert config.initial["Play"] == 0.4


def test_the_first_config_brings_its_initial_levels_a_reload_keeps_them() -> None:
    needs = Needs()
    needs.configure(NeedsConfig.from_json({"InitialNeedLevelPlay": 0.4}))
    assert needs.levels["Play"] == 0.4
    needs.change("Play", 0.2, 0.0)
    needs.configure(NeedsConfig.from_json({"InitialNeedLevelPlay": 0.1}))  # a reload
    assert needs.levels["Play"] == pytest.approx(0.6)
