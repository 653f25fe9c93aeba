"""The note beside a run's progress bar: requests per second, tokens, estimated cost (and the
spend against --max-cost), cache hits, failures, and what a rate limit holds back."""

from __future__ import annotations

from byo.providers.catalog import ModelEntry


def figures(*, sent: int, elapsed_s: float, tokens_new: dict, price: ModelEntry, cached: int,
            failed: int, limit: str = "", cap: float | None = None, spent: float = 0.0) -> str:
    rate = sent / max(elapsed_s, 1e-9)
    cost = price.cost(tokens_new.get("input", 0), tokens_new.get("output", 0))
    return (f"{rate:.1f} req/s  {tokens_new.get('total', 0):,} tok  "
            + (f"${cost:.4f}" if cost is not None else "$ n/a")
            + (f" (run ${spent:.4f} of ${cap:g})" if cap is not None else "") + f"  cached {cached}"
            + (f"  [red]failed {failed}[/red]" if failed else "")
            + (f"  [yellow]{limit}[/yellow]" if limit else ""))
