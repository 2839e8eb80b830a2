"""Benchmark: one heartbeat tick of the default personality, and its overhead over plain py_trees.

What is timed
    ``brain.root.tick_once()`` — the brain's whole tree for one beat: the reaction runner above
    ``trees/default.yaml``, loaded with the project's ``resources/`` by :class:`brain.engine.Brain`
    exactly as ``cozmo-brain run`` does. The robot is the simulated Cozmo (its RobotState stream,
    acks and events are real), the run is the offline simulation on a virtual clock
    (:mod:`brain.app.simulate`), and a scripted world pokes, taps, presses the button, lifts the
    robot and shows it a cliff every minute or so, so the ticks are a realistic mix of idling,
    playing, reacting and sleeping rather than hours of one sleeping branch. Target: median
    ≤ 0.5 ms.

What "the same tree built with plain py_trees" means here
    A tree's cost per tick depends less on its static shape than on the path a tick takes: a
    selector stops at its first child that does not fail, a sequence at the first that does not
    succeed, a chooser runs one child. Two trees with the same nodes but different leaf results
    visit different numbers of nodes and are not comparable. So the plain tree is built to take,
    tick for tick, *exactly* the path ours took:

    1. A recording run ticks our tree with every node instrumented: for each visit, the node's
       final status; for each of our own nodes (choosers, cooldowns, the reaction root …), the
       children it ticked and any child it stopped, in order.
    2. The plain tree has one node per node of ours, in the same places: where ours uses a
       py_trees class (Selector, Sequence, Inverter, and ``StrictPriority``, a Selector that only
       renames itself) the plain tree uses that same class with the same settings, so py_trees'
       own selection logic runs on both sides; where ours uses a class of its own, the plain tree
       has a minimal hand-written py_trees Composite/Decorator/Behaviour that replays the
       recorded decision (tick these children, stop that one, end with this status); every leaf
       is a py_trees Behaviour whose ``update`` returns the recorded status — the trivial work a
       hand-written leaf does (read a value, return a status).
    3. A verification replay checks that the plain tree visits the same nodes with the same
       statuses as ours on every tick (printed), and the timing run (the simulation again, same
       seed: the virtual clock makes it the same run) ticks both trees once per beat,
       alternating which goes first, so both see the same cache and allocator conditions.

    The ratio (ours / plain) is therefore everything our library adds per tick over py_trees'
    own machinery for the same traversal: the real work of the leaves (reading events, mood and
    robot state, starting and polling animations and motor actions), the choosers' arithmetic,
    the cooldown clocks and the reaction bookkeeping. Target ≤ 1.2×.

Run: ``python tests/bench/tick.py [--minutes 15] [--seed 1]``.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from py_trees.behaviour import Behaviour  # noqa: E402
from py_trees.common import Status  # noqa: E402
from py_trees.composites import Composite, Parallel, Selector, Sequence  # noqa: E402
from py_trees.decorators import Decorator  # noqa: E402

from brain.app.simulate import run_virtual, simulate  # noqa: E402
from driver.sim.script import parse_script  # noqa: E402

PERSONALITY = ROOT / "trees" / "default.yaml"
RESOURCES = ROOT / "resources"
TARGET_MEDIAN_MS = 0.5
TARGET_RATIO = 1.2
#: The scripted world: one event every 50–70 s, cycling through these.
WORLD = ["{event: cube_tap, taps: 2}", "{event: poke}", "{event: button}", "{event: pick_up, for: 2}",
         "{event: cube_tap}", "{event: cliff, for: 1}", "{event: poke}"]

Key = tuple[Any, ...]
Action = tuple[Any, ...]  # ("tick", key) or ("stop", key, status)


def world_script(minutes: float) -> list[Any]:
    """Scripted events through the run, so the tree visits all its branches."""
    lines, t, i = [], 15.0, 0
    while t < minutes * 60.0:
        lines.append(f"- {{at: {t:.0f}, {WORLD[i % len(WORLD)][1:]}")
        t += 50.0 + 10.0 * (i % 3)
        i += 1
    return parse_script("\n".join(lines))


# ----------------------------------------------------------------------------- tree walking


def children_of(node: Behaviour) -> list[Behaviour]:
    if isinstance(node, Decorator):
        return [node.decorated]
    return list(node.children) if isinstance(node, Composite) else []


def all_nodes(brain: Any) -> dict[Key, Behaviour]:
    """Every node of the brain's tree and of every reaction's subtree, by a structural key."""
    out: dict[Key, Behaviour] = {}

    def walk(node: Behaviour, key: Key) -> None:
        out[key] = node
        for i, child in enumerate(children_of(node)):
            walk(child, (*key, i))

    walk(brain.root, ("root",))
    for i, reaction in enumerate(brain.personality.reactions):
        walk(reaction.root, ("reaction", i))
    return out


def is_plain(node: Behaviour) -> bool:
    """True for py_trees' own composites and decorators (subclasses that only rename count too)."""
    cls = type(node)
    if cls.__module__.startswith("py_trees."):
        return isinstance(node, (Composite, Decorator))
    for base in (Selector, Sequence, Parallel):
        if isinstance(node, base):
            return all(getattr(cls, m) is getattr(base, m) for m in ("tick", "update", "initialise", "terminate",
                                                                      "stop"))
    return False


