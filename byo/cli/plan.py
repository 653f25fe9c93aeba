"""`byo plan` (a config checked and its images counted, with power) and `byo import-config`."""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from pathlib import Path

from rich.console import Console

import byo
from byo.authoring.byo_eval_import import import_config
from byo.cli.console import console, level_table, new_table, out
from byo.cli.options import (
    add_force,
    add_max_images,
    add_quick_run,
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
from byo.eval.estimate import estimate_model, estimate_questions
from byo.families import family_names
from byo.providers.catalog import load_catalog, provider_entry
from byo.questions.load import SUMMARY_FILE
from byo.render.estimate import CALIBRATION_IMAGES, estimate_render
from byo.render.executors.pool import default_workers
from byo.render.runner import sample_tasks
from byo.scene.plan import combination, jobs
from byo.scene.setup import level_label
from byo.score.power import PowerSettings, plan_power


def cmd_plan(args) -> int:
    if args.output is not None:
        if not args.power:
            raise ConfigError("<command line>", [("-o", "writes the --power figures: add --power")])
        check_file_output(args.output, force=args.force)
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
    if args.estimate:
        print_estimate(args, cfg, shown)
    else:
        shown.print("render time, questions and cost: byo plan CONFIG --estimate [--model PROVIDER:MODEL "
                    "--providers FILE] (a short calibration render, cached per machine)")
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
    if args.output:  # written only when asked for
        with writing_outputs([args.output], "byo plan --power"):
            atomic_write_text(args.output, json.dumps({"config": str(args.config), **result}, indent=1) + "\n")
        console.print(f"power: {args.output}")


def _listed(value: str | None) -> list[str] | None:
    return [v for v in value.split(",") if v] if value else None


def _hours(hours: float) -> str:
    if hours < 1 / 60:
        return f"{hours * 3600:.0f} s"
    if hours < 1:
        return f"{hours * 60:.0f} min"
    if hours < 48:
        return f"{hours:.1f} h"
    return f"{hours / 24:.1f} days"


def print_estimate(args, cfg, shown: Console) -> None:
    """Render CPU-hours from a calibration render, wall time for the workers or nodes asked for,
    the questions, and each model's calls and cost from the price file."""
    catalog = load_catalog(args.providers) if args.providers else None
    if args.model:  # every model named before any work
        for model in args.model:
            provider_entry(model.partition(":")[0], catalog, str(args.providers) if args.providers else None)
    if not args.quiet_calibration:
        console.print(f"calibrating: {args.calibration_images} images of {cfg.dataset.name} (cached per machine and "
                      "scene: a second plan renders nothing)")
    cpus = len(os.sched_getaffinity(0))
    workers = args.workers or default_workers()
    threads = args.threads or max(1, cpus // workers)  # as byo render's pool shares the CPUs
    render = estimate_render(cfg, images=args.calibration_images, threads=threads, refresh=args.recalibrate)
    cal = render.calibration
    where = "cached" if cal.cached else "rendered now"
    table = new_table("estimate", "value", "how",
                  title=f"Estimate for {cfg.dataset.name}: {len(cal.indices)} calibration images ({where}) on "
                        f"{cal.machine['cpu']}, {cal.machine['cpus']} CPUs, {cal.machine['blender']}")
    table.add_row("images", f"{render.images:,}", "")
    table.add_row("render", f"{_hours(render.cpu_hours)} of CPU",
                  f"{cal.cpu_s_per_image:.1f} CPU s per image ({min(cal.cpu_s):.1f} to {max(cal.cpu_s):.1f} over "
                  f"images {', '.join(map(str, cal.indices))}, {cal.threads} threads)")
    busy = min(workers * threads, cal.machine["cpus"])
    table.add_row("wall time here", _hours(render.wall_hours(busy)),
                  f"{workers} workers x {threads} thread{'s' if threads > 1 else ''} on {cal.machine['cpus']} CPUs, "
                  "nothing else running")
    if cal.load_factor > 1.2:
        table.add_row("at today's load", _hours(render.wall_hours(busy, loaded=True)),
                      f"the calibration took {cal.load_factor:.1f}x its CPU time: other work shares these CPUs")
    if args.nodes:
        cores = args.cores_per_node or cal.machine["cpus"]
        table.add_row(f"wall time on {args.nodes} nodes", _hours(render.wall_hours(args.nodes * cores)),
                      f"{cores} CPUs each, as fast as this machine's")
    questions = estimate_questions(cal.dataset, render.images, len(cal.indices),
                                   preprompts=_listed(args.preprompts) or ["neutral"],
                                   instructions=_listed(args.instructions) or ["direct"],
                                   keys=_listed(args.keys) or cfg.questions.keys, unreadable=cfg.questions.unreadable)
    table.add_row("questions", f"{questions.total:,}",
                  f"{questions.per_image:.1f} per image ({len(questions.sample)} on the calibration images; "
                  f"unreadable: {cfg.questions.unreadable})")
    for model in args.model or []:
        found = estimate_model(model, questions, cal.dataset, catalog=catalog,
                               catalog_file=str(args.providers) if args.providers else None, repeats=args.repeats,
                               answer_tokens=args.answer_tokens)
        if found.input_tokens is None:
            table.add_row(model, f"{found.calls:,} calls", "no paid model: nothing to bill")
            continue
        cost = (f"${found.cost_usd:,.{2 if found.cost_usd >= 1 else 4}f}" if found.cost_usd is not None
                else "no price (the providers file --providers gives input_per_million and output_per_million)")
        table.add_row(model, f"{found.calls:,} calls, {cost}",
                      f"{found.input_tokens:,} input and {found.output_tokens:,} output tokens; "
                      + "; ".join(found.assumptions))
    shown.print(table)


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
    plan.add_argument("--power", action="store_true", help="images needed to tell two models apart (printed; "
                      "-o writes them as JSON)")
    plan.add_argument("-o", "--output", type=Path, help="--power: write the figures to this JSON file")
    add_force(plan)
    plan.add_argument("--difference", type=fraction, default=0.10, help="--power: accuracy difference to detect")
    plan.add_argument("--baseline", type=fraction, default=0.5, help="--power: accuracy of the weaker model")
    plan.add_argument("--alpha", type=fraction, default=0.05, help="--power: significance level (two-sided)")
    plan.add_argument("--target-power", type=fraction, default=0.8, help="--power: the power wanted")
    plan.add_argument("--icc", type=unit, default=0.3, help="--power: assumed intra-image correlation of verdicts")
    plan.add_argument("--keys-per-image", type=whole(1), default=1, help="--power: question keys asked per image")
    plan.add_argument("--variants", type=whole(1), default=1, help="--power: prompt variants per question")
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
    imp.add_argument("--skip-unmapped", action="store_true",
                     help="leave out keys without a counterpart (listed, and as comments in the output)")
    imp.set_defaults(func=cmd_import_config)


PARSERS = {"plan": add_plan, "import-config": add_import_config}
