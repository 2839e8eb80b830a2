"""Benchmark: how steady the 30 fps animation stream is, measured where the robot hears it.

The simulated Cozmo runs in its own process (its own event loop, so the load below cannot delay
its clock) and time-stamps every datagram that carries an OutputAudio/OutputSilence packet (one
per frame) the moment the simulator's ``datagram_received`` is called, before anything is
decoded. It also reads the kernel's receive time stamp of the same datagram (``SIOCGSTAMPNS``),
which leaves out how fast the simulator's own process wakes up. This process runs the Robot and
the AnimationController, plays clips and the idle face, and loads the same event loop with other
work the way a brain would:

- ``idle``:    nothing else on the loop;
- ``loaded``:  a task doing ~3 ms of CPU (JSON parsing and arithmetic) every 10 ms, in one go;
- ``sliced``:  the same work, yielding to the loop every ~0.5 ms (``await asyncio.sleep(0)``);
- ``brain``:   the real thing: the default personality's Brain (heartbeat, tree, mood,
  reactions) over the project's resources, choosing and playing clips itself.

For each scenario it prints p50/p99/max of |period − 33.33 ms| between consecutive arrivals and
the frames missed (the controller's count, and gaps > 1.5 periods seen by the robot).

What is timed is the release clock, which the frames outside an animation (the idle face, whose
image a robot shows at once) and each animation's first frame rely on: every frame is released at
its time here. The daemon sends the later frames of an animation ahead, as they are prepared
(the robot keeps them in its buffer until its audio clock comes to them, hardware.md §4; see the
controller's "Frames ahead of their time"); ``--stream-ahead`` does that too, and the clips'
frames then come in bursts by design.

Frames are prepared on the event loop ``--lead-ms`` early and released by the link's release
thread at the exact time (``--release thread``, the default), or sent from the loop when due
(``--release loop``, the previous design). ``--switch-interval-ms`` sets the interpreter's thread
switch interval the way the daemon does (``driver.link.tune_thread_switching``; 0 keeps
CPython's 5 ms) and ``--release-priority`` the release thread's SCHED_FIFO priority (0: normal).

The simulated robot stands for a machine of its own. On a shared machine its process could wait
for a CPU before it sees a datagram, which would be counted against the sender; so it asks for a
real-time priority (``--sim-priority``, 0: normal; it only ever waits on its socket) and the
kernel stamps show the sending side alone either way.

Run: ``python tests/bench/frame_timing.py [--seconds 60] [--scenarios loaded,idle,sliced,brain]``.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import json
import multiprocessing as mp
import os
import struct
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from driver.animation.clip import BackpackLights, BodyMotion, Clip, HeadAngle, LiftHeight, ProceduralFace  # noqa: E402
from driver.animation.controller import RELEASE_LEAD_S, AnimationController  # noqa: E402
from driver.animation.timeline import FRAME_MS  # noqa: E402
from driver.link import RELEASE_NAPS_S, tune_thread_switching  # noqa: E402
from driver.robot import Robot  # noqa: E402
from driver.sim.server import SimulatedCozmo  # noqa: E402

DOC = json.dumps({"items": [{"id": i, "name": f"node{i}", "weights": [i * 0.5, i * 0.25, -i],
                             "tags": ["a", "b", "c"], "nested": {"x": i, "y": [1, 2, 3]}} for i in range(60)]})
SCENARIOS = ("idle", "loaded", "sliced", "brain")
SIOCGSTAMPNS = 0x8907
_AUDIO_IDS = (0x8E, 0x8F)  # OutputAudio, OutputSilence


def audio_seq(data: bytes) -> int | None:
    """The sequence number of the OutputAudio/OutputSilence packet in a datagram, if it has one.

    Read from the raw bytes (nothing is decoded before the time stamp): the header's first
    sequence number (sent as value + 1), then packets of type u8, length u16 and body, where
    types below 0x05 are sequenced and the body starts with the message id.
    """
    n = len(data)
    if n < 14 or data[7] not in (0x07, 0x09):  # engine or robot frames only
        return None
    seq = (data[8] | data[9] << 8) - 1
    pos = 14
    while pos + 3 < n:
        ptype, length = data[pos], data[pos + 1] | data[pos + 2] << 8
        if length and data[pos + 3] in _AUDIO_IDS and ptype < 0x05:
            return seq % 0xFFFE
        if ptype < 0x05:
            seq += 1
        pos += 3 + length
    return None


def _sim_process(conn: Connection, priority: int) -> None:
    """Child: run the simulator, time-stamp per-frame datagrams, hand the stamps over on request."""
    granted = "normal"
    if priority:
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))
            granted = f"SCHED_FIFO {priority}"
        except (OSError, AttributeError) as exc:
            granted = f"normal ({exc})"

    async def main() -> None:
        sim = await SimulatedCozmo(port=0).start()
        link = sim.link
        assert link is not None and link._transport is not None
        sock = link._transport.get_extra_info("socket")
        fd = sock.fileno()
        try:  # the first SIOCGSTAMPNS switches the kernel's receive stamps on for this socket
            fcntl.ioctl(fd, SIOCGSTAMPNS, bytes(16))
        except OSError:
            pass
        arrivals: list[float] = []
        kernel: list[float] = []
        seen: set[int] = set()
        resent = [0]
        receive = link.datagram_received

        def stamped(data: bytes, addr: Any) -> None:
            t = time.perf_counter()  # first thing, before any decoding
            seq = audio_seq(data)
            if seq is not None:
                if seq in seen:  # a resend of a frame seen before: not a new arrival
                    resent[0] += 1
                else:
                    seen.add(seq)
                    arrivals.append(t)
                    sec, nsec = struct.unpack("qq", fcntl.ioctl(fd, SIOCGSTAMPNS, bytes(16)))
                    kernel.append(sec + nsec * 1e-9)
            receive(data, addr)

        link.datagram_received = stamped  # type: ignore[method-assign]
        conn.send((sim.port, granted))
        loop = asyncio.get_running_loop()
        while True:
            ready = await loop.run_in_executor(None, conn.poll, 0.2)
            if ready:
                command = conn.recv()
                if command == "reset":
                    arrivals.clear()
                    kernel.clear()
                    seen.clear()  # a new connection numbers its packets from 0 again
                    resent[0] = 0
                    conn.send("ok")
                elif command == "collect":
                    conn.send((list(arrivals), list(kernel), resent[0]))
                elif command == "stop":
                    break
        await sim.stop()

    asyncio.run(main())


def _burn(ms: float) -> None:
    end = time.perf_counter() + ms / 1000.0
    x = 0
    while time.perf_counter() < end:
        data = json.loads(DOC)
        x += sum(item["id"] for item in data["items"])


async def _load(kind: str, stop: asyncio.Event) -> None:
    while not stop.is_set():
        if kind == "loaded":
            _burn(3.0)
        else:  # sliced: the same 3 ms, in slices that let the loop run in between
            for _ in range(6):
                _burn(0.5)
                await asyncio.sleep(0)
        await asyncio.sleep(0.010)


def _clips() -> list[Clip]:
    wave = Clip("wave", head_angle=(HeadAngle(0, 300, 30), HeadAngle(400, 400, -10), HeadAngle(900, 200, 0)),
                lift_height=(LiftHeight(0, 400, 70), LiftHeight(600, 300, 32)),
                body_motion=(BodyMotion(200, 400, "STRAIGHT", 40),),
                backpack_lights=(BackpackLights(0, 800, middle=(0.0, 1.0, 0.0, 1.0)),),
                procedural_face=(ProceduralFace(0), ProceduralFace(500, face_center_x=15.0, face_scale_y=1.2),
                                 ProceduralFace(1100)))
    return [wave]


def _percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q / 100.0 * (len(s) - 1))))]


def _slot_jitter(stamps: list[float]) -> tuple[list[float], int]:
    """|gap - n periods| (ms) between consecutive frames, n the whole number of periods nearest the
    gap, and how many gaps spanned more than one period: for a daemon that sends no frame when it
    has nothing new (a personality between clips), where :func:`_jitter` would count its quiet
    stretches as lateness."""
    gaps = [(b - a) * 1000.0 for a, b in zip(stamps, stamps[1:], strict=False)]
    return ([abs(g - max(1, round(g / FRAME_MS)) * FRAME_MS) for g in gaps],
            sum(1 for g in gaps if g > 1.5 * FRAME_MS))


def _jitter(stamps: list[float]) -> tuple[list[float], int]:
    periods = [(b - a) * 1000.0 for a, b in zip(stamps, stamps[1:], strict=False)]
    return [abs(p - FRAME_MS) for p in periods], sum(1 for p in periods if p > 1.5 * FRAME_MS)


async def _play_clips(ctl: AnimationController, seconds: float) -> int:
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    clips = _clips()
    played = 0
    while loop.time() < end:
        await ctl.play(clips[played % len(clips)])
        played += 1
        await asyncio.sleep(min(1.5, max(0.0, end - loop.time())))
    return played


def _make_brain(robot: Robot, ctl: AnimationController) -> Any:
    """The default personality over the project's resources (loaded before the measurement starts)."""
    from brain.assets.resource_set import ResourceSet
    from brain.engine import Brain

    resources = ResourceSet.load([ROOT / "resources"])
    brain = Brain(robot, resources, ROOT / "trees" / "default.yaml", heartbeat_hz=10.0, controller=ctl, seed=1)
    brain.load()
    return brain


