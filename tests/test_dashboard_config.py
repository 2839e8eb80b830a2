"""The dashboard's settings: ``dashboard`` in config.yaml and ``run --dashboard``.

The file's keys are read by the one settings reader; the command line's address and the
refusals that keep a dashboard from serving unsafely are checked through ``main``, as users run it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from brain.app.config import ConfigError, load_config, parse_dashboard_address

from .conftest import REPO

TOKEN = "s3cret-token-for-tests-0123"


def test_the_address_alone_or_a_mapping(tmp_path: Path) -> None:
    cfg_file = tmp_path / "c.yaml"
    cfg_file.write_text("dashboard: 127.0.0.1:8080\n")
    cfg = load_config(cfg_file)
    assert (cfg.dashboard_address, cfg.dashboard_token, cfg.dashboard_allow_control) == ("127.0.0.1:8080", None, False)
    cfg_file.write_text(f"dashboard:\n  address: 0.0.0.0:9000\n  token: {TOKEN}\n  allow_control: true\n")
    cfg = load_config(cfg_file)
    assert (cfg.dashboard_address, cfg.dashboard_token, cfg.dashboard_allow_control) == ("0.0.0.0:9000", TOKEN, True)
    assert TOKEN not in repr(cfg)  # the secret stays out of logs that print the settings
    cfg_file.write_text("dashboard: null\n")
    assert load_config(cfg_file).dashboard_address is None
    cfg_file.write_text("dashboard: 8080\n")  # a port alone: on the loopback
    assert load_config(cfg_file).dashboard_address == "8080"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("dashboard: [8080]", "c.yaml:1: dashboard: expected HOST:PORT or a mapping"),
        ("dashboard: localhost", "c.yaml:1: dashboard: expected HOST:PORT such as 127.0.0.1:8080"),
        ("dashboard:\n  address: 127.0.0.1:99999", "c.yaml:2: dashboard.address: expected HOST:PORT"),
        ("dashboard:\n  address: 127.0.0.1:80\n  token: short", "c.yaml:3: dashboard.token: expected a secret of "
                                                               "at least 16 characters"),
        ("dashboard:\n  token: has a space in it ok", "c.yaml:2: dashboard.token: expected a secret"),
        ("dashboard:\n  allow_control: yes please", "c.yaml:2: dashboard.allow_control: expected true or false"),
        ("dashboard:\n  port: 8080", "c.yaml:2: dashboard.port: unknown setting; expected one of address, token"),
    ],
)
def test_errors_name_file_line_and_field(tmp_path: Path, text: str, message: str) -> None:
    cfg_file = tmp_path / "c.yaml"
    cfg_file.write_text(text + "\n")
    with pytest.raises(ConfigError) as info:
        load_config(cfg_file)
    assert message in str(info.value)


def test_addresses() -> None:
    assert parse_dashboard_address("127.0.0.1:8080") == ("127.0.0.1", 8080)
    assert parse_dashboard_address("[::1]:8080") == ("::1", 8080)
    assert parse_dashboard_address("robot-pi.local:0") == ("robot-pi.local", 0)
    assert parse_dashboard_address("8080") == parse_dashboard_address(":8080") == ("127.0.0.1", 8080)
    for bad in ("host:", "host:http", "::1:8080", "h:-1", "99999", ":"):
        with pytest.raises(ConfigError, match="expected HOST:PORT"):
            parse_dashboard_address(bad)


def _run(tmp_path: Path, *args: str, config: str = "", python_prefix: str = "") -> subprocess.CompletedProcess[str]:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(config)
    code = (python_prefix + "import sys; from brain.app.cli import main; sys.exit(main(sys.argv[1:]))")
    return subprocess.run([sys.executable, "-c", code, "run", "--config", str(cfg), *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)


def test_a_bad_address_on_the_command_line_is_a_usage_error(tmp_path: Path) -> None:
    done = _run(tmp_path, "--sim", "--duration", "1", "--dashboard", "localhost")
    assert done.returncode == 2
    assert "--dashboard: expected HOST:PORT such as 127.0.0.1:8080" in done.stderr


@pytest.mark.e2e
def test_another_address_without_a_token_is_refused(tmp_path: Path) -> None:
    done = _run(tmp_path, "--sim", "--duration", "1", "--dashboard", "0.0.0.0:0")
    assert done.returncode == 1
    assert "needs dashboard.token in the settings" in done.stderr
    assert "connected" not in done.stderr  # refused before the robot is reached


@pytest.mark.e2e
def test_without_aiohttp_the_dashboard_says_what_to_install(tmp_path: Path) -> None:
    # aiohttp hidden from this interpreter: importing it fails as it would where it is not installed
    done = _run(tmp_path, "--sim", "--duration", "1", "--dashboard", "127.0.0.1:0",
                python_prefix="import sys; sys.modules['aiohttp'] = None; ")
    assert done.returncode == 1
    assert "pip install 'cozmo-brain[dashboard]'" in done.stderr


@pytest.mark.e2e
def test_off_it_costs_nothing(tmp_path: Path) -> None:
    """Without --dashboard the daemon never imports aiohttp (nor the dashboard's modules)."""
    code = ("import sys; from brain.app.cli import main; main(['run', '--sim', '--duration', '0.5']); "
            "print(sorted(m for m in sys.modules if m.startswith(('aiohttp', 'brain.dashboard'))))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr
