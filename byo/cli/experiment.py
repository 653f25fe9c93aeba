"""`byo run EXPERIMENT --model PROVIDER:MODEL ...`: plan, render, ask, audit, evaluate every model,
score, compare and report in one command, redoing only what changed (byo.api.experiment)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.markup import escape

import byo
from byo.cli.console import add_json, add_quiet, console, new_table, out, print_json, quiet
from byo.cli.options import whole
from byo.score.design import fixed_answers, level_cells, pooled
from byo.score.registry import TABLES as DECLARED


def results(outcome) -> list[dict]:
    """Accuracy per dataset, key and model (every prompt variant pooled), with its interval; the
    pooled row ("*") leaves out the keys whose answer the design fixes, listed apart (`fixed`)."""
    rows = []
    split = headline_split(outcome)
    for d in outcome.datasets:
        for name, scores in d.scores.items():
            fixed = fixed_answers(scores.rows)
            taken = [r for r in scores.rows if split is None or r.get("split") == split]
            if not taken:
                continue
            rows.append({"dataset": d.dataset.name, "key": "*", "model": name, **pooled(taken, fixed),
                         "fixed": None})
            for key in dict.fromkeys(r["key"] for r in taken):
                rows.append({"dataset": d.dataset.name, "key": key, "model": name,
                             **pooled([r for r in taken if r["key"] == key], {}), "fixed": fixed.get(key)})
    return rows


def headline_split(outcome) -> str | None:
    protocol = outcome.experiment.protocol
    return protocol.headline_split if protocol is not None else None


def headline_tables(outcome) -> list[dict]:
    """The protocol's headline tables (its `tables`), per dataset and model: their rows over every
    prompt variant, not folded; a dataset without rows of a table has none."""
    protocol = outcome.experiment.protocol
    found = []
    for name in protocol.tables if protocol is not None else ():
        declared = DECLARED[name]
        for d in outcome.datasets:
            for model, scores in d.scores.items():
                rows = [r for r in scores.tables.get(name, []) if r.get("variant", "all") == "all"
                        and not (declared.folded and declared.folded(r))]
                if rows:
                    found.append({"dataset": d.dataset.name, "model": model, "table": name, "rows": rows})
    return found


def print_headline(outcome, headline: list[dict]) -> None:
    """One table per dataset and headline table, the models side by side as the papers print them:
    each slice (key, level...) with a row per model (Table 5: a blur level, then each model)."""
    paper = outcome.experiment.protocol.paper if outcome.experiment.protocol is not None else ""
    for dataset, name in dict.fromkeys((e["dataset"], e["table"]) for e in headline):
        declared = DECLARED[name]
        entries = [e for e in headline if (e["dataset"], e["table"]) == (dataset, name)]
        keyed = any("key" in r for e in entries for r in e["rows"])
        text = [c.field for c in declared.columns if c.format == "text"]
        by_slice: dict[tuple, list[tuple[str, dict]]] = {}
        for e in entries:
            for r in e["rows"]:
                by_slice.setdefault((r.get("key"), *(r.get(f) for f in text)), []).append((e["model"], r))
        table = new_table("model", *(["key"] if keyed else []), *(c.header for c in declared.columns),
                          title=f"{dataset}, {paper}'s headline: {declared.title}")
        for rows in by_slice.values():
            for model, r in rows:
                table.add_row(model, *([str(r.get("key", ""))] if keyed else []),
                              *(_formatted(c, r) for c in declared.columns))
        out().print(table)


def across_tables(outcome) -> list[dict]:
    """The protocol's tables laid across its datasets (its `across`: BYO-Eval's Table 2), each
    {"table", "datasets", "rows"}: a row per dataset and model, every prompt variant pooled."""
    protocol = outcome.experiment.protocol
    found = []
    for name in protocol.across if protocol is not None else ():
        rows = [{"dataset": d.dataset.name, "model": model, **r} for d in outcome.datasets
                for model, scores in d.scores.items() for r in scores.tables.get(name, [])
                if r.get("variant", "all") == "all"]
        if rows:
            found.append({"table": name, "datasets": list(dict.fromkeys(r["dataset"] for r in rows)), "rows": rows})
    return found


def _formatted(column, row: dict | None) -> str:
    if row is None:
        return ""
    return " ".join(filter(None, [column.text(row), column.small(row)]))


def print_across(outcome, across: list[dict]) -> None:
    """As the paper lays them out: a row per model, for each dataset its columns (those with a
    value there: a task without numeric answers has no MAE)."""
    paper = outcome.experiment.protocol.paper if outcome.experiment.protocol is not None else ""
    for entry in across:
        declared = DECLARED[entry["table"]]
        cells = {(r["dataset"], r["model"]): r for r in entry["rows"]}
        shown = [c for c in declared.columns if c.format != "text" and c.field not in ("images", "n")]
        groups = [(d, [c for c in shown if any(r.get(c.field) is not None for r in entry["rows"] if r["dataset"] == d)])
                  for d in entry["datasets"]]
        table = new_table("model", *(f"{d}: {c.header}" for d, columns in groups for c in columns),
                          title=f"{paper}'s headline: {declared.title}, across the suite's tasks (mean, standard "
                                "deviation over images in parentheses)")
        for model in dict.fromkeys(r["model"] for r in entry["rows"]):
            table.add_row(model, *(_formatted(c, cells.get((d, model))) for d, columns in groups for c in columns))
        out().print(table)


def level_results(outcome) -> list[dict]:
    """Accuracy per level of every varied variable and per cell of every two crossed, per dataset
    and model, with n (the keys whose answer the design fixes left out)."""
    bins = outcome.experiment.bins
    return [{"dataset": d.dataset.name, "model": name, **cell} for d in outcome.datasets
            for name, scores in d.scores.items()
            for cell in level_cells(scores.rows, fixed_answers(scores.rows), bins)]


def _cell(c: dict | None) -> str:
    return f"{c['accuracy']:.0%} [{c['accuracy_lo']:.0%}-{c['accuracy_hi']:.0%}]" if c else ""


def print_results(outcome, rows: list[dict], levels: list[dict]) -> None:
    models = list(dict.fromkeys(r["model"] for r in rows))
    cells = {(r["dataset"], r["key"], r["model"]): r for r in rows}
    split = headline_split(outcome)
    on = f", on the {split} split (the paper's headline)" if split else ""
    shown = new_table("dataset", "key", "n", *models, title=f"{outcome.experiment.name}: accuracy [95% interval, "
                      f"clustered by image], every prompt variant pooled{on}")
    ordered = sorted(dict.fromkeys((r["dataset"], r["key"]) for r in rows),
                     key=lambda dk: any(c["fixed"] for m in models if (c := cells.get((*dk, m)))))
    notes = []
    for dataset, key in ordered:
        first = next(cells[(dataset, key, m)] for m in models if (dataset, key, m) in cells)
        label = "all questions" if key == "*" else key
        if first["fixed"]:
            f = first["fixed"]
            label += " (fixed answer)"
            notes.append(f"{dataset}: {key} is answered {json.dumps(f['answer'])} on every one of its {f['images']} "
                         "images: a prior answers it here; not pooled into all questions")
        shown.add_row(dataset, label, str(first["n"]), *(_cell(cells.get((dataset, key, m))) for m in models))
    shown_on = out()
    shown_on.print(shown)
    for note in notes:
        shown_on.print(escape(note), highlight=False)
    by_cell = {(r["dataset"], r["variable"], r["level"], r["variable2"], r["level2"], r["model"]): r for r in levels}
    for dataset in dict.fromkeys(r["dataset"] for r in levels):
        table = new_table("variable", "level", "n / images", *models, title=f"{dataset}: accuracy per level and per "
                          "cell of two variables crossed, all questions but those with a fixed answer")
        for where in dict.fromkeys(k[:5] for k in by_cell if k[0] == dataset):
            _, var, level, var2, level2 = where
            first = next(by_cell[(*where, m)] for m in models if (*where, m) in by_cell)
            table.add_row(f"{var} x {var2}" if var2 else var, f"{level} x {level2}" if var2 else level,
                          f"{first['n']} / {first['images']}", *(_cell(by_cell.get((*where, m))) for m in models))
        out().print(table)


def cmd_run(args) -> int:
    experiment = byo.load_experiment(args.experiment, models=args.model or [], baseline=args.baseline)
    outcome = byo.run_experiment(experiment, out=args.output, workers=args.workers, report=args.report,
                                 on_step=None if args.quiet else lambda line: console.print(line, highlight=False),
                                 progress=not args.quiet, force=args.force, received_size=args.received_size)
    rows, levels, headline = results(outcome), level_results(outcome), headline_tables(outcome)
    across = across_tables(outcome)
    if args.json:
        print_json({"experiment": experiment.name, "report": outcome.report, "work": outcome.work,
                    "comparisons": outcome.comparisons, "results": rows, "levels": levels, "headline": headline,
                    "across": across})
        return 0
    split = headline_split(outcome)
    missing = [d.dataset.name for d in outcome.datasets if split and not any(r["dataset"] == d.dataset.name for r in rows)]
    if missing:
        console.print(f"[yellow]{', '.join(missing)}: no question on the {split} split, the paper's headline: render "
                      "more images (dataset.n_images)[/yellow]", highlight=False)
    print_results(outcome, rows, levels)
    print_across(outcome, across)
    print_headline(outcome, headline)
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
    p.add_argument("--received-size", action="store_true", help="render each config at the largest size its models "
                   "receive (their providers' published resize), never above the config's; without it, at the "
                   "config's own resolution (a paper's). Recorded in DATASET/rendered_for.json")
    p.add_argument("--force", action="store_true", help="replace a report (and its viewer's files) that byo did not "
                   "write; nothing else is removed")
    add_quiet(p, "the results table")
    add_json(p)
    p.set_defaults(func=cmd_run)


PARSERS = {"run": add_run}