# ----------------------------------------------------------------------------- recording


class Recording:
    """What our tree did, visit by visit (see the module docstring)."""

    def __init__(self) -> None:
        self.statuses: dict[Key, list[Status]] = {}
        self.scripts: dict[Key, list[list[Action]]] = {}
        self.ticks: list[list[tuple[Key, Status]]] = []
        self.signatures: list[str] = []


def instrument(nodes: dict[Key, Behaviour], custom: set[Key], rec: Recording) -> Callable[[], None]:
    """Wrap ``tick`` and ``stop`` of every node to record; returns a function that starts a new tick."""
    stack: list[Key] = []
    open_scripts: dict[Key, list[Action]] = {}
    stopping = [0]
    current: list[tuple[Key, Status]] = []

    def wrap(node: Behaviour, key: Key) -> None:
        orig_tick, orig_stop = node.tick, node.stop

        def tick() -> Iterator[Behaviour]:
            if stack and stack[-1] in custom:
                open_scripts[stack[-1]].append(("tick", key))
            stack.append(key)
            if key in custom:
                open_scripts[key] = []
            # A node's visit ends when it yields itself: py_trees parents stop iterating a child's
            # tick right there, so nothing after that point may be relied on.
            for yielded in orig_tick():
                if yielded is node:
                    stack.pop()
                    rec.statuses.setdefault(key, []).append(node.status)
                    if key in custom:
                        rec.scripts.setdefault(key, []).append(open_scripts.pop(key))
                    current.append((key, node.status))
                yield yielded

        def stop(new_status: Status = Status.INVALID) -> None:
            if not stopping[0] and stack and stack[-1] in custom and stack[-1] != key:
                open_scripts[stack[-1]].append(("stop", key, new_status))
            stopping[0] += 1
            try:
                orig_stop(new_status)
            finally:
                stopping[0] -= 1

        node.tick = tick  # type: ignore[method-assign]
        node.stop = stop  # type: ignore[method-assign]

    for key, node in nodes.items():
        wrap(node, key)

    def new_tick() -> None:
        rec.ticks.append(list(current))
        current.clear()

    return new_tick


# ----------------------------------------------------------------------------- the plain tree


class _Replay:
    """Shared by the replay nodes: the recorded statuses and scripts, consumed visit by visit."""

    def _setup(self, key: Key, rec: Recording, nodes: dict[Key, Behaviour]) -> None:
        self.key = key
        self._status = deque(rec.statuses.get(key, [])).popleft
        self._script = deque(rec.scripts.get(key, [])).popleft
        self._nodes = nodes

    def _run(self, script: list[Action]) -> Iterator[Behaviour]:
        nodes = self._nodes
        for action in script:
            if action[0] == "tick":
                yield from nodes[action[1]].tick()
            else:
                nodes[action[1]].stop(action[2])


class ReplayLeaf(_Replay, Behaviour):
    """A leaf whose ``update`` returns the recorded status (and replays what it ticked inside)."""

    def __init__(self, name: str, key: Key, rec: Recording, nodes: dict[Key, Behaviour], scripted: bool) -> None:
        Behaviour.__init__(self, name)
        self._setup(key, rec, nodes)
        self.scripted = scripted

    def update(self) -> Status:
        if self.scripted:
            for _ in self._run(self._script()):
                pass
        return self._status()


