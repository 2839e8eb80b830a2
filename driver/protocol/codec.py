"""Turns the message table into message classes with precompiled codecs, once, at import.

Why generate code: a message with a fixed layout (most of them, RobotState included) is then
decoded by one ``struct.Struct.unpack_from`` call whose results land straight in ``__slots__``,
and encoded by one ``pack`` call that already includes the id byte. Messages with a
length-prefixed tail (DisplayImage, ImageChunk, FirmwareSignature, ...) get the same treatment per
fixed run of fields, plus a few lines for the tail. The generated functions are small and
specialised, which is what makes them several times faster than a generic field-by-field reader.

Slow paths stay generic: when an encode fails, :func:`explain_encode_error` walks the table to
name the field and what was expected.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, TypeVar

from .frame import DecodeError
from .record import Decoder, Message, Record, Struct
from .table import (
    BOOL,
    F32,
    F64,
    U8,
    Field,
    FieldType,
    FixedArray,
    MessageSpec,
    Scalar,
    String,
    StructSpec,
    VarArray,
)

__all__ = [
    "ENCODE_ERRORS",
    "Built",
    "Decoder",
    "Message",
    "Record",
    "Struct",
    "build",
    "explain_encode_error",
]

#: What a generated encoder may raise on a bad field value; turned into a ValueError naming the field.
ENCODE_ERRORS = (struct.error, TypeError, ValueError, AttributeError, IndexError, OverflowError)

_MODULE = "driver.protocol.messages"


# --------------------------------------------------------------------------------------------
# Code generation


@dataclass
class Built:
    """The builder's output: classes by name, and decoders for the dispatch tables."""

    structs: dict[str, type[Struct]]
    messages: dict[str, type[Message]]
    #: decoder(body) -> message, by message id (COMMAND/EVENT packets).
    decoders_by_id: dict[int, Decoder]
    #: decoder(body) -> message, by packet type, for packet-level messages.
    decoders_by_packet_type: dict[int, Decoder]


