"""The built wheel, installed in a fresh virtual environment, works from an empty folder.

This is the install a user or a service gets (``pip wheel`` + ``pip install``), not the editable
one the other tests run: the defaults must come from the installed package's data, not from a
checkout. The wheel is built from a copy of the source tree (so a stale ``build/`` folder in the
checkout cannot leak into it), and installed with its dependencies from the package index
(pip's cache makes that quick: the whole module takes about 20-25 s on two cores, built once
in a parallel run). The installed console script then
runs ``run --sim``, ``check``, ``tree`` and ``anim list`` from an empty folder, with a HOME and
XDG_CONFIG_HOME of its own so no user settings or resource download can stand in for the
packaged ones.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

import brain

from .conftest import REPO

#: One worker of a parallel run takes the whole module, so the wheel is built once (pyproject runs
#: pytest-xdist with ``--dist loadgroup``).
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("wheel")]

#: Not part of a build: version control, environments, caches, earlier build output.
COPY_IGNORE = shutil.ignore_patterns(".git", ".ci", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__",
                                     ".pytest_cache", ".ruff_cache", ".hypothesis", "out", "*.so")
#: The project's clips (one source each) and the .bin files they are built into.
CLIPS = len(list((REPO / "resources" / "src" / "animations").glob("*.cozanim")))
CLIP_FILES = len(list((REPO / "resources" / "cozmo_resources" / "assets" / "animations").glob("*.bin")))


def _run(argv: list[str], *, cwd: Path, env: dict[str, str] | None = None, timeout: float = 600) \
        -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(argv)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Build the wheel, install it in a new virtual environment; the paths of both."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(REPO, src, symlinks=True, ignore=COPY_IGNORE)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp / "dist"), str(src)], cwd=tmp)
    (wheel,) = (tmp / "dist").glob("cozmo_brain-*.whl")
    venv = tmp / "venv"  # as the README installs it: a new environment and its own pip
    _run([sys.executable, "-m", "venv", str(venv)], cwd=tmp)
    python = venv / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "--quiet", str(wheel)], cwd=tmp)
    site = _run([str(python), "-c", "import brain, pathlib; print(pathlib.Path(brain.__file__).parent)"],
                cwd=tmp).stdout.strip()
    return {"wheel": wheel, "bin": venv / "bin", "package": Path(site)}


@pytest.fixture
def empty(tmp_path: Path, installed: dict[str, Path]) -> tuple[Path, dict[str, str]]:
    """An empty working folder and an environment with no user settings, no checkout on the path."""
    work = tmp_path / "empty"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "JOURNAL_STREAM", "XDG_CONFIG_HOME",
                                                            "VIRTUAL_ENV")}
    env.update(HOME=str(tmp_path / "home"), XDG_CONFIG_HOME=str(tmp_path / "xdg"),
               PATH=f"{installed['bin']}{os.pathsep}{env.get('PATH', '')}")
    return work, env


def cozmo_brain(installed: dict[str, Path], empty: tuple[Path, dict[str, str]], *argv: str) \
        -> subprocess.CompletedProcess[str]:
    work, env = empty
    proc = _run([str(installed["bin"] / "cozmo-brain"), *argv], cwd=work, env=env, timeout=120)
    assert list(work.iterdir()) == []  # nothing was written into the working folder
    return proc


def test_the_module_runs_on_one_worker(request: pytest.FixtureRequest) -> None:
    """The wheel is built and installed once a run only while this module's tests share a worker
    (``xdist_group``, ``--dist loadgroup``, which marks their ids ``@wheel``); without that, each
    test built it again on its own worker (minutes of CPU, as with pytest 9.2 and xdist 3.8)."""
    if not hasattr(request.config, "workerinput") or not request.config.getoption("loadgroup", False):
        pytest.skip("not a parallel run with --dist loadgroup")
    assert request.node.nodeid.endswith("@wheel"), f"{request.node.nodeid}: the xdist group is not applied"


def test_the_wheel_holds_the_code_and_the_defaults_and_nothing_else(installed):
    names = zipfile.ZipFile(installed["wheel"]).namelist()
    assert not [n for n in names if n.startswith(("tests/", ".venv/", "venv/", "tools/", "resources/", "trees/"))]
    assert not [n for n in names if n.endswith(".cozanim") or "__pycache__" in n]
    assert "driver/animation/CozmoAnim/AnimClip.py" in names  # the generated FlatBuffers code
    assert "driver/animation/cozmo_anim.fbs" in names
    assert {"brain/_data/config.yaml", "brain/_data/trees/default.yaml", "brain/_data/trees/playful.yaml",
            "brain/_data/trees/common.yaml"} <= set(names)
    data = "brain/_data/resources/cozmo_resources/"
    built = sorted(p.name for p in (REPO / "resources/cozmo_resources/assets/animations").glob("*.bin"))
    assert sorted(Path(n).name for n in names if n.startswith(data + "assets/animations/")) == built
    voice = sorted(p.name for p in (REPO / "resources/cozmo_resources/sound/voice").glob("*.wav"))
    assert voice and sorted(Path(n).name for n in names if n.startswith(data + "sound/voice/")) == voice
    assert not [n for n in names if n.endswith("voice.yaml")]  # the voice's source stays out, like the clips'
    assert data + "config/engine/mood_config.json" in names
    assert data + "assets/animationGroupMaps/AnimationTriggerMap.json" in names


def test_version(installed, empty):
    assert cozmo_brain(installed, empty, "--version").stdout == f"cozmo-brain {brain.__version__}\n"


def test_run_on_the_simulator_with_the_packaged_defaults(installed, empty):
    log = cozmo_brain(installed, empty, "run", "--sim", "--duration", "5").stderr
    package = installed["package"]
    assert f"settings: {package / '_data' / 'config.yaml'} (the packaged defaults)" in log
    assert "running default.yaml at 10 Hz for 5 s" in log
    branches = re.findall(r"brain\.heartbeat: doing (freeplay > \S+)", log)
    assert branches, log  # the personality ran: what the robot does, one line per change
    beats = int(re.search(r"stopped after (\d+) beats", log).group(1))
    assert beats >= 40


def test_check_finds_the_packaged_resources(installed, empty):
    out = cozmo_brain(installed, empty, "check").stdout
    root = installed["package"] / "_data" / "resources" / "cozmo_resources"
    assert f"Resource check: 1 root (searched in this order)\n  1. {root}\n" in out
    assert re.search(rf"animation clips +{CLIPS} +{CLIP_FILES}\n", out)
    assert re.search(r"behaviours +57 +57\n", out) and re.search(r"mood config +1 +1\n", out)
    assert "Summary: 0 errors, 0 warnings" in out


def test_tree_shows_the_default_and_a_personality_by_name(installed, empty):
    out = cozmo_brain(installed, empty, "tree").stdout
    trees = installed["package"] / "_data" / "trees"
    assert out.startswith(f"personality: default ({trees / 'default.yaml'})\n\n[o] freeplay\n")
    out = cozmo_brain(installed, empty, "tree", "--personality", "sleepy").stdout
    assert out.startswith(f"personality: sleepy ({trees / 'sleepy.yaml'})\n")


def test_anim_list_lists_the_packaged_clips(installed, empty):
    proc = cozmo_brain(installed, empty, "anim", "list")
    names = proc.stdout.split()
    assert len(names) == CLIPS == len(set(names)) and "anim_blink_01" in names
    assert "WARNING" not in proc.stderr


def test_the_wheel_carries_the_compiled_face_code(installed, empty):
    names = zipfile.ZipFile(installed["wheel"]).namelist()
    built = [n for n in names if n.startswith("driver/animation/_compiled.") and n.endswith((".so", ".pyd"))]
    if not built:
        compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
        assert shutil.which(compiler) is None, f"{compiler} is here, yet the wheel has no compiled face code"
        pytest.skip("no C compiler: the wheel was built without its compiled face code (numpy draws)")
    assert "driver/animation/_compiled.pyi" in names
    work, env = empty
    code = "from driver.animation import display, raster; print(raster.fill_backend(), display._compiled is not None)"
    out = _run([str(installed["bin"] / "python"), "-c", code], cwd=work, env=env).stdout
    assert out.split() == ["compiled", "True"]
