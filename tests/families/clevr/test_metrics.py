"""The CLEVR family's report tables on hand-made scored rows."""

from __future__ import annotations

import pytest

from byo.families.clevr.metrics import (
    measure_binding,
    measure_distractors,
    measure_paired,
    measure_relations,
    measure_splits,
)


def row(concept, condition, correct, value="A", n=2, split=None, tags=("truth", "swap:color")):
    params = {"task": "color", "n": n, "condition": condition, "concept": concept, "option_tags": list(tags)}
    if split:
        params["split"] = split
    return {"params": params, "correct": correct, "value": value, "status": "ok", "chance": 1 / len(tags)}


def test_paired_table_keeps_concepts_asked_in_both_conditions():
    rows = [row(0, "minimal", True), row(0, "contextual", False, "B"), row(1, "minimal", True),
            row(1, "contextual", True), row(2, "minimal", False, "B")]  # concept 2 has no contextual image
    (paired,) = measure_paired(rows, [])
    assert paired["concepts"] == 2 and paired["minimal"] == 1.0 and paired["contextual"] == 0.5
    assert paired["delta_pp"] == pytest.approx(-50.0)


def test_binding_table_reports_chance_per_n_and_condition():
    rows = [row(0, "minimal", True), row(1, "minimal", False, "B"),
            row(0, "minimal", True, n=3, tags=("truth",) + ("swap:color",) * 5)]
    table = {(r["n_objects"], r["condition"]): r for r in measure_binding(rows, [])}
    assert table[(2, "minimal")]["accuracy"] == 0.5 and table[(2, "minimal")]["chance"] == 0.5
    assert table[(3, "minimal")]["chance"] == pytest.approx(1 / 6)


def test_distractor_table_counts_the_tag_of_the_option_chosen():
    tags = ("swap:shape", "truth", "swap:color", "other", "other")
    rows = [row(0, "", False, "A", split="ood_test", tags=tags), row(1, "", False, "C", split="ood_test", tags=tags),
            row(2, "", False, "C", split="ood_test", tags=tags), row(3, "", True, "B", split="ood_test", tags=tags)]
    found = {r["distractor"]: r for r in measure_distractors(rows, [])}
    assert found["swap:color"]["count"] == 2 and found["swap:color"]["of_predictions"] == 0.5
    assert found["swap:shape"]["of_errors"] == pytest.approx(1 / 3)
    assert [r["split"] for r in measure_splits(rows, [])] == ["ood_test"]


def test_relation_table_slices_n2_position_concepts():
    rows = [{**row(k, "minimal", k % 2 == 0), "params": {**row(k, "minimal", True)["params"], "task": "position",
                                                         "relations": rel}}
            for k, rel in enumerate(["over", "over", "under", "to the left of"])]
    found = {r["relation"]: r for r in measure_relations(rows, [])}
    assert found["over"]["n"] == 2 and found["over"]["accuracy"] == 0.5 and found["under"]["accuracy"] == 1.0
    assert found["to the left of"]["accuracy"] == 0.0


def ranked_row(top, status="ok"):
    tags = ["truth", "swap:relation", "swap:order", "other", "other"]
    return {"params": {"split": "ood_test", "option_tags": ["swap:order", "truth"]}, "ranked": True, "status": status,
            "top": top, "retrieval": {"captions": list("abcde"), "truth": 0, "tags": tags},
            "value": "abcde"[top[0]] if top else None, "correct": top == [0]}


def test_a_rankings_top_caption_is_its_prediction_and_a_tie_splits_over_its_captions():
    """The compositional-generalisation study's Table 8 from an image-text model: the top caption's tag among all the
    candidates (never the chat options' tags); k tied top captions each take 1 / k of the
    prediction (a uniformly random tie-break's expectation, as recall@1 credits it: docs/scoring.md),
    so a tie of the truth and the order swap is half an error on swap:order, a tie of two random
    labels one error on other; a failed request is unparsed. 5 predictions, 3.5 errors:
    Left/Right 1, shape order 0.5, other 1, unparsed 1."""
    rows = [ranked_row([1]), ranked_row([0, 2], status="ambiguous"), ranked_row([3, 4], status="ambiguous"),
            ranked_row([0]), ranked_row(None, status="error")]
    found = {r["distractor"]: r for r in measure_distractors(rows, [])}
    assert set(found) == {"swap:relation", "swap:order", "other", "unparsed"}
    assert {k: found[k]["count"] for k in found} == {"swap:relation": 1, "swap:order": 0.5, "other": 1, "unparsed": 1}
    assert found["swap:order"]["of_predictions"] == pytest.approx(0.5 / 5)
    assert found["swap:order"]["of_errors"] == pytest.approx(0.5 / 3.5)
    assert measure_distractors([ranked_row([0]), ranked_row([0])], []) == []  # a perfect ranker makes no error
