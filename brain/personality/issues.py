"""Problems found in a personality: collected as they are found, reported all at once.

Loading goes on after each problem, so one run of ``cozmo-brain check`` shows all of them. Each
is a :class:`brain.assets.Issue` naming the file, the line and the key path, printed as::

    trees/x.yaml:14: root.children[2].params.weight: expected a number, got 'lots'
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from brain.assets.issues import Issue, Severity

from .located import Loc

__all__ = ["IssueList", "PersonalityError", "display_path", "format_issue"]


class PersonalityError(Exception):
    """A personality could not be loaded; ``issues`` lists every problem found, ``files`` the files
    it was read from (a fix to any of them is worth another try)."""

    def __init__(self, issues: Sequence[Issue], files: Sequence[Path] = ()) -> None:
        self.issues = list(issues)
        self.files = tuple(files)
        super().__init__("\n".join(format_issue(i) for i in self.issues if i.severity >= Severity.ERROR))


def format_issue(issue: Issue) -> str:
    """``file:line: key.path: message`` (the parts that are known)."""
    parts = [p for p in (issue.location, issue.field) if p]
    return ": ".join([*parts, issue.message])


class IssueList:
    """Collects problems; building goes on after each so all are reported at once."""

    def __init__(self) -> None:
        self.items: list[Issue] = []

    def add(self, loc: Loc, path: str, message: str, severity: Severity = Severity.ERROR) -> None:
        """Record a problem at ``loc`` under key path ``path`` (an error unless told otherwise)."""
        issue = Issue(severity, message, file=loc.file, line=loc.line, field=path or None, code="personality")
        if issue not in self.items:  # a subtree used twice is built (and checked) twice
            self.items.append(issue)

    def warn(self, loc: Loc, path: str, message: str) -> None:
        """Record something that does not stop the personality from loading."""
        self.add(loc, path, message, Severity.WARNING)

    @property
    def errors(self) -> bool:
        """Whether any recorded problem is an error."""
        return any(i.severity >= Severity.ERROR for i in self.items)


def display_path(path: Path) -> str:
    """A file's name as messages show it (normalised, as given: relative paths stay relative)."""
    return os.path.normpath(str(path))
