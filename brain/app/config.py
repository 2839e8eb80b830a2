"""Daemon settings: the one reader of config.yaml, and where personalities and resources are found.

Every command (``run``, ``simulate``, ``check``, ``tree``, ``anim``) reads its settings here and
nowhere else. The file used is the first of:

1. ``--config FILE``;
2. ``$XDG_CONFIG_HOME/cozmo-brain/config.yaml`` (``~/.config`` when the variable is unset);
3. ``/etc/cozmo-brain/config.yaml``;
4. ``./config.yaml``;
5. the packaged default (:func:`brain.app.paths.default_config`),

so a user's own settings win and an installed wheel still runs from an empty folder. Which file
is used is logged. Command-line flags win over the file; the file wins over the defaults here.
Paths in the file are relative to the file's own folder, so a service can run from any working
directory. Every value is validated, and an error names the file, the line and the field.

A personality is given as a file or by name: ``playful`` is ``trees/playful.yaml`` in the folder
of the config file in use, then in each config folder above (in that order), then among the
packaged personalities. Resource roots are searched in the configured order, and the packaged
resources are always the last fallback.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from driver.animation.sound_cache import default_sound_cache

from . import paths

__all__ = [
    "VisionSettings",
    "Config",
    "ConfigError",
    "config_dirs",
    "find_config",
    "load_config",
    "parse_dashboard_address",
    "parse_robot_address",
    "personality_dirs",
    "resolve_personality",
]

log = logging.getLogger(__name__)

#: Where PyCozmo's resource download puts the Cozmo app's tree: the first resource root by default.
USER_RESOURCES = "~/.pycozmo/assets/cozmo_resources"
#: The folder name of this program's settings under the XDG config home and /etc.
APP_DIR = "cozmo-brain"
CONFIG_NAME = "config.yaml"
#: The system-wide settings folder (second in the search order, after the user's).
SYSTEM_CONFIG_DIR = Path("/etc") / APP_DIR
#: The folder beside a config file where personalities are looked up by name.
PERSONALITY_DIR = "trees"
PERSONALITY_SUFFIXES = (".yaml", ".yml")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
#: A dashboard token shorter than this is refused: it guards a robot that moves.
DASHBOARD_TOKEN_MIN = 16


@dataclass(frozen=True)
class VisionSettings:
    """The ``vision:`` section: the camera and what runs on its pictures (``--no-vision`` turns it off).

    ``faces`` and ``motion`` switch the face detector and the motion detector; their intervals
    are seconds of capture time between two runs (0: every frame); ``color`` asks the robot for
    colour pictures (the detectors read grey; colour is for the dashboard's camera view).
    """

    enabled: bool = True
    color: bool = False
    faces: bool = True
    motion: bool = True
    face_interval_s: float = 0.3
    face_still_interval_s: float = 1.0
    motion_interval_s: float = 0.0


VISION_KEYS = ("enabled", "color", "faces", "motion", "face_interval_s", "face_still_interval_s", "motion_interval_s")


class ConfigError(ValueError):
    """Settings cannot be used; the message names the file, line (if known) and field."""


def _default_resources() -> list[Path]:
    return [Path(os.path.expanduser(USER_RESOURCES)), paths.packaged_resources()]


@dataclass
class Config:
    """Everything the daemon needs to start."""

    robot_host: str = "172.31.1.1"
    robot_port: int = 5551
    lost_after_s: float = 3.0
    #: first wait before trying to reach the robot again; doubles up to ``reconnect_max_s``
    reconnect_initial_s: float = 0.5
    reconnect_max_s: float = 10.0
    #: give up connecting after this long (None: keep trying for ever)
    connect_timeout_s: float | None = None
    personality: Path = field(default_factory=paths.default_personality)
    resources: list[Path] = field(default_factory=_default_resources)
    heartbeat_hz: float = 10.0
    #: real-time (SCHED_FIFO) priority asked for the thread that sends animation frames; 0 = ordinary
    frame_clock_priority: int = 10
    #: pin that thread to this CPU (None: any)
    frame_clock_cpu: int | None = None
    log_level: str = "INFO"
    #: ``run --record``: size of one recording file (MB) before it rotates, and older files kept
    record_max_mb: float = 20.0
    record_files: int = 5
    #: where converted sounds are kept between runs (None: converted at every start; see
    #: driver.animation.sound_cache)
    sound_cache: Path | None = field(default_factory=default_sound_cache)
    #: ``run``'s dashboard: served at this ``HOST:PORT`` (None: off unless ``--dashboard`` asks)
    dashboard_address: str | None = None
    #: the token every dashboard request must carry; required on any address but the loopback's own
    dashboard_token: str | None = field(default=None, repr=False)
    #: let the dashboard act (world events, behaviours, emotions, reload) on a real robot too
    dashboard_allow_control: bool = False
    #: ``run`` streams the camera into vision (faces, motion) once connected and after every reconnection
    vision: VisionSettings = field(default_factory=lambda: VisionSettings())
    #: the file these settings came from (None: built-in defaults only)
    source: Path | None = None
    #: where the personality setting was written ("file:line: personality"), for error messages
    personality_origin: str = field(default="", repr=False)

    def resource_roots(self, given: Sequence[str | os.PathLike[str]] | None = None, *,
                       fallback: bool = True) -> list[Path]:
        """The resource roots to load, in search order.

        ``given`` (``--resources``) replaces the configured list and must exist (ConfigError
        otherwise); configured roots that do not exist are skipped, so a user without the app's
        files simply gets the packaged set. With ``fallback`` the packaged resources come last
        unless already listed.
        """
        if given:
            roots = [Path(os.path.expanduser(os.fspath(r))) for r in given]
            for root in roots:
                if not root.is_dir():
                    raise ConfigError(f"{root}: resource folder not found")
        else:
            roots = [p for p in self.resources if p.is_dir()]
        if fallback:
            own = paths.packaged_resources()
            if own.is_dir() and own not in {p.resolve() for p in roots}:
                roots.append(own)
        return roots

    def select_personality(self, given: str | os.PathLike[str] | None = None) -> Path:
        """The personality file to run: ``given`` (``--personality``: a file or a name), else the configured one.

        Raises ConfigError naming what was asked for and where it was looked for.
        """
        if given is not None and os.fspath(given) != "":
            return resolve_personality(os.fspath(given), Path.cwd(), self, origin="--personality")
        if self.personality.is_file():
            return self.personality
        where = self.personality_origin or "personality"
        raise ConfigError(f"{where}: {self.personality}: personality file not found")


# ----------------------------------------------------------------------------- finding files


def _user_config_dir(environ: Mapping[str, str]) -> Path | None:
    base = environ.get("XDG_CONFIG_HOME", "")
    if base and os.path.isabs(base):
        return Path(base) / APP_DIR
    home = os.path.expanduser("~")
    return Path(home) / ".config" / APP_DIR if os.path.isabs(home) else None


def config_dirs(environ: Mapping[str, str] | None = None) -> list[Path]:
    """The folders searched for ``config.yaml``, highest priority first (without the packaged default)."""
    user = _user_config_dir(os.environ if environ is None else environ)
    try:
        cwd: Path | None = Path.cwd()
    except OSError:  # the working folder was removed under us: there is no ./config.yaml
        cwd = None
    return [d for d in (user, SYSTEM_CONFIG_DIR, cwd) if d is not None]


def find_config(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The settings file to read: ``explicit``, else the first that exists in the search order."""
    if explicit is not None:
        return Path(explicit)
    for folder in config_dirs():
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return candidate
    return paths.default_config()


def personality_dirs(cfg: Config | None = None) -> list[Path]:
    """Folders searched for a personality given by name, in order (only those that exist)."""
    candidates: list[Path] = []
    if cfg is not None and cfg.source is not None and cfg.source.resolve() != paths.default_config():
        candidates.append(cfg.source.resolve().parent / PERSONALITY_DIR)
    candidates += [d / PERSONALITY_DIR for d in config_dirs()]
    candidates.append(paths.packaged_personalities())
    out: list[Path] = []
    for d in candidates:
        if d.is_dir() and d.resolve() not in out:
            out.append(d.resolve())
    return out


def resolve_personality(value: str, base: Path, cfg: Config | None = None, *, origin: str = "personality") -> Path:
    """A personality file from a path (relative to ``base``) or a name (``playful``).

    A value that names an existing file is that file. A value without a folder part is also
    looked up by name (``playful`` or ``playful.yaml``) in :func:`personality_dirs`. ``origin``
    says where the value came from, for the error message.
    """
    path = base / os.path.expanduser(value)
    if path.is_file():
        return path.resolve()
    if os.sep in value or (os.altsep and os.altsep in value):
        raise ConfigError(f"{origin}: {path}: personality file not found")
    stem = value[: -len(Path(value).suffix)] if Path(value).suffix in PERSONALITY_SUFFIXES else value
    searched = personality_dirs(cfg)
    for folder in searched:
        for suffix in PERSONALITY_SUFFIXES:
            candidate = folder / (stem + suffix)
            if candidate.is_file():
                return candidate
    names = sorted({p.stem for d in searched for s in PERSONALITY_SUFFIXES for p in d.glob("*" + s)})
    raise ConfigError(f"{origin}: {path}: personality file not found, and no personality named {stem!r} in "
                      f"{', '.join(map(str, searched)) or 'any personality folder'}"
                      f"{'; known names: ' + ', '.join(names) if names else ''}")


# ----------------------------------------------------------------------------- reading the file


class _Fields:
    """The key and value nodes of one YAML mapping, for line numbers in messages."""

    def __init__(self, source: Path, node: yaml.Node | None, prefix: str = "") -> None:
        self.source = source
        self.prefix = prefix
        self.node = node
        self.keys: dict[str, yaml.Node] = {}
        if isinstance(node, yaml.MappingNode):
            for key, _value in node.value:
                self.keys[str(key.value)] = key

    def where(self, key: str) -> str:
        node = self.keys.get(key, self.node)
        line = f":{node.start_mark.line + 1}" if node is not None else ""
        return f"{self.source}{line}: {self.prefix}{key}"

    def child(self, key: str) -> _Fields:
        for k, value in self.node.value if isinstance(self.node, yaml.MappingNode) else ():
            if str(k.value) == key:
                return _Fields(self.source, value, f"{self.prefix}{key}.")
        return _Fields(self.source, None, f"{self.prefix}{key}.")

    def only(self, data: Mapping[Any, Any], allowed: Sequence[str]) -> None:
        for key in data:
            if key not in allowed:
                raise ConfigError(f"{self.where(str(key))}: unknown setting; expected "
                                  f"{' or '.join(allowed) if len(allowed) < 3 else 'one of ' + ', '.join(allowed)}")

    def mapping(self, data: Mapping[str, Any], key: str, what: str) -> dict[str, Any]:
        value = data.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise ConfigError(f"{self.where(key)}: expected a mapping ({what})")
        return value

    def number(self, data: Mapping[str, Any], key: str, typ: type, lo: float, hi: float) -> Any:
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{self.where(key)}: expected a number, got {value!r}")
        if typ is int and value != int(value):
            raise ConfigError(f"{self.where(key)}: expected a whole number, got {value}")
        if not lo <= value <= hi:
            raise ConfigError(f"{self.where(key)}: expected {lo:g}..{hi:g}, got {value}")
        return typ(value)


TOP_LEVEL = ("robot", "personality", "resources", "heartbeat_hz", "frame_clock", "logging", "dashboard", "record",
             "vision", "sound_cache")
ROBOT_KEYS = ("host", "port", "lost_after_s", "reconnect_initial_s", "reconnect_max_s", "connect_timeout_s")


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """Read the settings: ``path``, else the first file of the search order (see the module's doc)."""
    source = find_config(path)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read: {exc.strerror or exc}") from None
    try:
        root = yaml.compose(text)
        data: Any = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ConfigError(f"{source}{':' + str(mark.line + 1) if mark else ''}: not valid YAML: "
                          f"{getattr(exc, 'problem', None) or exc}") from None
    packaged = source.resolve() == paths.default_config()
    log.info("settings: %s%s", source, " (the packaged defaults)" if packaged else "")
    cfg = Config(source=source)
    if data is None:
        return cfg
    top = _Fields(source, root)
    if not isinstance(data, dict):
        raise ConfigError(f"{source}:{root.start_mark.line + 1 if root else 1}: expected a mapping of settings")
    top.only(data, TOP_LEVEL)
    base = source.resolve().parent
    _read_robot(cfg, top.mapping(data, "robot", "host, port, ..."), top.child("robot"))
    if data.get("personality") is not None:
        value = data["personality"]
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{top.where('personality')}: expected a file or a personality name, got {value!r}")
        cfg.personality_origin = top.where("personality")
        try:
            cfg.personality = resolve_personality(value, base, cfg, origin=cfg.personality_origin)
        except ConfigError:
            cfg.personality = base / value  # reported when a command needs it (select_personality)
    if "resources" in data:
        res = data["resources"]
        if not isinstance(res, list) or not all(isinstance(r, str) for r in res):
            raise ConfigError(f"{top.where('resources')}: expected a list of folders")
        cfg.resources = [(base / os.path.expanduser(r)).resolve() for r in res]
    if "heartbeat_hz" in data:
        cfg.heartbeat_hz = top.number(data, "heartbeat_hz", float, 0.5, 100)
    clock = top.mapping(data, "frame_clock", "priority, cpu")
    fields = top.child("frame_clock")
    fields.only(clock, ("priority", "cpu"))
    if "priority" in clock:
        cfg.frame_clock_priority = fields.number(clock, "priority", int, 0, 99)
    if clock.get("cpu") is not None:
        cfg.frame_clock_cpu = fields.number(clock, "cpu", int, 0, 1023)
    record = top.mapping(data, "record", "max_mb, files")
    fields = top.child("record")
    fields.only(record, ("max_mb", "files"))
    if "max_mb" in record:
        cfg.record_max_mb = fields.number(record, "max_mb", float, 0.01, 100_000)
    if "files" in record:
        cfg.record_files = fields.number(record, "files", int, 0, 1000)
    if "sound_cache" in data:
        value = data["sound_cache"]
        if value is None or value is False:
            cfg.sound_cache = None
        elif isinstance(value, str) and value:
            cfg.sound_cache = (base / os.path.expanduser(value)).resolve()
        else:
            raise ConfigError(f"{top.where('sound_cache')}: expected a folder, or false to convert sounds "
                              f"at every start, got {value!r}")
    _read_dashboard(cfg, data.get("dashboard"), top)
    cfg.vision = _read_vision(data.get("vision"), top)
    logging_cfg = top.mapping(data, "logging", "level")
    fields = top.child("logging")
    fields.only(logging_cfg, ("level",))
    if "level" in logging_cfg:
        level = str(logging_cfg["level"]).upper()
        if level not in LOG_LEVELS:
            raise ConfigError(f"{fields.where('level')}: expected DEBUG, INFO, WARNING or ERROR, got {level!r}")
        cfg.log_level = level
    return cfg


def _read_robot(cfg: Config, robot: dict[str, Any], fields: _Fields) -> None:
    fields.only(robot, ROBOT_KEYS)
    if "host" in robot:
        if not isinstance(robot["host"], str) or not robot["host"]:
            raise ConfigError(f"{fields.where('host')}: expected a host name or address, got {robot['host']!r}")
        cfg.robot_host = robot["host"]
    if "port" in robot:
        cfg.robot_port = fields.number(robot, "port", int, 1, 65535)
    if "lost_after_s" in robot:
        cfg.lost_after_s = fields.number(robot, "lost_after_s", float, 0.2, 60)
    if "reconnect_initial_s" in robot:
        cfg.reconnect_initial_s = fields.number(robot, "reconnect_initial_s", float, 0.01, 60)
    if "reconnect_max_s" in robot:
        cfg.reconnect_max_s = fields.number(robot, "reconnect_max_s", float, 0.01, 3600)
    if cfg.reconnect_max_s < cfg.reconnect_initial_s:
        key = "reconnect_max_s" if "reconnect_max_s" in robot else "reconnect_initial_s"
        raise ConfigError(f"{fields.where(key)}: reconnect_max_s ({cfg.reconnect_max_s:g}) must not be less than "
                          f"reconnect_initial_s ({cfg.reconnect_initial_s:g})")
    if robot.get("connect_timeout_s") is not None:
        cfg.connect_timeout_s = fields.number(robot, "connect_timeout_s", float, 0.1, 86400)


def _read_vision(value: Any, top: _Fields) -> VisionSettings:
    """``vision: true|false`` or a mapping of :data:`VISION_KEYS`."""
    if value is None:
        return VisionSettings()
    if isinstance(value, bool):
        return VisionSettings(enabled=value)
    if not isinstance(value, dict):
        raise ConfigError(f"{top.where('vision')}: expected true, false or a mapping ({', '.join(VISION_KEYS)})")
    fields = top.child("vision")
    fields.only(value, VISION_KEYS)
    changes: dict[str, Any] = {}
    for key in ("enabled", "color", "faces", "motion"):
        if key in value:
            if not isinstance(value[key], bool):
                raise ConfigError(f"{fields.where(key)}: expected true or false, got {value[key]!r}")
            changes[key] = value[key]
    for key in ("face_interval_s", "face_still_interval_s", "motion_interval_s"):
        if key in value:
            changes[key] = fields.number(value, key, float, 0.0, 60.0)
    return VisionSettings(**changes)


def _read_dashboard(cfg: Config, value: Any, top: _Fields) -> None:
    """``dashboard: HOST:PORT`` (the address alone) or a mapping of address, token and allow_control."""
    if value is None:
        return
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)  # a port alone: on the loopback
    if isinstance(value, str):
        parse_dashboard_address(value, top.where("dashboard"))
        cfg.dashboard_address = value
        return
    if not isinstance(value, dict):
        raise ConfigError(f"{top.where('dashboard')}: expected HOST:PORT or a mapping (address, token, allow_control)")
    fields = top.child("dashboard")
    fields.only(value, ("address", "token", "allow_control"))
    address = value.get("address")
    if isinstance(address, int) and not isinstance(address, bool):
        address = str(address)
    if address is not None:
        if not isinstance(address, str):
            raise ConfigError(f"{fields.where('address')}: expected HOST:PORT, got {address!r}")
        parse_dashboard_address(address, fields.where("address"))
        cfg.dashboard_address = address
    token = value.get("token")
    if token is not None:
        if not isinstance(token, str) or len(token) < DASHBOARD_TOKEN_MIN or any(c.isspace() for c in token):
            shown = "a string" if isinstance(token, str) else repr(token)
            raise ConfigError(f"{fields.where('token')}: expected a secret of at least {DASHBOARD_TOKEN_MIN} "
                              f"characters without spaces, got {shown} (make one with: python3 -c "
                              f"'import secrets; print(secrets.token_urlsafe(24))')")
        cfg.dashboard_token = token
    if "allow_control" in value:
        allow = value["allow_control"]
        if not isinstance(allow, bool):
            raise ConfigError(f"{fields.where('allow_control')}: expected true or false, got {allow!r}")
        cfg.dashboard_allow_control = allow


def parse_dashboard_address(text: str, origin: str = "--dashboard") -> tuple[str, int]:
    """``HOST:PORT`` (``[v6 address]:PORT`` for IPv6) → (host, port); port 0 takes any free port.

    A port alone (``8080`` or ``:8080``) is on 127.0.0.1, the default. Raises ConfigError naming
    ``origin`` and what was expected.
    """
    if text.isdigit() or (text.startswith(":") and text[1:].isdigit()):
        text = "127.0.0.1:" + text.lstrip(":")
    host, sep, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        sep = ""  # an IPv6 address without brackets: its last part is not a port
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ConfigError(f"{origin}: expected HOST:PORT such as 127.0.0.1:8080, or a port alone "
                          f"([::1]:8080 for IPv6), got {text!r}")
    return host, int(port)


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
