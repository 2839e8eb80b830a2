"""Network faults on demand: loss, duplication, reordering, latency and silence.

The simulator puts a :class:`NetworkFaults` between its link and the socket, in both directions,
so tests can show that the engine survives what Wi-Fi does to a robot's packets. Settings can be
changed while running (a scripted timeline or a test flips ``silent`` on and off). The random
source is a seeded ``random.Random`` so a failing run can be replayed.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field

Address = tuple[str, int]
Sink = Callable[[bytes, Address], None]


@dataclass
class FaultCounters:
    """What the fault injector did, per direction."""

    passed: int = 0
    dropped: int = 0
    duplicated: int = 0
    reordered: int = 0


@dataclass
class NetworkFaults:
    """Impairs datagrams both ways. Probabilities are per datagram, in [0, 1].

    ``reorder`` holds a datagram back by ``reorder_delay_ms`` so later ones overtake it;
    ``latency_ms`` (+ uniform ``jitter_ms``) delays every datagram; ``silent`` drops everything,
    as a robot that stopped answering would.
    """

    loss: float = 0.0
    duplicate: float = 0.0
    reorder: float = 0.0
    latency_ms: float = 0.0
    jitter_ms: float = 0.0
    reorder_delay_ms: float = 15.0
    silent: bool = False
    seed: int | None = None
    out: FaultCounters = field(default_factory=FaultCounters)
    inn: FaultCounters = field(default_factory=FaultCounters)

    def __post_init__(self) -> None:
        for name in ("loss", "duplicate", "reorder"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be a probability in [0, 1], got {value}")
        if self.latency_ms < 0 or self.jitter_ms < 0:
            raise ValueError("latency and jitter must not be negative")
        self._rng = random.Random(self.seed)

    def reseed(self, seed: int | None) -> None:
        """Start the random source over from ``seed``: the same losses from this moment on, run after run."""
        self.seed = seed
        self._rng = random.Random(seed)

    @property
    def active(self) -> bool:
        """True when any impairment is switched on."""
        return bool(self.loss or self.duplicate or self.reorder or self.latency_ms or self.silent)

    def outgoing(self, data: bytes, addr: Address, send: Sink) -> None:
        """Impair one datagram leaving the simulated robot."""
        self._apply(data, addr, send, self.out)

    def incoming(self, data: bytes, addr: Address, deliver: Sink) -> None:
        """Impair one datagram arriving at the simulated robot."""
        self._apply(data, addr, deliver, self.inn)

    def _apply(self, data: bytes, addr: Address, sink: Sink, counters: FaultCounters) -> None:
        if not (self.silent or self.loss or self.duplicate or self.reorder or self.latency_ms or self.jitter_ms):
            counters.passed += 1  # a clean link: every datagram of a simulated day passes here
            sink(data, addr)
            return
        rng = self._rng
        if self.silent or (self.loss and rng.random() < self.loss):
            counters.dropped += 1
            return
        copies = 1
        if self.duplicate and rng.random() < self.duplicate:
            copies = 2
            counters.duplicated += 1
        for _ in range(copies):
            delay = self.latency_ms + (rng.uniform(0, self.jitter_ms) if self.jitter_ms else 0.0)
            if self.reorder and rng.random() < self.reorder:
                delay += self.reorder_delay_ms
                counters.reordered += 1
            counters.passed += 1
            if delay > 0:
                asyncio.get_running_loop().call_later(delay / 1000.0, sink, data, addr)
            else:
                sink(data, addr)
