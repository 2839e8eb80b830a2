"""The running daemon sets its start-up heap aside from the garbage collector's full walks, and a
reload still lets the tree it replaced go.

A full collection that walks everything the daemon holds keeps the interpreter, and with it the
frame-release thread, for tens of milliseconds; so once started (and after each reload) the
daemon freezes what is alive (``gc.freeze``). Frozen objects are never collected, so a reload
must unfreeze first, or every replaced tree (held in cycles: each node knows its parent) would
stay for the life of the process. The daemon runs in this process (``start_virtual``) so the
test can look at its objects.
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
            assert not _collected(brain.root.tree) and not _collected(brain.heartbeat)
            old = weakref.ref(brain.root.tree)

            t = d.now()
            p.write_text(_pose("beta", -15))
            await d.line(r"personality beta loaded", after=t)
            await d.message("SetHeadAngle", after=t)
            gc.collect()
            assert old() is None, "the replaced tree is still alive after a reload"
            assert not _collected(brain.root.tree)  # the new one is set aside in its turn
        finally:
            await d.close()

    run_on_virtual_clock(body())
