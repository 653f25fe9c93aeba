"""The contract of a metric table, shared by the scorer (byo.score) and the families, which declare
their own through byo.families.api: what a table measures, what it means and how the report shows it.

Every output of `byo score` is a `ReportTable` registered once (byo.score.registry): the scorer
measures it, writes it (scores.json's "tables" and NAME.csv) with its definitions (scores.json's
"definitions") and prints it when it asks to; `byo report` gives it its sections, or, for a table
without sections of its own, one section of its columns. Pure Python, nothing of byo imported.
"""

from __future__ import annotations

import operator
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

ALL = "all"  # the prompt variant of every variant pooled


def variants(rows: Sequence[dict]) -> Iterator[tuple[str, list[dict]]]:
    """("all", every row), then (variant, its rows) for each prompt variant, sorted."""
    yield ALL, list(rows)
    by: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by[r["variant"]].append(r)
    yield from sorted(by.items())


def group_by(rows: Sequence[dict], *keys: str) -> dict[tuple, list[dict]]:
    """Rows by the tuple of their values of `keys`, in first-seen order."""
    out: dict[tuple, list[dict]] = defaultdict(list)
    if len(keys) == 1:
        (key,) = keys
        for r in rows:
            out[(r[key],)].append(r)
    else:
        values = operator.itemgetter(*keys)  # a tuple of them
        for r in rows:
            out[values(r)].append(r)
    return out


# --- formatting of a value for people ----------------------------------------------------------
def pct(v) -> str:
    return "–" if v is None else f"{100 * v:.0f}%"


def num(v, digits: int = 2) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


FORMATS: dict[str, Callable[[Any], str]] = {
    "pct": pct, "num": num, "int": lambda v: "–" if v is None else str(v), "text": lambda v: v or ""}


@dataclass(frozen=True)
class Column:
    """A column of a table in the report: a field of its metric rows, formatted. `interval`: the
    field's interval (fields FIELD_lo and FIELD_hi) follows the value in small print, as "[lo, hi]":
    "pct" in percent, "num" as it is, each with `digits` decimals."""

    header: str
    field: str
    format: Literal["pct", "num", "int", "text"] = "pct"
    note: Callable[[dict], str] | None = None  # small print after the value (e.g. its unit)
    interval: Literal["pct", "num"] | None = None
    digits: int | None = None  # of the interval: default 0 in percent, 3 otherwise

    def text(self, row: dict) -> str:
        return FORMATS[self.format](row.get(self.field))

    def interval_text(self, row: dict) -> str:
        lo, hi = row.get(f"{self.field}_lo"), row.get(f"{self.field}_hi")
        if self.interval is None or lo is None or hi is None:
            return ""
        scale, digits = (100, 0) if self.interval == "pct" else (1, 3)
        digits = digits if self.digits is None else self.digits
        return f"[{scale * lo:.{digits}f}, {scale * hi:.{digits}f}]"

    def small(self, row: dict) -> str:
        """The small print after the value: the note, then the interval."""
        return " ".join(part for part in (self.note(row) if self.note else "", self.interval_text(row)) if part)

    @property
    def numeric(self) -> bool:
        return self.format != "text"


@dataclass(frozen=True)
class ScoringOptions:
    """What `byo score` was asked, for tables measured over a whole run (scope "run")."""

    n_boot: int = 1000
    seed: int = 0
    perplexity_model: str | None = None  # a causal language model for perplexity checks; None: skipped
    tolerance: float = 0  # |error| <= tolerance counts a numeric answer right in a breaking point's fit
    criterion: float = 0.5  # a breaking point's criterion (byo.score.psychometric.CRITERION)
    bins: Mapping[str, Sequence[tuple[float, float]]] | None = None  # byo score --bins: ranges of levels
    train: Mapping[str, list] | None = None  # key -> true answers of the dataset's training split
    # byo eval --repeats K: each other repeat's scored rows, and every repeat's run name (this one first)
    repeats: tuple[list[dict], ...] = ()
    repeat_names: tuple[str, ...] = ()
    # the measures of the registered scope-"slice" tables, each adding fields to every metrics row
    slices: tuple[Callable[[list[dict], str], dict], ...] = ()


@dataclass(frozen=True)
class Section:
    """A report section of its own (the built-in tables' plots and layouts): `build(runs)` makes its
    data (the report's `Runs`) and the template `template` (byo/score/templates/) shows it when
    `shown(data)`. A `per_key` section is built key by key: `build(runs, key)` per key of the runs
    (all questions first where `everything`), the blocks that are not None kept."""

    name: str  # its anchor and the name of its data in the template
    title: str
    build: Callable[..., Any]
    template: str
    shown: Callable[[Any], bool] = bool
    per_key: bool = False
    everything: bool = False


@dataclass(frozen=True)
class ReportTable:
    """A metric table, carried by a family's answer types or declared in `Family.tables`, or
    registered once in byo.score.registry (the scorer's own and the shared metrics), as Inspect's
    scorers carry theirs: how the rows are measured, what they mean, and how the report shows them.
    `byo score` writes it as table `name` (scores.json, NAME.csv); `byo report` gives it its
    `sections`, or, without them, a section of its columns (with its figures) when some run has
    rows; `byo score` prints it when it asks to."""

    name: str  # the table's name in scores.json and its CSV file; the report section's anchor
    title: str  # the report section's heading
    definition: str  # what the metrics are (scores.json's "definitions" under `name`, and the report's)
    note: str  # the report's paragraph above the table
    columns: tuple[Column, ...]  # after the model (and, for scope "key", the key and prompt variant)
    # scope "key": (scored rows of one key and prompt variant, true answers of the key's training
    # images) -> metric rows, one per slice. Scope "run": (every scored row of the table's keys,
    # or of the run when it names none, the scoring options: ScoringOptions) -> metric rows (a dict
    # of rows by table name where it also makes the tables `also`). Scope "slice": (the scored rows
    # of one slice of the metrics table: a key or all, a prompt variant, a level or a cross of two,
    # their answer type) -> fields of that metrics row: its columns are the metrics table's.
    measure: Callable[..., Any]
    # Question keys it measures whatever their answer type (a table a family declares in
    # `Family.tables`, over shared answer types such as multiple choice); () for an answer type's
    # own, or, for scope "run", every row of the run.
    keys: tuple[str, ...] = ()
    scope: Literal["key", "run", "slice"] = "key"
    # rows the report folds under "details" (e.g. one per complexity level below the summary rows)
    folded: Callable[[dict], bool] | None = None
    # the report's figures: [(run label, its colour, its rows of this table)] -> [(PNG bytes, caption)]
    figures: Callable[[list[tuple[str, str, list[dict]]]], list[tuple[bytes, str]]] | None = None
    terminal: bool = False  # `byo score` prints its rows (all prompt variants pooled, not folded)
    # the definitions it writes under other names than its own (scores.json's "definitions"), e.g.
    # one per metric of a table of many; its `definition` comes first under `name` unless empty
    definitions: Mapping[str, str] = field(default_factory=dict)
    # tables its measure makes too (scope "run"): their rows come from this table's measure
    also: tuple[ReportTable, ...] = ()
    sections: tuple[Section, ...] = ()  # its own report sections; () gives it a section of its columns
    # fields every row has: a scores file whose rows lack one was written by an older byo
    fields: tuple[str, ...] = ()

    def all_definitions(self) -> dict[str, str]:
        return {**({self.name: self.definition} if self.definition else {}), **self.definitions}
