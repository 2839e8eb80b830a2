"""ExpressNeeds: Cozmo shows a low need (tired, bored, in need of repair) with its request clip.

As Anki's ExpressNeeds did: the behaviour runs while its ``need`` (Energy, Play or Repair) is in
``needBracket`` or below (Warning takes Critical too), and not again until its ``cooldown`` has
passed; the cooldown is a graph of the need's level (x) to seconds (y), so the lower the need,
the more often it asks. The needs are :mod:`brain.needs`.
"""

from __future__ import annotations

from typing import Any

from py_trees.behaviour import Behaviour

from brain.context import BrainContext
from brain.graph import Graph, GraphError
from brain.needs import BRACKETS, NEEDS

from .actions import PlayAnimationTrigger
from .behavior_class import (
    EMOTION_EVENT,
    BehaviorClass,
    BehaviorParamError,
    BehaviorSpec,
    emotion_nodes,
    triggers_param,
)
from .composites import Sequence as SequenceNode
from .conditions import _Condition
from .params import Param

__all__ = ["NEEDS_CLASSES", "NeedLow"]


class NeedLow(_Condition):
    """SUCCESS while ``need`` is in ``bracket`` or a lower one and the cooldown (seconds, a graph
    of the need's level) has passed since it last answered SUCCESS."""

    def __init__(self, name: str, ctx: BrainContext, need: str, bracket: str, cooldown: Graph | None) -> None:
        super().__init__(name, ctx)
        self.need, self.bracket, self.cooldown = need, bracket, cooldown
        self.last: float | None = None
        self.level = 0.0

    def check(self) -> bool:
        needs = self.ctx.needs
        self.level = needs.levels[self.need]
        if BRACKETS.index(needs.bracket(self.need)) < BRACKETS.index(self.bracket):
            return False
        now = self.ctx.now()
        wait = self.cooldown(self.level) if self.cooldown is not None else 0.0
        if self.last is not None and now - self.last < wait:
            return False
        self.last = now
        return True

    def in_words(self, passed: bool) -> str | None:
        bracket = self.ctx.needs.bracket(self.need)
        return f"{self.need} {self.level:.2f} ({bracket}), {'' if passed else 'not '}at {self.bracket} or below"


def _cooldown(spec: BehaviorSpec) -> Graph | None:
    raw: Any = spec.value("cooldown")
    if raw is None:
        return None
    nodes = raw.get("nodes") if isinstance(raw, dict) else raw
    try:
        return Graph.from_nodes(nodes if isinstance(nodes, list) else [], "cooldown.nodes")
    except GraphError as exc:
        raise BehaviorParamError(spec.behavior_id, "cooldown", str(exc)) from None


def express_needs(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ExpressNeeds: while the need is low (and off cooldown), its request clip, then its emotion event."""
    triggers = spec.value("animTriggers")
    if not triggers:
        raise BehaviorParamError(spec.behavior_id, "animTriggers", "ExpressNeeds needs at least one trigger")
    low = NeedLow(f"{spec.value('need')} low", ctx, spec.value("need"), spec.value("needBracket"), _cooldown(spec))
    return SequenceNode(spec.behavior_id, memory=True,
                        children=[low, *(PlayAnimationTrigger(t, ctx, t) for t in triggers), *emotion_nodes(ctx, spec)])


NEEDS_CLASSES: tuple[BehaviorClass, ...] = (
    BehaviorClass("ExpressNeeds", express_needs,
                  "while `need` is in `needBracket` or below (and off its `cooldown`), plays its request clip",
                  {"animTriggers": triggers_param(required=True),
                   "need": Param("str", required=True, choices=NEEDS, doc="Energy, Play or Repair"),
                   "needBracket": Param("str", default="Warning", choices=BRACKETS, doc="at this bracket or below"),
                   "cooldown": Param("any", doc="seconds between two (a graph of the need's level: {nodes: [{x, y}]})"),
                   "finalEmotionEvent": EMOTION_EVENT}),
)
