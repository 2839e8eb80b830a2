"""Behaviour classes declare their parameters once: the builder, ``check`` and the docs read the declaration."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from brain.nodes.behavior_class import BehaviorParamError, BehaviorSpec
from brain.nodes.behavior_gaps import WHY_NOT_YET
from brain.nodes.params import describe_kind
from brain.nodes.reference import fill
from brain.nodes.registry import BEHAVIOR_CLASSES, NODE_TYPES
from brain.personality.knobs import knobs_table

from .conftest import REPO

LOOK_AROUND = Path("config/engine/behaviorSystem/behaviors/freeplay/lookAround.json")


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "brain", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd)


@pytest.fixture
def resources(tmp_path: Path) -> Path:
    """A copy of the project's resources that a test may break."""
    root = tmp_path / "res" / "cozmo_resources"
    shutil.copytree(REPO / "resources" / "cozmo_resources", root)
    return root


def _write_look_around(root: Path, **params: object) -> Path:
    file = root / LOOK_AROUND
    body = {"behaviorClass": "LookAround", "behaviorID": "LookAround", **params}
    file.write_text(json.dumps(body, indent=2) + "\n")
    return file


def _personality(tmp_path: Path, params: str) -> Path:
    file = tmp_path / "mine.yaml"
    file.write_text("name: mine\n"
                    "root:\n"
                    "  type: sequence\n"
                    "  children:\n"
                    f"    - {{behavior: LookAround, params: {params}}}\n")
    return file


def test_every_class_declares_documented_parameters() -> None:
    for name, declared in BEHAVIOR_CLASSES.items():
        assert declared.name == name and declared.doc, name
        for pname, param in declared.params.items():
            assert describe_kind(param), (name, pname)
        # every class fires its emotion event under the same name
        assert "finalEmotionEvent" in declared.params, name


def test_one_sleeper_one_set_of_names() -> None:
    node = set(NODE_TYPES["sleep"].params)
    for cls in ("Sleep", "Nap"):
        assert node <= set(BEHAVIOR_CLASSES[cls].params), cls
    assert BEHAVIOR_CLASSES["Nap"].params["max_s"].default == 300.0
    assert BEHAVIOR_CLASSES["Sleep"].params["max_s"].default is None


def test_factories_receive_validated_values_under_any_spelling() -> None:
    declared = BEHAVIOR_CLASSES["Nap"]
    resolved = declared.resolve({"NAPDURATION_S": 60, "wakeOn": "poked", "displayNameKey": "x", "flatScore": 1})
    assert resolved.values["max_s"] == 60.0 and resolved.values["wake_on"] == ["poked"]
    assert resolved.read == {"max_s": "NAPDURATION_S", "wake_on": "wakeOn"}
    assert resolved.ignored == ["displayNameKey"]  # flatScore is the scoring chooser's
    assert resolved.values["face"] == "asleep"  # defaults filled in


@pytest.mark.parametrize("params, key", [
    ({"duration_s": "long"}, "duration_s"),
    ({"duration_s": -1}, "duration_s"),
    ({"animTriggers": ["A", 3]}, "animTriggers[1]"),
])
def test_a_wrong_value_is_refused_naming_the_key(params: dict[str, object], key: str) -> None:
    cls = "PlayAnim" if "animTriggers" in params else "LookAround"
    with pytest.raises(BehaviorParamError) as caught:
        BEHAVIOR_CLASSES[cls](None, BehaviorSpec(cls, "x", params))  # type: ignore[arg-type]
    assert caught.value.key == key


def test_a_bad_behaviour_json_is_refused_with_file_line_and_key(tmp_path: Path, resources: Path) -> None:
    file = _write_look_around(resources, duration_s=12.0, finalEmotionEvent="LookedAround", backUp="x")
    file.write_text(file.read_text().replace("12.0", '"twelve"'))
    line = next(i for i, text in enumerate(file.read_text().splitlines(), 1) if "duration_s" in text)
    done = _cli(tmp_path, "check", "--resources", str(resources), "--personality", str(REPO / "trees/default.yaml"))
    assert done.returncode == 1, done.stdout + done.stderr
    where = f"{LOOK_AROUND.as_posix()}:{line}: duration_s: behaviour 'LookAround' (LookAround): expected a number"
    assert where in done.stdout, done.stdout
    # the personality that uses it is refused at the same place, saying where it uses it
    assert f"{where}, got 'twelve' (used at subtrees.idle." in done.stdout, done.stdout
    # and `run` refuses to start with it
    ran = _cli(tmp_path, "run", "--sim", "--resources", str(resources), "--duration", "5")
    assert ran.returncode == 1
    assert f"{file}:{line}" in ran.stderr, ran.stderr


