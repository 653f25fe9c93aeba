"""The one progress bar: counts, failures, rate, elapsed time, time left and a note of the caller's,
on stderr (stdout is for results: a table, or JSON for machines). Where stderr is no terminal (a
log file, a pipe, CI), plain lines instead: one when a share of the work is done (every 25%, at
most every PLAIN_EVERY_S seconds) and one at the end, never a bar cut to the log's width."""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

PLAIN_EVERY_S = 10.0  # at most one intermediate line this often, outside a terminal
PLAIN_SHARES = (0.25, 0.5, 0.75)


class Bar:
    """`with Bar("rendering", total, unit="img") as bar: bar.advance()`; `bar.console` prints above it."""

    def __init__(self, label: str, total: int, *, unit: str, enabled: bool = True):
        self.unit = unit
        self.total = total
        console = Console(stderr=True)
        self.plain = enabled and total > 0 and not console.is_terminal
        self.label = Text.from_markup(label).plain
        self._progress = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(),
                                  TextColumn("{task.fields[failed]}"), TextColumn("{task.fields[rate]}"),
                                  TimeElapsedColumn(), TimeRemainingColumn(), TextColumn("{task.fields[note]}"),
                                  console=console, disable=not enabled or total == 0 or self.plain)
        self._task = self._progress.add_task(label, total=total, rate="", failed="", note="")
        self.done = 0
        self.failed = 0
        self._started = time.perf_counter()
        self._said_at = self._started
        self._shares = list(PLAIN_SHARES)
        self._closed = False

    @property
    def console(self):
        return self._progress.console

    @property
    def elapsed(self) -> float:
        return self._progress.tasks[0].elapsed or 1e-9

    def line(self) -> str:
        """The state as one plain line: 'eval blind/blind: 12 of 126 q (1 failed), 2936.7 q/s, 0:00:01'."""
        seconds = int(time.perf_counter() - self._started)
        rate = self.done / max(time.perf_counter() - self._started, 1e-9)
        failed = f" ({self.failed} failed)" if self.failed else ""
        return (f"{self.label}: {self.done} of {self.total} {self.unit}{failed}, {rate:.1f} {self.unit}/s, "
                f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}")

    def advance(self, n: int = 1, *, failed: bool = False, note: str = "") -> None:
        """`n` more finished; `failed`: they failed (counted apart, shown in red); `note`: shown last."""
        self.done += n
        self.failed += n if failed else 0
        if self.plain:
            passed = [s for s in self._shares if self.done >= s * self.total]
            now = time.perf_counter()
            if passed and self.done < self.total and now - self._said_at >= PLAIN_EVERY_S:
                self._shares = [s for s in self._shares if s not in passed]
                self._said_at = now
                self.console.print(self.line(), markup=False, highlight=False)
            return
        self._progress.update(self._task, advance=n, rate=f"{self.done / self.elapsed:.2f} {self.unit}/s",
                              failed=f"[red]{self.failed} failed[/red]" if self.failed else "", note=note)

    def __enter__(self) -> Bar:
        self._progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._progress.__exit__(*exc)
        if self.plain and not self._closed:
            self._closed = True
            self.console.print(self.line(), markup=False, highlight=False)
