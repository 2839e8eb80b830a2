"""The link's one timer wakes the process only when the session has something due.

Every wake-up of a daemon costs far more than the work it then does, so the timer follows the
session's next deadline both ways: a deadline that moves later (an ack took the packet whose
resend was due next) moves the timer with it. Checked on the virtual clock over the in-memory
network while the controller plays clips, whose frames are sequenced, acked and released on time.
"""

from __future__ import annotations

import asyncio

from brain.app.virtual_time import run_virtual
from driver import link as link_module
from driver.animation.clip import Clip, HeadAngle, ProceduralFace
from driver.animation.controller import AnimationController
from driver.memlink import MemoryNetwork
from driver.robot import Robot
from driver.sim.server import SimulatedCozmo

CLIP = Clip("nod", head_angle=(HeadAngle(0, 300, 20), HeadAngle(300, 300, -10)),
            procedural_face=(ProceduralFace(0), ProceduralFace(400, face_center_x=15.0)))


def test_the_link_timer_never_wakes_the_process_for_nothing() -> None:
    async def main() -> list[tuple[float, float | None]]:
        loop = asyncio.get_running_loop()
        net = MemoryNetwork(latency_s=0.002)
        sim = await SimulatedCozmo("127.0.0.1", 5552, calibrate=False).start(open_link=net.open_link)
        robot = Robot("127.0.0.1", 5552)
        await robot.connect(open_link=net.open_link)
        link = robot.link
        assert link is not None
        fired: list[tuple[float, float | None]] = []  # (when it fired, the session's deadline then)
        on_timer = link._on_timer

        def watched() -> None:
            fired.append((loop.time(), link.session.next_timer()))
            on_timer()

        link._on_timer = watched  # type: ignore[method-assign]
        ctl = AnimationController(robot, seed=5, release="loop")
        try:
            ctl.start()
            end = loop.time() + 20.0
            while loop.time() < end:
                await ctl.play(CLIP)
            return fired
        finally:
            await ctl.stop()
            await robot.disconnect()
            await sim.stop()

    fired = run_virtual(main())
    assert len(fired) >= 30  # it does wake: the pings, every 0.5 s, at least
    early = [(t, due) for t, due in fired if due is None or due > t + link_module._REARM_S]
    assert early == [], f"{len(early)} of {len(fired)} wake-ups found nothing due"
