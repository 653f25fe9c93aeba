"""Task handlers for the executor tests (imported by spawned worker processes): a task here is
a plain integer instead of a RenderTask."""

import os
import time

from byo.core.errors import FatalRenderError


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


def cpu_share(value: int, threads: int) -> dict:
    """The CPUs this worker may run on (set by the pool before the handler loads)."""
    return {"value": value, "cpus": sorted(os.sched_getaffinity(0))}


def render_cpu_share(task, threads: int) -> dict:
    """Render `task` and say how many CPU-seconds it took per wall-second, in this worker only."""
    import resource

    from byo.render.job import render_task

    render_task(task, threads)  # bpy's first render loads its kernels: not measured
    before, started = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    render_task(task, threads)
    after, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - started
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"cpu_per_wall": cpu / wall, "threads": threads}
