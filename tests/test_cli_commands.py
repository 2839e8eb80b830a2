"""``tree`` and ``anim`` through the command line, as a user runs them (``python -m brain …``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from .conftest import REPO

RESOURCES = str(REPO / "resources")
DEFAULT = str(REPO / "trees" / "default.yaml")


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "brain", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd)


def test_tree_ascii_shows_the_default_personality(tmp_path: Path) -> None:
    proc = _cli(tmp_path, "tree", "--personality", DEFAULT, "--resources", RESOURCES)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("personality: default")
    assert "[o] freeplay" in proc.stdout and "needs" in proc.stdout and "idle" in proc.stdout


def test_tree_dot_to_a_file(tmp_path: Path) -> None:
    out = tmp_path / "default.dot"
    proc = _cli(tmp_path, "tree", "--personality", DEFAULT, "--resources", RESOURCES, "--format", "dot",
                "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""  # written to the file, not to standard output
    text = out.read_text()
    assert text.startswith("digraph default {") and text.rstrip().endswith("}")
    assert "freeplay" in text and "needs" in text
    assert text.count("->") >= 10  # a tree, not a lone node


def test_tree_svg_to_a_file_or_a_clear_error_without_graphviz(tmp_path: Path) -> None:
    out = tmp_path / "default.svg"
    proc = _cli(tmp_path, "tree", "--personality", DEFAULT, "--resources", RESOURCES, "--format", "svg",
                "--out", str(out))
    if shutil.which("dot") is None:
        assert proc.returncode == 1
        assert "needs Graphviz's `dot`" in proc.stderr
        assert not out.exists()
    else:
        assert proc.returncode == 0, proc.stderr
        assert "<svg" in out.read_text() and "freeplay" in out.read_text()


def test_anim_list_names_every_clip_once(tmp_path: Path) -> None:
    proc = _cli(tmp_path, "anim", "--resources", RESOURCES, "list")
    assert proc.returncode == 0, proc.stderr
    names = proc.stdout.split()
    sources = len(list((REPO / "resources" / "src" / "animations").glob("*.cozanim")))
    assert len(names) == sources == len(set(names))
    assert names == sorted(names) and "anim_blink_01" in names


def test_anim_show_describes_the_tracks(tmp_path: Path) -> None:
    proc = _cli(tmp_path, "anim", "--resources", RESOURCES, "show", "anim_blink_01")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "anim_blink_01: 500 ms"
    assert "procedural_face: 4 keyframes" in proc.stdout


def test_anim_show_unknown_clip_is_an_error(tmp_path: Path) -> None:
    proc = _cli(tmp_path, "anim", "--resources", RESOURCES, "show", "no_such_clip")
    assert proc.returncode == 1
    assert "no_such_clip" in proc.stderr


@pytest.mark.parametrize("name", ["anim_blink_01"])
def test_anim_render_writes_an_animated_gif_and_a_plot(tmp_path: Path, name: str) -> None:
    out = tmp_path / "blink.gif"
    proc = _cli(tmp_path, "anim", "--resources", RESOURCES, "render", name, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    with Image.open(out) as gif:
        assert gif.format == "GIF" and gif.n_frames >= 10  # 500 ms at 30 fps
        assert gif.size[0] >= 128
    with Image.open(out.with_suffix(".png")) as plot:
        assert plot.format == "PNG" and plot.size[0] > 100


def test_anim_render_writes_the_clips_sound_track(tmp_path: Path) -> None:
    from driver.animation.audio import SAMPLE_RATE, SAMPLES_PER_FRAME, frames_to_pcm, read_wav, wav_to_frames

    out = tmp_path / "yawn.gif"
    proc = _cli(tmp_path, "anim", "--resources", RESOURCES, "render", "anim_sleepy_yawn_01", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    samples, rate = read_wav(out.with_suffix(".wav"))
    assert rate == SAMPLE_RATE
    track = samples[:, 0]
    assert track.size == 85 * SAMPLES_PER_FRAME  # frames 0 .. 84, the clip ending at 2.8 s
    yawn = frames_to_pcm(wav_to_frames(REPO / "resources/cozmo_resources/sound/voice/vo_yawn.wav"))
    start = 15 * SAMPLES_PER_FRAME  # its keyframe is at 500 ms
    assert not track[:start].any()
    assert (track[start:start + yawn.size] == yawn).all()
    silent = _cli(tmp_path, "anim", "--resources", RESOURCES, "render", "anim_blink_01", "--out",
                  str(tmp_path / "blink.gif"))
    assert silent.returncode == 0 and not (tmp_path / "blink.wav").exists()  # no sound, no file
