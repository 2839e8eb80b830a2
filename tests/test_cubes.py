"""Light cubes: the engine's choice of which to connect (pure), and the robot that connects only
when asked, over UDP against the simulator."""

from __future__ import annotations

import asyncio

import pytest

from driver import events as ev
from driver.cubes import ADVERT_TTL_S, CONNECT_TIMEOUT_S, CubePool
from driver.protocol.table import ObjectType
from driver.robot import Robot
from driver.sim.script import parse_script
from driver.sim.server import SimulatedCozmo

from .conftest import eventually, run

CUBE1, CUBE2 = int(ObjectType.LIGHTCUBE1), int(ObjectType.LIGHTCUBE2)


def test_the_pool_asks_for_one_cube_per_type_the_lowest_signal_byte_read_unsigned() -> None:
    pool = CubePool()
    assert pool.advert(0xA1, CUBE1, -100, 0.0) == [(0xA1, 0)]  # the only one of its type: asked for at once
    pool.withdraw([(0xA1, 0)])  # not sent (the robot was starting up): chosen again
    assert pool.advert(0xA2, CUBE1, 90, 0.1) == [(0xA2, 0)]  # 90 < 156 (-100 read unsigned)
    assert pool.advert(0xB1, CUBE2, 60, 0.2) == [(0xB1, 1)]
    assert pool.advert(0xA1, CUBE1, -100, 1.0) == []  # its type is asked for already
    assert pool.advert(0xC1, int(ObjectType.CHARGER_BASIC), 10, 1.1) == []  # not a light cube
    pool.connection(0, 0xA2, True, 1.2)
    pool.connection(1, 0xB1, True, 1.3)
    assert pool.connected() == {0: 0xA2, 1: 0xB1}
    # cube 0xA2 goes (flat battery): its type is asked for again, with the cube still advertising
    pool.connection(0, 0xA2, False, 3.0)
    assert pool.poll(3.0) == [(0xA1, 0)]
    pool.reset()
    assert pool.connected() == {} and pool.poll(3.1) == []


def test_a_cube_that_does_not_connect_is_passed_over_and_old_adverts_are_forgotten() -> None:
    pool = CubePool()
    assert pool.advert(0xA1, CUBE1, 40, 0.0) == [(0xA1, 0)]
    pool.advert(0xA2, CUBE1, 80, 0.5)
    assert pool.poll(CONNECT_TIMEOUT_S - 0.1) == []  # still waiting for 0xA1
    assert pool.poll(CONNECT_TIMEOUT_S + 0.1) == [(0xA2, 0)]  # 0xA1 never answered: the other one
    pool.connection(0, 0xA2, True, 6.0)
    pool.connection(0, 0xA2, False, 7.0)
    assert pool.poll(0.5 + ADVERT_TTL_S + 0.1) == []  # both adverts are too old now
    assert pool.advert(0xA1, CUBE1, 40, 20.0) == [(0xA1, 0)]  # passed over only for a while


# ------------------------------------------------------------------ over UDP


async def _pair(connect_cubes: bool = True, **sim_kwargs: object) -> tuple[SimulatedCozmo, Robot, list[ev.RobotEvent]]:
    sim = await SimulatedCozmo(port=0, calibrate=False, **sim_kwargs).start()  # type: ignore[arg-type]
    robot = Robot(*sim.address, lost_after=1.0, connect_cubes=connect_cubes)
    events: list[ev.RobotEvent] = []
    robot.add_listener(events.append)
    await robot.connect()
    return sim, robot, events


@pytest.mark.e2e
def test_the_robot_connects_the_kits_cubes_and_hears_taps_by_slot() -> None:
    script = parse_script("""
        - {at: 2.5, event: cube_tap, object_id: 2, taps: 2}
        - {at: 3.0, event: cube_off, object_id: 3}
        - {at: 3.5, event: cube_tap, object_id: 3}
        - {at: 4.0, event: cube_connect, object_id: 3}
        """)

    async def body() -> None:
        sim, robot, events = await _pair(script=script)
        taps: list[tuple[str, int, int]] = []  # what a tap puts on the wire, as a real cube's does
        robot.add_message_listener(lambda msg: taps.append(
            (type(msg).__name__, int(msg.object_id), int(getattr(msg, "tap_time", getattr(msg, "time", 0)))))
            if type(msg).__name__ in ("ObjectTapped", "ObjectTapFiltered") else None)
        try:
            def connections() -> list[ev.CubeConnection]:
                return [e for e in events if isinstance(e, ev.CubeConnection)]

            await eventually(lambda: len(connections()) >= 3, timeout=3.0)
            slots = {sim.cubes.slot_of(n) for n in (1, 2, 3)}
            assert slots == {0, 1, 2} and all(e.connected for e in connections()[:3])
            assert {e.factory_id for e in connections()} == {c.factory_id for c in sim.cubes.cubes}
            assert robot.cubes.connected() == {sim.cubes.slot_of(n): sim.cubes.cube(n).factory_id  # type: ignore[union-attr]
                                               for n in (1, 2, 3)}
            two = sim.cubes.slot_of(2)
            await eventually(lambda: any(isinstance(e, ev.CubeTapped) for e in events), timeout=4.0)
            (tap,) = [e for e in events if isinstance(e, ev.CubeTapped)]
            assert (tap.object_id, tap.taps) == (two, 2)
            assert taps == [("ObjectTapped", two, 6), ("ObjectTapFiltered", two, 6)]
            # cube 3 switched off: it leaves its slot, its tap reaches no one; switched on, it is asked for again
            await eventually(lambda: sum(e.connected for e in connections()) == 4, timeout=5.0)
            off = [e for e in connections() if not e.connected]
            assert len(off) == 1 and off[0].factory_id == sim.cubes.cube(3).factory_id  # type: ignore[union-attr]
            assert sim.cubes.unconnected_events == 1
            assert len([e for e in events if isinstance(e, ev.CubeTapped)]) == 1
            assert sim.cubes.slot_of(3) is not None
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body(), timeout=30)


