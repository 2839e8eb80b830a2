"""Benchmark: what the idle daemon costs a small computer, beside PyCozmo's Client, in one run.

Two clients, one after the other (or both at once, ``--together``), each against its own
simulated Cozmo (``python -m brain sim`` in a process of its own, on a port of its own):

- ``ours``:     the daemon, ``python -m brain run --robot 127.0.0.1:PORT --no-vision`` with the
  default personality (config.yaml's), as a user starts it, with the camera off as PyCozmo's
  Client runs (``--vision`` measures it with the camera and its vision on, as ``run`` defaults);
- ``pycozmo``:  PyCozmo 0.8.0's ``Client`` with animations and the procedural face enabled (its
  defaults), started by this file in a process of its own (``pycozmo-client`` mode below), which
  streams the 30 fps animation frames with an idle face the way the daemon does.

Only the client's process is measured, and only once it is up: after it connected (the daemon's
"running" log line; the PyCozmo client's "ready" line) and a warm-up, CPU time is read from
``/proc/PID/stat`` (utime + stime, all threads) at the start and the end of a window of
``--seconds`` (default 60), and the resident set from ``/proc/PID/status`` (``VmRSS`` at the end,
``VmHWM``, the peak since the process started). CPU is given in % of one core. How often the
process sleeps and wakes shows too, summed over its threads (``/proc/PID/task/*/status``):
``wakes/s`` the voluntary context switches (a thread that waited, on a timer, a socket or a lock,
and woke), ``preempted/s`` the involuntary ones (a thread taken off its CPU while it wanted to run).

One after the other, each client meets the machine of its own minute: on a shared or virtual
machine whose speed drifts by a fifth from one minute to the next, that drift is in the ratio.
``--together`` runs both clients at once and reads both over the same window, so what the machine
does to one it does to the other; the two use a few percent of a core between them, so neither
takes the other's time. Either way the ratio is of the same figures.

Run: ``python tests/bench/footprint.py [--seconds 60] [--warmup 5] [--only ours|pycozmo] [--vision]
[--together] [--runs N] [--json FILE] [-- EXTRA RUN ARGS]``; ``--runs N`` measures N times and
ends with each run's ratio and their median. Anything after ``--`` is added to the daemon's command line
(``-- --personality trees/sleepy.yaml``). The targets (our CPU ≤ 0.5× PyCozmo's, our RSS ≤ 60 MB)
are checked and printed; the exit code is 0 either way unless a client failed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024
TARGET_CPU_RATIO = 0.5
TARGET_RSS_MB = 60.0
_LISTENING = re.compile(r"listening on [\d.]+:(\d+)")


@dataclass
class Figures:
    """What one client cost over the window."""

    name: str
    seconds: float
    cpu_percent: float
    rss_end_mb: float
    rss_peak_mb: float
    threads: int
    wakes_per_s: float
    preempted_per_s: float


class Proc:
    """A child process whose output lines are collected by a thread (so its pipes never fill)."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> None:
        self.name = name
        self.lines: list[str] = []
        self._cond = threading.Condition()
        self.p = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  env=env)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            with self._cond:
                self.lines.append(line.rstrip("\n"))
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def wait_for(self, pattern: re.Pattern[str], timeout: float) -> re.Match[str]:
        """The first output line matching ``pattern``; raise if the process ends or time runs out."""
        deadline = time.monotonic() + timeout
        seen = 0
        with self._cond:
            while True:
                for line in self.lines[seen:]:
                    found = pattern.search(line)
                    if found:
                        return found
                seen = len(self.lines)
                left = deadline - time.monotonic()
                if self.p.poll() is not None or left <= 0:
                    why = "timeout" if self.p.poll() is None else f"exited {self.p.returncode}"
                    raise RuntimeError(f"{self.name}: no line matching {pattern.pattern!r} ({why}); output:\n"
                                       + "\n".join(self.lines[-30:]))
                self._cond.wait(min(left, 0.5))

    def stop(self, timeout: float = 10.0) -> int | None:
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
            try:
                self.p.wait(timeout)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        return self.p.returncode


def cpu_ticks(pid: int) -> int:
    """utime + stime of every thread of ``pid`` so far, in clock ticks."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()  # the command name may hold spaces
    return int(fields[11]) + int(fields[12])  # fields 14 and 15 of proc(5)


def status(pid: int) -> dict[str, str]:
    """``/proc/PID/status`` as a dict."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        out[key] = value.strip()
    return out


