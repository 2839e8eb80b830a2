"""``capture show FILE --frames DIR``: a capture's camera pictures as PNG files, through the command line.

The real robot's excerpts (read from ../shared/real_data, skipped where it is absent) hold five
complete pictures among chunks whose frame began before the excerpt or lost a chunk; a capture
recorded from the simulator with its camera on gives the pictures the simulator drew.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from .conftest import REPO

CONTROL = "cozmo-stack/re-analysis/acceptance/hardware/20260924-202748-CONTROL"


def _show(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "brain", "capture", "show", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_the_real_excerpts_give_their_five_frames(real_data: Path, tmp_path: Path) -> None:
    files = [str(real_data / CONTROL / f"frames.{part}-excerpt.jsonl") for part in ("ANIM", "AUDIO", "CAMERA")]
    done = _show(*files, "--frames", str(tmp_path / "frames"))
    assert done.returncode == 0, done.stderr
    written = sorted((tmp_path / "frames").glob("*.png"))
    assert [p.name for p in written] == ["frame-0001-image-8570.png", "frame-0002-image-8694.png",
                                         "frame-0003-image-8695.png", "frame-0004-image-8696.png",
                                         "frame-0005-image-8697.png"]
    for path in written:
        picture = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        assert picture.shape == (240, 320) and picture.std() > 1.0  # a grey QVGA scene, not a blank
    assert "5 camera frame(s) written" in done.stderr and "dropped: 2 missed_start, 1 missing_chunk" in done.stderr
    assert done.stdout == ""  # the pictures instead of the listing


def test_a_folder_that_cannot_be_made_is_an_error(real_data: Path, tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("a file, not a folder")
    done = _show(str(real_data / CONTROL / "frames.CAMERA-excerpt.jsonl"), "--frames", str(tmp_path / "taken"))
    assert done.returncode == 1 and "taken: cannot write the frames" in done.stderr, done.stderr


@pytest.mark.e2e
def test_a_recording_of_the_simulator_gives_the_pictures_it_drew(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "brain", "run", "--sim", "--duration", "4", "--record", "rec.bin",
                          "--personality", str(REPO / "trees" / "default.yaml")],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    done = _show("rec.bin", "--frames", "pictures", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = sorted((tmp_path / "pictures").glob("*.png"))
    assert len(written) >= 20  # 15 a second once the camera is on
    assert cv2.imread(str(written[-1]), cv2.IMREAD_UNCHANGED).shape == (240, 320)
