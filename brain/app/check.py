"""``cozmo-brain check``: load the resource roots (and a personality), report, exit 1 on errors.

Roots come from ``--resources DIR`` (repeatable, searched in order, checked exactly as given:
each must exist). Without it, the roots ``run`` would load are checked: the settings file's
``resources:`` list (see :mod:`brain.app.config` for which file), existing folders only, then the
packaged resources. ``--personality`` takes a file or a name, as ``run`` does.

What counts as an error and what as a warning is explained in :mod:`brain.assets.report`.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from brain.assets import Issue, Severity, exit_code, format_report, load_resource_set, validate
from brain.nodes.behavior_check import check_behavior_params, format_param_report
from brain.nodes.behavior_gaps import WHY_NOT_YET
from brain.nodes.registry import BEHAVIOR_CLASSES

from .config import ConfigError, load_config

__all__ = ["check_command"]

log = logging.getLogger(__name__)


def _personality_issues(path: str, rs: Any) -> list[Issue]:
    from brain.personality import check_personality

    return list(check_personality(Path(path), rs))


def _clip_issues(rs: Any) -> list[Issue]:
    """Decode every clip file of the index (a file that scans may still fail) and say what looks unmeant.

    The index itself only scans names; ``run`` decodes a clip when it first plays, so a bad one
    would surface mid-day. Here every file is decoded once: one error per file that fails, one
    warning per :meth:`Clip.warnings` line, reported with the file.
    """
    index = rs.clips
    if index is None:
        return []
    from driver.animation.clip import AnimationError

    issues: list[Issue] = []
    failed: set[str] = set()
    for name in index.names():
        file = str(index.location(name).file)
        if file in failed:
            continue
        try:
            clip = index.get(name)
        except AnimationError as exc:
            failed.add(file)
            issues.append(Issue(Severity.ERROR, f"animation clip {name!r} cannot be decoded: {exc}", file=file,
                                code="clips"))
            continue
        issues.extend(Issue(Severity.WARNING, w, file=file, code="clips") for w in clip.warnings())
    return issues


def check_command(args: argparse.Namespace) -> int:
    """Handler of ``cozmo-brain check``; prints the report to standard output and returns the exit code."""
    given = getattr(args, "resources", None)
    personality_arg = getattr(args, "personality", None)
    try:
        cfg = load_config(getattr(args, "config", None))
        roots: list[Path | str] = list(given) if given else list(cfg.resource_roots())
        personality = None
        if personality_arg:
            resolved = cfg.select_personality(personality_arg)
            # a file is reported as the user named it; a name as the file it was found in
            personality = personality_arg if Path(personality_arg).is_file() else str(resolved)
    except ConfigError as exc:
        log.error("%s", exc)
        return 1
    if not roots:
        log.error("no resource roots to check: none of the configured folders exists and the packaged "
                  "resources are missing")
    rs = load_resource_set(roots)
    result = validate(rs, BEHAVIOR_CLASSES)
    params = check_behavior_params(rs.behaviors.values(), BEHAVIOR_CLASSES)
    result.issues.extend(params.issues)
    result.issues.extend(_clip_issues(rs))
    issues = _personality_issues(personality, rs) if personality else None
    sys.stdout.write(format_report(rs, result, personality=issues, personality_path=personality,
                                   why_not_yet=WHY_NOT_YET))
    sys.stdout.write("\n" + format_param_report(params, BEHAVIOR_CLASSES))
    sys.stdout.flush()
    return exit_code(list(result.issues) + list(issues or ()))
