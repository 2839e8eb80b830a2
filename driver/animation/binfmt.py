"""Cozmo animation .bin files: FlatBuffers ``CozmoAnim.AnimClips``, several clips per file.

Reading is one pass over the offsets. It checks the whole buffer against the schema's layout
(offsets in range, vtables sane, field sizes, required fields, valid UTF-8, no table reached
twice, no vector larger than the file) and reads each field where the check has found it, so a
truncated, random or foreign file — for instance one written with Vector's incompatible variant
of the schema, whose tables carry fields Cozmo's schema does not define — always ends in
:class:`BinFormatError` instead of an IndexError, a hang or silently wrong keyframes. (The code
flatc generated, ``driver.animation.CozmoAnim``, reads the same values a call per element, ten
times slower: a clip file decoded when first played would stall the event loop for frames.)

:func:`scan_clip_names` is the fast path for indexing: it checks and reads only the clip
names (and the shape of each clip's keyframe table), never the keyframes, in one flat pass
over the offsets; only a file that fails that pass goes through the verifier, for the
message.

Writing is :mod:`driver.animation.binwrite`.
"""

from __future__ import annotations

import os
import struct
from typing import Any, Union

from . import clip as model
from .clip import AnimationError, Clip, ClipError, Track

__all__ = ["BinFormatError", "MAX_FILE_SIZE", "read_bin", "read_bin_clip", "scan_clip_names"]

#: Larger files are refused without reading them: no Cozmo animation file comes close.
MAX_FILE_SIZE = 64 * 1024 * 1024

#: A clip's keyframes by track, as read.
_Tracks = dict[Track, tuple[model.Keyframe, ...]]

BinSource = Union[str, os.PathLike, bytes, bytearray, memoryview]

_U8 = struct.Struct("<B")
_U16 = struct.Struct("<H")
_I32 = struct.Struct("<i")
_U32 = struct.Struct("<I")
_VT_HEAD = struct.Struct("<HH")


class BinFormatError(AnimationError):
    """A .bin file cannot be read as Cozmo animation clips.

    ``file`` names the file (or the ``source`` label given for in-memory bytes) and
    ``reason`` says what is wrong and where in the structure.
    """

    def __init__(self, file: str, reason: str) -> None:
        self.file = file
        self.reason = reason
        super().__init__(f"{file}: {reason}")


#: Field kinds of the model -> (inline size, struct format or None for an offset, vector element size).
_SCALARS: dict[str, tuple[int, str]] = {
    "uint": (4, "<I"),
    "ubyte": (1, "<B"),
    "byte": (1, "<b"),
    "short": (2, "<h"),
    "ushort": (2, "<H"),
    "float": (4, "<f"),
    "bool": (1, "<B"),
}
#: Vector field kinds -> element size; the string kinds.
VECTOR_KINDS: dict[str, int] = {"eye": 4, "probs": 4, "rgba": 4, "longs": 8}
STRING_KINDS = ("str", "radius")


def _label(data: BinSource, source: str | None) -> str:
    if source is not None:
        return source
    if isinstance(data, (bytes, bytearray, memoryview)):
        return "<bytes>"
    return os.fspath(data) if not isinstance(data, str) else data


_CHUNK = 1 << 16


