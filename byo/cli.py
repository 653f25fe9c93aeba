"""Command line: `byo plan`, `byo render`, `byo questions`, `byo contact-sheet`, `byo eval`,
`byo score`, `byo report`, `byo crest-sheet`, `byo crest-library-sheet`, `byo card-sheet`."""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path

from PIL import Image
from rich.console import Console
from rich.table import Table

from byo import __version__
from byo.dataset import IMAGES, LEGENDS, Layout
from byo.errors import ConfigError, RenderError
from byo.executors import Executor
from byo.executors.inprocess import InProcess
from byo.executors.pool import LocalPool
from byo.families import get_family, load_config
from byo.families.crest.sheet import dataset_sheet, library_configs, library_sheet
from byo.families.poker.sheet import card_sheet, crop_cards, sheet_configs, tile_size
from byo.plan import combinations, image_count, jobs
from byo.questions.generate import generate
from byo.runner import render_dataset, render_images, sample_tasks
from byo.score.report import write_report
from byo.score.run import load_scores, score_run
from byo.sheets import contact_sheet

console = Console(stderr=True, soft_wrap=True)


class Defaults(argparse.ArgumentDefaultsHelpFormatter):
    """--help shows each option's default."""


DefaultsParser = partial(argparse.ArgumentParser, formatter_class=Defaults)


def cmd_plan(args) -> int:
    cfg, family = load_config(args.config)
    if not args.no_sample:
        sample_tasks(cfg, family, jobs(cfg), args.config)
    combos = combinations(cfg)
    reps = cfg.repetitions
    out = Console()
    out.print(f"[bold]{cfg.dataset.name}[/bold] ({family.name}): {len(combos)} combinations x {reps} "
              f"images = [bold]{image_count(cfg)} images[/bold]")
    randoms = cfg.random_variables()
    if randoms:
        out.print("drawn per image: " + ", ".join(f"{k} ({v.type})" for k, v in randoms.items()))
    table = Table("#", *[k for k in cfg.enumerated()], "images", "first index")
    for i, combo in enumerate(combos[: args.max_rows]):
        table.add_row(str(i), *[str(v) for v in combo.values()], str(reps), str(i * reps))
    out.print(table)
    if len(combos) > args.max_rows:
        out.print(f"... {len(combos) - args.max_rows} more combinations")
    return 0


def executor_for(args) -> Executor:
    if args.in_process:
        return InProcess()
    return LocalPool(args.workers, recycle_after=args.recycle_after)


def cmd_render(args) -> int:
    report = render_dataset(args.config, args.output, executor=executor_for(args), limit=args.limit,
                            resume=args.resume)
    root = report.out_dir
    console.print(f"rendered {len(report.rendered)}, already complete {report.skipped}, "
                  f"failed {len(report.failed)} (of {report.planned} planned)")
    console.print(f"images: {root / IMAGES}\nlegends: {root / LEGENDS}")
    for name, path in report.written.items():
        console.print(f"{name.replace('_', ' ')}: {path}")
    return 1 if report.failed else 0


def cmd_questions(args) -> int:
    def listed(value):
        return [v for v in value.split(",") if v] if value else None

    path, summary = generate(args.dataset, preprompts=listed(args.preprompts) or ["neutral"],
                             instructions=listed(args.instructions) or ["direct"], keys=listed(args.keys),
                             templates=args.templates, out=args.output)
    table = Table("key", "questions", "skipped", "why skipped", title=f"{summary.images} images x "
                  f"{summary.variants} prompt variants")
    for key in sorted(set(summary.questions) | set(summary.skipped)):
        reasons = "; ".join(f"{r} ({n} images)" for r, n in summary.reasons.get(key, {}).items())
        table.add_row(key, str(summary.questions[key]), str(summary.skipped[key]), reasons)
    Console().print(table)
    console.print(f"{sum(summary.questions.values())} questions, {sum(summary.skipped.values())} skipped: {path}")
    return 0


def cmd_contact_sheet(args) -> int:
    legends = Layout(args.dataset).legends()
    caption = get_family(legends[0]["family"]).caption if legends else None
    path = contact_sheet(args.dataset, caption=caption, columns=args.columns, thumb_width=args.thumb_width,
                         keys=args.keys.split(",") if args.keys else None, out=args.output)
    console.print(f"contact sheet: {path}")
    return 0


