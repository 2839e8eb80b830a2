"""The daemon's watch on its personality's files: a change asks for a reload.

Watched are the personality's own file, every file it includes or extends (wherever that is)
and the YAML files beside its own (one it may come to include). The looks ride on the
heartbeat's beats, in the wake-ups the beats take anyway, and a look costs a ``stat`` per file:
the folder is listed again only when its own time stamp moved.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..engine import Brain
    from ..heartbeat import Snapshot

__all__ = ["WATCH_INTERVAL_S", "Listing", "Stamps", "stamps", "watch_personality", "watched_files"]

#: Seconds between two looks at the personality files.
WATCH_INTERVAL_S = 1.0

#: (mtime, size) of each watched file; None for a missing one.
Stamps = dict[Path, "tuple[int, int] | None"]
#: A folder's time stamp and its YAML files when last listed (kept between looks).
Listing = dict[Path, "tuple[int | None, list[Path]]"]


async def watch_personality(brain: Brain, loaded: Callable[[], Stamps], changed: Callable[[], None]) -> None:
    """Call ``changed`` when a watched file differs from how it was last seen, or from how the
    last reload read it (``loaded()``); runs until cancelled.

    A file that is missing (deleted, or being replaced by an editor) is a state like any other:
    its return is a change. A file that exists but cannot be looked at (no permission, a symlink
    loop) ends the watch with that error: the daemon can no longer follow its personality, so it
    stops (exit code 1) rather than run on unwatched, and its restart reports the file. A file that
    a reload brings into the set is watched from the state it was read in.
    """
    listing: Listing = {}
    last = stamps(watched_files(brain, listing))
    due = asyncio.Event()
    beats = 0

    def on_beat(snap: Snapshot) -> None:
        nonlocal beats
        beats += 1
        if beats * brain.heartbeat.period >= WATCH_INTERVAL_S:
            beats = 0
            due.set()

    unsubscribe = brain.heartbeat.subscribe("snapshot", on_beat)
    try:
        while True:
            await due.wait()
            due.clear()
            now = stamps(watched_files(brain, listing))
            before = {**loaded(), **last}
            last = now
            if any(path in before and before[path] != stamp for path, stamp in now.items()):
                changed()
    finally:
        unsubscribe()


def watched_files(brain: Brain, listing: Listing | None = None) -> list[Path]:
    """The personality's files (see Brain.personality_files) and the YAML files beside its own.

    With ``listing`` (the watcher's, kept between looks) the folder is listed again only when
    its own time stamp moved (a file added, removed or renamed there): a listing costs several
    times a ``stat``. A stamp from the last two seconds may not yet show a change made within its
    own tick on a file system of coarse times, so such a folder is listed again until it is older.
    """
    path = brain.personality_path
    folder = path.parent
    try:
        stamp: int | None = os.stat(folder).st_mtime_ns
    except OSError:
        stamp = None
    known = listing.get(folder) if listing is not None else None
    if known is not None and stamp is not None and known[0] == stamp and time.time_ns() - stamp > 2_000_000_000:
        names = known[1]
    else:
        names = sorted(folder.glob("*.yaml"))
        if listing is not None:
            listing[folder] = (stamp, names)
    siblings = [p for p in names if p != path]
    return list(dict.fromkeys([path, *brain.personality_files, *siblings]))


def stamps(paths: list[Path]) -> Stamps:
    """(mtime, size) of each file; None for a missing one."""
    out: Stamps = {}
    for p in paths:
        try:
            st = os.stat(p)
        except (FileNotFoundError, NotADirectoryError):
            out[p] = None
        else:
            out[p] = (st.st_mtime_ns, st.st_size)
    return out
