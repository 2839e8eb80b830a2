"""py_trees' four statuses as plain names, for the code that ticks the tree.

On Python 3.11 reading an enum member through its class (``Status.RUNNING``) goes through the
enum metaclass's Python-level attribute hook (``EnumType`` defines ``__getattr__``): about 130 ns
here, five times what reading a module's name costs. A beat of the
default personality reads statuses some hundreds of times, so the nodes compare with these
(the very same members: ``RUNNING is Status.RUNNING``).
"""

from __future__ import annotations

from py_trees.common import Status

__all__ = ["FAILURE", "INVALID", "RUNNING", "SUCCESS"]

RUNNING = Status.RUNNING
SUCCESS = Status.SUCCESS
FAILURE = Status.FAILURE
INVALID = Status.INVALID
