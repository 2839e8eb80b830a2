"""The robot's physical facts that more than one part of the project needs, each with its source.

The simulator's body, the robot mirror and the brain's behaviours read these rather than
keeping their own copies, so a correction lands everywhere at once.
"""

from __future__ import annotations

__all__ = ["CLIFF_SENSOR_AHEAD_MM"]

#: How far ahead of the robot's origin (between the front wheels' axle) its one cliff sensor, at
#: the front underside, looks at the floor (mm). Cozmo has a single live cliff sensor
#: (shared/reference/hardware.md, "Cliff"); the offset is the sensor's place under the front lip.
CLIFF_SENSOR_AHEAD_MM = 30.0