class ReplayComposite(_Replay, Composite):
    """A hand-written composite that ticks and stops the children our chooser did."""

    def __init__(self, name: str, key: Key, rec: Recording, nodes: dict[Key, Behaviour],
                 children: list[Behaviour]) -> None:
        Composite.__init__(self, name, children)
        self._setup(key, rec, nodes)

    def tick(self) -> Iterator[Behaviour]:
        if self.status is not Status.RUNNING:
            self.initialise()
        yield from self._run(self._script())
        status = self._status()
        if status is Status.RUNNING:
            self.status = status
        else:
            self.stop(status)
        yield self


class ReplayDecorator(_Replay, Decorator):
    """A hand-written decorator that ticks its child when ours did and ends as ours did."""

    def __init__(self, name: str, key: Key, rec: Recording, nodes: dict[Key, Behaviour], child: Behaviour) -> None:
        Decorator.__init__(self, child=child, name=name)
        self._setup(key, rec, nodes)

    def update(self) -> Status:  # unused: tick decides
        return self.status

    def tick(self) -> Iterator[Behaviour]:
        if self.status is not Status.RUNNING:
            self.initialise()
        yield from self._run(self._script())
        status = self._status()
        if status is not Status.RUNNING:
            self.stop(status)
        self.status = status
        yield self


def build_plain(nodes: dict[Key, Behaviour], custom: set[Key],
                rec: Recording) -> tuple[Behaviour, dict[Key, Behaviour]]:
    """The plain py_trees mirror of our tree (see the module docstring); returns (root, nodes by key)."""
    plain: dict[Key, Behaviour] = {}

    def build(key: Key) -> Behaviour:
        node = nodes[key]
        kids = [build((*key, i)) for i in range(len(children_of(node)))]
        if key not in custom:
            if isinstance(node, Selector):
                made: Behaviour = Selector(node.name, memory=node.memory, children=kids)
            elif isinstance(node, Sequence):
                made = Sequence(node.name, memory=node.memory, children=kids)
            elif isinstance(node, Parallel):
                made = Parallel(node.name, policy=node.policy, children=kids)
            else:
                made = type(node)(name=node.name, child=kids[0])  # py_trees' own decorators
        elif isinstance(node, Composite):
            made = ReplayComposite(node.name, key, rec, plain, kids)
        elif isinstance(node, Decorator):
            made = ReplayDecorator(node.name, key, rec, plain, kids[0])
        else:
            made = ReplayLeaf(node.name, key, rec, plain, scripted=key in rec.scripts)
        plain[key] = made
        return made

    for key in nodes:
        if len(key) == 1 or key[0] == "reaction" and len(key) == 2:
            build(key)
    return plain[("root",)], plain


def custom_keys(nodes: dict[Key, Behaviour]) -> set[Key]:
    """Nodes of our own classes (leaves count as ours: the plain tree replaces them all)."""
    return {key for key, node in nodes.items() if not is_plain(node)}


# ----------------------------------------------------------------------------- runs


def record(minutes: float, seed: int) -> tuple[Recording, dict[Key, Behaviour], set[Key]]:
    rec = Recording()
    holder: dict[str, Any] = {}

    def on_start(brain: Any) -> None:
        nodes = all_nodes(brain)
        custom = custom_keys(nodes)
        holder.update(nodes=nodes, custom=custom)
        new_tick = instrument(nodes, custom, rec)
        root = brain.root

        class Recorded:
            def tick_once(self) -> None:
                root.tick_once()
                new_tick()

        brain.heartbeat.set_tree(Recorded())
        _sign(brain, rec.signatures)

    run_virtual(simulate(PERSONALITY, [RESOURCES], hours=minutes / 60.0, script=world_script(minutes), seed=seed,
                         progress=False, on_start=on_start))
    return rec, holder["nodes"], holder["custom"]


def _sign(brain: Any, into: list[str]) -> None:
    brain.heartbeat.subscribe("snapshot", lambda snap: into.append(snap.branch))


