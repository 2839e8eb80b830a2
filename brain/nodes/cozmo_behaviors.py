"""Cozmo's behaviour classes as small py_trees subtrees, each declared beside its factory.

Anki's engine data describes a behaviour as a class (the code), an ID (this use of it) and
parameters. Each factory here takes the context and a :class:`BehaviorSpec` whose ``values``
its :class:`BehaviorClass` declaration has validated, and returns a subtree named after the
behaviour ID, built from the node library, so the tree display shows what a behaviour does.
Parameters are declared with the names the real files use and their other spellings as aliases
(animation triggers come as ``animTriggers``, ``animTrigger``, ``AnimTrigger``,
``animationTrigger``, ``anim`` …); a missing one falls back to what the app used for that class.

Where the app fired an emotion event for a behaviour, so do these: a behaviour's own
``finalEmotionEvent`` (or ``emotionEvent``) when present, else the class's default (reactions
such as cliff → ``CliffReact``). Events the mood does not define are skipped.

The sleepers live in :mod:`brain.nodes.sleeper`, the reactions to lying on the back, face or
side in :mod:`brain.nodes.orientation_behaviors`; :data:`BEHAVIOR_CLASS_LIST` gathers them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from py_trees.behaviour import Behaviour

from brain.context import BrainContext
from driver.hardware import HEAD_MAX_DEG, HEAD_MIN_DEG, LIFT_MIN_MM

from .actions import (
    DriveStraight,
    LookAround,
    PlayAnimationTrigger,
    PlayRandomTrigger,
    SetHeadAngle,
    SetLiftHeight,
    StopMotors,
)
from .behavior_class import (
    EMOTION_EVENT,
    BehaviorClass,
    BehaviorParamError,
    BehaviorSpec,
    emotion_nodes,
    plays,
    triggers_param,
)
from .behavior_class import sequence_of as _seq
from .composites import Sequence as SequenceNode
from .cube_play import CUBE_PLAY_CLASSES
from .face_behaviors import FACE_CLASSES
from .guard_dog import GUARD_DOG_CLASSES
from .keep_away import KEEP_AWAY_CLASSES
from .lights import BackpackLights
from .needs_classes import NEEDS_CLASSES
from .orientation_behaviors import ORIENTATION_CLASSES, PlayForOrientation, WhileOrientation
from .params import Param
from .peekaboo import PEEKABOO_CLASSES
from .play_behaviors import PLAY_CLASSES
from .reaction_classes import REACTION_CLASSES
from .sleeper import SLEEPER_CLASSES, WAKE_EVENT_KINDS, Awake, SleepUntilWoken
from .social_classes import SOCIAL_CLASSES

__all__ = [
    "BEHAVIOR_CLASS_LIST",
    "BehaviorSpec",
    "PlayForOrientation",
    "SleepUntilWoken",
    "WAKE_EVENT_KINDS",
    "WhileOrientation",
    "anim_triggers",
]


def anim_triggers(spec: BehaviorSpec, default: Sequence[str] = ()) -> list[str]:
    """The behaviour's animation triggers under any of their spellings, read from its raw parameters."""
    probe = BehaviorClass("", lambda ctx, spec: SequenceNode("", memory=True),
                          "", {"animTriggers": triggers_param(tuple(default))})
    resolved = probe.resolve(spec.params)
    if resolved.errors:
        key, message = resolved.errors[0]
        raise BehaviorParamError(spec.behavior_id, key, message)
    return list(resolved.values["animTriggers"])


def _plays(ctx: BrainContext, spec: BehaviorSpec) -> list[Behaviour]:
    return plays(ctx, spec.value("animTriggers"))


def _emotion_param(default: str) -> Param:
    return replace(EMOTION_EVENT, default=default)


# ----------------------------------------------------------------------------- factories


