"""``arousal:``: how fast a personality tires, how long it naps, what keeps it up::

    arousal:
      sleepy_after_s: 300      # sleep debt (s) at which it is sleepy: 5 minutes of nothing happening
      tire_rate: 1.0           # debt added per second awake
      rest_rate: 0.5           # debt paid back per second asleep
      nap_max_s: 1800          # a nap ends by itself after this long at most
      initial_debt_s: 0        # debt at start-up
      sleepy_on_charger_s: 150 # on the charger it is sleepy sooner: it prefers to sleep there
      reserve_s: 600           # what happens can pay the debt this far below nothing
      stimuli: {poked: 300}    # seconds of debt one event of a kind pays off (merged with the defaults)

Every key is optional; the defaults are :class:`brain.arousal.SleepParams`'s. This module reads the
section, reporting each mistake with its file, line and key; what the numbers do is in
:mod:`brain.arousal`.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from brain.arousal import SleepParams
from brain.nodes.params import Param, ParamError, coerce
from driver.events import EVENT_KINDS

from .located import LMap, short_repr, suggest

if TYPE_CHECKING:
    from .builder import Builder

__all__ = ["AROUSAL_KEYS", "build_arousal"]

#: The numeric keys of ``arousal:`` and the least each may be.
_NUMBERS = {"sleepy_after_s": 1.0, "tire_rate": 0.0, "rest_rate": 0.0, "nap_max_s": 1.0, "initial_debt_s": 0.0,
            "sleepy_on_charger_s": 1.0, "reserve_s": 0.0}
#: The keys of ``arousal:``.
AROUSAL_KEYS = (*_NUMBERS, "stimuli")


def build_arousal(builder: Builder) -> SleepParams:
    """The document's ``arousal:`` over the defaults (the defaults alone when absent or wrong)."""
    doc = builder.doc
    raw = doc.get("arousal")
    if raw is None:
        return SleepParams()
    issues = builder.issues
    if not isinstance(raw, LMap):
        issues.add(doc.at("arousal"), "arousal", f"expected a mapping with {', '.join(AROUSAL_KEYS)}, "
                   f"got {short_repr(raw)}")
        return SleepParams()
    raw = builder.resolve(raw, doc.at("arousal"), "arousal")
    changes: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "stimuli":
            stimuli = _stimuli(builder, raw, value)
            if stimuli is not None:
                changes["stimuli"] = {**SleepParams().stimuli, **stimuli}
        elif key in _NUMBERS:
            try:
                changes[key] = coerce(Param("number", minimum=_NUMBERS[key]), value)
            except ParamError as exc:
                issues.add(raw.at(key), f"arousal.{key}", str(exc))
        else:
            issues.add(raw.at(key), f"arousal.{key}", f"unknown key{suggest(str(key), AROUSAL_KEYS)} "
                       f"(expected {', '.join(AROUSAL_KEYS)})")
    return dataclasses.replace(SleepParams(), **changes)


def _stimuli(builder: Builder, raw: LMap, value: Any) -> dict[str, float] | None:
    if not isinstance(value, LMap):
        builder.issues.add(raw.at("stimuli"), "arousal.stimuli", f"expected a mapping of event kind: seconds, "
                           f"got {short_repr(value)}")
        return None
    out: dict[str, float] = {}
    for kind, seconds in value.items():
        path = f"arousal.stimuli.{kind}"
        if kind not in EVENT_KINDS:
            builder.issues.add(value.at(kind), path, f"unknown event kind{suggest(str(kind), sorted(EVENT_KINDS))}")
            continue
        try:
            out[str(kind)] = coerce(Param("number", minimum=0.0), seconds)
        except ParamError as exc:
            builder.issues.add(value.at(kind), path, str(exc))
    return out
