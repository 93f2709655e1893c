"""Moved to ``booktools.chapters`` (run ``python -m booktools.chapters``); this forwarder goes away soon."""

import sys

from booktools.chapters import *  # noqa: F401,F403
from booktools.chapters import main

if __name__ == "__main__":
    sys.exit(main())
