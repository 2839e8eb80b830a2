"""Daemon settings from config.yaml: validated, with defaults, errors naming the field.

Command-line flags win over the file; the file wins over the defaults here. Paths in the file
are relative to the file's own folder, so a service can run from any working directory.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

log = logging.getLogger(__name__)

#: Where the project's own resources and personalities live (next to the packages).
PROJECT_ROOT = Path(__file__).resolve().parents[2]
USER_RESOURCES = Path("~/.pycozmo/assets/cozmo_resources")


class ConfigError(ValueError):
    """config.yaml cannot be used; the message names the file, line (if known) and field."""


@dataclass
class Config:
    """Everything the daemon needs to start."""

    robot_host: str = "172.31.1.1"
    robot_port: int = 5551
    lost_after_s: float = 3.0
    #: waits between connection attempts: the first, doubling up to the last
    reconnect_initial_s: float = 0.5
    reconnect_max_s: float = 10.0
    #: give up connecting after this long (None: keep trying for ever)
    connect_timeout_s: float | None = None
    personality: Path = PROJECT_ROOT / "trees" / "default.yaml"
    resources: list[Path] = field(default_factory=lambda: [USER_RESOURCES.expanduser(), PROJECT_ROOT / "resources"])
    heartbeat_hz: float = 10.0
    #: real-time (SCHED_FIFO) priority asked for the thread that sends animation frames; 0 = ordinary
    frame_clock_priority: int = 10
    #: pin that thread to this CPU (None: any)
    frame_clock_cpu: int | None = None
    log_level: str = "INFO"
    source: Path | None = None

    def resource_roots(self) -> list[Path]:
        """Configured roots that exist, in order, with the project's own set always last."""
        roots = [p for p in self.resources if p.is_dir()]
        own = PROJECT_ROOT / "resources"
        if own.is_dir() and own.resolve() not in {p.resolve() for p in roots}:
            roots.append(own)
        return roots


def _where(source: Path, node: yaml.Node | None, key: str) -> str:
    line = f":{node.start_mark.line + 1}" if node is not None else ""
    return f"{source}{line}: {key}"


