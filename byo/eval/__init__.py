"""`byo eval`: ask a provider every question of a dataset, with bounded concurrency, an optional
requests-per-minute limit, retries and a crash-safe cache.

A run lives in DATASET/runs/RUN/: `predictions.jsonl` (one row per question, in question order
once the run ends; in completion order while it runs) and `run.json` (settings and totals).
Rerunning the same command resumes: cached answers are reused without a request, failures are
tried again. The cache (DATASET/runs/cache.sqlite) is shared by all runs of the dataset.

One job per module: `settings` (what a run is asked to do, and its report), `resolve` (settings
checked and turned into a provider, questions and paths), `layout` (the run directory and its
files), `requests` (a question as a provider request), `cache` (answers already received),
`schedule` (rate limit, retries, concurrency, the circuit breaker), `predictions` (prediction
rows and token totals), `progress` (the progress bar), `stop` (stopping early on a signal or a
dead endpoint) and `run` (`evaluate`, which ties them together).
"""
