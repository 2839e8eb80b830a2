"""Why a node passed or failed, in the owner's words, and the sentences of the running branch.

Every condition, decorator and chooser of the node library explains itself:
``explain(passed, depth)`` says why it succeeded (or let its branch run) or why it failed on its
last tick. A condition quotes the value it compared (``Excited is 0.52, above 0.4``), a
decorator what it made of its child's answer (``cooling down, 27 s left``), a chooser which
child it picked and what it beat. Composites explain themselves from their children: a
sequence by the guards it met or the child that failed, a selector by the child it runs and
the children before it that failed. :func:`reason` asks a node for its explanation and falls
back on that structure for nodes built outside the library (py_trees' own composites).

:func:`explain_branch` walks the running branch after a tick and gives one sentence per
decision on it (a selector or a chooser running a child); the dashboard's "why" shows them and
the log's line for each change of branch ends with them:

    freeplay → play: Excited is 0.52, above 0.4. It beat needs (battery 4.02 V, not below
    3.6 V) and social (no button within 5 s); idle comes after it.
    weighted random → PlayHappy: picked by chance, weight 1 of 3 (Pounce 2).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any, Protocol, runtime_checkable

from py_trees.behaviour import Behaviour
from py_trees.composites import Composite, Parallel, Selector, Sequence
from py_trees.decorators import Decorator, Inverter

from .status import FAILURE, INVALID, RUNNING, SUCCESS

__all__ = [
    "Chooser",
    "GENERIC_PREFIXES",
    "MAX_DEPTH",
    "choice_path",
    "explain_branch",
    "is_chooser",
    "is_condition",
    "label",
    "reason",
]

#: How deep explanations follow a failed subtree before they settle for its name.
MAX_DEPTH = 6
#: Names the builder gives nodes that were not named (the node type, perhaps with a detail).
GENERIC_PREFIXES = ("sequence", "selector", "strict_priority", "parallel", "weighted_random", "scoring",
                    "inverter", "cooldown", "timeout", "timer", "one_shot", "repeat", "retry")


def is_condition(node: Behaviour) -> bool:
    """Whether ``node`` (under any inverters) only looks: a condition of the node library."""
    while isinstance(node, Inverter):
        node = node.decorated
    return bool(getattr(node, "is_condition", False))


@runtime_checkable
class Chooser(Protocol):
    """A node that picks one of its children by a rule of its own (scoring, weighted random)."""

    def decision(self) -> str:
        """Its last pick in words: which child and what it beat (empty before the first)."""


def is_chooser(node: Behaviour) -> bool:
    """Whether ``node`` is a :class:`Chooser`: what ``isinstance(node, Chooser)`` says, without
    the protocol's own check (microseconds, and the heartbeat asks for every node it passes)."""
    return getattr(node, "decision", None) is not None


def _children(node: Behaviour) -> list[Behaviour]:
    if isinstance(node, Decorator):
        return [node.decorated]
    return list(node.children) if isinstance(node, Composite) else []


def label(node: Behaviour) -> str:
    """What to call a node: its name, or for an unnamed composite what it runs."""
    name = node.name
    if not name.startswith(GENERIC_PREFIXES):
        return name
    for _ in range(3):
        actions = [k for k in _children(node) if not is_condition(k)]
        if not actions:
            break
        node = actions[0]
        if not node.name.startswith(GENERIC_PREFIXES):
            return node.name
    return name


def failed_message(node: Behaviour) -> str:
    """A node's own word on why it failed (its feedback message), else ``<label> failed``."""
    message = node.feedback_message
    return message if message and message not in ("yes", "no") else f"{label(node)} failed"


def reason(node: Behaviour, passed: bool, depth: int = 0) -> str:
    """Why ``node`` passed (or let its branch run) or failed on the last tick, as a short phrase."""
    if depth > MAX_DEPTH:
        return label(node) if passed else f"{label(node)} failed"
    own = getattr(node, "explain", None)
    if own is not None:
        return str(own(passed, depth))
    return structural_reason(node, passed, depth)


