"""systemd's service notifications (``sd_notify``), spoken directly: one datagram per message.

Under ``Type=notify`` systemd hands the service an ``AF_UNIX`` datagram socket in
``$NOTIFY_SOCKET`` (a name starting with ``@`` is in the abstract namespace) and reads
newline-separated ``KEY=VALUE`` assignments from it: ``READY=1`` when start-up is complete,
``RELOADING=1`` (with ``MONOTONIC_USEC=``) and ``READY=1`` around a reload, ``STOPPING=1`` at
shutdown, ``STATUS=`` free text for ``systemctl status`` and ``WATCHDOG=1`` keep-alives when
``WatchdogSec=`` is set (``$WATCHDOG_USEC``; the keep-alive is due at half of it). The protocol is
this small, so no library is needed for it.

Without ``$NOTIFY_SOCKET`` a :class:`Notifier` is disabled and every method returns at once:
running in a terminal costs nothing. Sending never raises: a notification that cannot be
delivered is logged (once as a warning, then at debug level) and the daemon goes on.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable, Mapping

__all__ = ["Notifier"]

log = logging.getLogger("cozmo_brain")

#: Longest STATUS= text sent (systemctl shows one line; the rest would be noise).
MAX_STATUS = 200


class Notifier:
    """Sends service notifications to systemd, or nothing when not run by it.

    ``address`` is the value of ``$NOTIFY_SOCKET`` (``None``: disabled). ``watchdog_usec`` is
    ``$WATCHDOG_USEC``: with it, :meth:`watchdog` sends a keep-alive at most every half of that
    time. ``status_interval_s`` throttles :meth:`status`: a changed status goes out at once if the
    last one is older than that, else on a later call (the heartbeat calls it every beat).
    """

    def __init__(self, address: str | None, *, watchdog_usec: int | None = None, status_interval_s: float = 1.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.address = address
        self.clock = clock
        self.status_interval_s = status_interval_s
        #: seconds between two keep-alives (half of WATCHDOG_USEC); None when there is no watchdog
        self.watchdog_interval_s: float | None = (
            watchdog_usec / 2e6 if address and watchdog_usec and watchdog_usec > 0 else None)
        self.sent = 0
        self._stopping = False
        self._sock: socket.socket | None = None
        self._target: str | bytes | None = None
        self._warned = False
        self._last_watchdog = -float("inf")
        self._status = ""
        self._status_sent = ""
        self._status_at = -float("inf")
        if address:
            if address.startswith("@"):
                self._target = b"\0" + address[1:].encode()
            elif address.startswith("/"):
                self._target = address
            else:
                log.warning("NOTIFY_SOCKET=%s: not a socket path or an abstract name; not notifying systemd",
                            address)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None, *, status_interval_s: float = 1.0,
                     clock: Callable[[], float] = time.monotonic) -> Notifier:
        """A notifier for ``$NOTIFY_SOCKET`` and ``$WATCHDOG_USEC`` (honouring ``$WATCHDOG_PID``)."""
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET") or None
        usec: int | None = None
        pid = env.get("WATCHDOG_PID")
        if env.get("WATCHDOG_USEC") and (not pid or pid == str(os.getpid())):
            try:
                usec = int(env["WATCHDOG_USEC"])
            except ValueError:
                log.warning("WATCHDOG_USEC=%s: not a number of microseconds; no watchdog keep-alives",
                            env["WATCHDOG_USEC"])
        return cls(address, watchdog_usec=usec, status_interval_s=status_interval_s, clock=clock)

    @property
    def enabled(self) -> bool:
        """True when notifications go somewhere."""
        return self._target is not None

    def send(self, *assignments: str) -> bool:
        """Send ``KEY=VALUE`` assignments in one datagram; True if it went out."""
        if self._target is None:
            return False
        data = "\n".join(assignments).encode("utf-8", errors="replace")
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
                self._sock.setblocking(False)
            self._sock.sendto(data, self._target)
        except OSError as exc:
            level = logging.DEBUG if self._warned else logging.WARNING
            self._warned = True
            log.log(level, "cannot notify systemd at %s: %s", self.address, exc)
            return False
        self.sent += 1
        return True

    def ready(self, status: str | None = None) -> None:
        """Start-up (or a reload) is complete."""
        if self._target is None:
            return
        if status is None:
            self.send("READY=1")
            return
        self._remember(status)
        if self.send("READY=1", f"STATUS={self._status}"):
            self._status_sent = self._status
            self._status_at = self.clock()

    def reloading(self) -> None:
        """A reload begins; :meth:`ready` must follow when it is over."""
        if self._target is None:
            return
        usec = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
        self.send("RELOADING=1", f"MONOTONIC_USEC={usec}")

    def stopping(self, status: str | None = None) -> None:
        """Shutdown begins (sent once; later calls do nothing)."""
        if self._target is None or self._stopping:
            return
        self._stopping = True
        self.send("STOPPING=1", *([f"STATUS={_one_line(status)}"] if status else []))

    def status(self, text: str, *, force: bool = False) -> None:
        """Say what the daemon is doing; throttled to one datagram per ``status_interval_s``."""
        if self._target is None:
            return
        self._remember(text)
        now = self.clock()
        if self._status != self._status_sent and (force or now - self._status_at >= self.status_interval_s):
            if self.send(f"STATUS={self._status}"):
                self._status_sent = self._status
                self._status_at = now

    def watchdog(self, slack_s: float = 0.0) -> None:
        """Keep-alive: sent when half of WATCHDOG_USEC (less ``slack_s``) has passed since the last one.

        Call it only from work that proves the daemon healthy (the heartbeat calls it after each
        beat that came on time), so a stuck event loop stops the keep-alives and systemd
        restarts the service.
        """
        if self.watchdog_interval_s is None:
            return
        now = self.clock()
        if now - self._last_watchdog >= self.watchdog_interval_s - slack_s:
            if self.send("WATCHDOG=1"):
                self._last_watchdog = now

    def _remember(self, text: str) -> None:
        self._status = _one_line(text)

    def close(self) -> None:
        """Close the socket (sending again reopens it)."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= MAX_STATUS else line[:MAX_STATUS - 1] + "…"
