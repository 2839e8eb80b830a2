"""config.yaml's robot section: how the daemon finds, loses and finds again its robot."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.app.config import Config, ConfigError, load_config


def test_reconnect_settings_default_to_half_a_second_doubling_to_ten_and_no_connect_limit() -> None:
    cfg = Config()
    assert (cfg.reconnect_initial_s, cfg.reconnect_max_s, cfg.connect_timeout_s) == (0.5, 10.0, None)


def test_reconnect_settings_are_read_from_the_robot_section(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("robot:\n  reconnect_initial_s: 0.2\n  reconnect_max_s: 4\n  connect_timeout_s: 30\n")
    cfg = load_config(path)
    assert (cfg.reconnect_initial_s, cfg.reconnect_max_s, cfg.connect_timeout_s) == (0.2, 4.0, 30.0)
    path.write_text("robot:\n  reconnect_initial_s: 20\n  connect_timeout_s: null\n")
    cfg = load_config(path)
    assert (cfg.reconnect_initial_s, cfg.reconnect_max_s, cfg.connect_timeout_s) == (20.0, 20.0, None)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("robot: {reconnect_initial_s: 0}", "c.yaml:1: robot.reconnect_initial_s: expected 0.05..60, got 0"),
        ("robot: {reconnect_initial_s: 2, reconnect_max_s: 1}", "c.yaml:1: robot.reconnect_max_s: expected 2.0..3600"),
        ("robot: {connect_timeout_s: soon}", "c.yaml:1: robot.connect_timeout_s: expected a number, got 'soon'"),
        ("robot:\n  reconect_max_s: 3", "c.yaml:2: robot.reconect_max_s: unknown setting; expected one of host, port"),
    ],
)
def test_bad_reconnect_settings_name_file_line_and_field(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert message in str(info.value)
