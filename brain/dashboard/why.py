"""Why the robot does what it does, in words an owner understands.

Owners ask why their robot does what it does; an engine that only logs a score does not answer.
After a tick, the tree itself holds the answer: along the running branch, every selector ticked
the children before the one it runs and saw them fail, each sequence saw its guard conditions
pass, and a chooser (scoring, weighted random) picked one child over the others. This module
reads that from the nodes as the tick left them and says it:

    freeplay → play: Excited is 0.52, above 0.4. It beat needs (battery 4.02 V, not below
    3.6 V; connected 12 s ago, within 90 s) and social (no button within 5 s); idle comes after.
    weighted random → PlayHappy: picked by chance, weight 1 of 3 (Pounce 2).

Conditions are put in words by their type (mood above/below, recent event, battery, status
flags, orientation), with the values they compared; other nodes by their feedback message.
What choosers decided is told to :class:`Choices` through the context's ``explain`` hook at the
moment they choose (the scores before noise, the weights and cooldowns), since it is gone after.

Nothing here runs unless the dashboard is on, and then only when the running branch changes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from py_trees.behaviour import Behaviour
from py_trees.common import Status
from py_trees.composites import Composite, Parallel, Selector, Sequence
from py_trees.decorators import Decorator, Inverter

from brain.context import BrainContext
from brain.nodes.choosers import Scoring, StartMoodGate, WeightedRandom
from brain.nodes.conditions import (
    BatteryLow,
    MoodAbove,
    MoodBelow,
    OnCharger,
    OrientationIs,
    PickedUp,
    RecentEvent,
    SimpleMoodIs,
    current_orientation,
)
from brain.nodes.decorators import Cooldown

__all__ = ["Choices", "choice_path", "describe_condition", "explain_branch", "label", "why_failed", "why_passed"]

#: How deep explanations follow a failed subtree before they settle for its name.
MAX_DEPTH = 6
#: Names the builder gives nodes that were not named (the node type, perhaps with a detail).
GENERIC_PREFIXES = ("sequence", "selector", "strict_priority", "parallel", "weighted_random", "scoring",
                    "inverter", "cooldown", "timeout", "timer", "one_shot", "repeat", "retry")


class Choices:
    """The last decision of each chooser (by node), as its ``explain`` hook reported it.

    Install with ``ctx.explain = choices.record``; the facts stay with the chooser until it
    decides again, so the explanation of a branch can quote them whenever the branch changes.
    """

    def __init__(self) -> None:
        self.last: dict[int, dict[str, Any]] = {}

    def record(self, node: Any, facts: dict[str, Any]) -> None:
        """The ``BrainContext.explain`` hook: remember what ``node`` chose."""
        self.last[id(node)] = facts

    def forget(self) -> None:
        """Drop every decision (a new personality has new choosers)."""
        self.last.clear()


# ----------------------------------------------------------------------------- words for nodes


def label(node: Behaviour) -> str:
    """What to call a node: its name, or for an unnamed composite what it runs."""
    name = node.name
    if not name.startswith(GENERIC_PREFIXES):
        return name
    for _ in range(3):
        kids = _children(node)
        actions = [k for k in kids if not _is_condition(k)]
        if not actions:
            break
        node = actions[0]
        if not node.name.startswith(GENERIC_PREFIXES):
            return node.name
    return name


def _children(node: Behaviour) -> list[Behaviour]:
    if isinstance(node, Decorator):
        return [node.decorated]
    return list(node.children) if isinstance(node, Composite) else []


def _is_condition(node: Behaviour) -> bool:
    while isinstance(node, Decorator) and isinstance(node, Inverter):
        node = node.decorated
    return isinstance(node, (MoodAbove, MoodBelow, SimpleMoodIs, RecentEvent, BatteryLow, OnCharger, PickedUp,
                             OrientationIs))


def _num(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if abs(value) < 100 else f"{value:.0f}"


def _ago(ctx: BrainContext, at: float) -> str:
    seconds = max(0.0, ctx.now() - at)
    return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"


def _event_name(node: RecentEvent) -> str:
    if node.value is False:
        return f"{node.kind} (off)"
    if isinstance(node.value, str):
        return f"{node.kind} {node.value}"
    return node.kind


def describe_condition(node: Behaviour, ctx: BrainContext, passed: bool) -> str:
    """A condition's answer with the values it compared (``Excited is 0.52, above 0.4``)."""
    mood = ctx.mood
    if isinstance(node, (MoodAbove, MoodBelow)) and mood is not None:
        side = "above" if isinstance(node, MoodAbove) else "below"
        value = _num(mood.value(node.emotion))
        return f"{node.emotion} is {value}, {'' if passed else 'not '}{side} {_num(node.value)}"
    if isinstance(node, SimpleMoodIs) and mood is not None:
        wanted = " or ".join(sorted(node.moods))
        return f"simple mood is {mood.simple_mood().value}" + ("" if passed else f", not {wanted}")
    if isinstance(node, RecentEvent):
        what = _event_name(node)
        matched = node.matched
        if passed and matched is not None:
            return f"{what} {_ago(ctx, float(matched.at))} ago, within {_num(node.within_s)} s"
        return f"no {what} within {_num(node.within_s)} s"
    state = ctx.robot_state
    if isinstance(node, BatteryLow) and state is not None:
        return f"battery {state.battery.voltage_v:.2f} V, {'' if passed else 'not '}below {_num(node.volts)} V"
    if isinstance(node, OnCharger):
        return "on the charger" if passed else "not on the charger"
    if isinstance(node, PickedUp):
        return "held in the air" if passed else "not held in the air"
    if isinstance(node, OrientationIs):
        now = current_orientation(ctx) or "unknown"
        return f"lying {now.replace('_', ' ')}" + ("" if passed else f", not {' or '.join(sorted(node.orientations))}")
    why = node.feedback_message
    return f"{node.name}: {why}" if why and why not in ("yes", "no") else f"{node.name}: {'yes' if passed else 'no'}"


