"""The real daemon as a subprocess against a simulated Cozmo hosted by the test.

``cozmo-brain run --robot 127.0.0.1:PORT`` runs in its own process, as a service manager runs it;
the simulator runs in the test's event loop, so the test sees every message that reaches the
robot (with its arrival time), can act on the world (silence it, reboot it) when it chooses,
and reads the daemon's log line by line as it comes. With ``notify=True`` the test also listens
on a ``NOTIFY_SOCKET`` of its own and records every datagram the daemon sends there.
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import re
import signal
import socket
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from driver.sim.server import SimulatedCozmo

from .conftest import REPO

RESOURCES = REPO / "resources"


@dataclass
class Daemon:
    """A running daemon, the simulator it talks to, and everything observed so far."""

    sim: SimulatedCozmo
    proc: Any = None
    reader: Any = None
    received: list[tuple[float, str, Any]] = field(default_factory=list)
    log: list[tuple[float, str]] = field(default_factory=list)
    notes: list[tuple[float, str]] = field(default_factory=list)
    notify_sock: socket.socket | None = None

    @property
    def text(self) -> str:
        """The daemon's log so far."""
        return "\n".join(line for _, line in self.log)

    @staticmethod
    def now() -> float:
        return asyncio.get_running_loop().time()

    def messages(self, name: str, after: float = -math.inf, before: float = math.inf) -> list[tuple[float, Any]]:
        """Messages of one type that reached the simulator in a time window (loop time)."""
        return [(t, msg) for t, n, msg in self.received if n == name and after < t < before]

    def lines(self, pattern: str, after: float = -math.inf) -> list[tuple[float, str]]:
        """Log lines matching ``pattern`` that arrived after ``after``."""
        rx = re.compile(pattern)
        return [(t, text) for t, text in self.log if t > after and rx.search(text)]

    async def line(self, pattern: str, timeout: float = 10.0, after: float = -math.inf) -> float:
        """Wait for a log line matching ``pattern`` (arrived after ``after``); its arrival time."""
        hit = await self._wait(lambda: self.lines(pattern, after), f"log line {pattern!r}", timeout)
        return float(hit[0])

    async def message(self, name: str, timeout: float = 10.0, after: float = -math.inf,
                      where: Any = None) -> tuple[float, Any]:
        """Wait for a message of type ``name`` (matching ``where(msg)``) at the simulator."""
        def found() -> list[tuple[float, Any]]:
            return [(t, m) for t, m in self.messages(name, after) if where is None or where(m)]
        return await self._wait(found, f"message {name}", timeout)

    async def note(self, pattern: str, timeout: float = 10.0, after: float = -math.inf) -> tuple[float, str]:
        """Wait for a notification datagram matching ``pattern``."""
        rx = re.compile(pattern)
        return await self._wait(lambda: [(t, n) for t, n in self.notes if t > after and rx.search(n)],
                                f"notification {pattern!r}", timeout)

    async def _wait(self, found: Any, what: str, timeout: float) -> Any:
        deadline = self.now() + timeout
        while True:
            hits = found()
            if hits:
                return hits[0]
            code = self.exit_code()
            if code is not None:
                await asyncio.sleep(0.2)  # let the reader take the last lines
                raise AssertionError(f"the daemon exited ({code}) before {what}; log:\n{self.text}")
            if self.now() > deadline:
                raise AssertionError(f"no {what} within {timeout} s; log:\n{self.text}")
            await asyncio.sleep(0.02)

    def exit_code(self) -> int | None:
        """The daemon's exit code once it has exited, else None."""
        return self.proc.returncode  # type: ignore[no-any-return]

    def signal(self, sig: signal.Signals) -> float:
        """Send ``sig`` to the daemon; the time it was sent."""
        self.proc.send_signal(sig)
        return self.now()

    async def wait(self, timeout: float = 10.0) -> int:
        """Wait for the daemon to exit; its exit code."""
        code = await asyncio.wait_for(self.proc.wait(), timeout)
        await asyncio.wait_for(self.reader, 5.0)
        return code

    async def close(self) -> None:
        """Kill the daemon if it still runs; stop the simulator and the notification socket."""
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        if self.notify_sock is not None:
            asyncio.get_running_loop().remove_reader(self.notify_sock.fileno())
            self.notify_sock.close()
        await self.sim.stop()


