"""Per-level tables: every level kept (counts 1..21), ranges asked for (Table 3 of BYO-Eval),
mean and standard deviation across levels, macro and BYO-Eval F1, per true value."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from count_data import COUNTS, make_count_dataset, slipping, write_run

from byo.cli import main
from byo.score import metrics
from byo.score.bins import parse_bins
from byo.score.run import score_run
from byo.score.tables import Levels


@pytest.fixture(scope="module")
def count_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("count21")
    questions = make_count_dataset(root)
    return write_run(root, questions, "slipping", "slipping-vlm", slipping)


def _csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_every_count_is_its_own_level_and_both_f1s_are_there(count_run, capsys):
    assert main(["score", str(count_run), "--bootstrap", "50"]) == 0
    printed = capsys.readouterr().out
    assert "BYO" in printed and "macro" in printed  # the two F1 columns (a narrow terminal wraps their names)
    rows = [r for r in _csv(count_run / "metrics.csv")
            if r["key"] == "count_pieces" and r["variant"] == "all" and r["variable"] == "content.count"
            and not r["variable2"]]
    assert [r["level"] for r in rows] == [str(c) for c in COUNTS]
    acc = {int(r["level"]): float(r["accuracy"]) for r in rows}
    assert all(acc[c] == 1.0 for c in range(1, 5))
    # Above 4: one too many on the two declarative variants of 2 of 3 images: 4 of 12 questions wrong.
    assert all(acc[c] == pytest.approx(1 - 4 / 12) for c in range(5, 22))
    overall = next(r for r in _csv(count_run / "metrics.csv")
                   if r["key"] == "count_pieces" and r["variant"] == "all" and not r["variable"])
    truths = [c for c in COUNTS for _ in range(12)]
    preds = [c + 1 if c > 4 and (k % 4 in (0, 2)) and (k // 4) in (0, 2) else c
             for c in COUNTS for k in range(12)]
    expected = metrics.macro_prf(preds, truths)
    assert float(overall["f1_macro"]) == pytest.approx(expected["f1"])
    assert float(overall["precision_macro"]) == pytest.approx(expected["precision"])
    assert float(overall["recall_macro"]) == pytest.approx(expected["recall"])
    # BYO-Eval's rule: the 68 wrong answers (4 at each count 5..21) are false positives (no truth is 1).
    accuracy = 1 - 68 / 252
    assert float(overall["precision_byoeval"]) == pytest.approx(accuracy, abs=1e-6)
    assert float(overall["recall_byoeval"]) == 1.0
    assert float(overall["f1_byoeval"]) == pytest.approx(2 * accuracy / (1 + accuracy), abs=1e-6)
    by_truth = [r for r in _csv(count_run / "by_truth.csv") if r["key"] == "count_pieces"]
    assert [int(r["truth"]) for r in by_truth] == list(COUNTS)
    assert float(by_truth[-1]["signed"]) == pytest.approx(4 / 12)


def test_the_papers_count_ranges_give_table_3s_mean_and_sd_across_levels(count_run):
    scores, _ = score_run(count_run, n_boot=0, bins=dict([parse_bins("content.count=byo-eval")]))
    ranges = {r["range"]: r for r in scores.tables["ranges"]
              if r["key"] == "count_pieces" and r["variant"] == "all" and r["variable"] == "content.count"}
    assert list(ranges) == ["all", "1-4", "5-9", "10-21"]
    assert (ranges["1-4"]["levels"], ranges["5-9"]["levels"], ranges["10-21"]["levels"]) == (4, 5, 12)
    assert ranges["1-4"]["accuracy_level_mean"] == 1.0 and ranges["1-4"]["accuracy_level_sd"] == 0.0
    assert ranges["10-21"]["accuracy_level_mean"] == pytest.approx(2 / 3)
    per_level = [1.0] * 4 + [2 / 3] * 17
    assert ranges["all"]["accuracy_level_mean"] == pytest.approx(np.mean(per_level))
    assert ranges["all"]["accuracy_level_sd"] == pytest.approx(np.std(per_level))
    assert ranges["5-9"]["accuracy_lo"] < ranges["5-9"]["accuracy"] < ranges["5-9"]["accuracy_hi"]
    # metrics.csv keeps every level beside them
    levels = [r["level"] for r in scores.tables["metrics"] if r["key"] == "count_pieces" and r["variant"] == "all"
              and r["variable"] == "content.count" and not r["variable2"]]
    assert levels == [str(c) for c in COUNTS]


def test_only_a_continuous_variable_is_cut_into_quantile_bins():
    rows = [{"levels": {"content.count": c, "camera.azimuth": 0.37 * c + 0.1}} for c in range(1, 31)]
    levels = Levels(rows)
    assert len(levels.order["content.count"]) == 30
    assert len(levels.order["camera.azimuth"]) == 5


def test_macro_prf_counts_each_class_once():
    p = metrics.macro_prf([1, 1, 2, None], [1, 2, 2, 3])
    # class 1: P 1/2 R 1/1; class 2: P 1/1 R 1/2; class 3: never answered, P 0 R 0
    assert p["precision"] == pytest.approx((0.5 + 1 + 0) / 3)
    assert p["recall"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert p["f1"] == pytest.approx((2 / 3 + 2 / 3 + 0) / 3)
