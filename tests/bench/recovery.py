"""Benchmark: how long the daemon takes to get its robot back after the robot went silent.

The real daemon (``cozmo-brain run --robot 127.0.0.1:PORT``, default personality, project
resources, ``robot.lost_after_s: 0.3`` and the default reconnect backoff, 0.5 s doubling to 10 s)
runs in its own process; the simulated Cozmo runs in this process over loopback UDP. Each trial,
after a quiet stretch, the simulator stops answering (both ways) for a random 0.4-1.2 s, then
answers again. Measured on one clock in this process:

- lost: silence start → the daemon's "robot lost" log line (read from its stderr as it arrives);
- back → motors stopped: the first StopAllMotors at the simulator after it answers again (the
  brain stops the motors on reconnecting; "-" where the running daemon does not);
- back → reconnected: the daemon's start-up sequence complete at the simulator (EnableAnimationState);
- back → driving: the first animation frame at the simulator after that (the brain at work again);
- back → acting: the first clip the personality starts after that (StartAnimation: the tree
  ticks again; the default personality greets with a clip when the robot is back);
- silence → driving: the whole loss, as the robot lives it.

The wait from "back" includes the backoff phase the robot happens to return in (up to one backoff
step), which is what a user sees. Run: ``python tests/bench/recovery.py [--trials 20]``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from driver.sim.server import SimulatedCozmo  # noqa: E402

LOST_AFTER_S = 0.3
FRAMES = ("OutputSilence", "OutputAudio")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Arrivals:
    """First arrival (monotonic time) of each message name at the simulator, from a moment on."""

    def __init__(self) -> None:
        self.log: list[tuple[float, str]] = []

    def __call__(self, msg: Any) -> None:
        self.log.append((time.monotonic(), type(msg).__name__))

    def first(self, names: tuple[str, ...], after: float) -> float | None:
        return next((t for t, name in self.log if t >= after and name in names), None)


class StderrStamps:
    """The daemon's log lines, stamped as they arrive (a thread, off the event loop)."""

    def __init__(self, stream: Any) -> None:
        self.lines: list[tuple[float, str]] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: Any) -> None:
        for raw in stream:
            self.lines.append((time.monotonic(), raw.decode(errors="replace").rstrip()))

    def first(self, text: str, after: float) -> float | None:
        return next((t for t, line in list(self.lines) if t >= after and text in line), None)


async def bench(trials: int, seed: int) -> dict[str, list[float]]:
    rng = random.Random(seed)
    sim = await SimulatedCozmo("127.0.0.1", 0).start()
    arrivals = Arrivals()
    sim.add_message_listener(arrivals)
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "config.yaml"
        cfg.write_text(f"robot:\n  lost_after_s: {LOST_AFTER_S}\n", encoding="utf-8")
        proc = subprocess.Popen(
            [sys.executable, "-m", "brain", "run", "--robot", f"127.0.0.1:{sim.port}", "--config", str(cfg),
             "--personality", str(ROOT / "trees" / "default.yaml"), "--resources", str(ROOT / "resources"),
             "--duration", "3600"], cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE)
        stamps = StderrStamps(proc.stderr)
        figures: dict[str, list[float]] = {"lost": [], "stopped": [], "reconnected": [], "driving": [], "acting": [],
                                           "total": []}
        try:
            deadline = time.monotonic() + 30.0
            while not (sim.connected and sim.streaming):
                if time.monotonic() > deadline:
                    said = "\n".join(line for _, line in stamps.lines[-15:]) or "(nothing on its stderr)"
                    raise RuntimeError(f"the daemon did not connect to the simulator within 30 s; it said:\n{said}")
                await asyncio.sleep(0.05)
            await asyncio.sleep(3.0)  # start-up done, the personality is running
            for n in range(trials):
                await asyncio.sleep(rng.uniform(0.8, 1.2))
                quiet = time.monotonic()
                sim.faults.silent = True
                await asyncio.sleep(rng.uniform(0.4, 1.2))
                sim.faults.silent = False
                back = time.monotonic()
                limit = back + 15.0
                driving = acting = None
                while time.monotonic() < limit:
                    reconnected = arrivals.first(("EnableAnimationState",), back)
                    if reconnected is not None:
                        driving = arrivals.first(FRAMES, reconnected)
                        acting = arrivals.first(("StartAnimation",), reconnected)
                    if driving is not None and acting is not None:
                        break
                    await asyncio.sleep(0.01)
                if reconnected is None or driving is None:
                    raise RuntimeError(f"trial {n + 1}: the daemon did not drive the robot again within 15 s")
                lost = stamps.first("robot lost", quiet)
                if lost is not None:
                    figures["lost"].append((lost - quiet) * 1000.0)
                stopped = arrivals.first(("StopAllMotors",), back)
                if stopped is not None and stopped < back + 15.0:
                    figures["stopped"].append((stopped - back) * 1000.0)
                figures["reconnected"].append((reconnected - back) * 1000.0)
                figures["driving"].append((driving - back) * 1000.0)
                if acting is not None:
                    figures["acting"].append((acting - back) * 1000.0)
                figures["total"].append((driving - quiet) * 1000.0)
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                try:
                    await asyncio.get_running_loop().run_in_executor(None, proc.wait, 10.0)
                except subprocess.TimeoutExpired:
                    proc.kill()
            await sim.stop()
        reconnects = sum("reconnected to" in line for _, line in stamps.lines)
    if reconnects != trials:
        print(f"note: the daemon logged {reconnects} reconnections for {trials} silences")
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    figures = asyncio.run(bench(args.trials, args.seed))
    print(f"robot-loss recovery, {args.trials} trials, lost_after {LOST_AFTER_S} s, backoff 0.5 s doubling to 10 s, "
          f"{time.perf_counter() - started:.0f} s wall")
    labels = {"lost": "silence -> robot lost (daemon log)", "stopped": "back -> motors stopped",
              "reconnected": "back -> reconnected (start-up done)", "driving": "back -> driving again (frames)",
              "acting": "back -> personality acting (a clip)", "total": "silence -> driving again"}
    for key, label in labels.items():
        values = figures[key]
        if not values:
            print(f"  {label:38s}  -  (not seen: the daemon does not do this)")
            continue
        print(f"  {label:38s}  p50 {statistics.median(values):7.1f} ms   p99 {pct(values, 0.99):7.1f} ms   "
              f"max {max(values):7.1f} ms   ({len(values)} trials)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
