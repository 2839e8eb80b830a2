"""From an animation trigger to a clip on the robot: the trigger map, the group, the member choice.

A behaviour asks for a *trigger* ("ReactToCliff"); the trigger map names a group; the group picks
one member clip by weight among those whose cooldown has passed, whose Mood matches the current
simple mood (or is "Default"), and whose head-angle range holds the current head angle when
``UseHeadAngle`` is set. If every member is cooling down, the one closest to ready plays rather
than nothing, so a reaction is never silent. The clip that played last is never chosen again
from a group that has another member: a pet does not do exactly the same thing twice in a row.
The chosen clip is decoded on first use by the clip index and handed to the animation
controller, with the pitch the mood gives the voice (:mod:`brain.voice`) when it is not the
authored one.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Callable
from typing import Any, Protocol

log = logging.getLogger(__name__)


class AnimationNotFound(KeyError):
    """A trigger, group or clip that the resource set does not have."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "animation not found"


class Player(Protocol):
    """The part of the animation controller this module uses."""

    def play(self, clip: Any, *, params: Any = None) -> Any:
        """Start a clip (``params``: its PlaybackParams, None for as authored); returns a handle
        with ``done()``."""


def choose_member(
    members: list[Any],
    *,
    now: float,
    last_played: dict[str, float],
    simple_mood: str | None,
    head_angle_deg: float | None,
    rng: random.Random,
    avoid: str | None = None,
) -> Any | None:
    """Pick a group member as Anki's engine does; None when the group is empty. ``avoid`` (the
    clip that played last) is left out whenever the group has another member."""
    def fits(mem: Any) -> bool:
        if mem.mood not in ("Default", "", None) and simple_mood is not None and mem.mood != simple_mood:
            return False
        if mem.use_head_angle and head_angle_deg is not None:
            return mem.head_angle_min_deg <= head_angle_deg <= mem.head_angle_max_deg
        return True

    candidates = [mem for mem in members if fits(mem)] or list(members)
    if not candidates:
        return None
    if avoid is not None:
        candidates = ([mem for mem in candidates if mem.name != avoid]
                      or [mem for mem in members if mem.name != avoid] or candidates)
    ready = [mem for mem in candidates if now - last_played.get(mem.name, -math.inf) >= mem.cooldown_s]
    if ready:
        weights = [max(0.0, mem.weight) for mem in ready]
        if sum(weights) <= 0:
            return rng.choice(ready)
        return rng.choices(ready, weights=weights, k=1)[0]
    return min(candidates, key=lambda mem: last_played.get(mem.name, -math.inf) + mem.cooldown_s - now)


class AnimationLibrary:
    """Plays triggers and clips of one resource set on one robot's animation controller."""

    def __init__(
        self,
        resources: Any,
        player: Player,
        *,
        clock: Callable[[], float],
        rng: random.Random | None = None,
        simple_mood: Callable[[], str | None] = lambda: None,
        head_angle_deg: Callable[[], float | None] = lambda: None,
        voice_pitch: Callable[[], float] = lambda: 0.0,
    ) -> None:
        self.resources = resources
        self.player = player
        self.clock = clock
        self.rng = rng or random.Random()
        self.simple_mood = simple_mood
        self.head_angle_deg = head_angle_deg
        #: semitones the clips' sounds are shifted by, asked when each clip starts
        self.voice_pitch = voice_pitch
        self.last_played: dict[str, float] = {}
        self.last_clip: str | None = None

    def clip_for_trigger(self, trigger: str) -> str:
        """The clip name this trigger would play now (records nothing)."""
        group = self.resources.playable_group_for_trigger(trigger)
        if group is None:
            raise AnimationNotFound(f"animation trigger {trigger!r} has no group in the resource set")
        clips = self.resources.clips
        members = [m for m in group.members if clips is None or m.name in clips] or list(group.members)
        member = choose_member(
            members, now=self.clock(), last_played=self.last_played,
            simple_mood=self.simple_mood(), head_angle_deg=self.head_angle_deg(), rng=self.rng,
            avoid=self.last_clip,
        )
        if member is None:
            raise AnimationNotFound(f"animation group {group.name!r} (trigger {trigger!r}) has no members")
        return member.name

    def play_trigger(self, trigger: str) -> Any:
        """Choose a member of the trigger's group and play it; returns the playback handle."""
        return self.play_clip(self.clip_for_trigger(trigger))

    def play_clip(self, name: str) -> Any:
        """Play a clip by name (decoded on first use)."""
        clips = self.resources.clips
        if clips is None or name not in clips:
            raise AnimationNotFound(f"clip {name!r} is not in the resource set")
        clip = clips.get(name)
        self.last_played[name] = self.clock()
        self.last_clip = name
        pitch = self.voice_pitch() if clip.robot_audio else 0.0
        log.debug("playing clip %s%s", name, f" (voice {pitch:+.2f} semitones)" if pitch else "")
        if not pitch:
            return self.player.play(clip)
        from driver.animation.playback import PlaybackParams

        return self.player.play(clip, params=PlaybackParams(pitch_semitones=pitch))

    def set_idle_motion(self, *, still: bool | None = None, pace: float | None = None) -> None:
        """Hold the resting face still (no blinks, no saccades: asleep) or let it move, and set how
        slowly it blinks and glances (``pace`` 1 as usual, 2.5 drowsy)."""
        idle = getattr(self.player, "idle", None)
        if idle is None:
            return
        if still is not None:
            idle.still = still
        if pace is not None:
            idle.pace = pace

    def set_face_expression(self, name: str) -> None:
        """Show a named procedural expression as the resting face (blinks and saccades go on)."""
        from driver.animation.expressions import expression

        self.player.idle_face = expression(name)  # type: ignore[attr-defined]
