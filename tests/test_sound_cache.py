"""Converted sounds kept on disk between runs (driver.animation.sound_cache).

What a cache gives back must be exactly what converting gives; a changed WAV, a damaged cache
file or a folder that cannot be written must never cost a sound; and the daemon's second start
reads what its first one converted.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from brain.app.config import ConfigError, load_config
from brain.voice import VOICE_PITCH, voice_pitch
from driver.animation.sound_cache import SUFFIX, SoundCache, default_sound_cache
from driver.animation.sounds import SoundLibrary

from .conftest import REPO

RESOURCES = REPO / "resources"
PITCHES = sorted({0.0, *(voice_pitch(mood) for mood in VOICE_PITCH)})


def _converted(library: SoundLibrary) -> dict[tuple[int, float], list[bytes]]:
    library.preload(PITCHES)
    return {(int(name), p): library._converted(int(name), path, p)  # type: ignore[misc]
            for name, path in library.files.items() for p in PITCHES}


def _cached(roots: list[Path], folder: Path) -> tuple[SoundLibrary, SoundCache]:
    library = SoundLibrary(roots)
    library.disk_cache = cache = SoundCache(folder)
    return library, cache


def test_what_the_cache_gives_back_is_what_converting_gives(tmp_path: Path) -> None:
    plain = _converted(SoundLibrary([RESOURCES]))
    first, first_cache = _cached([RESOURCES], tmp_path / "cache")
    first.preload(PITCHES)
    assert first_cache.hits == 0 and first_cache.writes == len(plain) == len(list((tmp_path / "cache").iterdir()))
    assert _converted(first) == plain
    second, second_cache = _cached([RESOURCES], tmp_path / "cache")
    second.preload(PITCHES)
    assert second_cache.hits == len(plain) and second_cache.writes == 0
    assert _converted(second) == plain


def test_with_a_disk_cache_memory_holds_only_the_sounds_played_lately(tmp_path: Path) -> None:
    """The disk holds every conversion, so a preload keeps none in memory and playing keeps a few:
    each sound at each pitch was about 5 MB of the daemon for its whole life."""
    library, cache = _cached([RESOURCES], tmp_path / "cache")
    library.preload(PITCHES)
    assert cache.writes == 77 * len(PITCHES)
    assert len(library._full) == 0  # type: ignore[attr-defined]
    plain = SoundLibrary([RESOURCES])
    for name, path in sorted(library.files.items()):
        for pitch in PITCHES:
            assert library._converted(int(name), path, pitch) == plain._converted(int(name), path, pitch)  # type: ignore[attr-defined]
    assert len(library._full) == library.memory_with_disk < 77  # type: ignore[attr-defined]
    # a sound played again soon is taken from memory, one played long ago read from its file again
    reads = cache.hits
    name, path = sorted(library.files.items())[-1]
    library._converted(int(name), path, PITCHES[-1])  # type: ignore[attr-defined]
    assert cache.hits == reads
    name, path = sorted(library.files.items())[0]
    library._converted(int(name), path, PITCHES[0])  # type: ignore[attr-defined]
    assert cache.hits == reads + 1 and cache.writes == 77 * len(PITCHES)
    # the folder can be deleted at any time: a sound played then is converted and kept again
    shutil.rmtree(tmp_path / "cache")
    name, path = sorted(library.files.items())[1]
    assert library._converted(int(name), path, PITCHES[0]) == plain._converted(int(name), path, PITCHES[0])  # type: ignore[attr-defined]
    assert cache.writes == 77 * len(PITCHES) + 1 and len(list((tmp_path / "cache").iterdir())) == 1


def test_a_changed_wav_or_a_damaged_file_is_converted_again(tmp_path: Path) -> None:
    root = tmp_path / "res"
    shutil.copytree(RESOURCES / "cozmo_resources" / "sound", root / "cozmo_resources" / "sound")
    first, _ = _cached([root], tmp_path / "cache")
    before = _converted(first)
    name, path = sorted(first.files.items())[0]
    other_name, other = sorted(first.files.items())[1]
    data = bytearray(path.read_bytes())
    data[-2:] = b"\x10\x27"  # the last sample changed
    path.write_bytes(bytes(data))
    damaged = SoundCache(tmp_path / "cache").key(other.read_bytes(), 0.0)
    (tmp_path / "cache" / (damaged + SUFFIX)).write_bytes(b"\x00" * 100)  # not whole frames
    again, cache = _cached([root], tmp_path / "cache")
    after = _converted(again)
    assert cache.writes == len(PITCHES) + 1  # the changed WAV at every pitch, the damaged file
    assert after[(int(name), 0.0)] != before[(int(name), 0.0)]
    assert after[(int(other_name), 0.0)] == before[(int(other_name), 0.0)]
    unchanged = [k for k in before if k[0] != int(name)]
    assert [after[k] for k in unchanged] == [before[k] for k in unchanged]


def test_a_folder_that_cannot_be_written_costs_no_sound(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocked = tmp_path / "a file"
    blocked.write_text("not a folder")
    library, cache = _cached([RESOURCES], blocked / "sounds")
    with caplog.at_level(logging.INFO, logger="driver.animation.sound_cache"):
        assert _converted(library) == _converted(SoundLibrary([RESOURCES]))
    assert cache.writes == 0 and cache.hits == 0
    assert [r.getMessage() for r in caplog.records if "cannot write" in r.getMessage()] == [
        f"sound cache: cannot write {blocked / 'sounds'} ([Errno 20] Not a directory: '{blocked / 'sounds'}'); "
        "sounds are converted at every start"]


def test_where_the_cache_is_by_default() -> None:
    assert default_sound_cache({"CACHE_DIRECTORY": "/var/cache/cozmo-brain:/x", "XDG_CACHE_HOME": "/c"}) == \
        Path("/var/cache/cozmo-brain/sounds")
    assert default_sound_cache({"XDG_CACHE_HOME": "/c"}) == Path("/c/cozmo-brain/sounds")
    assert default_sound_cache({"HOME": "/h"}).parts[-2:] == ("cozmo-brain", "sounds")


def test_the_setting(tmp_path: Path) -> None:
    cfg_file = tmp_path / "config.yaml"
    cfg_file.write_text("sound_cache: cache/sounds\n")
    assert load_config(cfg_file).sound_cache == (tmp_path / "cache" / "sounds").resolve()
    cfg_file.write_text("sound_cache: false\n")
    assert load_config(cfg_file).sound_cache is None
    cfg_file.write_text("heartbeat_hz: 10\nsound_cache: 3\n")
    with pytest.raises(ConfigError, match=rf"^{cfg_file}:2: sound_cache: expected a folder, or false to convert "
                                          r"sounds at every start, got 3$"):
        load_config(cfg_file)


@pytest.mark.e2e
def test_the_daemons_second_start_reads_what_the_first_converted(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg-cache")}
    env.pop("CACHE_DIRECTORY", None)
    folder = tmp_path / "xdg-cache" / "cozmo-brain" / "sounds"
    lines = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-m", "brain", "run", "--sim", "--duration", "1", "--no-vision"],
                              capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
        assert proc.returncode == 0, proc.stderr
        lines += [line.split("cozmo_brain: ", 1)[1] for line in proc.stderr.splitlines() if "sounds ready" in line]
    count = len(list(folder.glob("*" + SUFFIX)))
    assert count == 77 * len(PITCHES), count
    assert lines[0].endswith(f"(0 from {folder}, {count} converted and kept there)"), lines
    assert lines[1].endswith(f"({count} from {folder}, 0 converted and kept there)"), lines
