"""`byo plan` (a config checked and its images counted, with power) and `byo import-config`."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from rich.console import Console

import byo
from byo.authoring.byo_eval_import import import_config
from byo.cli.console import console, level_table, new_table, out
from byo.cli.options import (
    add_max_images,
    add_quick_run,
    config_source,
    fraction,
    positive,
    unit,
    whole,
)
from byo.core.dataset import atomic_write_text
from byo.core.inputs import read_json
from byo.families import family_names
from byo.questions.load import SUMMARY_FILE
from byo.render.runner import sample_tasks
from byo.scene.plan import combination, jobs
from byo.scene.setup import level_label
from byo.score.power import PowerSettings, plan_power


def cmd_plan(args) -> int:
    cfg = byo.load_config(config_source(args), file=args.config)
    counted = byo.plan(cfg)
    n_combos, reps, n_images = counted.combinations, counted.images_per_combination, counted.images
    sizes = cfg.dataset.split_sizes() if cfg.dataset.splits else None
    shown = out()
    shown.print(f"[bold]{counted.name}[/bold] ({counted.family}): {n_combos:,} combinations x {reps:,} "
                f"images = [bold]{n_images:,} images[/bold]")
    if sizes:
        shown.print("splits, one after another, each from its own seed stream (images per combination): "
                  + ", ".join(f"{name} {n:,}" for name, n in sizes))
    if n_images > args.max_images:
        console.print(f"[yellow]more than --max-images {args.max_images:,}: byo render refuses it unless "
                      "--max-images is raised; scenes not sampled[/yellow]")
    elif not args.no_sample:
        sample_tasks(cfg, jobs(cfg), args.config)
    randoms = cfg.random_variables()
    if randoms:
        shown.print("drawn per image: " + ", ".join(f"{k} ({v.type})" for k, v in randoms.items()))
    table = new_table("#", *[k for k in cfg.enumerated()], "images", "first index")
    for i in range(min(n_combos, args.max_rows)):
        first = str(i * sizes[0][1]) if sizes else str(i * reps)  # with splits: in the first split
        table.add_row(str(i), *[level_label(k, v) for k, v in combination(cfg, i).items()], str(reps), first)
    shown.print(table)
    if n_combos > args.max_rows:
        shown.print(f"... {n_combos - args.max_rows:,} more combinations")
    print_readability(cfg, shown)
    if args.power:
        print_power(args, cfg, shown)
    return 0


def print_readability(cfg, shown: Console) -> None:
    """The question policy for unreadable questions and, once the dataset is rendered and asked
    (its questions_summary.json), how many questions each level had skipped or flagged and why."""
    shown.print(f"unreadable questions: {cfg.questions.unreadable} (questions.unreadable; docs/readability.md)")
    summary = Path(cfg.dataset.output_dir or Path("output") / cfg.dataset.name) / SUMMARY_FILE
    if not summary.is_file():
        shown.print("questions per level: known once rendered (byo questions counts them per level)")
        return
    data = read_json(summary)
    levels = {v: {lv: Counter(c) for lv, c in by.items()} for v, by in data.get("levels", {}).items()}
    why = {v: {lv: Counter(c) for lv, c in by.items()} for v, by in data.get("why", {}).items()}
    shown.print(level_table(levels, why, f"Questions per level ({summary}, policy {data.get('policy', 'skip')})"))


def print_power(args, cfg, shown: Console) -> None:
    s = PowerSettings(difference=args.difference, baseline=args.baseline, alpha=args.alpha, power=args.target_power,
                      icc=args.icc, keys_per_image=args.keys_per_image, variants=args.variants,
                      threshold_difference=args.threshold_difference)
    levels = {name: [var.level(i) for i in range(var.count())] for name, var in cfg.enumerated().items()}
    result = plan_power(levels, cfg.repetitions, s)
    table = new_table("scope", "combinations", "images per group", "n_images needed", f"power at n_images {cfg.repetitions}",
                  title=f"Power: a {s.difference:.0%} accuracy difference (from {s.baseline:.0%}), alpha {s.alpha:g}, "
                        f"power {s.power:.0%}, {result['questions_per_image']} questions per image, intra-image "
                        f"correlation {s.icc:g} (design effect {result['design_effect']:.2f})")
    for r in result["accuracy"]:
        table.add_row(r["scope"], str(r["combinations"]), str(r["images_per_group"]), f"[bold]{r['n_images']}[/bold]",
                      f"{r['power_with_config']:.0%}")
    shown.print(table)
    for r in result.get("thresholds", []):
        shown.print(f"threshold of {r['variable']} {s.threshold_difference:g} apart: {r['images_per_level']} images per "
                  f"level, n_images {r['n_images']} (assumed logistic curve: threshold {r['assumed_threshold']:.3g}, "
                  f"steepness {r['assumed_steepness']:.3g}, lapse {s.lapse:g}, chance {s.chance:g})")
    path = Path(args.config).with_suffix(".power.json")
    atomic_write_text(path, json.dumps({"config": str(args.config), **result}, indent=1) + "\n")
    console.print(f"power: {path}")


def cmd_import_config(args) -> int:
    config, text, skipped, missing = import_config(args.config, family=args.family, skip_unmapped=args.skip_unmapped)
    for key, why in skipped:
        console.print(f"[yellow]left out[/yellow] {key}: {why}")
    for key, why in missing:
        console.print(f"[yellow]missing[/yellow] {key}: {why}")
    if args.output:
        atomic_write_text(args.output, text)
        console.print(f"{config['dataset']['name']} ({config['dataset']['family']}): {args.output}\n"
                      f"next: byo plan {args.output}")
    else:
        print(text, end="")
    return 0


def add_plan(plan: argparse.ArgumentParser) -> None:
    plan.add_argument("config")
    add_quick_run(plan)
    plan.add_argument("--max-rows", type=whole(1), default=50, help="combinations to list")
    add_max_images(plan)
    plan.add_argument("--no-sample", action="store_true",
                      help="skip sampling every scene (which catches placements that cannot be met)")
    plan.add_argument("--power", action="store_true", help="images needed to tell two models apart; written to "
                      "CONFIG.power.json beside the config")
    plan.add_argument("--difference", type=fraction, default=0.10, help="--power: accuracy difference to detect")
    plan.add_argument("--baseline", type=fraction, default=0.5, help="--power: accuracy of the weaker model")
    plan.add_argument("--alpha", type=fraction, default=0.05, help="--power: significance level (two-sided)")
    plan.add_argument("--target-power", type=fraction, default=0.8, help="--power: the power wanted")
    plan.add_argument("--icc", type=unit, default=0.3, help="--power: assumed intra-image correlation of verdicts")
    plan.add_argument("--keys-per-image", type=whole(1), default=1, help="--power: question keys asked per image")
    plan.add_argument("--variants", type=whole(1), default=1, help="--power: prompt variants per question")
    plan.add_argument("--threshold-difference", type=positive,
                      help="--power: also the images per level to tell two thresholds this far apart")
    plan.set_defaults(func=cmd_plan)


def add_import_config(imp: argparse.ArgumentParser) -> None:
    imp.add_argument("config", type=Path, help="BYO-Eval YAML: a dataset config (variables) or a base config")
    imp.add_argument("-o", "--output", type=Path, help="write the project config here (default: print it)")
    imp.add_argument("--family", choices=family_names(), help="the family, when the config does not say")
    imp.add_argument("--skip-unmapped", action="store_true",
                     help="leave out keys without a counterpart (listed, and as comments in the output)")
    imp.set_defaults(func=cmd_import_config)


PARSERS = {"plan": add_plan, "import-config": add_import_config}
