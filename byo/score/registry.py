"""The declared metric tables: the shared ones, each registered once in SHARED, and every installed
family's (the tables its answer types carry and those it declares in `Family.tables`).

A table is a `ReportTable` (byo.families.api): `byo score` measures it (per key and prompt
variant, or once over the run: its `scope`), writes it (scores.json, NAME.csv) with its
definition, and prints it when it asks to; `byo report` gives it a section, with its figures,
when some run has rows. Adding a metric is one module with its ReportTable and one line: in
SHARED below for a shared metric, or in the family's `tables` for a family's own.
"""

from __future__ import annotations

from collections.abc import Sequence

from byo.families import family_names, get_family
from byo.families.base import ReportTable, ScoringOptions
from byo.score import byo_eval, metrics, retrieval
from byo.score.parse import FAMILY_TYPES

ALL = "all"

SHARED: tuple[ReportTable, ...] = (
    retrieval.RETRIEVAL,
    byo_eval.PAPER,
    byo_eval.LEVELS,
    byo_eval.TASK,
    byo_eval.ERRORS,
)


def _declared() -> dict[str, ReportTable]:
    tables = {t.name: t for t in SHARED}
    tables.update({t.table.name: t.table for t in FAMILY_TYPES.values() if t.table})
    for name in family_names():
        tables.update({t.name: t for t in get_family(name).tables})
    return tables


TABLES: dict[str, ReportTable] = _declared()
# the key-scoped tables that name their question keys, by key
KEY_TABLES: dict[str, list[ReportTable]] = {}
for _table in TABLES.values():
    if _table.scope == "key":
        for _key in _table.keys:
            KEY_TABLES.setdefault(_key, []).append(_table)


def _variants(rows: Sequence[dict]):
    yield ALL, list(rows)
    for (variant,), group in sorted(metrics.group_by(rows, "variant").items()):
        yield variant, group


def measure(rows: Sequence[dict], train: dict[str, list] | None = None,
            options: ScoringOptions | None = None) -> dict[str, list[dict]]:
    """Every declared table over scored rows. `train`: key -> the true answers of the dataset's
    training split (byo.score.training); a key without them uses the run's own training rows."""
    options = options or ScoringOptions()
    out: dict[str, list[dict]] = {name: [] for name in TABLES}
    for (key,), group in sorted(metrics.group_by(rows, "key").items()):
        answer_type = group[0]["answer_type"]
        own = FAMILY_TYPES[answer_type].table if answer_type in FAMILY_TYPES else None
        train_labels = (train or {}).get(key) or [r["answer"] for r in group if r["split"] == "train"]
        for table in [*([own] if own else []), *KEY_TABLES.get(key, [])]:
            for variant, vrows in _variants(group):
                out[table.name] += [
                    {"run": vrows[0]["run"], "model": vrows[0]["model"], "key": key, "answer_type": answer_type,
                     "variant": variant, **row} for row in table.measure(vrows, train_labels)]
    for table in TABLES.values():
        if table.scope == "run":
            chosen = [r for r in rows if r["key"] in table.keys] if table.keys else list(rows)
            if chosen:
                base = {"run": chosen[0]["run"], "model": chosen[0]["model"]}
                out[table.name] = [{**base, **row} for row in table.measure(chosen, options)]
    return out
