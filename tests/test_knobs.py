"""The knobs table: the default's parameters and arousal with their comments, and what the variants change."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.nodes.reference import SECTIONS, fill
from brain.personality.knobs import knobs_table


def test_the_table_reads_the_defaults_comments_and_the_variants_changes(tmp_path: Path) -> None:
    (tmp_path / "default.yaml").write_text(
        "name: default\nparameters:\n  nap_after_s: 90      # bored this long: nap\n  plain: 3\n"
        "mood:\n  initial: {Happy: 0.3}   # not a knob\narousal:   # how it tires\n  tire_rate: 1.0   # per second\n")
    (tmp_path / "sleepy.yaml").write_text("extends: default.yaml\nparameters: {nap_after_s: 20}\n")
    (tmp_path / "playful.yaml").write_text("extends: default.yaml\narousal: {tire_rate: 0.5}\n")
    rows = knobs_table(tmp_path).splitlines()
    assert rows[0] == "| knob | default | sleepy | playful | what it sets |"
    assert rows[2:] == ["| `parameters.nap_after_s` | 90 | 20 |  | bored this long: nap |",
                        "| `parameters.plain` | 3 |  |  |  |",
                        "| `arousal.tire_rate` | 1.0 |  | 0.5 | per second |"]


def test_a_marker_nobody_writes_is_an_error() -> None:
    with pytest.raises(ValueError, match="no markers for knobs"):
        fill(_markers(), {"knobs": "x"})
    with pytest.raises(ValueError, match="sections nobody writes: knobs"):
        fill(_markers("knobs"))


def _markers(*extra: str) -> str:
    return "\n".join(f"<!-- generated: {n} -->\nx\n<!-- end generated -->" for n in (*SECTIONS, *extra))
