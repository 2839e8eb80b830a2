"""``cozmo-brain tree``: show a personality's behaviour tree as text, Graphviz dot or SVG.

The personality (a file or a name, as for ``run``; the configured one by default) is loaded and
validated exactly as the daemon would (offline: no robot), against the same resource roots, so
the picture is of the tree that would run. SVG needs Graphviz's ``dot`` on the PATH.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import py_trees

from brain.personality import Personality, PersonalityError, context_for_check, load_personality

from .config import Config, ConfigError, load_config

__all__ = ["render_ascii", "render_dot", "tree_command"]

log = logging.getLogger(__name__)


def render_ascii(personality: Personality) -> str:
    """The tree and the reactions as indented text."""
    lines = [f"personality: {personality.name} ({personality.path})", "",
             py_trees.display.ascii_tree(personality.root).rstrip()]
    if personality.reactions:
        lines += ["", "reactions (highest priority first):"]
        for r in personality.reactions:
            event = f"{r.event_kind}" + ("" if r.event_value is None else f"={str(r.event_value).lower()}")
            resume = ", resumes last" if r.should_resume_last else ""
            lines.append(f"  {r.trigger} [{event}] priority {r.priority}{resume}:")
            lines += ["    " + line for line in py_trees.display.ascii_tree(r.root).rstrip().splitlines()]
    return "\n".join(lines) + "\n"


def render_dot(personality: Personality) -> str:
    """The root tree in Graphviz dot."""
    graph = py_trees.display.dot_tree(personality.root)
    graph.set_name(personality.name.replace(" ", "_") or "personality")
    return str(graph.to_string())


def _resources(cfg: Config, given: list[str] | None) -> Any:
    """The resource set the personality is checked against: as ``run`` would load it.

    A ``--resources`` folder that does not exist is reported and skipped rather than fatal: the
    picture can still be drawn against the other roots and the packaged set.
    """
    existing = [r for r in given or () if Path(r).expanduser().is_dir()]
    for missing in [r for r in given or () if r not in existing]:
        log.warning("%s: resource folder not found; skipped", missing)
    roots = cfg.resource_roots(existing)
    if not roots:
        return None
    from brain.assets import load_resource_set

    return load_resource_set(roots, index_clips=False)


def tree_command(args: argparse.Namespace) -> int:
    """Handler of ``cozmo-brain tree``; returns the exit code (1 on a bad personality or missing dot)."""
    fmt = getattr(args, "format", "ascii") or "ascii"
    try:
        cfg = load_config(getattr(args, "config", None))
        path = cfg.select_personality(getattr(args, "personality", None))
        resources = _resources(cfg, getattr(args, "resources", None))
    except ConfigError as exc:
        log.error("%s", exc)
        return 1
    dot_exe = shutil.which("dot") if fmt == "svg" else None
    if fmt == "svg" and dot_exe is None:
        log.error("--format svg needs Graphviz's `dot` on the PATH (install graphviz, or use --format dot and "
                  "render it elsewhere)")
        return 1
    try:
        personality = load_personality(path, context_for_check(resources))
    except PersonalityError as exc:
        log.error("%s is not a valid personality:\n%s", path, exc)
        return 1
    if fmt == "ascii":
        output: str | bytes = render_ascii(personality)
    elif fmt == "dot":
        output = render_dot(personality)
    else:
        assert dot_exe is not None
        result = subprocess.run([dot_exe, "-Tsvg"], input=render_dot(personality).encode(), capture_output=True,
                                check=False, timeout=60)
        if result.returncode != 0:
            log.error("dot failed: %s", result.stderr.decode(errors="replace").strip())
            return 1
        output = result.stdout
    out = getattr(args, "out", None)
    if out:
        data = output.encode() if isinstance(output, str) else output
        Path(out).write_bytes(data)
    elif isinstance(output, bytes):
        sys.stdout.buffer.write(output)
    else:
        sys.stdout.write(output)
    sys.stdout.flush()
    return 0
