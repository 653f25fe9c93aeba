"""`byo eval --repeats K`: every question asked K times, to measure how stable the answers are.

Repeat 1 is the run NAME, as without --repeats (and served from the cache like any run); repeat r
(2..K) is the run NAME.repeat-r, a run of its own whose requests carry the repeat number in their
cache key: they are never answered from repeat 1's cache entries, and each is cached in turn, so an
interrupted run resumes where it stopped. Every repeat's run.json records `repeat` and `repeats`;
byo score reads the group from repeat 1's. The answers differ only as the model samples them:
with `--temperature 0` a deterministic model repeats itself. `--max-cost` holds for the K runs
together: each repeat's ledger is capped at what the others (over all their invocations) left.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace

from byo.core.inputs import read_json
from byo.eval.layout import RUN_FILE
from byo.eval.resolve import Evaluation
from byo.eval.run import run_locked
from byo.eval.settings import EvalReport, EvalSettings


def evaluate_repeats(settings: EvalSettings, *, show_progress: bool = True,
                     on_wait: Callable[[str], None] | None = None) -> list[EvalReport]:
    """The K runs, one after another; all are resolved (and their settings checked) before the first
    request. Stops after a repeat that was stopped. Each run is locked while it is written."""
    evaluations = [Evaluation(replace(settings, repeat=r)) for r in range(1, settings.repeats + 1)]
    reports = []
    for i, ev in enumerate(evaluations):
        if settings.max_cost is not None:  # one cap for every repeat: what the others spent is taken off
            others = sum(recorded_spend(e) for e in evaluations if e is not ev)
            ev.settings = replace(ev.settings, max_cost=max(0.0, settings.max_cost - others))
        report = run_locked(ev, show_progress=show_progress, on_wait=on_wait)
        reports.append(report)
        if report.stopped is not None:
            for rest in evaluations[i + 1:]:  # never run: their clients are closed unused
                asyncio.run(rest.provider.close())
            break
    return reports


def recorded_spend(ev: Evaluation) -> float:
    """What a repeat's run has spent, as its run.json records it (0 before its first invocation)."""
    path = ev.run_dir / RUN_FILE
    try:
        spent = read_json(path).get("spent_usd") if path.is_file() else 0.0
    except (OSError, ValueError, AttributeError):
        spent = 0.0
    return float(spent) if isinstance(spent, int | float) else 0.0
