"""Look at a clip without a robot: an animated GIF of its face and a PNG plot of its motion tracks,
and listen to it: a WAV file of its sound track.

Used by ``cozmo-brain anim render``. The frames come from the same :class:`Timeline` the
controller plays, so the preview shows (and sounds like) what the robot would be sent (30 fps,
retimed by the playback parameters; the sound as the speaker's µ-law frames decode). Drawing uses
Pillow only.
"""

from __future__ import annotations

import os
import wave
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from ..protocol import messages as m
from .audio import SAMPLE_RATE, SAMPLES_PER_FRAME, mulaw_decode
from .face import DEFAULT_FACE
from .face_images import FaceRenderer
from .playback import PlaybackParams
from .timeline import FRAME_MS, HEAD_MAX_DEG, HEAD_MIN_DEG, LIFT_MAX_MM, LIFT_MIN_MM, AudioResolver, Timeline

__all__ = ["render_preview", "render_sound"]

_FACE_SCALE = 3
_PLOT_W, _ROW_H, _MARGIN = 720, 110, 60
_GRID = (225, 225, 225)
_LED_NAMES = ("left", "front", "middle", "back", "right")


def render_preview(clip: object, gif_path: str | os.PathLike[str], png_path: str | os.PathLike[str],
                   params: PlaybackParams | None = None) -> tuple[Path, Path]:
    """Write the face animation to ``gif_path`` and the head/lift/wheels/lights plot to ``png_path``.

    Returns both paths. The face before the clip's first face keyframe is the default face.
    """
    tl = Timeline(clip, params)  # type: ignore[arg-type]
    gif, png = Path(gif_path), Path(png_path)
    _write_gif(tl, gif)
    _write_plot(tl, png)
    return gif, png


def render_sound(clip: object, audio_resolver: AudioResolver, wav_path: str | os.PathLike[str],
                 params: PlaybackParams | None = None) -> Path | None:
    """Write the clip's sound track (its RobotAudio keyframes' sounds, silence between them) to
    ``wav_path`` as 16-bit mono at the speaker's rate; None (nothing written) when no sound plays."""
    tl = Timeline(clip, params, audio_resolver=audio_resolver)  # type: ignore[arg-type]
    if not tl.audio:
        return None
    silent = np.zeros(SAMPLES_PER_FRAME, dtype="<i2")
    pcm = np.concatenate([mulaw_decode(tl.audio[i]) if i in tl.audio else silent for i in range(tl.frames)])
    path = Path(wav_path)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SAMPLE_RATE)
        w.writeframes(pcm.astype("<i2").tobytes())
    return path


def _write_gif(tl: Timeline, path: Path) -> None:
    renderer = FaceRenderer()
    frames = []
    face = DEFAULT_FACE
    for i in range(tl.frames):
        face = tl.face_at(i * FRAME_MS) or face
        img = Image.fromarray(renderer.render(face)).convert("L")
        img = img.resize((img.width * _FACE_SCALE, img.height * _FACE_SCALE), Image.Resampling.NEAREST)
        frames.append(img.convert("P"))
    # GIF delays are in 1/100 s: alternate 3 and 4 so the average stays at 30 fps.
    durations = [30 if i % 3 else 40 for i in range(len(frames))]
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=durations, loop=0, optimize=False)


def _series(tl: Timeline) -> dict[str, list[float | None]]:
    n = tl.frames
    head: list[float | None] = [tl.head.value(i * FRAME_MS) if tl.head else None for i in range(n)]
    lift: list[float | None] = [tl.lift.value(i * FRAME_MS) if tl.lift else None for i in range(n)]
    wheels: list[float | None] = []
    speed = 0.0
    for i in range(n):
        for track, packet in tl.packets.get(i, ()):
            if track == "body" and type(packet).__name__ == "AnimBody":
                speed = float(packet.speed)
        wheels.append(speed)
    return {"head (deg)": head, "lift (mm)": lift, "wheels (mm/s)": wheels}


def _write_plot(tl: Timeline, path: Path) -> None:
    series = _series(tl)
    rows = len(series) + 1
    img = Image.new("RGB", (_PLOT_W + 2 * _MARGIN, rows * _ROW_H + 2 * _MARGIN), "white")
    draw = ImageDraw.Draw(img)
    n = max(1, tl.frames - 1)
    draw.text((_MARGIN, 10), f"{tl.clip.name}  ({tl.frames} frames, {tl.frames / 30:.2f} s)", fill="black")

    def x_of(i: int) -> float:
        return _MARGIN + _PLOT_W * i / n

    limits = {"head (deg)": (HEAD_MIN_DEG, HEAD_MAX_DEG), "lift (mm)": (LIFT_MIN_MM, LIFT_MAX_MM)}
    for row, (name, values) in enumerate(series.items()):
        top = _MARGIN + row * _ROW_H
        bottom = top + _ROW_H - 20
        draw.rectangle((_MARGIN, top, _MARGIN + _PLOT_W, bottom), outline=_GRID)
        draw.text((4, top), name.split(" ")[0], fill="black")
        known = [v for v in values if v is not None]
        if not known:
            draw.text((_MARGIN + 6, top + 6), "(no keyframes)", fill=(150, 150, 150))
            continue
        lo, hi = limits.get(name, (min(known + [0.0]), max(known + [0.0])))
        if hi - lo < 1e-9:
            lo, hi = lo - 1.0, hi + 1.0
        draw.text((4, top + 14), f"{hi:.0f}", fill=(120, 120, 120))
        draw.text((4, bottom - 12), f"{lo:.0f}", fill=(120, 120, 120))
        points = [(x_of(i), bottom - (bottom - top) * (v - lo) / (hi - lo)) for i, v in enumerate(values)
                  if v is not None]
        if len(points) > 1:
            draw.line(points, fill=(30, 90, 200), width=2)
    # lights: one coloured band per LED, the colour the LED shows over time
    top = _MARGIN + (rows - 1) * _ROW_H
    draw.text((4, top), "lights", fill="black")
    band = (_ROW_H - 20) / len(_LED_NAMES)
    colors = [0, 0, 0, 0, 0]
    for i in range(tl.frames):
        for track, packet in tl.packets.get(i, ()):
            if track == "lights":
                colors = list(packet.colors)
        x0, x1 = x_of(i), x_of(i + 1) if i + 1 <= n else x_of(i) + 1
        for led, value in enumerate(colors):
            y0 = top + led * band
            draw.rectangle((x0, y0, max(x0 + 1, x1), y0 + band - 2), fill=m.rgb555_to_rgb(value))
    for i in range(0, tl.frames, 30):  # a tick per second
        draw.line((x_of(i), _MARGIN, x_of(i), top + _ROW_H - 20), fill=_GRID)
        draw.text((x_of(i) - 4, top + _ROW_H - 16), f"{i // 30}s", fill=(120, 120, 120))
    img.save(path)
