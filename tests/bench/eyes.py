"""Benchmark: what the eyes cost the daemon and how fast it turns to a face, in one run.

The daemon runs as a user runs it (``python -m brain run --robot 127.0.0.1:PORT``, the project's
resources) in its own process; the simulated Cozmo runs in this process over loopback UDP with
its room and camera (15 grey QVGA pictures a second while the daemon has the camera on), and
time-stamps every message it receives. Three measurements:

1. **CPU**, the default personality with vision on (camera, face and motion detection at the
   config's rates) against the same with ``--no-vision``: the daemon's utime + stime over a
   window of ``--seconds`` after a warm-up, in % of one core (target with vision: ≤ 10 %), split
   into the event loop's thread and the others (the vision worker's share is what the camera
   costs by itself; the personality's own activity, which differs from window to window, shows
   in the animation frames each window sent).
2. **Frame timing** with vision running: |gap − n × 33.33 ms| between consecutive animation
   frames (OutputAudio / OutputSilence datagrams) as they reach the simulator's socket, n the whole
   number of periods nearest the gap (an idle daemon sends no frame with nothing new), p50 / p99
   (target p99 ≤ 2 ms), from the vision-on window. The target is read on the kernel's receive
   stamps (``SIOCGSTAMPNS``, as in ``frame_timing.py``): this process also draws the simulated
   camera's pictures, and the gaps its own event loop sees (printed beside them) include how late
   it got to each datagram.
3. **Face → head turn**: a personality whose only business is turning to a face in view
   (``face_visible`` then ``turn_towards_face``); each trial places a person 5–20° left or right
   of the robot's heading (in the camera's view) and times the first SetHeadAngle or TurnInPlace
   that reaches the simulator afterwards, then the person leaves and the robot forgets her
   (target p99 ≤ 250 ms, over ``--trials``, default 20).

Run: ``python tests/bench/eyes.py [--seconds 30] [--trials 20]`` (needs the ``test`` extra for
the face photographs). Prints the figures and the targets side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import os
import random
import statistics
import struct
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from driver.sim.script import parse_script  # noqa: E402
from tests.bench.frame_timing import SIOCGSTAMPNS, _slot_jitter, audio_seq  # noqa: E402
from tests.daemon_harness import RESOURCES, Daemon, start  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")
TURNER = """
name: turner
root:
  type: selector
  children:
    - type: sequence
      params: {memory: false}
      children:
        - {type: face_visible}
        - {type: turn_towards_face}
        - {type: wait, params: {seconds: 30}}
    - {type: wait, params: {seconds: 0.5}}