class _Gen:
    """Accumulates generated source and the constants it refers to."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.ns: dict[str, Any] = {
            "_new": object.__new__,
            "_StructError": struct.error,
            "_bytes": bytes,
            "_tuple": tuple,
            "_len": len,
            "_pack": struct.pack,
            "_unpack": struct.unpack_from,
            "_str": str,
            "_UnicodeDecodeError": UnicodeDecodeError,
            "_ValueError": ValueError,
        }
        self._n = 0

    def const(self, value: object, hint: str = "c") -> str:
        """A namespace name bound to ``value``, for use in the generated source."""
        self._n += 1
        key = f"_{hint}{self._n}"
        self.ns[key] = value
        return key

    def temp(self, hint: str = "t") -> str:
        self._n += 1
        return f"_{hint}{self._n}"

    def run(self, src: str) -> dict[str, Any]:
        code = compile(src, f"<generated codec {self.name}>", "exec")
        exec(code, self.ns)  # noqa: S102  # source built from the static table only
        return self.ns


def _default_for(f: Field) -> object:
    """The value a field takes when the caller omits it (None: a fresh nested record per call)."""
    t = f.type
    if f.default is not None:
        d = f.default
        return int(d) if isinstance(d, IntEnum) else d
    if isinstance(t, Scalar):
        return t.default
    if isinstance(t, FixedArray):
        if t.element == U8:
            return bytes(t.length)
        if isinstance(t.element, Scalar):
            return (t.element.default,) * t.length
        return None
    if isinstance(t, VarArray):
        return b"" if t.element == U8 else ()
    if isinstance(t, String):
        return ""
    return None  # nested struct


def _coerce_bytes(value: object, where: str) -> bytes:
    try:
        return bytes(value)  # type: ignore[call-overload]
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: expected bytes (or a sequence of 0..255), got {value!r:.60}") from exc


def _as_tuple(value: object) -> tuple[object, ...] | None:
    """The items of an iterable as a tuple; None for anything that does not iterate."""
    if not isinstance(value, Iterable):
        return None
    try:
        return tuple(value)
    except TypeError:
        return None


def _coerce_tuple(value: object, where: str) -> tuple[object, ...]:
    items = _as_tuple(value)
    if items is None:
        raise ValueError(f"{where}: expected a sequence, got {value!r:.60}")
    return items


def _fixed_size(t: FieldType) -> int | None:
    if isinstance(t, Scalar):
        return t.size
    if isinstance(t, StructSpec):
        total = 0
        for f in t.fields:
            s = _fixed_size(f.type)
            if s is None:
                return None
            total += s
        return total
    if isinstance(t, FixedArray):
        s = _fixed_size(t.element)
        return None if s is None else s * t.length
    return None


def _struct_codes(spec: StructSpec) -> str:
    codes = []
    for f in spec.fields:
        if not isinstance(f.type, Scalar):
            raise TypeError(f"nested struct {spec.name}.{f.name}: only scalar fields are supported")
        codes.append(f.type.code)
    return "".join(codes)


def _build_struct(spec: StructSpec) -> type[Struct]:
    """A nested record class (LightState) with a fast positional maker for decoders."""
    gen = _Gen(spec.name)
    names = [f.name for f in spec.fields]
    src = [_init_source(spec, gen, {})]
    src += ["def _make(" + ", ".join(names) + "):", "    o = _new(_cls)"]
    src += [f"    o.{n} = {n}" for n in names]
    src += ["    return o"]
    src += ["def _values(self):", "    return (" + "".join(f"self.{n}, " for n in names) + ")"]
    src += _eq_source(names)
    ns = gen.run("\n".join(src) + "\n")
    cls = _subclass(Struct, spec.name, {
        "__slots__": tuple(names),
        "__init__": ns["__init__"],
        "__eq__": ns["__eq__"],
        "_values": ns["_values"],
        "_make": staticmethod(ns["_make"]),
        "FIELDS": tuple(names),
        "NAME": spec.name,
        "SPEC": spec,
        "SIZE": _fixed_size(spec),
        "_ENUMS": {f.name: f.enum for f in spec.fields if f.enum is not None},
        "__doc__": spec.doc,
        "__annotations__": {f.name: _hint(f.type) for f in spec.fields},
    })
    gen.ns["_cls"] = cls  # looked up when _make runs, so it can be bound after the class exists
    return cls


_R = TypeVar("_R", bound=Record)


def _subclass(base: type[_R], name: str, namespace: dict[str, object]) -> type[_R]:
    """``type(name, (base,), namespace)`` in this package's message module, typed as the subclass it is."""
    cls = type(name, (base,), {"__module__": _MODULE, "__qualname__": name, **namespace})
    assert issubclass(cls, base)
    return cls


def _eq_source(names: list[str]) -> list[str]:
    src = ["def __eq__(self, other):", "    if other.__class__ is not self.__class__:",
           "        return NotImplemented"]
    if names:
        src.append("    return " + " and ".join(f"self.{n} == other.{n}" for n in names))
    else:
        src.append("    return True")
    return src


def _hint(t: FieldType) -> str:
    if isinstance(t, Scalar):
        return {"f": "float", "d": "float", "?": "bool"}.get(t.code, "int")
    if isinstance(t, StructSpec):
        return t.name
    if isinstance(t, FixedArray | VarArray):
        if t.element == U8:
            return "bytes"
        inner = t.element.name if isinstance(t.element, StructSpec) else _hint(t.element)
        return f"tuple[{inner}, ...]"
    return "str"


