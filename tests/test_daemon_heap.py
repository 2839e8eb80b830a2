"""The running daemon sets its start-up heap aside from the garbage collector's full walks, and a
reload lets the tree it replaced go with a short collection.

A full collection that walks everything the daemon holds keeps the interpreter, and with it the
frame-release thread, for tens of milliseconds; so once the robot answers, just before the
personality's tree is built, the daemon freezes what is alive (``gc.freeze``). Frozen objects
are never collected, so the tree stays outside: every replaced tree (held in cycles: each node
knows its parent) must be freed by a reload, and the collection that does it walks only what was
not set aside. The daemon runs in this process (``start_virtual``) so the test can look at its
objects.
"""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

from .daemon_harness import RESOURCES
from .test_daemon_reload import _pose
from .virtual_daemon import run_on_virtual_clock, start_virtual

pytestmark = pytest.mark.e2e


def _collected(obj: object) -> bool:
    """Whether the collector walks ``obj`` (False once frozen: frozen objects are not listed)."""
    return any(o is obj for o in gc.get_objects())


def test_the_heap_is_set_aside_once_running_and_a_reload_frees_the_old_tree(tmp_path: Path) -> None:
    p = tmp_path / "p.yaml"
    p.write_text(_pose("alpha", 30))

    async def body() -> None:
        d = await start_virtual(tmp_path, "--personality", str(p), "--resources", str(RESOURCES))
        try:
            assert d.daemon is not None and d.daemon.brain is not None
            brain = d.daemon.brain
            assert not _collected(brain.heartbeat) and not _collected(brain.resources)
            assert _collected(brain.root.tree)  # outside, so that a reload can free it
            old = weakref.ref(brain.root.tree)

            t = d.now()
            p.write_text(_pose("beta", -15))
            await d.line(r"personality beta loaded", after=t)
            await d.message("SetHeadAngle", after=t)
            assert old() is None, "the replaced tree is still alive after a reload"
            # what a reload's collection walks: the tree and what came after, not the start-up heap
            walked = len(gc.get_objects())
            assert walked < gc.get_freeze_count() / 4, (walked, gc.get_freeze_count())
        finally:
            await d.close()

    run_on_virtual_clock(body())
