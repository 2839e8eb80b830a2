"""Where the files that ship with cozmo-brain are: default personalities, resources, config, unit template.

Everything the daemon needs to run out of the box is package data of :mod:`brain`, under
``brain/_data/``, and is found with :mod:`importlib.resources`, so an installed wheel works from
any working directory. In the source tree ``brain/_data/`` holds symbolic links to the project's
top-level ``trees/``, ``resources/`` and ``config.yaml`` (the layout users edit stays where it
is); the wheel build follows the links and stores real files. The same lookup therefore answers
in a source checkout, an editable install and an installed wheel.

Paths are returned resolved: in a checkout that is the top-level folder itself, so logs and error
messages name the file a developer would edit.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

__all__ = [
    "PackagedDataError",
    "data_root",
    "default_config",
    "default_personality",
    "packaged_personalities",
    "packaged_resources",
    "unit_template",
]

#: The folder of package data inside :mod:`brain`.
DATA_DIR = "_data"
#: File name of the default personality among the packaged ones.
DEFAULT_PERSONALITY = "default.yaml"
#: File name of the systemd unit template among the packaged data.
UNIT_TEMPLATE = "systemd/cozmo-brain.service"


class PackagedDataError(RuntimeError):
    """The package's own data is missing: a broken or zipped install."""


def data_root() -> Path:
    """The folder of packaged data (``brain/_data``), resolved; raises PackagedDataError when absent."""
    traversable = files("brain") / DATA_DIR
    # A regular install gives a pathlib.Path; anything else (a zip import) cannot serve folders.
    path = Path(str(traversable))
    if not path.is_dir():
        raise PackagedDataError(f"{path}: the package's data folder is missing; reinstall cozmo-brain")
    return path.resolve()


def packaged_personalities() -> Path:
    """The folder of the personalities that ship with the package (``trees/`` in the source tree)."""
    return (data_root() / "trees").resolve()


def default_personality() -> Path:
    """The packaged default personality file."""
    return packaged_personalities() / DEFAULT_PERSONALITY


def packaged_resources() -> Path:
    """The packaged resource root (``resources/`` in the source tree): always the last one searched."""
    return (data_root() / "resources").resolve()


def default_config() -> Path:
    """The packaged default settings (``config.yaml`` in the source tree): the last in the search order."""
    return (data_root() / "config.yaml").resolve()


def unit_template() -> Path:
    """The systemd unit template shipped in the package."""
    return data_root() / UNIT_TEMPLATE
