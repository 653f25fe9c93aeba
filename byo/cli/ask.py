"""`byo questions`, `byo audit` and `byo real-questions`: what is asked of each image, checked."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.markup import escape
from rich.table import Table

import byo
from byo.audit.run import AUDIT_FILE, unmeasured
from byo.cli.console import (
    add_json,
    add_quiet,
    add_verbosity,
    console,
    level_table,
    new_table,
    out,
    print_json,
    quiet,
    waiting,
)
from byo.cli.options import add_force, add_wait, whole
from byo.core.dataset import Layout
from byo.core.progress import Bar
from byo.questions.generate import DEFAULT_PROMPTS, PROMPT_SETS
from byo.questions.load import SUMMARY_FILE
from byo.questions.real import real_questions
from byo.questions.sheet import SHEET_FILE, unreadable_sheet
from byo.render.executors import load_handler
from byo.scene.setup import level_label

# Named, not imported: it imports bpy, which only an audit that renders needs (executors.RENDER's way).
ALTERNATIVES = "byo.render.alternatives:render_alternatives"


def cmd_questions(args) -> int:
    def listed(value):
        return [v for v in value.split(",") if v] if value else None

    with quiet(args.quiet):
        asked = byo.write_questions(args.dataset, preprompts=listed(args.preprompts),
                                    instructions=listed(args.instructions), keys=listed(args.keys),
                                    templates=args.templates, out=args.output, wait=args.wait, on_wait=waiting,
                                    unreadable=args.unreadable, prompts=args.prompts, options=args.options,
                                    force=args.force, for_models=args.for_models or (), detail=args.detail)
    path, summary = asked.path, asked.summary
    sheet = (unreadable_sheet(args.dataset, out=path.with_name(SHEET_FILE), summary_file=path.with_name(SUMMARY_FILE))
             if args.sheet else None)
    if args.json:
        print_json({"questions": path, **summary.to_json(), **({"sheet": sheet} if args.sheet else {})})
    elif args.quiet:
        print(path)
    else:
        print_question_summary(args, path, summary)
        if args.sheet:
            console.print(f"unreadable cases: {sheet}" if sheet else "no skipped or flagged unreadable case to draw",
                          highlight=False)
    return 0


def print_question_summary(args, path: Path, summary) -> None:
    shown = new_table("key", "questions", "skipped", "flagged", "why skipped", title=f"{summary.images} images x "
                  f"{summary.variants} prompt variants (unreadable questions: {summary.policy})")
    for key in sorted(set(summary.questions) | set(summary.skipped)):
        reasons = "; ".join(f"{r} ({n} images)" for r, n in summary.reasons.get(key, {}).items())
        shown.add_row(key, str(summary.questions[key]), str(summary.skipped[key]), str(summary.flagged[key]), reasons)
    out().print(shown)
    if args.verbose and summary.levels:
        out().print(level_table(summary.levels, summary.why, "Questions per level", level_label))
    if args.verbose and summary.not_applicable:
        console.print("keys of other designs, left out: " + ", ".join(summary.not_applicable), highlight=False)
    other = (f"; {len(summary.not_applicable)} keys of other designs left out" if summary.not_applicable
             and not args.verbose else "")
    per_level = "" if args.verbose or not summary.levels else " (-v: per level, and why)"
    for model, got in summary.received.items():
        size = "x".join(map(str, got["received"])) if got["received"] else "unknown (not published)"
        console.print(f"{escape(model)}: receives {'x'.join(map(str, got['sent']))} as {size}; "
                      f"{got['undecidable']} questions undecidable there{CHECK_NOTE.get(got.get('counterfactual'), '')}",
                      highlight=False)
    console.print(f"{sum(summary.questions.values())} questions ({sum(summary.flagged.values())} flagged as "
                  f"unreadable), {sum(summary.skipped.values())} skipped{per_level}{other}: {path}", highlight=False)


# how the counterfactual check was taken at the received size (byo.questions.received.AtSize.check)
CHECK_NOTE = {"rendered": " (the counterfactual check as rendered: byo render --for the model measures it at its size)"}


def render_alternatives(args) -> None:
    """The counterfactual renders the audit needs (byo/scene/counterfactual.py): of the images whose
    legend records none (--alternatives missing, a dataset rendered before the check), of every
    image (all), or none."""
    if args.alternatives == "none" or not args.dataset.is_dir():
        return
    names = unmeasured(args.dataset) if args.alternatives == "missing" else \
        [lg["name"] for lg in Layout(args.dataset).legends(damaged="skip")]
    if not names:
        return
    console.print(f"rendering the counterfactual alternatives of {len(names)} images (their legends record none)"
                  if args.alternatives == "missing" else f"rendering the counterfactual alternatives of {len(names)} images")
    with Bar("[bold]alternatives", len(names), unit="img") as bar:
        load_handler(ALTERNATIVES)(args.dataset, names, on_image=lambda _name: bar.advance())


def cmd_audit(args) -> int:
    with quiet(args.quiet):
        render_alternatives(args)
        report = byo.audit_dataset(args.dataset, questions=args.questions, progress=not args.quiet)
    if args.json:
        print_json({**report.to_json(), "audit_file": Path(report.dataset) / AUDIT_FILE})
        return 1 if report.failed else 0
    shown = ("ok", "wrong", "ill_posed", "flagged", "unchecked")
    table = new_table("key", "questions", "ok", "wrong", "ill-posed", "flagged", "unchecked",
                  title=f"{report.family}: {report.images} images, {len(report.questions)} distinct questions")
    for key, counts in report.table().items():
        table.add_row(key, str(sum(counts.values())), *(str(counts[s]) for s in shown))
    table.add_row("[bold]all[/bold]", str(len(report.questions)), *(str(report.count(s)) for s in shown))
    shown = out()
    shown.print(table)
    levels = report.level_table()
    if levels:
        shown.print(audit_level_table(levels))
    findings = [q for q in report.questions if q.status in ("wrong", "ill_posed")]
    limit = None if args.verbose else args.show
    for q in findings[:limit]:
        shown.print(f"[red]{q.status}[/red] {escape(q.id)}: {escape(q.reason)}", highlight=False)
    for p in report.legend_problems[:limit]:
        shown.print(f"[red]legend[/red] {escape(p.image)}: {escape(p.field)}: {escape(p.problem)}", highlight=False)
    for d in report.damaged[:limit]:
        console.print(f"[red]damaged[/red] {escape(d.file)}: {escape(d.problem)}", highlight=False)  # an input's problem
    more = 0 if args.verbose else sum(max(0, len(x) - args.show)
                                      for x in (findings, report.legend_problems, report.damaged))
    if more:
        shown.print(f"... {more} more in the audit file (-v lists them)")
    damaged = f", {len(report.damaged)} damaged images (not audited)" if report.damaged else ""
    flagged = f", {report.count('flagged')} asked flagged as unreadable" if report.count("flagged") else ""
    with quiet(args.quiet):
        console.print(f"{report.count('wrong')} wrong, {report.count('ill_posed')} ill-posed{flagged}, "
                      f"{len(report.legend_problems)} legend fields disagreeing with the pixels{damaged}: "
                      f"{Path(report.dataset) / AUDIT_FILE}", highlight=False)
    return 1 if report.failed else 0


def audit_level_table(levels: list[dict]) -> Table:
    """Per variable and level: the distinct questions asked and how they audit, the questions
    `byo questions` skipped, and why (skipped and ill-posed reasons, most frequent first)."""
    table = new_table("variable", "level", "asked", "ok", "ill-posed", "flagged", "skipped", "why",
                      title="Per level: asked (distinct questions), skipped (questions x prompt variants) and why")
    for c in levels:
        why = "; ".join(f"{r} ({n})" for r, n in list(c["why"].items())[:4])
        table.add_row(c["variable"], c["level"], str(sum(c["asked"].values())), str(c["asked"].get("ok", 0)),
                      str(c["asked"].get("ill_posed", 0)), str(c["asked"].get("flagged", 0)), str(c["skipped"]), why)
    return table


def cmd_real_questions(args) -> int:
    path, n = real_questions(args.folder, args.like, labels=args.labels, out=args.output, force=args.force)
    if args.json:
        print_json({"questions": path, "count": n, "like": args.like})
    elif args.quiet:
        print(path)
    else:
        console.print(f"{n} questions of {args.like} asked of the photos: {path}\nnext: byo eval {args.folder} ...",
                      highlight=False)
    return 0


def add_questions(questions: argparse.ArgumentParser) -> None:
    questions.add_argument("dataset", type=Path)
    questions.add_argument("--preprompts", help="comma-separated: neutral,debiased,cot,debiased_cot,helpful "
                           "(default: the prompt set's; byo: neutral, byo-eval: neutral,helpful,cot)")
    questions.add_argument("--instructions", help="comma-separated: direct,declarative,fill_blank (default: the "
                           "prompt set's; byo: direct, byo-eval: declarative,fill_blank)")
    questions.add_argument("--keys", help="comma-separated question keys or patterns ('count_*'; default: all of "
                           "the family)")
    questions.add_argument("--templates", type=Path, default=None, help="question templates folder")
    questions.add_argument("--prompts", default=DEFAULT_PROMPTS, choices=list(PROMPT_SETS),
                           help="prompt set: the project's own wording (byo) or BYO-Eval's (byo-eval: its "
                                "preprompts, instruction styles and question wordings, and its grid of 3 "
                                "preprompts x 2 instructions)")
    questions.add_argument("-o", "--output", type=Path, help="default: DATASET/questions.jsonl")
    questions.add_argument("--unreadable", choices=("skip", "flag", "ask"), default=None,
                           help="questions a readability rule finds unreadable in the image: skip them, ask them "
                                "flagged (scored apart), or ask them (default: the config's questions.unreadable, "
                                "else skip; docs/readability.md)")
    questions.add_argument("--options", type=int, default=None,
                           help="the most lettered options a chat model is shown for a question with candidate "
                                "captions (default: the config's questions.options, else the paper's count, "
                                "Auto-Comp's 50)")
    questions.add_argument("--for", dest="for_models", action="append", metavar="PROVIDER:MODEL",
                           help="also decide each question at the size this model receives the image (its "
                                "provider's published resize; repeatable): a question it cannot decide there is "
                                "marked unreadable_for it, and byo eval does not ask it of that model "
                                "(docs/evaluation.md)")
    questions.add_argument("--detail", choices=("auto", "low", "high"), default=None,
                           help="with --for an OpenAI model: the image detail it will be asked at (default auto, "
                                "taken as high)")
    questions.add_argument("--sheet", action="store_true",
                           help=f"also draw DATASET/{SHEET_FILE}: the skipped and flagged unreadable cases, each "
                                "object outlined and the reason written under it")
    add_wait(questions, "dataset (a render)")
    add_verbosity(questions)
    add_quiet(questions, "the question file's path")
    add_force(questions)
    questions.set_defaults(func=cmd_questions)


def add_audit(audit: argparse.ArgumentParser) -> None:
    audit.add_argument("dataset", type=Path)
    audit.add_argument("--questions", type=Path, help="question file (default DATASET/questions.jsonl)")
    audit.add_argument("--show", type=whole(0), default=20, help="print at most this many findings of each kind")
    audit.add_argument("--alternatives", choices=("missing", "all", "none"), default="missing",
                       help="render the counterfactual check's alternatives of the images whose legend records none "
                            "(missing: a dataset rendered before the check), of every image (all: an independent "
                            "check of the legends' measurements), or none")
    add_verbosity(audit, "every finding (no --show limit)")
    add_quiet(audit, "the table and the findings")
    audit.set_defaults(func=cmd_audit)


def add_real_questions(rq: argparse.ArgumentParser) -> None:
    rq.add_argument("folder", type=Path, help="folder of photos with labels.yaml")
    rq.add_argument("--like", type=Path, required=True, help="the synthetic dataset whose questions are asked")
    rq.add_argument("--labels", type=Path, help="the labels file (default FOLDER/labels.yaml)")
    rq.add_argument("-o", "--output", type=Path, help="default: FOLDER/questions.jsonl")
    add_force(rq)
    add_json(rq)
    add_quiet(rq, "the question file's path")
    rq.set_defaults(func=cmd_real_questions)


PARSERS = {"questions": add_questions, "audit": add_audit, "real-questions": add_real_questions}
