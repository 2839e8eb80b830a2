"""The ``.cozanim`` text keyframe format: one clip per file, written and read by hand.

The grammar is documented with examples in ``docs/animation-text-format.md``; in short::

    controls head lift                 # Options: which tracks the clip drives, …
    extendable

    no parameters                      # Parameters: tunables, or `no parameters`

    time_ms  head_angle_deg  lift      # Body: a header of columns / column groups,
    0        -10             32        # then one row per time; `-` = no keyframe
    300      20              -         # of that kind in this row

Every error carries ``file:line:column``. The format stores everything the model holds
(all ten tracks, the playback hints and tunable parameters); times are whole
milliseconds and floats are written with the fewest digits that read back as the same
32-bit float, so ``Clip -> text -> Clip`` is exact.

The format lives in three modules, re-exported here: :mod:`.textfmt_grammar` (the tables the
reader and writer share), :mod:`.textfmt_read` and :mod:`.textfmt_write`.
"""

from __future__ import annotations

from .textfmt_grammar import CONTROLS, GROUPS, PARAMETERS, SUFFIX, TextFormatError, iter_columns
from .textfmt_read import clip_from_text, read_text_file, scan_text_clip_name
from .textfmt_write import clip_to_text, safe_file_stem, write_text_file

__all__ = [
    "CONTROLS",
    "GROUPS",
    "PARAMETERS",
    "SUFFIX",
    "TextFormatError",
    "clip_from_text",
    "clip_to_text",
    "iter_columns",
    "read_text_file",
    "safe_file_stem",
    "scan_text_clip_name",
    "write_text_file",
]
