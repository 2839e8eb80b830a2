"""``cozmo-brain sim``: the simulated Cozmo as a program of its own, listening on UDP."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal

from .faults import NetworkFaults
from .script import ScriptError, Step, load_script
from .server import SimulatedCozmo

log = logging.getLogger("driver.sim.server")

__all__ = ["sim_command"]


def sim_command(args: argparse.Namespace) -> int:
    """``cozmo-brain sim``: run the simulated robot until interrupted or ``--duration`` ends."""
    try:
        faults = NetworkFaults(loss=args.loss, duplicate=args.duplicate, reorder=args.reorder,
                               latency_ms=args.latency)
        script = load_script(args.script) if args.script else []
    except (ValueError, ScriptError) as exc:
        log.error("%s", exc)
        return 1 if isinstance(exc, ScriptError) else 2
    return asyncio.run(_serve(args.host, args.port, faults, script, args.duration,
                              play_audio=bool(getattr(args, "audio", False))))


async def _serve(host: str, port: int, faults: NetworkFaults, script: list[Step], duration: float | None,
                 *, play_audio: bool = False) -> int:
    sim = SimulatedCozmo(host, port, faults=faults, script=script, play_audio=play_audio, record_limit=0)
    try:
        await sim.start()
    except OSError as exc:
        log.error("cannot listen on %s:%d: %s", host, port, exc.strerror or exc)
        return 1
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):
            pass
    try:
        await asyncio.wait_for(stop.wait(), timeout=duration)
    except asyncio.TimeoutError:
        pass
    assert sim.link is not None
    sim._log_connection("still open at the stop")
    log.info("sim: stopping; link %s", sim.link.stats.as_dict())
    await sim.stop()
    return 0
