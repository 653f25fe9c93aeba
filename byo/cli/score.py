"""`byo score`: a run's answers read and measured, its tables printed (the runs side by side are
byo/cli/runs.py's)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.markup import escape
from rich.table import Table

import byo
from byo.cli.console import (
    add_json,
    add_quiet,
    add_verbose,
    console,
    fmt,
    new_table,
    out,
    print_json,
    quiet,
)
from byo.cli.fields import flags_in
from byo.cli.options import (
    add_curve_arguments,
    add_interval_arguments,
    add_require_complete,
)
from byo.score.judge import Judge, JudgeSettings
from byo.score.psychometric import ESTIMATED
from byo.score.registry import TABLES as DECLARED
from byo.score.sections import object_px_text


def cmd_score(args) -> int:
    with quiet(args.quiet):
        scores = byo.score_run(args.run, n_boot=args.bootstrap, seed=args.seed,
                               require_complete=args.require_complete, tolerance=args.tolerance,
                               criterion=args.criterion, perplexity_model=args.perplexity_model,
                               bins=dict(args.bins or []), judge=judge_from_args(args))
    if args.json:
        print_json(score_document(args.run, scores))
        return 0
    table = new_table("key", "type", "n", "parse rate", "accuracy", "F1 BYO-Eval", "F1 macro", "MAE", "NMAE",
                      title=f"{args.run} ({scores.facts.get('model')}, all prompt variants"
                            f"{', ' + scores.partial if scores.partial else ''})")
    if not scores.readable:  # every question flagged: their keys' rows only, tagged [unreadable]
        table.add_row("[bold]all questions[/bold]", "", "0", "", "none readable", "", "", "", "")
        table.caption = scores.overall["note"]
    for r in overall_rows(scores):
        table.add_row(escape(r["key"]) if r["key"] != "*" else "[bold]all questions[/bold]", r["answer_type"], str(r["n"]),
                      f"{r['parse_rate']:.0%}", f"{r['accuracy']:.0%} [{r['accuracy_lo']:.0%}-{r['accuracy_hi']:.0%}]",
                      fmt(r.get("f1_byoeval")), fmt(r.get("f1_macro")), fmt(r.get("mae")), fmt(r.get("nmae")))
    out().print(table)
    with quiet(args.quiet):
        print_judge(scores)
    print_declared(scores)
    print_breaking_points(scores, verbose=args.verbose)
    print_stability(scores)
    with quiet(args.quiet):
        warn_partial(args.run, scores)
        note_undecidable(args.run, scores)
        console.print("wrote " + ", ".join(str(p) for p in scores.written.values()), highlight=False)
    return 0


def overall_rows(scores) -> list[dict]:
    """Each key's row over every prompt variant and level (the key "*": all questions)."""
    return [r for r in scores.tables["metrics"] if r["variant"] == "all" and not r["variable"]]


def declared_rows(scores) -> dict[str, list[dict]]:
    """The declared tables that ask to be printed (byo.score.registry), their rows over every prompt
    variant, not folded; only those with rows."""
    found = {}
    for name, declared in DECLARED.items():
        rows = [r for r in scores.tables.get(name, []) if r.get("variant", "all") == "all"
                and not (declared.folded and declared.folded(r))]
        if declared.terminal and rows:
            found[name] = rows
    return found


def logistic_fits(scores) -> list[dict]:
    return [f for f in scores.tables.get("breaking_points", []) if f["link"] == "logistic"]


def score_document(run: Path, scores) -> dict:
    """byo score --json: what the terminal shows, as data (every logistic breaking-point row with its
    verdict), and the files written."""
    return {"run": run, "model": scores.facts.get("model"), "partial": scores.partial, "answered":
            scores.facts.get("answered"), "undecidable": scores.facts.get("undecidable", 0),
            "metrics": overall_rows(scores), "tables": declared_rows(scores),
            "breaking_points": logistic_fits(scores), "stability": scores.tables.get("stability") or [],
            "judge": scores.facts.get("judge"), "written": scores.written}


def judge_from_args(args) -> Judge | None:
    """byo score --judge PROVIDER:MODEL: resolved (its key and endpoint) before anything is scored."""
    if not args.judge:
        return None
    return Judge(JudgeSettings(args.judge, providers_file=args.judge_providers, base_url=args.judge_base_url,
                               key_env=args.judge_key_env, key_file=args.judge_key_file))


def print_judge(scores) -> None:
    j = scores.facts.get("judge")
    if j is None:
        return
    asked = " + ".join(f"{n} {status}" for status, n in j["asked_by_status"].items() if n) or "none"
    left = f", {j['left']} named no answer (left as the rules left them)" if j["left"] else ""
    failed = f", {j['failed']} requests failed" if j["failed"] else ""
    console.print(f"judge {j['judge']} ({j['template']}, sha256 {j['template_sha256'][:12]}): {j['asked']} answers "
                  f"the rules could not read were asked ({asked}), {j['read']} judged{left}{failed}; "
                  f"{j['cached']} replies from the cache, {j['requests']} requests sent", highlight=False)
    if j.get("scored"):
        console.print(f"verdicts: {j['right_by_rules']} of {j['scored']} right by the rules alone "
                      f"({100 * j['accuracy_rules']:.1f}%), {j['right_with_judge']} with the judge's readings "
                      f"({100 * j['accuracy_with_judge']:.1f}%)", highlight=False)


