"""The local pool: render worker processes on this machine, recycled after N images.

Python 3.11's ProcessPoolExecutor can hang when `max_tasks_per_child` retires a worker, so
the pool is kept here: one pipe per worker, one job in flight per worker, a fresh process
after `recycle_after` jobs, and a crashed worker reported as a failed job (never a hang).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from multiprocessing.connection import wait
from typing import Any

from byo.executors import RENDER, Outcome, describe, load_handler
from byo.render.messages import RenderTask
from byo.stops import ignore_interrupts


def _serve(conn, handler: str, threads: int) -> None:
    """Worker process: import the handler (and so bpy) once, then run the tasks the parent
    sends, as handler(task, threads), until told to stop."""
    # A parent that imported bpy itself passes Blender's script folders on in sys.path; there
    # `bpy` would resolve to Blender's Python package instead of the wheel's module.
    sys.path[:] = [p for p in sys.path if f"{os.sep}bpy{os.sep}" not in p]
    ignore_interrupts()
    run = load_handler(handler)
    try:
        while (task := conn.recv()) is not None:
            try:
                outcome = ("ok", run(task, threads))
            except Exception as err:  # reported to the parent; the worker goes on
                outcome = ("error", describe(err))
            conn.send(outcome)
    except (EOFError, BrokenPipeError, ConnectionResetError):
        pass  # the parent is gone (stopped or killed): nothing left to report to


class _Worker:
    def __init__(self, ctx, handler: str, threads: int):
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(child, handler, threads), daemon=True)
        self.process.start()
        child.close()
        self.key: Any = None  # the job in flight
        self.done = 0

    def send(self, task) -> None:
        self.key = task
        self.conn.send(task)

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


class LocalPool:
    def __init__(self, workers: int = 1, *, recycle_after: int = 50, threads: int | None = None,
                 handler: str = RENDER):
        self.workers = workers
        self.recycle_after = recycle_after
        # Cycles threads are shared among the workers.
        self.threads = threads or max(1, (os.cpu_count() or 1) // max(1, workers))
        self.handler = handler

    def run(self, tasks: Iterable[RenderTask]) -> Iterator[Outcome]:
        """Run the tasks in worker processes; a crashed worker is a failed task, never a hang."""
        queue = deque(tasks)
        ctx = multiprocessing.get_context("spawn")
        busy: list[_Worker] = []

        def start() -> None:
            worker = _Worker(ctx, self.handler, self.threads)
            busy.append(worker)
            worker.send(queue.popleft())

        try:
            for _ in range(min(self.workers, len(queue))):
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
                        yield worker.key, None, f"render worker died (exit code {worker.process.exitcode})"
                        busy.remove(worker)
                        worker.stop()
                        if queue:
                            start()
                        continue
                    yield (worker.key, payload if status == "ok" else None,
                           payload if status == "error" else None)
                    worker.done += 1
                    if queue and worker.done < self.recycle_after:
                        worker.send(queue.popleft())
                        continue
                    busy.remove(worker)
                    worker.stop()
                    if queue:
                        start()
        finally:
            for worker in busy:
                worker.process.kill()
                worker.stop()
