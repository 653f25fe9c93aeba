"""The closed-loop diagnostics in the public API: `adapt_threshold` (byo adapt) and
`explain_failures` (byo explain)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from byo.diagnose.adapt import MAX_TRIALS, AdaptResult, AdaptSettings, Budget, Trial, adapt
from byo.diagnose.explain import ExplainPlan, ExplainResult, explain
from byo.render.executors import Executor

__all__ = ["AdaptResult", "Budget", "ExplainPlan", "ExplainResult", "adapt_threshold", "explain_failures"]


def adapt_threshold(config, variable: str, provider: str, model: str | None = None, *, key: str,
                    out: str | Path | None = None, range: tuple[float, float] | None = None,
                    budget: Budget | None = None, direction: str = "either", executor: Executor | None = None,
                    on_trial: Callable[[Trial], None] | None = None, preprompts: Sequence[str] = ("neutral",),
                    instructions: Sequence[str] = ("direct",), **options) -> AdaptResult:
    """The breaking point of `provider`/`model` on question `key` along `variable` (a dotted scene
    path of `config`), found adaptively: each trial rendered at the level the psi method chooses
    from the answers so far (byo.diagnose.adapt), until `budget` (default: 100 answers) says stop.
    `.estimate` holds the threshold and its 95% interval; the trials are an ordinary dataset in
    `.out_dir` and run in `.run_dir`. Further options as byo.diagnose.adapt.AdaptSettings (run, link,
    chance, tolerance, unreadable, eval: EvalSettings fields such as base_url, key_env, params)."""
    settings = AdaptSettings(config=config, variable=variable, provider=provider, model=model, key=key, out=out,
                             range=range, budget=budget or Budget(trials=MAX_TRIALS),
                             direction=direction, preprompts=tuple(preprompts), instructions=tuple(instructions),
                             **options)
    return adapt(settings, executor=executor, on_trial=on_trial)


def explain_failures(run: str | Path, *, tolerance: float = 0.0, max_failures: int | None = None,
                     max_questions: int | None = None, max_cost: float | None = None, seed: int = 0,
                     executor: Executor | None = None, eval: dict | None = None,
                     on_plan: Callable[[ExplainPlan], bool] | None = None,
                     factors: list[str] | None = None) -> ExplainResult | None:
    """Why each failure of `run` failed (byo.diagnose.explain): its image re-rendered with one factor
    changed at a time, the same model asked the same question. `on_plan(plan)` hears the renders,
    questions and cost before any work and may decline (False: None is returned). `.rows`: per key
    and factor, the share of failures the change turns right; `eval`: EvalSettings fields for the
    model (base_url, key_env, providers_file...); `factors`: the names of the factors to try (None:
    every one; "full detail" asks each failure's own image cut to its objects at native resolution)."""
    return explain(run, tolerance=tolerance, max_failures=max_failures, max_questions=max_questions,
                   max_cost=max_cost, seed=seed, executor=executor, eval_options=eval, on_plan=on_plan,
                   factors=factors)
