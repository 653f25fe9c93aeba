"""BYO-Eval's tables in the paper's layout (byo/score/byo_eval.py): Table 2's cells per task (a
localization's rows and columns pooled, with NMAE), Fig. 36's absolute error per cell of two
variables, and Cons as the authors' code computes it (the most common reply text) beside the
project's (the most common parsed answer). Rows are built by hand; every expected value is
computed here from the paper's definitions, for a perfect, a constant, a blind (one fixed reply
whatever the image) and a paper-adversarial predictor."""

from __future__ import annotations

import numpy as np
import pytest

from byo.score.byo_eval import consistency_reply, error_cells, paper_table, task_table


def row(image: str, key: str, answer_type: str, truth, reply: str, levels: dict | None = None,
        variant: str = "neutral/direct") -> dict:
    """A scored row whose reply is digits (parsed to its number) or not (unparsed)."""
    value = int(reply.split()[-1]) if reply.split() and reply.split()[-1].isdigit() else None
    return {"image": image, "key": key, "answer_type": answer_type, "task": "localization" if answer_type != "integer"
            else "counting", "answer": truth, "value": value, "status": "ok" if value is not None else "unparsed",
            "correct": value == truth, "error": None if value is None else float(value - truth),
            "prompt": f"{key}?", "response": reply, "variant": variant, "preprompt": "neutral",
            "instruction": "direct", "levels": levels or {}}


# a piece on a 4x4 board per image: (row, column), counted from 0 as the questions say
CELLS = [(0, 0), (1, 2), (3, 3), (2, 1)]
PREDICTORS = {
    "perfect": lambda r, c: (r, c),
    "constant": lambda r, c: (1, 1),
    "blind": lambda r, c: (0, 0),
    "adversarial": lambda r, c: (3 - r, 3 - c),  # the mirror cell: the farthest answer on the board
}


def localization_rows(predict) -> list[dict]:
    out = []
    for i, (r, c) in enumerate(CELLS):
        pr, pc = predict(r, c)
        out += [row(f"img{i}", "localize_row_one_piece", "row", r, str(pr)),
                row(f"img{i}", "localize_column_one_piece", "column", c, str(pc))]
    return out


@pytest.mark.parametrize("name", list(PREDICTORS))
def test_table_2_pools_a_localizations_rows_and_columns_with_nmae(name):
    predict = PREDICTORS[name]
    cells, variant = task_table(localization_rows(predict), None)
    assert variant == {**cells, "variant": "neutral/direct"}  # the one prompt variant asked: the same cells
    truths = [t for rc in CELLS for t in rc]
    preds = [p for rc in CELLS for p in predict(*rc)]
    errors = [abs(p - t) for p, t in zip(preds, truths, strict=True)]
    hits = [e == 0 for e in errors]
    per_image = [np.mean(hits[2 * i:2 * i + 2]) for i in range(len(CELLS))]
    nmae = [e / t if t else e for e, t in zip(errors, truths, strict=True)]  # the paper's text: MAE at truth 0
    assert cells["variant"] == "all" and cells["n"] == 8 and cells["images"] == 4
    assert cells["keys"] == "localize_column_one_piece, localize_row_one_piece"
    assert cells["accuracy"] == pytest.approx(np.mean(hits))
    assert cells["accuracy_image_sd"] == pytest.approx(np.std(per_image))
    acc = np.mean(hits)
    assert cells["f1_byoeval"] == pytest.approx(2 * acc / (1 + acc))  # no truth is "1"/"yes": every miss an FP
    assert cells["mae"] == pytest.approx(np.mean(errors))
    assert cells["mse"] == pytest.approx(np.mean(np.square(errors)))
    assert cells["nmae"] == pytest.approx(np.mean(nmae))
    assert cells["mae_image_sd"] == pytest.approx(np.std([np.mean(errors[2 * i:2 * i + 2]) for i in range(4)]))
    expected = {"perfect": (1.0, 0.0), "constant": (2 / 8, 1.0), "blind": (2 / 8, 12 / 8), "adversarial": (0.0, 2.0)}
    assert (cells["accuracy"], cells["mae"]) == pytest.approx(expected[name])
    by_key = {r["key"]: r for r in paper_table(localization_rows(predict), None) if r["variant"] == "all"}
    assert by_key["localize_row_one_piece"]["nmae"] == pytest.approx(np.mean(nmae[0::2]))  # a row's NMAE too