def cmd_eval(args) -> int:
    from pydantic import ValidationError

    from byo.evaluate import EvalSettings, evaluate
    from byo.providers import GenerationParams

    try:
        params = GenerationParams(temperature=args.temperature, max_tokens=args.max_tokens, seed=args.seed,
                                  detail=args.detail)
    except ValidationError as err:
        raise ConfigError("<command line>", [("--" + str(e["loc"][0]).replace("_", "-"), e["msg"])
                                             for e in err.errors()]) from None
    settings = EvalSettings(
        dataset=args.dataset, provider=args.provider, model=args.model, params=params, questions=args.questions,
        providers_file=args.providers, run=args.run, base_url=args.base_url, api=args.api, key_env=args.key_env,
        key_file=args.key_file, concurrency=args.concurrency, rpm=args.rpm, limit=args.limit,
        timeout=args.timeout, retries=args.retries, max_side=args.max_side, cache=args.cache)
    report = evaluate(settings)
    statuses = ", ".join(f"{k} {n}" for k, n in sorted(report.statuses.items()))
    cost = f"${report.cost_new_usd:.4f}" if report.cost_new_usd is not None else "n/a (no price)"
    if report.reference:
        console.print(f"{len(report.rows)} questions: {statuses} (reference provider {args.provider}: "
                      "no model was asked)")
    else:
        console.print(f"{len(report.rows)} questions: {statuses}; {report.cached} from the cache, "
                      f"{report.requests_sent} requests sent; tokens {report.tokens_new.get('total', 0):,} "
                      f"this run ({report.tokens.get('total', 0):,} in all), cost {cost}")
    console.print(f"predictions: {report.run_dir / 'predictions.jsonl'}")
    if report.failed:
        console.print("[yellow]rerun the same command to retry the failed questions[/yellow]")
    return 1 if report.failed else 0


def cmd_score(args) -> int:
    scores, paths = score_run(args.run, n_boot=args.bootstrap, seed=args.seed)
    table = Table("key", "type", "n", "parse rate", "accuracy", "MAE", "NMAE", title=f"{args.run} "
                  f"({scores.facts.get('model')}, all prompt variants)")
    for r in scores.tables["metrics"]:
        if r["variant"] == "all" and not r["variable"]:
            table.add_row(r["key"] if r["key"] != "*" else "[bold]all questions[/bold]", r["answer_type"], str(r["n"]),
                          f"{r['parse_rate']:.0%}", f"{r['accuracy']:.0%} [{r['accuracy_lo']:.0%}-{r['accuracy_hi']:.0%}]",
                          _fmt(r.get("mae")), _fmt(r.get("nmae")))
    Console().print(table)
    console.print("wrote " + ", ".join(str(p) for p in paths.values()))
    return 0


def _fmt(value) -> str:
    return "" if value is None else f"{value:.2f}"


def cmd_report(args) -> int:
    runs = [load_scores(run, n_boot=args.bootstrap, seed=args.seed) for run in args.runs]
    path = write_report(runs, args.output, title=args.title)
    console.print(f"[bold]report: {path.resolve()}[/bold]")
    return 0


def cmd_crest_sheet(args) -> int:
    console.print(f"crest sheet: {dataset_sheet(args.dataset, args.output, columns=args.columns)}")
    return 0


def cmd_crest_library_sheet(args) -> int:
    rendered = None if args.preview else [
        Image.fromarray(result.image) for config in library_configs(args.size) for result in render_images(config)]
    path = library_sheet(args.output, size=args.size, columns=args.columns, rendered=rendered)
    console.print(f"crest library sheet: {path}")
    return 0


