"""cozmo-brain: a personality runtime for the Anki Cozmo robot (the brain side; the driver is ``driver``)."""

#: The release, read by the build (pyproject's dynamic version) and by ``cozmo-brain --version``.
__version__ = "0.1.0"
