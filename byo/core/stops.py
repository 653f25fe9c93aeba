"""Clean stops: Ctrl-C (SIGINT) and SIGTERM become a `Stopped` exception in the main thread, so
that the work in progress can finish its cleanup and say how to continue; a second signal
exits at once."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Stopped(Exception):
    def __init__(self, signum: int):
        self.signum = signum
        self.name = signal.Signals(signum).name
        self.detail = ""  # what was done and how to continue, added by the work that stopped
        super().__init__(f"stopped by {self.name}")

    def __str__(self) -> str:
        return f"stopped by {self.name}" + (f": {self.detail}" if self.detail else "")

    @property
    def exit_code(self) -> int:
        return 128 + self.signum  # 130 for SIGINT, 143 for SIGTERM, as shells report them


def _exit_now(signum, frame) -> None:
    os._exit(128 + signum)


def _stop(signum, frame) -> None:
    for s in SIGNALS:  # a second signal while cleaning up: exit at once
        signal.signal(s, _exit_now)
    raise Stopped(signum)


@contextlib.contextmanager
def stoppable() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM raise Stopped (only possible in the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # A handler installed outside Python (Blender's own, say) reads as None and could not be put
    # back: such a signal is left to its owner.
    previous = {s: h for s in SIGNALS if (h := signal.getsignal(s)) is not None}
    for s in previous:
        signal.signal(s, _stop)
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def ignore_interrupts() -> None:
    """For worker processes: the terminal's Ctrl-C goes to the whole process group; the parent
    alone decides what to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
