"""Job handlers for the pool tests (imported by spawned worker processes)."""

import os

STARTED = []


def init_worker(threads: int) -> None:
    STARTED.append(threads)


def echo(value: int) -> dict:
    if value == 13:
        raise ValueError("unlucky")
    if value == 7:
        os._exit(3)  # a crash: the process dies mid-job
    return {"value": value, "pid": os.getpid(), "threads": STARTED[0]}
