"""The base classes of the message classes that :mod:`driver.protocol.codec` generates.

:class:`Message` and :class:`Struct` say what every generated class has (fields in wire order,
name, id, packet type, sizes) and what the generated code fills in per class (``_encode``,
``_make``, ``_values``); :class:`Record` gives both a readable ``repr`` and ``to_dict``.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntFlag
from typing import Any, ClassVar

from .frame import PacketType
from .table import EnumClass, MessageSpec, StructSpec

__all__ = ["Decoder", "Message", "Record", "Struct"]

_BYTES_REPR_LIMIT = 16


class Record:
    """Base of every generated record type (messages and nested structs such as LightState).

    Instances are plain mutable objects with ``__slots__``; equality compares type and fields.
    """

    __slots__ = ()
    #: Field names in wire order.
    FIELDS: ClassVar[tuple[str, ...]] = ()
    NAME: ClassVar[str] = ""
    _ENUMS: ClassVar[dict[str, EnumClass]] = {}
    __hash__ = None  # type: ignore[assignment]  # mutable

    def to_dict(self) -> dict[str, Any]:
        """Field values by name; nested records become dicts too (for logs, JSON, dashboards)."""
        return {name: _plain(getattr(self, name)) for name in self.FIELDS}

    def __repr__(self) -> str:
        enums = self._ENUMS
        parts = []
        for name in self.FIELDS:
            value = getattr(self, name, "<unset>")
            enum = enums.get(name)
            parts.append(f"{name}={_enum_repr(enum, value) if enum else _short_repr(value)}")
        return f"{self.NAME}({', '.join(parts)})"


class Message(Record):
    """Base of every generated message class.

    Class attributes say what a message is: ``ID`` (None for packet-level messages such as Ping),
    ``NAME``, ``PACKET_TYPE``, ``FROM_ROBOT``, ``SIZE`` (payload bytes after the id; None when
    the layout has a variable-length tail) and ``MIN_SIZE``.
    """

    __slots__ = ()
    ID: ClassVar[int | None] = None
    PACKET_TYPE: ClassVar[PacketType] = PacketType.COMMAND
    FROM_ROBOT: ClassVar[bool] = False
    SIZE: ClassVar[int | None] = None
    MIN_SIZE: ClassVar[int] = 0
    SPEC: ClassVar[MessageSpec | None] = None

    def _encode(self) -> bytes:  # replaced per class by generated code
        raise NotImplementedError


class Struct(Record):
    """Base of every generated nested record (LightState): a fixed layout of scalars.

    Messages embed these; their generated codecs build them with ``_make`` (positional, no
    checks) and flatten them with ``_values`` (the fields in wire order).
    """

    __slots__ = ()
    SPEC: ClassVar[StructSpec | None] = None
    #: Bytes on the wire.
    SIZE: ClassVar[int | None] = None
    #: ``_make(*fields)`` -> a new instance; set per class by generated code.
    _make: ClassVar[Callable[..., Struct]]

    def _values(self) -> tuple[object, ...]:  # replaced per class by generated code
        raise NotImplementedError


#: A generated decoder: the body of a packet (id byte included, if any) -> its message.
Decoder = Callable[[bytes], Message]


def _plain(value: object) -> object:
    if isinstance(value, Record):
        return value.to_dict()
    if isinstance(value, tuple) and value and isinstance(value[0], Record):
        return [_plain(v) for v in value]
    return value


def _short_repr(value: object) -> str:
    if isinstance(value, (bytes, bytearray)) and len(value) > _BYTES_REPR_LIMIT:
        return f"{bytes(value[:_BYTES_REPR_LIMIT])!r}...<{len(value)} bytes>"
    return repr(value)


def _enum_repr(enum: EnumClass, value: object) -> str:
    if issubclass(enum, IntFlag):
        if not isinstance(value, int):
            return repr(value)
        names = [m.name for m in enum if m.name and m.value and m.value & (m.value - 1) == 0 and value & m.value]
        rest = value & ~sum(m.value for m in enum if m.value & (m.value - 1) == 0)
        if rest:
            names.append(f"{rest:#x}")
        return f"{enum.__name__}({'|'.join(names) or '0'})"
    if not isinstance(value, int):
        return repr(value)
    try:
        return f"{enum.__name__}.{enum(value).name}"
    except (ValueError, TypeError):
        return repr(value)
