"""Comment-tolerant JSON, with line numbers for errors.

The Cozmo app's engine files are "JSON with comments": ``//`` line comments (also between a
value and a closing bracket), the odd ``/* */`` block, files that start with a comment.
Real files have no trailing commas, but hand-edited copies do, so those are accepted too.
A ``//`` inside a string is text, not a comment (PyCozmo's loader cuts such strings short).

Speed matters: a full app tree has about a thousand JSON files, most of them strict JSON.
Text without ``//`` or ``/*`` goes straight to the C parser; otherwise comments are blanked
out with spaces first, cheaply, line by line (only lines with a quote before the ``//`` need
the string-aware scan). Every newline stays, so offsets and line numbers in the cleaned
text are those of the file. Trailing commas are only looked for when that parse fails.

Nothing here keeps positions for successfully parsed values (that would cost a pure-Python
parser on every load). When a loader finds a bad field later, :func:`locate` walks the text
once more, along the field's path only, to find the line to put in the error message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

__all__ = ["JsoncError", "line_of", "loads", "locate", "strip", "strip_comments"]


class JsoncError(ValueError):
    """The text is not JSON even after comments and trailing commas are removed.

    ``line`` and ``column`` are 1-based positions in the original text.
    """

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"line {line} column {column}: {message}")
        self.message = message
        self.line = line
        self.column = column


# One alternation so strings are consumed whole before a ``//`` inside them could match.
_TOKENS = re.compile(
    r'"(?:[^"\\\n]|\\.)*"'  # a string (kept)
    r"|//[^\n]*"  # a line comment
    r"|/\*.*?\*/",  # a block comment (may span lines)
    re.DOTALL,
)
_TRAILING_COMMA = re.compile(r'"(?:[^"\\\n]|\\.)*"|,(?=\s*[\]}])')
_NOT_NEWLINE = re.compile(r"[^\n]")


def _blank(match: re.Match[str]) -> str:
    token = match.group(0)
    if token[0] == '"':
        return token
    return _NOT_NEWLINE.sub(" ", token)


def _drop_comma(match: re.Match[str]) -> str:
    token = match.group(0)
    return token if token[0] == '"' else " "


def _strip_line_comments(text: str) -> str:
    """Blank ``//`` comments line by line (strings never span lines, so lines are independent).

    Most commented lines have no quote before the ``//`` and are cut with plain string
    operations; only lines with a quote before it go through the string-aware regex.
    """
    lines = text.split("\n")
    for i, line in enumerate(lines):
        cut = line.find("//")
        if cut < 0:
            continue
        if '"' not in line[:cut]:
            lines[i] = line[:cut] + " " * (len(line) - cut)
        else:
            lines[i] = _TOKENS.sub(_blank, line)
    return "\n".join(lines)


def strip_comments(text: str) -> str:
    """Return *text* with comments replaced by spaces (offsets and newlines kept)."""
    if "/*" in text:
        return _TOKENS.sub(_blank, text)
    if "//" in text:
        return _strip_line_comments(text)
    return text


def strip(text: str) -> str:
    """Return *text* with comments and trailing commas replaced by spaces.

    Every character keeps its offset and every newline stays, so positions in the result
    are positions in *text*.
    """
    text = strip_comments(text)
    if "," in text:
        text = _TRAILING_COMMA.sub(_drop_comma, text)
    return text


def loads(text: str) -> object:
    """Parse JSON that may contain comments and trailing commas.

    Raises :class:`JsoncError` with the 1-based line and column of the first problem.
    """
    cleaned = strip_comments(text)  # a no-op (same object) for the many files without "//" or "/*"
    try:
        return json.loads(cleaned)
    except json.JSONDecodeError:
        pass
    # Trailing commas are rare: only look for them when comments were not the whole story.
    cleaned = _TRAILING_COMMA.sub(_drop_comma, cleaned) if "," in cleaned else cleaned
    try:
        return json.loads(cleaned)
    except json.JSONDecodeError as exc:
        message = exc.msg
        if message == "Extra data":
            message = "unexpected text after the end of the top-level value (an extra closing bracket?)"
        raise JsoncError(message, exc.lineno, exc.colno) from None


def line_of(text: str, offset: int) -> int:
    """The 1-based line number of *offset* in *text*."""
    return text.count("\n", 0, offset) + 1


_WS = re.compile(r"\s*")
_DECODER = json.JSONDecoder()


def _skip_ws(text: str, i: int) -> int:
    return _WS.match(text, i).end()  # type: ignore[union-attr]


def _find_member(text: str, i: int, key: str) -> int | None:
    """*i* is at ``{``; return the offset of the value under *key* (the last one wins, as in json)."""
    found: int | None = None
    i = _skip_ws(text, i + 1)
    if text.startswith("}", i):
        return None
    while True:
        if not text.startswith('"', i):
            return found
        name, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
        i = _skip_ws(text, i)
        if not text.startswith(":", i):
            return found
        i = _skip_ws(text, i + 1)
        if name == key:
            found = i
        _, i = _DECODER.raw_decode(text, i)
        i = _skip_ws(text, i)
        if not text.startswith(",", i):
            return found
        i = _skip_ws(text, i + 1)


def _find_item(text: str, i: int, index: int) -> int | None:
    """*i* is at ``[``; return the offset of item *index*."""
    i = _skip_ws(text, i + 1)
    if text.startswith("]", i):
        return None
    n = 0
    while True:
        if n == index:
            return i
        _, i = _DECODER.raw_decode(text, i)
        i = _skip_ws(text, i)
        if not text.startswith(",", i):
            return None
        i = _skip_ws(text, i + 1)
        n += 1


def locate(text: str, path: Sequence[str | int]) -> int | None:
    """Return the 1-based line where the value at *path* starts, or the deepest line found.

    *path* is a sequence of object keys and list indexes, e.g. ``("Animations", 3, "Weight")``.
    When the path leads somewhere that does not exist (a missing key), the line of the
    closest existing ancestor is returned; None only when the text cannot be walked at all.
    """
    cleaned = strip(text)
    try:
        i = _skip_ws(cleaned, 0)
        best = i
        for step in path:
            if isinstance(step, int):
                if not cleaned.startswith("[", i):
                    break
                nxt = _find_item(cleaned, i, step)
            else:
                if not cleaned.startswith("{", i):
                    break
                nxt = _find_member(cleaned, i, step)
            if nxt is None:
                break
            i = best = nxt
        return line_of(cleaned, best)
    except (ValueError, IndexError):
        return None
