"""``cozmo-brain service print-unit``: the systemd unit for this installation.

The unit file is package data (``brain/_data/systemd/cozmo-brain.service``, a template, found by
:func:`brain.app.paths.unit_template`): ``print-unit`` fills in the command line of *this*
installation — the ``cozmo-brain`` script beside the running interpreter (so a virtual
environment's, not whatever is first on ``PATH``), the config file and the robot's address when
given — and the user to run as (a ``DynamicUser`` unless ``--user`` names one). The unit runs
the daemon as ``Type=notify`` (see :mod:`brain.app.notify`), with a watchdog, reload by SIGHUP,
restart on failure and the right to a real-time priority for the animation frame thread.
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from pathlib import Path

from . import paths

__all__ = ["render_unit", "service_command"]

log = logging.getLogger("cozmo_brain")

_USER_NAME = re.compile(r"^[a-z_][a-z0-9_-]*[$]?$", re.IGNORECASE)


def _quote(arg: str) -> str:
    """One ExecStart= argument, quoted for systemd (``%`` specifiers and ``$`` variables escaped)."""
    arg = arg.replace("%", "%%").replace("$", "$$")
    if arg and not re.search(r'[\s"\'\\;]', arg):
        return arg
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


def command_line(*, config: Path | None = None, robot: str | None = None) -> list[str]:
    """The daemon's command line for this installation."""
    exe = Path(sys.executable).absolute()
    script = exe.parent / "cozmo-brain"
    argv = [str(script)] if script.is_file() else [str(exe), "-m", "brain"]
    argv.append("run")
    if robot:
        argv += ["--robot", robot]
    if config is not None:
        argv += ["--config", str(config)]
    return argv


def render_unit(*, user: str | None = None, config: Path | None = None, robot: str | None = None) -> str:
    """The unit file's text."""
    template = paths.unit_template().read_text(encoding="utf-8")
    exec_start = " ".join(_quote(a) for a in command_line(config=config, robot=robot))
    user_lines = f"User={user}" if user else "DynamicUser=yes"
    return template.replace("@EXEC_START@", exec_start).replace("@USER@", user_lines)


def service_command(args: argparse.Namespace) -> int:
    """``cozmo-brain service print-unit [--user USER] [--config FILE] [--robot HOST[:PORT]]``."""
    if args.service_command != "print-unit":  # pragma: no cover - argparse allows no other
        log.error("unknown service action %r", args.service_command)
        return 2
    user = getattr(args, "user", None)
    if user is not None and not _USER_NAME.match(user):
        log.error("--user %s: not a user name", user)
        return 2
    robot = getattr(args, "robot", None)
    if robot is not None:
        from .config import ConfigError, parse_robot_address

        try:
            parse_robot_address(robot)
        except ConfigError as exc:
            log.error("%s", exc)
            return 2
    config = Path(args.config).expanduser().absolute() if getattr(args, "config", None) else None
    if config is not None and not config.is_file():
        log.warning("%s: no such file yet; the service will not start without it", config)
    try:
        unit = render_unit(user=user, config=config, robot=robot)
    except (OSError, paths.PackagedDataError) as exc:
        log.error("cannot read the unit template: %s", exc)
        return 1
    sys.stdout.write(unit)
    return 0
