"""The command line, `byo COMMAND ...`: each stage's commands live in a module of their own, which
declares their arguments in its PARSERS; this one dispatches, importing only the command's module."""

from __future__ import annotations

import argparse
import importlib
import sys

from byo import __version__
from byo.cli.console import Defaults, DefaultsParser, console
from byo.cli.outcome import invoke

# command -> (its module in byo.cli, its one-line help), in the order of the work
COMMANDS = {
    "run": ("experiment", "render, ask, audit, evaluate every --model, score, compare and report; only what changed"),
    "plan": ("plan", "validate a config; print the image count and combinations"),
    "render": ("render", "render a dataset config"),
    "status": ("render", "planned, done, missing, failed and damaged images of a render directory (also while it "
                         "renders); of a run (DATASET/runs/RUN), its answers, spend and batches, collecting those "
                         "that ended"),
    "merge": ("render", "combine shard outputs into one dataset"),
    "doctor": ("doctor", "what this machine offers: Blender, devices, cores, Ray, keys, Ollama"),
    "questions": ("ask", "write questions.jsonl for a rendered dataset"),
    "audit": ("ask", "recompute every answer from the masks and the camera; exit 1 on any wrong or ill-posed "
                     "question or legend field disagreeing with the pixels"),
    "eval": ("evaluate", "ask a VLM provider every question of a dataset"),
    "score": ("score", "parse a run's answers; write scores.json, CSV tables and parsed.jsonl"),
    "report": ("runs", "one self-contained HTML report comparing runs and prompt variants"),
    "compare": ("runs", "two runs over the same questions, paired: accuracy differences with a t test clustered by "
                         "image and its interval, adjusted for the many rows, and threshold differences"),
    "view": ("runs", "a static page of every answered question: image, overlay of the objects asked about, "
                      "prompt, answer, parse, truth, verdict; runs side by side"),
    "sheet": ("share", "a labelled sheet: a dataset's contact sheet, or one a family draws (byo sheet -h lists them)"),
    "export": ("share", "write a dataset for another harness (hf, lmms-eval, inspect, vlmevalkit) or for training "
                        "(coco, webdataset, croissant)"),
    "import-predictions": ("share", "answers from another harness become a run for byo score"),
    "human": ("share", "a web page that asks people the dataset's questions; their answers are runs of provider "
                       "human (one per annotator) for byo score and byo report"),
    "real-questions": ("ask", "ask real photographs with hand-written labels (FOLDER/labels.yaml) the questions of "
                              "a synthetic dataset, word for word"),
    "correlate": ("runs", "Pearson and Spearman correlation between a run on synthetic images and a run on real "
                           "photos, per key: of per-level accuracy, per scene pair and per prompt (BYO-Eval appendix "
                           "E, Figures 51-53)"),
    "adapt": ("diagnose", "find a breaking point adaptively: each trial's level chosen from the answers so far, "
                          "rendered, asked and scored; stops at a target interval width or a budget"),
    "explain": ("diagnose", "re-render each failure with one factor changed at a time (the family's, and each "
                            "variable at its easiest level), ask again, and table which change turns it right"),
    "import-config": ("plan", "a BYO-Eval config (appendix D) over its base config as a project config, with "
                              "a table of what each key became; keys truly without a counterpart are named (exit 2)"),
}


def older_names() -> dict[str, list[str]]:
    """Commands by their older names: the sheets (contact-sheet, and each family sheet's alias)."""
    from byo.families import sheets  # only for a command that is not one of today's names

    return {"contact-sheet": ["sheet", "contact"], **{s.alias: ["sheet", s.kind] for s in sheets() if s.alias}}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `only`, that command's arguments in full and the others by name and help."""
    p = argparse.ArgumentParser(prog="byo", description="Controlled synthetic scenes for VLM evaluation.",
                                formatter_class=Defaults)
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=DefaultsParser)
    for name, (module, help_text) in COMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        if name == only:
            importlib.import_module(f"byo.cli.{module}").PARSERS[name](command)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and not argv[0].startswith("-") and argv[0] not in COMMANDS:
        renamed = older_names().get(argv[0])
        if renamed:
            console.print(f"note: byo {argv[0]} is now byo {' '.join(renamed)}", highlight=False)
            argv[:1] = renamed
    command = next((a for a in argv if not a.startswith("-")), None)
    args = build_parser(command if command in COMMANDS else None).parse_args(argv)
    return invoke(args.func, args)
