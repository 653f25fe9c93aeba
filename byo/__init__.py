"""BYO Render: controlled synthetic scenes for diagnosing the eyesight of VLMs.

The public Python API (byo.api, loaded on first use, so `import byo` costs nothing):
`load_config`, `plan`, `render_dataset`, `render_images`, `write_questions`, `audit_dataset`,
`evaluate`, `score_run`, `write_report`, `compare_runs`, `adapt_threshold`, `explain_failures`; docs/api.md shows them in a notebook.
"""

__version__ = "0.1.0"

API = ("AdaptResult", "AuditReport", "Budget", "ExplainPlan", "ExplainResult", "adapt_threshold", "explain_failures", "DatasetConfig", "EvalReport", "Experiment", "ExperimentOutcome", "Plan", "Questions", "RenderReport", "RenderResult", "Scores",
       "audit_dataset", "compare_runs", "evaluate", "load_config", "load_experiment", "plan", "render_dataset", "render_images",
       "run_experiment", "sample_viewer_of", "score_run", "write_questions", "write_report")


def __getattr__(name: str):
    if name in API:
        from byo import api  # on first use: `import byo.core.errors` must not load every stage

        return getattr(api, name)
    raise AttributeError(f"module 'byo' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *API])