def context_switches(pid: int) -> tuple[int, int]:
    """Voluntary and involuntary context switches of every thread of ``pid`` so far."""
    voluntary = involuntary = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            text = (task / "status").read_text()
        except OSError:  # the thread ended meanwhile
            continue
        for line in text.splitlines():
            if line.startswith("voluntary_ctxt_switches:"):
                voluntary += int(line.split()[1])
            elif line.startswith("nonvoluntary_ctxt_switches:"):
                involuntary += int(line.split()[1])
    return voluntary, involuntary


def _kb(value: str) -> float:
    return float(value.split()[0])


def measure(procs: list[Proc], warmup: float, seconds: float) -> list[Figures]:
    """CPU and RSS of each of ``procs`` over the same ``seconds``, after ``warmup``; they must live throughout."""
    time.sleep(warmup)

    def check(when: str) -> None:
        for proc in procs:
            if proc.p.poll() is not None:
                raise RuntimeError(f"{proc.name} exited during the {when}:\n" + "\n".join(proc.lines[-30:]))

    check("warm-up")
    t0 = time.monotonic()
    start = [(cpu_ticks(proc.p.pid), context_switches(proc.p.pid)) for proc in procs]
    end = t0 + seconds
    while (left := end - time.monotonic()) > 0:
        time.sleep(min(left, 1.0))
        check("measurement")
    t1 = time.monotonic()
    figures = []
    for proc, (c0, (v0, i0)) in zip(procs, start, strict=True):
        pid = proc.p.pid
        c1, (v1, i1) = cpu_ticks(pid), context_switches(pid)
        st = status(pid)
        span = t1 - t0
        figures.append(Figures(proc.name, span, 100.0 * (c1 - c0) / CLK_TCK / span, _kb(st["VmRSS"]) / 1024.0,
                               _kb(st["VmHWM"]) / 1024.0, int(st["Threads"]), (v1 - v0) / span, (i1 - i0) / span))
    return figures


def start_sim(name: str) -> tuple[Proc, int]:
    """A simulated Cozmo in its own process, on a free port; returns it and its port."""
    sim = Proc(f"{name} sim", [sys.executable, "-m", "brain", "sim", "--port", "0"])
    port = int(sim.wait_for(_LISTENING, 30).group(1))
    return sim, port


def start_client(name: str, argv: list[str], ready: str) -> tuple[Proc, Proc]:
    """A client started by ``argv`` (where ``{port}`` is its simulator's port) against a simulator
    of its own, once it printed a line matching ``ready``; returns it and the simulator (both
    stopped again when it does not get there)."""
    sim, port = start_sim(name)
    try:
        client = Proc(name, [arg.replace("{port}", str(port)) for arg in argv])
        try:
            client.wait_for(re.compile(ready), 60)
        except BaseException:
            client.stop()
            raise
    except BaseException:
        sim.stop()
        raise
    return client, sim


def start_ours(args: argparse.Namespace) -> tuple[Proc, Proc]:
    """Our daemon, as a user starts it, once it runs; returns it and its simulator."""
    vision = [] if args.vision else ["--no-vision"]
    return start_client("ours", [sys.executable, "-m", "brain", "run", "--robot", "127.0.0.1:{port}", *vision,
                                 *args.extra], r"cozmo_brain: running ")


def start_pycozmo(args: argparse.Namespace) -> tuple[Proc, Proc]:
    """PyCozmo's client, once it is ready; returns it and its simulator."""
    return start_client("pycozmo", [sys.executable, str(Path(__file__).resolve()), "pycozmo-client",
                                    "127.0.0.1:{port}"], r"^ready$")


STARTERS = {"ours": start_ours, "pycozmo": start_pycozmo}


def run_clients(names: list[str], args: argparse.Namespace) -> list[Figures]:
    """Start the clients named (each with its simulator), measure them over one window, stop them."""
    started: list[tuple[Proc, Proc]] = []
    try:
        for name in names:
            started.append(STARTERS[name](args))
        return measure([client for client, _ in started], args.warmup, args.seconds)
    finally:
        for client, sim in started:
            client.stop()
            sim.stop()


def pycozmo_client(address: str) -> int:
    """The measured PyCozmo process: connect with animations and the procedural face on, then idle."""
    import pycozmo

    host, _, port = address.rpartition(":")
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    cli = pycozmo.Client(robot_addr=(host, int(port)), enable_animations=True, enable_procedural_face=True)
    cli.start()
    cli.connect()
    try:
        cli.wait_for_robot(timeout=10)
        print("ready", flush=True)
        stop.wait()
    finally:
        cli.disconnect()
        cli.stop()
    return 0


