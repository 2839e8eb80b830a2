"""Shared test helpers: paths to the shared reference data, and running coroutines in tests."""

from __future__ import annotations

import asyncio
import gc
import itertools
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

REPO = Path(__file__).resolve().parents[1]
#: The shared reference data beside the checkout (the nearest ``shared/`` folder above it).
SHARED = next((p / "shared" for p in REPO.parents if (p / "shared").is_dir()), REPO.parent / "shared")
REAL_DATA = SHARED / "real_data"
SAMPLE_RESOURCES = SHARED / "cozmo_resources_sample" / "cozmo_resources"
#: Real robot data (captures of real firmware-2457 sessions, face fixtures) is never copied into the
#: repository: it is read from ../shared/real_data beside the checkout, else /work/shared/real_data.
REAL_DATA_CANDIDATES = (SHARED / "real_data", Path("/work/shared/real_data"))

T = TypeVar("T")


def run(coro: Awaitable[T], timeout: float = 120.0) -> T:
    """Run a coroutine on a fresh event loop with an overall time limit."""

    async def guarded() -> T:
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(guarded())


async def eventually(predicate: Callable[[], Any], timeout: float = 3.0, interval: float = 0.01) -> None:
    """Wait until ``predicate()`` is truthy, failing the test after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await asyncio.sleep(interval)


def fill_backends() -> list[str]:
    """The face's polygon fills to check: numpy's always, the compiled one where it was built (the
    default then), OpenCV's where it is installed (a daemon without the compiled fill uses it once
    its vision has loaded OpenCV; see driver.animation.raster)."""
    from driver.animation import raster

    found = ["numpy"]
    if raster.fill_backend() == "compiled":
        found.append("compiled")
    try:
        import cv2  # noqa: F401
    except ImportError:
        return found
    return [*found, "opencv"]


def find_real_data() -> Path | None:
    """The real-data folder, or None when neither place has it."""
    return next((p for p in REAL_DATA_CANDIDATES if (p / "SOURCES.md").is_file()), None)


@pytest.fixture
def real_data() -> Path:
    """The real robot data folder (skips, saying where it was looked for, when it is absent)."""
    found = find_real_data()
    if found is None:
        pytest.skip("real robot data not found (looked in " + ", ".join(map(str, REAL_DATA_CANDIDATES)) + ")")
    return found


@pytest.fixture
def sample_resources() -> Path:
    """The real Cozmo resource sample from shared/ (skips when it is not checked out beside the repo)."""
    if not SAMPLE_RESOURCES.is_dir():
        pytest.skip(f"shared resource sample not found at {SAMPLE_RESOURCES}")
    return SAMPLE_RESOURCES


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave the soak tests out unless the ``-m`` expression names them (``pytest -m soak``), and
    run the end-to-end tests first, taking the files in turns.

    The end-to-end tests are few and long (up to a minute each) and the rest many and short:
    started first, the long ones spread over pytest-xdist's workers (``--dist loadgroup`` hands
    each worker a test or two at a time) and the short ones fill the gaps, instead of one worker
    still running a long test long after the others have finished. Some end-to-end tests mostly
    wait on the wall clock (a daemon against a simulator) and others keep a core busy (a
    simulated day); in file order the waiting kind came in clusters (``test_reconnect_e2e``,
    ``test_robot_*``, ``test_sim_*``) and left a core idle for half a minute at a time. One test
    from each file in turn mixes the two kinds.
    """
    if "soak" not in (config.getoption("markexpr") or ""):
        kept = [item for item in items if item.get_closest_marker("soak") is None]
        if len(kept) != len(items):
            config.hook.pytest_deselected(items=[item for item in items if item.get_closest_marker("soak") is not None])
            items[:] = kept
    by_file: dict[str, list[pytest.Item]] = {}
    rest: list[pytest.Item] = []
    for item in items:
        if item.get_closest_marker("e2e") is not None:
            by_file.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
        else:
            rest.append(item)
    turns = itertools.zip_longest(*by_file.values())
    items[:] = [item for turn in turns for item in turn if item is not None] + rest


def pytest_collection_finish(session: pytest.Session) -> None:
    """Once the tests are collected, leave what is there to stay out of the garbage collector's walks.

    After collection a worker holds pytest, hypothesis, every test module and the project, some
    hundreds of thousands of objects that live to the end of the run; every full collection
    walked them all again, while the simulated days the tests run allocate briskly. Frozen
    (``gc.freeze``), they are skipped: the collector's time in a worker fell by about two fifths
    (some 2 % of the suite's CPU). Nothing frozen was garbage, so nothing is kept that would not be.
    """
    gc.collect()
    gc.freeze()


def pytest_configure(config: pytest.Config) -> None:
    """In the controlling process (not in each xdist worker): write the project's bytecode once.
    In every process: keep the test modules' assertion rewrites (see :func:`_keep_rewritten_tests`)."""
    _keep_rewritten_tests()
    if not hasattr(config, "workerinput"):
        _write_bytecode()


def _keep_rewritten_tests() -> None:
    """Let pytest keep the test modules it rewrote for their assertions, as it does by default.

    pytest rewrites every ``assert`` of a test module before importing it and keeps the result in
    ``tests/__pycache__`` unless the process may not write bytecode. Where PYTHONDONTWRITEBYTECODE
    is set (this machine, some CI images) every worker rewrote all the test modules again on every
    run: 5-6 s of CPU each, some ten seconds of the suite on two cores. The files are
    checked against their source's time and size, so an edit is never missed; ``__pycache__``
    folders are ignored by git.
    """
    sys.dont_write_bytecode = False


def _write_bytecode() -> None:
    """Compile ``brain`` and ``driver`` into their ``__pycache__`` folders, as a first import would.

    Where PYTHONDONTWRITEBYTECODE is set (this machine, some CI images) no process writes bytecode,
    so each of the suite's hundred-odd ``python -m brain`` daemons, simulators and commands compiled
    every module from source again: 0.15-0.3 s of CPU a start. Compiled here once, they read it;
    Python still checks each file against its source's time and size, so an edit is never missed.
    """
    import compileall

    for package in ("brain", "driver"):
        compileall.compile_dir(REPO / package, quiet=2)


@pytest.fixture(autouse=True, scope="session")
def _no_user_settings(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Keep a developer's own ~/.config/cozmo-brain/config.yaml out of the tests (and their subprocesses)."""
    os.environ["XDG_CONFIG_HOME"] = str(tmp_path_factory.mktemp("xdg-config-home"))


@pytest.fixture(autouse=True, scope="session")
def _sound_cache_of_the_run(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The daemons the tests start keep their converted sounds in a cache of the test run's own
    (the workers share it: its files are written whole and renamed), never in the developer's
    ~/.cache; the first daemon converts, the others read."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # one folder per test run
    os.environ["XDG_CACHE_HOME"] = str(shared / "xdg-cache-home")
