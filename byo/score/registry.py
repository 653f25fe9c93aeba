"""Every table `byo score` writes, each registered once: the scorer's own (byo.score.builtin) and
the shared metrics in SHARED, then every installed family's (the tables its answer types carry and
those it declares in `Family.tables`).

A table is a `ReportTable` (byo.core.report_tables): `byo score` measures it (per key and prompt
variant, once over the run, or per slice of the metrics table: its `scope`), writes it
(scores.json, NAME.csv) with its definitions, and prints it when it asks to; `byo report` gives
it its sections, or a section of its columns, when some run has rows. Adding a metric is one
module with its ReportTable and one line: in SHARED below for a shared metric, or in the family's
`tables` for a family's own. byo.score.run and byo.score.report only iterate what is here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from byo.core.report_tables import ReportTable, ScoringOptions, Section, variants
from byo.families import family_names, get_family
from byo.score import builtin, byo_eval, metrics, retrieval, sections
from byo.score.parse import FAMILY_TYPES

SHARED: tuple[ReportTable, ...] = (
    *builtin.BUILT_IN,
    retrieval.RETRIEVAL,
    byo_eval.PAPER,
    byo_eval.LEVELS,
    builtin.STABILITY,
    byo_eval.TASK,
    byo_eval.ERRORS,
)


def _registered() -> dict[str, ReportTable]:
    tables = {t.name: t for t in SHARED}
    tables.update({t.table.name: t.table for t in FAMILY_TYPES.values() if t.table})
    for name in family_names():
        tables.update({t.name: t for t in get_family(name).tables})
    return tables


REGISTERED: dict[str, ReportTable] = _registered()
# the tables written (scores.json's "tables", NAME.csv), in order: each registered one but the
# slices (columns of the metrics table), followed by those its measure makes too (`also`)
TABLES: dict[str, ReportTable] = {t.name: t for table in REGISTERED.values() if table.scope != "slice"
                                  for t in (table, *table.also)}
SLICES: tuple[ReportTable, ...] = tuple(t for t in REGISTERED.values() if t.scope == "slice")
# scores.json's "definitions": every registered table's, in order
DEFINITIONS: dict[str, str] = {k: v for t in REGISTERED.values() for k, v in t.all_definitions().items()}
# fields each row of a written table has (an older byo's scores file lacks one): a slice's columns
# are fields of the metrics table
FIELDS: dict[str, tuple[str, ...]] = {name: t.fields for name, t in TABLES.items()}
FIELDS[builtin.METRICS.name] += tuple(c.field for t in SLICES for c in t.columns)
# the report's sections of the tables, in order: each table's own, or a section of its columns
SECTIONS: tuple[Section, ...] = tuple(s for t in REGISTERED.values() for s in (t.sections or (sections.declared(t),)))
# the key-scoped tables that name their question keys, by key
KEY_TABLES: dict[str, list[ReportTable]] = {}
for _table in REGISTERED.values():
    if _table.scope == "key":
        for _key in _table.keys:
            KEY_TABLES.setdefault(_key, []).append(_table)


def measure(rows: Sequence[dict], train: dict[str, list] | None = None,
            options: ScoringOptions | None = None, only: Sequence[str] | None = None) -> dict[str, list[dict]]:
    """Every table over scored rows (`only`: those registered under these names). `train` (or
    `options.train`): key -> the true answers of the dataset's training split (byo.score.training);
    a key without them uses the run's own training rows."""
    options = replace(options or ScoringOptions(), slices=tuple(t.measure for t in SLICES))
    train = train if train is not None else options.train
    registered = {n: t for n, t in REGISTERED.items() if only is None or n in only}
    out: dict[str, list[dict]] = {t.name: [] for table in registered.values() if table.scope != "slice"
                                  for t in (table, *table.also)}
    for (key,), group in sorted(metrics.group_by(rows, "key").items()):
        answer_type = group[0]["answer_type"]
        own = FAMILY_TYPES[answer_type].table if answer_type in FAMILY_TYPES else None
        train_labels = (train or {}).get(key) or [r["answer"] for r in group if r["split"] == "train"]
        for table in [t for t in [*([own] if own else []), *KEY_TABLES.get(key, [])] if t.name in registered]:
            for variant, vrows in variants(group):
                out[table.name] += [
                    {"run": vrows[0]["run"], "model": vrows[0]["model"], "key": key, "answer_type": answer_type,
                     "variant": variant, **row} for row in table.measure(vrows, train_labels)]
    for table in registered.values():
        if table.scope == "run":
            chosen = [r for r in rows if r["key"] in table.keys] if table.keys else list(rows)
            if chosen:
                base = {"run": chosen[0]["run"], "model": chosen[0]["model"]}
                made = table.measure(chosen, options)
                for name, made_rows in (made.items() if isinstance(made, dict) else [(table.name, made)]):
                    out[name] = [{**base, **row} for row in made_rows]
    return out
