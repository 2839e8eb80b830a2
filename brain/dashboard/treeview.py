"""The brain's tree as the dashboard draws it: a flat list of nodes, and one status letter per node.

The structure is sent once (and again when it changes: a reload, a behaviour run from the
dashboard); each beat the statuses are one short string, a letter per node in the structure's
order (``R`` running, ``S`` success, ``F`` failure, ``-`` not ticked), so a tick costs the page a
string compare and the history a few bytes a beat.

The structure is the brain's root: the reactions first, each as an entry (its trigger, the event
that fires it, its priority) above the subtree it runs, then the personality's own tree. An entry
runs (``R``) while its reaction is the active one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from py_trees.behaviour import Behaviour
from py_trees.common import Status
from py_trees.composites import Composite
from py_trees.decorators import Decorator

from brain.reactions import Reaction, ReactionRunner

__all__ = ["TreeView", "status_letter"]

_LETTERS = {Status.RUNNING: "R", Status.SUCCESS: "S", Status.FAILURE: "F", Status.INVALID: "-"}


def status_letter(status: Status) -> str:
    """The letter of a py_trees status (``R``, ``S``, ``F`` or ``-``)."""
    return _LETTERS.get(status, "-")


@dataclass
class TreeView:
    """One version of the tree's structure, and how to read its statuses.

    ``nodes`` is JSON-ready (``id``, ``parent``, ``name``, ``kind``, ``type``, ``detail``);
    ``sources`` holds, in the same order, the Behaviour or the Reaction each entry stands for.
    """

    version: int
    nodes: list[dict[str, Any]] = field(default_factory=list)
    sources: list[Behaviour | Reaction] = field(default_factory=list)
    runner: ReactionRunner | None = None

    @classmethod
    def build(cls, version: int, root: Behaviour, runner: ReactionRunner, reactions: list[Reaction],
              extra: Reaction | None = None) -> TreeView:
        """The structure of ``root`` (the brain's root), its reactions listed under ``runner``.

        ``extra`` is a reaction running that the personality does not list (one the dashboard
        started); it is shown among them while it runs.
        """
        view = cls(version, runner=runner)
        top = view._add(root, None, "root")
        for child in root.children:
            if child is runner:
                group = view._add(runner, top, "reactions")
                for reaction in [*reactions, *([extra] if extra is not None else [])]:
                    entry = view._add_reaction(reaction, group)
                    view._walk(reaction.root, entry)
            else:
                view._walk(child, top)
        return view

    def _add(self, source: Behaviour | Reaction, parent: int | None, kind: str, name: str | None = None,
             detail: str = "") -> int:
        index = len(self.nodes)
        node_type = type(source).__name__
        self.nodes.append({"id": index, "parent": parent, "name": name or getattr(source, "name", node_type),
                           "kind": kind, "type": node_type, "detail": detail})
        self.sources.append(source)
        return index

    def _add_reaction(self, reaction: Reaction, parent: int) -> int:
        event = reaction.event_kind or "?"
        if reaction.event_value is not None:
            value = reaction.event_value
            event += f" {'on' if value is True else 'off' if value is False else value}"
        detail = f"{event}, priority {reaction.priority}" + (", resumes" if reaction.should_resume_last else "")
        where = f"{Path(reaction.file).name}:{reaction.line}" if reaction.file and reaction.line else ""
        index = self._add(reaction, parent, "reaction", name=reaction.trigger, detail=detail)
        self.nodes[index]["where"] = where
        return index

    def _walk(self, node: Behaviour, parent: int) -> None:
        if isinstance(node, Decorator):
            index = self._add(node, parent, "decorator", detail=node.feedback_message or "")
            self._walk(node.decorated, index)
        elif isinstance(node, Composite):
            index = self._add(node, parent, "composite")
            for child in node.children:
                self._walk(child, index)
        else:
            self._add(node, parent, "leaf")

    def statuses(self) -> str:
        """One letter per node, in the structure's order: the tree as the last tick left it."""
        active = self.runner.active if self.runner is not None else None
        return "".join(
            ("R" if s is active else "-") if isinstance(s, Reaction) else _LETTERS.get(s.status, "-")
            for s in self.sources)

    def as_dict(self) -> dict[str, Any]:
        """The structure for the page."""
        return {"version": self.version, "nodes": self.nodes}
