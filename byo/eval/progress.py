"""The note beside a run's progress bar: requests per second, tokens, estimated cost, cache hits,
failures."""

from __future__ import annotations

from byo.providers.catalog import ModelEntry


def figures(*, sent: int, elapsed_s: float, tokens_new: dict, price: ModelEntry, cached: int,
            failed: int) -> str:
    rate = sent / max(elapsed_s, 1e-9)
    cost = price.cost(tokens_new.get("input", 0), tokens_new.get("output", 0))
    return (f"{rate:.1f} req/s  {tokens_new.get('total', 0):,} tok  "
            + (f"${cost:.4f}" if cost is not None else "$ n/a") + f"  cached {cached}"
            + (f"  [red]failed {failed}[/red]" if failed else ""))