def structural_reason(node: Behaviour, passed: bool, depth: int = 0) -> str:
    """The explanation of a composite or decorator from its children's (and of a leaf from its feedback)."""
    if isinstance(node, Inverter):
        return reason(node.decorated, not passed, depth + 1)
    if isinstance(node, Decorator):
        if passed:
            return reason(node.decorated, True, depth + 1)
        if node.decorated.status is FAILURE:
            return reason(node.decorated, False, depth + 1)
        return node.feedback_message or f"{label(node)} failed"
    if isinstance(node, Sequence):
        if passed:
            return "; ".join(_guards(node, depth)) or label(node)
        failed = next((c for c in node.children if c.status is FAILURE), None)
        return reason(failed, False, depth + 1) if failed is not None else f"{label(node)} failed"
    if isinstance(node, Selector):
        if passed:
            chosen = next((c for c in node.children if c.status in (SUCCESS, RUNNING)), None)
            return reason(chosen, True, depth + 1) if chosen is not None else label(node)
        reasons = [reason(c, False, depth + 1) for c in node.children if c.status is FAILURE]
        return "; ".join(reasons) if reasons else f"{label(node)} failed"
    return label(node) if passed else failed_message(node)


def _guards(sequence: Sequence, depth: int) -> list[str]:
    """The conditions a sequence met before the child it runs (its guards)."""
    met = []
    for child in sequence.children:
        if child.status is not SUCCESS:
            break
        if is_condition(child) or isinstance(child, (Selector, Sequence)):
            met.append(reason(child, True, depth + 1))
    return met


# ----------------------------------------------------------------------------- the running branch


def _running_child(node: Behaviour) -> Behaviour | None:
    if isinstance(node, Decorator):
        return node.decorated if node.decorated.status is not INVALID else None
    if isinstance(node, Parallel):
        return next((c for c in node.children if c.status is RUNNING), None)
    if isinstance(node, Composite):
        child = node.current_child
        return child if child is not None and child.status is not INVALID else None
    return None


def _branch(root: Behaviour) -> Iterator[Behaviour]:
    node: Behaviour | None = root
    while node is not None:
        yield node
        node = _running_child(node)


def choice_path(root: Behaviour) -> tuple[tuple[int, int], ...]:
    """The choices along the running branch (selector or chooser, the child it runs), by node id.

    The branch changes at every step of a sequence; a *decision* changes only when a selector
    or chooser runs another child, which is when this changes.
    """
    out = []
    for node in _branch(root):
        if isinstance(node, Selector) or is_chooser(node):
            child = _running_child(node)
            if child is not None:
                out.append((id(node), id(child)))
    return tuple(out)


def explain_branch(root: Behaviour, only: Collection[tuple[int, int]] | None = None) -> list[str]:
    """One sentence per decision on the running branch under ``root``: what it runs, why, what it beat.

    ``only`` limits them to the decisions named as :func:`choice_path` names them (those that
    changed since the last time, say).
    """
    lines = []
    for node in _branch(root):
        child = _running_child(node)
        if child is None or (only is not None and (id(node), id(child)) not in only):
            continue
        if isinstance(node, Chooser):
            decision = node.decision()
            lines.append(f"{label(node)} → {label(child)}" + (f": {decision}." if decision else "."))
        elif isinstance(node, Selector):
            lines.append(selector_sentence(node, child))
    return lines


def selector_sentence(node: Selector, child: Behaviour) -> str:
    """``top → play: <why it may run>. It beat <the children before it and why they failed>; <later> wait.``"""
    index = node.children.index(child)
    head = f"{label(node)} → {label(child)}"
    plain = not isinstance(child, (Composite, Decorator)) or is_chooser(child)
    because = "" if plain else reason(child, True)
    beaten = [f"{label(c)} ({reason(c, False)})" for c in node.children[:index] if c.status is FAILURE]
    later = [label(c) for c in node.children[index + 1:]]
    text = head + (f": {because}." if because and because != label(child) else ".")
    if beaten:
        text += f" It beat {and_list(beaten)}"
        text += f"; {and_list(later)} {'comes' if len(later) == 1 else 'come'} after it." if later else "."
    elif later:
        text += f" It comes first; {and_list(later)} {'waits' if len(later) == 1 else 'wait'}."
    return text


def and_list(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def num(value: float) -> str:
    """A number as the sentences show it: two decimals at most, no trailing zeros."""
    return f"{value:.2f}".rstrip("0").rstrip(".") if abs(value) < 100 else f"{value:.0f}"


def ago(now: float, at: Any) -> str:
    """Seconds since ``at``, as the sentences show them."""
    seconds = max(0.0, now - float(at))
    return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"
