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
once more, along the field's path only, to find the line to put in the error message; and
when validation finds names that lead nowhere, :func:`reference_lines` finds the line of
each in one walk of the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

__all__ = ["JsoncError", "line_of", "loads", "locate", "reference_lines", "strip", "strip_comments"]


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
_DECODER = json.JSONDecoder()


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

    Only the lines that contain ``//`` are touched, found with ``str.find`` from one to the
    next; the rest of the text is copied in slices. A line with no quote before its ``//``
    is cut with plain string operations; only a line with a quote before it (the ``//``
    may sit inside a string) goes through the string-aware regex.
    """
    pieces: list[str] = []
    done = 0  # text[:done] is already in pieces
    cut = text.find("//")
    while cut >= 0:
        start = text.rfind("\n", 0, cut) + 1
        end = text.find("\n", cut)
        if end < 0:
            end = len(text)
        if '"' not in text[start:cut]:
            pieces.append(text[done:cut])
            pieces.append(" " * (end - cut))
        else:
            pieces.append(text[done:start])
            pieces.append(_TOKENS.sub(_blank, text[start:end]))
        done = end
        cut = text.find("//", end)
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


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
    # Most files have no slash at all: they go straight to the C parser.
    cleaned = strip_comments(text) if "/" in text else text
    try:
        return _DECODER.decode(cleaned)
    except json.JSONDecodeError:
        pass
    # Trailing commas are rare: only look for them when comments were not the whole story.
    cleaned = _TRAILING_COMMA.sub(_drop_comma, cleaned) if "," in cleaned else cleaned
    try:
        return _DECODER.decode(cleaned)
    except json.JSONDecodeError as exc:
        message = exc.msg
        if message == "Extra data":
            message = "unexpected text after the end of the top-level value (an extra closing bracket?)"
        raise JsoncError(message, exc.lineno, exc.colno) from None


def line_of(text: str, offset: int) -> int:
    """The 1-based line number of *offset* in *text*."""
    return text.count("\n", 0, offset) + 1


_WS = re.compile(r"\s*")
_WS_CHARS = frozenset(" \t\n\r")


def _skip_ws(text: str, i: int) -> int:
    if text[i : i + 1] not in _WS_CHARS:  # nothing to skip (or the end of the text)
        return i
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


def _spans(cleaned: str, wanted: set[tuple[str | int, ...]]) -> dict[tuple[str | int, ...], tuple[int, int]]:
    """(start, end) offsets of the values at every path in *wanted* (closed under prefixes).

    One walk of the text; values off every wanted path are skipped by the C decoder.
    Duplicate keys: the last one wins, as in ``json``.
    """
    spans: dict[tuple[str | int, ...], tuple[int, int]] = {}

    def walk(i: int, path: tuple[str | int, ...]) -> int:
        if path not in wanted or not cleaned.startswith(("{", "["), i):
            _, end = _DECODER.raw_decode(cleaned, i)
            spans[path] = (i, end)
            return end
        start = i
        if cleaned[i] == "{":
            i = _skip_ws(cleaned, i + 1)
            while cleaned[i] != "}":
                name, i = json.decoder.scanstring(cleaned, i + 1)  # type: ignore[attr-defined]
                i = _skip_ws(cleaned, _skip_ws(cleaned, i) + 1)  # past the colon
                i = _skip_ws(cleaned, walk(i, path + (name,)))
                if cleaned[i] == ",":
                    i = _skip_ws(cleaned, i + 1)
        else:
            i = _skip_ws(cleaned, i + 1)
            n = 0
            while cleaned[i] != "]":
                i = _skip_ws(cleaned, walk(i, path + (n,)))
                n += 1
                if cleaned[i] == ",":
                    i = _skip_ws(cleaned, i + 1)
        spans[path] = (start, i + 1)
        return i + 1

    walk(_skip_ws(cleaned, 0), ())
    return spans


def reference_lines(text: str, refs: Sequence[tuple[Sequence[str | int], str]]) -> list[int | None]:
    """The 1-based line of each referenced name: *refs* holds (JSON path, name) pairs.

    The path leads to where the name was read (a key's value, or the list or object that
    holds it; it may stop short). The line is that of the first occurrence of the quoted
    name inside the deepest value the path reaches — so comments and other occurrences
    elsewhere in the file do not count — else of its first occurrence anywhere in the file,
    else the line where that value starts; None only when the file cannot be walked and
    the name is nowhere in it. Meant for reporting: it walks the file once, however many
    references it has.
    """
    wanted: set[tuple[str | int, ...]] = set()
    for path, _ in refs:
        path = tuple(path)
        wanted.update(path[:k] for k in range(len(path) + 1))
    cleaned = strip_comments(text)
    try:
        spans = _spans(cleaned, wanted)
    except (ValueError, IndexError):
        cleaned = strip(text)  # trailing commas too (rare, and slower to remove)
        try:
            spans = _spans(cleaned, wanted)
        except (ValueError, IndexError):  # the file no longer parses: fall back to a plain search
            spans = {}
    offsets: list[int] = []
    for path, name in refs:
        path = tuple(path)
        span = next((spans[path[:k]] for k in range(len(path), -1, -1) if path[:k] in spans), None)
        lo, hi = span if span is not None else (0, len(cleaned))
        found = _find_quoted(cleaned, name, lo, hi)
        if found < 0 and span is not None:
            found = _find_quoted(cleaned, name, 0, len(cleaned))
            if found < 0:
                found = lo
        offsets.append(found)
    # Offsets to lines in one pass over the text, however many there are.
    lines: list[int | None] = [None] * len(offsets)
    line, at = 1, 0
    for k in sorted(range(len(offsets)), key=offsets.__getitem__):
        if offsets[k] >= 0:
            line += cleaned.count("\n", at, offsets[k])
            at = offsets[k]
            lines[k] = line
    return lines


def _find_quoted(text: str, name: str, lo: int, hi: int) -> int:
    """Offset of *name* written as a JSON string in ``text[lo:hi]`` (either escaping), or -1."""
    for quoted in dict.fromkeys((json.dumps(name, ensure_ascii=False), json.dumps(name))):
        at = text.find(quoted, lo, hi)
        if at >= 0:
            return at
    return -1
