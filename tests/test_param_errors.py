"""Every kind of node parameter refuses bad input at its file, line and field, saying what it expected.

One personality holds a bad value of each kind a node parameter may have (whole numbers, bounds,
booleans, event values, choices, names, lists, triggers, ranges, times of day, graphs, scores,
colours); ``cozmo-brain check`` must report each at its own line, in one run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .conftest import REPO

BAD = [  # (the node, the error after "<file>:<line>: root.children[i].")
    ("{type: repeat, params: {count: 2.5}, child: {type: running}}",
     "params.count: expected a whole number, got 2.5"),
    ("{type: retry, params: {count: 0}, child: {type: running}}",
     "params.count: expected a number >= 1, got 0"),
    ('{type: sequence, params: {memory: "yes"}, children: [{type: running}]}',
     "params.memory: expected true or false, got 'yes'"),
    ("{type: recent_event, params: {kind: poked, value: [1]}}",
     "params.value: expected true, false, null or a name, got [1]"),
    ("{type: parallel, params: {policy: sometimes}, children: [{type: running}]}",
     "params.policy: expected one of success_on_all, success_on_one, got 'sometimes'"),
    ("{type: play_animation, params: {trigger: no}}",
     "params.trigger: expected a non-empty string, got False (YAML reads a bare on, off, yes or no as true or "
     "false: put the name in quotes)"),
    ("{type: play_random_animation, params: {triggers: [Sleepy, 3]}}",
     "params.triggers[1]: expected a string, got 3"),
    ("{type: play_random_animation, params: {triggers: [Sleepy], weights: [1, x]}}",
     "params.weights[1]: expected a number, got 'x'"),
    ("{type: sleep, params: {wake_on: [pokes]}}",
     "params.wake_on[0]: expected one of anim_buffer_full, "),
    ("{type: sleep, params: {get_in: [{animTrigger: 3}]}}",
     "params.get_in[0]: expected an animation trigger name, got {'animTrigger': 3}"),
    ("{type: look_around, params: {head_range_deg: [30, 10]}}",
     "params.head_range_deg: expected low <= high, got [30, 10]"),
    ("{type: look_around, params: {turn_range_deg: [10]}}",
     "params.turn_range_deg: expected a [low, high] pair, got [10]"),
    ('{type: time_of_day, params: {from: "25:00", to: "07:00"}}',
     "params.from: expected a time of day as HH:MM (00:00 to 23:59), got '25:00'"),
    ("{type: scoring, params: {repetition_penalty: [[0, 1], [1]]}, children: [{type: running, score: {flat_score: 1"
     "}}]}",
     "params.repetition_penalty[1]: expected an [x, y] point, got [1]"),
    ("{type: scoring, children: [{type: running, score: {flat_scor: 1}}]}",
     "children[0].score.flat_scor: unknown key 'flat_scor'; expected emotions, flat_score, repetition_penalty"),
    ('{type: scoring, children: [{type: running, score: {emotions: {Happy: [[0, 1], [1, "a"]]}}}]}',
     "children[0].score.emotions.Happy[1]: expected a number, got 'a'"),
    ("{type: scoring, children: [{type: running, score: {}}]}",
     "children[0].score: a score needs emotions or a flat_score"),
    ("{type: scoring, children: [{type: running, score: {emotions: [Happy]}}]}",
     "children[0].score.emotions: expected a mapping of emotion type to graph, got a list"),
    ('{type: scoring, children: [{type: running, score: {flat_score: "high"}}]}',
     "children[0].score.flat_score: expected a number, got 'high'"),
    ("{type: scoring, params: {running_bonus: {nodes: [{x: 0}]}}, children: [{type: running, score: {flat_score: 1"
     "}}]}",
     'params.running_bonus: expected a graph: nodes[0]: missing "y"'),
    ("{type: backpack_lights, params: {colors: [red, blue]}}",
     "params.colors: expected 1, 3 or 5 colours, got 2"),
    ("{type: set_head_angle, params: {degrees: .nan}}",
     "params.degrees: expected a number, got nan"),
]
FIRST_LINE = 5  # the first child's line in the file below


def test_each_kind_of_bad_parameter_is_refused_at_its_line_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nroot:\n  type: selector\n  children:\n"
                   + "".join(f"    - {node}\n" for node, _ in BAD))
    done = subprocess.run([sys.executable, "-m", "brain", "check", "--resources", str(REPO / "resources"),
                           "--personality", str(bad)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    for i, (_, error) in enumerate(BAD):
        assert f"  error: {bad}:{FIRST_LINE + i}: root.children[{i}].{error}" in out, f"child {i}:\n{out}"
    assert f"Personality {bad} ({len(BAD)} issues)" in out
