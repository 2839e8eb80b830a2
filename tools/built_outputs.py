"""Generated files checked in beside their sources: compare them with a fresh build, or write it.

The resource build tools (``build_resources.py`` for clips, ``build_voice.py`` for sounds) render
every output in memory first; these two functions are what they share: ``--check`` reports what a
rebuild would change, and a build writes only what changed and removes outputs no source makes.
"""

from __future__ import annotations

from pathlib import Path


def check(built: dict[str, bytes], out: Path, pattern: str, orphan: str) -> list[str]:
    """What differs between ``built`` and the files in ``out`` (an empty list: up to date).

    ``pattern`` selects the generated files in ``out`` (``"*.bin"``); one of those that nothing in
    ``built`` makes is reported with ``orphan`` as the reason.
    """
    problems = []
    for name, data in built.items():
        target = out / name
        if not target.is_file():
            problems.append(f"{target}: missing")
        elif target.read_bytes() != data:
            problems.append(f"{target}: out of date")
    problems += [f"{p}: {orphan}" for p in sorted(out.glob(pattern)) if p.name not in built]
    return problems


def write(built: dict[str, bytes], out: Path, pattern: str) -> list[Path]:
    """Write ``built`` into ``out`` and remove the files matching ``pattern`` it does not make.

    Files whose bytes are already right are left alone (their times too); the files that changed
    are returned.
    """
    out.mkdir(parents=True, exist_ok=True)
    changed = []
    for name, data in built.items():
        target = out / name
        if not target.is_file() or target.read_bytes() != data:
            target.write_bytes(data)
            changed.append(target)
    for stale in sorted(out.glob(pattern)):
        if stale.name not in built:
            stale.unlink()
            changed.append(stale)
    return changed
