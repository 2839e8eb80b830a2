"""A clip's sounds and sprite images, looked up when it is queued rather than in the 30 fps frame.

Converting a sound or reading a sprite sequence can take milliseconds, more than a frame may
spend; so the controller resolves a clip's RobotAudio and FaceAnimation keyframes once, as the
clip is played or queued, and its frames only look the results up. A sound or sprite that fails
never stops the clip: it is logged and that keyframe stays silent or blank.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from .clip import Clip
from .playback import ResolvedSounds, ResolvedSprites
from .sounds import PitchedAudioResolver
from .timeline import AudioResolver, SpriteResolver

log = logging.getLogger("driver.animation.controller")

__all__ = ["resolve_sounds", "resolve_sprites"]


def resolve_sounds(resolver: AudioResolver | None, clip: Clip, pitch_semitones: float = 0.0) -> ResolvedSounds:
    """The µ-law frames of each of ``clip``'s RobotAudio keyframes (None: not to be heard),
    shifted by ``pitch_semitones`` where the resolver can."""
    sounds: ResolvedSounds = {}
    for kf in clip.robot_audio:
        frames: Sequence[bytes] | None = None
        if resolver is not None:
            try:
                if pitch_semitones and isinstance(resolver, PitchedAudioResolver):
                    frames = resolver.resolve(kf, pitch_semitones)
                else:
                    frames = resolver(kf)
            except Exception:  # a bad sound must not stop the clip
                log.exception("clip %r: sound for RobotAudio at %d ms failed", clip.name, kf.trigger_time_ms)
        sounds[kf] = frames
    return sounds


def resolve_sprites(resolver: SpriteResolver | None, clip: Clip, warned: set[tuple[str, str]]) -> ResolvedSprites:
    """The images of each of ``clip``'s FaceAnimation sprite sequences (None or empty: not
    shown). A sequence that cannot be shown is warned about once per clip (``warned`` remembers)."""
    sprites: ResolvedSprites = {}
    for kf in clip.face_animation:
        images: Sequence[bytes] | None = None
        if resolver is not None:
            try:
                images = resolver(kf.anim_name)
            except Exception:
                log.exception("clip %r: sprite sequence %r failed", clip.name, kf.anim_name)
        if not images and (clip.name, kf.anim_name) not in warned:
            warned.add((clip.name, kf.anim_name))
            why = "no sprite resolver (give resources= or sprite_resolver=)" if resolver is None \
                else "no such sprite sequence"
            log.warning("clip %r: FaceAnimation %r at %d ms is not shown: %s", clip.name, kf.anim_name,
                        kf.trigger_time_ms, why)
        sprites[kf.anim_name] = images
    return sprites