def _ephemeral_ports() -> tuple[int, int]:
    """The range the kernel hands out to sockets bound to port 0 (Linux's default where unknown)."""
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def free_udp_port() -> int:
    """A UDP port on 127.0.0.1 that is free now and that no socket bound to port 0 can take meanwhile.

    Tests pick a port and bind it a while later (a robot that appears after 1.5 s, a simulator
    restarted on its port, a daemon told the port in its config). A port from the kernel's
    ephemeral range could be handed in that gap to any socket bound to port 0 (every link and
    every other test worker binds some), so the port is drawn from the 12,000 below that range.
    """
    low, _ = _ephemeral_ports()
    draw = random.Random()  # seeded from the OS: parallel workers must not draw the same sequence
    for _ in range(100):
        port = draw.randrange(max(1024, low - 12000), max(1025, low))
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free UDP port below {low} on 127.0.0.1")


async def start(cwd: Path, *args: str, notify: bool = False, env: dict[str, str] | None = None,
                ready: str = r"running \S+ at", robot: bool = True, port: int = 0,
                command: list[str] | None = None, calibrate: bool = False, vision: bool = False) -> Daemon:
    """Start a simulator and ``python -m brain run --robot 127.0.0.1:PORT *args``; wait for ``ready``.

    ``robot=False`` leaves ``--robot`` out (a config file names the robot; give its ``port``).
    ``command`` replaces ``python -m brain run`` (e.g. with a unit file's ExecStart).
    The simulator skips the motors' start-up calibration (1.3 s) unless ``calibrate``: the daemon's
    start-up against a calibrating robot has its own tests (test_sim_startup, test_capture_conformance).
    The daemon runs with ``--no-vision`` unless ``vision``: the camera costs the simulator and the
    daemon some milliseconds of CPU a frame, fifteen frames a second, and only the tests of what the
    robot sees need it (those of the vision settings and the eyes pass ``vision=True``). A
    ``command`` runs exactly as given (a unit's ExecStart is the subject there), camera and all.
    """
    sim = await SimulatedCozmo("127.0.0.1", port, calibrate=calibrate).start()
    daemon = Daemon(sim)
    loop = asyncio.get_running_loop()
    sim.add_message_listener(lambda msg: daemon.received.append((loop.time(), type(msg).__name__, msg)))
    environ = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")}
    environ.update(env or {})
    if notify:
        name = f"cozmo-brain-test-{uuid.uuid4().hex}"
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(b"\0" + name.encode())
        sock.setblocking(False)
        daemon.notify_sock = sock

        def receive() -> None:
            while True:
                try:
                    data = sock.recv(4096)
                except BlockingIOError:
                    return
                daemon.notes.append((loop.time(), data.decode()))

        loop.add_reader(sock.fileno(), receive)
        environ["NOTIFY_SOCKET"] = "@" + name
    target = ["--robot", f"127.0.0.1:{sim.port}"] if robot else []
    if not vision and command is None:
        target.append("--no-vision")
    daemon.proc = await asyncio.create_subprocess_exec(
        *(command or [sys.executable, "-m", "brain", "run"]), *target, *args, cwd=cwd, env=environ,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)

    async def read() -> None:
        assert daemon.proc.stderr is not None
        async for raw in daemon.proc.stderr:
            daemon.log.append((loop.time(), raw.decode(errors="replace").rstrip()))

    daemon.reader = loop.create_task(read())
    try:
        await daemon.line(ready, timeout=30.0)
    except BaseException:
        await daemon.close()
        raise
    return daemon
