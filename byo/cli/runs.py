"""Runs side by side: `byo report` (one page over runs and prompt variants), `byo compare`
(two runs, paired), `byo view` (every answered question) and `byo correlate` (synthetic
against real photographs)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.markup import escape

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
from byo.cli.options import (
    add_curve_arguments,
    add_force,
    add_interval_arguments,
    add_require_complete,
)
from byo.cli.score import warn_partial
from byo.core.dataset import atomic_write_text
from byo.core.outputs import check_file_output, writing_outputs
from byo.score.compare import (
    CORRECTIONS,
    TEST_SIGN,
    default_output,
    testing_summary,
    where,
    write_comparison,
)
from byo.score.correlate import correlation_table, prompt_table, scene_pair_table
from byo.score.psychometric import ESTIMATED
from byo.score.rows import load_run
from byo.score.run import load_scores
from byo.view.build import check_view_output, write_view


def cmd_report(args) -> int:
    viewer = None if args.no_viewer else Path(args.output).with_name(Path(args.output).stem + "_samples.html")
    check_file_output(args.output, force=args.force)
    if viewer is not None:
        check_view_output(viewer, force=args.force)
    with quiet(args.quiet):
        runs = [load_scores(run, n_boot=args.bootstrap, seed=args.seed, require_complete=args.require_complete,
                            tolerance=args.tolerance, criterion=args.criterion, bins=dict(args.bins or []))
                for run in args.runs]
        for run, scores in zip(args.runs, runs, strict=True):
            warn_partial(run, scores)
        path = byo.write_report(runs, args.output, title=args.title, viewer=not args.no_viewer,
                                force=args.force)
    viewer = None if args.no_viewer else byo.sample_viewer_of(path)
    if args.json:
        print_json({"report": path.resolve(), "sample_viewer": viewer.resolve() if viewer else None,
                    "runs": args.runs})
    elif args.quiet:
        print(path.resolve())
    else:
        console.print(f"[bold]report: {escape(str(path.resolve()))}[/bold]"
                      + (f"\nsample viewer: {escape(str(viewer.resolve()))}" if viewer else ""), highlight=False)
    return 0


def cmd_compare(args) -> int:
    with quiet(args.quiet):
        a, b = (load_scores(run, n_boot=args.bootstrap, seed=args.seed, tolerance=args.tolerance,
                            criterion=args.criterion, bins=dict(args.bins or [])) for run in (args.run_a, args.run_b))
        result = byo.compare_runs(a, b, n_boot=args.bootstrap, seed=args.seed, correction=args.correction)
        paths = write_comparison(result, args.output or default_output(a, b))
    if args.json:
        print_json({**result, "written": paths})
        return 0
    print_comparison(args, a, b, result)
    with quiet(args.quiet):
        console.print("wrote " + ", ".join(str(p) for p in paths.values()), highlight=False)
    return 0


def print_comparison(args, a, b, result: dict) -> None:
    """The paired differences per key (-v or --levels: per level too), and the breaking points that
    either run has (-v: every pair)."""
    levels = args.levels or args.verbose
    shown = out()
    s = result["settings"]
    table = new_table("questions", "n / images", "A", "B", "A - B [95% CI]", "p", "adjusted interval", "adj. p",
                  "verdict", title=f"A = {a.facts['run']} ({a.facts.get('model')}), B = {b.facts['run']} "
                  f"({b.facts.get('model')}): {result['paired']} paired questions; Newcombe's paired "
                  f"interval and its score test with images as clusters (sign test over images where all differ "
                  f"alike); adjusted: {s['correction']}; the verdict is the adjusted p-value's (McNemar's p, for "
                  "reference: differences.csv)")
    listed = [r for r in result["differences"] if levels or not r["variable"]]
    for r in listed:
        name = where(r)
        table.add_row(f"[bold]{name}[/bold]" if r["key"] == "*" else escape(name), f"{r['n']} / {r['images']}",
                      f"{r['accuracy_a']:.1%}", f"{r['accuracy_b']:.1%}", *compare_cells(r))
    shown.print(table)
    for line in testing_summary(listed):
        shown.print(escape(line), highlight=False)
    either = [r for r in result["thresholds"] if args.verbose or {r["verdict_a"], r["verdict_b"]} & set(ESTIMATED)]
    if either:
        thresholds = new_table("key", "variable", "threshold A", "threshold B", "A - B [95% CI]", "note",
                           title="Breaking points (logistic), paired bootstrap of images")
        for r in either:
            ci = (f" [{r['difference_lo']:+.2f}, {r['difference_hi']:+.2f}]" if r.get("difference_lo") is not None
                  else "")
            each = [fmt(r[f"threshold_{x}"]) if r[f"verdict_{x}"] == "breaks" else r[f"verdict_{x}"] for x in "ab"]
            thresholds.add_row(r["key"], r["variable"], *each,
                               f"{r['difference']:+.2f}{ci}" if r["difference"] is not None else "–", r.get("note") or "")
        shown.print(thresholds)
    none = len(result["thresholds"]) - len(either)
    if none:
        shown.print(f"{none} of {len(result['thresholds'])} key and variable pairs have a breaking point in neither run "
                    "(-v lists them)", highlight=False)


def compare_cells(r: dict) -> list[str]:
    """A paired row's difference, test, adjusted interval and verdict; a row without a test points to
    the note under the table."""
    if r["p_clustered"] is None:
        return [f"{r['difference']:+.1%} (no test: below)", "–", "–", "–", r["verdict"]]
    sign = " (sign)" if r["test"] == TEST_SIGN else ""
    return [f"{r['difference']:+.1%} [{r['difference_lo']:+.1%}, {r['difference_hi']:+.1%}]",
            f"{r['p_clustered']:.2g}{sign}",
            f"[{r['difference_adjusted_lo']:+.1%}, {r['difference_adjusted_hi']:+.1%}] at "
            f"{r['confidence_adjusted']:.2%}", f"{r['p_clustered_adjusted']:.2g}", r["verdict"]]


def cmd_view(args) -> int:
    page = args.output or Path(args.runs[0]) / "view.html"
    check_view_output(page, force=args.force, own_place=args.output is None)
    with quiet(args.quiet):
        runs = [load_scores(run, n_boot=args.bootstrap, seed=args.seed) for run in args.runs]
        path = write_view(runs, page, title=args.title, force=args.force, own_place=args.output is None)
    answers = sum(len(s.rows) for s in runs)
    if args.json:
        print_json({"view": path.resolve(), "answers": answers, "runs": args.runs})
    elif args.quiet:
        print(path.resolve())
    else:
        console.print(f"[bold]viewer: {escape(str(path.resolve()))}[/bold] ({answers:,} answers)", highlight=False)
    return 0


def cmd_correlate(args) -> int:
    path = args.output or Path(args.real) / "correlation.json"
    check_file_output(path, force=args.force, own_place=args.output is None)
    synthetic, real = (load_run(run)[0] for run in (args.synthetic, args.real))
    result = {"synthetic": str(args.synthetic), "real": str(args.real),
              "rows": correlation_table(synthetic, real), "scene_pairs": scene_pair_table(synthetic, real),
              "prompts": prompt_table(synthetic, real)}
    with writing_outputs([path] if args.output else [], "byo correlate"):
        atomic_write_text(path, json.dumps(result, indent=1) + "\n")
    if args.json:
        print_json({**result, "written": path})
        return 0
    with quiet(args.quiet):  # the tables are printed (out()), the notes not
        print_correlation(args, result)
        console.print(f"wrote {path}", highlight=False)
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
    add_json(report)
    add_quiet(report, "the report's path")
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
    add_json(cmp)
    add_quiet(cmp, "the tables")
    add_verbose(cmp, "every level's row (as --levels) and every breaking-point pair")
    cmp.set_defaults(func=cmd_compare)


def add_view(view: argparse.ArgumentParser) -> None:
    view.add_argument("runs", type=Path, nargs="+", help="run directories DATASET/runs/NAME (scored if needed)")
    view.add_argument("-o", "--output", type=Path, help="the page (default RUN/view.html); its data and overlays go "
                      "to FILE_files/ beside it")
    view.add_argument("--title", help="page title")
    add_interval_arguments(view)
    add_force(view)
    add_json(view)
    add_quiet(view, "the page's path")
    view.set_defaults(func=cmd_view)


def add_correlate(co: argparse.ArgumentParser) -> None:
    co.add_argument("synthetic", type=Path, help="run directory on the synthetic dataset")
    co.add_argument("real", type=Path, help="run directory on the photos")
    co.add_argument("-o", "--output", type=Path, help="default: REAL/correlation.json")
    add_force(co)
    add_json(co)
    add_quiet(co, "the table")
    co.set_defaults(func=cmd_correlate)


PARSERS = {"report": add_report, "compare": add_compare, "view": add_view, "correlate": add_correlate}
