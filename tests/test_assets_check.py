"""``cozmo-brain check``: report contents, exit codes, default roots, personality hook."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from brain.app import check
from brain.app.check import check_command, default_roots
from brain.app.cli import main
from tests.bench.gen_tree import TreeSpec, generate
from tests.conftest import REPO


def args(resources: list[str] | None, personality: str | None = None, config: str | None = None) -> argparse.Namespace:
    return argparse.Namespace(resources=resources, personality=personality, config=config)


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    parent = tmp_path_factory.mktemp("tree")
    generate(parent, TreeSpec.small())
    return parent


def test_complete_tree_exits_0_with_warnings_only(generated, capsys):
    assert check_command(args([str(generated)])) == 0
    out = capsys.readouterr().out
    assert "Summary: 0 errors" in out and "-> exit 0" in out
    assert "behaviours                      30      30" in out


def test_unresolved_reference_exits_1_and_is_listed(generated, tmp_path, capsys):
    user = tmp_path / "cozmo_resources" / "config" / "engine" / "behaviorSystem"
    user.mkdir(parents=True)
    (user / "reactionTrigger_behavior_map.json").write_text(json.dumps(
        {"reactionTriggerBehaviorMap": [{"reactionTrigger": "CliffDetected", "behaviorID": "NoSuchBehaviour"}]}))
    assert check_command(args([str(tmp_path), str(generated)])) == 1
    out = capsys.readouterr().out
    (line,) = [x for x in out.splitlines() if x.startswith("  reaction → behaviour:")]
    assert line.endswith("; 1 missing")  # the user's entry; the fallback root fills in the other triggers
    assert "NoSuchBehaviour" in out
    assert "  1. " in out and "  2. " in out  # both roots, in order


def test_through_the_command_line(generated, capsys):
    assert main(["check", "--resources", str(generated), "-q"]) == 0
    assert "Resource check: 1 root" in capsys.readouterr().out


WARNED = """\
name: warned
root:
  type: sequence
  children:
    - {type: play_animation, params: {trigger: NoSuchTrigger}}
    - {type: wait, params: {seconds: 1}}
"""


def _check_cli(cwd: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "brain", "check", "--resources", str(REPO / "resources"), *extra],
                          capture_output=True, text=True, timeout=120, cwd=cwd)


def test_personality_warnings_are_reported_with_file_and_line(tmp_path):
    (tmp_path / "p.yaml").write_text(WARNED)
    proc = _check_cli(tmp_path, "--personality", "p.yaml")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # warnings only
    assert "Personality p.yaml (1 issues)" in proc.stdout
    assert re.search(r"p\.yaml:5: .*animation trigger 'NoSuchTrigger'", proc.stdout), proc.stdout


def test_personality_errors_fail_the_check(tmp_path):
    (tmp_path / "p.yaml").write_text(WARNED.replace("seconds: 1}", "seconds: lots}"))
    proc = _check_cli(tmp_path, "--personality", "p.yaml")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert re.search(r"p\.yaml:6: root\.children\[1\]\.params\.seconds: expected a number", proc.stdout), proc.stdout


def test_default_roots_from_the_config_file(generated, tmp_path):
    config = tmp_path / "config.yaml"
    rel = Path("..") / generated.name
    config.write_text(f"resources:\n  - {tmp_path / 'absent'}\n  - {rel}\n")
    roots = default_roots(str(config))
    assert roots == [tmp_path / rel]


def test_default_roots_builtin(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no ./config.yaml here
    monkeypatch.setattr(check, "PYCOZMO_RESOURCES", tmp_path / "nowhere")
    monkeypatch.setattr(check, "REPO", tmp_path)
    (tmp_path / "resources").mkdir()
    assert default_roots() == [tmp_path / "resources"]


def test_no_roots_at_all_is_an_error(monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(check, "PYCOZMO_RESOURCES", tmp_path / "nowhere")
    monkeypatch.setattr(check, "REPO", tmp_path)
    assert check_command(args(None)) == 1
    assert "no resource roots to load" in capsys.readouterr().out
