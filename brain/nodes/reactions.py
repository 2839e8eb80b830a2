"""Reactions above the personality's tree, and resuming what they interrupted.

Cozmo ran reactions (cliff, pick-up, poke …) above whatever it was doing; a reaction marked
``shouldResumeLast`` handed the robot back to the interrupted behaviour when it ended, the others
let the behaviour choice start afresh. :class:`ReactiveRoot` does the same for a py_trees tree:

* when a reaction starts while the tree runs, the tree is *suspended*, not reset: the running
  leaves are stopped (their animation, motor or action is cancelled), but every composite,
  decorator and chooser above them keeps its state — a memory sequence stays on its step, a
  chooser on its pick, a timer keeps its deadline;
* when a reaction with ``shouldResumeLast`` ends, the tree *resumes*: the stopped leaves start
  again (an animation is replayed, a head move re-sent), leaves that can simply continue do
  (a ``wait`` keeps its remaining time, a sleep keeps sleeping and sees what woke it), and clocks
  above them are moved on by the time spent away (timeouts, timers, a chooser's running time);
* when a reaction without it ends, the suspended tree is stopped, so it is evaluated again from
  its top on the same tick.

Nodes take part through two optional methods, called on every RUNNING node of the suspended
branch: ``on_suspend(now)`` and ``on_resume(now, paused_s)``; a leaf whose class sets
``continues_after_suspend = True`` is left running instead of being stopped.

What a reaction is, which event fires it and the :class:`~brain.reactions.ReactionRunner` node that
runs it are in :mod:`brain.reactions` (the runner is re-exported here, beside the root it serves).
"""

from __future__ import annotations

import logging

from py_trees.behaviour import Behaviour
from py_trees.common import Status
from py_trees.composites import Composite
from py_trees.decorators import Decorator

from brain.context import BrainContext
from brain.reactions import Reaction, ReactionRunner

from .composites import fast_tick, tick_child
from .status import FAILURE, INVALID, RUNNING

__all__ = ["ReactionRunner", "ReactiveRoot", "branch_of", "resume_tree", "suspend_tree"]

log = logging.getLogger(__name__)


def _children(node: Behaviour) -> list[Behaviour]:
    return [node.decorated] if isinstance(node, Decorator) else list(node.children)


def _is_leaf(node: Behaviour) -> bool:
    return not isinstance(node, (Composite, Decorator))


def suspend_tree(root: Behaviour, now: float) -> list[Behaviour]:
    """Suspend the running branch under ``root``; returns the leaves that were stopped.

    Running leaves are stopped (INVALID: their work is cancelled) unless they continue through a
    suspension; running composites and decorators keep their status and state.
    """
    stopped: list[Behaviour] = []

    def visit(node: Behaviour) -> None:
        if node.status is not RUNNING:
            return
        hook = getattr(node, "on_suspend", None)
        if callable(hook):
            hook(now)
        if _is_leaf(node):
            if not getattr(node, "continues_after_suspend", False):
                node.stop(INVALID)
                stopped.append(node)
            return
        for child in _children(node):
            visit(child)

    visit(root)
    return stopped


def resume_tree(root: Behaviour, now: float, paused_s: float) -> None:
    """Tell every node still RUNNING under ``root`` that the branch resumes after ``paused_s`` seconds."""
    def visit(node: Behaviour) -> None:
        if node.status is not RUNNING:
            return
        hook = getattr(node, "on_resume", None)
        if callable(hook):
            hook(now, paused_s)
        for child in _children(node):
            visit(child)

    visit(root)


def branch_of(root: Behaviour) -> str:
    """The running branch under ``root`` as ``root > … > current child`` (names)."""
    names = [root.name]
    node = root
    while True:
        child = node.decorated if isinstance(node, Decorator) else getattr(node, "current_child", None)
        if child is None or child.status is INVALID:
            break
        names.append(child.name)
        node = child
    return " > ".join(names)


class ReactiveRoot(Composite):
    """The brain's root: the reaction runner above the personality's tree (children ``[runner, tree]``).

    While a reaction runs the tree is suspended (see the module notes); when it ends the tree
    resumes (``shouldResumeLast``) or starts over, and is ticked on that same tick. ``resumes``
    and ``restarts`` count what happened to interrupted branches; ``last_resumed`` names the
    branch that was resumed last.
    """

    def __init__(self, name: str, runner: ReactionRunner, ctx: BrainContext) -> None:
        super().__init__(name, [runner])
        self.runner = runner
        self.ctx = ctx
        self.suspended_at: float | None = None
        self.suspended_branch = ""
        self.resumes = 0
        self.restarts = 0
        self.last_resumed = ""

    @property
    def tree(self) -> Behaviour | None:
        """The personality's tree (None before one is loaded)."""
        return self.children[1] if len(self.children) > 1 else None

    def set_tree(self, tree: Behaviour) -> None:
        """Put ``tree`` under the reactions, replacing (and stopping) the previous one."""
        old = self.tree
        if old is not None:
            old.stop(INVALID)
            self.remove_child(old)
        self.suspended_at = None
        self.add_child(tree)

    tick = fast_tick

    def run_tick(self) -> Status:
        """Tick the running reaction, else the personality's tree; the status after it."""
        if self.status is not RUNNING:
            self.initialise()
        runner, tree = self.runner, self.tree
        for _ in range(2):  # a reaction that ends may hand over to one that waited
            if runner.active is None and not runner.start_pending():
                break
            if tree is not None and tree.status is RUNNING and self.suspended_at is None \
                    and runner.active is not None:
                self._suspend(tree, runner.active)
            tick_child(runner)
            if runner.status is RUNNING:
                self.current_child = runner
                self.status = RUNNING
                return self.status
            self._after(tree, runner.finished)
        if self.suspended_at is not None and tree is not None:
            self._after(tree, None)  # the reaction vanished (cleared): start over
        if tree is None:
            self.current_child = None
            self.status = FAILURE
            return self.status
        tick_child(tree)
        self.current_child = tree
        self.status = tree.status if tree.status is not INVALID else FAILURE
        return self.status

    def _suspend(self, tree: Behaviour, reaction: Reaction) -> None:
        now = self.ctx.now()
        self.suspended_branch = branch_of(tree)
        stopped = suspend_tree(tree, now)
        self.suspended_at = now
        log.info("reaction %s suspends %s%s", reaction.trigger, self.suspended_branch,
                 f" (stopped {', '.join(n.name for n in stopped)})" if stopped else "")

    def _after(self, tree: Behaviour | None, finished: Reaction | None) -> None:
        """A reaction ended: resume the suspended branch or let the tree start over."""
        if self.suspended_at is None or tree is None:
            return
        now = self.ctx.now()
        paused = now - self.suspended_at
        self.suspended_at = None
        if finished is not None and finished.should_resume_last and tree.status is RUNNING:
            resume_tree(tree, now, paused)
            self.resumes += 1
            self.last_resumed = self.suspended_branch
            log.info("resuming %s after %.1f s", self.suspended_branch, paused)
        else:
            tree.stop(INVALID)
            self.restarts += 1
            why = f"reaction {finished.trigger} does not resume" if finished is not None else "reactions cleared"
            log.info("starting over (%s %s)", why, self.suspended_branch)

    def stop(self, new_status: Status = INVALID) -> None:
        if new_status is INVALID:
            self.suspended_at = None
        super().stop(new_status)
