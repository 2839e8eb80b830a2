"""The personality's ``behaviors:`` section: the behaviours it uses, with their parameters, checked
against each class's declaration where they are written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from brain.assets.resource_set import ResourceSet
from brain.context import BrainContext
from brain.nodes.cube_play import TapGame
from brain.nodes.guard_dog import GuardDog
from brain.nodes.peekaboo import PeekABooGame
from brain.personality import load_personality

from .conftest import REPO

RESOURCES = REPO / "resources"


def _check(cwd: Path, personality: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "brain", "check", "--resources", str(RESOURCES),
                           "--personality", str(personality)], capture_output=True, text=True, timeout=120, cwd=cwd)


def _nodes(root: object, kind: type) -> list[object]:
    out, todo = [], [root]
    while todo:
        node = todo.pop()
        if isinstance(node, kind):
            out.append(node)
        todo.extend(getattr(node, "children", []))
        if getattr(node, "decorated", None) is not None:
            todo.append(node.decorated)  # type: ignore[attr-defined]
    return out


def test_entries_override_a_resource_behaviour_make_new_ones_and_nodes_override_them(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text(
        "name: base\n"
        "behaviors:\n"
        "  TapGame: {rounds: 5, window_s: 0.8}\n"
        "  QuickPeek: {class: PeekABoo, maxTimesPeekBeforeQuit: 1}\n"
        "  WatchfulDog: {like: GuardDog, minCubes: 2}\n"
        "root:\n"
        "  type: selector\n"
        "  children:\n"
        "    - {behavior: TapGame, params: {rounds: 2}}\n"
        "    - {behavior: TapGame}\n"
        "    - {behavior: QuickPeek}\n"
        "    - {behavior: WatchfulDog}\n")
    (tmp_path / "child.yaml").write_text("extends: base.yaml\nbehaviors:\n  TapGame: {rounds: 7}\n")
    ctx = BrainContext(resources=ResourceSet.load([RESOURCES]))
    base = load_personality(tmp_path / "base.yaml", ctx)
    games = sorted(_nodes(base.root, TapGame), key=lambda g: g.v["rounds"])  # type: ignore[attr-defined]
    assert [(g.v["rounds"], g.v["window_s"]) for g in games] == [(2, 0.8), (5, 0.8)]  # type: ignore[attr-defined]
    assert games[0].v["finalEmotionEvent"] == "PlayedTapGame"  # type: ignore[attr-defined]  # the JSON's own
    (dog,) = _nodes(base.root, GuardDog)
    assert dog.v["minCubes"] == 2 and dog.v["finalEmotionEvent"] == "PlayedGuardDog"  # type: ignore[attr-defined]
    assert _nodes(base.root, PeekABooGame)
    # a child file replaces an entry as a whole, entry by entry
    child = load_personality(tmp_path / "child.yaml", ctx)
    games = sorted(_nodes(child.root, TapGame), key=lambda g: g.v["rounds"])  # type: ignore[attr-defined]
    assert [(g.v["rounds"], g.v["window_s"]) for g in games] == [(2, 1.2), (7, 1.2)]  # type: ignore[attr-defined]


def test_a_bad_entry_is_refused_at_its_line_and_field_used_or_not(tmp_path: Path) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text(
        "name: mine\n"
        "behaviors:\n"
        "  TapGame: {rounds: 0}\n"                           # 3: used below
        "  Spare: {class: PeekABo}\n"                        # 4: unused, still checked
        "  Copy: {like: Nope}\n"                             # 5
        "  Odd: {class: TapGame, roundz: 3}\n"               # 6: a warning, never refused
        "  Both: {class: TapGame, like: TapGame}\n"          # 7
        "root:\n"
        "  type: selector\n"
        "  children:\n"
        "    - {behavior: TapGame}\n"
        "    - {behavior: Unheard}\n")                       # 12
    done = _check(tmp_path, mine)
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert f"{mine}:3: behaviors.TapGame.rounds: behaviour 'TapGame' (TapGame): expected a number >= 1, got 0" in out
    assert f"{mine}:4: behaviors.Spare.class: unknown behaviour class 'PeekABo'; did you mean 'PeekABoo'?" in out
    assert f"{mine}:5: behaviors.Copy.like: unknown behaviour 'Nope'" in out
    assert f"warning: {mine}:6: behaviors.Odd.roundz: TapGame does not read 'roundz'; did you mean 'rounds'?" in out
    assert f"{mine}:7: behaviors.Both.like: give `class` or `like`, not both" in out
    assert f"{mine}:12: root.children[1].behavior: unknown behaviour 'Unheard'" in out
    assert out.count("behaviors.TapGame.rounds") == 1
