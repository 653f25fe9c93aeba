"""`byo eval --repeats K`: every question asked K times, to measure how stable the answers are.

Repeat 1 is the run NAME, as without --repeats (and served from the cache like any run); repeat r
(2..K) is the run NAME.repeat-r, a run of its own whose requests carry the repeat number in their
cache key: they are never answered from repeat 1's cache entries, and each is cached in turn, so an
interrupted run resumes where it stopped. Every repeat's run.json records `repeat` and `repeats`;
byo score reads the group from repeat 1's. The answers differ only as the model samples them:
with `--temperature 0` a deterministic model repeats itself.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from byo.eval.resolve import Evaluation
from byo.eval.run import Run
from byo.eval.settings import EvalReport, EvalSettings


def evaluate_repeats(settings: EvalSettings, *, show_progress: bool = True) -> list[EvalReport]:
    """The K runs, one after another; all are resolved (and their settings checked) before the first
    request. Stops after a repeat that was stopped."""
    evaluations = [Evaluation(replace(settings, repeat=r)) for r in range(1, settings.repeats + 1)]
    reports = []
    for i, ev in enumerate(evaluations):
        report = asyncio.run(Run(ev).run(show_progress))
        reports.append(report)
        if report.stopped is not None:
            for rest in evaluations[i + 1:]:  # never run: their clients are closed unused
                asyncio.run(rest.provider.close())
            break
    return reports
