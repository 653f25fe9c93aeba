"""Command line: `byo plan`, `byo render`, `byo contact-sheet`, `byo crest-sheet`,
`byo crest-library-sheet`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from byo.errors import ConfigError, RenderError

console = Console(stderr=True, soft_wrap=True)


def cmd_plan(args) -> int:
    from byo.config import load_config
    from byo.plan import combinations, image_count, jobs
    from byo.runner import preflight

    cfg, family = load_config(args.config)
    if not args.no_sample:
        preflight(cfg, family, jobs(cfg), args.config)
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


def cmd_render(args) -> int:
    from byo.runner import render_dataset

    report = render_dataset(args.config, args.output, limit=args.limit, resume=args.resume,
                            workers=args.workers, recycle_after=args.recycle_after,
                            in_process=args.in_process)
    root = report.out_dir
    console.print(f"rendered {len(report.rendered)}, already complete {report.skipped}, "
                  f"failed {len(report.failed)} (of {report.planned} planned)")
    console.print(f"images: {root / 'images'}\nlegends: {root / 'legends'}\n"
                  f"metadata: {root / 'metadata.jsonl'}\ncontact sheet: {root / 'contact_sheet.png'}")
    return 1 if report.failed else 0


def cmd_contact_sheet(args) -> int:
    from byo.contact_sheet import contact_sheet

    path = contact_sheet(args.dataset, columns=args.columns, thumb_width=args.thumb_width,
                         keys=args.keys.split(",") if args.keys else None, out=args.output)
    console.print(f"contact sheet: {path}")
    return 0


def cmd_crest_sheet(args) -> int:
    from byo.crest.sheet import dataset_sheet

    console.print(f"crest sheet: {dataset_sheet(args.dataset, args.output, columns=args.columns)}")
    return 0


def cmd_crest_library_sheet(args) -> int:
    from byo.crest.sheet import library_sheet

    path = library_sheet(args.output, size=args.size, columns=args.columns, preview=args.preview)
    console.print(f"crest library sheet: {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="byo", description="Controlled synthetic scenes for VLM evaluation.")
    sub = p.add_subparsers(dest="command", required=True)

    plan = sub.add_parser("plan", help="validate a config; print the image count and combinations")
    plan.add_argument("config")
    plan.add_argument("--max-rows", type=int, default=50)
    plan.add_argument("--no-sample", action="store_true",
                      help="skip sampling every scene (which catches placements that cannot be met)")
    plan.set_defaults(func=cmd_plan)

    render = sub.add_parser("render", help="render a dataset config")
    add_render_arguments(render)
    render.set_defaults(func=cmd_render)

    sheet = sub.add_parser("contact-sheet", help="thumbnail grid of a rendered dataset")
    sheet.add_argument("dataset", type=Path)
    sheet.add_argument("-o", "--output", type=Path)
    sheet.add_argument("--columns", type=int)
    sheet.add_argument("--thumb-width", type=int, default=200)
    sheet.add_argument("--keys", help="comma-separated level variables to print under each image")
    sheet.set_defaults(func=cmd_contact_sheet)

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
    return p


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
