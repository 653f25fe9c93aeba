"""What the command line prints, in one place: messages on stderr, tables on stdout, help that
shows defaults."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial

from rich.console import Console
from rich.table import Table

console = Console(stderr=True, soft_wrap=True)  # messages: progress, what was written, errors
WIDE = 400  # columns of a table printed to a pipe or a file


def out() -> Console:
    """Results (tables) on stdout: at the terminal's width on a terminal; elsewhere (a pipe, a
    file) as wide as the table needs, so that no name is cut."""
    return Console() if sys.stdout.isatty() else Console(width=WIDE, soft_wrap=True)


def add_json(p: argparse.ArgumentParser) -> None:
    """--json: the command's result as one JSON document on stdout, and nothing else there."""
    p.add_argument("--json", action="store_true", help="print the result as one JSON document on stdout (messages "
                   "and progress stay on stderr)")


def add_quiet(p: argparse.ArgumentParser, result: str) -> None:
    """-q: the result alone on stdout (`result` says what: a table, or the path written), no progress
    bar, no notes; errors are still printed."""
    p.add_argument("-q", "--quiet", action="store_true", help=f"print only {result} on stdout: no progress bar, "
                   "no notes (errors are still printed)")


def add_verbose(p: argparse.ArgumentParser, everything: str) -> None:
    """-v: every row, not only those that carry something (`everything` says which)."""
    p.add_argument("-v", "--verbose", action="store_true", help=f"show everything: {everything}")


def add_verbosity(p: argparse.ArgumentParser, everything: str = "keys of other designs, rows per level") -> None:
    """-v and --json."""
    add_verbose(p, everything)
    add_json(p)


def print_json(document) -> None:
    """One JSON document on stdout: paths and other objects as their text, NaN and infinities as null."""
    print(json.dumps(finite(document), indent=1, ensure_ascii=False, default=str))


def finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


@contextmanager
def quiet(enabled: bool) -> Iterator[None]:
    """While a -q command runs, its messages are not printed; an error it raises is, once it has
    left this block (the dispatcher prints it)."""
    was = console.quiet
    console.quiet = was or enabled
    try:
        yield
    finally:
        console.quiet = was


def new_table(*headers: str, **options) -> Table:
    """A results table whose cells fold long names onto a second line rather than cutting them."""
    shown = Table(**options)
    for header in headers:
        shown.add_column(header, overflow="fold")
    return shown


class Defaults(argparse.ArgumentDefaultsHelpFormatter):
    """--help shows each option's default: argparse's "(default: X)" where there is a value; an
    option without one (None, or a flag that is off) says in its own words what happens."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False:
            return action.help
        return super()._get_help_string(action)


class CommandParser(argparse.ArgumentParser):
    """A command's parser: a bad argument is one line and where to read more, not the whole usage
    (a command of many options would print a screenful before the error)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} ({self.prog} -h lists the options)\n")


DefaultsParser = partial(CommandParser, formatter_class=Defaults)


def say(line: str) -> None:
    """A line as it is (a path may hold brackets)."""
    console.print(line, highlight=False, markup=False)


def waiting(holder: str) -> None:
    console.print(f"[yellow]waiting[/yellow] for {holder} to finish", highlight=False)


def fmt(value) -> str:
    """A number with two decimals, or nothing."""
    return "" if value is None else f"{value:.2f}"


def level_table(levels: dict, why: dict, title: str,
                label: Callable[[str, object], str] = lambda variable, level: str(level)) -> Table:
    """Per variable and level: questions asked, skipped and flagged, and the reasons. `label`
    writes a level (a preset with its value: byo.scene.setup.level_label)."""
    table = new_table("variable", "level", "asked", "skipped", "flagged", "why skipped or flagged", title=title)
    for variable, by_level in levels.items():
        for level, counts in by_level.items():
            reasons = "; ".join(f"{r} ({n})" for r, n in Counter(why.get(variable, {}).get(level, {})).most_common())
            table.add_row(variable, label(variable, level), str(counts.get("asked", 0)), str(counts.get("skipped", 0)),
                          str(counts.get("flagged", 0)), reasons)
    return table
