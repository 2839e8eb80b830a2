"""What every resource loader shares: the parsed document, the issue sink, and the walk for names.

A :class:`Document` is one parsed file (path, text for line lookups, JSON value); an
:class:`IssueSink` collects one load's issues and its memo of graphs. :func:`read_document`
reads and parses a file, reporting instead of raising. :func:`_collect_refs` walks a behaviour's
or activity's JSON for the names it refers to under animation-trigger and emotion-event keys,
and for the ``eventMapper`` blocks that define events inline.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from brain.graph import Graph

from . import jsonc
from .fields import FieldError, JsonPath
from .issues import Issue, Severity, format_path, json_type
from .records import FieldRef, Origin

__all__ = [
    "ANIM_TRIGGER_KEY",
    "EMOTION_EVENT_KEY",
    "EVENT_MAPPER_KEY",
    "Document",
    "IssueSink",
    "read_document",
    "read_text",
]

T = TypeVar("T")

#: Keys under which behaviours and activities name animation triggers (every spelling in the
#: real files): ``animTriggers`` (a list), ``animTrigger``, ``anim``, ``animationTrigger``,
#: ``ReactionAnimGroup``, any ``…AnimTrigger`` (``s2_WaitAnimTrigger``, ``driveStartAnimTrigger``,
#: ``idleAnimTrigger`` …), any ``…_animName`` (request-game configs), ``knockOver…Trigger``,
#: ``reachForBlockTrigger``, ``softSparkTrigger`` and ``sparks{Success,Fail}Trigger``.
#: An empty string means "no animation" and is not a reference.
ANIM_TRIGGER_KEY = re.compile(
    r"animTriggers?|anim|animationTrigger|ReactionAnimGroup|\w*AnimTrigger|\w+_animName"
    r"|knockOver\w*Trigger|reachForBlockTrigger|softSparkTrigger|sparks(?:Success|Fail)Trigger"
)
#: Keys under which behaviours and activities name emotion events (``finalEmotionEvent`` in the real files).
EMOTION_EVENT_KEY = re.compile(r"\w*EmotionEvent|emotionEvent")
#: Keys of inline emotion-event definitions (the engine's EmotionEventMapper): ``eventMapper`` and ``…EventMapper``.
EVENT_MAPPER_KEY = re.compile(r"eventMapper|\w*EventMapper")


@dataclass(frozen=True, slots=True)
class Document:
    """A parsed resource file: where it is, its text (for line lookups) and its JSON value."""

    origin: Origin
    text: str
    data: Any

    @property
    def name(self) -> str:
        """The file's stem: how groups and cube lights are named."""
        return self.origin.name


class IssueSink:
    """Collects one load's issues; knows how to turn a field path into a line number.

    It lives exactly as long as one load, so it also carries that load's memo of graphs.
    """

    def __init__(self) -> None:
        self.issues: list[Issue] = []
        #: Graphs built so far in this load, by node values (see :func:`brain.assets.fields.graph`).
        self.graphs: dict[tuple[Any, ...], Graph] = {}

    def add(self, issue: Issue) -> None:
        """Record *issue*."""
        self.issues.append(issue)

    def report(
        self,
        severity: Severity,
        message: str,
        doc: Document | None = None,
        path: JsonPath = (),
        *,
        code: str = "field",
        line: int | None = None,
        subject: str | None = None,
    ) -> None:
        """Record an issue about *doc* at *path* (line looked up from the text when needed)."""
        file = str(doc.origin) if doc else None
        if doc is not None and line is None:
            line = jsonc.locate(doc.text, path)
        self.add(
            Issue(
                severity,
                message,
                file=file,
                line=line,
                field=format_path(path) or None,
                code=code,
                subject=subject,
            )
        )

    def field_error(self, doc: Document, exc: FieldError, what: str) -> None:
        """Report a bad field: *what* (e.g. ``behaviour``) is left out."""
        self.report(Severity.ERROR, f"{exc.message}; {what} not loaded", doc, exc.path)


_CHUNK = 1 << 16


def _read_bytes(file: Path | str) -> bytes:
    """The file's bytes with as few system calls as possible (open, read, close).

    A full app tree is about a thousand small JSON files, and ``open().read()`` spends
    more time in its extra calls (stat, ioctl, seek, a second read) than in parsing.
    """
    fd = os.open(file, os.O_RDONLY)
    try:
        chunks = []
        while True:
            chunk = os.read(fd, _CHUNK)
            if chunk:
                chunks.append(chunk)
            if len(chunk) < _CHUNK:  # a short read of a regular file is its end
                break
    finally:
        os.close(fd)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


