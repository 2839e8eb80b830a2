"""How the mood colours the robot's voice: a small pitch shift chosen from the simple mood.

When the brain plays a clip, the clip's sounds are played a little higher or lower depending on
the simple mood at that moment: an excited Cozmo chirps higher and quicker, a calm one a little
lower and slower, a frustrated one lower still. The animation controller hands the shift to the
sound library, which resamples the sound (pitch and tempo move together, by 2**(s/12) for *s*
semitones); every sound still starts on its keyframe, so songs keep time with their clips.

The shift is bounded by :data:`MAX_VOICE_SHIFT` whatever the table says, so the voice stays
recognisably the same.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["MAX_VOICE_SHIFT", "VOICE_PITCH", "voice_pitch"]

#: The largest shift the mood may give the voice, in semitones either way.
MAX_VOICE_SHIFT = 2.0

#: Semitones by simple mood (``brain.mood.SimpleMood`` values); a mood not listed leaves the voice as is.
VOICE_PITCH: Mapping[str, float] = {
    "LowStim": -0.75,
    "MedStim": 0.0,
    "HighStim": 1.5,
    "Frustrated": -1.5,
}


def voice_pitch(simple_mood: str | None, table: Mapping[str, float] = VOICE_PITCH) -> float:
    """The voice's pitch shift (semitones) for a simple mood, within ±:data:`MAX_VOICE_SHIFT`."""
    if simple_mood is None:
        return 0.0
    shift = float(table.get(str(simple_mood), 0.0))
    return max(-MAX_VOICE_SHIFT, min(MAX_VOICE_SHIFT, shift))
