"""Executors move render tasks to wherever images are rendered and bring the results back;
they write nothing. Each is used as `for task, result, error in executor.run(tasks): ...`."""

from __future__ import annotations

import ctypes
import fcntl
import os
import signal
import sys
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from importlib import import_module
from typing import Protocol

from byo.render.messages import RenderResult, RenderTask

# The function that renders a task, named rather than imported: it imports bpy, which only the
# processes that render need. BYO_RENDER_HANDLER names another ("module:function", called as
# function(task, threads) -> RenderResult): a wrapper that instruments or fakes the render, as the
# tests' hanging render does.
RENDER = "byo.render.job:render_task"
HANDLER_VARIABLE = "BYO_RENDER_HANDLER"


def render_handler() -> str:
    """The render function executors load by default."""
    return os.environ.get(HANDLER_VARIABLE) or RENDER

Outcome = tuple[RenderTask, RenderResult | None, str | None]

# A worker that has not loaded its handler (bpy) after this long counts as lost.
STARTUP_SECONDS = 300.0


def cpu_sets(workers: int, threads: int, cpus: list[int] | None = None) -> list[set[int]]:
    """The CPUs of each worker slot: `threads` of this process's CPUs, in turn, wrapping when
    workers x threads exceed them."""
    usable = sorted(cpus if cpus is not None else os.sched_getaffinity(0))
    take = min(threads, len(usable))
    return [{usable[(slot * take + k) % len(usable)] for k in range(take)} for slot in range(workers)]


def keep_to_cpus(cpus: set[int]) -> None:
    """Run this process (a render worker, before it imports bpy) on `cpus` only. TBB sizes its
    default arena from the CPUs a process may use: with more CPUs than Cycles' threads, an idle
    TBB worker spins in sched_yield for the whole render (measured: Cycles at 1 thread on 2 CPUs
    used 1.9 CPU-seconds per second; kept to 1 CPU, 1.0)."""
    if cpus and cpus != os.sched_getaffinity(0):
        os.sched_setaffinity(0, cpus)


_CLAIMS: list[int] = []  # descriptors of the CPU locks this process holds until it exits


def claim_cpus(threads: int, lock_dir: str | None = None) -> set[int] | None:
    """Keep this process (a render worker that is not told its CPUs, e.g. a Ray actor) to
    `threads` CPUs that no other worker on this machine has claimed: a free one of this
    process's CPU sets, found by a non-blocking lock per set in the temporary directory, held
    until the process exits (the kernel drops it even on kill -9). None, and the CPUs left as
    they were, when Cycles' threads fill the CPUs, every set is taken, or bpy is already loaded
    (too late for TBB to see it)."""
    usable = sorted(os.sched_getaffinity(0))
    if threads >= len(usable) or "bpy" in sys.modules:
        return None
    directory = lock_dir or tempfile.gettempdir()
    for cpus in cpu_sets(len(usable) // threads, threads, usable):
        path = os.path.join(directory, "byo-cpus-" + "-".join(map(str, sorted(cpus))) + ".lock")
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)
        except OSError:  # another user's lock file: theirs
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        _CLAIMS.append(fd)
        keep_to_cpus(cpus)
        return cpus
    return None


class Executor(Protocol):
    def run(self, tasks: Iterable[RenderTask]) -> Iterator[Outcome]:
        """One (task, result, error) per task, in completion order; exactly one of result and
        error is None."""


def load_handler(path: str) -> Callable:
    """"module:function" -> the function (importing the module)."""
    module, name = path.split(":")
    return getattr(import_module(module), name)


def describe(err: BaseException) -> str:
    return str(err) or type(err).__name__


def timed_out(timeout: float | None, started: bool) -> str:
    return (f"timed out after {timeout:g} s; worker killed" if started else
            f"render worker did not start within {STARTUP_SECONDS:g} s")


def retry_or_fail(queue: deque, task, failures: int, problem: str, retries: int) -> Outcome | None:
    """A worker was lost on `task` (it crashed or timed out) after `failures` earlier losses: put
    the task back at the front of the queue, or, once `retries` retries are spent, its failure."""
    failures += 1
    if failures <= retries:
        queue.appendleft((task, failures))
        return None
    return task, None, f"{problem} ({failures} attempt{'s' if failures > 1 else ''})"


def signal_when_parent_dies(sig: int = signal.SIGKILL) -> bool:
    """Linux: have the kernel send `sig` to this process when its parent dies (kill -9 included),
    so that a killed render leaves no orphan working on. False where this is not available."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(1, sig) == 0  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return False
