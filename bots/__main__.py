"""``python -m bots``: the ``terrace-bot`` command (how ``terrace-server --house`` starts its house)."""

import sys

from bots.cli import main

sys.exit(main())