async def _run_brain(brain: Any, ctl: AnimationController, seconds: float) -> int:
    """Run the brain's heartbeat for ``seconds``; returns the clips it played."""
    started = ctl.stats.frames
    plays = 0
    original = ctl.play

    def counting_play(*args: Any, **kwargs: Any) -> Any:
        nonlocal plays
        plays += 1
        return original(*args, **kwargs)

    ctl.play = counting_play  # type: ignore[method-assign]
    try:
        await brain.heartbeat.run(asyncio.Event(), seconds)
    finally:
        ctl.play = original  # type: ignore[method-assign]
        brain.close()
    assert ctl.stats.frames > started
    return plays


async def _scenario(kind: str, port: int, conn: Connection, seconds: float, args: argparse.Namespace) -> dict[str, Any]:
    robot = Robot("127.0.0.1", port, lost_after=3.0)
    await robot.connect()
    assert robot.link is not None
    robot.link.release_naps_s = args.naps_ms / 1000.0
    ctl = AnimationController(robot, seed=1, release=args.release, lead_s=args.lead_ms / 1000.0,
                              release_priority=args.release_priority or None,
                              release_cpu=args.release_cpu if args.release_cpu >= 0 else None,
                              wake_early_s=args.wake_early_ms / 1000.0,
                              idle_silence=True)  # a steady stream: every slot has a frame to time
    ctl.stream_ahead = args.stream_ahead
    ctl.start()
    brain = _make_brain(robot, ctl) if kind == "brain" else None
    await asyncio.sleep(0.5)  # settle
    conn.send("reset")
    await asyncio.get_running_loop().run_in_executor(None, conn.recv)
    missed0 = ctl.stats.missed_frames
    late0 = ctl.stats.late_frames
    robot.stats.late_releases = 0
    robot.stats.max_release_late_ms = 0.0
    stop = asyncio.Event()
    load = asyncio.create_task(_load(kind, stop)) if kind in ("loaded", "sliced") else None
    if brain is not None:
        played = await _run_brain(brain, ctl, seconds)
    else:
        played = await _play_clips(ctl, seconds)
    stop.set()
    if load is not None:
        await load
    conn.send("collect")
    arrivals, kernel, resent = await asyncio.get_running_loop().run_in_executor(None, conn.recv)
    stats = ctl.stats
    link_stats = robot.stats
    clock = robot.link._clock
    realtime = clock is not None and clock.realtime
    await ctl.stop()
    await robot.disconnect()
    errors, gaps = _jitter(arrivals)
    kerrors, _ = _jitter(kernel)
    return {
        "frames": len(arrivals),
        "expected": (arrivals[-1] - arrivals[0]) * 30 + 1,
        "late_p99": _percentile(list(stats.late_ms), 99),
        "p50": _percentile(errors, 50),
        "p99": _percentile(errors, 99),
        "max": max(errors),
        "k_p50": _percentile(kerrors, 50),
        "k_p99": _percentile(kerrors, 99),
        "k_max": max(kerrors),
        "missed": stats.missed_frames - missed0,
        "late_frames": stats.late_frames - late0,
        "gaps": gaps,
        "clips": played,
        "frame_cost_max": stats.max_frame_cost_ms,
        "render_max": stats.max_render_ms,
        "realtime": realtime,
        "resent": resent,
        "late_releases": link_stats.late_releases,
        "release_late_max": link_stats.max_release_late_ms,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="length of each scenario (default 60)")
    parser.add_argument("--scenarios", default="loaded,idle,sliced",
                        help=f"comma list of {', '.join(SCENARIOS)} (default loaded,idle,sliced)")
    parser.add_argument("--release", choices=("thread", "loop"), default="thread",
                        help="who sends each frame: the link's release thread (default) or the loop")
    parser.add_argument("--lead-ms", type=float, default=RELEASE_LEAD_S * 1000.0,
                        help=f"release=thread: prepare frames this early (default {RELEASE_LEAD_S * 1000:.0f})")
    parser.add_argument("--naps-ms", type=float, default=RELEASE_NAPS_S * 1000.0,
                        help=f"release=thread: nap this long before a frame (default {RELEASE_NAPS_S * 1000:g})")
    parser.add_argument("--switch-interval-ms", type=float, default=0.2,
                        help="interpreter thread switch interval (default 0.2; 0 keeps CPython's 5 ms)")
    parser.add_argument("--release-priority", type=int, default=10,
                        help="release=thread: SCHED_FIFO priority of the release thread (default 10; 0: normal)")
    parser.add_argument("--release-cpu", type=int, default=-1,
                        help="release=thread: pin the release thread to this CPU and the event loop to the "
                             "others (default -1: no pinning)")
    parser.add_argument("--sim-priority", type=int, default=20,
                        help="SCHED_FIFO priority of the simulator's process (default 20; 0: normal)")
    parser.add_argument("--wake-early-ms", type=float, default=0.0,
                        help="release=loop: wake this early and spin to the exact frame time (default off)")
    parser.add_argument("--stream-ahead", action="store_true",
                        help="send a clip's frames after its first as soon as they are prepared, as the daemon "
                             "does (default: every frame at its time, the release clock being what is measured)")
    args = parser.parse_args()
    kinds = [k.strip() for k in args.scenarios.split(",") if k.strip()]
    for k in kinds:
        if k not in SCENARIOS:
            parser.error(f"unknown scenario {k!r}")
    if args.switch_interval_ms > 0:
        tune_thread_switching(args.switch_interval_ms / 1000.0)
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_sim_process, args=(child, args.sim_priority), daemon=True)
    proc.start()
    port, sim_priority = parent.recv()
    if args.release_cpu >= 0:  # the loop thread keeps off the release thread's CPU (the simulator may use any)
        os.sched_setaffinity(0, set(os.sched_getaffinity(0)) - {args.release_cpu})
    print(f"frame timing at the simulator: {args.seconds:.0f} s per scenario, target period {FRAME_MS:.2f} ms; "
          f"release={args.release} lead={args.lead_ms:g} ms naps={args.naps_ms:g} ms "
          f"switch interval={args.switch_interval_ms or 5:g} ms; release priority={args.release_priority or 'normal'} "
          f"cpu={args.release_cpu if args.release_cpu >= 0 else 'any'}; simulator priority: {sim_priority}")
    print("|period - 33.33 ms| at the simulator's datagram_received (kernel receive stamp in brackets)")
    print(f"{'scenario':9} {'frames':>7} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} {'missed':>6} {'gaps':>5} "
          f"{'clips':>5} {'frame cost max ms':>18}")
    try:
        for kind in kinds:
            r = asyncio.run(_scenario(kind, port, parent, args.seconds, args))
            print(f"{kind:9} {r['frames']:7d} {r['p50']:7.3f} {r['p99']:7.3f} {r['max']:7.3f} {r['missed']:6d} "
                  f"{r['gaps']:5d} {r['clips']:5d} {r['frame_cost_max']:18.2f}")
            print(f"          [kernel stamps: p50 {r['k_p50']:.3f} p99 {r['k_p99']:.3f} max {r['k_max']:.3f} ms]")
            print(f"          p99 target 2 ms: {'met' if r['p99'] <= 2.0 else 'NOT met'} "
                  f"({r['p99'] / 2.0:.2f}x of target); frames received / expected = "
                  f"{r['frames'] / r['expected']:.4f}; max face render {r['render_max']:.2f} ms; "
                  f"engine wake-up lateness p99 {r['late_p99']:.2f} ms (last 2000 frames); frames prepared "
                  f"too late {r['late_frames']}; releases > 1 ms late {r['late_releases']} "
                  f"(max {r['release_late_max']:.2f} ms); release thread real-time: {r['realtime']}; "
                  f"frame datagrams resent (not counted) {r['resent']}")
    finally:
        parent.send("stop")
        proc.join(timeout=5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