def test_a_bad_yaml_override_is_refused_where_it_is_written(tmp_path: Path) -> None:
    mine = _personality(tmp_path, "{duration_s: -3}")
    done = _cli(tmp_path, "check", "--personality", str(mine))
    assert done.returncode == 1
    assert f"{mine}:5: root.children[0].params.duration_s:" in done.stdout, done.stdout
    assert "expected a number >= 0, got -3" in done.stdout


def test_unknown_keys_are_reported_never_refused(tmp_path: Path, resources: Path) -> None:
    _write_look_around(resources, duration_s=5.0, displayNameKey="behavior.LookAround",
                       finalEmotionEvent="LookedAround")
    mine = _personality(tmp_path, "{duraton_s: 3}")
    done = _cli(tmp_path, "check", "--resources", str(resources), "--personality", str(mine))
    assert done.returncode == 0, done.stdout + done.stderr
    warning = "LookAround does not read 'duraton_s'; did you mean 'duration_s'"
    assert f"{mine}:5: root.children[0].params.duraton_s: {warning}" in done.stdout
    section = done.stdout.split("Behaviour parameters", 1)[1]
    block = section.split("  LookAround (1 behaviour)\n", 1)[1].split("\n  N", 1)[0]
    assert "reads:    duration_s (1), endHeadAngle_deg, finalEmotionEvent (1)" in block
    assert "ignores:  displayNameKey (1)" in block, block


def test_check_lists_reads_and_ignores_per_class_on_the_real_sample(tmp_path: Path, sample_resources: Path) -> None:
    done = _cli(tmp_path, "check", "--resources", str(sample_resources))
    section = done.stdout.split("Behaviour parameters", 1)[1]
    assert "behavior-param" not in done.stdout and not re.search(r"\bexpected\b", section)  # the real values all fit
    charger = section.split("  ReactToOnCharger (1 behaviour)\n", 1)[1].split("\n  R", 1)[0]
    assert "reads:    animTriggers, finalEmotionEvent" in charger
    assert "timeTilSleepAnimation_s (1)" in charger and "disableByDefault (1)" in charger
    assert "  PlayAnim (6 behaviours)\n    reads:    animTriggers (6)" in section
    for name in BEHAVIOR_CLASSES:
        assert f"  {name} (" in section, name


def test_the_format_reference_tables_are_generated_from_the_declarations() -> None:
    doc = (REPO / "docs" / "personality-format.md").read_text(encoding="utf-8")
    assert fill(doc, {"knobs": knobs_table(REPO / "trees")}) == doc, \
        "docs/personality-format.md is stale: run python tools/gen_docs.py"
    for name in [*NODE_TYPES, *BEHAVIOR_CLASSES]:
        assert f"| `{name}` |" in doc, name


def test_check_gives_the_share_with_a_node_and_why_each_class_is_left(tmp_path: Path, sample_resources: Path) -> None:
    done = _cli(tmp_path, "check", "--resources", str(sample_resources))
    found = re.search(r"Behaviour classes: (\d+) of (\d+) behaviours \((\d+) %\) have a node", done.stdout)
    assert found, done.stdout[-2000:]
    have, total = int(found[1]), int(found[2])
    assert total == 78 and have >= 44
    left = done.stdout.split("Behaviour classes without a node yet", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    assert left and sum(int(line.split()[1]) for line in left) == total - have
    for line in left:
        cls = line.split()[0]
        assert cls not in BEHAVIOR_CLASSES
        assert WHY_NOT_YET[cls] in line, line  # every class left says what it needs
