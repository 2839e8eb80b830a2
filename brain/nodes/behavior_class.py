"""Cozmo's behaviour classes as declarations: the code, its parameters, and how they are read.

Anki's engine described a behaviour as a class (the code), an ID (this use of it) and its
parameters (the rest of the behaviour's JSON). A :class:`BehaviorClass` is the code's side:
its name, the parameters it reads (each a :class:`~brain.nodes.params.Param` keyed by the name
Anki's JSON uses, with the other spellings real files use as aliases) and the factory that
builds its subtree. Calling it with a :class:`BehaviorSpec` validates the spec's raw parameters
against the declaration and hands the factory the validated values; a wrong type or an
out-of-range value raises :class:`BehaviorParamError`, naming the key as written. Keys the
class does not read are never refused: :meth:`BehaviorClass.resolve` lists them, and
``cozmo-brain check`` reports them per class.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from py_trees.behaviour import Behaviour

from brain.context import BrainContext

from .actions import FireEmotionEvent, PlayAnimationTrigger
from .composites import Sequence as SequenceNode
from .params import Param, ParamError, coerce

__all__ = [
    "EMOTION_EVENT",
    "SCORE_KEYS",
    "BehaviorClass",
    "emotion_nodes",
    "BehaviorParamError",
    "BehaviorSpec",
    "Resolved",
    "triggers_param",
]

#: Keys any behaviour file may carry that the scoring chooser reads, not the class
#: (:func:`brain.personality.activities.activity_score`).
SCORE_KEYS: tuple[str, ...] = ("emotionScorers", "flatScore", "repetitionPenalty", "runningPenalty")

#: The emotion event fired when a behaviour completes, under the spellings real files use.
EMOTION_EVENT = Param("str", doc="emotion event fired when it completes",
                      aliases=("emotionEvent", "emotionEventOnSuccess"))

#: Spellings of a behaviour's animation triggers in real files (compared without regard to case).
TRIGGER_ALIASES: tuple[str, ...] = (
    "animTrigger", "animationTriggers", "animationTrigger", "anims", "anim", "animGroup", "animGroups",
)


def triggers_param(default: tuple[str, ...] | None = None, doc: str = "animation triggers",
                   required: bool = False) -> Param:
    """The ``animTriggers`` parameter, with its spellings; ``default`` is what the app played."""
    return Param("triggers", required=required, default=list(default) if default is not None else None,
                 doc=doc, aliases=TRIGGER_ALIASES)


class BehaviorParamError(ValueError):
    """A behaviour parameter does not fit its declaration; ``key`` is the key as written in the file."""

    def __init__(self, behavior_id: str, key: str, message: str) -> None:
        super().__init__(f"{behavior_id}: {key}: {message}")
        self.behavior_id = behavior_id
        self.key = key
        self.reason = message


@dataclass(frozen=True)
class BehaviorSpec:
    """A behaviour instance as the factories see it: class, ID, its raw parameters and the validated values.

    ``params`` are the parameters as written (the behaviour's JSON with any YAML overrides on
    top); ``values`` are filled by :class:`BehaviorClass` from its declaration: every declared
    parameter by its declared name, defaults included.
    """

    behavior_class: str
    behavior_id: str
    params: Mapping[str, Any] = field(default_factory=dict)
    values: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_record(cls, record: Any, extra: Mapping[str, Any] | None = None) -> BehaviorSpec:
        """From a :class:`brain.assets.records.Behavior` (duck-typed), with ``extra`` params on top."""
        params = dict(getattr(record, "params", {}) or {})
        params.update(extra or {})
        return cls(record.behavior_class, record.behavior_id, params)

    def value(self, name: str) -> Any:
        """The validated value of declared parameter ``name``."""
        return self.values[name]


@dataclass(frozen=True)
class Resolved:
    """A behaviour's raw parameters read against its class's declaration.

    ``values``: declared name → validated value (defaults filled in); ``read``: declared name →
    the key it was read from; ``ignored``: keys the class does not read (nor the scoring
    chooser); ``errors``: (key as written, what was expected).
    """

    values: dict[str, Any]
    read: dict[str, str]
    ignored: list[str]
    errors: list[tuple[str, str]]


def _flatten(raw: Mapping[str, Any], sections: tuple[str, ...] = ("params",)) -> Mapping[str, Any]:
    """``raw`` with the keys of its nested ``sections`` objects as ``<section>.<key>`` after the
    top-level ones."""
    nested = {name: raw[name] for name in sections if isinstance(raw.get(name), Mapping)}
    if not nested:
        return raw
    flat = {k: v for k, v in raw.items() if k not in nested}
    for name, inner in nested.items():
        flat.update({f"{name}.{k}": v for k, v in inner.items()})
    return flat


@dataclass(frozen=True)
class BehaviorClass:
    """One of Cozmo's behaviour classes: its declared parameters and the factory of its subtree.

    ``build(ctx, spec)`` receives a spec whose ``values`` hold every declared parameter,
    validated. ``doc`` is the one-line description of what the class does, for the format
    reference and ``check``.
    """

    name: str
    build: Callable[[BrainContext, BehaviorSpec], Behaviour]
    doc: str
    params: Mapping[str, Param] = field(default_factory=dict)
    #: nested objects whose keys are read as parameters too (``params`` in FindFaces' files,
    #: ``zero_block_config`` in RequestGameSimple's)
    sections: tuple[str, ...] = ("params",)

    def keys(self, name: str) -> tuple[str, ...]:
        """The spellings of declared parameter ``name``: itself, then its aliases."""
        return (name, *self.params[name].aliases)

    def resolve(self, raw: Mapping[str, Any]) -> Resolved:
        """Read ``raw`` against the declaration; never raises (errors are listed).

        Some classes' files keep their parameters in a nested object (``params`` in FindFaces
        and InteractWithFaces, ``zero_block_config`` in RequestGameSimple: :attr:`sections`);
        its keys are read as well, written as ``params.<key>``, and a key at the top level (a
        YAML override, say) wins over the nested one.
        """
        raw = _flatten(raw, self.sections)
        folded: dict[str, str] = {}
        for key in raw:
            folded.setdefault(str(key).rsplit(".", 1)[-1].casefold(), str(key))
        values: dict[str, Any] = {}
        read: dict[str, str] = {}
        errors: list[tuple[str, str]] = []
        used: set[str] = set()
        for name, param in self.params.items():
            spellings = [folded[k.casefold()] for k in self.keys(name) if k.casefold() in folded]
            used.update(spellings)
            if not spellings or raw[spellings[0]] is None:
                if param.required:
                    errors.append((name, "required, missing"))
                values[name] = param.default
                continue
            key = spellings[0]
            read[name] = key
            try:
                values[name] = coerce(param, raw[key])
            except ParamError as exc:
                errors.append((f"{key}{exc.path}", str(exc)))
                values[name] = param.default
        chooser = {k.casefold() for k in SCORE_KEYS}
        ignored = [str(k) for k in raw if str(k) not in used and str(k).casefold() not in chooser]
        return Resolved(values, read, ignored, errors)

    def __call__(self, ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
        """Validate ``spec``'s parameters and build the subtree (:class:`BehaviorParamError` on a bad one)."""
        resolved = self.resolve(spec.params)
        if resolved.errors:
            key, message = resolved.errors[0]
            raise BehaviorParamError(spec.behavior_id, key, message)
        return self.build(ctx, replace(spec, values=resolved.values))


