"""The public Python API, re-exported by `byo` itself: each stage of an experiment as a function
that returns an object and prints nothing. The command line calls these; so can a notebook:

    import byo
    config = byo.load_config("dataset_configs/demo.yaml")
    byo.plan(config).images                      # 8
    dataset = byo.render_dataset(config, "output/demo").out_dir
    byo.write_questions(dataset, preprompts=["neutral", "cot"])
    byo.audit_dataset(dataset).failed             # False: every answer agrees with the pixels
    run = byo.evaluate(dataset, "oracle").run_dir
    scores = byo.score_run(run)
    scores.overall["accuracy"]                   # 1.0
    byo.write_report([run], "output/demo/report.html")
    byo.adapt_threshold("dataset_configs/chess/count_blur.yaml", "blur.fstop", "openai", "gpt-4.1-mini",
                        key="count_pieces", range=(0.5, 9), budget=byo.Budget(width=1.0, trials=80)).estimate

Names carry their object (`render_dataset`, not `render`) because `byo.render`, `byo.questions`,
`byo.audit` and `byo.score` are the stage packages.
"""

from __future__ import annotations

import importlib

# Each name of the API and the stage module that holds it, imported on first use of one of its
# names: a command (or a notebook) that only renders never loads the scoring stack.
STAGES = {
    **dict.fromkeys(("DatasetConfig", "Plan", "RenderReport", "RenderResult", "load_config", "plan", "render_dataset",
                     "render_images"), "render"),
    **dict.fromkeys(("AuditReport", "Questions", "audit_dataset", "write_questions"), "ask"),
    **dict.fromkeys(("EvalReport", "evaluate"), "evaluation"),
    **dict.fromkeys(("Scores", "compare_runs", "sample_viewer_of", "score_run", "write_report"), "score"),
    **dict.fromkeys(("AdaptResult", "Budget", "ExplainPlan", "ExplainResult", "adapt_threshold", "explain_failures"),
                    "diagnose"),
    **dict.fromkeys(("Experiment", "ExperimentOutcome", "load_experiment", "run_experiment"), "experiment"),
}
__all__ = sorted(STAGES)


def __getattr__(name: str):
    if name in STAGES:
        return getattr(importlib.import_module(f"{__name__}.{STAGES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *STAGES])
