"""Build the robot's voice: ``resources/src/voice.yaml`` → WAV files under ``resources/``.

The project's clips play sounds of their own, synthesised from parameters, never recorded: the
voice file describes each vocalisation (chirps, trills, hums, a yawn, a grumble …) as layers of
tones and breath, and the sung notes of the singing clips' tunes. This script renders them with
:mod:`voice_synth` into ``resources/cozmo_resources/sound/voice/<name>.wav`` (16-bit mono at the
speaker's 22,320 Hz), the way ``tools/build_resources.py`` builds ``.cozanim`` sources into
``.bin`` clips:

    python tools/build_voice.py           # (re)write the WAV files from the voice file
    python tools/build_voice.py --check   # exit 1 if a WAV file is missing, stale or orphaned

A clip plays a sound by name (``audio_id vo_yawn`` in its ``.cozanim`` source); the name's audio
event id is Wwise's FNV-1 hash of it (:mod:`driver.animation.sound_ids`), and the runtime finds
the WAV by that name. Rendering is deterministic: the same voice file gives the same bytes on
every run and machine (see :mod:`voice_synth`). An error in the voice file names its line and
field: ``resources/src/voice.yaml:12: sounds.vo_yawn.layers[0].tone.pitch[1]: …``.
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
for _path in (REPO, HERE):
    if str(_path) not in sys.path:  # run as a plain script, or loaded by file from the tests
        sys.path.insert(0, str(_path))

import built_outputs  # noqa: E402
import yaml  # noqa: E402
from voice_synth import Noise, Repeat, Sound, Tone, hz_to_semitone, render_wav  # noqa: E402

from brain.personality.located import LList, LMap, Loc, parse_located  # noqa: E402
from driver.animation.sound_ids import is_sound_name  # noqa: E402

__all__ = [
    "DEFAULT_OUT",
    "DEFAULT_SRC",
    "Tune",
    "Voice",
    "VoiceError",
    "build",
    "check",
    "load_voice",
    "main",
    "note_semitone",
    "write",
]

log = logging.getLogger("build_voice")

DEFAULT_SRC = REPO / "resources" / "src" / "voice.yaml"
DEFAULT_OUT = REPO / "resources" / "cozmo_resources" / "sound" / "voice"

_NOTE_RE = re.compile(r"([A-Ga-g])([#b]?)(-?\d)\Z")
_STEPS = {"c": 0, "d": 2, "e": 4, "f": 5, "g": 7, "a": 9, "b": 11}
_MAX_SECONDS = 10.0


class VoiceError(Exception):
    """The voice file cannot be built; the message has one ``file:line: field: problem`` per line."""


def note_semitone(text: str) -> int | None:
    """The MIDI note number of a note name (``A4`` = 69, ``C#5``, ``Bb3``), or None if not a note."""
    m = _NOTE_RE.match(text.strip())
    if not m:
        return None
    letter, accidental, octave = m.groups()
    shift = {"#": 1, "b": -1, "": 0}[accidental]
    return 12 * (int(octave) + 1) + _STEPS[letter.lower()] + shift


@dataclass(frozen=True)
class Tune:
    """A sung melody for one clip: the clip's RobotAudio keyframes are its notes, one per slot."""

    clip: str
    bpm: float
    start_ms: int
    #: (note name or "R" for a rest, length in beats)
    notes: tuple[tuple[str, float], ...]

    @property
    def beat_ms(self) -> float:
        """One beat in milliseconds."""
        return 60000.0 / self.bpm

    def slots(self) -> list[tuple[int, str, int]]:
        """Each sung note as (start ms in the clip, note name, slot length ms); rests are skipped."""
        out: list[tuple[int, str, int]] = []
        beats = 0.0
        for note, length in self.notes:
            start = self.start_ms + int(round(beats * self.beat_ms))
            slot = int(round(length * self.beat_ms))
            if note.upper() != "R":
                out.append((start, note, slot))
            beats += length
        return out

    def keyframes(self) -> list[tuple[int, str]]:
        """The clip's RobotAudio keyframes for this tune: (time ms, sound name)."""
        return [(start, sung_note_name(note, slot)) for start, note, slot in self.slots()]


def sung_note_name(note: str, slot_ms: int) -> str:
    """The sound name of a sung note filling a slot: ``vo_sing_<note>_<ms>ms`` (``#`` → ``s``)."""
    return f"vo_sing_{note.lower().replace('#', 's')}_{slot_ms}ms"


@dataclass(frozen=True)
class Voice:
    """What the voice file describes: every sound to render, and the tunes the sung notes come from."""

    sounds: dict[str, Sound]
    tunes: tuple[Tune, ...]


# ---------------------------------------------------------------------------------------------
# Reading the voice file


class _Reader:
    """Turns the located YAML into records, collecting every problem with its line and field."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.problems: list[str] = []

    def fail(self, loc: Loc, path: str, message: str) -> None:
        self.problems.append(f"{self.file}:{loc.line}: {path}: {message}")

    def number(self, value: Any, loc: Loc, path: str, lo: float, hi: float) -> float | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(loc, path, f"expected a number, got {value!r}")
            return None
        if not lo <= value <= hi:
            self.fail(loc, path, f"{value} is outside {lo}..{hi}")
            return None
        return float(value)

    def mapping(self, value: Any, loc: Loc, path: str, keys: set[str], required: set[str] = frozenset()
                ) -> LMap | None:
        if not isinstance(value, LMap):
            self.fail(loc, path, f"expected a mapping, got {value!r}")
            return None
        for key in value:
            if key not in keys:
                self.fail(value.at(key), f"{path}.{key}", f"unknown key (expected one of {', '.join(sorted(keys))})")
        for key in sorted(required - set(value)):
            self.fail(value.loc, path, f"missing key {key!r}")
        return value

    def pair(self, value: Any, loc: Loc, path: str, lo: float, hi: float) -> tuple[float, float] | None:
        if not isinstance(value, LList) or len(value) != 2:
            self.fail(loc, path, f"expected a pair [a, b], got {value!r}")
            return None
        a = self.number(value[0], value.at(0), f"{path}[0]", lo, hi)
        b = self.number(value[1], value.at(1), f"{path}[1]", lo, hi)
        return None if a is None or b is None else (a, b)

    def pitch(self, value: Any, loc: Loc, path: str) -> float | None:
        if isinstance(value, str):
            semitone = note_semitone(value)
            if semitone is None:
                self.fail(loc, path, f"expected a note name such as A5 or C#6, or a frequency in Hz, got {value!r}")
                return None
            return float(semitone)
        hz = self.number(value, loc, path, 20.0, 8000.0)
        return None if hz is None else hz_to_semitone(hz)

    def points(self, value: Any, loc: Loc, path: str, kind: str) -> tuple[tuple[float, float], ...] | None:
        """Envelope points (s, 0..1) or pitch points (s, note or Hz), times not decreasing."""
        if not isinstance(value, LList) or not value:
            self.fail(loc, path, f"expected a list of [seconds, {'level' if kind == 'level' else 'pitch'}] points")
            return None
        out: list[tuple[float, float]] = []
        ok = True
        for i, item in enumerate(value):
            where = f"{path}[{i}]"
            if not isinstance(item, LList) or len(item) != 2:
                self.fail(value.at(i), where, f"expected [seconds, value], got {item!r}")
                ok = False
                continue
            t = self.number(item[0], item.at(0), f"{where}[0]", 0.0, _MAX_SECONDS)
            v = (self.number(item[1], item.at(1), f"{where}[1]", 0.0, 1.0) if kind == "level"
                 else self.pitch(item[1], item.at(1), f"{where}[1]"))
            if t is None or v is None:
                ok = False
                continue
            if out and t < out[-1][0]:
                self.fail(item.at(0), f"{where}[0]", f"time {t} is before the previous point's ({out[-1][0]})")
                ok = False
            out.append((t, v))
        return tuple(out) if ok else None

    def repeat(self, value: Any, loc: Loc, path: str) -> Repeat | None:
        m = self.mapping(value, loc, path, {"count", "every", "transpose", "gain"}, {"count", "every"})
        if m is None:
            return None
        count = self.number(m.get("count"), m.at("count"), f"{path}.count", 1, 64)
        every = self.number(m.get("every"), m.at("every"), f"{path}.every", 0.0, _MAX_SECONDS)
        transpose = self.number(m.get("transpose", 0.0), m.at("transpose"), f"{path}.transpose", -24.0, 24.0)
        gain = self.number(m.get("gain", 1.0), m.at("gain"), f"{path}.gain", 0.0, 2.0)
        if count is None or every is None or transpose is None or gain is None:
            return None
        if count != int(count):
            self.fail(m.at("count"), f"{path}.count", f"expected a whole number, got {count}")
            return None
        return Repeat(int(count), every, transpose, gain)

    def tone(self, value: Any, loc: Loc, path: str) -> Tone | None:
        keys = {"pitch", "envelope", "harmonics", "start", "level", "vibrato", "trill", "growl", "wander", "glide",
                "repeat"}
        m = self.mapping(value, loc, path, keys, {"pitch", "envelope"})
        if m is None:
            return None
        before = len(self.problems)
        pitch = self.points(m["pitch"], m.at("pitch"), f"{path}.pitch", "pitch") if "pitch" in m else None
        env = self.points(m["envelope"], m.at("envelope"), f"{path}.envelope", "level") if "envelope" in m else None
        harmonics: tuple[float, ...] = (1.0,)
        if "harmonics" in m:
            h = m["harmonics"]
            if not isinstance(h, LList) or not h or len(h) > 32:
                self.fail(m.at("harmonics"), f"{path}.harmonics", "expected a list of 1 to 32 amplitudes")
            else:
                hs = [self.number(v, h.at(i), f"{path}.harmonics[{i}]", 0.0, 1.0) for i, v in enumerate(h)]
                harmonics = tuple(v or 0.0 for v in hs)
        extra: dict[str, Any] = {}
        for key, lo, hi in (("vibrato", 0.0, 40.0), ("trill", 0.0, 40.0), ("growl", 0.0, 200.0)):
            if key in m:
                pair = self.pair(m[key], m.at(key), f"{path}.{key}", lo if key != "trill" else -24.0, hi)
                if pair is not None:
                    if pair[0] < 0:
                        self.fail(m.at(key), f"{path}.{key}[0]", f"a rate cannot be negative, got {pair[0]}")
                    extra[key] = pair
        if "growl" in extra and not 0.0 <= extra["growl"][1] <= 1.0:
            self.fail(m.at("growl"), f"{path}.growl[1]", f"a depth is 0..1, got {extra['growl'][1]}")
        for key, lo, hi in (("start", 0.0, _MAX_SECONDS), ("level", 0.0, 4.0), ("wander", 0.0, 4.0)):
            if key in m:
                v = self.number(m[key], m.at(key), f"{path}.{key}", lo, hi)
                if v is not None:
                    extra[key] = v
        if "glide" in m and m["glide"] not in ("smooth", "linear"):
            self.fail(m.at("glide"), f"{path}.glide", f"expected smooth or linear, got {m['glide']!r}")
        rep = self.repeat(m["repeat"], m.at("repeat"), f"{path}.repeat") if "repeat" in m else Repeat()
        if len(self.problems) > before or pitch is None or env is None or rep is None:
            return None
        return Tone(pitch=pitch, envelope=env, harmonics=harmonics, linear=m.get("glide") == "linear",
                    repeat=rep, **extra)

    def noise(self, value: Any, loc: Loc, path: str) -> Noise | None:
        m = self.mapping(value, loc, path, {"band", "envelope", "start", "level", "repeat"}, {"band", "envelope"})
        if m is None:
            return None
        before = len(self.problems)
        band = self.pair(m["band"], m.at("band"), f"{path}.band", 20.0, 10000.0) if "band" in m else None
        if band is not None and band[0] >= band[1]:
            self.fail(m.at("band"), f"{path}.band", f"the low edge must be below the high one, got {list(band)}")
        env = self.points(m["envelope"], m.at("envelope"), f"{path}.envelope", "level") if "envelope" in m else None
        extra: dict[str, Any] = {}
        for key, lo, hi in (("start", 0.0, _MAX_SECONDS), ("level", 0.0, 4.0)):
            if key in m:
                v = self.number(m[key], m.at(key), f"{path}.{key}", lo, hi)
                if v is not None:
                    extra[key] = v
        rep = self.repeat(m["repeat"], m.at("repeat"), f"{path}.repeat") if "repeat" in m else Repeat()
        if len(self.problems) > before or band is None or env is None or rep is None:
            return None
        return Noise(band=band, envelope=env, repeat=rep, **extra)

    def sound(self, name: str, value: Any, loc: Loc, path: str, default_peak: float, seed: int) -> Sound | None:
        m = self.mapping(value, loc, path, {"description", "duration", "peak", "layers"}, {"duration", "layers"})
        if m is None:
            return None
        before = len(self.problems)
        duration = self.number(m.get("duration"), m.at("duration"), f"{path}.duration", 0.02, _MAX_SECONDS)
        peak = self.number(m.get("peak", default_peak), m.at("peak"), f"{path}.peak", 0.05, 0.9)
        layers_in = m.get("layers")
        layers: list[Tone | Noise] = []
        if not isinstance(layers_in, LList) or not layers_in:
            self.fail(m.at("layers"), f"{path}.layers", "expected a list of layers (tone: or noise:)")
        else:
            for i, item in enumerate(layers_in):
                where = f"{path}.layers[{i}]"
                if not isinstance(item, LMap) or len(item) != 1 or next(iter(item)) not in ("tone", "noise"):
                    self.fail(layers_in.at(i), where, "expected one key, tone or noise")
                    continue
                kind = next(iter(item))
                layer = (self.tone if kind == "tone" else self.noise)(item[kind], item.at(kind), f"{where}.{kind}")
                if layer is not None:
                    layers.append(layer)
        if len(self.problems) > before or duration is None or peak is None:
            return None
        return Sound(name=name, duration=duration, layers=tuple(layers), peak=peak, seed=seed,
                     description=str(m.get("description", "")))

    def tunes(self, value: Any, loc: Loc, path: str) -> list[Tune]:
        out: list[Tune] = []
        if not isinstance(value, LMap):
            self.fail(loc, path, "expected a mapping of clip name to tune")
            return out
        for clip, spec in value.items():
            where = f"{path}.{clip}"
            m = self.mapping(spec, value.at(clip), where, {"bpm", "start", "notes"}, {"bpm", "notes"})
            if m is None:
                continue
            bpm = self.number(m.get("bpm"), m.at("bpm"), f"{where}.bpm", 30.0, 300.0)
            start = self.number(m.get("start", 0.0), m.at("start"), f"{where}.start", 0.0, _MAX_SECONDS)
            notes: list[tuple[str, float]] = []
            text = m.get("notes")
            if not isinstance(text, str) or not text.split():
                self.fail(m.at("notes"), f"{where}.notes", "expected notes such as 'C5:1 E5:0.5 R:1' (note:beats)")
                continue
            for i, token in enumerate(text.split()):
                note, _, beats = token.partition(":")
                try:
                    length = float(beats)
                except ValueError:
                    length = -1.0
                if (note.upper() != "R" and note_semitone(note) is None) or not 0 < length <= 16:
                    self.fail(m.at("notes"), f"{where}.notes[{i}]", "expected note:beats (a note such as G5 "
                              f"or R for a rest, 0 < beats <= 16), got {token!r}")
                    continue
                notes.append((note, length))
            if bpm is not None and start is not None and len(notes) == len(text.split()):
                out.append(Tune(str(clip), bpm, int(round(start * 1000)), tuple(notes)))
        return out

    def sung_notes(self, voice: Any, loc: Loc, tunes: list[Tune], seed_of: Any) -> dict[str, Sound]:
        """One sound per distinct (note, slot length) the tunes sing, in the singing voice's timbre."""
        keys = {"harmonics", "vibrato", "scoop", "attack", "release", "length", "peak"}
        m = self.mapping(voice, loc, "singing.voice", keys, keys - {"peak"})
        if m is None:
            return {}
        before = len(self.problems)
        h = m.get("harmonics")
        if not isinstance(h, LList) or not h:
            self.fail(m.at("harmonics"), "singing.voice.harmonics", "expected a list of amplitudes")
            return {}
        harmonics = tuple(self.number(v, h.at(i), f"singing.voice.harmonics[{i}]", 0.0, 1.0) or 0.0
                          for i, v in enumerate(h))
        vibrato = self.pair(m.get("vibrato"), m.at("vibrato"), "singing.voice.vibrato", 0.0, 40.0)
        get = {key: self.number(m.get(key), m.at(key), f"singing.voice.{key}", lo, hi) for key, lo, hi in
               (("scoop", 0.0, 12.0), ("attack", 0.001, 1.0), ("release", 0.001, 1.0), ("length", 0.1, 0.9))}
        peak = self.number(m.get("peak", 0.6), m.at("peak"), "singing.voice.peak", 0.05, 0.9)
        if len(self.problems) > before or vibrato is None or peak is None:
            return {}
        scoop, attack, release, fraction = (float(get[k] or 0.0) for k in ("scoop", "attack", "release", "length"))
        sounds: dict[str, Sound] = {}
        for tune in tunes:
            for _start, note, slot in tune.slots():
                name = sung_note_name(note, slot)
                if name in sounds:
                    continue
                semitone = float(note_semitone(note) or 0)
                length = slot / 1000.0 * fraction
                hold = max(attack, length - release)
                tone = Tone(pitch=((0.0, semitone - scoop), (min(0.06, hold), semitone)),
                            envelope=((0.0, 0.0), (attack, 1.0), (hold, 0.8), (length, 0.0)),
                            harmonics=harmonics, vibrato=vibrato)
                sounds[name] = Sound(name=name, duration=length, layers=(tone,), peak=peak, seed=seed_of(name),
                                     description=f"{note} sung for {slot} ms")
        return sounds


def load_voice(path: Path = DEFAULT_SRC) -> Voice:
    """Read and check the voice file; raises :class:`VoiceError` listing every problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise VoiceError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        doc, problems = parse_located(text, str(path))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise VoiceError(f"{path}{line}: not valid YAML: {getattr(exc, 'problem', None) or exc}") from exc
    reader = _Reader(str(path))
    reader.problems += [f"{loc.file}:{loc.line}: {message}" for loc, message in problems]
    top = reader.mapping(doc, Loc(str(path), 1), "(top)", {"peak", "sounds", "singing"}, {"sounds"})
    if top is None:
        raise VoiceError("\n".join(reader.problems))
    peak = reader.number(top.get("peak", 0.7), top.at("peak"), "peak", 0.05, 0.9) or 0.7

    from driver.animation.sound_ids import audio_event_id

    sounds: dict[str, Sound] = {}
    listed = top.get("sounds")
    if not isinstance(listed, LMap) or not listed:
        reader.fail(top.at("sounds"), "sounds", "expected a mapping of sound name to sound")
    else:
        for name, spec in listed.items():
            if not isinstance(name, str) or not is_sound_name(name) or name.startswith("vo_sing_"):
                reader.fail(listed.at(name), f"sounds.{name}", "a sound name is letters, digits and _ (starting "
                            "with a letter), and vo_sing_… names are the sung notes'")
                continue
            sound = reader.sound(name, spec, listed.at(name), f"sounds.{name}", peak, audio_event_id(name))
            if sound is not None:
                sounds[name] = sound
    tunes: list[Tune] = []
    singing = top.get("singing")
    if singing is not None:
        s = reader.mapping(singing, top.at("singing"), "singing", {"voice", "tunes"}, {"voice", "tunes"})
        if s is not None and "voice" in s and "tunes" in s:
            tunes = reader.tunes(s["tunes"], s.at("tunes"), "singing.tunes")
            sounds.update(reader.sung_notes(s["voice"], s.at("voice"), tunes, audio_event_id))
    if reader.problems:
        raise VoiceError("\n".join(reader.problems))
    return Voice(sounds, tuple(tunes))


# ---------------------------------------------------------------------------------------------
# Building


def build(src: Path = DEFAULT_SRC) -> dict[str, bytes]:
    """Every WAV file's name and bytes, rendered from the voice file."""
    voice = load_voice(src)
    out: dict[str, bytes] = {}
    for name in sorted(voice.sounds):
        try:
            out[name + ".wav"] = render_wav(voice.sounds[name])
        except ValueError as exc:
            raise VoiceError(f"{src}: sounds.{name}: {exc}") from exc
    return out


def check(built: dict[str, bytes], out: Path) -> list[str]:
    """What differs between ``built`` and the files in ``out`` (an empty list: up to date)."""
    return built_outputs.check(built, out, "*.wav", "no sound of the voice file makes it")


def write(built: dict[str, bytes], out: Path) -> list[Path]:
    """Write ``built`` into ``out`` and remove stale ``.wav`` files; the files that changed."""
    return built_outputs.write(built, out, "*.wav")


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: build (default) or ``--check``; 0 on success, 1 on a problem."""
    parser = argparse.ArgumentParser(description="Render the robot's voice (resources/src/voice.yaml) to WAV files.")
    parser.add_argument("--src", type=Path, default=DEFAULT_SRC, help="the voice file")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder receiving the WAV files")
    parser.add_argument("--check", action="store_true", help="only verify that the WAV files are up to date")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        built = build(args.src)
    except VoiceError as exc:
        log.error("%s", exc)
        return 1
    if args.check:
        problems = check(built, args.out)
        for p in problems:
            log.error("%s", p)
        if problems:
            log.error("run: python tools/build_voice.py")
            return 1
        log.info("%d sounds: up to date", len(built))
        return 0
    changed = write(built, args.out)
    log.info("%d sounds; %d file(s) changed", len(built), len(changed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
