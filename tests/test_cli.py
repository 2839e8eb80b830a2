"""The command line as users run it (``python -m brain …`` in a subprocess): --version, -v/-q on either
side of the subcommand, journald logging, and commands that find nothing to do."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import version
from pathlib import Path

import pytest

import brain

from .conftest import REPO

STAMP = re.compile(r"^\d\d:\d\d:\d\d ")


def cli(*argv: str, cwd: Path, env: dict[str, str] | None = None, stderr: int | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``python -m brain`` from ``cwd`` with no user settings (an empty HOME and XDG_CONFIG_HOME).

    Standard error is captured, or goes to the file descriptor ``stderr``.
    """
    full_env = {k: v for k, v in os.environ.items() if k not in ("JOURNAL_STREAM", "XDG_CONFIG_HOME")}
    full_env.update({"HOME": str(cwd), "XDG_CONFIG_HOME": str(cwd / "xdg"), "PYTHONPATH": str(REPO)})
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "brain", *argv], cwd=cwd, env=full_env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE if stderr is None else stderr, text=True, timeout=timeout)


def test_version(tmp_path):
    proc = cli("--version", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout == f"cozmo-brain {brain.__version__}\n"
    assert brain.__version__ == version("cozmo-brain")  # the build reads the same number


@pytest.mark.e2e
def test_verbose_before_or_after_the_subcommand_adds_a_line_per_beat(tmp_path):
    def run(*argv: str) -> str:
        proc = cli(*argv, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        return proc.stderr

    def beats(log: str) -> int:
        return len(re.findall(r"DEBUG   cozmo_brain: beat \d+: ", log))

    sim = ("run", "--sim", "--duration", "1")
    # four daemons, each with a simulator on a port of its own, run side by side
    with ThreadPoolExecutor(4) as pool:
        plain, after, before, split = pool.map(lambda argv: run(*argv),
                                               (sim, (*sim, "-v"), ("-v", *sim), ("-v", *sim, "--verbose")))
    assert "INFO    cozmo_brain: running default.yaml" in plain and beats(plain) == 0 and "DEBUG" not in plain
    for log in (after, before):
        assert beats(log) >= 5  # one line per beat at 10 Hz
        assert "DEBUG   driver." not in log  # -v is the personality's detail, not the driver's
    assert beats(split) >= 5 and "DEBUG   driver." in split  # one -v on each side adds up to -vv: every part


@pytest.mark.e2e
def test_quiet_before_or_after_the_subcommand_keeps_warnings_only(tmp_path):
    clips = tmp_path / "clips"
    clips.mkdir()
    (clips / "garbage.bin").write_bytes(b"not a clip file")
    (clips / "ok.bin").write_bytes((REPO / "resources/cozmo_resources/assets/animations/blink.bin").read_bytes())
    plain = cli("anim", "--resources", str(clips), "list", cwd=tmp_path)
    assert " INFO " in plain.stderr
    for argv in (("-q", "anim", "--resources", str(clips), "list"), ("anim", "--resources", str(clips), "-q", "list")):
        proc = cli(*argv, cwd=tmp_path)
        assert proc.returncode == 0 and proc.stdout == plain.stdout and "anim_blink_01" in proc.stdout
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and "WARNING driver.animation.index: skipping animation file" in lines[0]


def test_contradicting_verbosity_is_a_usage_error(tmp_path):
    proc = cli("-q", "check", "-v", cwd=tmp_path)
    assert proc.returncode == 2 and "-v and -q contradict each other" in proc.stderr


def _journal_run(tmp_path: Path, *argv: str, matching: bool) -> list[str]:
    """Run with stderr to a file, JOURNAL_STREAM naming that file (or another one); the lines written."""
    log_file = tmp_path / "stderr.log"
    with log_file.open("w") as err:
        st = os.fstat(err.fileno()) if matching else os.stat(tmp_path)
        cli(*argv, cwd=tmp_path, env={"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}"}, stderr=err.fileno())
    return log_file.read_text().splitlines()


def test_logs_for_journald_have_priorities_and_no_time_stamps(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: broken\nroot: {type: no_such_node}\n")
    lines = _journal_run(tmp_path, "tree", "--personality", str(broken), matching=True)
    assert lines and all(re.match(r"<[0-7]>", line) for line in lines), lines
    assert not any(STAMP.match(line[3:]) for line in lines)
    assert "<6>INFO brain.app.config: settings: " in lines[0]
    errors = [line for line in lines if line.startswith("<3>")]
    # a multi-line error keeps its priority on every line, so `journalctl -p err` shows all of it
    assert errors[0].startswith(f"<3>ERROR brain.app.tree: {broken} is not a valid personality:")
    assert len(errors) >= 2 and any("no_such_node" in line for line in errors[1:])
    assert all(line.startswith(("<3>", "<6>")) for line in lines)


def test_warnings_in_the_journal_have_priority_4(tmp_path):
    clips = tmp_path / "clips"
    clips.mkdir()
    (clips / "garbage.bin").write_bytes(b"not a clip file")
    (clips / "ok.bin").write_bytes((REPO / "resources/cozmo_resources/assets/animations/blink.bin").read_bytes())
    lines = _journal_run(tmp_path, "anim", "--resources", str(clips), "list", matching=True)
    warnings = [line for line in lines if line.startswith("<4>")]
    assert len(warnings) == 1 and "WARNING driver.animation.index: skipping animation file " in warnings[0]
    assert all(line.startswith(("<4>", "<6>")) for line in lines), lines


def test_without_a_matching_journal_stream_the_terminal_format_stays(tmp_path):
    lines = _journal_run(tmp_path, "anim", "--resources", str(tmp_path), "list", matching=False)
    assert lines and all(STAMP.match(line) for line in lines), lines
    error = re.compile(r"\d\d:\d\d:\d\d ERROR   brain\.app\.anim: no animation clips found in ")
    assert any(error.match(line) for line in lines)


def test_anim_list_shows_each_clip_once_without_warnings(tmp_path):
    # resources/ holds each clip's .cozanim source beside the .bin built from it: one clip each
    proc = cli("anim", "--resources", str(REPO / "resources"), "list", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    names = proc.stdout.split()
    sources = len(list((REPO / "resources" / "src" / "animations").glob("*.cozanim")))
    assert len(names) == sources == len(set(names)) and "anim_blink_01" in names
    assert "WARNING" not in proc.stderr and "already defined" not in proc.stderr
    assert f"{sources} sources beside their build" in proc.stderr


def test_anim_list_with_no_clips_says_so_and_fails(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = cli("anim", "--resources", str(empty), "list", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout == ""
    assert f"no animation clips found in {empty}" in proc.stderr


@pytest.mark.e2e
def test_run_and_simulate_take_a_personality_by_name(tmp_path):
    proc = cli("run", "--sim", "--duration", "0.5", "--personality", "playful", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "cozmo_brain: running playful.yaml" in proc.stderr
    proc = cli("simulate", "--hours", "0.002", "--personality", "sleepy", "--seed", "1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"simulating \S+/sleepy\.yaml for 0\.002 h", proc.stderr), proc.stderr
    proc = cli("run", "--sim", "--personality", "grumpy", cwd=tmp_path)
    assert proc.returncode == 1 and "no personality named 'grumpy'" in proc.stderr
