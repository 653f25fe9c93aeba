"""`python -m byo ...`: the command line, as the `byo` script runs it."""

import sys

from byo.entry import main

sys.exit(main())
