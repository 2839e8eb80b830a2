"""``cozmo-brain check``: load the resource roots (and a personality), report, exit 1 on errors.

Roots come from ``--resources DIR`` (repeatable, searched in order). Without it, the
``resources:`` list of the config file is used (``--config FILE``, else ``./config.yaml``
when present), and without that the defaults: ``~/.pycozmo/assets/cozmo_resources`` when it
exists, then the project's own ``resources/``. Default roots that do not exist are skipped;
roots given explicitly must exist.

What counts as an error and what as a warning is explained in :mod:`brain.assets.report`.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from brain.assets import Issue, exit_code, format_report, load_resource_set, validate

__all__ = ["check_command", "default_roots"]

log = logging.getLogger(__name__)

#: The project checkout (brain/ lives directly in it).
REPO = Path(__file__).resolve().parents[2]
#: Where PyCozmo's resource download puts the Cozmo app's tree.
PYCOZMO_RESOURCES = Path("~/.pycozmo/assets/cozmo_resources")


def _config_roots(config: str | None) -> list[Path] | None:
    """The ``resources:`` list of the config file, relative paths taken from the file's directory."""
    path = Path(config) if config else Path("config.yaml")
    if not path.is_file():
        if config:
            log.warning("config file %s not found; using the default resource roots", config)
        return None
    try:
        data: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        log.warning("cannot read %s (%s); using the default resource roots", path, exc)
        return None
    roots = data.get("resources") if isinstance(data, dict) else None
    if roots is None:
        return None
    if isinstance(roots, str):
        roots = [roots]
    if not isinstance(roots, list) or not all(isinstance(r, str) for r in roots):
        log.warning("%s: resources: expected a list of directories; using the default resource roots", path)
        return None
    base = path.resolve().parent
    return [p if p.is_absolute() else base / p for p in (Path(r).expanduser() for r in roots)]


def default_roots(config: str | None = None) -> list[Path]:
    """The resource roots to use when none are given: the config's list, else the built-in one.

    Only existing directories are returned: a user without the Cozmo app's files simply
    gets the project's own set.
    """
    roots = _config_roots(config)
    if roots is None:
        roots = [PYCOZMO_RESOURCES.expanduser(), REPO / "resources"]
    return [r for r in roots if r.is_dir()]


def _personality_issues(path: str, rs: Any) -> list[Issue]:
    from brain.personality import check_personality

    return list(check_personality(Path(path), rs))


def check_command(args: argparse.Namespace) -> int:
    """Handler of ``cozmo-brain check``; prints the report to standard output and returns the exit code."""
    given: Sequence[str] | None = getattr(args, "resources", None)
    roots: list[Path | str] = list(given) if given else list(default_roots(getattr(args, "config", None)))
    rs = load_resource_set(roots)
    result = validate(rs)
    personality_path = getattr(args, "personality", None)
    personality = _personality_issues(personality_path, rs) if personality_path else None
    sys.stdout.write(format_report(rs, result, personality=personality, personality_path=personality_path))
    sys.stdout.flush()
    return exit_code(list(result.issues) + list(personality or ()))
