"""Build the default resource set's animation files from their text sources.

The project keeps every animation clip of ``resources/`` as an editable ``.cozanim`` text file
under ``resources/src/animations/`` (one clip per file). The runtime, like the Cozmo app, reads
FlatBuffers ``.bin`` files from ``resources/cozmo_resources/assets/animations/``. This script is
the one step between the two:

    python tools/build_resources.py           # rewrite the .bin files from the sources
    python tools/build_resources.py --check   # exit 1 if the checked-in .bin files are stale

Like the app, it packs several clips into one file: the clips ``anim_<theme>_…`` go into
``<theme>.bin`` (``anim_happy_wiggle_01`` → ``happy.bin``), in file-name order. The output
depends only on the sources, so building twice gives the same bytes and ``--check`` can tell
whether someone edited a source without rebuilding. ``.bin`` files in the output folder that no
source produces any more are removed by a build and reported by ``--check``.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
for _path in (REPO, HERE):
    if str(_path) not in sys.path:  # run as a plain script, or loaded by file from the tests
        sys.path.insert(0, str(_path))

import built_outputs  # noqa: E402

from driver.animation.binwrite import write_bin  # noqa: E402
from driver.animation.clip import AnimationError, Clip  # noqa: E402
from driver.animation.textfmt import SUFFIX, read_text_file  # noqa: E402

__all__ = ["BuildError", "DEFAULT_OUT", "DEFAULT_SRC", "bin_name", "build", "check", "main", "write"]

log = logging.getLogger("build_resources")

DEFAULT_SRC = REPO / "resources" / "src" / "animations"
DEFAULT_OUT = REPO / "resources" / "cozmo_resources" / "assets" / "animations"


class BuildError(Exception):
    """The sources cannot be built: a bad file, a misnamed clip or two clips with one name."""


def bin_name(clip_name: str) -> str:
    """The .bin file a clip is packed into: ``anim_<theme>_…`` → ``<theme>.bin``."""
    parts = clip_name.split("_")
    if len(parts) < 3 or parts[0] != "anim" or not parts[1]:
        raise BuildError(f"clip {clip_name!r}: expected a name of the form anim_<theme>_<what>, "
                         "which picks its .bin file")
    return parts[1] + ".bin"


def _load_sources(src: Path) -> list[Clip]:
    files = sorted(src.glob("*" + SUFFIX))
    if not files:
        raise BuildError(f"{src}: no {SUFFIX} files")
    clips: list[Clip] = []
    seen: dict[str, Path] = {}
    for path in files:
        try:
            clip = read_text_file(path)
        except AnimationError as exc:
            raise BuildError(str(exc)) from exc
        if clip.name != path.stem:
            raise BuildError(f"{path}: clip is named {clip.name!r}; name the file after the clip")
        if clip.name in seen:
            raise BuildError(f"{path}: clip {clip.name!r} is already defined by {seen[clip.name]}")
        seen[clip.name] = path
        clips.append(clip)
    return clips


def build(src: Path = DEFAULT_SRC) -> dict[str, bytes]:
    """Every output file's name and bytes, built from the ``.cozanim`` files in *src*."""
    groups: dict[str, list[Clip]] = {}
    for clip in _load_sources(src):
        groups.setdefault(bin_name(clip.name), []).append(clip)
    return {name: write_bin(clips) for name, clips in sorted(groups.items())}


def check(built: dict[str, bytes], out: Path) -> list[str]:
    """What differs between ``built`` and the files in ``out`` (an empty list: up to date)."""
    return built_outputs.check(built, out, "*.bin", "no source produces it")


def write(built: dict[str, bytes], out: Path) -> list[Path]:
    """Write ``built`` into ``out`` and remove stale ``.bin`` files; the files that changed."""
    return built_outputs.write(built, out, "*.bin")


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: build (default) or ``--check``; 0 on success, 1 on a problem."""
    parser = argparse.ArgumentParser(description="Build resources/ animation .bin files from .cozanim sources.")
    parser.add_argument("--src", type=Path, default=DEFAULT_SRC, help="folder of .cozanim sources")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder receiving the .bin files")
    parser.add_argument("--check", action="store_true", help="only verify that the .bin files are up to date")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        built = build(args.src)
    except BuildError as exc:
        log.error("%s", exc)
        return 1
    clips = sum(1 for _ in args.src.glob("*" + SUFFIX))
    if args.check:
        problems = check(built, args.out)
        for p in problems:
            log.error("%s", p)
        if problems:
            log.error("run: python tools/build_resources.py")
            return 1
        log.info("%d clips in %d files: up to date", clips, len(built))
        return 0
    changed = write(built, args.out)
    log.info("%d clips in %d files; %d file(s) changed", clips, len(built), len(changed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
