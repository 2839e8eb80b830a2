"""Why the robot does what it does, in words an owner understands: the dashboard's side.

Owners ask why their robot does what it does; an engine that only logs a score does not answer.
After a tick, the tree itself holds the answer: along the running branch, every selector ticked
the children before the one it runs and saw them fail, each sequence saw its guard conditions
pass, and a chooser (scoring, weighted random) picked one child over the others. Each node of
the library says its part itself (``explain``, ``decision``: see :mod:`brain.nodes.explain`);
the dashboard shows the sentences :func:`explain_branch` makes of them whenever a choice on the
running branch changes, and the log's line for each change of branch ends with the same words.
"""

from __future__ import annotations

from brain.nodes.explain import choice_path, explain_branch, label, reason

__all__ = ["choice_path", "explain_branch", "label", "reason"]
