"""shouldResumeLast: a reaction suspends the tree and hands it back where it was, or lets it start over."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from py_trees.common import Status

from brain.context import BrainContext, TimedAnimations
from brain.nodes.reactions import ReactionRunner, ReactiveRoot, branch_of
from brain.personality import iter_tree, load_personality
from driver import events as ev

from .conftest import REPO

CHORES = """\
root:
  type: sequence
  name: chores
  children:
    - {type: wait, name: first step, params: {seconds: 1}}
    - {type: play_animation, name: dance, params: {trigger: Happy}}
    - type: timeout
      name: limit
      params: {seconds: 4}
      child: {type: wait, name: long step, params: {seconds: 3}}
    - {type: play_animation, name: finale, params: {trigger: Finale}}
reactions:
  Poked: {type: wait, params: {seconds: 2}, shouldResumeLast: true, priority: 10}
  CubeTapped: {type: wait, params: {seconds: 2}, shouldResumeLast: false, priority: 10}
  RobotPickedUp: {type: wait, params: {seconds: 1}, priority: 50}
"""


class Brain:
    """The brain's root over a personality, on a clock the test moves (0.1 s per beat)."""

    def __init__(self, tmp_path: Path, text: str = CHORES) -> None:
        self.t = 0.0
        self.ctx = BrainContext(robot=None, clock=lambda: self.t, rng=random.Random(0))
        self.anims = TimedAnimations(self.ctx.clock, duration_s=1.0)
        self.ctx.animations = self.anims
        path = tmp_path / "p.yaml"
        path.write_text(text)
        self.personality = load_personality(path, self.ctx)
        self.runner = ReactionRunner(self.ctx)
        self.root = ReactiveRoot("Brain", self.runner, self.ctx)
        self.root.set_tree(self.personality.root)
        self.reactions = {r.trigger: r for r in self.personality.reactions}
        self.root.tick_once()

    def node(self, name: str) -> Any:
        return next(n for n in iter_tree(self.personality.root) if n.name == name)

    def until(self, t: float) -> None:
        while self.t < t - 1e-9:
            self.t = round(self.t + 0.1, 6)
            self.root.tick_once()

    def react(self, trigger: str) -> bool:
        taken = self.runner.offer(self.reactions[trigger])
        self.root.tick_once()
        return taken

    @property
    def branch(self) -> str:
        return branch_of(self.personality.root)

    def played(self) -> list[str]:
        return [name for kind, name in self.anims.played if kind == "trigger"]


def test_resume_keeps_the_sequence_step_and_replays_the_interrupted_animation(tmp_path: Path) -> None:
    b = Brain(tmp_path)
    b.until(1.5)
    assert b.branch == "chores > dance" and b.played() == ["Happy"]
    assert b.react("Poked")
    assert b.root.suspended_at == 1.5 and b.node("dance").status is Status.INVALID  # the play was cancelled
    assert b.personality.root.status is Status.RUNNING  # suspended, not reset
    b.until(3.5)  # the 2 s reaction ends: the tree resumes on that same beat
    assert b.runner.active is None and (b.root.resumes, b.root.restarts) == (1, 0)
    assert b.root.last_resumed == "chores > dance"
    assert b.branch == "chores > dance" and b.played() == ["Happy", "Happy"]  # replayed, first step not rerun
    b.until(4.6)
    assert b.branch == "chores > limit > long step"


def test_a_wait_continues_and_timeouts_do_not_count_the_time_away(tmp_path: Path) -> None:
    b = Brain(tmp_path)
    b.until(3.0)  # long step began at 2.0: 3 s, inside a 4 s timeout
    assert b.branch == "chores > limit > long step"
    assert b.react("Poked")
    assert b.node("long step").status is Status.RUNNING  # a wait is not stopped, only paused
    b.until(5.0)  # resumed: 2 s of the wait are left, the timeout moved on by the 2 s away
    assert b.root.resumes == 1 and b.branch == "chores > limit > long step"
    b.until(6.5)  # past the unshifted timeout (6.0): still waiting, no failure
    assert b.personality.root.status is Status.RUNNING and b.branch == "chores > limit > long step"
    b.until(7.0)
    assert b.played()[-1] == "Finale" and b.branch == "chores > finale"


def test_without_resume_the_tree_starts_over_from_its_top(tmp_path: Path) -> None:
    b = Brain(tmp_path)
    b.until(1.5)
    assert b.react("CubeTapped")
    b.until(3.5)
    assert (b.root.resumes, b.root.restarts) == (0, 1)
    assert b.branch == "chores > first step" and b.played() == ["Happy"]


