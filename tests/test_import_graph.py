"""No new import circles: modules that import one another, even lazily, are one idea split badly.

The graph counts every import between the project's modules (at the top, inside functions and
under ``TYPE_CHECKING``). The circles listed in ``KNOWN`` are still to be cut; a new one fails.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from .conftest import REPO

#: Circles that exist and are still to be cut (each a set of modules).
KNOWN = [
    {"driver.protocol", "driver.protocol.messages", "driver.protocol.registry"},
    {"brain.assets", "brain.assets.activity_loaders", "brain.assets.light_loaders", "brain.assets.loaders",
     "brain.assets.mood_loaders", "brain.assets.reading", "brain.assets.report", "brain.assets.resource_set",
     "brain.assets.validation", "brain.mood", "brain.mood_config"},
    {"brain.context", "brain.reactions"},
    {"brain.personality.activities", "brain.personality.builder"},
]


def _modules() -> dict[str, Path]:
    found = {}
    for package in ("driver", "brain"):
        for path in (REPO / package).rglob("*.py"):
            if "CozmoAnim" in path.parts:  # generated FlatBuffers code
                continue
            name = ".".join(path.relative_to(REPO).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(parts + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            candidates = [target, *(f"{target}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        out.update(c for c in candidates if c in modules and c != name)
    return out


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(component)
    return circles


@functools.cache
def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def test_no_new_import_circles() -> None:
    graph = _graph()
    assert "driver.connection" in graph["driver.robot"]  # the graph sees imports at all
    new = [sorted(c) for c in _circles(graph) if not any(c <= known for known in KNOWN)]
    assert not new, f"modules that import one another: {new}"


def test_the_robot_its_connection_and_its_actions_import_nothing_in_a_circle() -> None:
    graph = _graph()
    split = {"driver.robot", "driver.connection", "driver.actions", "driver.capture.formats", "driver.capture.pcap",
             "brain.app.days", "brain.app.simulate"}
    assert not [c for c in _circles(graph) if c & split]
