"""Why each of the app's behaviour classes still has no node: what it needs that the robot lacks.

``cozmo-brain check`` prints the reason beside every class of a resource tree that the node
library does not implement, so the gaps are named rather than only counted. A class missing
here is reported as "not written yet".
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["WHY_NOT_YET"]

_DOCKING = "needs docking to a cube: its marker seen, driven to and lifted"

#: Behaviour class → why it has no node yet.
WHY_NOT_YET: Mapping[str, str] = MappingProxyType({
    "RollBlock": _DOCKING,
    "PopAWheelie": _DOCKING,
    "PutDownBlock": "needs a cube in the lift (docking first)",
    "StackBlocks": _DOCKING,
    "CubeLiftWorkout": _DOCKING,
    "PickUpCube": _DOCKING,
    "KnockOverCubes": "needs a stack of cubes seen and docking",
    "CantHandleTallStack": "needs a stack of cubes seen (cube markers)",
    "ReactToPyramid": "needs a pyramid of cubes seen (cube markers)",
    "FeedingSearchForCube": "needs the feeding game's cube (energy needs and cube markers)",
    "OnboardingShowCube": "needs cube markers seen (the app's onboarding)",
    "ThinkAboutBeacons": "needs the hiking activity's beacons (cube markers)",
    "ReactToPet": "needs a pet detector (the vision finds human faces only)",
    "ReactToVoiceCommand": "needs voice commands (the app heard them through the phone)",
    "RespondToRenameFace": "needs face names (the app's face enrolment)",
    "TrackLaser": "needs a laser-dot detector (darkened camera exposure)",
})
