"""Task handlers for the executor tests (imported by spawned worker processes): a task here is
a plain integer instead of a RenderTask."""

import os
import time

from byo.errors import FatalRenderError


def echo(value: int, threads: int) -> dict:
    if value == 13:
        raise ValueError("unlucky")
    if value == 7:
        os._exit(3)  # a crash: the process dies mid-task
    if value == 99:
        time.sleep(3600)  # a hung render
    if value == 666:
        raise FatalRenderError("no GPU here")
    return {"value": value, "pid": os.getpid(), "threads": threads}
