"""The real daemon in the test's own process, on the virtual clock, over the in-memory network.

:func:`start_virtual` is :func:`tests.daemon_harness.start` for tests whose subject is what the
daemon makes the robot do over seconds or minutes, not the wire or the process: the same
``cozmo-brain run`` command line is parsed by the same code, the same :class:`brain.app.run.Daemon`
runs it (start-up, supervision, reload, shutdown), and the simulator sees every message that
reaches the robot. What differs is only where it runs: on the test's :class:`VirtualTimeLoop`
(so a half-minute song takes the machine's time to compute it, not half a minute), over a
:class:`driver.memlink.MemoryNetwork` instead of UDP, with the camera's pictures drawn and
analysed on the loop's thread (so the eyes keep step with the clock, however loaded the machine).
A signal is handed to :meth:`Daemon.deliver` as the daemon's own handler would, and the log is
what the CLI's logging set-up writes, line by line, stamped with the loop's time. The tests of
the wire, of real time and of the process itself (reconnects, systemd, the sleep and wake cycle,
the eyes over UDP) start the daemon as a subprocess.

Run the test's body with :func:`run_on_virtual_clock`.
"""

from __future__ import annotations

import asyncio
import gc
import io
import logging
import os
import signal
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from brain.app.cli import parse_command_line
from brain.app.logs import BRAIN_LOGGERS, setup_logging
from brain.app.run import Daemon as RunningDaemon
from brain.app.run import run_settings
from brain.app.virtual_time import VirtualTimeLoop, run_virtual
from driver.memlink import MemoryNetwork
from driver.sim.server import SimulatedCozmo

from .daemon_harness import Daemon

__all__ = ["VirtualDaemon", "run_on_virtual_clock", "start_virtual"]

T = TypeVar("T")


def run_on_virtual_clock(coro: Coroutine[Any, Any, T], timeout: float = 600.0) -> T:
    """Run a test's body on a fresh virtual clock, failing it after ``timeout`` virtual seconds."""

    async def guarded() -> T:
        return await asyncio.wait_for(coro, timeout)

    return run_virtual(guarded())


class _LogLines(io.TextIOBase):
    """The stream the daemon's log handler writes to: each line, with the loop time it came at."""

    def __init__(self, into: list[tuple[float, str]], loop: asyncio.AbstractEventLoop) -> None:
        self._into = into
        self._loop = loop
        self._partial = ""

    def write(self, text: str) -> int:  # noqa: D102
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        now = self._loop.time()
        self._into.extend((now, line.rstrip()) for line in lines)
        return len(text)


class _NotTheSimulator(logging.Filter):
    """Keeps the simulator's records out of the daemon's log (run as a subprocess, they were
    never in it)."""

    def filter(self, record: logging.LogRecord) -> bool:  # noqa: D102
        return not record.name.startswith("driver.sim")


@dataclass
class VirtualDaemon(Daemon):
    """A daemon started by :func:`start_virtual`: the same observations as a subprocess's."""

    daemon: RunningDaemon | None = None
    task: asyncio.Task[int] | None = None
    network: MemoryNetwork | None = None
    _restore: Any = None

    def exit_code(self) -> int | None:  # noqa: D102
        if self.task is None or not self.task.done():
            return None
        if self.task.cancelled():
            return -int(signal.SIGKILL)
        exc = self.task.exception()
        return 1 if exc is not None else self.task.result()

    def signal(self, sig: signal.Signals) -> float:
        """Hand ``sig`` to the daemon as its handler would; the time it was sent."""
        assert self.daemon is not None
        asyncio.get_running_loop().call_soon(self.daemon.deliver, sig)
        return self.now()

    async def wait(self, timeout: float = 10.0) -> int:
        """Wait for the daemon to stop; its exit code."""
        assert self.task is not None
        await asyncio.wait_for(asyncio.shield(self.task), timeout)
        code = self.exit_code()
        assert code is not None
        return code

    async def close(self) -> None:
        """Stop the daemon if it still runs (as a kill would: no goodbye); stop the simulator;
        put the process's logging and working folder back."""
        try:
            if self.task is not None and not self.task.done():
                self.task.cancel()
                try:
                    await self.task
                except (asyncio.CancelledError, Exception):
                    pass
            await self.sim.stop()
        finally:
            if self._restore is not None:
                self._restore()
                self._restore = None
            _release_heap()


def _release_heap() -> None:
    """Undo the freeze the daemon made of this process's heap once it ran (see
    ``brain.app.run._set_aside_heap``), so the stopped daemon, held in cycles, is freed like any
    garbage, and freeze again what is left: the worker's own objects (tests/conftest.py)."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def _capture_logging(args: Any, into: list[tuple[float, str]], loop: asyncio.AbstractEventLoop) -> Any:
    """Set up logging as the CLI does, into ``into``; returns what puts the old set-up back."""
    root = logging.getLogger()
    levels = {name: logging.getLogger(name).level for name in ("", *BRAIN_LOGGERS)}
    before = list(root.handlers)
    setup_logging(args.verbose, args.quiet, stream=_LogLines(into, loop), environ={})
    for handler in root.handlers:
        if handler not in before:
            handler.addFilter(_NotTheSimulator())

    def restore() -> None:
        for handler in [h for h in root.handlers if h not in before]:
            root.removeHandler(handler)
        for handler in before:
            if handler not in root.handlers:
                root.addHandler(handler)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)

    return restore


async def start_virtual(cwd: Path, *args: str, ready: str = r"running \S+ at",
                        calibrate: bool = False, vision: bool = False) -> VirtualDaemon:
    """Start a simulator and ``cozmo-brain run --robot ADDRESS *args`` in this process, in ``cwd``;
    wait for ``ready`` in the log. Needs a :class:`VirtualTimeLoop` (see :func:`run_virtual`).

    As with :func:`tests.daemon_harness.start`, the simulator skips the motors' start-up
    calibration unless ``calibrate``, and the daemon runs with ``--no-vision`` unless ``vision``
    (drawn and analysed on the loop's thread, the camera is most of the CPU such a test takes).
    """
    loop = asyncio.get_running_loop()
    if not isinstance(loop, VirtualTimeLoop):
        raise RuntimeError("start_virtual needs the virtual clock: run the test with run_on_virtual_clock")
    network = MemoryNetwork(loop)
    sim = SimulatedCozmo("127.0.0.1", 0, calibrate=calibrate)
    sim.camera.in_thread = False
    await sim.start(open_link=network.open_link)
    d = VirtualDaemon(sim, network=network)
    sim.add_message_listener(lambda msg: d.received.append((loop.time(), type(msg).__name__, msg)))
    eyes = [] if vision else ["--no-vision"]
    parsed = parse_command_line(["run", "--robot", f"127.0.0.1:{sim.port}", *eyes, *args])
    restore_logging = _capture_logging(parsed, d.log, loop)
    old_cwd = os.getcwd()

    def restore() -> None:
        os.chdir(old_cwd)
        restore_logging()

    d._restore = restore
    try:
        os.chdir(cwd)  # the command line's relative paths, and ./config.yaml, are the cwd's
        settings = run_settings(parsed)
        if isinstance(settings, int):
            raise AssertionError(f"cozmo-brain run {' '.join(args)} exits with {settings}:\n{d.text}")
        cfg, options = settings
        d.daemon = RunningDaemon(cfg, options, open_link=network.open_link, handle_signals=False,
                                 inline=True)
        d.task = loop.create_task(d.daemon.run(), name="daemon")
        await d.line(ready, timeout=30.0)
    except BaseException:
        await d.close()
        raise
    return d