def why_failed(node: Behaviour, ctx: BrainContext, depth: int = 0) -> str:
    """Why ``node`` failed on the last tick (it has status FAILURE), as a short phrase."""
    if depth > MAX_DEPTH:
        return f"{label(node)} failed"
    if _is_condition(node) and not isinstance(node, Decorator):
        return describe_condition(node, ctx, passed=False)
    if isinstance(node, Inverter):
        return why_passed(node.decorated, ctx, depth + 1)
    if isinstance(node, Cooldown) and node.remaining() > 0 and node.decorated.status is not Status.FAILURE:
        return f"cooling down, {node.remaining():.0f} s left"
    if isinstance(node, StartMoodGate):
        return node.feedback_message or "its start mood score is too low"
    if isinstance(node, Decorator):
        if node.decorated.status is Status.FAILURE:
            return why_failed(node.decorated, ctx, depth + 1)
        return node.feedback_message or f"{label(node)} failed"
    if isinstance(node, Sequence):
        failed = next((c for c in node.children if c.status is Status.FAILURE), None)
        return why_failed(failed, ctx, depth + 1) if failed is not None else f"{label(node)} failed"
    if isinstance(node, Selector):
        reasons = [why_failed(c, ctx, depth + 1) for c in node.children if c.status is Status.FAILURE]
        return "; ".join(reasons) if reasons else f"{label(node)} failed"
    message = node.feedback_message
    return message if message and message not in ("yes", "no") else f"{label(node)} failed"


def why_passed(node: Behaviour, ctx: BrainContext, depth: int = 0) -> str:
    """Why ``node`` succeeded (or let its branch run) on the last tick: the conditions it met."""
    if depth > MAX_DEPTH:
        return label(node)
    if _is_condition(node) and not isinstance(node, Decorator):
        return describe_condition(node, ctx, passed=True)
    if isinstance(node, Inverter):
        return why_failed(node.decorated, ctx, depth + 1)
    if isinstance(node, Decorator):
        return why_passed(node.decorated, ctx, depth + 1)
    if isinstance(node, Selector):
        chosen = next((c for c in node.children if c.status in (Status.SUCCESS, Status.RUNNING)), None)
        return why_passed(chosen, ctx, depth + 1) if chosen is not None else label(node)
    if isinstance(node, Sequence):
        return "; ".join(_guards(node, ctx, depth)) or label(node)
    return label(node)