def verify(nodes: dict[Key, Behaviour], custom: set[Key], rec: Recording) -> int:
    """Replay the plain tree with the recorder on; the number of ticks whose visits match ours."""
    root, plain = build_plain(nodes, custom, rec)
    check = Recording()
    new_tick = instrument(plain, set(), check)
    for _ in rec.ticks:
        root.tick_once()
        new_tick()
    return sum(1 for a, b in zip(rec.ticks, check.ticks, strict=True) if a == b)


def timed(minutes: float, seed: int, nodes: dict[Key, Behaviour], custom: set[Key],
          rec: Recording) -> tuple[list[float], list[float], list[str], Any]:
    ours: list[float] = []
    plain_ms: list[float] = []
    signatures: list[str] = []
    plain_root, _ = build_plain(nodes, custom, rec)
    clock = time.perf_counter

    def on_start(brain: Any) -> None:
        root = brain.root

        class Timed:
            k = 0

            def tick_once(self) -> None:
                self.k += 1
                if self.k % 2:
                    t0 = clock()
                    root.tick_once()
                    t1 = clock()
                    plain_root.tick_once()
                    t2 = clock()
                    ours.append((t1 - t0) * 1e3)
                    plain_ms.append((t2 - t1) * 1e3)
                else:
                    t0 = clock()
                    plain_root.tick_once()
                    t1 = clock()
                    root.tick_once()
                    t2 = clock()
                    plain_ms.append((t1 - t0) * 1e3)
                    ours.append((t2 - t1) * 1e3)

        brain.heartbeat.set_tree(Timed())
        _sign(brain, signatures)

    report = run_virtual(simulate(PERSONALITY, [RESOURCES], hours=minutes / 60.0, script=world_script(minutes),
                                  seed=seed, progress=False, on_start=on_start))
    return ours, plain_ms, signatures, report


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=15.0, help="simulated minutes (default 15)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)

    started = time.perf_counter()
    rec, nodes, custom = record(args.minutes, args.seed)
    visits = [len(t) for t in rec.ticks]
    matched = verify(nodes, custom, rec)
    ours, plain, signatures, report = timed(args.minutes, args.seed, nodes, custom, rec)
    same_run = signatures == rec.signatures

    kinds = Counter("py_trees" if k not in custom else "ours" for k in nodes)
    print(f"default personality, {args.minutes:g} simulated minutes (seed {args.seed}), {len(ours)} ticks, "
          f"{time.perf_counter() - started:.1f} s wall")
    print(f"tree: {len(nodes)} nodes incl. reaction subtrees ({kinds['py_trees']} py_trees composites/decorators, "
          f"{kinds['ours']} of ours); {statistics.mean(visits):.1f} nodes visited per tick on average, "
          f"max {max(visits)}")
    print("ticks by branch: " + ", ".join(f"{k} {100.0 * v / report.simulated_s:.0f}%"
                                           for k, v in sorted(report.branch_s.items(), key=lambda kv: -kv[1])))
    print(f"plain tree takes the same path as ours on {matched}/{len(rec.ticks)} ticks; timing run repeats the "
          f"recording run: {'yes' if same_run else 'NO'}")
    print()
    print(f"{'':24}{'median ms':>10}{'p99 ms':>10}{'mean ms':>10}{'max ms':>10}")
    for label, values in (("ours (brain.root)", ours), ("plain py_trees", plain)):
        print(f"{label:24}{statistics.median(values):10.4f}{pct(values, 0.99):10.4f}{statistics.mean(values):10.4f}"
              f"{max(values):10.3f}")
    median = statistics.median(ours)
    ratio_median = median / statistics.median(plain)
    ratio_mean = statistics.mean(ours) / statistics.mean(plain)
    print()
    print(f"median tick {median:.3f} ms (target <= {TARGET_MEDIAN_MS} ms): "
          f"{'met' if median <= TARGET_MEDIAN_MS else 'MISSED'}")
    print(f"overhead over plain py_trees: {ratio_median:.2f}x at the median, {ratio_mean:.2f}x in total "
          f"(target <= {TARGET_RATIO}x): {'met' if ratio_median <= TARGET_RATIO else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
