"""Cozmo resource assets: load the app's resource tree as it is, into typed records, and check it.

Typical use::

    rs = ResourceSet.load([Path("~/.pycozmo/assets"), repo / "resources"])
    result = validate(rs, implemented)   # every link checked, issues with file/line/field
    print(format_report(rs, result))

Loading never raises on bad data: broken files and records are reported as
:class:`Issue` s and left out, and everything else loads.
"""

from __future__ import annotations

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
    "load_resource_set",
    "validate",
]