@pytest.mark.e2e
def test_the_simulated_robot_never_connects_a_cube_by_itself() -> None:
    script = parse_script("- {at: 1.5, event: cube_tap, object_id: 1}\n")

    async def body() -> None:
        sim, robot, events = await _pair(connect_cubes=False, script=script)
        adverts: list[int] = []
        robot.add_message_listener(lambda msg: adverts.append(msg.factory_id) if msg.NAME == "ObjectAvailable"
                                   else None)
        try:
            await asyncio.sleep(2.5)
            assert {c.factory_id for c in sim.cubes.cubes} <= set(adverts)  # every cube advertised
            assert len(adverts) >= 6  # about once a second each
            assert not any(isinstance(e, (ev.CubeConnection, ev.CubeTapped)) for e in events)
            assert sim.cubes.unconnected_events == 1 and all(c.slot is None for c in sim.cubes.cubes)
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body(), timeout=30)


@pytest.mark.e2e
def test_after_a_reboot_the_cubes_are_connected_again() -> None:
    async def body() -> None:
        sim, robot, events = await _pair(cubes=1)
        try:
            await eventually(lambda: robot.cubes.connected() != {}, timeout=3.0)
            sim.reboot()  # forgets the engine and its cube; the robot notices the silence
            await eventually(lambda: robot.reconnects >= 1, timeout=10.0)
            # The simulator fills the slot before its answer reaches the driver: wait for the event.
            await eventually(lambda: sum(isinstance(e, ev.CubeConnection) and e.connected for e in events) == 2,
                             timeout=4.0)
            assert sim.cubes.slot_of(1) is not None
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body(), timeout=40)


def test_a_still_cube_scores_nothing_a_carried_one_scores_high_a_slow_flip_stays_low() -> None:
    from driver.cubes import CubeMotion
    from driver.sim.cubes import ACCEL_EVERY_S, SimCube

    def scores(seconds: float, flip: bool) -> list[float]:
        cube, motion, t = SimCube(1, 1, ObjectType.LIGHTCUBE1, 50), CubeMotion(), 0.0
        cube.moving_from, cube.moving_until, cube.flip_pending = 1.0, 1.0 + seconds, flip
        out = []
        while t < 1.0 + seconds:
            out.append(motion.update(*cube.accel(t, 0.0)))
            t += ACCEL_EVERY_S
        return out

    assert max(scores(0.0, False)) == 0.0
    carried = scores(1.5, False)
    assert max(carried[:25]) == 0.0 and max(carried) == 80.0   # Anki's ceiling within the carry
    assert max(scores(3.0, True)) < 40.0                         # below the detection threshold
    assert max(scores(1.0, True)) > 40.0                         # a quick turn is noticed


def test_a_streaming_cube_reports_its_accelerometer_and_a_flip_by_slot() -> None:
    async def body() -> None:
        sim, robot, events = await _pair()
        try:
            await eventually(lambda: sim.cubes.slot_of(1) is not None and robot.cubes.connected(), timeout=3.0)
            slot = sim.cubes.slot_of(1)
            assert slot is not None
            assert robot.cube_movement(slot) is None                     # not streaming
            received: list[float] = []
            sim.add_message_listener(lambda msg: received.append(asyncio.get_running_loop().time())
                                     if type(msg).__name__ == "StreamObjectAccel" else None)
            robot.stream_cube_accel(slot, True)
            await asyncio.sleep(1.0)
            assert robot.cube_movement(slot) == 0.0                      # at rest
            readings = robot.cube_motion[slot]
            sim.flip_cube(1, 0.6)                                        # quick: noticed
            await eventually(lambda: any(isinstance(e, ev.CubeUpAxisChanged) for e in events), timeout=3.0)
            (turned,) = [e for e in events if isinstance(e, ev.CubeUpAxisChanged)]
            assert (turned.object_id, turned.axis) == (slot, "Z_NEGATIVE")
            assert readings.score > 10.0
            await eventually(lambda: any(isinstance(e, ev.CubeStopped) for e in events), timeout=3.0)
            robot.stream_cube_accel(slot, False)
            assert robot.cube_movement(slot) is None
            await asyncio.sleep(0.3)
            assert not sim.cubes.cube(1).streaming  # type: ignore[union-attr]
        finally:
            await robot.disconnect()
            await sim.stop()

    run(body(), timeout=30)
