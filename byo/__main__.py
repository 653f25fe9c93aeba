"""`python -m byo ...`: the command line, as the `byo` script runs it."""

import sys

from byo.cli import main

sys.exit(main())
