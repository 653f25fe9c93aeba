"""A render that hangs, as a stuck Cycles render would: the test double the executors' --timeout
and Slurm's preemption are tested with (BYO_RENDER_HANDLER=hanging_render:render_task, with this
folder on PYTHONPATH so that every worker finds it).

A render of the image named by BYO_TEST_HANG_IMAGE sleeps for an hour; with BYO_TEST_HANG_ONCE
(a file path) it hangs only while that file does not exist, and first writes into it the pid of
the process that started the render worker (a Slurm array task, which a test then preempts).
Every other image renders as usual."""

from __future__ import annotations

import os
import time
from pathlib import Path

from byo.render.executors import HANDLER_VARIABLE

HANDLER = "hanging_render:render_task"
HANG_IMAGE = "BYO_TEST_HANG_IMAGE"
HANG_ONCE = "BYO_TEST_HANG_ONCE"


def environment(image: str, once: Path | None = None) -> dict[str, str]:
    """The variables that make a render (and its workers) hang on `image`."""
    folder = str(Path(__file__).parent)
    path = os.environ.get("PYTHONPATH")
    return {HANDLER_VARIABLE: HANDLER, HANG_IMAGE: image, "PYTHONPATH": f"{folder}:{path}" if path else folder,
            **({HANG_ONCE: str(once)} if once else {})}


def render_task(task, threads: int):
    from byo.render.job import render_task as real_render  # bpy: in the render workers only

    if os.environ.get(HANG_IMAGE) == task.name:
        once = os.environ.get(HANG_ONCE)
        if not once or not os.path.exists(once):
            if once:
                with open(once + ".tmp", "w") as f:
                    f.write(str(os.getppid()))
                os.replace(once + ".tmp", once)
            time.sleep(3600)
    return real_render(task, threads)
