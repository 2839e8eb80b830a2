"""``python -m brain``: the ``cozmo-brain`` command line."""

import sys

from brain.app.cli import main

sys.exit(main())
