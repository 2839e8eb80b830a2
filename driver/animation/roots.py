"""Where the animation engine finds files of a resource tree (sprites, sounds).

A resource root may be named as the ``cozmo_resources`` directory itself or as its parent (the
way PyCozmo's download unpacks it); both the sprite and the sound libraries accept either.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

__all__ = ["ResourceRoots", "cozmo_resources_dirs"]

#: One resource root or several, searched in the order given.
ResourceRoots = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]


def cozmo_resources_dirs(roots: ResourceRoots) -> list[Path]:
    """The ``cozmo_resources`` directories of ``roots`` (each the directory itself, or its parent), in order."""
    if isinstance(roots, (str, os.PathLike)):
        roots = [roots]
    out = []
    for root in roots:
        p = Path(root)
        child = p / "cozmo_resources"
        out.append(child if child.is_dir() else p)
    return out
