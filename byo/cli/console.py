"""What the command line prints, in one place: messages on stderr, tables on stdout, help that
shows defaults."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from functools import partial

from rich.console import Console
from rich.table import Table

console = Console(stderr=True, soft_wrap=True)  # messages: progress, what was written, errors
WIDE = 400  # columns of a table printed to a pipe or a file


def out() -> Console:
    """Results (tables) on stdout: at the terminal's width on a terminal; elsewhere (a pipe, a
    file) as wide as the table needs, so that no name is cut."""
    return Console() if sys.stdout.isatty() else Console(width=WIDE, soft_wrap=True)


def add_verbosity(p: argparse.ArgumentParser) -> None:
    """-v (everything: keys that do not apply, rows per level) and --json (for machines)."""
    p.add_argument("-v", "--verbose", action="store_true", help="show everything, not only what applies")
    p.add_argument("--json", action="store_true", help="print the results as JSON on stdout")


def new_table(*headers: str, **options) -> Table:
    """A results table whose cells fold long names onto a second line rather than cutting them."""
    shown = Table(**options)
    for header in headers:
        shown.add_column(header, overflow="fold")
    return shown


class Defaults(argparse.ArgumentDefaultsHelpFormatter):
    """--help shows each option's default."""


DefaultsParser = partial(argparse.ArgumentParser, formatter_class=Defaults)


def say(line: str) -> None:
    """A line as it is (a path may hold brackets)."""
    console.print(line, highlight=False, markup=False)


def waiting(holder: str) -> None:
    console.print(f"[yellow]waiting[/yellow] for {holder} to finish", highlight=False)


def fmt(value) -> str:
    """A number with two decimals, or nothing."""
    return "" if value is None else f"{value:.2f}"


def level_table(levels: dict, why: dict, title: str) -> Table:
    """Per variable and level: questions asked, skipped and flagged, and the reasons."""
    table = new_table("variable", "level", "asked", "skipped", "flagged", "why skipped or flagged", title=title)
    for variable, by_level in levels.items():
        for level, counts in by_level.items():
            reasons = "; ".join(f"{r} ({n})" for r, n in Counter(why.get(variable, {}).get(level, {})).most_common())
            table.add_row(variable, level, str(counts.get("asked", 0)), str(counts.get("skipped", 0)),
                          str(counts.get("flagged", 0)), reasons)
    return table