def test_a_more_important_reaction_decides_and_a_less_important_one_waits(tmp_path: Path) -> None:
    b = Brain(tmp_path)
    started: list[str] = []
    b.runner.on_start.append(lambda reaction: started.append(reaction.trigger))
    b.until(1.5)
    assert b.react("Poked")
    b.until(2.0)
    assert b.react("RobotPickedUp")  # higher priority: replaces the poke reaction, which is dropped
    assert b.runner.active.trigger == "RobotPickedUp" and b.runner.pending is None
    assert not b.runner.offer(b.reactions["RobotPickedUp"])  # the same trigger again is ignored
    assert not b.runner.offer(b.reactions["Poked"])  # less important: waits for its turn
    assert b.runner.pending is b.reactions["Poked"]
    b.until(3.0)  # the pick-up reaction (no resume) ends: the tree is reset, the poke reaction starts
    assert b.root.restarts == 1 and b.runner.active.trigger == "Poked"
    assert b.personality.root.status is Status.INVALID
    b.until(5.0)  # nothing was suspended by the poke reaction: the tree starts from its top
    assert b.runner.active is None and b.branch == "chores > first step"
    assert started == ["Poked", "RobotPickedUp", "Poked"] and b.runner.handled == 3


def test_a_waiting_reaction_expires(tmp_path: Path) -> None:
    b = Brain(tmp_path)
    b.runner.pending_ttl_s = 0.5
    assert b.react("RobotPickedUp")
    assert not b.runner.offer(b.reactions["Poked"])
    b.until(1.5)
    assert b.runner.active is None and b.runner.pending is None and b.runner.handled == 1


def test_sleep_keeps_sleeping_through_a_reaction_and_wakes_on_its_event(tmp_path: Path) -> None:
    b = Brain(tmp_path, """\
root:
  type: sequence
  name: night
  children:
    - {type: sleep, name: asleep, params: {wake_on: [poked]}}
    - {type: play_animation, name: wake up, params: {trigger: WakeUp}}
reactions:
  Poked: {type: play_animation, params: {trigger: Giggle}, shouldResumeLast: true}
""")
    b.until(5.0)
    assert b.branch == "night > asleep"
    b.ctx.push_event(ev.Poked(b.t))
    assert b.react("Poked")
    assert b.node("asleep").status is Status.RUNNING
    b.until(6.0)
    played = b.played()
    assert "GoToSleepSleeping" in played[1:played.index("Giggle")]  # breathing once the get-in was done
    assert [p for p in played if p != "GoToSleepSleeping"] == ["GoToSleepGetIn", "Giggle", "WakeUp"]
    assert b.branch == "night > wake up"


# ----------------------------------------------------------------------------- the daemon

PROBE = """\
name: resume probe
root:
  type: sequence
  name: chores
  children:
    - {type: wait, name: first step, params: {seconds: 0.8}}
    - {type: look_around, name: glancing, params: {seconds: 3}}
    - {type: wait, name: final, params: {seconds: 30}}
reactions:
  ReturnedToTreads:
    priority: 80
    shouldResumeLast: RESUME
    tree:
      type: sequence
      children:
        - {type: face, params: {expression: surprised}}
        - {type: wait, params: {seconds: 0.5}}
"""


@pytest.mark.e2e
def test_run_resumes_what_a_put_down_reaction_interrupted(tmp_path: Path) -> None:
    """The real daemon against the simulator: picked up and put down while glancing around."""
    procs = {}
    for resume in ("true", "false"):
        folder = tmp_path / resume
        folder.mkdir()
        (folder / "p.yaml").write_text(PROBE.replace("RESUME", resume))
        # The tree starts once the robot has calibrated (about 1.3 s into the timeline); glancing
        # then runs from about 2.1 s to 5.1 s.
        (folder / "s.yaml").write_text("- {at: 3.3, event: pick_up, for: 0.4}\n")
        args = [sys.executable, "-m", "brain", "run", "--sim", "--no-vision", "--duration", "7",
                "--personality", "p.yaml", "--sim-script", "s.yaml", "--resources", str(REPO / "resources")]
        procs[resume] = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=folder)
    logs = {}
    for resume, proc in procs.items():
        _, logs[resume] = proc.communicate(timeout=60)
        assert proc.returncode == 0, logs[resume]

    log = logs["true"]
    assert "reaction ReturnedToTreads suspends chores > glancing (stopped glancing)" in log
    assert "resuming chores > glancing after" in log
    after = log[log.index("reaction ReturnedToTreads finished"):]
    assert "doing chores > glancing" in after  # back to the interrupted step, its look-around restarted
    assert "first step" not in after and log.count("doing chores > first step") == 1

    log = logs["false"]
    assert "starting over (reaction ReturnedToTreads does not resume chores > glancing)" in log
    after = log[log.index("reaction ReturnedToTreads finished"):]
    assert "doing chores > first step" in after
