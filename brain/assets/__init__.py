"""Cozmo resource assets: load the app's resource tree as it is, into typed records, and check it.

Typical use::

    rs = ResourceSet.load([Path("~/.pycozmo/assets"), repo / "resources"])
    result = validate(rs)                # every link checked, issues with file/line/field
    print(format_report(rs, result))

Loading never raises on bad data: broken files and records are reported as
:class:`Issue` s and left out, and everything else loads.
"""

from __future__ import annotations

import importlib

from .issues import AssetError, Issue, Severity, format_path
from .jsonc import JsoncError
from .report import exit_code, format_report
from .resource_set import ResourceSet, find_root, load_resource_set
from .validation import RefStats, Validation, validate

__all__ = [
    "AssetError",
    "Issue",
    "JsoncError",
    "RefStats",
    "ResourceSet",
    "Severity",
    "Validation",
    "exit_code",
    "find_root",
    "format_path",
    "format_report",
    "implemented_behavior_classes",
    "load_resource_set",
    "validate",
]


def implemented_behavior_classes() -> set[str]:
    """The behaviour classes the node library can run: the keys of its registry.

    The registry (``brain.nodes.registry.BEHAVIOR_CLASSES``) is filled by the node library;
    until it exists this returns an empty set, so every class is reported as unimplemented.
    """
    try:
        registry = importlib.import_module("brain.nodes.registry")
    except ModuleNotFoundError as exc:
        if exc.name in ("brain.nodes", "brain.nodes.registry"):
            return set()
        raise
    classes = getattr(registry, "BEHAVIOR_CLASSES", None)
    if classes is None:
        return set()
    return {str(name) for name in classes}
