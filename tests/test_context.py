"""BrainContext's event memory: what RecentEvent-style conditions read."""

from __future__ import annotations

from dataclasses import dataclass

from brain.context import DEFAULT_EVENT_MEMORY, BrainContext


@dataclass
class Ev:
    at: float
    kind: str


def test_recent_events_by_kind_newest_first_within_a_window():
    now = [100.0]
    ctx = BrainContext(clock=lambda: now[0])
    for t, kind in [(90.0, "poked"), (95.0, "button"), (97.0, "poked"), (99.0, "state")]:
        ctx.push_event(Ev(t, kind))
    assert [e.at for e in ctx.recent_events("poked")] == [97.0, 90.0]
    assert [e.at for e in ctx.recent_events("poked", within_s=5)] == [97.0]
    assert [e.at for e in ctx.recent_events("poked", since=97.0)] == []
    assert [e.kind for e in ctx.recent_events()] == ["state", "poked", "button", "poked"]
    assert list(ctx.recent_events("cliff")) == []


def test_frequent_events_do_not_push_a_rare_one_out_of_memory():
    now = [0.0]
    ctx = BrainContext(clock=lambda: now[0])
    ctx.push_event(Ev(0.0, "poked"))
    for i in range(DEFAULT_EVENT_MEMORY * 4):
        ctx.push_event(Ev(0.01 * (i + 1), "picked_up"))
    now[0] = 60.0
    assert len(ctx.events) == DEFAULT_EVENT_MEMORY  # the combined memory forgot the poke …
    assert [e.kind for e in ctx.recent_events("poked", within_s=90)] == ["poked"]  # … its kind did not
