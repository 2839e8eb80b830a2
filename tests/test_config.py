"""Settings: the search order of config.yaml, personalities by name, the robot connection keys.

The search order and name lookup are exercised through the command line (``main``), which is
what users run; only the system folder (/etc/cozmo-brain) is redirected into the test's folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.app import config, paths
from brain.app.cli import main
from brain.app.config import Config, ConfigError, load_config

MINE = "name: mine\nroot: {type: wait, name: just waiting, params: {seconds: 1}}\n"


@pytest.fixture
def places(monkeypatch, tmp_path):
    """An empty working folder, and the user and system settings folders, all inside tmp_path."""
    work, xdg, etc = tmp_path / "work", tmp_path / "xdg", tmp_path / "etc"
    for d in (work, xdg / "cozmo-brain", etc):
        d.mkdir(parents=True)
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    monkeypatch.setattr(config, "SYSTEM_CONFIG_DIR", etc)
    return {"work": work, "user": xdg / "cozmo-brain", "system": etc}


def _tree(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["tree", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _shown(out: str) -> str:
    """The personality name ``tree`` shows on its first line."""
    return out.splitlines()[0].split()[1]


def test_the_first_settings_file_found_wins_and_is_logged(places, capsys):
    (places["user"] / "config.yaml").write_text("personality: sleepy\n")
    (places["system"] / "config.yaml").write_text("personality: playful\n")
    (places["work"] / "config.yaml").write_text("personality: mine.yaml\n")
    (places["work"] / "mine.yaml").write_text(MINE)
    steps = [("user", "sleepy"), ("system", "playful"), ("work", "mine")]
    for place, shown in steps:
        code, out, err = _tree(capsys)
        assert code == 0, err
        assert _shown(out) == shown
        assert f"settings: {places[place] / 'config.yaml'}\n" in err
        (places[place] / "config.yaml").unlink()
    code, out, err = _tree(capsys)
    assert code == 0 and _shown(out) == "default"
    assert f"settings: {paths.default_config()} (the packaged defaults)" in err


def test_an_explicit_config_beats_the_search(places, capsys, tmp_path):
    (places["user"] / "config.yaml").write_text("personality: sleepy\n")
    other = tmp_path / "elsewhere" / "c.yaml"
    other.parent.mkdir()
    other.write_text("personality: playful\n")
    code, out, err = _tree(capsys, "--config", str(other))
    assert code == 0 and _shown(out) == "playful"
    code, out, _ = _tree(capsys)  # --config before the subcommand works the same
    assert _shown(out) == "sleepy"
    assert main(["--config", str(other), "tree"]) == 0
    assert _shown(capsys.readouterr().out) == "playful"


def test_a_missing_explicit_config_is_an_error(places, capsys):
    code, _, err = _tree(capsys, "--config", "nope.yaml")
    assert code == 1 and "nope.yaml: cannot read" in err


def test_personalities_by_name_beside_the_settings_file_first(places, capsys):
    (places["user"] / "trees").mkdir()
    (places["user"] / "trees" / "playful.yaml").write_text(MINE.replace("mine", "my playful"))
    code, out, _ = _tree(capsys, "--personality", "playful")
    assert code == 0 and _shown(out) == "my"  # the user's own 'playful' shadows the packaged one
    (places["user"] / "trees" / "playful.yaml").unlink()
    code, out, _ = _tree(capsys, "--personality", "playful.yaml")
    assert code == 0 and out.startswith(f"personality: playful ({paths.packaged_personalities() / 'playful.yaml'})")


def test_a_personality_named_in_the_file_is_relative_to_the_file(places, capsys, tmp_path):
    folder = tmp_path / "robot1"
    (folder / "trees").mkdir(parents=True)
    (folder / "trees" / "mine.yaml").write_text(MINE)
    (folder / "config.yaml").write_text("personality: mine\n")
    code, out, _ = _tree(capsys, "--config", str(folder / "config.yaml"))
    assert code == 0 and out.startswith(f"personality: mine ({folder / 'trees' / 'mine.yaml'})")
    (folder / "config.yaml").write_text("personality: trees/mine.yaml\n")
    code, out, _ = _tree(capsys, "--config", str(folder / "config.yaml"))
    assert code == 0 and _shown(out) == "mine"


def test_an_unknown_personality_name_says_where_it_looked(places, capsys):
    code, _, err = _tree(capsys, "--personality", "grumpy")
    assert code == 1
    assert f"--personality: {places['work'] / 'grumpy'}: personality file not found, and no personality named " \
           "'grumpy' in " in err
    assert str(paths.packaged_personalities()) in err and "known names: " in err and "playful" in err


def test_an_unknown_personality_in_the_file_names_file_and_line(places, capsys):
    (places["work"] / "config.yaml").write_text("heartbeat_hz: 10\npersonality: grumpy\n")
    code, _, err = _tree(capsys)
    assert code == 1
    assert f"{places['work'] / 'config.yaml'}:2: personality: {places['work'] / 'grumpy'}: personality file not found" \
        in err


def test_robot_connection_settings(tmp_path: Path) -> None:
    cfg_file = tmp_path / "c.yaml"
    cfg_file.write_text("robot:\n  reconnect_initial_s: 0.25\n  reconnect_max_s: 5\n  connect_timeout_s: 30\n")
    cfg = load_config(cfg_file)
    assert (cfg.reconnect_initial_s, cfg.reconnect_max_s, cfg.connect_timeout_s) == (0.25, 5.0, 30.0)
    cfg_file.write_text("robot:\n  connect_timeout_s: null\n")
    assert load_config(cfg_file).connect_timeout_s is None
    defaults = Config()
    assert (defaults.reconnect_initial_s, defaults.reconnect_max_s, defaults.connect_timeout_s) == (0.5, 10.0, None)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("robot:\n  reconnect_initial_s: 0", "c.yaml:2: robot.reconnect_initial_s: expected 0.01..60, got 0"),
        ("robot:\n  host: x\n  reconnect_max_s: slow",
         "c.yaml:3: robot.reconnect_max_s: expected a number, got 'slow'"),
        ("robot:\n  reconnect_initial_s: 4\n  reconnect_max_s: 2",
         "c.yaml:3: robot.reconnect_max_s: reconnect_max_s (2) must not be less than reconnect_initial_s (4)"),
        ("robot:\n  reconnect_initial_s: 20", "c.yaml:2: robot.reconnect_initial_s: reconnect_max_s (10) must not"),
        ("robot:\n  connect_timeout_s: -1", "c.yaml:2: robot.connect_timeout_s: expected 0.1..86400, got -1"),
        ("robot:\n  port: 5551\n  retry: 3", "c.yaml:3: robot.retry: unknown setting; expected one of host, port"),
        ("robot:\n  port: 5551.5", "c.yaml:2: robot.port: expected a whole number, got 5551.5"),
        ("robot:\n  host: 7", "c.yaml:2: robot.host: expected a host name or address, got 7"),
        ("logging:\n  level: INFO\n  file: x.log", "c.yaml:3: logging.file: unknown setting; expected level"),
        ("personality: 3", "c.yaml:1: personality: expected a file or a personality name, got 3"),
        ("vision: sometimes", "c.yaml:1: vision: expected true, false or a mapping (enabled, color, faces"),
        ("vision:\n  faces: 1", "c.yaml:2: vision.faces: expected true or false, got 1"),
        ("vision:\n  face_interval_s: -1", "c.yaml:2: vision.face_interval_s: expected 0..60, got -1"),
        ("vision:\n  enabled: true\n  fps: 30", "c.yaml:3: vision.fps: unknown setting; expected one of enabled"),
    ],
)
def test_errors_name_file_line_and_field(tmp_path: Path, text: str, message: str) -> None:
    cfg_file = tmp_path / "c.yaml"
    cfg_file.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(cfg_file)
    assert message in str(info.value)


def test_vision_settings(tmp_path: Path) -> None:
    cfg_file = tmp_path / "c.yaml"
    assert Config().vision.enabled and load_config().vision == Config().vision  # the packaged file says the defaults
    cfg_file.write_text("vision: false\n")
    assert not load_config(cfg_file).vision.enabled
    cfg_file.write_text("vision:\n  color: true\n  motion: false\n  face_interval_s: 0\n")
    vision = load_config(cfg_file).vision
    assert (vision.enabled, vision.color, vision.faces, vision.motion, vision.face_interval_s) == (
        True, True, True, False, 0.0)


def test_dashboard_is_accepted(tmp_path: Path) -> None:
    cfg_file = tmp_path / "c.yaml"
    cfg_file.write_text("dashboard: 127.0.0.1:8080\n")
    assert load_config(cfg_file).source == cfg_file


def test_the_packaged_resources_are_always_the_last_root(tmp_path: Path) -> None:
    own = tmp_path / "own"
    own.mkdir()
    cfg_file = tmp_path / "c.yaml"
    cfg_file.write_text("resources: [own, absent]\n")
    cfg = load_config(cfg_file)
    assert cfg.resource_roots() == [own, paths.packaged_resources()]
    assert cfg.resource_roots([str(own)]) == [own, paths.packaged_resources()]
    assert cfg.resource_roots([str(own)], fallback=False) == [own]
    with pytest.raises(ConfigError, match="absent: resource folder not found"):
        cfg.resource_roots([str(tmp_path / "absent")])
