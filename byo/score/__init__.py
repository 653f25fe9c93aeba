"""Scoring: parse free-form VLM answers, compute metrics per level, plot, and report.

- `parse`: one staged parser for every answer type, each parse with a status.
- `metrics`: accuracy, errors, NMAE, set and yes/no P/R/F1, confusion, intervals.
- `tables`: the metric tables, the families' own among them (each carried by an answer type).
- `run`: `byo score RUN` (parsed.jsonl, scores.json, CSV tables).
- `report`: `byo report RUN... -o report.html`.
"""
