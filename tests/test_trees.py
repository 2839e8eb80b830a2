"""The shipped personalities validate against the shipped resources and differ only through YAML."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from brain.assets.resource_set import ResourceSet
from brain.personality import check_personality

from .conftest import REPO

TREES = REPO / "trees"


@pytest.mark.parametrize("name", ["default", "playful", "sleepy"])
def test_personality_checks_clean(name: str) -> None:
    rs = ResourceSet.load([REPO / "resources"])
    issues = check_personality(TREES / f"{name}.yaml", rs)
    assert [str(i) for i in issues] == []


def test_variants_only_extend_the_default() -> None:
    for name in ("playful", "sleepy"):
        doc = yaml.safe_load((TREES / f"{name}.yaml").read_text())
        assert doc["extends"] == "default.yaml"
        assert "root" not in doc and "reactions" not in doc


def test_config_names_the_default_personality() -> None:
    cfg = yaml.safe_load((REPO / "config.yaml").read_text())
    assert Path(cfg["personality"]) == Path("trees/default.yaml")


def test_check_command_passes_on_the_project_defaults() -> None:
    proc = subprocess.run([sys.executable, "-m", "brain", "check", "--resources", str(REPO / "resources"),
                           "--personality", str(TREES / "default.yaml")], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 errors, 0 warnings" in proc.stdout