class _Layout:
    """Generated decode/encode source for one message, built field by field."""

    def __init__(self, spec: MessageSpec, gen: _Gen, structs: dict[str, type[Struct]]) -> None:
        self.spec = spec
        self.gen = gen
        self.structs = structs
        self.has_id = spec.id is not None
        self.start = 1 if self.has_id else 0
        # Current fixed run.
        self.codes: list[str] = []
        self.targets: list[str] = []
        self.post: list[str] = []
        self.enc_pre: list[str] = []
        self.exprs: list[str] = []
        self.first = True
        # Output.
        self.dec: list[str] = []
        self.enc_parts: list[str] = []  # expressions concatenated into the body
        self.enc_lines: list[str] = []
        self.pos_known: int | None = self.start  # offset after the last emitted piece, if constant
        self.min_size = 0
        self.variable = False

    # -- fixed runs -------------------------------------------------------------------------

    def add_scalar(self, f: Field, t: Scalar) -> None:
        self.codes.append(t.code)
        self.targets.append(f"o.{f.name}")
        self.exprs.append(f"o.{f.name}")

    def add_fixed_array(self, f: Field, t: FixedArray) -> None:
        el = t.element
        v = self.gen.temp("v")
        if el == U8:
            self.codes.append(f"{t.length}s")
            self.targets.append(f"o.{f.name}")
            self.enc_pre.append(f"    {v} = o.{f.name}")
            self.enc_pre.append(f"    if _len({v}) != {t.length}: raise _ValueError")
            self.exprs.append(v)
        elif isinstance(el, Scalar):
            temps = [self.gen.temp() for _ in range(t.length)]
            self.codes.append(el.code * t.length)
            self.targets.extend(temps)
            self.post.append(f"    o.{f.name} = ({''.join(x + ', ' for x in temps)})")
            self.enc_pre.append(f"    {v} = o.{f.name}")
            self.enc_pre.append(f"    if _len({v}) != {t.length}: raise _ValueError")
            self.exprs.append(f"*{v}")
        else:
            make = self.gen.const(self.structs[el.name]._make, "mk")
            codes = _struct_codes(el)
            makes = []
            for _ in range(t.length):
                temps = [self.gen.temp() for _ in el.fields]
                self.codes.append(codes)
                self.targets.extend(temps)
                makes.append(f"{make}({', '.join(temps)})")
            self.post.append(f"    o.{f.name} = ({''.join(x + ', ' for x in makes)})")
            self.enc_pre.append(f"    {v} = o.{f.name}")
            self.enc_pre.append(f"    if _len({v}) != {t.length}: raise _ValueError")
            self.exprs.extend(f"*{v}[{i}]._values()" for i in range(t.length))

    def add_struct(self, f: Field, t: StructSpec) -> None:
        make = self.gen.const(self.structs[t.name]._make, "mk")
        temps = [self.gen.temp() for _ in t.fields]
        self.codes.append(_struct_codes(t))
        self.targets.extend(temps)
        self.post.append(f"    o.{f.name} = {make}({', '.join(temps)})")
        self.exprs.append(f"*o.{f.name}._values()")

    # -- variable tails ---------------------------------------------------------------------

    def add_variable(self, f: Field, t: VarArray | String) -> None:
        """A length prefix closes the current fixed run; the data follows it."""
        n = self.gen.temp("n")
        v = self.gen.temp("v")
        self.codes.append(t.length_type.code)
        self.targets.append(n)
        if isinstance(t, String):
            self.enc_pre.append(f"    {v} = o.{f.name}.encode('utf-8')")
        elif t.element == U8:
            self.enc_pre.append(f"    {v} = o.{f.name}")
            self.enc_pre.append(f"    if {v}.__class__ is not _bytes: {v} = _bytes({v})")
        else:
            self.enc_pre.append(f"    {v} = o.{f.name}")
        self.exprs.append(f"_len({v})")
        self.flush()
        esize = 1 if isinstance(t, String) else t.element.size
        need = n if esize == 1 else f"{n} * {esize}"
        where = f"{self.spec.name}.{f.name}"
        self.dec += [
            f"    _e = _p + {need}",
            "    if _e > _len(body):",
            f"        raise _DecodeError('{where}: length prefix says ' + _str({n}) + ' items of "
            f"{esize} byte(s), but only ' + _str(_len(body) - _p) + ' bytes follow')",
        ]
        if isinstance(t, String):
            self.dec += [
                "    try:",
                f"        o.{f.name} = _str(body[_p:_e], 'utf-8')",
                "    except _UnicodeDecodeError as exc:",
                f"        raise _DecodeError('{where}: not UTF-8: ' + _str(exc)) from None",
            ]
            self.enc_parts.append(v)
        elif t.element == U8:
            self.dec.append(f"    o.{f.name} = body[_p:_e]")
            self.enc_parts.append(v)
        else:
            code = t.element.code
            self.dec.append(f"    o.{f.name} = _unpack('<%d{code}' % {n}, body, _p)")
            self.enc_parts.append(f"_pack('<%d{code}' % _len({v}), *{v})")
        self.dec.append("    _p = _e")
        self.pos_known = None
        self.variable = True

    def flush(self) -> None:
        """Emit the current fixed run as one Struct (encode side gets the id byte in front)."""
        if not self.codes and not (self.first and self.has_id):
            return
        fmt = "".join(self.codes)
        dstruct = struct.Struct("<" + fmt)
        if self.first and self.has_id:
            estruct = struct.Struct("<B" + fmt)
            exprs = [str(self.spec.id), *self.exprs]
        else:
            estruct = dstruct
            exprs = list(self.exprs)
        E = self.gen.const(estruct, "E")
        self.enc_lines += self.enc_pre
        self.enc_parts.append(f"{E}.pack({', '.join(exprs)})")
        if fmt:
            D = self.gen.const(dstruct.unpack_from, "D")
            pos = str(self.pos_known) if self.pos_known is not None else "_p"
            need = f"{pos} + {dstruct.size}"
            targets = "".join(x + ", " for x in self.targets)
            self.dec += [
                "    try:",
                f"        ({targets}) = {D}(body, {pos})",
                "    except _StructError:",
                f"        raise _short(body, {need}) from None",
            ]
            self.dec += self.post
            if self.pos_known is not None:
                self.pos_known += dstruct.size
                self.dec.append(f"    _p = {self.pos_known}")
            else:
                self.dec.append(f"    _p += {dstruct.size}")
        self.min_size += dstruct.size
        self.first = False
        self.codes, self.targets, self.post, self.enc_pre, self.exprs = [], [], [], [], []

    def source(self) -> str:
        for f in self.spec.fields:
            t = f.type
            if isinstance(t, Scalar):
                self.add_scalar(f, t)
            elif isinstance(t, FixedArray):
                self.add_fixed_array(f, t)
            elif isinstance(t, StructSpec):
                self.add_struct(f, t)
            elif isinstance(t, (VarArray, String)):
                self.add_variable(f, t)
            else:  # pragma: no cover - the table only uses the types above
                raise TypeError(f"{self.spec.name}.{f.name}: unsupported field type {t!r}")
        self.flush()
        if self.dec and self.dec[-1].startswith(("    _p = ", "    _p += ")):
            self.dec.pop()  # nothing reads the offset after the last field
        dec = ["def _decode(body):", "    o = _new(_cls)", *self.dec, "    return o"]
        if len(self.enc_parts) == 1 and not self.spec.fields:
            body_const = self.gen.const(bytes([self.spec.id]) if self.spec.id is not None else b"", "B")
            enc = ["def _encode(o):", f"    return {body_const}"]
        elif self.enc_parts:
            enc = ["def _encode(o):", *self.enc_lines, "    return " + " + ".join(self.enc_parts)]
        else:
            enc = ["def _encode(o):", "    return b''"]
        return "\n".join(dec + enc) + "\n"


