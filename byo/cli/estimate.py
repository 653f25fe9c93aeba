"""`byo plan --estimate`: render CPU-hours from a short calibration render, wall time, questions,
model calls and cost, printed before any work."""

from __future__ import annotations

import os

from rich.console import Console

from byo.cli.console import console, new_table
from byo.cli.fields import flags_in
from byo.eval.estimate import estimate_model, estimate_questions
from byo.providers.catalog import load_catalog, provider_entry
from byo.render.estimate import estimate_render
from byo.render.executors.pool import default_workers


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
                      + flags_in("; ".join(found.assumptions)))
    shown.print(table)
