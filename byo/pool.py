"""Render worker processes that are recycled after N images.

Python 3.11's ProcessPoolExecutor can hang when `max_tasks_per_child` retires a worker, so
the pool is kept here: one pipe per worker, one job in flight per worker, a fresh process
after `recycle_after` jobs, and a crashed worker reported as a failed job (never a hang).
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable
from multiprocessing.connection import wait
from typing import Any

RENDER = "byo.render.worker:render_job"


def _load(path: str) -> Callable:
    module, name = path.split(":")
    return getattr(importlib.import_module(module), name)


def _serve(conn, handler: str, threads: int) -> None:
    """Worker process: import the handler (and so bpy) once, then run the jobs the parent sends
    until told to stop. A handler module may define `init_worker(threads)`."""
    # A parent that imported bpy itself passes Blender's script folders on in sys.path; there
    # `bpy` would resolve to Blender's Python package instead of the wheel's module.
    sys.path[:] = [p for p in sys.path if f"{os.sep}bpy{os.sep}" not in p]
    run = _load(handler)
    init = getattr(sys.modules[run.__module__], "init_worker", None)
    if init is not None:
        init(threads)
    while (job := conn.recv()) is not None:
        try:
            conn.send(("ok", run(*job)))
        except Exception as err:  # reported to the parent; the worker goes on
            conn.send(("error", f"{type(err).__name__}: {err}" if not str(err) else str(err)))


class _Worker:
    def __init__(self, ctx, handler: str, threads: int):
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(child, handler, threads), daemon=True)
        self.process.start()
        child.close()
        self.key: Any = None  # the job in flight
        self.done = 0

    def send(self, key, args: tuple) -> None:
        self.key = key
        self.conn.send(args)

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


def run_jobs(jobs: Iterable[tuple[Any, tuple]], *, workers: int, recycle_after: int, threads: int,
             on_done: Callable[[Any, Any, str | None], None], handler: str = RENDER) -> None:
    """Run `(key, args)` jobs through `handler` ("module:function") in worker processes;
    `on_done(key, result, error)` is called once per job, in the parent."""
    queue = deque(jobs)
    ctx = multiprocessing.get_context("spawn")
    busy: list[_Worker] = []

    def start() -> None:
        worker = _Worker(ctx, handler, threads)
        busy.append(worker)
        worker.send(*queue.popleft())

    try:
        for _ in range(min(workers, len(queue))):
            start()
        while busy:
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
            for worker in list(busy):
                if worker.conn in ready or worker.conn.poll():
                    try:
                        status, payload = worker.conn.recv()
                    except EOFError:
                        status, payload = "crash", None
                elif worker.process.sentinel in ready:
                    status, payload = "crash", None
                else:
                    continue
                if status == "crash":
                    worker.process.join(timeout=10)  # the pipe can close a moment before the exit
                    code = worker.process.exitcode
                    on_done(worker.key, None, f"render worker died (exit code {code})")
                    busy.remove(worker)
                    worker.stop()
                    if queue:
                        start()
                    continue
                on_done(worker.key, payload if status == "ok" else None, payload if status == "error" else None)
                worker.done += 1
                if queue and worker.done < recycle_after:
                    worker.send(*queue.popleft())
                    continue
                busy.remove(worker)
                worker.stop()
                if queue:
                    start()
    finally:
        for worker in busy:
            worker.process.kill()
            worker.stop()
