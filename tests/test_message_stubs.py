"""driver/protocol/messages.pyi: generated from the table, current, true to the runtime classes.

The message classes are built at import, so a type checker knows them only from the stub. These
tests regenerate the stub and compare it with the checked-in file, check it against the module as
it runs (mypy's stubtest: every class, field, constructor parameter, default and id), and run mypy
on a small client to show that the checker now sees the classes and catches their misuse.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
STUB = REPO / "driver" / "protocol" / "messages.pyi"


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_message_stubs", REPO / "tools" / "gen_message_stubs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_checked_in_stub_is_what_the_table_generates(generator: ModuleType) -> None:
    assert STUB.read_text(encoding="utf-8") == generator.render(), (
        "driver/protocol/messages.pyi is stale: run python tools/gen_message_stubs.py"
    )


def test_check_mode_reports_a_stale_stub_and_a_run_rewrites_it(
    generator: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = tmp_path / "messages.pyi"
    stale.write_text(STUB.read_text(encoding="utf-8").replace("angle_rad: float", "angle_rad: int"), encoding="utf-8")
    monkeypatch.setattr(generator, "STUB", stale)
    monkeypatch.setattr(generator, "REPO", tmp_path)
    assert generator.main(["--check"]) == 1
    assert generator.main([]) == 0
    assert stale.read_text(encoding="utf-8") == STUB.read_text(encoding="utf-8")
    assert generator.main(["--check"]) == 0


@pytest.mark.e2e
def test_stub_agrees_with_the_classes_built_at_import() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "driver.protocol.messages"],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


CLIENT = '''\
from driver.protocol import messages as m


def head(msg: m.Message) -> float | None:
    if isinstance(msg, m.RobotState):
        return msg.head_angle_rad
    return None


ok = m.encode(m.SetHeadAngle(angle_rad=0.3, action_id=2))
lights = m.LightStateCenter(states=[m.LightState(on_color=m.rgb555(255, 0, 0))] * 3)
msg_id: int = m.SetHeadAngle.ID
bad_field = m.SetHeadAngle(angle_rad="up")
bad_name = m.SetLiftHeight(height=40.0)
bad_attr = m.RobotState().head_angle
bad_id: None = m.RobotState.ID
'''


@pytest.mark.e2e
def test_mypy_sees_the_message_classes(tmp_path: Path) -> None:
    client = tmp_path / "client.py"
    client.write_text(CLIENT, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"),
         "--cache-dir", str(tmp_path / "cache"), str(client)],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    errors = re.findall(r"client\.py:(\d+): error: (.*)", result.stdout)
    lines = CLIENT.splitlines()
    flagged = {re.split(r"[ :=]", lines[int(n) - 1])[0] for n, _ in errors}
    assert flagged == {"bad_field", "bad_name", "bad_attr", "bad_id"}, result.stdout + result.stderr
    elsewhere = [line for line in result.stdout.splitlines() if ": error:" in line and "client.py" not in line]
    assert elsewhere == [], result.stdout