def cmd_card_sheet(args) -> int:
    rendered = None
    if not args.preview:
        size = tile_size(args.card_pixels)
        rendered = [card for config in sheet_configs(args.card_pixels) for result in render_images(config)
                    for card in crop_cards(Image.fromarray(result.image), result.legend, size)]
    console.print(f"card sheet: {card_sheet(args.output, card_pixels=args.card_pixels, rendered=rendered)}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="byo", description="Controlled synthetic scenes for VLM evaluation.",
                                formatter_class=Defaults)
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=DefaultsParser)

    plan = sub.add_parser("plan", help="validate a config; print the image count and combinations")
    plan.add_argument("config")
    plan.add_argument("--max-rows", type=int, default=50)
    plan.add_argument("--no-sample", action="store_true",
                      help="skip sampling every scene (which catches placements that cannot be met)")
    plan.set_defaults(func=cmd_plan)

    render = sub.add_parser("render", help="render a dataset config")
    add_render_arguments(render)
    render.set_defaults(func=cmd_render)

    questions = sub.add_parser("questions", help="write questions.jsonl for a rendered dataset")
    questions.add_argument("dataset", type=Path)
    questions.add_argument("--preprompts", help="comma-separated: neutral,debiased,cot,debiased_cot,helpful")
    questions.add_argument("--instructions", help="comma-separated: direct,declarative,fill_blank")
    questions.add_argument("--keys", help="comma-separated question keys (default: all of the family)")
    questions.add_argument("--templates", type=Path, default=None, help="question templates folder")
    questions.add_argument("-o", "--output", type=Path, help="default: DATASET/questions.jsonl")
    questions.set_defaults(func=cmd_questions)

    sheet = sub.add_parser("contact-sheet", help="thumbnail grid of a rendered dataset")
    sheet.add_argument("dataset", type=Path)
    sheet.add_argument("-o", "--output", type=Path)
    sheet.add_argument("--columns", type=int)
    sheet.add_argument("--thumb-width", type=int, default=200)
    sheet.add_argument("--keys", help="comma-separated level variables to print under each image")
    sheet.set_defaults(func=cmd_contact_sheet)

    ev = sub.add_parser("eval", help="ask a VLM provider every question of a dataset")
    add_eval_arguments(ev)
    ev.set_defaults(func=cmd_eval)

    score = sub.add_parser("score", help="parse a run's answers; write scores.json, CSV tables and parsed.jsonl")
    score.add_argument("run", type=Path, help="run directory DATASET/runs/NAME")
    add_interval_arguments(score)
    score.set_defaults(func=cmd_score)

    report = sub.add_parser("report", help="one self-contained HTML report comparing runs and prompt variants")
    report.add_argument("runs", type=Path, nargs="+", help="run directories DATASET/runs/NAME (scored if needed)")
    report.add_argument("-o", "--output", type=Path, default=Path("report.html"))
    report.add_argument("--title", help="report title")
    add_interval_arguments(report)
    report.set_defaults(func=cmd_report)

    crest = sub.add_parser("crest-sheet", help="labelled sheet of a rendered crest dataset")
    crest.add_argument("dataset", type=Path)
    crest.add_argument("-o", "--output", type=Path, help="default: DATASET/crest_sheet.png")
    crest.add_argument("--columns", type=int)
    crest.set_defaults(func=cmd_crest_sheet)

    lib = sub.add_parser("crest-library-sheet", help="every crest motif and container, rendered flat")
    lib.add_argument("output", type=Path)
    lib.add_argument("--size", type=int, default=160, help="pixels per component")
    lib.add_argument("--columns", type=int, default=10)
    lib.add_argument("--preview", action="store_true", help="draw with the pure-Python rasterizer (no Blender)")
    lib.set_defaults(func=cmd_crest_library_sheet)

    cards = sub.add_parser("card-sheet", help="the 52 playing-card faces and the backs, rendered close up")
    cards.add_argument("output", type=Path)
    cards.add_argument("--card-pixels", type=int, default=200, help="pixels per card width")
    cards.add_argument("--preview", action="store_true", help="the textures as drawn (no Blender)")
    cards.set_defaults(func=cmd_card_sheet)
    return p


def add_interval_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for error intervals (0: none)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed")


def add_eval_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dataset", type=Path, help="dataset directory (with questions.jsonl)")
    p.add_argument("--provider", required=True,
                   help="openai, groq, ollama, openai-compatible, blind, oracle, or a --providers entry")
    p.add_argument("--model", help="model name (optional for blind and oracle)")
    p.add_argument("--questions", type=Path, help="question file (default DATASET/questions.jsonl)")
    p.add_argument("--providers", type=Path, help="providers YAML: endpoints, models, prices")
    p.add_argument("--run", help="run name: DATASET/runs/RUN (default PROVIDER-MODEL); rerun it to resume")
    p.add_argument("--base-url", help="API base URL (openai-compatible: required)")
    p.add_argument("--api", choices=["chat", "responses"], help="OpenAI API (default chat)")
    p.add_argument("--key-env", help="environment variable holding the API key")
    p.add_argument("--key-file", type=Path, help="file holding the API key (alone, or NAME=KEY lines)")
    p.add_argument("--concurrency", type=int, default=8, help="requests in flight at once")
    p.add_argument("--rpm", type=float, help="at most this many requests per minute")
    p.add_argument("--limit", type=int, help="only the first N questions")
    p.add_argument("--timeout", type=float, help="seconds per request (default 60)")
    p.add_argument("--retries", type=int, default=4, help="retries of a failed request (429, 5xx, timeouts)")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--max-tokens", type=int, help="maximum output tokens")
    p.add_argument("--seed", type=int)
    p.add_argument("--detail", choices=["auto", "low", "high"], help="OpenAI image detail")
    p.add_argument("--max-side", type=int, help="downscale images whose longest side exceeds this (pixels)")
    p.add_argument("--cache", type=Path, help="request cache (default DATASET/runs/cache.sqlite)")


def add_render_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("config")
    p.add_argument("-o", "--output", help="output directory (default: dataset.output_dir or output/NAME)")
    p.add_argument("--limit", type=int, help="only the first N images of the plan")
    p.add_argument("--resume", action="store_true", help="continue: skip complete images, redo incomplete ones")
    p.add_argument("--workers", type=int, default=1, help="render processes (threads are shared among them)")
    p.add_argument("--recycle-after", type=int, default=50, help="restart a worker after N images")
    p.add_argument("--in-process", action="store_true", help="render in this process (bpy imported here)")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(args.func, args)


def run(func, args) -> int:
    """Run a command, turning known errors into a one-paragraph message and an exit code."""
    try:
        return func(args)
    except ConfigError as err:
        console.print(f"[red]error:[/red] {err}", highlight=False)
        return 2
    except (RenderError, FileNotFoundError) as err:
        console.print(f"[red]error:[/red] {err}", highlight=False)
        return 1


if __name__ == "__main__":
    sys.exit(main())
