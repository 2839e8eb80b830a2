"""Benchmark: how fast the brain stops the motors when the robot is picked up.

The real daemon (``cozmo-brain run --robot 127.0.0.1:PORT``, default personality, project
resources, 10 Hz heartbeat) runs in its own process, as a user runs it; the simulated Cozmo
runs in this process over loopback UDP, standing for the robot. Each trial, at a random moment
(0.3–0.9 s after the previous put-down, so trials fall at every phase of the heartbeat, the
state stream and the animation clock, and often while the last reaction still plays), the
simulator lifts the robot and at once sends a RobotState with the picked-up flag, and measures
the time until the first StopAllMotors reaches it; then it puts the robot down again.

Both time stamps are taken in this process on one clock: just before the flagged state is
sent, and when the simulator has decoded the StopAllMotors. Target: p99 ≤ one heartbeat period
(100 ms at 10 Hz) + 15 ms — what a brain that reacts on its next tick can promise. The daemon
stops the motors in the receive path instead (``brain.safety``), so it should not need a tick.

Run: ``python tests/bench/reaction_latency.py [--trials 200]``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import signal
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from driver.sim.server import SimulatedCozmo  # noqa: E402

HEARTBEAT_HZ = 10.0
TARGET_P99_MS = 1000.0 / HEARTBEAT_HZ + 15.0


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def bench(trials: int, gap: tuple[float, float], seed: int) -> tuple[list[float], int]:
    rng = random.Random(seed)
    sim = await SimulatedCozmo("127.0.0.1", 0).start()
    assert sim.link is not None
    arrivals: list[float] = []

    def on_message(msg: Any) -> None:
        if type(msg).__name__ == "StopAllMotors":
            arrivals.append(time.perf_counter())

    sim.add_message_listener(on_message)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "brain", "run", "--robot", f"127.0.0.1:{sim.port}",
        "--personality", str(ROOT / "trees" / "default.yaml"), "--resources", str(ROOT / "resources"),
        "--duration", "3600", "-q", cwd=ROOT, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
    stops: list[float] = []
    missed = 0
    try:
        deadline = time.monotonic() + 30.0
        while not (sim.connected and sim.streaming):
            if time.monotonic() > deadline:
                raise RuntimeError("the daemon did not connect to the simulator")
            await asyncio.sleep(0.05)
        await asyncio.sleep(3.0)  # start-up done, the personality is running
        for _ in range(trials):
            await asyncio.sleep(rng.uniform(*gap))
            n_stop = len(arrivals)
            sim.pick_up()
            sent = time.perf_counter()
            sim.send(sim.robot_state())  # the flagged state goes out now, not on the next 30 ms tick
            sim.link.flush()
            limit = time.perf_counter() + 1.0
            while len(arrivals) == n_stop and time.perf_counter() < limit:
                await asyncio.sleep(0.0005)
            if len(arrivals) == n_stop:
                missed += 1
            else:
                stops.append((arrivals[n_stop] - sent) * 1000.0)
            await asyncio.sleep(0.25)  # held in the air a moment: the reaction starts
            sim.put_down()
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGINT)
            try:
                await asyncio.wait_for(proc.wait(), 10.0)
            except asyncio.TimeoutError:
                proc.kill()
        await sim.stop()
    return stops, missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    stops, missed = asyncio.run(bench(args.trials, (0.3, 0.9), args.seed))
    print(f"picked-up flag -> StopAllMotors at the simulator, {len(stops)} trials ({missed} without a stop within "
          f"1 s), {time.perf_counter() - started:.0f} s wall")
    if not stops:
        print("no measurements")
        return 1
    p50, p99, worst = statistics.median(stops), pct(stops, 0.99), max(stops)
    print(f"  p50 {p50:.2f} ms   p99 {p99:.2f} ms   max {worst:.2f} ms   mean {statistics.mean(stops):.2f} ms")
    print(f"  target p99 <= {TARGET_P99_MS:.0f} ms (heartbeat {1000.0 / HEARTBEAT_HZ:.0f} ms + 15 ms): "
          f"{'met' if p99 <= TARGET_P99_MS and not missed else 'MISSED'}; p99 is {p99 / TARGET_P99_MS:.3f} of the "
          f"budget, {TARGET_P99_MS / p99:.0f}x under it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
