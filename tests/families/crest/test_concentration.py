"""KamonBench Table 13 (motif prediction concentration) from a run's scored program rows: the
paper's collapse (every contained target answered with one motif token that is never a target)
reads as one predicted motif with share 1, and a model that answers each target's own motif
spreads as the targets do."""

from __future__ import annotations

from byo.families.crest.concentration import TABLE, concentration
from byo.score.registry import TABLES, measure


def row(i: int, answer: str, value: str | None, split: str = "test") -> dict:
    return {"run": "r", "model": "m", "id": f"c{i}/describe_program", "image": f"images/c{i}.png",
            "key": "describe_program", "answer_type": "crest_program", "variant": "neutral/direct",
            "answer": answer, "value": value, "status": "ok" if value else "unparsed", "split": split,
            "correct": value == answer, "params": {}, "levels": {}}


TARGETS = [f"C:01 X:0 M:{k:04d}" for k in range(1, 9)] + [f"X:3 M:{k:04d}" for k in (1, 1, 2)]


def test_a_collapsed_model_puts_the_whole_contained_slice_on_one_motif():
    rows = [row(i, t, "C:01 X:0 M:0808" if t.startswith("C:") else t) for i, t in enumerate(TARGETS)]
    rows.append(row(99, "C:01 X:0 M:0001", "C:01 X:0 M:0001", split="train"))  # not a test row: left out
    table = {r["slice"]: r for r in measure(rows, only=[TABLE.name])[TABLE.name]}
    contained = table["contained"]
    assert contained["rows"] == "test" and contained["n"] == 8 and contained["target_motifs"] == 8
    assert (contained["top_pred"], contained["top_pred_n"], contained["top_pred_share"]) == ("M:0808", 8, 1.0)
    assert contained["predicted_motifs"] == 1 and contained["top_pred_is_target"] is False
    assert contained["top_target"] == "M:0001" and contained["top_target_n"] == 1  # every count 1: the first token
    containerless = table["containerless"]
    assert (containerless["top_target"], containerless["top_target_n"]) == ("M:0001", 2)
    assert (containerless["top_pred"], containerless["top_pred_n"], containerless["top_pred_is_target"]) == (
        "M:0001", 2, True)
    assert table["all"]["n"] == 11 and table["all"]["predicted_motifs"] == 3


def test_unparsed_predictions_have_no_motif_and_a_run_without_splits_uses_all_rows():
    found = concentration([(None, "C:01 X:0 M:0002"), ("not a program", "X:0 M:0003"), ("X:0 M:0003", "X:0 M:0003")])
    assert found["unparsed"] == 2 and found["predicted_motifs"] == 1 and found["top_pred_share"] == 1 / 3
    rows = [row(i, t, t, split=None) for i, t in enumerate(TARGETS)]
    (first, *_) = measure(rows, only=[TABLE.name])[TABLE.name]
    assert first["rows"] == "all rows" and first["predicted_motifs"] == first["target_motifs"] == 8
    assert TABLE.name in TABLES  # registered: byo score writes it for any run with program answers
