"""The one progress bar: counts, failures, rate, elapsed time, time left and a note of the caller's,
on stderr (stdout is for results: a table, or JSON for machines)."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class Bar:
    """`with Bar("rendering", total, unit="img") as bar: bar.advance()`; `bar.console` prints above it."""

    def __init__(self, label: str, total: int, *, unit: str, enabled: bool = True):
        self.unit = unit
        self._progress = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(),
                                  TextColumn("{task.fields[failed]}"), TextColumn("{task.fields[rate]}"),
                                  TimeElapsedColumn(), TimeRemainingColumn(), TextColumn("{task.fields[note]}"),
                                  console=Console(stderr=True), disable=not enabled or total == 0)
        self._task = self._progress.add_task(label, total=total, rate="", failed="", note="")
        self.done = 0
        self.failed = 0

    @property
    def console(self):
        return self._progress.console

    @property
    def elapsed(self) -> float:
        return self._progress.tasks[0].elapsed or 1e-9

    def advance(self, n: int = 1, *, failed: bool = False, note: str = "") -> None:
        """`n` more finished; `failed`: they failed (counted apart, shown in red); `note`: shown last."""
        self.done += n
        self.failed += n if failed else 0
        self._progress.update(self._task, advance=n, rate=f"{self.done / self.elapsed:.2f} {self.unit}/s",
                              failed=f"[red]{self.failed} failed[/red]" if self.failed else "", note=note)

    def __enter__(self) -> Bar:
        self._progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._progress.__exit__(*exc)
