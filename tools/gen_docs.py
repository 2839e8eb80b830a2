"""Rewrite the generated tables of docs/personality-format.md from the declarations and the personalities.

    python tools/gen_docs.py           # rewrite the tables in place
    python tools/gen_docs.py --check   # exit 1 if the document's tables are stale

The tables sit between ``<!-- generated: NAME -->`` and ``<!-- end generated -->`` markers
(see :mod:`brain.nodes.reference` and :mod:`brain.personality.knobs`); everything else in the
document is written by hand.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a plain script from a checkout
    sys.path.insert(0, str(REPO))

from brain.nodes.reference import fill  # noqa: E402
from brain.personality.knobs import knobs_table  # noqa: E402

DOC = REPO / "docs" / "personality-format.md"
log = logging.getLogger("gen_docs")


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite (or with ``--check`` compare) the document's generated tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the document is stale")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    text = DOC.read_text(encoding="utf-8")
    try:
        filled = fill(text, {"knobs": knobs_table(REPO / "trees")})
    except ValueError as exc:
        log.error("%s: %s", DOC, exc)
        return 1
    if args.check:
        if filled != text:
            log.error("%s is stale: run python tools/gen_docs.py", DOC)
            return 1
        return 0
    if filled != text:
        DOC.write_text(filled, encoding="utf-8")
        log.info("rewrote %s", DOC)
    return 0


if __name__ == "__main__":
    sys.exit(main())
