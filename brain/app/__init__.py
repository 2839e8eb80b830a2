"""The application around the personality engine: the command line, ``run``, ``simulate``, ``check``,
``tree``, ``anim`` and the daemon's settings.

The engine (mood, personality, heartbeat, nodes, assets) lives in the rest of ``brain`` and knows
nothing about command lines, signals, configuration files or the simulator.
"""
