"""Argument types and the options several commands share."""

from __future__ import annotations

import argparse
import math
import re

from byo.eval.layout import MAX_ANSWER_CHARS
from byo.scene.config import quick_config
from byo.scene.plan import Shard
from byo.score.bins import parse_bins

MAX_IMAGES = 100_000  # byo render refuses larger datasets unless --max-images is raised


def whole(minimum: int):
    """An argparse type: a whole number >= minimum."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text[:40]!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {value}")
        return value

    return parse


SIZE_UNITS = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "KIB": 2**10, "MIB": 2**20, "GIB": 2**30}


def byte_size(text: str) -> int:
    """An argparse type: a size in bytes, with an optional unit (500MB, 2GB, 64MiB)."""
    found = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([A-Za-z]*)\s*", text)
    try:
        value = float(found[1]) * SIZE_UNITS[found[2].upper()]
    except (TypeError, KeyError):
        raise argparse.ArgumentTypeError(f"expected a size such as 500MB or 2GB, got {text[:40]!r}") from None
    if not math.isfinite(value) or value < 1:
        raise argparse.ArgumentTypeError(f"expected a size of at least 1 byte, got {text[:40]!r}")
    return int(value)


def device_name(text: str) -> str:
    """An argparse type: a torch device (--provider hf)."""
    if not re.fullmatch(r"auto|cpu|mps|cuda(:[0-9]{1,2})?", text):
        raise argparse.ArgumentTypeError(f"expected auto, cpu, cuda, cuda:N or mps, got {text[:40]!r}")
    return text


def slurm_name(text: str) -> str:
    """An argparse type: a Slurm partition, account or QOS name (it goes into an #SBATCH line)."""
    if not re.fullmatch(r"[A-Za-z0-9_.,\-]{1,100}", text):
        raise argparse.ArgumentTypeError(f"expected letters, digits, '_', '-', '.' or ',', got {text[:40]!r}")
    return text


def positive(text: str) -> float:
    """An argparse type: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text[:40]!r}")
    return value


def fraction(text: str) -> float:
    """An argparse type: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1 (exclusive), got {text[:40]!r}")
    return value


def unit(text: str) -> float:
    """An argparse type: a number in [0, 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"expected a number from 0 up to 1 (exclusive), got {text[:40]!r}")
    return value


def bins_spec(text: str) -> tuple[str, list[tuple[float, float]]]:
    """An argparse type: VARIABLE=LO-HI,... (byo.score.bins.parse_bins)."""
    try:
        return parse_bins(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def shard_spec(text: str) -> Shard:
    try:
        return Shard.parse(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def answer_cap(text: str) -> int:
    """An argparse type: 0 (no cap) or at least 100 characters."""
    value = whole(0)(text)
    if 0 < value < 100:
        raise argparse.ArgumentTypeError(f"expected 0 (keep answers whole) or at least 100, got {value}")
    return value


def add_interval_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bootstrap", type=whole(0), default=1000, help="bootstrap resamples for error intervals (0: none)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed")


def add_curve_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tolerance", type=whole(0), default=0,
                   help="breaking points of counts score |error| <= this as a hit")
    p.add_argument("--criterion", type=fraction, default=0.5,
                   help="threshold: where accuracy has come this far from chance to the ceiling")
    p.add_argument("--bins", type=bins_spec, action="append", default=None, metavar="VARIABLE=LO-HI,...",
                   help="ranges of a numeric variable's levels for the ranges table (repeatable; metrics keep every "
                        "level), e.g. content.count=1-4,5-9,10-21 or content.count=byo-eval (BYO-Eval's Table 3)")


def add_require_complete(p: argparse.ArgumentParser) -> None:
    p.add_argument("--require-complete", action="store_true",
                   help="a run with unanswered questions (stopped or killed) is an error (exit 2), not a partial score")


def add_max_answer_chars(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-answer-chars", type=answer_cap, default=MAX_ANSWER_CHARS,
                   help="store at most this many characters of an answer (its beginning and end; the cut is "
                        "recorded in the prediction); 0: keep every answer whole")


def add_force(p: argparse.ArgumentParser) -> None:
    p.add_argument("--force", action="store_true", help="replace an output file byo did not write (or one changed "
                   "since it did); without it such a file is refused, naming it")


def add_wait(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--wait", action="store_true", help=f"when another process writes the {what}, wait for it to end "
                   "(default: exit 2 naming it)")


def add_max_images(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-images", type=whole(1), default=MAX_IMAGES,
                   help="refuse to render a dataset (or --limit) of more images than this")


def add_quick_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quality", choices=["draft", "standard", "final"],
                   help="render this quality preset instead of the config's (scene.render.quality)")
    p.add_argument("--resolution", help="render at WIDTHxHEIGHT or a preset (low, medium, high) instead of the "
                   "config's scene.resolution: a quick render of a config written at full size (what is visible and "
                   "readable is then judged at this size)")


def config_source(args) -> str | dict:
    """The config to render or plan: the file, or its data with --quality / --resolution laid over
    it (a quick render of a config written at its paper's size)."""
    if args.quality is None and args.resolution is None:
        return args.config
    return quick_config(args.config, quality=args.quality, resolution=args.resolution)