_BOM = b"\xef\xbb\xbf"


def _decode(raw: bytes) -> str:
    """UTF-8 text without a leading byte-order mark (the C codec; ``utf-8-sig`` is pure Python)."""
    return (raw[3:] if raw.startswith(_BOM) else raw).decode("utf-8")


def read_text(file: Path | str) -> str | None:
    """A file's text (as :func:`read_document` decodes it), or None when it cannot be read now.

    For reporting: validation reads a file again to find the lines of dangling references.
    """
    try:
        return _decode(_read_bytes(os.fspath(file)))
    except (OSError, UnicodeDecodeError):
        return None


def read_document(file: Path | str, root: Path, sink: IssueSink) -> Document | None:
    """Read and parse one JSON(-with-comments) file; on failure report it and return None."""
    file = os.fspath(file)
    try:
        raw = _read_bytes(file)
    except FileNotFoundError:
        sink.add(Issue(Severity.ERROR, "file not found", file=file, code="io"))
        return None
    except OSError as exc:
        sink.add(Issue(Severity.ERROR, f"cannot read: {exc.strerror}", file=file, code="io"))
        return None
    try:
        text = _decode(raw)
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1  # the mark holds no newline: same line either way
        sink.add(Issue(Severity.ERROR, f"not UTF-8 text ({exc.reason})", file=file, line=line, code="io"))
        return None
    try:
        data = jsonc.loads(text)
    except jsonc.JsoncError as exc:
        sink.add(
            Issue(
                Severity.ERROR,
                f"invalid JSON: {exc.message} (column {exc.column}); file not loaded",
                file=file,
                line=exc.line,
                code="json",
            )
        )
        return None
    return Document(Origin(file, root), text, data)


def _each(
    doc: Document, sink: IssueSink, items: list[Any], path: JsonPath, what: str, read: Callable[[Any, JsonPath], T]
) -> Iterator[T]:
    """Read every item of a list, reporting and skipping the bad ones."""
    for i, item in enumerate(items):
        try:
            yield read(item, path + (i,))
        except FieldError as exc:
            sink.field_error(doc, exc, what)


def _top_object(doc: Document, sink: IssueSink, what: str) -> dict[str, Any] | None:
    if isinstance(doc.data, dict):
        return doc.data
    sink.report(Severity.ERROR, f"expected a JSON object at the top, got {json_type(doc.data)}; {what} not loaded", doc)
    return None


def _params(obj: Mapping[str, Any], exclude: frozenset[str]) -> Mapping[str, Any]:
    return MappingProxyType({k: v for k, v in obj.items() if k not in exclude})


@functools.lru_cache(maxsize=4096)
def _ref_kind(key: str) -> int:
    """What a key holds: 1 animation triggers, 2 emotion-event names, 3 an event mapper, 0 other (keys repeat a lot)."""
    if ANIM_TRIGGER_KEY.fullmatch(key):
        return 1
    if EMOTION_EVENT_KEY.fullmatch(key):
        return 2
    if EVENT_MAPPER_KEY.fullmatch(key):
        return 3
    return 0


def _collect_refs(
    value: Any,
    path: JsonPath,
    anims: list[FieldRef],
    events: list[FieldRef],
    mappers: list[tuple[JsonPath, Any]],
) -> None:
    """Walk *value*, collecting names under animation-trigger and emotion-event keys, and event mappers.

    A key's value may be a string (empty means "none") or a list of strings. Event-mapper
    blocks are collected whole, for :func:`_event_mapper`.
    """
    if type(value) is list:
        for i, item in enumerate(value):
            if type(item) is dict or type(item) is list:
                _collect_refs(item, path + (i,), anims, events, mappers)
        return
    if type(value) is not dict:
        return
    for k, v in value.items():
        kind = _ref_kind(k)
        if kind == 0:
            if type(v) is dict or type(v) is list:
                _collect_refs(v, path + (k,), anims, events, mappers)
            continue
        if kind == 3:
            mappers.append((path + (k,), v))
            continue
        out = anims if kind == 1 else events
        if type(v) is str:
            if v:
                out.append(FieldRef(path + (k,), v))
        elif type(v) is list:
            here = path + (k,)
            for i, item in enumerate(v):
                if type(item) is not str:
                    raise FieldError(here + (i,), f"expected string, got {json_type(item)}")
                if item:
                    out.append(FieldRef(here, item))
        else:
            raise FieldError(path + (k,), f"expected string or array of strings, got {json_type(v)}")
