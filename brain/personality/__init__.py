"""Personalities in YAML: load, merge, validate, and build the py_trees tree.

A personality file says what the robot does: a root tree made of the node library's nodes
and Cozmo behaviours, named subtrees, activities, reactions to robot events, mood adjustments
and parameters. Files can include others (for shared subtrees) and extend a base personality
with a few overrides. The format is documented in ``docs/personality-format.md``.

Everything is checked before anything runs: unknown keys and node names (with close
matches suggested), parameter types, emotion types, behaviour IDs and classes, subtree
references and cycles, override paths. Every problem is reported at once, each naming the
file, the line and the key path, e.g.::

    trees/x.yaml:14: root.children[2].params.weight: expected a number, got 'lots'

:func:`load_personality` raises :class:`PersonalityError` carrying all of them;
:func:`check_personality` returns them as :class:`brain.assets.Issue` records for
``cozmo-brain check``.

The package, one idea per module, in the order a file goes through them:

* :mod:`~brain.personality.located` — YAML whose values remember their file and line;
* :mod:`~brain.personality.assembly` — ``include`` and ``extends`` merged into one document;
* :mod:`~brain.personality.overrides` — ``overrides:`` applied by path or node id;
* :mod:`~brain.personality.builder` — the tree builder: nodes, parameters, names, subtrees;
* :mod:`~brain.personality.activities` — the resource set's activities and their scoring;
* :mod:`~brain.personality.reaction_entries` — ``reactions:`` read into
  :class:`brain.reactions.Reaction` records (what a reaction is and how it runs is in
  :mod:`brain.reactions`);
* :mod:`~brain.personality.mood_overrides` — ``mood:`` read into :class:`MoodOverrides`;
* :mod:`~brain.personality.issues` — problems collected and formatted;
* :mod:`~brain.personality.loader` — the entry points and the :class:`Personality` they return.
"""

from __future__ import annotations

from brain.reactions import REACTION_EVENTS, Reaction

from .issues import PersonalityError, format_issue
from .loader import (
    Personality,
    check_personality,
    context_for_check,
    iter_tree,
    load_personality,
)
from .mood_overrides import MoodOverrides

__all__ = [
    "REACTION_EVENTS",
    "MoodOverrides",
    "Personality",
    "PersonalityError",
    "Reaction",
    "check_personality",
    "context_for_check",
    "format_issue",
    "iter_tree",
    "load_personality",
]