def _guards(sequence: Sequence, ctx: BrainContext, depth: int) -> list[str]:
    """The conditions a sequence met before the child it runs (its guards)."""
    met = []
    for child in sequence.children:
        if child.status is not Status.SUCCESS:
            break
        if _is_condition(child) or isinstance(child, (Selector, Sequence)):
            met.append(why_passed(child, ctx, depth + 1))
    return met


# ----------------------------------------------------------------------------- the running branch


def _running_child(node: Behaviour) -> Behaviour | None:
    if isinstance(node, Decorator):
        return node.decorated if node.decorated.status is not Status.INVALID else None
    if isinstance(node, Parallel):
        return next((c for c in node.children if c.status is Status.RUNNING), None)
    if isinstance(node, Composite):
        child = node.current_child
        return child if child is not None and child.status is not Status.INVALID else None
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
        if isinstance(node, (Selector, Scoring, WeightedRandom)):
            child = _running_child(node)
            if child is not None:
                out.append((id(node), id(child)))
    return tuple(out)


def explain_branch(root: Behaviour, ctx: BrainContext, choices: Choices) -> list[str]:
    """One sentence per choice on the running branch under ``root``: what it runs, why, what it beat."""
    lines = []
    for node in _branch(root):
        child = _running_child(node)
        if child is None:
            continue
        if isinstance(node, (Scoring, WeightedRandom)):
            lines.append(_chooser_line(node, child, choices.last.get(id(node))))
        elif isinstance(node, Selector):
            lines.append(_selector_line(node, child, ctx))
    return lines


def _selector_line(node: Selector, child: Behaviour, ctx: BrainContext) -> str:
    index = node.children.index(child)
    head = f"{label(node)} → {label(child)}"
    because = why_passed(child, ctx) if not _is_plain_action(child) else ""
    beaten = [f"{label(c)} ({why_failed(c, ctx)})" for c in node.children[:index] if c.status is Status.FAILURE]
    later = [label(c) for c in node.children[index + 1:]]
    text = head + (f": {because}." if because and because != label(child) else ".")
    if beaten:
        text += f" It beat {_and(beaten)}"
        text += f"; {_and(later)} {'comes' if len(later) == 1 else 'come'} after it." if later else "."
    elif later:
        text += f" It comes first; {_and(later)} {'waits' if len(later) == 1 else 'wait'}."
    return text


def _is_plain_action(node: Behaviour) -> bool:
    return not isinstance(node, (Composite, Decorator))


def _chooser_line(node: Behaviour, child: Behaviour, facts: dict[str, Any] | None) -> str:
    head = f"{label(node)} → {label(child)}"
    names = [label(c) for c in node.children]
    index = node.children.index(child)
    if facts is None:
        return head + "."
    if facts.get("kind") == "scoring":
        scores = facts.get("scores") or []
        values = facts.get("values") or {}
        others = [f"{names[i]} {_num(s)}" if s > 0 else f"{names[i]} vetoed" for i, s in enumerate(scores)
                  if i != index]
        mine = scores[index] if index < len(scores) else 0.0
        mood = ", ".join(f"{k} {_num(v)}" for k, v in values.items())
        text = f"{head}: best mood score {_num(mine)}"
        if others:
            text += f", over {_and(others)}"
        noise = float(facts.get("noise") or 0.0)
        if noise:
            text += f" (plus up to {_num(noise)} of chance)"
        if facts.get("running") is not None and facts["running"] != index:
            text += f"; it took over from {names[facts['running']]}"
        return text + (f". Mood: {mood}." if mood else ".")
    weights = facts.get("weights") or []
    waits = facts.get("waits") or []
    total = sum(w for i, w in enumerate(weights) if not (i < len(waits) and waits[i] > 0))
    mine = weights[index] if index < len(weights) else 0.0
    ready = [f"{names[i]} {_num(w)}" for i, w in enumerate(weights) if i != index and w > 0
             and not (i < len(waits) and waits[i] > 0)]
    cooling = [f"{names[i]} ({waits[i]:.0f} s)" for i in range(len(waits)) if waits[i] > 0 and i != index]
    text = f"{head}: picked by chance, weight {_num(mine)} of {_num(total)}"
    if ready:
        text += f" ({_and(ready)})"
    if cooling:
        text += f"; cooling down: {_and(cooling)}"
    return text + "."


def _and(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
