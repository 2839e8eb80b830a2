"""The robot's datagrams are read on the animation clock's ticks, and the heartbeat beats on them.

A robot sends about 30 datagrams a second; read as each arrives, every one woke the daemon on its
own, besides the frame ticks and the beats. With the controller running, the link reads the UDP
socket at the frame ticks instead (``Link.input_clock``), so one wake-up serves the input and the
frame. The wire is the subject here: a simulated robot over real UDP, in real time, with margins
for a loaded machine. The beat schedule is checked on the virtual clock.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable

from brain.app.virtual_time import run_virtual
from brain.heartbeat import Heartbeat
from driver.animation.controller import DOZING_READ_GAP_S, FRAME_S, STILL_READ_GAP_S, AnimationController
from driver.link import Link, Role
from driver.protocol.frame import PacketType, RawPacket
from driver.protocol.messages import DriveWheels
from driver.robot import Robot
from driver.samples import RobotStatus
from driver.sim.server import SimulatedCozmo


async def _connected() -> tuple[SimulatedCozmo, Robot, Link]:
    """A simulated robot over real UDP and a Robot connected to it, with its link."""
    sim = await SimulatedCozmo("127.0.0.1", 0, calibrate=False).start()
    robot = Robot(*sim.address)
    await robot.connect()
    link = robot.link
    assert link is not None
    return sim, robot, link


async def _arrivals(seconds: float, setup: Callable[[AnimationController], None] | None = None,
                    ) -> tuple[list[float], float, float, bool, bool]:
    """Loop times the robot's datagrams were taken in with the controller running (``setup``
    called on it before it starts), its clock origin and lead, and whether the socket was read as
    datagrams arrive before the controller started and after it stopped."""
    loop = asyncio.get_running_loop()
    sim, robot, link = await _connected()
    taken: list[float] = []
    link.tap = lambda sent, data: None if sent else taken.append(loop.time())
    try:
        await asyncio.sleep(0.3)
        before = len(taken) > 0 and link.input_clock is None
        ctl = AnimationController(robot, seed=3)
        if setup is not None:
            setup(ctl)
        ctl.start()
        try:
            await asyncio.sleep(0.2)
            taken.clear()
            await asyncio.sleep(seconds)
            during = list(taken)
        finally:
            await ctl.stop()
        taken.clear()
        await asyncio.sleep(0.3)
        after = len(taken) > 0 and link.input_clock is None
        origin = ctl.clock_origin
        assert origin is not None
        return during, origin, ctl.lead_s, before, after
    finally:
        await robot.disconnect()
        await sim.stop()


def test_the_robots_datagrams_are_taken_in_on_the_frame_ticks() -> None:
    during, origin, lead, before, after = asyncio.run(_arrivals(3.0))
    assert before and after, "without the controller's clock, datagrams are read as they arrive"
    assert len(during) >= 30 * 3.0 * 0.6, len(during)  # the robot's ~30 states a second, all read
    # Each read happens at a tick (origin + k/30 - lead), a little late at most. Read as they
    # arrive, the datagrams would fall anywhere in the frame: about a quarter within 8 ms.
    phase = [((t - (origin - lead)) % FRAME_S) for t in during]
    on_tick = sum(1 for p in phase if p < 0.008)
    assert on_tick >= 0.8 * len(during), sorted(round(p * 1000, 1) for p in phase)


def _reads(taken: list[float]) -> list[float]:
    """The times the socket was read: datagrams taken in within 5 ms of each other were one read."""
    reads: list[float] = []
    for t in taken:
        if not reads or t - reads[-1] > 0.005:
            reads.append(t)
    return reads


def test_a_dozing_clock_reads_every_third_slot_beside_a_still_robot_every_other_beside_a_moving_one() -> None:
    seconds = 3.0

    def still(ctl: AnimationController) -> None:  # a still face: the clock dozes throughout
        ctl.idle.still = True

    def driving(ctl: AnimationController) -> None:  # the clock dozes, but the wheels turn
        ctl.idle.still = True
        ctl.robot.send(DriveWheels(lwheel_speed_mmps=30.0, rwheel_speed_mmps=-30.0))

    def streaming(ctl: AnimationController) -> None:  # a frame every slot: it never dozes
        ctl.idle_silence = True

    resting, _, _, _, _ = asyncio.run(_arrivals(seconds, still))
    moving, _, _, _, _ = asyncio.run(_arrivals(seconds, driving))
    busy, _, _, _, _ = asyncio.run(_arrivals(seconds, streaming))
    slots = seconds / FRAME_S
    # every datagram is still taken in (the robot's ~30 a second), two to four at each read
    for taken in (resting, moving, busy):
        assert len(taken) >= 30 * seconds * 0.6, len(taken)
    resting_reads, moving_reads, busy_reads = _reads(resting), _reads(moving), _reads(busy)
    assert len(busy_reads) >= 0.8 * slots, len(busy_reads)
    assert 0.35 * slots <= len(moving_reads) <= 0.6 * slots, len(moving_reads)
    assert 0.25 * slots <= len(resting_reads) <= 0.38 * slots, len(resting_reads)

    def median_gap(reads: list[float]) -> float:
        gaps = sorted(b - a for a, b in itertools.pairwise(reads))
        return gaps[len(gaps) // 2]

    assert DOZING_READ_GAP_S <= median_gap(moving_reads) < STILL_READ_GAP_S, moving_reads  # two slots
    assert median_gap(resting_reads) >= STILL_READ_GAP_S, resting_reads  # three slots


def test_a_robot_is_still_until_told_to_move_and_again_once_its_states_show_it_stopped() -> None:
    async def main() -> list[bool]:
        sim, robot, _ = await _connected()
        seen: list[bool] = []
        try:
            await asyncio.sleep(0.5)
            seen.append(robot.still)  # at rest since it connected
            robot.drive_wheels(40.0, 40.0)
            seen.append(robot.still)  # told to move: not still before any state says so
            await asyncio.sleep(0.5)
            assert robot.state is not None and robot.state.status & RobotStatus.ARE_WHEELS_MOVING
            seen.append(robot.still)  # its states show the wheels turning
            robot.drive_wheels(0.0, 0.0)
            await asyncio.sleep(0.6)
            seen.append(robot.still)  # stopped, and its states say so
            action = robot.set_head_angle(0.3)
            seen.append(robot.still)  # an action in flight
            await asyncio.wait_for(action, 5.0)
            await asyncio.sleep(0.6)
            seen.append(robot.still)
        finally:
            await robot.disconnect()
            await sim.stop()
        return seen

    assert asyncio.run(main()) == [True, False, False, True, False, True]


def test_with_an_aligner_the_heartbeat_beats_on_the_aligned_schedule() -> None:
    ticks = 1.0 / 30.0

    def align(t: float) -> float:  # the next of a 30 Hz grid starting at 0.005 s
        return 0.005 + (int((t - 0.005) / ticks) + 1) * ticks

    async def main() -> list[float]:
        loop = asyncio.get_running_loop()
        beats: list[float] = []
        polled: list[float] = []
        hb = Heartbeat(None, rate_hz=10.0, clock=loop.time)
        hb.align = align
        hb.before_beat = lambda: polled.append(loop.time())
        hb.subscribe("snapshot", lambda snap: beats.append(loop.time()))
        await asyncio.sleep(0.0123)
        await hb.run(asyncio.Event(), duration=1.0)
        assert polled == beats  # the input is read first thing in every beat
        return beats

    beats = run_virtual(main())
    assert len(beats) >= 9
    assert abs(beats[0] - 0.0123) < 1e-4  # the first beat at once
    start = align(0.0123 + 0.1)
    for k, t in enumerate(beats[1:]):
        assert abs(t - (start + k * 0.1)) < 1e-4, (k, t)  # on the virtual clock's resolution
        on_grid = (t - 0.005) / ticks
        assert abs(on_grid - round(on_grid)) * ticks < 1e-4


def test_the_links_pings_and_acks_wait_for_the_next_read_and_share_its_wake_up() -> None:
    """Reading on the clock, the link's own timer (a ping twice a second, an ack owed) is moved to
    the read at most a slot after its deadline: no wake-up of its own."""

    async def main() -> tuple[list[float], list[float]]:
        loop = asyncio.get_running_loop()
        sim, robot, link = await _connected()
        reads: list[float] = []
        timers: list[float] = []
        real_poll, real_timer = link._on_poll_timer, link._on_timer

        def poll() -> None:
            reads.append(loop.time())
            real_poll()

        def timer() -> None:
            now = loop.time()
            poll = link._poll_timer
            if poll is not None and poll.when() <= now + 0.001:
                reads.append(now)  # the read due in this wake-up: the timer's callback takes it in first
            timers.append(now)
            real_timer()

        link._on_poll_timer = poll  # type: ignore[method-assign]
        link._on_timer = timer  # type: ignore[method-assign]
        ctl = AnimationController(robot, seed=3)
        ctl.idle.still = True  # the clock dozes: reads every third slot (a still robot), from the read timer
        ctl.start()
        try:
            await asyncio.sleep(3.0)
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()
        return reads, timers

    reads, timers = asyncio.run(main())
    assert len(timers) >= 4, timers  # pings at least
    # A ping armed before the clock started may keep its time (re-arming within _REARM_S leaves a
    # timer be): the timer wake-ups before the clock's third read are not counted. Of the rest, one
    # may come alone on a loaded machine: a read that ran late reckons the next from its own time,
    # and a deadline just after it may then be more than three slots before that read.
    if len(reads) >= 3:
        timers = [t for t in timers if t > reads[2]]
    assert len(timers) >= 3, timers
    alone = [t for t in timers if not any(abs(t - r) < 0.001 for r in reads)]
    assert len(alone) <= 1, f"{len(alone)} of {len(timers)} link timer wake-ups away from a read: {alone}"


def test_an_ack_waiting_unread_when_the_links_timer_fires_is_taken_in_before_anything_is_resent() -> None:
    """Reading on a clock, a packet's ack may sit in the socket when the retransmission deadline
    comes before the next read: the timer reads first, so nothing is sent twice."""
    async def main() -> tuple[int, int]:
        got: list[bytes] = []
        robot_end = await Link.open(Role.ROBOT, ("127.0.0.1", 0), name="robot-end",
                                    on_packet=lambda p: got.append(p.body))
        engine = await Link.open(Role.ENGINE, ("127.0.0.1", 0), peer=("127.0.0.1", robot_end.local_address[1]),
                                 name="engine-end")
        try:
            await engine.connect(timeout=2.0)
            engine.input_clock = lambda t: t + 1.0  # reads far apart: the deadline comes first
            await asyncio.sleep(0.05)
            engine.send(RawPacket(PacketType.COMMAND, bytes([0x42, 7])))
            await asyncio.sleep(0.6)  # the ack came within a few ms; the timeout is 50-100 ms
            return engine.session.stats.resent_packets, len(got)
        finally:
            engine.close()
            robot_end.close()

    resent, delivered = asyncio.run(main())
    assert delivered == 1
    assert resent == 0
