"""`byo score`, `byo report`, `byo compare`, `byo view` and `byo correlate`: answers read, measured,
compared and shown."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.markup import escape

import byo
from byo.cli.console import console, fmt, new_table, out
from byo.cli.options import (
    add_curve_arguments,
    add_force,
    add_interval_arguments,
    add_require_complete,
)
from byo.core.dataset import atomic_write_text
from byo.core.outputs import check_file_output, writing_outputs
from byo.score.compare import CORRECTIONS, default_output, write_comparison
from byo.score.correlate import correlation_table, prompt_table, scene_pair_table
from byo.score.judge import Judge, JudgeSettings
from byo.score.registry import TABLES as DECLARED
from byo.score.report import FORMATS
from byo.score.rows import load_run
from byo.score.run import load_scores
from byo.view.build import check_view_output, write_view


def cmd_score(args) -> int:
    scores = byo.score_run(args.run, n_boot=args.bootstrap, seed=args.seed, require_complete=args.require_complete,
                              tolerance=args.tolerance, criterion=args.criterion,
                              perplexity_model=args.perplexity_model, bins=dict(args.bins or []),
                              judge=judge_from_args(args))
    table = new_table("key", "type", "n", "parse rate", "accuracy", "F1 BYO-Eval", "F1 macro", "MAE", "NMAE",
                      title=f"{args.run} ({scores.facts.get('model')}, all prompt variants"
                            f"{', ' + scores.partial if scores.partial else ''})")
    for r in scores.tables["metrics"]:
        if r["variant"] == "all" and not r["variable"]:
            table.add_row(r["key"] if r["key"] != "*" else "[bold]all questions[/bold]", r["answer_type"], str(r["n"]),
                          f"{r['parse_rate']:.0%}", f"{r['accuracy']:.0%} [{r['accuracy_lo']:.0%}-{r['accuracy_hi']:.0%}]",
                          fmt(r.get("f1_byoeval")), fmt(r.get("f1_macro")), fmt(r.get("mae")), fmt(r.get("nmae")))
    out().print(table)
    print_judge(scores)
    print_declared(scores)
    print_breaking_points(scores)
    print_stability(scores)
    warn_partial(args.run, scores)
    console.print("wrote " + ", ".join(str(p) for p in scores.written.values()))
    return 0


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


def print_declared(scores) -> None:
    """The declared tables that ask to be printed (byo.score.registry): their rows over every prompt
    variant, not folded, in their own columns."""
    for name, declared in DECLARED.items():
        rows = [r for r in scores.tables.get(name, []) if r.get("variant", "all") == "all"
                and not (declared.folded and declared.folded(r))]
        if not declared.terminal or not rows:
            continue
        keyed = any("key" in r for r in rows)
        table = new_table(*(["key"] if keyed else []), *(c.header for c in declared.columns), title=declared.title)
        for r in rows:
            table.add_row(*([str(r.get("key", ""))] if keyed else []),
                          *(" ".join(filter(None, [FORMATS[c.format](r.get(c.field)), c.note(r) if c.note else ""]))
                            for c in declared.columns))
        out().print(table)


def print_breaking_points(scores) -> None:
    fits = [f for f in scores.tables.get("breaking_points", []) if f["link"] == "logistic"]
    if not fits:
        return
    table = new_table("key", "variable", "breaks at [95% CI]", "slope", "lapse", "fit p", "subitizing",
                  title="Breaking points (logistic; criterion halfway from chance to the ceiling; profile-likelihood "
                        "intervals)")
    for f in fits:
        prior = f" [yellow](the answer prior's curve: {f['answer_prior']})[/yellow]" if f.get("answer_prior") else ""
        table.add_row(f["key"], f["variable"], escape(f["breaking_point"]) + prior, fmt(f.get("slope")),
                      fmt(f.get("lapse")), fmt(f.get("gof_p")), fmt(f.get("subitizing")))
    out().print(table)


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


def warn_partial(run: Path, scores) -> None:
    if scores.partial:
        console.print(f"[yellow]{escape(str(run))}: {scores.partial}; every figure is over the {scores.facts['answered']} "
                      "answered questions. Rerun the same byo eval command to finish the run "
                      "(--require-complete makes this an error)[/yellow]", highlight=False)


def cmd_report(args) -> int:
    viewer = None if args.no_viewer else Path(args.output).with_name(Path(args.output).stem + "_samples.html")
    check_file_output(args.output, force=args.force)
    if viewer is not None:
        check_view_output(viewer, force=args.force)
    runs = [load_scores(run, n_boot=args.bootstrap, seed=args.seed, require_complete=args.require_complete,
                        tolerance=args.tolerance, criterion=args.criterion, bins=dict(args.bins or []))
            for run in args.runs]
    for run, scores in zip(args.runs, runs, strict=True):
        warn_partial(run, scores)
    path = byo.write_report(runs, args.output, title=args.title, viewer=not args.no_viewer,
                            force=args.force)
    viewer = None if args.no_viewer else byo.sample_viewer_of(path)
    console.print(f"[bold]report: {path.resolve()}[/bold]" + (f"\nsample viewer: {viewer.resolve()}" if viewer else ""))
    return 0


def cmd_compare(args) -> int:
    a, b = (load_scores(run, n_boot=args.bootstrap, seed=args.seed, tolerance=args.tolerance,
                        criterion=args.criterion, bins=dict(args.bins or [])) for run in (args.run_a, args.run_b))
    result = byo.compare_runs(a, b, n_boot=args.bootstrap, seed=args.seed, correction=args.correction)
    shown = out()
    s = result["settings"]
    table = new_table("questions", "n / images", "A", "B", "A - B [95% CI]", "p", "adjusted interval", "adj. p",
                  "verdict", title=f"A = {a.facts['run']} ({a.facts.get('model')}), B = {b.facts['run']} "
                  f"({b.facts.get('model')}): {result['paired']} paired questions; t test on the cluster-robust "
                  f"standard error (images as clusters); adjusted: {s['correction']}; the verdict is the adjusted "
                  "interval's (McNemar's p, for reference: differences.csv)")
    notes = []
    for r in result["differences"]:
        if r["variable"] and not args.levels:
            continue
        where = "all questions" if r["key"] == "*" else " ".join(x for x in (r["key"], r["variable"], r["level"]) if x)
        table.add_row(f"[bold]{where}[/bold]" if r["key"] == "*" else escape(where), f"{r['n']} / {r['images']}",
                      f"{r['accuracy_a']:.1%}", f"{r['accuracy_b']:.1%}", *compare_cells(r))
        if r["interval_note"]:
            notes.append(f"{where}: no interval, no test: {r['interval_note']}")
    shown.print(table)
    for note in notes:
        shown.print(escape(note), highlight=False)
    if result["thresholds"]:
        thresholds = new_table("key", "variable", "threshold A", "threshold B", "A - B [95% CI]", "note",
                           title="Breaking points (logistic), paired bootstrap of images")
        for r in result["thresholds"]:
            ci = (f" [{r['difference_lo']:+.2f}, {r['difference_hi']:+.2f}]" if r.get("difference_lo") is not None
                  else "")
            each = [fmt(r[f"threshold_{x}"]) if r[f"verdict_{x}"] == "breaks" else r[f"verdict_{x}"] for x in "ab"]
            thresholds.add_row(r["key"], r["variable"], *each,
                               f"{r['difference']:+.2f}{ci}" if r["difference"] is not None else "–", r.get("note") or "")
        shown.print(thresholds)
    paths = write_comparison(result, args.output or default_output(a, b))
    console.print("wrote " + ", ".join(str(p) for p in paths.values()))
    return 0


def compare_cells(r: dict) -> list[str]:
    """A paired row's difference, test, adjusted interval and verdict; a row without a test points to
    the note under the table."""
    if r["p_clustered"] is None:
        return [f"{r['difference']:+.1%} (no interval: below)", "–", "–", "–", r["verdict"]]
    return [f"{r['difference']:+.1%} [{r['difference_lo']:+.1%}, {r['difference_hi']:+.1%}]", f"{r['p_clustered']:.2g}",
            f"[{r['difference_adjusted_lo']:+.1%}, {r['difference_adjusted_hi']:+.1%}] at "
            f"{r['confidence_adjusted']:.2%}", f"{r['p_clustered_adjusted']:.2g}", r["verdict"]]


def cmd_view(args) -> int:
    page = args.output or Path(args.runs[0]) / "view.html"
    check_view_output(page, force=args.force, own_place=args.output is None)
    runs = [load_scores(run, n_boot=args.bootstrap, seed=args.seed) for run in args.runs]
    path = write_view(runs, page, title=args.title, force=args.force, own_place=args.output is None)
    console.print(f"[bold]viewer: {path.resolve()}[/bold] ({sum(len(s.rows) for s in runs):,} answers)")
    return 0


def cmd_correlate(args) -> int:
    path = args.output or Path(args.real) / "correlation.json"
    check_file_output(path, force=args.force, own_place=args.output is None)
    synthetic, real = (load_run(run)[0] for run in (args.synthetic, args.real))
    result = {"synthetic": str(args.synthetic), "real": str(args.real),
              "rows": correlation_table(synthetic, real), "scene_pairs": scene_pair_table(synthetic, real),
              "prompts": prompt_table(synthetic, real)}
    print_correlation(args, result)
    with writing_outputs([path] if args.output else [], "byo correlate"):
        atomic_write_text(path, json.dumps(result, indent=1) + "\n")
    console.print(f"wrote {path}")
    return 0


def coefficient(value) -> str:
    return "not estimable" if value is None else f"{value:.2f}"


def print_correlation(args, result: dict) -> None:
    """Figures 51, 52 and 53 of BYO-Eval's appendix E as tables; a coefficient the data cannot give
    is "not estimable"."""
    table = new_table("key", "variable", "levels", "Pearson r", "Spearman rho", "note",
                      title=f"Figure 51, per-level accuracy: {args.synthetic} (synthetic) against {args.real} (real)")
    for r in result["rows"]:
        table.add_row(r["key"], r["variable"], str(r["levels"]), coefficient(r["pearson"]),
                      coefficient(r["spearman"]), r["note"] or "")
    out().print(table)
    if not result["scene_pairs"]:
        console.print("Figures 52 and 53 compare each photo with the render it reproduces: no photo names its render "
                      "(labels.yaml: render: images/...).")
        return
    table = new_table("key", "scene pairs", "with a coefficient", "mean Pearson r", "mean Spearman rho",
                      title="Figure 52, per scene pair (right/wrong over the prompt variants), mean over the pairs")
    for r in result["scene_pairs"]:
        table.add_row(r["key"], str(r["of"]), str(r["estimable"]), coefficient(r["pearson"]),
                      coefficient(r["spearman"]))
    out().print(table)
    table = new_table("key", "variable", "prompt", "levels", "with a coefficient", "mean Pearson r",
                      "mean Spearman rho", title="Figure 53, per prompt: per level over the scene pairs, mean over the "
                                                 "levels")
    for r in result["prompts"]:
        table.add_row(r["key"], r["variable"], f"{r['grouping']} {r['prompt']}", str(r["of"]), str(r["estimable"]),
                      coefficient(r["pearson"]), coefficient(r["spearman"]))
    out().print(table)


def add_score(score: argparse.ArgumentParser) -> None:
    score.add_argument("run", type=Path, help="run directory DATASET/runs/NAME")
    add_interval_arguments(score)
    add_curve_arguments(score)
    add_require_complete(score)
    score.add_argument("--perplexity-model", help="COMPASS's perplexity check of the negatives: a transformers "
                       "causal language model (a Hub name such as gpt2, or a folder); without it the check is skipped")
    add_judge_arguments(score)
    score.set_defaults(func=cmd_score)


def add_judge_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--judge", metavar="PROVIDER:MODEL", help="a language model reads the answers the rules leave "
                   "unparsed or ambiguous, and only those, with one fixed extraction prompt (cached like eval "
                   "answers; parsed.jsonl names the path, rule or judge, of every row)")
    p.add_argument("--judge-base-url", help="the judge's endpoint (openai-compatible, a proxy)")
    p.add_argument("--judge-providers", type=Path, help="providers file naming the judge's provider")
    p.add_argument("--judge-key-env", help="environment variable holding the judge's API key")
    p.add_argument("--judge-key-file", type=Path, help="file holding the judge's API key")


def add_report(report: argparse.ArgumentParser) -> None:
    report.add_argument("runs", type=Path, nargs="+", help="run directories DATASET/runs/NAME (scored if needed)")
    report.add_argument("-o", "--output", type=Path, default=Path("report.html"))
    report.add_argument("--title", help="report title")
    report.add_argument("--no-viewer", action="store_true", help="skip the sample viewer (REPORT_samples.html and "
                        "REPORT_samples_files/ beside the report, linked from it)")
    add_interval_arguments(report)
    add_curve_arguments(report)
    add_require_complete(report)
    add_force(report)
    report.set_defaults(func=cmd_report)


def add_compare(cmp: argparse.ArgumentParser) -> None:
    cmp.add_argument("run_a", type=Path, help="run directory DATASET/runs/A (scored if needed)")
    cmp.add_argument("run_b", type=Path, help="run directory of the same questions")
    cmp.add_argument("-o", "--output", type=Path, help="output directory (default DATASET/comparisons/A--B)")
    cmp.add_argument("--correction", choices=list(CORRECTIONS), default="holm",
                     help="multiple-comparison control: holm (family-wise) or bh (Benjamini-Hochberg)")
    cmp.add_argument("--levels", action="store_true", help="print every level's row, not only each key's")
    add_interval_arguments(cmp)
    add_curve_arguments(cmp)
    cmp.set_defaults(func=cmd_compare)


def add_view(view: argparse.ArgumentParser) -> None:
    view.add_argument("runs", type=Path, nargs="+", help="run directories DATASET/runs/NAME (scored if needed)")
    view.add_argument("-o", "--output", type=Path, help="the page (default RUN/view.html); its data and overlays go "
                      "to FILE_files/ beside it")
    view.add_argument("--title", help="page title")
    add_interval_arguments(view)
    add_force(view)
    view.set_defaults(func=cmd_view)


def add_correlate(co: argparse.ArgumentParser) -> None:
    co.add_argument("synthetic", type=Path, help="run directory on the synthetic dataset")
    co.add_argument("real", type=Path, help="run directory on the photos")
    co.add_argument("-o", "--output", type=Path, help="default: REAL/correlation.json")
    add_force(co)
    co.set_defaults(func=cmd_correlate)


PARSERS = {"score": add_score, "report": add_report, "compare": add_compare, "view": add_view,
           "correlate": add_correlate}
