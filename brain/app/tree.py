"""``cozmo-brain tree``: show a personality's behaviour tree as text, Graphviz dot or SVG.

The personality is loaded and validated exactly as the daemon would (offline: no robot),
so the picture is of the tree that would run. SVG needs Graphviz's ``dot`` on the PATH.
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

__all__ = ["render_ascii", "render_dot", "tree_command"]

log = logging.getLogger(__name__)

#: Used when neither --personality nor the config file names one.
DEFAULT_PERSONALITY = Path("trees/default.yaml")


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


def _config_personality(config: str | None) -> str | None:
    path = Path(config) if config else Path("config.yaml")
    if not path.is_file():
        return None
    try:
        import yaml

        data: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except Exception:
        return None
    value = data.get("personality") if isinstance(data, dict) else None
    if isinstance(value, str):
        return str((path.resolve().parent / value) if not Path(value).is_absolute() else Path(value))
    return None


def _resources(args: argparse.Namespace) -> Any:
    roots = getattr(args, "resources", None)
    if not roots:
        try:
            from brain.app.check import default_roots

            roots = default_roots(getattr(args, "config", None))
        except Exception:
            roots = []
    if not roots:
        return None
    from brain.assets import load_resource_set

    return load_resource_set(roots, index_clips=False)


def tree_command(args: argparse.Namespace) -> int:
    """Handler of ``cozmo-brain tree``; returns the exit code (1 on a bad personality or missing dot)."""
    fmt = getattr(args, "format", "ascii") or "ascii"
    path = getattr(args, "personality", None) or _config_personality(getattr(args, "config", None)) \
        or str(DEFAULT_PERSONALITY)
    if not Path(path).is_file():
        sys.stderr.write(f"cozmo-brain tree: personality file not found: {path}\n")
        return 1
    dot_exe = shutil.which("dot") if fmt == "svg" else None
    if fmt == "svg" and dot_exe is None:
        sys.stderr.write("cozmo-brain tree: --format svg needs Graphviz's `dot` on the PATH "
                         "(install graphviz, or use --format dot and render it elsewhere)\n")
        return 1
    try:
        personality = load_personality(path, context_for_check(_resources(args)))
    except PersonalityError as exc:
        sys.stderr.write(f"cozmo-brain tree: {path} is not a valid personality:\n{exc}\n")
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
            sys.stderr.write(f"cozmo-brain tree: dot failed: {result.stderr.decode(errors='replace').strip()}\n")
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
