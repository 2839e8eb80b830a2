"""The node library: py_trees behaviours that drive a Cozmo through a :class:`brain.context.BrainContext`.

* :mod:`.actions` — animations, face, head, lift, wheels, lights, waits;
* :mod:`.conditions` — mood, simple mood, recent events, charger, pick-up, battery;
* :mod:`.decorators` — cooldown, timeout, timer on the context's clock;
* :mod:`.choosers` — strict priority, weighted random with cooldowns, mood scoring;
* :mod:`.cozmo_behaviors` — Cozmo's behaviour classes as subtrees;
* :mod:`.registry` — all of the above as data, for the personality loader.
"""