def _init_source(spec: MessageSpec | StructSpec, gen: _Gen, structs: dict[str, type[Struct]]) -> str:
    """``__init__`` taking fields positionally or by keyword, with the table's defaults."""
    params, lines = [], []
    for f in spec.fields:
        t = f.type
        d = _default_for(f)
        where = f"{spec.name}.{f.name}"
        n = f.name
        params.append(f"{n}={gen.const(d, 'd')}")
        if isinstance(t, FixedArray | VarArray) and t.element == U8:
            lines.append(f"    self.{n} = {n} if {n}.__class__ is _bytes else "
                         f"{gen.const(_coerce_bytes)}({n}, '{where}')")
        elif isinstance(t, FixedArray) and isinstance(t.element, StructSpec):
            mk = gen.const(structs[t.element.name], "S")
            fresh = "(" + "".join(f"{mk}(), " for _ in range(t.length)) + ")"
            lines.append(f"    self.{n} = {fresh} if {n} is None else ({n} if {n}.__class__ is _tuple "
                         f"else {gen.const(_coerce_tuple)}({n}, '{where}'))")
        elif isinstance(t, FixedArray | VarArray):
            lines.append(f"    self.{n} = {n} if {n}.__class__ is _tuple else "
                         f"{gen.const(_coerce_tuple)}({n}, '{where}')")
        elif isinstance(t, StructSpec):
            mk = gen.const(structs[t.name], "S")
            lines.append(f"    self.{n} = {mk}() if {n} is None else {n}")
        else:
            lines.append(f"    self.{n} = {n}")
    if not lines:
        lines = ["    pass"]
    return "\n".join([f"def __init__(self, {', '.join(params)}):" if params else "def __init__(self):",
                      *lines]) + "\n"


