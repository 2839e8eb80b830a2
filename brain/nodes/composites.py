"""The sequence and selector the project's trees are built of: py_trees' own, ticked more cheaply.

They are py_trees' :class:`~py_trees.composites.Sequence` and
:class:`~py_trees.composites.Selector` and decide exactly as those do; two costs are cut:

* ``stop`` skips the debug line py_trees formats on every stop, wanted or not. A tree of the
  default personality stops a dozen composites on most beats (every lower-priority branch a
  selector passes over), so those lines cost more than the stopping itself.
* ``tick`` runs each child to the end with :func:`tick_child` and yields only itself. py_trees'
  composites pass every node their children yield up through each level, so a leaf ten levels
  down travelled through ten generators on every beat; nothing in the brain walks those yields
  (the heartbeat calls ``tick_once``, displays read the statuses afterwards).
* No generator at all between the project's own nodes: each does its tick's work in
  ``run_tick`` (returning its status) and its ``tick`` is :func:`fast_tick`, a generator around
  it kept for py_trees. :func:`tick_child` calls ``run_tick`` directly when a node's ``tick`` is
  that one, so a subclass that writes its own ``tick`` is still ticked through it. A beat of
  the default personality ticks some sixty nodes; the generators cost a fifth of that.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterator
from typing import Any

from py_trees import composites
from py_trees.behaviour import Behaviour
from py_trees.common import Status
from py_trees.decorators import Decorator

from .status import FAILURE, INVALID, RUNNING, SUCCESS

__all__ = ["Selector", "Sequence", "fast_tick", "run_alone", "run_decorator", "settle", "tick_child"]

log = logging.getLogger(__name__)



def fast_tick(node: Any) -> Iterator[Behaviour]:
    """The ``tick`` of the project's nodes, for py_trees: the work of ``node.run_tick()``, then the node."""
    node.run_tick()
    yield node


def tick_child(child: Behaviour) -> Status:
    """Tick ``child`` (and its subtree) once, to the end; its status after the tick."""
    if type(child).tick is fast_tick:
        status: Status = child.run_tick()  # type: ignore[attr-defined]
        return status
    for _ in child.tick():
        pass
    return child.status


def run_decorator(node: Decorator) -> Status:
    """py_trees' decorator tick, without its debug line or generators: initialise when not
    running, tick the child, update, stop on a final status. The status after it."""
    if node.status is not RUNNING:
        node.initialise()
    child = node.decorated
    if type(child).tick is fast_tick:
        child.run_tick()  # type: ignore[attr-defined]
    else:
        tick_child(child)
    settle(node, node.update())
    return node.status


def run_alone(node: Behaviour) -> Status:
    """py_trees' leaf tick for a decorator deciding without its child (cooling down, gated),
    without its debug line: initialise when not running, update, settle. The status after it."""
    if node.status is not RUNNING:
        node.initialise()
    settle(node, node.update())
    return node.status


def stop_decorator(node: Decorator, new_status: Status) -> None:
    """py_trees' decorator stop, without its debug line (the heartbeat stops dozens of decorators
    a second): terminate, stop the child on INVALID or when it is still running, take the status."""
    node.terminate(new_status)
    if new_status == INVALID:
        node.decorated.stop(new_status)
    if node.decorated.status == RUNNING:
        node.decorated.stop(INVALID)
    node.status = new_status


def settle(node: Behaviour, new_status: Status) -> None:
    """End a tick as py_trees does, without its debug line: a status that is not one is logged and
    taken as INVALID, a final status stops the node, and the node takes it."""
    if new_status.__class__ is not Status:  # (a set's lookup would hash the member in Python)
        log.error("%s returned %r, not a status; taken as INVALID", node.name, new_status)
        new_status = INVALID
    if new_status is not RUNNING:
        node.stop(new_status)
    node.status = new_status


class Sequence(composites.Sequence):
    """py_trees' sequence (see the module docstring)."""

    tick = fast_tick

    def run_tick(self) -> Status:
        """One tick of the sequence; its status after it."""
        index = 0
        children = self.children
        if self.status is not RUNNING:
            self.current_child = children[0] if children else None
            for child in children:
                if child.status is not INVALID:
                    child.stop(INVALID)
            self.initialise()
        elif self.memory and self.current_child is not None:
            index = children.index(self.current_child)
        else:
            self.current_child = children[0] if children else None
        count = len(children)
        if not count:
            self.current_child = None
            self.stop(SUCCESS)
            return self.status
        while index < count:
            child = children[index]
            # (tick_child inlined: a sequence ticks a quarter of a beat's nodes)
            status = child.run_tick() if type(child).tick is fast_tick else tick_child(child)  # type: ignore[attr-defined]
            if status is not SUCCESS:
                if not self.memory:  # the children after it are no longer running
                    for later in itertools.islice(children, index + 1, None):
                        if later.status is not INVALID:
                            later.stop(INVALID)
                if status is not RUNNING:
                    self.stop(status)
                else:
                    self.status = status
                return self.status
            index += 1
            if index < count:
                self.current_child = children[index]
        self.stop(SUCCESS)
        return self.status

    def stop(self, new_status: Status = INVALID) -> None:
        _stop_composite(self, new_status)


class Selector(composites.Selector):
    """py_trees' selector (see the module docstring)."""

    tick = fast_tick

    def run_tick(self) -> Status:
        """One tick of the selector; its status after it."""
        children = self.children
        if self.status is not RUNNING:
            self.current_child = children[0] if children else None
            self.initialise()
        if not children:
            self.current_child = None
            self.stop(FAILURE)
            return self.status
        index = 0
        if self.memory:
            assert self.current_child is not None
            index = children.index(self.current_child)
            for earlier in itertools.islice(children, None, index):
                if earlier.status is not INVALID:
                    earlier.stop(INVALID)
        previous = self.current_child
        for child in itertools.islice(children, index, None) if index else children:
            status = child.run_tick() if type(child).tick is fast_tick else tick_child(child)  # type: ignore[attr-defined]
            if status is RUNNING or status is SUCCESS:
                self.current_child = child
                if previous is None or previous is not child:
                    # it took over: everything of a lower priority stops
                    passed = False
                    for other in children:
                        if passed and other.status is not INVALID:
                            other.stop(INVALID)
                        passed = passed or other is child
                if status is SUCCESS:
                    self.stop(status)
                else:
                    self.status = status
                return self.status
        self.stop(FAILURE)
        self.current_child = children[-1]
        return self.status

    def stop(self, new_status: Status = INVALID) -> None:
        _stop_composite(self, new_status)


def _stop_composite(node: composites.Composite, new_status: Status) -> None:
    """py_trees' composite stop without its debug line: on INVALID forget the current child and
    stop every child still going; terminate; take the status."""
    if new_status is INVALID:
        node.current_child = None
        for child in node.children:
            if child.status is not INVALID:
                child.stop(new_status)
    node.terminate(new_status)
    node.status = new_status