def test_table_2_on_unparsed_replies_has_accuracy_and_no_error():
    rows = [row(f"img{i}", "localize_row_one_piece", "row", r, "I cannot tell") for i, (r, _) in enumerate(CELLS)]
    cells, _ = task_table(rows, None)
    assert cells["accuracy"] == 0.0 and cells["f1_byoeval"] == 0.0 and "mae" not in cells
    assert task_table([], None) == []


# Fig. 36: cards counted under overlap; counts 2 and 4 x overlap 0.0 and 0.8, two images a cell
def overlap_rows(predict) -> list[dict]:
    out = []
    for count in (2, 4):
        for overlap in (0.0, 0.8):
            for copy in range(2):
                levels = {"content.overlap.count": count, "content.overlap.factor": overlap}
                out.append(row(f"c{count}_o{overlap}_{copy}", "count_cards_overlap", "integer", count,
                               predict(count, overlap, copy), levels))
    return out


@pytest.mark.parametrize("name, predict, mae", [
    ("perfect", lambda n, o, c: str(n), {(2, 0.0): 0, (2, 0.8): 0, (4, 0.0): 0, (4, 0.8): 0}),
    ("constant", lambda n, o, c: "3", {(2, 0.0): 1, (2, 0.8): 1, (4, 0.0): 1, (4, 0.8): 1}),
    # the overlap hides cards: one fewer per overlapping card pair seen
    ("overlap-blind", lambda n, o, c: str(n - round(o * (n - 1))), {(2, 0.0): 0, (2, 0.8): 1, (4, 0.0): 0,
                                                                    (4, 0.8): 2}),
    # worst at the easy cells: a card more where nothing overlaps, right where they overlap
    ("adversarial", lambda n, o, c: str(n + 5 if o == 0 else n), {(2, 0.0): 5, (2, 0.8): 0, (4, 0.0): 5,
                                                                  (4, 0.8): 0}),
])
def test_fig_36_is_the_absolute_error_per_overlap_and_count(name, predict, mae):
    cells = error_cells(overlap_rows(predict), None)
    assert {(c["variable"], c["variable2"]) for c in cells} == {("content.overlap.count", "content.overlap.factor")}
    got = {(int(c["level"]), float(c["level2"])): c for c in cells}
    assert set(got) == set(mae) and all(c["n"] == 2 and c["excluded"] == 0 for c in got.values())
    assert {k: c["mae"] for k, c in got.items()} == pytest.approx(mae)
    assert {k: c["nmae"] for k, c in got.items()} == pytest.approx({k: v / k[0] for k, v in mae.items()})


def test_fig_36_leaves_unparsed_answers_out_of_a_cell():
    cells = error_cells(overlap_rows(lambda n, o, c: "many" if c else str(n - 1)), None)
    assert all(c["n"] == 2 and c["excluded"] == 1 and c["mae"] == 1.0 for c in cells)


def test_cons_as_the_authors_code_counts_reply_texts_beside_the_parsed_answers():
    """The same count in other words is one parsed answer (Cons 1) but two reply texts (the
    authors' Cons 1/2); a constant reply is 1 on both; all-tied replies 1/k."""
    said = [row(f"img{i}", "count_pieces", "integer", 5, reply) for i, reply in enumerate(["5", "There are 5"])]
    (table,) = [r for r in paper_table(said, None) if r["variant"] == "all"]
    assert table["consistency"] == 1.0 and table["consistency_reply"] == 0.5
    constant = [row(f"img{i}", "count_pieces", "integer", i, "3") for i in range(4)]
    assert consistency_reply(constant) == 1.0
    tied = [row(f"img{i}", "count_pieces", "integer", 5, str(i)) for i in range(4)]
    assert consistency_reply(tied) == 0.25
    once = [row("img0", "count_pieces", "integer", 5, "5")]
    assert consistency_reply(once) is None  # no text asked twice
