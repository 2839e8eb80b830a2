"""Cozmo messages: one class per entry of the message table, and the packet codec.

Usage::

    from driver.protocol import messages as m

    raw = m.encode(m.SetHeadAngle(angle_rad=0.3))   # -> frame.RawPacket(COMMAND, b"\\x37" + payload)
    msg = m.decode(raw)                              # -> SetHeadAngle(angle_rad=0.30000001192..., ...)

Every class here is generated at import from :mod:`driver.protocol.table` (the only place a
layout is written down) by :mod:`driver.protocol.codec`. Classes take their fields positionally
or by keyword, with the table's defaults; instances compare equal by type and fields.

Decoding rules, chosen so that a receive loop never dies on bad data:

* unknown message ids become :class:`UnknownMessage` (not an error);
* a body longer than the table's layout decodes the declared fields and ignores the rest
  (layouts grow between firmware versions);
* a body too short for its layout, a length prefix running past the end, bad UTF-8 or an
  unknown packet type raise :class:`~driver.protocol.frame.DecodeError`, naming the message and
  what was expected. :func:`decode` raises nothing else, for any bytes.

Floats travel as IEEE f32 (Ping's time as f64), so a decoded value is the f32 nearest to the
value sent: ``SetHeadAngle(0.3)`` comes back as ``0.30000001192...``.

Decoded enum fields stay plain ints (a newer firmware may send values the enums do not know);
compare them with the IntEnums, which are ints too. The message id, not the packet type,
selects the class: a COMMAND packet carrying an event id still decodes.
"""

from __future__ import annotations

from . import registry as _registry
from .registry import *  # noqa: F403  # the public API, re-exported beside the classes

globals().update(_registry.STRUCTS)
globals().update(_registry.BY_NAME)

__all__ = [*_registry.__all__, *_registry.STRUCTS, *_registry.BY_NAME]
