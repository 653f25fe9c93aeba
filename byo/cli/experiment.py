"""`byo run EXPERIMENT --model PROVIDER:MODEL ...`: plan, render, ask, audit, evaluate every model,
score, compare and report in one command, redoing only what changed (byo.api.experiment)."""

from __future__ import annotations

import argparse
from pathlib import Path

import byo
from byo.cli.console import add_json, add_quiet, console, new_table, out, print_json, quiet
from byo.cli.options import whole


def results(outcome) -> list[dict]:
    """Accuracy per dataset, key and model (every prompt variant pooled), with its interval."""
    rows = []
    for d in outcome.datasets:
        for name, scores in d.scores.items():
            for r in scores.tables["metrics"]:
                if r["variant"] == "all" and not r["variable"]:
                    rows.append({"dataset": d.dataset.name, "key": r["key"], "model": name, "n": r["n"],
                                 "accuracy": r["accuracy"], "accuracy_lo": r["accuracy_lo"],
                                 "accuracy_hi": r["accuracy_hi"]})
    return rows


def print_results(outcome, rows: list[dict]) -> None:
    models = list(dict.fromkeys(r["model"] for r in rows))
    cells = {(r["dataset"], r["key"], r["model"]): r for r in rows}
    shown = new_table("dataset", "key", "n", *models, title=f"{outcome.experiment.name}: accuracy [95% interval, "
                  "clustered by image], every prompt variant pooled")
    for dataset, key in dict.fromkeys((r["dataset"], r["key"]) for r in rows):
        first = next(cells[(dataset, key, m)] for m in models if (dataset, key, m) in cells)
        shown.add_row(dataset, "all questions" if key == "*" else key, str(first["n"]), *(
            f"{c['accuracy']:.0%} [{c['accuracy_lo']:.0%}-{c['accuracy_hi']:.0%}]" if (c := cells.get(
                (dataset, key, m))) else "" for m in models))
    out().print(shown)


def cmd_run(args) -> int:
    experiment = byo.load_experiment(args.experiment, models=args.model or [], baseline=args.baseline)
    outcome = byo.run_experiment(experiment, out=args.output, workers=args.workers, report=args.report,
                                 on_step=None if args.quiet else lambda line: console.print(line, highlight=False),
                                 progress=not args.quiet)
    rows = results(outcome)
    if args.json:
        print_json({"experiment": experiment.name, "report": outcome.report, "work": outcome.work,
                    "comparisons": outcome.comparisons, "results": rows})
        return 0
    print_results(outcome, rows)
    with quiet(args.quiet):
        if not outcome.work:
            console.print("nothing to do: every stage is up to date")
        console.print(f"report: {outcome.report}", highlight=False)
    return 0


def add_run(p: argparse.ArgumentParser) -> None:
    p.add_argument("experiment", type=Path, help="a dataset config, a folder of them (a paper's suite), or an "
                   "experiment file (experiment: configs, models, baseline, questions)")
    p.add_argument("--model", action="append", metavar="PROVIDER:MODEL[@URL]", help="a model to evaluate "
                   "(repeatable): openai:gpt-4.1-mini, ollama:gemma3:4b, a server's endpoint after @ "
                   "(openai-compatible:qwen2.5-vl@http://localhost:8000/v1), or a reference: blind, oracle")
    p.add_argument("--baseline", metavar="RUN", help="the run every other model is compared with (default: the "
                   "first model)")
    p.add_argument("-o", "--output", type=Path, metavar="OUT", help="where everything goes: OUT/DATASET for each "
                   "dataset, OUT/report.html (default: each config's output folder, output/EXPERIMENT/report.html)")
    p.add_argument("--report", type=Path, help="the report's path, when not OUT/report.html")
    p.add_argument("--workers", type=whole(1), help="render processes (default: one per CPU)")
    add_quiet(p, "the results table")
    add_json(p)
    p.set_defaults(func=cmd_run)


PARSERS = {"run": add_run}
