"""The animation clip model: one typed record per keyframe of every Cozmo track.

A clip is what an animator made: a name and, per track, a time-ordered list of
keyframes. The three file formats (.bin, JSON, text) all read into and write from this
model, so the player and the tools only ever deal with one shape.

Conventions
- Python attribute names are snake_case; the file formats use the schema's field names
  (``triggerTime_ms``, ``faceCenterX`` …). ``KEYFRAME_TYPES`` maps between them.
- Every float field is stored rounded to IEEE single precision, like the .bin stores it,
  so a clip read from JSON or text compares equal to the same clip read from .bin.
- Keyframes and clips are immutable; lists are tuples. Build variants with
  ``dataclasses.replace``.
- Constructing a :class:`Clip` validates it (types, ranges, time order) and raises
  :class:`ClipError` naming the clip, the track and the keyframe index.

The keyframe types and the track enum live in :mod:`.keyframes`; they are re-exported here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import MISSING, dataclass, field
from dataclasses import fields as dataclass_fields
from typing import Any

__all__ = [
    "AnimationError",
    "BackpackLights",
    "BodyMotion",
    "Clip",
    "ClipError",
    "Event",
    "EYE_PARAMETERS",
    "FaceAnimation",
    "HeadAngle",
    "Keyframe",
    "KEYFRAME_TYPES",
    "LiftHeight",
    "Parameter",
    "REQUIRED_FIELDS",
    "PlaybackHints",
    "ProceduralFace",
    "RecordHeading",
    "RobotAudio",
    "Track",
    "TurnToRecordedHeading",
    "f32",
    "f32_text",
    "light_fractions",
    "schema_default",
    "written_as_0_255",
]


from .keyframes import (
    EYE_PARAMETERS,
    KEYFRAME_TYPES,
    REQUIRED_FIELDS,
    AnimationError,
    BackpackLights,
    BodyMotion,
    ClipError,
    Event,
    FaceAnimation,
    HeadAngle,
    Keyframe,
    LiftHeight,
    ProceduralFace,
    RecordHeading,
    RobotAudio,
    Track,
    TurnToRecordedHeading,
    f32,
    f32_text,
)
from .keyframes import (
    RADIUS_WORDS as RADIUS_WORDS,
)
from .keyframes import (
    AnyKeyframe as AnyKeyframe,
)

# --------------------------------------------------------------------------- playback hints


@dataclass(frozen=True, slots=True)
class Parameter:
    """A tunable playback parameter of a clip (from the text format's Parameters section).

    ``minimum``/``default``/``maximum`` are None when the file names the parameter bare,
    meaning "use the player's built-in limits".
    """

    name: str
    minimum: float | None = None
    default: float | None = None
    maximum: float | None = None


@dataclass(frozen=True, slots=True)
class PlaybackHints:
    """How a clip may be fitted into a behaviour that lasts longer or shorter than it.

    - ``extendable``: the player may loop the clip to fill a longer slot.
    - ``truncatable``: the player may stop the clip early.
    - ``no_looping``: when the slot outlasts the clip, hold the last frame rather than loop.
    - ``bpm``: nominal tempo; a dance player retimes the clip to keep its beat count.
    - ``parameters``: tunables (speed, offsets, multipliers) with their limits.

    Only the text format stores these; .bin and JSON clips get the defaults.
    """

    extendable: bool = False
    truncatable: bool = False
    no_looping: bool = False
    bpm: float | None = None
    description: str = ""
    parameters: tuple[Parameter, ...] = ()

    def parameter(self, name: str) -> Parameter | None:
        """The parameter called ``name``, or None."""
        for p in self.parameters:
            if p.name == name:
                return p
        return None


def schema_default(cls: type[Keyframe], attr: str) -> Any:
    """The value a file format assumes when a keyframe field is absent (the schema default).

    Raises KeyError for required fields, which have no default.
    """
    for a, schema_name, kind in cls.FIELDS:
        if a != attr:
            continue
        if (cls.SCHEMA, schema_name) in REQUIRED_FIELDS:
            raise KeyError(schema_name)
        for f in dataclass_fields(cls):
            if f.name == attr and f.default is not MISSING:
                return f.default
        if kind in ("eye", "probs", "rgba", "longs"):
            return ()
        if kind == "float":
            return 0.0
        if kind == "bool":
            return False
        if kind in ("str", "radius"):
            return ""
        return 0
    raise AttributeError(f"{cls.__name__} has no field {attr}")


# --------------------------------------------------------------------------- the clip

_INT_RANGES: dict[str, tuple[int, int]] = {
    "uint": (0, 0xFFFFFFFF),
    "ubyte": (0, 0xFF),
    "byte": (-0x80, 0x7F),
    "short": (-0x8000, 0x7FFF),
    "ushort": (0, 0xFFFF),
}
#: Audio event ids are stored as int64 but are Wwise ids, which are 32-bit and unsigned.
_EVENT_ID_MAX = 0xFFFFFFFF
#: Scalar float fields that are fractions (a volume of 1.0 is the clip's full level).
_UNIT_FIELDS = frozenset({("RobotAudio", "volume")})


def _check_value(kind: str, value: Any) -> str | None:
    """Return why ``value`` is not a valid ``kind`` field value, or None if it is."""
    if kind in _INT_RANGES:
        lo, hi = _INT_RANGES[kind]
        if isinstance(value, bool) or not isinstance(value, int):
            return f"expected an integer, got {value!r}"
        if not lo <= value <= hi:
            return f"{value} is outside {lo}..{hi}"
        return None
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"expected a number, got {value!r}"
        if not math.isfinite(value):
            return f"expected a finite number, got {value!r}"
        return None
    if kind == "bool":
        return None if isinstance(value, bool) else f"expected true or false, got {value!r}"
    if kind == "str":
        return None if isinstance(value, str) else f"expected a string, got {value!r}"
    if kind == "radius":
        if not isinstance(value, str):
            return f"expected STRAIGHT, TURN_IN_PLACE or a number as text, got {value!r}"
        if value in RADIUS_WORDS:
            return None
        try:
            number = float(value)
        except ValueError:
            return f"expected STRAIGHT, TURN_IN_PLACE or a number, got {value!r}"
        return None if math.isfinite(number) else f"radius must be finite, got {value!r}"
    if kind in ("eye", "probs", "rgba", "longs"):
        if not isinstance(value, tuple):
            return f"expected a list, got {value!r}"
        if kind == "longs":  # stored as int64, but they are Wwise event ids: 32-bit, unsigned
            for v in value:
                if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= _EVENT_ID_MAX:
                    return f"expected audio event ids (0..{_EVENT_ID_MAX}), got {v!r}"
            return None
        if kind == "rgba" and len(value) != 4:
            return f"expected 4 values (r, g, b, a), got {len(value)}"
        if kind == "eye" and len(value) > len(EYE_PARAMETERS):
            return f"expected at most {len(EYE_PARAMETERS)} eye parameters, got {len(value)}"
        for v in value:
            why = _check_value("float", v)
            if why:
                return why
            if kind == "probs" and not 0.0 <= v <= 1.0:
                return f"{v} is outside 0..1"
        return None
    raise AssertionError(f"unknown field kind {kind}")  # a programming error in FIELDS


@dataclass(frozen=True)
class Clip:
    """A named animation: per track, keyframes in non-decreasing trigger time.

    ``source`` (not part of equality) is where the clip was read from, for messages.
    Construction validates and raises :class:`ClipError` on the first problem.
    """

    name: str
    lift_height: tuple[LiftHeight, ...] = ()
    procedural_face: tuple[ProceduralFace, ...] = ()
    head_angle: tuple[HeadAngle, ...] = ()
    robot_audio: tuple[RobotAudio, ...] = ()
    backpack_lights: tuple[BackpackLights, ...] = ()
    face_animation: tuple[FaceAnimation, ...] = ()
    event: tuple[Event, ...] = ()
    body_motion: tuple[BodyMotion, ...] = ()
    record_heading: tuple[RecordHeading, ...] = ()
    turn_to_recorded_heading: tuple[TurnToRecordedHeading, ...] = ()
    playback: PlaybackHints = field(default_factory=PlaybackHints)
    source: str | None = field(default=None, compare=False)

    @classmethod
    def from_tracks(
        cls,
        name: str,
        tracks: Mapping[Track, Iterable[Keyframe]],
        *,
        playback: PlaybackHints | None = None,
        source: str | None = None,
    ) -> Clip:
        """A clip from keyframes gathered per track, as the file readers gather them.

        Each track's keyframes must be of that track's class; :meth:`validate` checks it at
        construction, as for any clip, so the per-track types are left to it here.
        """
        by_attr: dict[str, Any] = {track.attr: tuple(frames) for track, frames in tracks.items()}
        return cls(name, playback=playback if playback is not None else PlaybackHints(), source=source, **by_attr)

    def __post_init__(self) -> None:
        for track in Track:
            value = getattr(self, track.attr)
            if isinstance(value, list):
                object.__setattr__(self, track.attr, tuple(value))
        self.validate()

    # -- queries

    def keyframes(self, track: Track) -> tuple[Keyframe, ...]:
        """The keyframes of one track."""
        return getattr(self, track.attr)

    def tracks_used(self) -> frozenset[Track]:
        """The tracks that have at least one keyframe (the ones playback must lock)."""
        return frozenset(t for t in Track if getattr(self, t.attr))

    def all_keyframes(self) -> list[Keyframe]:
        """Every keyframe of every track, ordered by trigger time (stable by track order)."""
        out: list[Keyframe] = []
        for track in Track:
            out.extend(getattr(self, track.attr))
        out.sort(key=lambda k: k.trigger_time_ms)
        return out

    def iter_tracks(self) -> Iterator[tuple[Track, tuple[Keyframe, ...]]]:
        """(track, keyframes) for the tracks that have keyframes, in schema order."""
        for track in Track:
            frames = getattr(self, track.attr)
            if frames:
                yield track, frames

    @property
    def duration_ms(self) -> int:
        """When the last keyframe's action ends (0 for an empty clip)."""
        end = 0
        for track in Track:
            for kf in getattr(self, track.attr):
                end = max(end, kf.end_ms)
        return end

    def warnings(self) -> list[str]:
        """What is valid but probably not meant, one line each (``check`` and ``anim convert`` say them).

        A light colour outside 0..1: the schema's floats are fractions of full brightness, but
        files written by other tools carry 0-255. The value is kept as written; how it plays is
        :func:`light_fractions`'s rule (a light with a colour channel above 1 is 0-255, anything
        else outside 0..1 is clamped).
        """
        out = []
        for i, kf in enumerate(self.backpack_lights):
            for attr, schema_name, _kind in kf.FIELDS:
                if _kind != "rgba":
                    continue
                rgba = getattr(kf, attr)
                if any(not 0.0 <= v <= 1.0 for v in rgba):
                    shown = ", ".join(f"{v:g}" for v in rgba)
                    how = "read as a 0-255 colour" if written_as_0_255(rgba) else "clamped to 0..1"
                    out.append(f"{self.name}: BackpackLights keyframe {i} ({kf.trigger_time_ms} ms) {schema_name} "
                               f"({shown}) is outside 0..1: {how}")
        return out

    @property
    def keyframe_count(self) -> int:
        """Total number of keyframes over all tracks."""
        return sum(len(getattr(self, t.attr)) for t in Track)

    # -- validation

    def validate(self) -> None:
        """Check every rule of the model; raise ClipError naming clip/track/keyframe."""
        name = self.name
        if not isinstance(name, str) or not name:
            raise ClipError(str(name), "clip name must be a non-empty string")
        if not isinstance(self.playback, PlaybackHints):
            raise ClipError(name, f"playback must be PlaybackHints, got {type(self.playback).__name__}")
        for track in Track:
            frames = getattr(self, track.attr)
            if not isinstance(frames, tuple):
                why = f"expected a tuple of keyframes, got {type(frames).__name__}"
                raise ClipError(name, why, track.value)
            cls = KEYFRAME_TYPES[track]
            previous = -1
            for i, kf in enumerate(frames):
                if type(kf) is not cls:
                    why = f"expected a {cls.__name__}, got {type(kf).__name__}"
                    raise ClipError(name, why, track.value, i)
                for attr, schema_name, kind in cls.FIELDS:
                    value = getattr(kf, attr)
                    problem = _check_value(kind, value)
                    if not problem and (track.value, schema_name) in _UNIT_FIELDS and not 0.0 <= value <= 1.0:
                        problem = f"{value} is outside 0..1"
                    if problem:
                        raise ClipError(name, f"{schema_name}: {problem}", track.value, i, schema_name)
                if kf.trigger_time_ms < previous:
                    raise ClipError(
                        name,
                        f"triggerTime_ms {kf.trigger_time_ms} is earlier than the previous one ({previous})",
                        track.value,
                        i,
                        "triggerTime_ms",
                    )
                previous = kf.trigger_time_ms


def written_as_0_255(rgba: Sequence[float]) -> bool:
    """True when a light's colour was written as 0-255 (any of red, green, blue above 1), not as
    fractions of full brightness as Anki's files have it."""
    return max(rgba[:3], default=0.0) > 1.0


def light_fractions(rgba: Sequence[float]) -> tuple[float, float, float]:
    """A light's red, green and blue as fractions of full brightness (0..1): as written, or divided
    by 255 when :func:`written_as_0_255`; clamped either way."""
    scale = 1.0 / 255.0 if written_as_0_255(rgba) else 1.0
    r, g, b = (min(1.0, max(0.0, float(c) * scale)) for c in (tuple(rgba[:3]) + (0.0, 0.0, 0.0))[:3])
    return r, g, b
