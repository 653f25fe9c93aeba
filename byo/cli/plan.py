"""`byo plan` (a config checked and its images counted, with power) and `byo import-config`."""

from __future__ import annotations

import argparse
import itertools
import json
from collections import Counter
from pathlib import Path

from rich.console import Console

from byo.authoring.byo_eval_import import import_config
from byo.cli.console import add_json, console, level_table, new_table, out, print_json
from byo.cli.estimate import print_estimate
from byo.cli.options import (
    add_force,
    add_max_images,
    add_quick_options,
    config_source,
    fraction,
    positive,
    unit,
    whole,
)
from byo.core.dataset import atomic_write_text
from byo.core.errors import ConfigError
from byo.core.inputs import read_json
from byo.core.outputs import check_file_output, writing_outputs
from byo.families import family_names, load_config
from byo.questions.load import SUMMARY_FILE
from byo.render.estimate import CALIBRATION_IMAGES
from byo.render.runner import sample_tasks
from byo.scene.plan import combination, combination_count, image_count, images_per_combination, jobs
from byo.scene.setup import level_label
from byo.score.heat import MIN_CELL_QUESTIONS
from byo.score.power import PowerSettings, plan_power


def cmd_plan(args) -> int:
    if args.output is not None:
        if not args.power:
            raise ConfigError("<command line>", [("-o", "writes the --power figures: add --power")])
        check_file_output(args.output, force=args.force)
    if args.power and args.interval >= 0.5:
        raise ConfigError("<command line>", [("--interval", f"expected a half-width below 0.5 (a 95% interval of "
                                                            f"+-0.5 holds any accuracy), got {args.interval:g}")])
    # byo.families and byo.scene, not byo.api: planning loads none of the later stages
    cfg = load_config(config_source(args), file=args.config)
    n_combos, reps, n_images = combination_count(cfg), images_per_combination(cfg), image_count(cfg)
    sizes = cfg.dataset.split_sizes() if cfg.dataset.splits else None
    if n_images > args.max_images:
        console.print(f"[yellow]more than --max-images {args.max_images:,}: byo render refuses it unless "
                      "--max-images is raised; scenes not sampled[/yellow]")
    elif not args.no_sample:
        sample_tasks(cfg, jobs(cfg), args.config)
    power = power_figures(args, cfg) if args.power else None
    if args.json:
        print_json(plan_document(args, cfg, sizes, power))
        return 0
    shown = out()
    shown.print(f"[bold]{cfg.dataset.name}[/bold] ({cfg.family.name}): {n_combos:,} combinations x {reps:,} "
                f"images = [bold]{n_images:,} images[/bold]")
    if sizes:
        shown.print("splits, one after another, each from its own seed stream (images per combination): "
                  + ", ".join(f"{name} {n:,}" for name, n in sizes))
    randoms = cfg.random_variables()
    if randoms:
        shown.print("drawn per image: " + ", ".join(f"{k} ({v.type})" for k, v in randoms.items()))
    table = new_table("#", *[k for k in cfg.enumerated()], "images", "first index")
    for row in combination_rows(cfg, n_combos, reps, sizes, args.max_rows):
        table.add_row(str(row["index"]), *[level_label(k, v) for k, v in row["levels"].items()], str(reps),
                      str(row["first_index"]))
    shown.print(table)
    if n_combos > args.max_rows:
        shown.print(f"... {n_combos - args.max_rows:,} more combinations")
    print_readability(cfg, shown)
    print_cells(cfg, shown)
    if power:
        print_power(args, cfg, power, shown)
    if args.estimate:
        print_estimate(args, cfg, shown)
    else:
        shown.print("render time, questions and cost: byo plan CONFIG --estimate [--model PROVIDER:MODEL "
                    "--providers FILE] (a short calibration render, cached per machine)")
    return 0