def _load(data: BinSource, label: str) -> bytes:
    """The file's bytes (or the given bytes), refusing unreadable and oversized files.

    Files are read with plain ``os.open``/``os.read``/``os.close``: the clip index opens
    hundreds of files, and a buffered ``open()`` spends more in its extra system calls
    (fstat, ioctl, seek, a second read) than the name scan itself. The size is only asked
    for when the first read fills its buffer, so a small file costs three calls.
    """
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    limit = MAX_FILE_SIZE
    try:
        fd = os.open(data, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise BinFormatError(label, f"cannot read: {exc.strerror or exc}") from None
    try:
        first = os.read(fd, min(_CHUNK, limit + 1))
        if len(first) <= limit and len(first) < _CHUNK:
            return first  # a short read of a regular file is its end
        size = os.fstat(fd).st_size
        if size > limit:
            raise BinFormatError(label, f"{size} bytes is too large for an animation file")
        chunks = [first]
        total = len(first)
        while True:
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                break
            total += len(chunk)
            if total > limit:
                raise BinFormatError(label, f"more than {limit} bytes is too large for an animation file")
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise BinFormatError(label, f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- verification


class _Verifier:
    """Checks a buffer against the CozmoAnim layout before anything decodes it."""

    __slots__ = ("buf", "n", "label", "seen_tables", "budget")

    def __init__(self, buf: bytes, label: str) -> None:
        self.buf = buf
        self.n = len(buf)
        self.label = label
        self.seen_tables: set[int] = set()
        # Bytes that decoding may materialise; a file written by a builder never needs
        # more than its own size, overlapping references could need far more.
        self.budget = 4 * self.n + 65536

    def fail(self, path: str, reason: str) -> BinFormatError:
        return BinFormatError(self.label, f"{path}: {reason}" if path else reason)

    def root(self) -> int:
        if self.n < 8:
            raise self.fail("", f"{self.n} bytes is too short for a FlatBuffers file")
        (off,) = _U32.unpack_from(self.buf, 0)
        return self.table_at(off, "root")

    def table_at(self, pos: int, path: str) -> int:
        """Check the table header at ``pos``; return its vtable position."""
        if pos % 4 or pos < 4 or pos + 4 > self.n:
            raise self.fail(path, f"table offset {pos} is outside the file or misaligned")
        if pos in self.seen_tables:
            raise self.fail(path, f"the table at byte {pos} is referenced twice")
        self.seen_tables.add(pos)
        (soff,) = _I32.unpack_from(self.buf, pos)
        vt = pos - soff
        if vt % 2 or vt < 0 or vt + 4 > self.n:
            raise self.fail(path, f"vtable offset {vt} is outside the file or misaligned")
        vsize, tsize = _VT_HEAD.unpack_from(self.buf, vt)
        if vsize < 4 or vsize % 2 or vt + vsize > self.n:
            raise self.fail(path, f"vtable size {vsize} at byte {vt} is invalid")
        if tsize < 4 or pos + tsize > self.n:
            raise self.fail(path, f"table size {tsize} at byte {pos} runs past the end of the file")
        return vt

    def fields(self, pos: int, vt: int, count: int, table: str, path: str) -> list[int]:
        """Absolute positions of the first ``count`` fields (0 = absent); reject unknown fields."""
        buf = self.buf
        vsize, tsize = _VT_HEAD.unpack_from(buf, vt)
        present = (vsize - 4) // 2
        out = []
        for i in range(count):
            if i < present:
                (fo,) = _U16.unpack_from(buf, vt + 4 + 2 * i)
                if fo and (fo < 4 or fo >= tsize):
                    raise self.fail(path, f"field #{i} of {table} lies outside its table")
                out.append(pos + fo if fo else 0)
            else:
                out.append(0)
        for i in range(count, present):
            (fo,) = _U16.unpack_from(buf, vt + 4 + 2 * i)
            if fo:
                raise self.fail(
                    path,
                    f"{table} has a field #{i} that the CozmoAnim schema does not define "
                    "(a file of another schema variant, such as Vector's?)",
                )
        return out

    def scalar_fits(self, at: int, size: int, pos: int, vt: int, path: str, name: str) -> None:
        (tsize,) = _U16.unpack_from(self.buf, vt + 2)
        if at + size > pos + tsize:
            raise self.fail(path, f"{name} runs past the end of its table")

    def offset(self, at: int, path: str) -> int:
        """Follow the uoffset stored at ``at``."""
        if at + 4 > self.n:
            raise self.fail(path, "offset runs past the end of the file")
        (off,) = _U32.unpack_from(self.buf, at)
        target = at + off
        if off == 0 or target + 4 > self.n:
            raise self.fail(path, f"offset to byte {target} is outside the file")
        return target

    def vector(self, at: int, elem: int, path: str) -> tuple[int, int]:
        """(position of first element, length) of the vector referenced at ``at``."""
        target = self.offset(at, path)
        if target % 4:
            raise self.fail(path, f"vector at byte {target} is misaligned")
        (length,) = _U32.unpack_from(self.buf, target)
        size = length * elem
        if target + 4 + size > self.n:
            raise self.fail(path, f"vector of {length} elements runs past the end of the file")
        self.budget -= size + 4
        if self.budget < 0:
            raise self.fail(path, "vectors overlap each other (not a file written by a FlatBuffers builder)")
        return target + 4, length

    def string(self, at: int, path: str) -> str:
        start, length = self.vector(at, 1, path)
        if start + length >= self.n or self.buf[start + length] != 0:
            raise self.fail(path, "string is not zero-terminated")
        try:
            return self.buf[start : start + length].decode("utf-8")
        except UnicodeDecodeError:
            raise self.fail(path, "string is not valid UTF-8") from None

    # -- schema walk

    def clips(self, names_only: bool, only: int | None = None) -> list[tuple[str, _Tracks]]:
        """Verify AnimClips; return (name, its tracks) per clip (no tracks with ``names_only``).

        With ``only``, just the clip at that position (none when the file has fewer).
        """
        root = self.root()
        (pos,) = _U32.unpack_from(self.buf, 0)
        (clips_at,) = self.fields(pos, root, 1, "AnimClips", "AnimClips")
        if not clips_at:
            return []
        start, count = self.vector(clips_at, 4, "AnimClips.clips")
        out = []
        for i in range(count) if only is None else (only,) if 0 <= only < count else ():
            path = f"clips[{i}]"
            cpos = self.offset(start + 4 * i, path)
            cvt = self.table_at(cpos, path)
            name_at, kf_at = self.fields(cpos, cvt, 2, "AnimClip", path)
            if not name_at:
                raise self.fail(path, "clip has no Name")
            name = self.string(name_at, path + ".Name")
            if not name:
                raise self.fail(path, "clip Name is empty")
            path = f"clips[{i}] ({name!r})"
            tracks: _Tracks = {}
            if kf_at:
                kpos = self.offset(kf_at, path + ".keyframes")
                kvt = self.table_at(kpos, path + ".keyframes")
                positions = self.fields(kpos, kvt, len(Track), "Keyframes", path + ".keyframes")
                if not names_only:
                    for track, at in zip(Track, positions, strict=True):
                        if at:
                            keyframes = self.track(track, at, f"{path}.keyframes.{track.vector_name}")
                            if keyframes:
                                tracks[track] = keyframes
            out.append((name, tracks))
        return out

    def track(self, track: Track, at: int, path: str) -> tuple[model.Keyframe, ...]:
        """Check one track's keyframes and read them, in the same pass.

        Every field is read where the check has just found it (a scalar with one unpack, a
        vector with one unpack for all its elements); the code flatc generates reads the same
        values through a call per element and cost ten times as much, long enough to stall
        the loop when a clip is first played (hardware.md §4: a missed frame shows).
        """
        start, count = self.vector(at, 4, path)
        cls = track.keyframe_type
        specs = _READ_SPECS[cls]
        buf = self.buf
        out = []
        for i in range(count):
            kpath = f"{path}[{i}]"
            pos = self.offset(start + 4 * i, kpath)
            vt = self.table_at(pos, kpath)
            positions = self.fields(pos, vt, len(specs), track.value, kpath)
            values: dict[str, Any] = {}
            for (attr, schema_name, kind, default), fat in zip(specs, positions, strict=True):
                if not fat:
                    if default is _REQUIRED:
                        raise self.fail(kpath, f"required field {schema_name} is missing")
                    values[attr] = default
                    continue
                if kind in _SCALARS:
                    size, fmt = _SCALARS[kind]
                    self.scalar_fits(fat, size, pos, vt, kpath, schema_name)
                    if kind == "bool":
                        if buf[fat] > 1:  # builders write 0 or 1; another schema's data may not
                            raise self.fail(f"{kpath}.{schema_name}",
                                            f"a bool holds {buf[fat]} (a file of another schema?)")
                        values[attr] = buf[fat] == 1
                    else:
                        values[attr] = _SCALAR_READERS[fmt].unpack_from(buf, fat)[0]
                elif kind in STRING_KINDS:
                    self.scalar_fits(fat, 4, pos, vt, kpath, schema_name)
                    values[attr] = self.string(fat, f"{kpath}.{schema_name}")
                else:
                    fpath = f"{kpath}.{schema_name}"
                    self.scalar_fits(fat, 4, pos, vt, kpath, schema_name)
                    first, length = self.vector(fat, VECTOR_KINDS[kind], fpath)
                    if kind == "rgba" and length != 4:
                        raise self.fail(fpath, f"expected 4 values (r, g, b, a), got {length}")
                    if kind == "eye" and length > len(model.EYE_PARAMETERS):
                        limit = len(model.EYE_PARAMETERS)
                        raise self.fail(fpath, f"expected at most {limit} eye parameters, got {length}")
                    code = "q" if kind == "longs" else "f"
                    values[attr] = struct.unpack_from(f"<{length}{code}", buf, first)
            out.append(cls(**values))
        return tuple(out)


#: Marks a field that has no default: its absence is an error.
_REQUIRED = object()


def _read_specs(cls: type[model.Keyframe]) -> tuple[tuple[str, str, str, Any], ...]:
    """(attribute, schema name, kind, value when absent) per field, in the schema's order."""
    specs = []
    for attr, schema_name, kind in cls.FIELDS:
        try:
            default = model.schema_default(cls, attr)
        except KeyError:
            default = _REQUIRED
        specs.append((attr, schema_name, kind, default))
    return tuple(specs)


_READ_SPECS = {track.keyframe_type: _read_specs(track.keyframe_type) for track in Track}
_SCALAR_READERS = {fmt: struct.Struct(fmt) for _size, fmt in _SCALARS.values()}


# --------------------------------------------------------------------------- reading


#: Unpackers for a vtable's field offsets, by field count (flatc writes at most 10 here).
_FIELD_OFFSETS = tuple(struct.Struct(f"<{k}H") for k in range(17))
_TRACKS = len(Track)
_SMALL_OFFSETS = frozenset({1, 2, 3})  # a field offset inside the table's own soffset


def _quick_clip_names(buf: bytes) -> list[str] | None:
    """The clip names, when the file passes every check the verifier makes for them; else None.

    The same checks as ``_Verifier(buf).clips(names_only=True)`` — offsets inside the file
    and aligned, vtables sane, no table reached twice, no field the schema lacks in
    ``AnimClips``, ``AnimClip`` or ``Keyframes``, names zero-terminated, UTF-8, non-empty,
    the vector budget — written as one flat loop over ``struct`` reads, because the index
    runs it on every file at start-up. It never explains a failure: on None the caller
    runs the verifier, whose message says what is wrong and where.
    """
    n = len(buf)
    if n < 8:
        return None
    u32 = _U32.unpack_from
    i32 = _I32.unpack_from
    head = _VT_HEAD.unpack_from
    offsets_of = _FIELD_OFFSETS
    small = _SMALL_OFFSETS
    limit = len(offsets_of)
    budget = 4 * n + 65536
    seen: set[int] = set()

    # The root table (AnimClips): one field, the clips vector.
    pos = u32(buf, 0)[0]
    if pos % 4 or pos < 4 or pos + 4 > n:
        return None
    seen.add(pos)
    vt = pos - i32(buf, pos)[0]
    if vt % 2 or vt < 0 or vt + 4 > n:
        return None
    vsize, tsize = head(buf, vt)
    if vsize < 4 or vsize % 2 or vt + vsize > n or tsize < 4 or pos + tsize > n or vsize >= 4 + 2 * limit:
        return None
    fields = offsets_of[(vsize - 4) >> 1].unpack_from(buf, vt + 4)
    if not fields or not fields[0]:
        return [] if not any(fields) else None
    if any(fields[1:]) or fields[0] >= tsize or fields[0] < 4:
        return None
    at = pos + fields[0]
    if at + 4 > n:
        return None
    off = u32(buf, at)[0]
    vec = at + off
    if off == 0 or vec + 4 > n or vec % 4:
        return None
    count = u32(buf, vec)[0]
    start = vec + 4
    if start + 4 * count > n:
        return None
    budget -= 4 * count + 4

    names: list[str] = []
    append = names.append
    for at in range(start, start + 4 * count, 4):
        # The clip table (AnimClip): Name, keyframes.
        off = u32(buf, at)[0]
        pos = at + off
        if off == 0 or pos + 4 > n or pos % 4 or pos < 4 or pos in seen:
            return None
        seen.add(pos)
        vt = pos - i32(buf, pos)[0]
        if vt % 2 or vt < 0 or vt + 4 > n:
            return None
        vsize, tsize = head(buf, vt)
        if vsize < 6 or vsize % 2 or vt + vsize > n or tsize < 4 or pos + tsize > n or vsize >= 4 + 2 * limit:
            return None
        fields = offsets_of[(vsize - 4) >> 1].unpack_from(buf, vt + 4)
        name_fo = fields[0]
        kf_fo = fields[1] if len(fields) > 1 else 0
        if not name_fo or max(fields) >= tsize or not small.isdisjoint(fields) or any(fields[2:]):
            return None
        # The name: a zero-terminated UTF-8 string, not empty.
        at = pos + name_fo
        if at + 4 > n:
            return None
        off = u32(buf, at)[0]
        s = at + off
        if off == 0 or s + 4 > n or s % 4:
            return None
        length = u32(buf, s)[0]
        s += 4
        if length == 0 or s + length >= n or buf[s + length] != 0:
            return None
        budget -= length + 4
        if budget < 0:
            return None
        try:
            append(buf[s : s + length].decode("utf-8"))
        except UnicodeDecodeError:
            return None
        if not kf_fo:
            continue
        # The keyframes table: Cozmo's ten tracks and nothing else (Vector's variant has more).
        at = pos + kf_fo
        if at + 4 > n:
            return None
        off = u32(buf, at)[0]
        pos = at + off
        if off == 0 or pos + 4 > n or pos % 4 or pos < 4 or pos in seen:
            return None
        seen.add(pos)
        vt = pos - i32(buf, pos)[0]
        if vt % 2 or vt < 0 or vt + 4 > n:
            return None
        vsize, tsize = head(buf, vt)
        if vsize < 4 or vsize % 2 or vt + vsize > n or tsize < 4 or pos + tsize > n or vsize >= 4 + 2 * limit:
            return None
        fields = offsets_of[(vsize - 4) >> 1].unpack_from(buf, vt + 4)
        if fields and (max(fields) >= tsize or not small.isdisjoint(fields) or any(fields[_TRACKS:])):
            return None
    return names


def scan_clip_names(path_or_bytes: BinSource, source: str | None = None) -> list[str]:
    """The names of the clips in a .bin file, in file order, without decoding keyframes.

    This is what the clip index calls for every file, so it reads only the clip table
    headers and names (and checks that each keyframe table has Cozmo's shape). Raises
    :class:`BinFormatError` for anything that is not a Cozmo .bin.
    """
    label = _label(path_or_bytes, source)
    buf = _load(path_or_bytes, label)
    try:
        names = _quick_clip_names(buf)
    except Exception:  # never expected; if it happens, the verifier's verdict stands
        names = None
    if names is not None:
        return names
    try:
        # Something is off (or merely unusual): the verifier says what, or accepts it after all.
        return [name for name, _pos in _Verifier(buf, label).clips(names_only=True)]
    except BinFormatError:
        raise
    except Exception as exc:  # a verifier bug must still surface as a format error
        raise BinFormatError(label, f"unreadable ({type(exc).__name__}: {exc})") from None


def read_bin(path_or_bytes: BinSource, source: str | None = None) -> list[Clip]:
    """Decode every clip of a .bin file (or of its bytes) into validated :class:`Clip` s.

    ``source`` labels in-memory bytes in messages and in ``Clip.source``. Raises only
    :class:`BinFormatError`, whatever the input.
    """
    label = _label(path_or_bytes, source)
    return _decode(_load(path_or_bytes, label), label, None)


def read_bin_clip(path_or_bytes: BinSource, position: int, source: str | None = None) -> Clip | None:
    """Decode only the clip at ``position`` among a .bin file's clips (None when it has fewer).

    What the clip index uses when a clip is first played: the app packs up to a dozen clips in
    one file, and reading them all would hold the event loop for frames. The file's root and
    that clip are checked as :func:`read_bin` checks them; the other clips are not read.
    Raises only :class:`BinFormatError`.
    """
    label = _label(path_or_bytes, source)
    clips = _decode(_load(path_or_bytes, label), label, position)
    return clips[0] if clips else None


def _decode(buf: bytes, label: str, only: int | None) -> list[Clip]:
    try:
        entries = _Verifier(buf, label).clips(names_only=False, only=only)
        return [Clip.from_tracks(name, tracks, source=label) for name, tracks in entries]
    except BinFormatError:
        raise
    except ClipError as exc:
        raise BinFormatError(label, str(exc)) from None
    except Exception as exc:  # defensive: the verifier should make this unreachable
        raise BinFormatError(label, f"unreadable ({type(exc).__name__}: {exc})") from None
