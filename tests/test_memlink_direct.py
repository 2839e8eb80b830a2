"""A direct in-memory network: packets handed over whole, the connection kept as over a wire.

``cozmo-brain simulate`` runs on it. What must hold: every packet the layers above send reaches
the other end once, in order and on time (a clocked frame at its time, nothing overtaking it);
only the session's own packets (handshake, pings) travel as datagrams; and where handing over
would not be what a wire does (a silent simulator, a loss in flight) the session's way takes
over, so a silence still loses the robot, a reconnect still finds it, and a packet sent just as
the silence began arrives once it ends instead of vanishing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from brain.app.virtual_time import run_virtual
from driver.link import Link, LinkState, Role
from driver.memlink import DirectLink, MemoryNetwork
from driver.protocol.frame import PacketType, RawPacket
from driver.sim.faults import NetworkFaults

CMD = PacketType.COMMAND
EVENT = PacketType.EVENT


async def _pair(net: MemoryNetwork, faults: NetworkFaults | None = None,
                **engine_options: Any) -> tuple[Link, Link, list[tuple[float, bytes]], list[tuple[float, bytes]]]:
    """A connected engine and robot end; the messages each received, with when (loop time)."""
    loop = asyncio.get_running_loop()
    at_robot: list[tuple[float, bytes]] = []
    at_engine: list[tuple[float, bytes]] = []

    def into(seen: list[tuple[float, bytes]]) -> Callable[[RawPacket], None]:
        def on_packet(packet: RawPacket) -> None:
            if packet.type in (CMD, EVENT):  # (the robot's Connect comes this way too)
                seen.append((loop.time(), packet.body))
        return on_packet

    robot = await net.open_link(Role.ROBOT, ("127.0.0.1", 5600), impairment=faults, name="robot",
                                on_packet=into(at_robot))
    engine = await net.open_link(Role.ENGINE, on_packet=into(at_engine), name="engine", **engine_options)
    await engine.connect(("127.0.0.1", 5600), timeout=2.0)
    await asyncio.sleep(0.05)  # the Connect's ack
    return engine, robot, at_robot, at_engine


def test_packets_are_handed_over_in_order_and_only_the_session_uses_datagrams() -> None:
    async def main() -> None:
        net = MemoryNetwork(direct=True)
        engine, robot, at_robot, at_engine = await _pair(net)
        assert isinstance(engine, DirectLink) and isinstance(robot, DirectLink)
        datagrams = net.delivered
        for i in range(200):
            engine.send(RawPacket(CMD, bytes([0x10, i])))
            robot.send(RawPacket(EVENT, bytes([0x20, i])))
            if i % 7 == 0:
                await asyncio.sleep(0.01)
        await asyncio.sleep(0.3)
        assert [body for _, body in at_robot] == [bytes([0x10, i]) for i in range(200)]
        assert [body for _, body in at_engine] == [bytes([0x20, i]) for i in range(200)]
        assert net.handed_over >= 2 * 29
        # 0.3 s and a bit: a ping or two each way, no frame of data
        assert net.delivered - datagrams <= 6
        assert engine.stats.sent_packets >= 200 and robot.stats.received_packets >= 200
        assert engine.state is LinkState.CONNECTED and robot.state is LinkState.CONNECTED
        engine.close()
        robot.close()

    run_virtual(main())


def test_a_clocked_frame_arrives_at_its_time_and_nothing_overtakes_it() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        net = MemoryNetwork(direct=True)
        engine, robot, at_robot, _ = await _pair(net)
        now = loop.time()
        with engine.frame_at(now + 0.020):
            engine.send(RawPacket(CMD, b"\x30frame"))
        engine.send(RawPacket(CMD, b"\x31after"))  # sent later: goes behind the frame
        await asyncio.sleep(0.010)
        assert at_robot == []
        await asyncio.sleep(0.020)
        assert [body for _, body in at_robot] == [b"\x30frame", b"\x31after"]
        assert now + 0.020 <= at_robot[0][0] < now + 0.021
        engine.close()
        robot.close()

    run_virtual(main())


def test_a_silent_robot_is_lost_and_found_again_and_handing_over_resumes() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        net = MemoryNetwork(direct=True)
        faults = NetworkFaults()
        engine, robot, at_robot, at_engine = await _pair(net, faults, lost_after=1.0, retry_initial=0.2,
                                                         retry_max=0.4)
        states: list[LinkState] = []
        engine.on_state = lambda old, new: states.append(new)
        faults.silent = True
        t0 = loop.time()
        for i in range(30):
            engine.send(RawPacket(CMD, bytes([0x40, i])))
            robot.send(RawPacket(EVENT, bytes([0x42, i])))
            robot.flush()
            await asyncio.sleep(0.05)
        assert at_robot == []  # a silent robot hears nothing
        assert at_engine == []  # and says nothing
        assert LinkState.LOST in states and loop.time() - t0 < 2.0
        faults.silent = False
        await asyncio.sleep(1.0)
        assert engine.state is LinkState.CONNECTED
        handed = net.handed_over
        engine.send(RawPacket(CMD, b"\x41back"))
        await asyncio.sleep(0.05)
        assert [body for _, body in at_robot] == [b"\x41back"]  # the lost connection's packets are gone
        assert net.handed_over == handed + 1
        engine.close()
        robot.close()

    run_virtual(main())


def test_a_packet_sent_as_the_silence_begins_arrives_when_it_ends() -> None:
    async def main() -> None:
        net = MemoryNetwork(direct=True)
        faults = NetworkFaults()
        engine, robot, at_robot, _ = await _pair(net, faults, lost_after=3.0)
        loop = asyncio.get_running_loop()
        engine.send(RawPacket(CMD, b"\x50first"))
        # on after it was handed over, before the robot takes it in: on a wire the session resends it
        loop.call_soon(setattr, faults, "silent", True)
        await asyncio.sleep(0.5)
        engine.send(RawPacket(CMD, b"\x51second"))
        await asyncio.sleep(0.5)
        assert at_robot == []
        faults.silent = False
        await asyncio.sleep(0.8)
        assert [body for _, body in at_robot] == [b"\x50first", b"\x51second"]
        assert engine.stats.resent_packets > 0
        assert engine.state is LinkState.CONNECTED
        # acknowledged: the packets that follow are handed over again
        handed = net.handed_over
        engine.send(RawPacket(CMD, b"\x52third"))
        await asyncio.sleep(0.05)
        assert net.handed_over == handed + 1 and at_robot[-1][1] == b"\x52third"
        engine.close()
        robot.close()

    run_virtual(main())


def test_a_direct_network_takes_no_latency() -> None:
    with pytest.raises(ValueError, match="no latency"):
        MemoryNetwork(direct=True, latency_s=0.01)


def test_a_simulated_day_over_a_direct_network_goes_on_through_a_silence_and_a_reboot() -> None:
    """``simulate`` (on a direct network) with a robot that falls silent, then reboots: the robot is
    lost and found again both times, and the personality goes on animating it afterwards."""
    from brain.app.simulate import simulate
    from driver.sim.script import parse_script

    from .conftest import REPO

    script = parse_script("- {at: 40, event: silent, for: 6}\n- {at: 100, event: reboot, for: 6}\n")
    seen: list[tuple[float, str]] = []
    sims: list[Any] = []

    def watch(sim: Any) -> None:
        loop = asyncio.get_running_loop()
        sims.append(sim)
        sim.add_message_listener(lambda msg: seen.append((loop.time(), type(msg).__name__)))

    report = run_virtual(simulate(REPO / "trees" / "default.yaml", [REPO / "resources"], hours=200 / 3600,
                                  script=script, seed=2, progress=False, watch_sim=watch))
    (sim,) = sims
    assert sim.connections == 3  # the first, after the silence, after the reboot
    start = min(t for t, _ in seen)
    frames = [t - start for t, name in seen if name in ("OutputAudio", "OutputSilence")]
    assert any(50 < t < 100 for t in frames) and any(t > 115 for t in frames)
    assert report.link["handed_over"] > report.link["datagrams"]  # most went over directly
