"""The personality's ``reactions:`` section: its short forms load, and each kind of mistake is named
at its file, line and key by ``cozmo-brain check`` (one run reports them all)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from brain.assets.resource_set import ResourceSet
from brain.context import BrainContext
from brain.personality import load_personality

from .conftest import REPO

RESOURCES = REPO / "resources"

BAD = """\
name: r
reactions:
  Poked: [ReactToPoke]
  CubeTapped: {behavior: ReactToCubeTap, prio: 3}
  ButtonPressed: {behavior: GreetFace, priority: high}
  ReturnedToTreads: {behavior: ReactToPutDown, shouldResumeLast: "yes"}
  RobotFalling: {behavior: ReactToFalling, event: falling}
  SomethingNew: {behavior: ReactToPoke}
  Custom: {behavior: ReactToPoke, event: {kind: pokedd, value: true}}
  RobotOnBack: {tree: {type: sequence, children: [{type: play_animation, params: {trigger: 7}}]}}
  Unmapped: {event: {kind: poked, value: true}}
root: {type: running}
"""


def _check(cwd: Path, personality: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "brain", "check", "--resources", str(RESOURCES),
                           "--personality", str(personality)], capture_output=True, text=True, timeout=120, cwd=cwd)


def test_each_kind_of_bad_reaction_entry_is_named_at_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "r.yaml"
    bad.write_text(BAD)
    done = _check(tmp_path, bad)
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    expected = [
        "error: {f}:3: reactions.Poked: expected a behaviour ID or a mapping, got ['ReactToPoke']",
        "error: {f}:4: reactions.CubeTapped.prio: unknown key; did you mean 'priority'?",
        "error: {f}:5: reactions.ButtonPressed.priority: expected a number, got 'high'",
        "error: {f}:6: reactions.ReturnedToTreads.shouldResumeLast: expected true or false, got 'yes'",
        "error: {f}:7: reactions.RobotFalling.event: expected {{kind: <event kind>, value: true|false|null|<name>}}, "
        "got 'falling'",
        "warning: {f}:8: reactions.SomethingNew: no robot event fires reaction trigger 'SomethingNew'; "
        "give `event: {{kind: …}}`",
        "error: {f}:9: reactions.Custom.event.kind: unknown robot event kind 'pokedd'; did you mean 'poked'?",
        "error: {f}:10: reactions.RobotOnBack.tree.children[0].params.trigger: expected a non-empty string, got 7",
        "error: {f}:11: reactions.Unmapped: no behaviour for reaction 'Unmapped': give behavior, use or tree "
        "(the resource set maps none)",
    ]
    for line in expected:
        assert "  " + line.format(f=bad) in out, out
    assert f"Personality {bad} ({len(expected)} issues)" in out

    whole = tmp_path / "r2.yaml"
    whole.write_text("name: r2\nreactions: [ReactToCliff]\nroot: {type: running}\n")
    done = _check(tmp_path, whole)
    assert done.returncode == 1
    out = done.stdout
    assert f"  error: {whole}:2: reactions: expected a mapping of trigger: reaction, got ['ReactToCliff']" in out
    assert f"Personality {whole} (1 issue)" in out


def test_a_behaviour_id_alone_or_nothing_at_all_is_a_reaction(tmp_path: Path) -> None:
    """``Trigger: BehaviourID`` runs that behaviour; ``Trigger:`` with nothing runs the resource set's."""
    short = tmp_path / "short.yaml"
    short.write_text("name: short\nreactions:\n  CliffDetected: ReactToCliff\n  RobotPickedUp:\n"
                     "  Poked: {behavior: ReactToPoke, priority: 7, shouldResumeLast: true}\nroot: {type: running}\n")
    resources = ResourceSet.load([RESOURCES])
    personality = load_personality(short, BrainContext(resources=resources))
    got = {r.trigger: r for r in personality.reactions}
    assert set(got) == {"CliffDetected", "RobotPickedUp", "Poked"}
    assert got["CliffDetected"].root.name == "ReactToCliff"
    mapped = resources.reactions_for("RobotPickedUp")[0].behavior_id
    assert got["RobotPickedUp"].root.name == mapped
    assert (got["Poked"].priority, got["Poked"].should_resume_last) == (7, True)
    assert [r.trigger for r in personality.reactions][0] == "Poked"  # the most important first