def _build_message(spec: MessageSpec, structs: dict[str, type[Struct]]) -> tuple[type[Message], Decoder]:
    """The class of one message, and its decoder (body bytes -> message) for the dispatch tables."""
    gen = _Gen(spec.name)
    names = [f.name for f in spec.fields]
    gen.ns["_DecodeError"] = DecodeError
    layout = _Layout(spec, gen, structs)
    src = layout.source() + _init_source(spec, gen, structs) + "\n".join(_eq_source(names)) + "\n"
    head = f"{spec.name} (id 0x{spec.id:02x})" if spec.id is not None else spec.name
    suffix = " (counting the id byte)" if spec.id is not None else ""

    def _short(body: bytes, need: int) -> DecodeError:
        return DecodeError(f"{head}: body is {len(body)} bytes, the layout needs at least {need}{suffix}")

    gen.ns["_short"] = _short
    ns = gen.run(src)
    decoder: Decoder = ns["_decode"]
    cls = _subclass(Message, spec.name, {
        "__slots__": tuple(names),
        "__init__": ns["__init__"],
        "__eq__": ns["__eq__"],
        "_encode": ns["_encode"],
        "_decode": staticmethod(decoder),
        "_SOURCE": src,  # kept for debugging the generator
        "FIELDS": tuple(names),
        "NAME": spec.name,
        "ID": spec.id,
        "PACKET_TYPE": spec.packet_type,
        "FROM_ROBOT": spec.from_robot,
        "SPEC": spec,
        "MIN_SIZE": layout.min_size,
        "SIZE": None if layout.variable else layout.min_size,
        "_ENUMS": {f.name: f.enum for f in spec.fields if f.enum is not None},
        "__doc__": spec.doc,
        "__annotations__": {f.name: _hint(f.type) for f in spec.fields},
    })
    gen.ns["_cls"] = cls  # looked up when the decoder runs, so it can be bound after the class exists
    return cls, decoder


