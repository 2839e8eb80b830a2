"""Decoding real robot captures, ours against PyCozmo 0.8.0's decoder, in one run.

    python tests/bench/capture_decode.py [--seconds S] [--real-data DIR]

Input: every datagram of the real firmware-2457 captures in ../shared/real_data (the hex-line log
and the JSON-lines excerpts; read from there, never copied into the repository), read once. Each
side then turns the same datagrams into message objects, over and over:

  codec     driver.protocol: decode_frame, then messages.decode for each packet
  entries   driver.capture.decode_datagram: the same, plus the Entry that ``capture show`` lists
  PyCozmo   pycozmo.frame.Frame.from_bytes (frame and packets, as its client decodes them)

Before timing, both sides must find the same number of messages (and ours nothing malformed).
Prints messages per second for each, and each of ours divided by PyCozmo's.
"""

from __future__ import annotations

import argparse
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from driver.capture import Datagram, decode_datagram, read_capture  # noqa: E402
from driver.protocol import messages as m  # noqa: E402
from driver.protocol.frame import decode_frame  # noqa: E402

try:
    from pycozmo.frame import Frame as PycFrame  # noqa: E402
except ImportError:  # pragma: no cover
    sys.exit("PyCozmo 0.8.0 is needed for the comparison: pip install -e '.[test]'")

REAL_DATA = (REPO.parent / "shared" / "real_data", Path("/work/shared/real_data"))


def load(real_data: Path) -> list[bytes]:
    """Every datagram of every real capture, in file order."""
    captures = sorted([*real_data.rglob("*.log"), *real_data.rglob("*.jsonl")])
    datagrams = [item.data for path in captures for item in read_capture(path) if isinstance(item, Datagram)]
    print(f"{len(datagrams)} datagrams, {sum(map(len, datagrams)):,} bytes, from "
          + ", ".join(p.name for p in captures))
    return datagrams


def ours_codec(datagrams: list[bytes]) -> Callable[[], int]:
    decode = m.decode

    def run() -> int:
        n = 0
        for data in datagrams:
            n += len([decode(p) for p in decode_frame(data).packets])
        return n

    return run


def ours_entries(datagrams: list[bytes]) -> Callable[[], int]:
    wrapped = [Datagram(0.0, "from_robot", data, "") for data in datagrams]

    def run() -> int:  # the messages (not the RESET/FIN frames, which have an entry too)
        return sum(e.message is not None for d in wrapped for e in decode_datagram(d))

    return run


def theirs(datagrams: list[bytes]) -> Callable[[], int]:
    def run() -> int:
        return sum(len(PycFrame.from_bytes(data).pkts) for data in datagrams)

    return run


def rate(fn: Callable[[], int], seconds: float) -> float:
    """Best of three: messages decoded per second."""
    messages = fn()
    timer = timeit.Timer(fn)
    n, t = timer.autorange()
    per_repeat = max(1, int(n * (seconds / 3) / t))
    best = min(timer.repeat(repeat=3, number=per_repeat))
    return messages * per_repeat / best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=1.5, help="time per side (default 1.5)")
    ap.add_argument("--real-data", type=Path, help="the real-data folder (default ../shared/real_data)")
    args = ap.parse_args()
    candidates = (args.real_data,) if args.real_data else REAL_DATA
    real_data = next((p for p in candidates if p is not None and (p / "SOURCES.md").is_file()), None)
    if real_data is None:
        print("real robot data not found (looked in " + ", ".join(map(str, candidates)) + "); nothing to measure")
        return 1
    datagrams = load(real_data)
    codec, entries, pyc = ours_codec(datagrams), ours_entries(datagrams), theirs(datagrams)
    malformed = sum(e.malformed for d in datagrams for e in decode_datagram(Datagram(0.0, "", d, "")))
    if malformed or not codec() == entries() == pyc():
        sys.exit(f"the decoders disagree (ours {codec()} messages, {malformed} malformed; PyCozmo {pyc()}); "
                 "not benchmarking")
    print(f"{codec()} messages each; {args.seconds:.1f} s per side, Python {sys.version.split()[0]}")
    theirs_rate = rate(pyc, args.seconds)
    print(f"{'decoder':<44}{'messages/s':>14}{'ratio':>9}")
    print(f"{'PyCozmo 0.8.0 Frame.from_bytes':<44}{theirs_rate:>14,.0f}{1.0:>8.1f}x")
    for name, fn in (("ours: frame + messages (driver.protocol)", codec),
                     ("ours: capture entries (decode_datagram)", entries)):
        ours_rate = rate(fn, args.seconds)
        print(f"{name:<44}{ours_rate:>14,.0f}{ours_rate / theirs_rate:>8.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
