"""How a run ends early and keeps what it has: on SIGINT or SIGTERM (a second signal exits at
once), or when the circuit breaker finds the endpoint cannot answer. Every answer received is
already in the cache; the run then writes the predictions it has and says how to resume."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

SIGNALS = (signal.SIGINT, signal.SIGTERM)


@dataclass(frozen=True)
class Stopped:
    reason: str  # SIGINT, SIGTERM, endpoint or budget
    message: str  # for the user: what stopped the run
    exit_code: int  # 130 and 143 for the signals (128 + number), 1 for a dead endpoint


def by_signal(signum: int) -> Stopped:
    name = signal.Signals(signum).name
    return Stopped(name, f"stopped by {name}", 128 + signum)


def endpoint_down(message: str) -> Stopped:
    return Stopped("endpoint", f"stopped: {message}", 1)


def write_failed(err: OSError) -> Stopped:
    """The run's files cannot be written (a full disk): the answers received are in the cache."""
    where = f"{err.filename}: " if err.filename else ""
    return Stopped("disk", f"stopped: {where}{err.strerror or err}", 1)


def budget_reached(message: str) -> Stopped:
    """No request was sent past --max-cost (byo.eval.budget); the run goes on with a higher cap."""
    return Stopped("budget", message, 1)


@contextmanager
def on_signals(stop: Callable[[Stopped], None]) -> Iterator[None]:
    """While inside, the first SIGINT or SIGTERM calls `stop`; a second one exits at once (the cache
    commits each answer as it lands, so nothing received is lost)."""
    loop = asyncio.get_running_loop()
    received: list[int] = []

    def handle(signum: int) -> None:
        if received:
            os.write(2, f"\nsecond {signal.Signals(signum).name}: exiting at once; answers received are kept in "
                        "the cache\n".encode())
            os._exit(128 + signum)
        received.append(signum)
        stop(by_signal(signum))

    previous = {}  # the handlers to put back: whatever the caller had installed
    for sig in SIGNALS:
        handler = signal.getsignal(sig)
        try:
            loop.add_signal_handler(sig, handle, sig)
        except (ValueError, RuntimeError, NotImplementedError):  # not the main thread, or no Unix signals
            continue
        previous[sig] = handler
    try:
        yield
    finally:
        for sig, handler in previous.items():
            loop.remove_signal_handler(sig)
            signal.signal(sig, handler)