def emotion_nodes(ctx: BrainContext, spec: BehaviorSpec, key: str = "finalEmotionEvent") -> list[Behaviour]:
    """The node that fires the emotion event named by ``spec``'s ``key``, or none when it names none.

    Every behaviour class ends (or branches) on such an event; this is the one place that turns
    the parameter into the node.
    """
    name = spec.value(key)
    return [FireEmotionEvent(f"emotion {name}", ctx, name)] if name else []


def sequence_of(owner: BehaviorSpec | str, children: Sequence[Behaviour]) -> Behaviour:
    """A behaviour's steps in order: a memory sequence named after the behaviour (its ID)."""
    name = owner.behavior_id if isinstance(owner, BehaviorSpec) else owner
    return SequenceNode(name, memory=True, children=list(children))


def plays(ctx: BrainContext, triggers: str | Sequence[str] | None) -> list[Behaviour]:
    """One play node per animation trigger, in order (none for None or an empty name)."""
    if not triggers:
        return []
    names = [triggers] if isinstance(triggers, str) else [t for t in triggers if t]
    return [PlayAnimationTrigger(t, ctx, t) for t in names]


def str_param(default: str, doc: str) -> Param:
    """A text parameter with a default (a trigger, an emotion event, a light's name)."""
    return Param("str", default=default, doc=doc)
