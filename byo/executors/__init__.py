"""Executors move render tasks to wherever images are rendered and bring the results back;
they write nothing. Each is used as `for task, result, error in executor.run(tasks): ...`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from importlib import import_module
from typing import Protocol

from byo.render.messages import RenderResult, RenderTask

# The function that renders a task, named rather than imported: it imports bpy, which only the
# processes that render need.
RENDER = "byo.render.job:render_task"

Outcome = tuple[RenderTask, RenderResult | None, str | None]


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