def play_anim(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """PlayAnim: its triggers played in order (``numLoops`` times), then its emotion event.

    Anki's PlayAnim played the list as a sequence (files list intro, loop, outro). Set
    ``pick: random`` in the parameters to play one of them instead.
    """
    triggers = spec.value("animTriggers")
    if not triggers:
        raise BehaviorParamError(spec.behavior_id, "animTriggers", "PlayAnim needs at least one trigger")
    if spec.value("pick") == "random":
        return _seq(spec, [PlayRandomTrigger(f"one of {len(triggers)}", ctx, triggers), *emotion_nodes(ctx, spec)])
    plays: list[Behaviour] = [PlayAnimationTrigger(t, ctx, t) for _ in range(spec.value("numLoops")) for t in triggers]
    return _seq(spec, [*plays, *emotion_nodes(ctx, spec)])


def play_arbitrary_anim(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """PlayArbitraryAnim: one trigger picked at random, by ``animWeights`` if given."""
    triggers = spec.value("animTriggers")
    if not triggers:
        raise BehaviorParamError(spec.behavior_id, "animTriggers", "PlayArbitraryAnim needs at least one trigger")
    weights = spec.value("animWeights")
    if weights is not None and len(weights) != len(triggers):
        raise BehaviorParamError(spec.behavior_id, "animWeights", f"expected {len(triggers)} numbers, got {weights!r}")
    node = PlayRandomTrigger(f"one of {len(triggers)}", ctx, triggers, weights)
    return _seq(spec, [node, *emotion_nodes(ctx, spec)])


def react_to_cliff(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToCliff: stop, back away from the edge, then play the cliff reaction.

    The back-up comes first, while the robot still faces the edge it drove to: backing straight
    retraces the way it came, floor it has just crossed. After the clip it would back the way the
    clip left it facing (the reaction's shudders and turns), where the one cliff sensor, which looks
    ahead, has never seen the floor: a robot that met the edge at a slant backed over it."""
    back_mm = spec.value("backUpDistance_mm")
    return _seq(spec, [
        StopMotors("stop", ctx),
        *emotion_nodes(ctx, spec),
        DriveStraight("back up", ctx, -back_mm, 50.0),
        *_plays(ctx, spec),
    ])


def react_to_pickup(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToPickup: stop and play the picked-up reaction."""
    return _seq(spec, [StopMotors("stop", ctx), *emotion_nodes(ctx, spec), *_plays(ctx, spec)])


def react_to_put_down(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToPutDown: back on the ground; look up and play the returned-to-treads reaction."""
    return _seq(spec, [SetHeadAngle("look up", ctx, 10.0), *emotion_nodes(ctx, spec), *_plays(ctx, spec)])


def react_to_on_charger(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToOnCharger: play the placed-on-charger reaction, settle the lift, calm lights."""
    return _seq(spec, [*_plays(ctx, spec), SetLiftHeight("lift down", ctx, LIFT_MIN_MM),
                       BackpackLights("calm lights", ctx, pattern="calm"), *emotion_nodes(ctx, spec)])


def drive_off_charger(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """DriveOffCharger: drive forward off the contacts (charger length + ``extraDistanceToDrive_mm``)."""
    distance = 80.0 + spec.value("extraDistanceToDrive_mm")
    speed = 60.0
    children: list[Behaviour] = _plays(ctx, spec)
    children += [SetLiftHeight("lift down", ctx, LIFT_MIN_MM), DriveStraight("drive off", ctx, distance, speed),
                 *emotion_nodes(ctx, spec)]
    return _seq(spec, children)


def look_around(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """LookAround: random head and body glances for ``duration_s`` (default 10 s), then the head up.

    The glances may end with the head down at the floor; a face at a table's distance is only in
    the picture with the head tilted up, so the head rests at ``endHeadAngle_deg`` afterwards.
    """
    return _seq(spec, [LookAround("glances", ctx, spec.value("duration_s")),
                       SetHeadAngle("head up", ctx, spec.value("endHeadAngle_deg")), *emotion_nodes(ctx, spec)])


def react_to_poke(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToPoke: a startled or amused reaction, picked at random."""
    return _seq(spec, [PlayRandomTrigger("poke reaction", ctx, spec.value("animTriggers")), *emotion_nodes(ctx, spec)])


def react_to_cube_tap(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """ReactToCubeTap: look up and react to the tapped cube."""
    return _seq(spec, [SetHeadAngle("look up", ctx, 0.0), *_plays(ctx, spec), *emotion_nodes(ctx, spec)])


def wake(ctx: BrainContext, spec: BehaviorSpec) -> Behaviour:
    """Wake: the wake-up animation, normal lights, head up; then the robot is awake."""
    return _seq(spec, [*_plays(ctx, spec), BackpackLights("awake lights", ctx, pattern="calm"),
                       SetHeadAngle("head up", ctx, 10.0), Awake("awake", ctx), *emotion_nodes(ctx, spec)])


# ----------------------------------------------------------------------------- declarations

_FINAL = {"finalEmotionEvent": EMOTION_EVENT}

_CLASSES: tuple[BehaviorClass, ...] = (
    BehaviorClass("PlayAnim", play_anim, "plays its triggers in order (`numLoops` times; `pick: random` plays one)",
                  {"animTriggers": triggers_param(required=True),
                   "numLoops": Param("int", default=1, minimum=1, doc="times the list is played",
                                     aliases=("num_loops",)),
                   "pick": Param("str", choices=("sequence", "random"), doc="random: play one of them"),
                   **_FINAL}),
    BehaviorClass("PlayArbitraryAnim", play_arbitrary_anim, "plays one trigger, picked at random (`animWeights`)",
                  {"animTriggers": triggers_param(required=True),
                   "animWeights": Param("number_list", doc="one weight per trigger", aliases=("weights",)),
                   **_FINAL}),
    BehaviorClass("ReactToCliff", react_to_cliff, "stops, fires `CliffReact`, backs up the way it came, plays "
                  "`ReactToCliff`",
                  {"animTriggers": triggers_param(("ReactToCliff",)),
                   "backUpDistance_mm": Param("number", default=40.0, minimum=0.0, maximum=500.0,
                                              doc="how far it backs away from the edge (mm)"),
                   "finalEmotionEvent": _emotion_param("CliffReact")}),
    BehaviorClass("ReactToPickup", react_to_pickup, "stops and plays `ReactToPickup`",
                  {"animTriggers": triggers_param(("ReactToPickup",)), **_FINAL}),
    BehaviorClass("ReactToPutDown", react_to_put_down, "looks up and plays `ReactToUnexpectedMovement`",
                  {"animTriggers": triggers_param(("ReactToUnexpectedMovement",)), **_FINAL}),
    BehaviorClass("ReactToOnCharger", react_to_on_charger, "plays `PlacedOnCharger`, lowers the lift, calm lights",
                  {"animTriggers": triggers_param(("PlacedOnCharger",)), **_FINAL}),
    BehaviorClass("DriveOffCharger", drive_off_charger, "drives forward 80 mm + `extraDistanceToDrive_mm`",
                  {"animTriggers": triggers_param(()),
                   "extraDistanceToDrive_mm": Param("number", default=60.0, minimum=0.0, maximum=500.0,
                                                    doc="distance beyond the charger's length (mm)"),
                   **_FINAL}),
    BehaviorClass("LookAround", look_around, "random head and body glances for `duration_s`",
                  {"duration_s": Param("number", default=10.0, minimum=0.0, doc="how long it looks around (s)",
                                       aliases=("seconds", "duration")),
                   "endHeadAngle_deg": Param("number", default=12.0, minimum=HEAD_MIN_DEG, maximum=HEAD_MAX_DEG,
                                             doc="where the head rests afterwards (°): up, where faces are"),
                   **_FINAL}),
    BehaviorClass("ReactToPoke", react_to_poke, "plays `ReactToPokeReaction` or `ReactToPokeStartled`",
                  {"animTriggers": triggers_param(("ReactToPokeReaction", "ReactToPokeStartled"),
                                                  doc="one of them, picked at random"),
                   **_FINAL}),
    BehaviorClass("ReactToCubeTap", react_to_cube_tap, "looks up and plays `ReactToCubeTapCubeFound`",
                  {"animTriggers": triggers_param(("ReactToCubeTapCubeFound",)), **_FINAL}),
    BehaviorClass("Wake", wake, "plays `WakeupGetout`, normal lights, head up",
                  {"animTriggers": triggers_param(("WakeupGetout",)), **_FINAL}),
)

#: Every behaviour class the node library implements, in the order the format reference lists them.
BEHAVIOR_CLASS_LIST: tuple[BehaviorClass, ...] = (*_CLASSES[:10], *SLEEPER_CLASSES, _CLASSES[10],
                                                  *ORIENTATION_CLASSES, *FACE_CLASSES, *PLAY_CLASSES,
                                                  *REACTION_CLASSES, *SOCIAL_CLASSES,
                                                  *PEEKABOO_CLASSES, *NEEDS_CLASSES,
                                                  *CUBE_PLAY_CLASSES, *GUARD_DOG_CLASSES,
                                                  *KEEP_AWAY_CLASSES)
