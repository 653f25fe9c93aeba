"""Render in this process, one task after the other (bpy is imported here on first use). No
timeouts here: a stuck render cannot be stopped from inside its own process."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from byo.core.errors import FatalRenderError
from byo.render.executors import RENDER, Outcome, claim_cpus, describe, load_handler, render_handler
from byo.render.messages import RenderTask


class InProcess:
    def __init__(self, threads: int | None = None, handler: str | None = None):
        self.threads = threads or len(os.sched_getaffinity(0))
        self.handler = handler or render_handler()

    def run(self, tasks: Iterable[RenderTask]) -> Iterator[Outcome]:
        if self.handler == RENDER:  # fewer Cycles threads than CPUs: no idle TBB thread spinning beside them
            claim_cpus(self.threads)
        render = load_handler(self.handler)
        for task in tasks:
            try:
                result = render(task, self.threads)
            except FatalRenderError:
                raise
            except Exception as err:  # recorded as a failed image; the render goes on
                yield task, None, describe(err)
            else:
                yield task, result, None
