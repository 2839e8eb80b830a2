"""``cozmo-brain check``: report contents, exit codes, default roots, personality hook."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from brain.app import config, paths
from brain.app.check import check_command
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
    assert "Personality p.yaml (1 issue)" in proc.stdout
    assert re.search(r"p\.yaml:5: .*animation trigger 'NoSuchTrigger'", proc.stdout), proc.stdout


LIGHTS = """\
name: lit
root:
  type: sequence
  children:
    - {type: backpack_lights, params: {pattern: calmm}}
    - {type: backpack_lights, params: {pattern: calm}}
    - {type: backpack_lights, params: {pattern: lowBattery}}
    - {type: cube_lights, params: {trigger: Conected}}
    - {type: cube_lights, params: {trigger: Connected}}
"""


def test_light_names_the_resources_lack_are_reported_with_file_and_line(tmp_path):
    """A backpack pattern or cube light that is neither built in nor in the resources would fail
    every time the node runs; the check says so where it is written, with the likely name."""
    (tmp_path / "p.yaml").write_text(LIGHTS)
    proc = _check_cli(tmp_path, "--personality", "p.yaml")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # warnings only
    assert "Personality p.yaml (2 issues)" in proc.stdout, proc.stdout
    assert re.search(r"p\.yaml:5: root\.children\[0\]\.params\.pattern: 'calmm' is neither a built-in backpack "
                     r"pattern nor a backpack light file of the resource set; did you mean 'calm'\?", proc.stdout)
    assert re.search(r"p\.yaml:8: root\.children\[3\]\.params\.trigger: 'Conected' is neither a cube light trigger "
                     r"nor a cube light file of the resource set; did you mean 'Connected'", proc.stdout)


def test_a_bare_off_is_a_colour_and_elsewhere_a_quoting_hint(tmp_path):
    """YAML reads a bare off as false: in a colour list it can only be the colour; where a name
    is expected the error says to quote it."""
    (tmp_path / "p.yaml").write_text(LIGHTS.replace("pattern: calmm", "pattern: off").replace(
        "pattern: calm}", "colors: [off, cyan, cyan, cyan, off]}").replace("trigger: Conected", "trigger: Connected"))
    proc = _check_cli(tmp_path, "--personality", "p.yaml")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Personality p.yaml (1 issue)" in proc.stdout, proc.stdout
    assert re.search(r"p\.yaml:5: root\.children\[0\]\.params\.pattern: expected a non-empty string, got False "
                     r"\(YAML reads a bare on, off, yes or no as true or false: put the name in quotes\)", proc.stdout)


def test_personality_errors_fail_the_check(tmp_path):
    (tmp_path / "p.yaml").write_text(WARNED.replace("seconds: 1}", "seconds: lots}"))
    proc = _check_cli(tmp_path, "--personality", "p.yaml")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert re.search(r"p\.yaml:6: root\.children\[1\]\.params\.seconds: expected a number", proc.stdout), proc.stdout


def test_a_personality_by_name(tmp_path):
    proc = _check_cli(tmp_path, "--personality", "sleepy")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"Personality {paths.packaged_personalities() / 'sleepy.yaml'} " in proc.stdout


@pytest.fixture
def no_user_config(monkeypatch, tmp_path):
    """An empty working folder, no user or system settings, no PyCozmo resource download."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(config, "SYSTEM_CONFIG_DIR", tmp_path / "etc")
    return work


def _roots(report: str) -> list[str]:
    return [line.split(". ", 1)[1] for line in report.splitlines() if line[:2] == "  " and line[2:3].isdigit()
            and line[3:5] == ". "]


def test_default_roots_from_the_config_file(generated, tmp_path, no_user_config, capsys):
    cfg = tmp_path / "config.yaml"
    rel = Path("..") / generated.name
    cfg.write_text(f"resources:\n  - {tmp_path / 'absent'}\n  - {rel}\n")
    assert check_command(args(None, config=str(cfg))) == 0
    roots = _roots(capsys.readouterr().out)
    # the absent root is skipped, the relative one is taken from the file's folder, the packaged set comes last
    assert roots == [str((tmp_path / rel).resolve() / "cozmo_resources"),
                     str(paths.packaged_resources() / "cozmo_resources")]


def test_default_roots_without_any_settings_file_are_the_packaged_ones(no_user_config, capsys):
    assert main(["check"]) == 0
    assert _roots(capsys.readouterr().out) == [str(paths.packaged_resources() / "cozmo_resources")]


def test_no_roots_at_all_is_an_error(no_user_config, monkeypatch, tmp_path, capsys):
    cfg = tmp_path / "config.yaml"
    cfg.write_text(f"resources: [{tmp_path / 'absent'}]\n")
    monkeypatch.setattr(paths, "packaged_resources", lambda: tmp_path / "not-installed")
    assert check_command(args(None, config=str(cfg))) == 1
    assert "no resource roots to load" in capsys.readouterr().out
