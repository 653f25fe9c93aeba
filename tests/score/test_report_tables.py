"""The table contract (byo/core/report_tables.py) and the one registry of tables (byo/score/registry.py)."""

from __future__ import annotations

from byo.core.report_tables import ALL, Column, variants
from byo.score import builtin, registry


def test_a_column_shows_its_interval_after_its_note():
    row = {"acc": 0.5, "acc_lo": 0.25, "acc_hi": 0.875, "err": 0.1234, "err_lo": 0.1, "err_hi": 0.15, "unit": "CER"}
    assert Column("Acc", "acc").text(row) == "50%" and Column("Acc", "acc").small(row) == ""
    assert Column("Acc", "acc", interval="pct").small(row) == "[25, 88]"
    assert Column("Acc", "acc", interval="pct", digits=1).small(row) == "[25.0, 87.5]"
    err = Column("CER", "err", "num", note=lambda r: r["unit"], interval="num")
    assert (err.text(row), err.small(row)) == ("0.12", "CER [0.100, 0.150]")
    assert Column("Acc", "acc", interval="pct").small({"acc": 0.5, "acc_lo": None, "acc_hi": 0.6}) == ""
    assert Column("n", "n", "int").text({}) == "–" and not Column("how", "how", "text").numeric


def test_variants_are_all_first_then_each_sorted():
    rows = [{"variant": v} for v in ("b/x", "a/y", "b/x")]
    assert [(v, len(g)) for v, g in variants(rows)] == [(ALL, 3), ("a/y", 1), ("b/x", 2)]


def test_every_output_of_byo_score_is_registered_with_its_definition_or_section():
    assert list(registry.TABLES)[:9] == ["metrics", "ranges", "by_truth", "confusion", "localization",
                                         "localization_cells", "parsing", "breaking_points", "breaking_point_levels"]
    assert {"retrieval", "byo_eval", "byo_eval_levels", "stability", "crest", "autocomp"} <= set(registry.TABLES)
    # what it is (confusion counts and parse statuses have no text, as before the registry: the
    # scores file stays byte-identical), and where the report shows it
    for table in registry.REGISTERED.values():
        assert table.all_definitions() or table.name in ("confusion", "parsing"), table.name
        assert table.sections or table.columns, table.name
    assert registry.DEFINITIONS["accuracy"].startswith("correct / all questions")
    assert {"nmae", "breaking_points", "stability", "retrieval", "levels"} <= set(registry.DEFINITIONS)
    names = [s.name for s in registry.SECTIONS]
    assert len(names) == len(set(names))
    assert {"models", "levels", "errors"} <= {s.name for s in builtin.METRICS.sections}