def build(messages: tuple[MessageSpec, ...], structs: tuple[StructSpec, ...]) -> Built:
    """Generate every class and codec from the table; checks the table's consistency too."""
    struct_classes: dict[str, type[Struct]] = {}
    for s in structs:
        struct_classes[s.name] = _build_struct(s)
    classes: dict[str, type[Message]] = {}
    by_id: dict[int, Decoder] = {}
    by_ptype: dict[int, Decoder] = {}
    for spec in messages:
        if spec.name in classes or spec.name in struct_classes:
            raise ValueError(f"message table: duplicate name {spec.name}")
        if len({f.name for f in spec.fields}) != len(spec.fields):
            raise ValueError(f"message table: {spec.name} has duplicate field names")
        cls, decoder = _build_message(spec, struct_classes)
        classes[spec.name] = cls
        if spec.id is None:
            if spec.packet_type in by_ptype:
                raise ValueError(f"message table: two messages for packet type {spec.packet_type!r}")
            by_ptype[int(spec.packet_type)] = decoder
        else:
            if not 0 <= spec.id <= 0xFF:
                raise ValueError(f"message table: {spec.name} id {spec.id} out of range")
            if spec.id in by_id:
                raise ValueError(f"message table: duplicate id 0x{spec.id:02x} ({spec.name})")
            by_id[spec.id] = decoder
    return Built(struct_classes, classes, by_id, by_ptype)


# --------------------------------------------------------------------------------------------
# Slow path: explain why an encode failed


def _check(path: str, t: FieldType, value: object, structs: dict[str, type[Struct]]) -> str | None:
    if isinstance(t, Scalar):
        if t == BOOL:
            return None
        if t in (F32, F64):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                try:
                    value = float(value)  # type: ignore[arg-type]
                except (TypeError, ValueError):
                    return f"{path}: expected a number ({t.name}), got {value!r:.60}"
        try:
            struct.pack("<" + t.code, value)
        except (struct.error, OverflowError, TypeError):
            rng = f" in {t.lo}..{t.hi}" if t.lo is not None else ""
            return f"{path}: expected {t.name}{rng}, got {value!r:.60}"
        return None
    if isinstance(t, StructSpec):
        cls = structs[t.name]
        if not isinstance(value, cls):
            return f"{path}: expected a {t.name}, got {type(value).__name__}"
        for f in t.fields:
            err = _check(f"{path}.{f.name}", f.type, getattr(value, f.name, None), structs)
            if err:
                return err
        return None
    if isinstance(t, String):
        if not isinstance(value, str):
            return f"{path}: expected str, got {type(value).__name__}"
        try:
            raw = value.encode("utf-8")
        except UnicodeEncodeError as exc:
            return f"{path}: not encodable as UTF-8 ({exc})"
        if len(raw) > t.max_length:
            return f"{path}: {len(raw)} bytes of UTF-8, at most {t.max_length} fit the length prefix"
        return None
    # Arrays.
    el = t.element
    seq: Sequence[object]
    if el == U8:
        try:
            seq = bytes(value)  # type: ignore[call-overload]  # bytes() decides what it takes
        except (TypeError, ValueError):
            return f"{path}: expected bytes (or a sequence of 0..255), got {value!r:.60}"
    else:
        items = _as_tuple(value)
        if items is None:
            return f"{path}: expected a sequence, got {type(value).__name__}"
        seq = items
    if isinstance(t, FixedArray) and len(seq) != t.length:
        return f"{path}: expected exactly {t.length} items, got {len(seq)}"
    if isinstance(t, VarArray) and len(seq) > t.max_length:
        return f"{path}: {len(seq)} items, at most {t.max_length} fit the {t.length_type.name} prefix"
    if el != U8:
        for i, item in enumerate(seq):
            err = _check(f"{path}[{i}]", el, item, structs)
            if err:
                return err
    return None


def explain_encode_error(msg: object, exc: BaseException, structs: dict[str, type[Struct]]) -> Exception:
    """Turn a failure inside a generated encoder into a ValueError naming message and field."""
    if not isinstance(msg, Message):
        return TypeError(f"expected a protocol message, got {type(msg).__name__}")
    spec = msg.SPEC
    if spec is not None:
        for f in spec.fields:
            if not hasattr(msg, f.name):
                return ValueError(f"{msg.NAME}.{f.name}: not set")
            err = _check(f"{msg.NAME}.{f.name}", f.type, getattr(msg, f.name), structs)
            if err:
                return ValueError(err)
    return ValueError(f"{msg.NAME}: cannot encode ({type(exc).__name__}: {exc})")
