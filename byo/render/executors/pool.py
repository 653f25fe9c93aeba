"""The local pool: persistent render worker processes on this machine, recycled after N images.

One pipe per worker and one image in flight per worker. A worker that crashes, or spends more
than `timeout` seconds on one image, is killed and replaced, and the image is tried again up to
`retries` more times before it is reported as failed with its error; the other images go on.
(Python 3.11's ProcessPoolExecutor can hang when `max_tasks_per_child` retires a worker, and
it cannot kill one stuck task, hence this pool.)
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections import deque
from collections.abc import Iterable, Iterator
from multiprocessing.connection import wait
from typing import Any

from byo.core.errors import FatalRenderError
from byo.core.stops import ignore_interrupts
from byo.render.executors import (
    STARTUP_SECONDS,
    Outcome,
    cpu_sets,
    describe,
    keep_to_cpus,
    load_handler,
    render_handler,
    retry_or_fail,
    signal_when_parent_dies,
    timed_out,
)
from byo.render.messages import RenderTask


def _die_with_parent(parent: int) -> None:
    """The kernel kills this worker when the process that started it dies."""
    if signal_when_parent_dies() and os.getppid() != parent:  # it died before that took effect
        os._exit(0)


def _serve(conn, handler: str, threads: int, parent: int, cpus: set[int]) -> None:
    """Worker process: keep to its CPUs, import the handler (and so bpy) once, say so, then run
    the tasks the parent sends, as handler(task, threads), until told to stop."""
    _die_with_parent(parent)
    keep_to_cpus(cpus)
    # A parent that imported bpy itself passes Blender's script folders on in sys.path; there
    # `bpy` would resolve to Blender's Python package instead of the wheel's module.
    sys.path[:] = [p for p in sys.path if f"{os.sep}bpy{os.sep}" not in p]
    ignore_interrupts()
    run = load_handler(handler)
    try:
        conn.send(("ready", None))
        while (task := conn.recv()) is not None:
            try:
                conn.send(("ok", run(task, threads)))
            except FatalRenderError as err:  # every image would fail: the parent stops the render
                conn.send(("fatal", str(err)))
            except Exception as err:  # reported to the parent; the worker goes on
                conn.send(("error", describe(err)))
    except (EOFError, BrokenPipeError, ConnectionResetError):  # the parent is gone (stopped or killed)
        pass


class _Worker:
    def __init__(self, ctx, handler: str, threads: int, task: Any, failures: int, slot: int, cpus: set[int]):
        self.conn, child = ctx.Pipe()
        self.slot = slot  # which of the pool's CPU sets it runs on
        self.process = ctx.Process(target=_serve, args=(child, handler, threads, os.getpid(), cpus), daemon=True)
        self.process.start()
        child.close()
        self.task, self.failures = task, failures  # the job in flight and its failed attempts so far
        self.deadline: float | None = time.monotonic() + STARTUP_SECONDS
        self.ready = False
        self.done = 0

    def send(self, task: Any, failures: int, timeout: float | None) -> None:
        """Hand the worker `task`. A worker that died since its last message cannot take it: the
        pool's next wait finds the death (the pipe's end, the sentinel) and retries the task."""
        self.task, self.failures = task, failures
        self.deadline = time.monotonic() + timeout if timeout else None
        try:
            self.conn.send(task)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def kill(self) -> None:
        self.process.kill()
        self.process.join()
        self.conn.close()

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except (BrokenPipeError, OSError):
            pass
        self.process.join(timeout=30)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()


# What a render worker may hold, with room: 0.55 GB measured for chess at 640x360 after 200 images
# (bench/render_bench.py's long run).
WORKER_MEMORY = 1 << 30


def available_memory() -> int | None:
    """Bytes of memory available to new processes (Linux: MemAvailable), None where unknown."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def default_workers() -> int:
    """The pool's default: one worker per CPU this process may use, each rendering with one Cycles
    thread on a CPU of its own, as many as the available memory holds at WORKER_MEMORY each.
    Measured on 2 cores (bench/farm_bench.py, one run): 2 workers x 1 thread rendered 102.6
    images per minute, 1 x 2 92.3 (a single worker leaves a core idle while it builds, measures and
    sends each image), and 2 x 2 88.7 (oversubscribed)."""
    cpus = len(os.sched_getaffinity(0))
    memory = available_memory()
    return max(1, min(cpus, memory // WORKER_MEMORY if memory is not None else cpus))


class LocalPool:
    def __init__(self, workers: int = 1, *, recycle_after: int = 50, threads: int | None = None,
                 timeout: float | None = None, retries: int = 2, handler: str | None = None):
        self.workers = workers
        self.recycle_after = recycle_after
        # Cycles threads are shared among the workers.
        self.threads = threads or max(1, len(os.sched_getaffinity(0)) // max(1, workers))  # the CPUs this process may use
        self.timeout = timeout  # seconds per image; None: no limit
        self.retries = retries  # further attempts after a crash or a timeout
        self.handler = handler or render_handler()

    def run(self, tasks: Iterable[RenderTask]) -> Iterator[Outcome]:
        """Run the tasks in worker processes; a crash or a timeout is retried, then a failed task,
        never a hang. A fatal error (see FatalRenderError) stops the render."""
        queue = deque((task, 0) for task in tasks)  # (task, failed attempts so far)
        ctx = multiprocessing.get_context("spawn")
        busy: list[_Worker] = []
        slots = cpu_sets(self.workers, self.threads)

        def start() -> None:
            slot = min(set(range(len(slots))) - {w.slot for w in busy})
            busy.append(_Worker(ctx, self.handler, self.threads, *queue.popleft(), slot, slots[slot]))

        def retire(worker: _Worker) -> None:
            busy.remove(worker)
            worker.stop()
            if queue:
                start()

        try:
            for _ in range(min(self.workers, len(queue))):
                start()
            while busy:
                deadlines = [w.deadline for w in busy if w.deadline is not None]
                left = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
                ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=left)
                for worker in list(busy):
                    problem = None
                    if worker.conn in ready or worker.conn.poll():
                        try:
                            status, payload = worker.conn.recv()
                        except (EOFError, OSError):
                            status, payload = "crash", None
                    elif worker.process.sentinel in ready:
                        status, payload = "crash", None
                    elif worker.deadline is not None and time.monotonic() >= worker.deadline:
                        status, payload = "timeout", None
                    else:
                        continue
                    if status == "ready":
                        worker.ready = True
                        worker.send(worker.task, worker.failures, self.timeout)
                        continue
                    if status == "fatal":
                        raise FatalRenderError(payload)
                    if status == "crash":
                        worker.process.join(timeout=10)  # the pipe can close a moment before the exit
                        problem = f"render worker died (exit code {worker.process.exitcode})"
                    elif status == "timeout":
                        problem = timed_out(self.timeout, worker.ready)
                    if problem:
                        busy.remove(worker)
                        worker.kill()
                        if failed := retry_or_fail(queue, worker.task, worker.failures, problem, self.retries):
                            yield failed
                        if queue:
                            start()
                        continue
                    yield (worker.task, payload if status == "ok" else None,
                           payload if status == "error" else None)
                    worker.done += 1
                    if queue and worker.done < self.recycle_after:
                        worker.send(*queue.popleft(), self.timeout)
                    else:
                        retire(worker)
        finally:
            for worker in busy:
                worker.kill()