def load_config(path: str | Path | None) -> Config:
    """Read a config file; ``None`` means ./config.yaml if present, else the project's, else defaults."""
    if path is None:
        for candidate in (Path("config.yaml"), PROJECT_ROOT / "config.yaml"):
            if candidate.is_file():
                path = candidate
                break
        else:
            return Config()
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read: {exc.strerror}") from None
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ConfigError(f"{source}{':' + str(mark.line + 1) if mark else ''}: not valid YAML: "
                          f"{getattr(exc, 'problem', exc)}") from None
    cfg = Config(source=source)
    if root is None:
        return cfg
    if not isinstance(root, yaml.MappingNode):
        raise ConfigError(f"{source}:{root.start_mark.line + 1}: expected a mapping of settings")
    base = source.resolve().parent
    nodes = {k.value: v for k, v in root.value}
    data: dict[str, Any] = yaml.safe_load(text) or {}
    known = {"robot", "personality", "resources", "heartbeat_hz", "frame_clock", "logging", "dashboard"}
    for key in data:
        if key not in known:
            raise ConfigError(f"{_where(source, nodes.get(key), key)}: unknown setting; expected one of "
                              f"{', '.join(sorted(known))}")
    robot = data.get("robot") or {}
    if not isinstance(robot, dict):
        raise ConfigError(f"{_where(source, nodes.get('robot'), 'robot')}: expected a mapping (host, port, ...)")
    robot_keys = ("host", "port", "lost_after_s", "reconnect_initial_s", "reconnect_max_s", "connect_timeout_s")
    for key in robot:
        if key not in robot_keys:
            raise ConfigError(f"{_where(source, nodes.get('robot'), 'robot.' + str(key))}: unknown setting; expected "
                              f"one of {', '.join(robot_keys)}")
    if "host" in robot:
        cfg.robot_host = str(robot["host"])
    if "port" in robot:
        cfg.robot_port = _number(robot["port"], int, 1, 65535, source, nodes.get("robot"), "robot.port")
    if "lost_after_s" in robot:
        cfg.lost_after_s = _number(robot["lost_after_s"], float, 0.2, 60, source, nodes.get("robot"),
                                   "robot.lost_after_s")
    if "reconnect_initial_s" in robot:
        cfg.reconnect_initial_s = _number(robot["reconnect_initial_s"], float, 0.05, 60, source, nodes.get("robot"),
                                          "robot.reconnect_initial_s")
    if "reconnect_max_s" in robot:
        cfg.reconnect_max_s = _number(robot["reconnect_max_s"], float, cfg.reconnect_initial_s, 3600, source,
                                      nodes.get("robot"), "robot.reconnect_max_s")
    elif cfg.reconnect_max_s < cfg.reconnect_initial_s:
        cfg.reconnect_max_s = cfg.reconnect_initial_s
    if robot.get("connect_timeout_s") is not None:
        cfg.connect_timeout_s = _number(robot["connect_timeout_s"], float, 0.1, 86400, source, nodes.get("robot"),
                                        "robot.connect_timeout_s")
    if data.get("personality"):
        cfg.personality = (base / str(data["personality"])).resolve()
    if "resources" in data:
        res = data["resources"]
        if not isinstance(res, list) or not all(isinstance(r, str) for r in res):
            raise ConfigError(f"{_where(source, nodes.get('resources'), 'resources')}: expected a list of folders")
        cfg.resources = [(base / Path(r).expanduser()).resolve() for r in res]
    if "heartbeat_hz" in data:
        cfg.heartbeat_hz = _number(data["heartbeat_hz"], float, 0.5, 100, source, nodes.get("heartbeat_hz"),
                                   "heartbeat_hz")
    clock = data.get("frame_clock") or {}
    if not isinstance(clock, dict):
        raise ConfigError(f"{_where(source, nodes.get('frame_clock'), 'frame_clock')}: expected a mapping "
                          "(priority, cpu)")
    for key in clock:
        if key not in ("priority", "cpu"):
            raise ConfigError(f"{_where(source, nodes.get('frame_clock'), 'frame_clock.' + str(key))}: unknown "
                              "setting; expected priority or cpu")
    if "priority" in clock:
        cfg.frame_clock_priority = _number(clock["priority"], int, 0, 99, source, nodes.get("frame_clock"),
                                           "frame_clock.priority")
    if clock.get("cpu") is not None:
        cfg.frame_clock_cpu = _number(clock["cpu"], int, 0, 1023, source, nodes.get("frame_clock"), "frame_clock.cpu")
    logging_cfg = data.get("logging") or {}
    if isinstance(logging_cfg, dict) and "level" in logging_cfg:
        level = str(logging_cfg["level"]).upper()
        if level not in {"DEBUG", "INFO", "WARNING", "ERROR"}:
            raise ConfigError(f"{_where(source, nodes.get('logging'), 'logging.level')}: expected DEBUG, INFO, "
                              f"WARNING or ERROR, got {level!r}")
        cfg.log_level = level
    return cfg


def _number(value: Any, typ: type, lo: float, hi: float, source: Path, node: yaml.Node | None, key: str) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{_where(source, node, key)}: expected a number, got {value!r}")
    if not lo <= value <= hi:
        raise ConfigError(f"{_where(source, node, key)}: expected {lo}..{hi}, got {value}")
    return typ(value)


def parse_robot_address(text: str, default_port: int = 5551) -> tuple[str, int]:
    """``HOST[:PORT]`` → (host, port); raises ConfigError on a bad port."""
    host, _, port = text.rpartition(":") if text.count(":") == 1 else (text, "", "")
    if not port:
        return text, default_port
    try:
        value = int(port)
    except ValueError:
        raise ConfigError(f"--robot {text}: port must be a number") from None
    if not 1 <= value <= 65535:
        raise ConfigError(f"--robot {text}: port must be 1..65535")
    return host, value
