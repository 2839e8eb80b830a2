"""The daemon with its dashboard, as a subprocess, for the dashboard's end-to-end and browser tests.

``cozmo-brain run ... --dashboard 127.0.0.1:0`` picks a free port and logs the page's address;
:class:`Served` starts it, reads its log on a thread (so synchronous browser tests can wait on it
too), and finds the address in it. :func:`chromium` opens the system's headless Chromium through
selenium, or skips the test saying what is missing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from .conftest import REPO

ADDRESS = re.compile(r"dashboard: (http://\S+/)")
#: Chromium's switches for running headless in a container, with nothing fetched from the network.
CHROMIUM_ARGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage")


class Served:
    """A running ``python -m brain run`` with its dashboard; its log lines as they come."""

    def __init__(self, *args: str, cwd: Path = REPO, env: dict[str, str] | None = None) -> None:
        self.lines: list[str] = []
        environ = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")}
        environ.update(env or {})
        self.proc = subprocess.Popen([sys.executable, "-m", "brain", "run", *args], cwd=cwd, env=environ,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.url = ""

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line.rstrip())

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def wait_line(self, pattern: str, timeout: float = 30.0) -> re.Match[str]:
        """The first log line matching ``pattern``, waiting for it (fails with the log so far)."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            for line in list(self.lines):
                found = rx.search(line)
                if found:
                    return found
            if self.proc.poll() is not None:
                time.sleep(0.2)
                raise AssertionError(f"the daemon exited ({self.proc.returncode}) before {pattern!r}:\n{self.text}")
            if time.monotonic() > deadline:
                raise AssertionError(f"no {pattern!r} within {timeout} s:\n{self.text}")
            time.sleep(0.02)

    def ready(self) -> Served:
        """Wait until the dashboard listens and the personality runs; remember the page's address."""
        self.url = self.wait_line(ADDRESS.pattern).group(1)
        self.wait_line(r"running \S+ at")
        return self

    def close(self) -> int:
        """Stop the daemon (SIGTERM, as a service manager would); its exit code."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(5)
        return int(self.proc.returncode)


@contextmanager
def served(*args: str, cwd: Path = REPO) -> Iterator[Served]:
    """``run --sim`` (or what ``args`` say) with a dashboard on a free loopback port, stopped afterwards."""
    daemon = Served(*args, cwd=cwd)
    try:
        yield daemon.ready()
    finally:
        daemon.close()


def find_chromium() -> tuple[str, str] | None:
    """(browser, driver) of the system's Chromium, or None."""
    browser = next((shutil.which(n) for n in ("chromium", "chromium-browser") if shutil.which(n)), None)
    driver = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").exists()
                                              else None)
    return (browser, driver) if browser and driver else None


@contextmanager
def chromium(width: int = 1440, height: int = 1000) -> Iterator[Any]:
    """A headless Chromium driven by selenium (skips, saying why, where it cannot run)."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed (pip install -e '.[test]')")
    found = find_chromium()
    if found is None:
        pytest.skip("Chromium not found (Debian: apt-get install chromium chromium-driver)")
    browser, driver_path = found
    profile = tempfile.mkdtemp(prefix="cozmo-brain-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in (*CHROMIUM_ARGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
