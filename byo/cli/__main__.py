"""`python -m byo.cli ...`: the command line, as the `byo` script runs it."""

import sys

from byo.__main__ import main

sys.exit(main())
