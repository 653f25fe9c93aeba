"""Scoring: parse free-form VLM answers, compute metrics per level, plot, and report.

- `parse`: one staged parser for every answer type, each parse with a status.
- `metrics`: accuracy, errors, NMAE, set and yes/no P/R/F1, confusion, intervals.
- `tables`: the scorer's metric tables (per key, prompt variant, level and cross of two variables...).
- `builtin`: those tables as registered tables (byo.core.report_tables.ReportTable), with their
  definitions and report sections; `registry`: every table byo score writes, registered once
  (the scorer's own, the shared metrics, the families').
- `run`: `byo score RUN` (parsed.jsonl, scores.json, CSV tables).
- `report`: `byo report RUN... -o report.html`, its sections in `sections` (the tables') and
  `run_sections` (overview, paired comparisons, human agreement, mistakes, cost, definitions).
"""