def cell_rows(cfg) -> list[dict]:
    """Per pair of varied variables: the cells the report's heatmap of the two has, and the images
    (so the questions of one key and prompt variant) each cell gets."""
    enumerated = {k: v.count() for k, v in cfg.enumerated().items() if v.count() > 1}
    n_images = image_count(cfg)
    return [{"variables": [a, b], "cells": enumerated[a] * enumerated[b],
             "images_per_cell": n_images // (enumerated[a] * enumerated[b])}
            for a, b in itertools.combinations(enumerated, 2)]


def print_cells(cfg, shown) -> None:
    """What each level and each cell of two varied variables will get, and a warning for a heatmap
    the report cannot fill: it colours a cell of MIN_CELL_QUESTIONS questions or more."""
    enumerated = {k: v.count() for k, v in cfg.enumerated().items() if v.count() > 1}
    n_images = image_count(cfg)
    for variable, levels in enumerated.items():
        shown.print(f"{variable}: {levels} levels, {n_images // levels:,} images each (as many questions per key "
                    "and prompt variant)", highlight=False)
    for row in cell_rows(cfg):
        a, b = row["variables"]
        per_cell = row["images_per_cell"]
        shown.print(f"{a} x {b}: {row['cells']} cells, {per_cell:,} images each (as many questions per key and "
                    "prompt variant)", highlight=False)
        if per_cell < MIN_CELL_QUESTIONS:
            variants = -(-MIN_CELL_QUESTIONS // per_cell)
            shown.print(f"[yellow]the report's {a} x {b} heatmap of a key needs {MIN_CELL_QUESTIONS} questions a "
                        f"cell: with {per_cell} images a cell, ask {variants} prompt variants or more (byo questions "
                        f"--preprompts), or render {-(-MIN_CELL_QUESTIONS // per_cell)}x the images per combination "
                        "(dataset.n_images)[/yellow]", highlight=False)


def combination_rows(cfg, n_combos: int, reps: int, sizes, max_rows: int) -> list[dict]:
    """The first `max_rows` combinations: their levels and the index of their first image (with
    splits: in the first split)."""
    return [{"index": i, "levels": combination(cfg, i), "first_index": i * (sizes[0][1] if sizes else reps)}
            for i in range(min(n_combos, max_rows))]


def plan_document(args, cfg, sizes, power: dict | None) -> dict:
    """byo plan --json: the counts, the combinations listed (levels as the config names them, and
    as people read them), the question policy and, with --power, the power figures."""
    n_combos, reps = combination_count(cfg), images_per_combination(cfg)
    rows = combination_rows(cfg, n_combos, reps, sizes, args.max_rows)
    summary = summary_file(cfg)
    return {"config": str(args.config), "name": cfg.dataset.name, "family": cfg.family.name,
            "combinations": n_combos, "images_per_combination": reps,
            "images": image_count(cfg), "splits": dict(sizes) if sizes else None,
            "drawn_per_image": {k: v.type for k, v in cfg.random_variables().items()},
            "rows": [{**r, "labels": {k: level_label(k, v) for k, v in r["levels"].items()},
                      "images": reps} for r in rows],
            "more_combinations": max(0, n_combos - len(rows)),
            "unreadable": cfg.questions.unreadable,
            "questions_per_level": read_json(summary) if summary.is_file() else None,
            "cells": [{**c, "fills_heatmap": c["images_per_cell"] >= MIN_CELL_QUESTIONS} for c in cell_rows(cfg)],
            "power": power}


def summary_file(cfg) -> Path:
    return Path(cfg.dataset.output_dir or Path("output") / cfg.dataset.name) / SUMMARY_FILE


def print_readability(cfg, shown: Console) -> None:
    """The question policy for unreadable questions and, once the dataset is rendered and asked
    (its questions_summary.json), how many questions each level had skipped or flagged and why."""
    shown.print(f"unreadable questions: {cfg.questions.unreadable} (questions.unreadable; docs/readability.md)")
    summary = summary_file(cfg)
    if not summary.is_file():
        shown.print("questions per level: known once rendered (byo questions counts them per level)")
        return
    data = read_json(summary)
    levels = {v: {lv: Counter(c) for lv, c in by.items()} for v, by in data.get("levels", {}).items()}
    why = {v: {lv: Counter(c) for lv, c in by.items()} for v, by in data.get("why", {}).items()}
    shown.print(level_table(levels, why, f"Questions per level ({summary}, policy {data.get('policy', 'skip')})",
                            level_label))


def power_figures(args, cfg) -> dict:
    s = PowerSettings(difference=args.difference, baseline=args.baseline, alpha=args.alpha, power=args.target_power,
                      icc=args.icc, keys_per_image=args.keys_per_image, variants=args.variants,
                      threshold_difference=args.threshold_difference, interval=args.interval,
                      expected_accuracy=args.expected_accuracy)
    levels = {name: [var.level(i) for i in range(var.count())] for name, var in cfg.enumerated().items()}
    result = plan_power(levels, cfg.repetitions, s)
    if args.output:  # written only when asked for
        with writing_outputs([args.output], "byo plan --power"):
            atomic_write_text(args.output, json.dumps({"config": str(args.config), **result}, indent=1) + "\n")
        console.print(f"power: {args.output}")
    return result


def print_power(args, cfg, result: dict, shown: Console) -> None:
    s = PowerSettings(**result["settings"])
    table = new_table("scope", "combinations", "images per group", "n_images needed", f"power at n_images {cfg.repetitions}",
                  title=f"Power: a {s.difference:.0%} accuracy difference (from {s.baseline:.0%}), alpha {s.alpha:g}, "
                        f"power {s.power:.0%}, {result['questions_per_image']} questions per image, intra-image "
                        f"correlation {s.icc:g} (design effect {result['design_effect']:.2f})")
    for r in result["accuracy"]:
        table.add_row(r["scope"], str(r["combinations"]), str(r["images_per_group"]), f"[bold]{r['n_images']}[/bold]",
                      f"{r['power_with_config']:.0%}")
    shown.print(table)
    table = new_table("scope", "combinations", "images per group", "n_images needed",
                      f"+- at n_images {cfg.repetitions}",
                      title=f"Interval: a 95% interval of at most +-{s.interval:g} on an accuracy of "
                            f"{s.expected_accuracy:g} (Wilson, clustered by image, as byo score prints it), "
                            f"{result['questions_per_image']} questions per image, design effect "
                            f"{result['design_effect']:.2f}")
    for r in result["interval"]:
        have = r["half_width_with_config"]
        table.add_row(r["scope"], str(r["combinations"]), str(r["images_per_group"]), f"[bold]{r['n_images']}[/bold]",
                      "not estimable" if have is None else f"{have:.3f}")
    shown.print(table)
    for r in result.get("thresholds", []):
        shown.print(f"threshold of {r['variable']} {s.threshold_difference:g} apart: {r['images_per_level']} images per "
                  f"level, n_images {r['n_images']} (assumed logistic curve: threshold {r['assumed_threshold']:.3g}, "
                  f"steepness {r['assumed_steepness']:.3g}, lapse {s.lapse:g}, chance {s.chance:g})")


def cmd_import_config(args) -> int:
    imported = import_config(args.config, family=args.family, skip_unmapped=args.skip_unmapped, base=args.base)
    config, text, skipped, missing, rows = imported
    if args.output:
        atomic_write_text(args.output, text)
    if args.json:
        print_json({"config": config, "mapping": [row.as_dict() for row in rows],
                    "left_out": [{"key": key, "why": why} for key, why in skipped],
                    "missing": [{"key": key, "why": why} for key, why in missing], "output": args.output})
        return 0
    console.print("[bold]mapping[/bold] (source key = value -> project key, or no counterpart: what that changes)",
                  highlight=False)
    for row in rows:
        console.print(row.line(), markup=False, highlight=False, soft_wrap=True)
    for key, why in skipped:
        console.print(f"[yellow]left out[/yellow] {key}: {why}", highlight=False)
    for key, why in missing:
        console.print(f"[yellow]missing[/yellow] {key}: {why}", highlight=False)
    if args.output:
        console.print(f"{config['dataset']['name']} ({config['dataset']['family']}): {args.output}\n"
                      f"next: byo plan {args.output}")
    else:
        print(text, end="")
    return 0


def add_plan(plan: argparse.ArgumentParser) -> None:
    plan.add_argument("config")
    add_quick_options(plan)
    plan.add_argument("--max-rows", type=whole(1), default=50, help="combinations to list")
    add_max_images(plan)
    plan.add_argument("--no-sample", action="store_true",
                      help="skip sampling every scene (which catches placements that cannot be met and "
                           "objects the camera cannot show on the visibility floor)")
    plan.add_argument("--power", action="store_true", help="images needed to tell two models apart and for an "
                      "accuracy's interval to be --interval wide (printed; -o writes them as JSON)")
    plan.add_argument("-o", "--output", type=Path, help="--power: write the figures to this JSON file")
    add_force(plan)
    add_json(plan)
    plan.add_argument("--difference", type=fraction, default=0.10, help="--power: accuracy difference to detect")
    plan.add_argument("--baseline", type=fraction, default=0.5, help="--power: accuracy of the weaker model")
    plan.add_argument("--alpha", type=fraction, default=0.05, help="--power: significance level (two-sided)")
    plan.add_argument("--target-power", type=fraction, default=0.8, help="--power: the power wanted")
    plan.add_argument("--icc", type=unit, default=0.3, help="--power: assumed intra-image correlation of verdicts")
    plan.add_argument("--keys-per-image", type=whole(1), default=1, help="--power: question keys asked per image")
    plan.add_argument("--variants", type=whole(1), default=1, help="--power: prompt variants per question")
    plan.add_argument("--interval", type=fraction, default=0.05,
                      help="--power: half-width of the 95%% interval wanted on each group's accuracy")
    plan.add_argument("--expected-accuracy", type=fraction, default=0.5,
                      help="--power: the accuracy expected, for --interval (0.5, the default, needs the most images)")
    plan.add_argument("--threshold-difference", type=positive,
                      help="--power: also the images per level to tell two thresholds this far apart")
    est = plan.add_argument_group("--estimate: render time, questions and cost before any work")
    est.add_argument("--estimate", action="store_true", help="render CPU-hours from a short calibration render "
                     "(cached per machine and scene in ~/.cache/byo), wall time, questions, model calls and cost")
    est.add_argument("--calibration-images", type=whole(1), default=CALIBRATION_IMAGES,
                     help="images rendered to calibrate, spread over the plan")
    est.add_argument("--recalibrate", action="store_true", help="render the calibration again even if cached")
    est.add_argument("--workers", type=whole(1), help="render processes here (default: one per CPU)")
    est.add_argument("--threads", type=whole(1), help="Cycles threads per worker (default: CPUs / workers)")
    est.add_argument("--nodes", type=whole(1), help="also the wall time on this many nodes")
    est.add_argument("--cores-per-node", type=whole(1), help="--nodes: CPUs per node (default: this machine's)")
    est.add_argument("--model", action="append", metavar="PROVIDER:MODEL",
                     help="a model to cost (repeatable): its calls, tokens and cost at the providers file's prices")
    est.add_argument("--providers", type=Path, help="the providers file (YAML) with each model's prices")
    est.add_argument("--preprompts", help="comma-separated, as byo questions (default: neutral)")
    est.add_argument("--instructions", help="comma-separated, as byo questions (default: direct)")
    est.add_argument("--keys", help="question keys or patterns, as byo questions (default: the config's)")
    est.add_argument("--repeats", type=whole(1), default=1, help="times each question is asked (byo eval --repeats)")
    est.add_argument("--answer-tokens", type=whole(1), help="tokens per answer (default: 10, 250 after a "
                     "chain-of-thought preprompt)")
    plan.set_defaults(func=cmd_plan, quiet_calibration=False)


def add_import_config(imp: argparse.ArgumentParser) -> None:
    imp.add_argument("config", type=Path, help="BYO-Eval YAML: a dataset config (variables) or a base config")
    imp.add_argument("-o", "--output", type=Path, help="write the project config here (default: print it)")
    imp.add_argument("--family", choices=family_names(), help="the family, when the config does not say")
    imp.add_argument("--base", type=Path, help="the base config to lay a dataset config over (what the authors' "
                     "generator takes as its default config; default: default_config.yml beside it, or its dataset.base_config)")
    imp.add_argument("--skip-unmapped", action="store_true",
                     help="leave out keys without a counterpart (listed, and as comments in the output)")
    add_json(imp)
    imp.set_defaults(func=cmd_import_config)


PARSERS = {"plan": add_plan, "import-config": add_import_config}
