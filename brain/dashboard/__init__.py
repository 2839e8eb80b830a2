"""The live dashboard: see in a browser what the robot sees, feels and does, and poke it.

``cozmo-brain run --dashboard HOST:PORT`` (or ``dashboard.address`` in the settings) serves one
page from the daemon's own event loop: the face as the robot shows it, the camera with what it
detected, the behaviour tree with each node's status, why each behaviour won and what it beat,
the mood over the last minutes with its emotion events, a timeline to scroll back and rewind,
the robot's state and link, an event log, and buttons to act (see :mod:`.control`).

The parts: :mod:`.monitor` keeps the history, :mod:`.why` puts decisions in words,
:mod:`.treeview` and :mod:`.views` shape what the page draws, :mod:`.control` carries out the
interventions and :mod:`.server` serves it all with aiohttp. aiohttp is imported only here, when
the dashboard is on: without it the daemon is the same as before.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from .control import Controls
from .monitor import Monitor

__all__ = ["Dashboard", "DashboardError", "INSTALL_HINT", "LOCAL_HOSTS", "needs_token", "open_dashboard"]

log = logging.getLogger(__name__)

#: Addresses the dashboard serves on without a token: the loopback's own.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
INSTALL_HINT = "pip install 'cozmo-brain[dashboard]'"
REFUSAL = ("interventions are refused against a real robot; set dashboard.allow_control: true in the settings "
           "to allow them")


class DashboardError(RuntimeError):
    """The dashboard cannot be served; the message says why and what to do."""


def needs_token(host: str) -> bool:
    """Whether serving on ``host`` needs a token: every address but the loopback's own does."""
    return host not in LOCAL_HOSTS


class Dashboard:
    """The dashboard of one daemon: its monitor, controls and server (see :func:`open_dashboard`)."""

    def __init__(self, monitor: Monitor, controls: Controls, server: Any, url: str) -> None:
        self.monitor = monitor
        self.controls = controls
        self.server = server
        self.url = url

    def attach(self, brain: Any) -> None:
        """The brain runs: show it, and let the controls act on it."""
        self.monitor.attach(brain)
        self.controls.attach(brain)
        self.server.rehello()

    def reloaded(self, error: str | None) -> None:
        """A personality reload ended (from the page, a file edit or SIGHUP): tell the pages."""
        if error is None:
            self.monitor.note("reload", "ok", "personality reloaded")
        else:
            self.monitor.note("reload", "failed", "reload failed, the running personality stays:\n" + error)
        self.server.push({"type": "reload", "ok": error is None, "error": error,
                          "t": round(self.monitor.clock(), 3)})

    async def close(self) -> None:
        """Stop serving and watching."""
        self.controls.close()
        await self.server.close()
        self.monitor.close()


async def open_dashboard(host: str, port: int, *, token: str | None, allowed: bool, simulator: Any,
                         reload: Callable[[], Awaitable[str | None]], clock: Callable[[], float],
                         camera_on: Callable[[], None] | None = None) -> Dashboard:
    """Serve the dashboard at ``host:port``; raises :class:`DashboardError` (missing aiohttp, no token
    where one is needed, an address in use)."""
    if token is None and needs_token(host):
        raise DashboardError(f"dashboard on {host}:{port}: serving on another address than 127.0.0.1 needs "
                             "dashboard.token in the settings (every request must then carry it)")
    try:
        from .server import DashboardServer
    except ImportError as exc:
        raise DashboardError(f"the dashboard needs aiohttp ({exc}); install it with: {INSTALL_HINT}") from None
    monitor = Monitor(clock=clock)
    controls = Controls(monitor, allowed=allowed, refusal="" if allowed else REFUSAL, simulator=simulator,
                        reload=reload, camera_on=camera_on)
    server = DashboardServer(host, port, monitor=monitor, controls=controls, token=token)
    try:
        url = await server.start()
    except OSError as exc:
        raise DashboardError(f"dashboard: cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    log.info("dashboard: %s%s%s", url, " (token required)" if token else "",
             "" if allowed else "; interventions refused (a real robot, dashboard.allow_control is off)")
    return Dashboard(monitor, controls, server, url)