def report(results: dict[str, Figures]) -> list[str]:
    # CPU per wake-up: a faster machine shrinks it for both clients, but the part that is the
    # wake-up itself (kernel, cold caches) less than the work, so ratios move with the machine.
    lines = [f"{'client':<10} {'CPU % of a core':>16} {'RSS end MB':>11} {'RSS peak MB':>12} {'threads':>8} "
             f"{'wakes/s':>8} {'preempted/s':>12} {'CPU us/wake':>12}"]
    for f in results.values():
        per_wake = f.cpu_percent * 1e4 / f.wakes_per_s if f.wakes_per_s else float("nan")
        lines.append(f"{f.name:<10} {f.cpu_percent:>16.2f} {f.rss_end_mb:>11.1f} {f.rss_peak_mb:>12.1f} "
                     f"{f.threads:>8} {f.wakes_per_s:>8.1f} {f.preempted_per_s:>12.1f} {per_wake:>12.0f}")
    ours, theirs = results.get("ours"), results.get("pycozmo")
    if ours is not None and theirs is not None:
        cpu_ratio = ours.cpu_percent / theirs.cpu_percent if theirs.cpu_percent else float("inf")
        lines.append(f"ratio ours/pycozmo: CPU {cpu_ratio:.2f}x, RSS end {ours.rss_end_mb / theirs.rss_end_mb:.2f}x, "
                     f"RSS peak {ours.rss_peak_mb / theirs.rss_peak_mb:.2f}x")
        met = "met" if cpu_ratio <= TARGET_CPU_RATIO else "NOT met"
        lines.append(f"target CPU <= {TARGET_CPU_RATIO}x PyCozmo's: {met}")
    if ours is not None:
        rss = max(ours.rss_end_mb, ours.rss_peak_mb)
        lines.append(f"target RSS <= {TARGET_RSS_MB:.0f} MB (peak): {'met' if rss <= TARGET_RSS_MB else 'NOT met'}")
    return lines


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["pycozmo-client"]:
        return pycozmo_client(argv[1])
    extra: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="measurement window per client (default 60)")
    ap.add_argument("--warmup", type=float, default=5.0, help="seconds after connecting before measuring (default 5)")
    ap.add_argument("--only", choices=("ours", "pycozmo"), help="measure one client only")
    ap.add_argument("--json", metavar="FILE", help="also write the figures here")
    ap.add_argument("--vision", action="store_true", help="our daemon with its camera and vision on (run's default)")
    ap.add_argument("--together", action="store_true",
                    help="run both clients at once and measure them over the same window (see the module docstring)")
    ap.add_argument("--runs", type=int, default=1,
                    help="measure this many times and give the ratio of each and their median (default 1)")
    args = ap.parse_args(argv)
    args.extra = extra
    names = [name for name in STARTERS if args.only in (None, name)]
    runs: list[dict[str, Figures]] = []
    for run in range(max(1, args.runs)):
        if args.runs > 1:
            print(f"run {run + 1} of {args.runs}", flush=True)
        results: dict[str, Figures] = {}
        for group in [names] if args.together else [[name] for name in names]:
            print(f"measuring {' and '.join(group)} for {args.seconds:.0f} s (after {args.warmup:.0f} s of "
                  "warm-up)...", flush=True)
            results.update((f.name, f) for f in run_clients(group, args))
        for line in report(results):
            print(line)
        runs.append(results)
    if len(runs) > 1:
        for line in summary(runs):
            print(line)
    if args.json:
        figures = [{k: asdict(v) for k, v in results.items()} for results in runs]
        Path(args.json).write_text(json.dumps(figures[0] if len(figures) == 1 else figures, indent=2) + "\n")
    return 0


def summary(runs: list[dict[str, Figures]]) -> list[str]:
    """Our CPU and the ratio over several runs: each run's, and the median. What the personality
    happens to do in a minute moves our figure by a fifth either way, so one run says little."""
    ours = [r["ours"].cpu_percent for r in runs if "ours" in r]
    lines = [f"our CPU over {len(runs)} runs: {' '.join(f'{c:.2f}' for c in ours)} % "
             f"(median {statistics.median(ours):.2f} %)"] if ours else []
    ratios = [r["ours"].cpu_percent / r["pycozmo"].cpu_percent for r in runs
              if "ours" in r and "pycozmo" in r and r["pycozmo"].cpu_percent]
    if ratios:
        met = sum(ratio <= TARGET_CPU_RATIO for ratio in ratios)
        lines.append(f"ratio ours/pycozmo over {len(ratios)} runs: {' '.join(f'{x:.2f}x' for x in ratios)} "
                     f"(median {statistics.median(ratios):.2f}x); target CPU <= {TARGET_CPU_RATIO}x met in "
                     f"{met} of {len(ratios)}")
    return lines


if __name__ == "__main__":
    sys.exit(main())
