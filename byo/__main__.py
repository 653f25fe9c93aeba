"""The `byo` command's first instant: the console script (byo.__main__:main) and `python -m byo` start here.

Importing the command line takes a second or two (numpy, pydantic, rich, the families). A
Ctrl-C or SIGTERM in that time would end in a KeyboardInterrupt traceback, or a silent death:
so the first thing is a handler that says one line and exits 130 or 143 (nothing has been
written yet). Once a command runs, byo.core.stops takes over: the work in progress stops
cleanly, says what it kept, and exits the same way. Nothing heavy is imported here.
"""

from __future__ import annotations

import os
import signal

SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _starting(signum: int, frame) -> None:
    os.write(2, f"stopped by {signal.Signals(signum).name} while starting; nothing was written\n".encode())
    os._exit(128 + signum)


def main() -> int:
    for s in SIGNALS:
        if signal.getsignal(s) in (signal.SIG_DFL, signal.default_int_handler):  # not one ignored by the caller
            signal.signal(s, _starting)
    from byo.cli import main as command_line

    return command_line()


if __name__ == "__main__":  # python -m byo
    import sys

    sys.exit(main())
