"""Where the daemon keeps what it derives once and reads back at every start (converted sounds,
the face detector's model as dlib saves it): systemd's ``CACHE_DIRECTORY`` when the unit sets one
(``CacheDirectory=cozmo-brain``), else ``$XDG_CACHE_HOME/cozmo-brain`` (``~/.cache/cozmo-brain``
when unset). Everything in it can be deleted at any time; it is made again.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

__all__ = ["default_cache_folder", "write_whole"]


def default_cache_folder(environ: dict[str, str] | None = None) -> Path:
    """The cache folder for ``environ`` (the process's environment when None)."""
    env = os.environ if environ is None else environ
    systemd = env.get("CACHE_DIRECTORY", "").split(":")[0]
    if systemd:
        return Path(systemd)
    base = env.get("XDG_CACHE_HOME", "") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cozmo-brain"


def write_whole(path: Path, write: Callable[[Path], object]) -> None:
    """Make ``path`` with ``write`` (given a temporary name beside it) and rename it into place,
    so a process starting alongside never reads half a file. Raises :class:`OSError` (the
    temporary file removed) when the folder cannot be made or written."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise
