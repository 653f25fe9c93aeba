"""`byo sheet KIND` (a dataset's contact sheet, or a sheet a family declares), `byo export`,
`byo import-predictions` and `byo human`: what leaves the project and what people answer."""

from __future__ import annotations

import argparse
from pathlib import Path

from PIL import Image
from rich.table import Table

from byo.cli.console import (
    DefaultsParser,
    add_json,
    add_quiet,
    console,
    print_json,
    quiet,
    say,
    waiting,
)
from byo.cli.fields import flags_in
from byo.cli.options import add_max_answer_chars, add_wait, byte_size, whole
from byo.core.dataset import Layout
from byo.core.errors import ConfigError
from byo.core.inputs import reading
from byo.core.sheets import SHEET, contact_sheet
from byo.eval.layout import PREDICTIONS
from byo.export import FORMATS, export
from byo.export.predictions import FORMATS as PREDICTION_FORMATS
from byo.export.predictions import import_predictions
from byo.families import get_family, sheets
from byo.families.base import Sheet, SheetRequest
from byo.render.runner import render_images
from byo.scene.setup import level_label

CONTACT = "contact"  # byo sheet contact: the dataset's thumbnails, one per image


def cmd_contact_sheet(args) -> int:
    layout = Layout(args.dataset)
    legends = layout.legends()
    caption = None
    if legends:
        with reading(layout.legend(legends[0]["name"]), "a legend"):
            caption = get_family(legends[0]["family"]).caption
    path = contact_sheet(args.dataset, caption=caption, columns=args.columns, thumb_width=args.thumb_width,
                         keys=args.keys.split(",") if args.keys else None, out=args.output, legends=legends,
                         level_text=level_label)
    return wrote_sheet(args, CONTACT, path)


def wrote_sheet(args, kind: str, path: Path) -> int:
    if args.json:
        print_json({"sheet": kind, "path": path})
    elif args.quiet:
        print(path)
    else:
        console.print(f"{kind} sheet: {path}", highlight=False)
    return 0


def cmd_sheet(args) -> int:
    sheet: Sheet = args.sheet
    options = {o.name: getattr(args, o.name) for o in sheet.options}
    rendered = None
    if sheet.configs is not None and not args.preview:
        rendered = [(Image.fromarray(result.image), result.legend) for config in sheet.configs(options)
                    for result in render_images(config)]
    target = args.dataset if sheet.target == "dataset" else args.output
    output = args.output if sheet.target == "dataset" else None
    return wrote_sheet(args, sheet.kind, sheet.draw(SheetRequest(target, output, options, rendered)))


def add_sheet(sheet: argparse.ArgumentParser) -> None:
    """`byo sheet contact` and every sheet an installed family declares."""
    kinds = sheet.add_subparsers(dest="kind", required=True, parser_class=DefaultsParser)
    contact = kinds.add_parser(CONTACT, help="thumbnail grid of a rendered dataset")
    contact.add_argument("dataset", type=Path)
    contact.add_argument("-o", "--output", type=Path, help=f"the sheet (default: DATASET/{SHEET})")
    contact.add_argument("--columns", type=whole(1), help="images per row (default: as square as it fits, at most 8)")
    contact.add_argument("--thumb-width", type=whole(16), default=200, help="width of each thumbnail, pixels")
    contact.add_argument("--keys", help="comma-separated level variables to print under each image (default: "
                         "every level)")
    add_sheet_output(contact)
    contact.set_defaults(func=cmd_contact_sheet)
    for s in sheets():
        add_sheet_arguments(kinds.add_parser(s.kind, help=s.help), s)


def add_sheet_arguments(p: argparse.ArgumentParser, sheet: Sheet) -> None:
    if sheet.target == "dataset":
        p.add_argument("dataset", type=Path)
        p.add_argument("-o", "--output", type=Path, help=sheet.output_help or None)
    else:
        p.add_argument("output", type=Path)
    for option in sheet.options:
        p.add_argument(option.flag, type=whole(option.minimum), default=option.default, help=option.help)
    if sheet.configs is not None:
        p.add_argument("--preview", action="store_true", help=sheet.preview_help)
    add_sheet_output(p)
    p.set_defaults(func=cmd_sheet, sheet=sheet)


def add_sheet_output(p: argparse.ArgumentParser) -> None:
    add_json(p)
    add_quiet(p, "the sheet's path")


def cmd_export(args) -> int:
    with quiet(args.quiet):
        paths = export(args.dataset, args.format, args.output, force=args.force, license=args.license,
                       task=args.task, shard_size=args.shard_size, wait=args.wait, on_wait=waiting, say=say)
    if args.json:
        print_json({"dataset": args.dataset, "format": args.format, "directory": args.output, "files": paths})
    elif args.quiet:
        print(args.output)
    else:
        console.print(f"exported {args.dataset} as {args.format}: {args.output}\n"
                      + "\n".join(f"{k}: {p}" for k, p in paths.items() if not k.startswith("shard ")))
    return 0


def cmd_import_predictions(args) -> int:
    report = import_predictions(args.file, args.format, args.dataset, run=args.run, model=args.model,
                                force=args.force, max_answer_chars=args.max_answer_chars or None, wait=args.wait,
                                on_wait=None if args.quiet else waiting)
    predictions = report.run_dir / PREDICTIONS
    if args.json:
        print_json({"run": report.run_dir, "predictions": predictions, "answers": len(report.rows),
                    "statuses": dict(sorted(report.statuses.items())), "unanswered": report.unanswered})
    elif args.quiet:
        print(report.run_dir)
    else:
        statuses = ", ".join(f"{k} {n}" for k, n in sorted(report.statuses.items()))
        console.print(f"{len(report.rows)} answers ({statuses}), {report.unanswered} questions unanswered\n"
                      f"predictions: {predictions}\nnext: byo score {report.run_dir}", highlight=False)
    return 0


def cmd_human(args) -> int:
    if args.agreement:
        return human_agreement(args)
    try:  # the `human` extra: starlette and uvicorn
        from byo.human.serve import HumanSettings, serve
    except ModuleNotFoundError as err:
        raise ConfigError("<command line>", [("byo human", f"needs the `human` extra ({err.name} is not installed): "
                                              "pip install 'byo-render[human]'")]) from None
    return serve(HumanSettings(dataset=args.dataset, run=args.run, host=args.host, port=args.port,
                               questions=args.questions, variant=args.variant, per_level=args.per_level,
                               borderline=args.borderline),
                 say=lambda line: print(flags_in(line), flush=True))


def human_agreement(args) -> int:
    """byo human DATASET --agreement: each readability rule's decision against the people's answers."""
    from byo.human.agreement import study_agreement

    found = study_agreement(args.dataset, args.run)
    if args.json:
        print_json(found)
        return 0
    table = Table(title=f"readability rules against {len(found['annotators'])} annotators "
                        f"({', '.join(found['annotators'])}), {found['answers']} answers")
    for column in ("rule", "items", "readable: right", "readable: wrong", "unreadable: right", "unreadable: wrong",
                   "agreement", f"{found['confidence']:.0%} Wilson", "Cohen's kappa", "note"):
        table.add_column(column)
    for r in found["rules"]:
        low, high = r["interval"] or (None, None)
        table.add_row(r["rule"], str(r["items"]), str(r["readable_right"]), str(r["readable_wrong"]),
                      str(r["unreadable_right"]), str(r["unreadable_wrong"]),
                      "-" if r["agreement"] is None else f"{r['agreement']:.0%}",
                      "-" if low is None else f"{low:.0%}-{high:.0%}",
                      "-" if r["kappa"] is None else f"{r['kappa']:.2f}", r["note"])
    console.print(table)
    return 0


def add_export(ex: argparse.ArgumentParser) -> None:
    ex.add_argument("dataset", type=Path, help="dataset directory (with questions.jsonl)")
    ex.add_argument("--format", required=True, choices=FORMATS)
    ex.add_argument("-o", "--output", type=Path, required=True, help="output directory (new or empty)")
    ex.add_argument("--license", help="license in the dataset card (hf; default cc-by-4.0)")
    ex.add_argument("--task", help="task name (lmms-eval, inspect; default byo_<dataset name>)")
    ex.add_argument("--shard-size", type=byte_size, help="webdataset: close a shard once it holds this much "
                    "(bytes, or with a unit: 500MB, 2GB; default 256MB)")
    ex.add_argument("--force", action="store_true", help="replace an earlier export in the output directory (only "
                    "the files it wrote: a directory holding anyone else's files is refused)")
    add_wait(ex, "output directory")
    add_json(ex)
    add_quiet(ex, "the output directory's path")
    ex.set_defaults(func=cmd_export)


def add_import_predictions(im: argparse.ArgumentParser) -> None:
    im.add_argument("file", type=Path, help="lmms-eval samples .jsonl, Inspect log (.eval, .json), or id/response .jsonl")
    im.add_argument("--format", required=True, choices=PREDICTION_FORMATS)
    im.add_argument("--dataset", type=Path, required=True, help="the dataset the answers are for")
    im.add_argument("--run", help="run name: DATASET/runs/RUN (default FORMAT-MODEL)")
    im.add_argument("--model", help="model name (default: from the file)")
    im.add_argument("--force", action="store_true", help="replace the run's predictions")
    add_max_answer_chars(im)
    add_wait(im, "run")
    add_json(im)
    add_quiet(im, "the run's folder")
    im.set_defaults(func=cmd_import_predictions)


def add_human(hu: argparse.ArgumentParser) -> None:
    hu.add_argument("dataset", type=Path, help="dataset directory (with questions.jsonl)")
    hu.add_argument("--run", default="human", help="run name: each annotator's answers go to DATASET/runs/RUN-NAME")
    hu.add_argument("--host", default="127.0.0.1", help="address to listen on; any other than loopback requires "
                                                         "the access token printed at start")
    hu.add_argument("--port", type=whole(0), default=8000, help="port (0: one the system assigns)")
    hu.add_argument("--questions", type=Path, help="question file (default DATASET/questions.jsonl)")
    hu.add_argument("--variant", help="prompt variant asked, PREPROMPT/INSTRUCTION, or 'all' (default: the file's "
                                      "first)")
    hu.add_argument("--per-level", type=whole(1), help="at most N questions of each key at each combination of "
                                                       "levels (the same sample for every annotator)")
    hu.add_argument("--borderline", type=whole(1), help="the borderline sheet: at most N questions per readability "
                    "rule and side of its threshold, those nearest it (docs/readability.md)")
    hu.add_argument("--agreement", action="store_true", help="serve nothing: print how often each readability "
                    "rule's decision agrees with the run's annotators (right = readable)")
    add_json(hu)
    hu.set_defaults(func=cmd_human)


PARSERS = {"sheet": add_sheet, "export": add_export, "import-predictions": add_import_predictions, "human": add_human}
