"""Audio event ids from sound names, the way Wwise makes them.

A clip's RobotAudio keyframe names its sound by a 32-bit audio event id. The Cozmo app's ids are
Wwise's: Wwise derives the id of an event (and of a bank, a switch, a game parameter) from its
name with the 32-bit FNV-1 hash of the name in lower case (offset basis 2166136261, prime 16777619,
multiply then XOR each byte). Wwise's own generated id tables bear this out: ``Init`` → 1355168291,
the id of every Wwise project's Init bank, and ``Play_Test`` → 3187507146.

The project's sounds use the same rule, so a sound is named once (``vo_yawn``) and its id follows:
``.cozanim`` sources may write the name in their ``audio_id`` column, and a WAV file called
``sound/**/vo_yawn.wav`` answers the keyframes that play that id.
"""

from __future__ import annotations

import re

__all__ = ["FNV1_OFFSET_BASIS", "FNV1_PRIME", "SOUND_NAME_RE", "audio_event_id", "is_sound_name"]

FNV1_OFFSET_BASIS = 2166136261
FNV1_PRIME = 16777619

#: What a sound name looks like: a letter or underscore, then letters, digits and underscores
#: (Wwise's names; a name can never be mistaken for a number).
SOUND_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def is_sound_name(text: str) -> bool:
    """True when ``text`` is a sound name (not a number, no spaces or punctuation)."""
    return bool(SOUND_NAME_RE.match(text))


def audio_event_id(name: str) -> int:
    """The 32-bit audio event id of a sound name: FNV-1 of its lower-cased UTF-8 bytes."""
    if not name:
        raise ValueError("a sound name cannot be empty")
    h = FNV1_OFFSET_BASIS
    for byte in name.lower().encode("utf-8"):
        h = (h * FNV1_PRIME) & 0xFFFFFFFF
        h ^= byte
    return h