def print_declared(scores) -> None:
    """The declared tables that ask to be printed (byo.score.registry), in their own columns."""
    for name, rows in declared_rows(scores).items():
        declared = DECLARED[name]
        keyed = any("key" in r for r in rows)
        table = new_table(*(["key"] if keyed else []), *(c.header for c in declared.columns), title=declared.title)
        for r in rows:
            table.add_row(*([str(r.get("key", ""))] if keyed else []),
                          *(flags_in(" ".join(filter(None, [c.text(r), c.small(r)])))
                            for c in declared.columns))
        out().print(table)


def print_breaking_points(scores, verbose: bool = False) -> None:
    """The keys whose accuracy has a breaking point along a variable (an estimate, or "between
    levels"), and in one line how many have none; `verbose`: every row, with the reason."""
    every = logistic_fits(scores)
    fits = every if verbose else [f for f in every if f["verdict"] in ESTIMATED]
    if fits:
        out().print(breaking_point_table(fits))
    none = sum(f["verdict"] not in ESTIMATED for f in every)
    if none and not verbose:
        out().print(f"{none} of {len(every)} key and variable pairs have no breaking point the data can carry "
                    "(-v lists them, with the reason)", highlight=False)


def breaking_point_table(fits: list[dict]) -> Table:
    table = new_table("key", "variable", "breaks at [95% CI]", "slope", "lapse", "fit p", "subitizing",
                      "object rendered → received",
                  title="Breaking points (logistic; criterion halfway from chance to the ceiling; profile-likelihood "
                        "intervals)")
    for f in fits:
        prior = f" [yellow](the answer prior's curve: {f['answer_prior']})[/yellow]" if f.get("answer_prior") else ""
        table.add_row(f["key"], f["variable"], escape(f["breaking_point"]) + prior, fmt(f.get("slope")),
                      fmt(f.get("lapse")), fmt(f.get("gof_p")), fmt(f.get("subitizing")), object_px_text(f))
    return table


def print_stability(scores) -> None:
    rows = scores.tables.get("stability") or []
    if not rows:
        return
    table = new_table("key", "n", "agreement", "Fleiss' kappa", "accuracy mean", "sd", "min-max",
                  title=f"Repeat stability over {rows[0]['repeats']} repeats ({rows[0]['runs']})")
    for r in rows:
        table.add_row(r["key"] if r["key"] != "*" else "all questions", str(r["n"]), f"{r['agreement']:.0%}",
                      fmt(r["fleiss_kappa"]), f"{r['accuracy_mean']:.1%}", f"{r['accuracy_sd']:.1%}",
                      f"{r['accuracy_min']:.1%}-{r['accuracy_max']:.1%}")
    out().print(table)


def note_undecidable(run: Path, scores) -> None:
    """How many questions the run left out: undecidable at the size its model receives."""
    if scores.facts.get("undecidable"):
        console.print(f"{escape(str(run))}: {scores.facts['undecidable']} questions left out, undecidable at the "
                      f"size {scores.facts.get('model')} receives (byo questions --for); not counted in any figure",
                      highlight=False)


def warn_partial(run: Path, scores) -> None:
    if scores.partial:
        console.print(f"[yellow]{escape(str(run))}: {scores.partial}; every figure is over the {scores.facts['answered']} "
                      "answered questions. Rerun the same byo eval command to finish the run "
                      "(--require-complete makes this an error)[/yellow]", highlight=False)


def add_score(score: argparse.ArgumentParser) -> None:
    score.add_argument("run", type=Path, help="run directory DATASET/runs/NAME")
    add_interval_arguments(score)
    add_curve_arguments(score)
    add_require_complete(score)
    score.add_argument("--perplexity-model", help="the perplexity check of a family's negative captions: a transformers "
                       "causal language model (a Hub name such as gpt2, or a folder); without it the check is skipped")
    add_judge_arguments(score)
    add_json(score)
    add_quiet(score, "the tables")
    add_verbose(score, "every key's breaking-point row, with the reason where there is none")
    score.set_defaults(func=cmd_score)


def add_judge_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--judge", metavar="PROVIDER:MODEL", help="a language model reads the answers the rules leave "
                   "unparsed or ambiguous, and only those, with one fixed extraction prompt (cached like eval "
                   "answers; parsed.jsonl names the path, rule or judge, of every row)")
    p.add_argument("--judge-base-url", help="the judge's endpoint (openai-compatible, a proxy)")
    p.add_argument("--judge-providers", type=Path, help="providers file naming the judge's provider")
    p.add_argument("--judge-key-env", help="environment variable holding the judge's API key")
    p.add_argument("--judge-key-file", type=Path, help="file holding the judge's API key")


PARSERS = {"score": add_score}
