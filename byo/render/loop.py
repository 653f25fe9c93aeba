"""The render loop: one dataset's images handed to an executor's workers, each result put on disk
by the one writer as it comes and recorded in the render log, and what a resume still has to
render. `byo render` (byo.render.runner), `byo adapt` and `byo explain` all render through it."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from byo.core.dataset import LEGENDS, Layout
from byo.core.progress import Bar
from byo.render import log as renderlog
from byo.render.executors import Executor
from byo.render.messages import RenderResult, RenderTask
from byo.render.writer import write_result
from byo.scene.plan import ImageJob


@dataclass(frozen=True)
class Outcome:
    """One image as the loop saw it: rendered and written (`result`), or failed (`error`)."""

    task: RenderTask
    result: RenderResult | None
    error: str | None


class RenderLoop:
    """The images of the dataset at `layout`, rendered by `executor`: written, logged, counted."""

    def __init__(self, layout: Layout, executor: Executor):
        self.layout, self.executor = layout, executor
        self.rendered = 0
        self.failed = 0

    # --- resume ------------------------------------------------------------------------------
    def still_to_render(self, selected: Iterable[ImageJob], show_progress: bool = False
                        ) -> tuple[list[ImageJob], list[tuple[str, list[str]]]]:
        """The images without a complete, intact copy on disk, and what was wrong with those that
        had a legend (a truncated image, a legend cut short, a file that does not match its hash)."""
        selected = list(selected)
        if not (self.layout.root / LEGENDS).is_dir():
            return selected, []
        todo, repaired = [], []
        with Bar("[bold]checking", len(selected), unit="img", enabled=show_progress and len(selected) > 500) as bar:
            for job in selected:
                found = self.layout.problems(job.name, deep=True)
                if found:
                    todo.append(job)
                    if found != ["no legend"]:
                        repaired.append((job.name, found))
                bar.advance()
        return todo, repaired

    # --- the render log ----------------------------------------------------------------------
    def start(self, **fields) -> None:
        """The start event (a last line a kill cut short is cut off first)."""
        renderlog.recover(self.layout.root)
        self.record({"event": "start", **fields, "executor": type(self.executor).__name__})

    def record(self, event: dict) -> None:
        renderlog.append(self.layout.root, event)

    def record_failure(self, name: str, error: str) -> None:
        """An image that has no render (its render failed, or its scene could not be placed)."""
        self.failed += 1
        self.record({"event": "image", "name": name, "status": "failed", "error": error})

    def stopped(self, signal: str) -> None:
        self.record({"event": "stopped", "signal": signal, "rendered": self.rendered})

    def end(self, rendered: int | None = None, failed: int | None = None) -> None:
        """The end event: this loop's counts, unless told others (byo adapt counts every trial)."""
        self.record({"event": "end", "rendered": self.rendered if rendered is None else rendered,
                     "failed": self.failed if failed is None else failed})

    # --- rendering ---------------------------------------------------------------------------
    def render(self, tasks: Iterable[RenderTask]) -> Iterator[Outcome]:
        """Hand `tasks` to the executor; write and log each result as it comes, then yield it.
        The executor stops its workers however the loop ends (a failure, a stop, the caller's break)."""
        outcomes = self.executor.run(tasks)
        try:
            for task, result, error in outcomes:
                if result is None:
                    self.record_failure(task.name, error)
                    yield Outcome(task, None, error)
                    continue
                writing = time.perf_counter()
                write_result(self.layout, result)
                self.rendered += 1
                phases = {**result.phases, "write": time.perf_counter() - writing}
                self.record({"event": "image", "name": task.name, "status": "done",
                             "seconds": round(result.seconds, 3), "attempts": result.attempts,
                             "worker": result.worker, "phases": {k: round(v, 4) for k, v in phases.items()},
                             **({"engine_log": result.engine_log} if result.engine_log else {})})
                yield Outcome(task, result, None)
        finally:
            outcomes.close()

    def render_one(self, task: RenderTask) -> Outcome:
        """One image (byo adapt's trial): rendered, written and logged."""
        outcomes = self.render([task])
        try:
            return next(outcomes)
        finally:
            outcomes.close()
