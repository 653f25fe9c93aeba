"""The progress bar of a run: requests per second, tokens, estimated cost, cache hits, failures."""

from __future__ import annotations

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from byo.providers.catalog import ModelEntry


def progress_bar(provider: str, model: str, show: bool) -> Progress:
    return Progress(TextColumn(f"[bold]eval[/bold] {provider}/{model}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[stats]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                    disable=not show)


def figures(*, sent: int, elapsed_s: float, tokens_new: dict, price: ModelEntry, cached: int,
            failed: int) -> str:
    rate = sent / max(elapsed_s, 1e-9)
    cost = price.cost(tokens_new.get("input", 0), tokens_new.get("output", 0))
    return (f"{rate:.1f} req/s  {tokens_new.get('total', 0):,} tok  "
            + (f"${cost:.4f}" if cost is not None else "$ n/a") + f"  cached {cached}"
            + (f"  [red]failed {failed}[/red]" if failed else ""))