"""


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def _thread_cpu_s(pid: int) -> dict[str, float]:
    """CPU seconds (utime + stime) of the process's main thread (the event loop) and of its other
    threads together (the vision worker and the frame clock; Python 3.11 leaves them unnamed)."""
    out = {"main": 0.0, "other": 0.0}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended meanwhile
            continue
        out["main" if task.name == str(pid) else "other"] += (int(fields[11]) + int(fields[12])) / CLK_TCK
    return out


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class _KernelStamps:
    """When the kernel received each animation frame's datagram at the simulator (``SIOCGSTAMPNS``).

    The simulator shares this process with its camera, which draws the room fifteen times a second:
    while it does, the simulator's event loop may see a datagram late, and that delay would be
    counted against the daemon. The kernel's stamp is taken as the datagram arrives on the socket,
    so the periods between stamps are the daemon's alone. Each frame counts once (a resend of a
    sequence number seen before is not a new arrival); ``stamps`` are (loop time, kernel time).
    """

    def __init__(self, link: Any) -> None:
        loop = asyncio.get_running_loop()
        fd = link._transport.get_extra_info("socket").fileno()
        fcntl.ioctl(fd, SIOCGSTAMPNS, bytes(16))  # the first request switches the stamps on
        self.stamps: list[tuple[float, float]] = []
        seen: set[int] = set()
        receive = link.datagram_received

        def stamped(data: bytes, addr: Any) -> None:
            seq = audio_seq(data)
            if seq is not None and seq not in seen:
                seen.add(seq)
                sec, nsec = struct.unpack("qq", fcntl.ioctl(fd, SIOCGSTAMPNS, bytes(16)))
                self.stamps.append((loop.time(), sec + nsec * 1e-9))
            receive(data, addr)

        link.datagram_received = stamped

    def errors(self, after: float, before: float) -> list[float]:
        """:func:`_period_errors` of the kernel stamps of the frames that arrived in the window."""
        return _period_errors([k for t, k in self.stamps if after < t < before])


async def _cpu_window(cwd: Path, seconds: float, warmup: float,
                      *args: str) -> tuple[float, list[float], list[float], dict[str, float], int]:
    """The daemon's CPU % of one core over the window, the frame period errors (ms) seen meanwhile
    by the simulator's loop and by the kernel, the CPU % of its main thread and of the others, and
    how many animation frames reached the simulator (how busy the personality happened to be,
    which the CPU follows as much as it follows the camera)."""
    d = await start(cwd, "--resources", str(RESOURCES), *args, vision=True)  # (args may say --no-vision)
    kernel = _KernelStamps(d.sim.link)
    try:
        await asyncio.sleep(warmup)
        t0, c0, th0 = d.now(), _cpu_s(d.proc.pid), _thread_cpu_s(d.proc.pid)
        await asyncio.sleep(seconds)
        t1, c1, th1 = d.now(), _cpu_s(d.proc.pid), _thread_cpu_s(d.proc.pid)
        threads = {name: 100.0 * (cpu - th0.get(name, 0.0)) / (t1 - t0) for name, cpu in th1.items()}
        frames = sum(1 for t, name, _ in d.received if name in ("OutputAudio", "OutputSilence") and t0 < t < t1)
        return 100.0 * (c1 - c0) / (t1 - t0), _frame_errors(d, t0, t1), kernel.errors(t0, t1), threads, frames
    finally:
        await d.close()


def _frame_errors(d: Daemon, after: float, before: float) -> list[float]:
    """|gap - n periods| between consecutive frames, n the whole number of periods nearest the gap:
    an idle controller sends no frame with nothing new in it, so a gap may span several slots."""
    return _period_errors([t for t, name, _ in d.received if name in ("OutputAudio", "OutputSilence")
                           and after < t < before])


def _period_errors(times: list[float]) -> list[float]:
    """|gap - n periods| in ms between consecutive times (see :func:`_frame_errors`)."""
    return _slot_jitter(sorted(set(times)))[0]


async def _turn_latencies(cwd: Path, trials: int) -> list[float]:
    (cwd / "turner.yaml").write_text(TURNER)
    d = await start(cwd, "--resources", str(RESOURCES), "--personality", "turner.yaml", vision=True)
    rng = random.Random(7)
    out: list[float] = []
    try:
        await d.line(r"vision on")
        await asyncio.sleep(3.0)
        for trial in range(trials + 1):  # trial 0 warms up: the simulator loads the photograph on first use
            bearing = rng.uniform(5, 20) * rng.choice((-1, 1))
            (step,) = parse_script(f"- {{at: 0, face: alice, bearing_deg: {bearing:.1f}, distance_m: 0.6, "
                                   "height_m: 0.25}\n")
            t0 = d.now()
            d.sim.run_step(step)
            moves = [t for t, name, _ in d.received if name in ("SetHeadAngle", "TurnInPlace") and t > t0]
            waited = 0.0
            while not moves and waited < 5.0:
                await asyncio.sleep(0.005)
                waited += 0.005
                moves = [t for t, name, _ in d.received if name in ("SetHeadAngle", "TurnInPlace") and t > t0]
            if moves and trial:
                out.append((moves[0] - t0) * 1000.0)
            (leave,) = parse_script("- {at: 0, face_leaves: alice}\n")
            d.sim.run_step(leave)
            await asyncio.sleep(2.5 + rng.uniform(0, 0.3))  # lost after 1 s; the next trial starts afresh
    finally:
        await d.close()
    return out


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        on, frames, kframes, threads_on, sent_on = await _cpu_window(cwd, args.seconds, args.warmup)
        off, frames_off, kframes_off, threads_off, sent_off = await _cpu_window(cwd, args.seconds, args.warmup,
                                                                                "--no-vision")
        latencies = await _turn_latencies(cwd, args.trials)
    print(f"daemon CPU, default personality ({args.seconds:g} s window):")
    print(f"  vision on   {on:6.2f} % of one core   (target <= 10 %; {sent_on} animation frames sent)")
    print(f"  vision off  {off:6.2f} % of one core   (vision costs {on - off:+.2f} points, {on / max(off, 1e-9):.2f}x; "
          f"{sent_off} animation frames sent)")
    print(f"  the event loop's thread {threads_on['main']:.2f} % with vision, {threads_off['main']:.2f} % without; "
          f"the other threads {threads_on['other']:.2f} % with (the vision worker and the frame clock), "
          f"{threads_off['other']:.2f} % without (the frame clock)")
    for name, errs, where in (("vision on", kframes, "kernel receive stamps"),
                              ("vision on", frames, "the simulator's loop"),
                              ("vision off", kframes_off, "kernel receive stamps"),
                              ("vision off", frames_off, "the simulator's loop")):
        if errs:
            target = "   (target p99 <= 2 ms)" if name == "vision on" and where.startswith("kernel") else ""
            print(f"30 fps frame timing, {name}, {where}: |period - 33.3 ms| p50 {statistics.median(errs):.2f} ms, "
                  f"p99 {_pct(errs, 0.99):.2f} ms over {len(errs)} frames{target}")
    if latencies:
        print(f"face in view -> first head/body turn command: p50 {statistics.median(latencies):.0f} ms, "
              f"p99 {_pct(latencies, 0.99):.0f} ms, max {max(latencies):.0f} ms over {len(latencies)} of "
              f"{args.trials} trials   (target p99 <= 250 ms)")
    else:
        print("face in view -> turn: no trial turned")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="CPU window per configuration (s)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds after start-up before measuring")
    parser.add_argument("--trials", type=int, default=20, help="face trials")
    asyncio.run(main(parser.parse_args()))
