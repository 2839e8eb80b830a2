"""Where the daemon keeps what it derives once and reads back at every start (converted sounds,
the face detector's model as dlib saves it): systemd's ``CACHE_DIRECTORY`` when the unit sets one
(``CacheDirectory=cozmo-brain``), else ``$XDG_CACHE_HOME/cozmo-brain`` (``~/.cache/cozmo-brain``
when unset). Everything in it can be deleted at any time; it is made again.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["default_cache_folder"]


def default_cache_folder(environ: dict[str, str] | None = None) -> Path:
    """The cache folder for ``environ`` (the process's environment when None)."""
    env = os.environ if environ is None else environ
    systemd = env.get("CACHE_DIRECTORY", "").split(":")[0]
    if systemd:
        return Path(systemd)
    base = env.get("XDG_CACHE_HOME", "") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cozmo-brain"
