"""Recall@1 over candidate captions (byo.score.retrieval): strict (a tie at the top is a miss), the
table beside chance, and the clustered mean it uses."""

from __future__ import annotations

import pytest

from byo.core.stats import clustered_mean
from byo.score.retrieval import retrieval_table
from byo.score.rows import first_max_credit, ranked_credit, strict_credit


def test_recall_at_1_credits_a_tie_as_a_random_tie_break_and_the_rules_beside_it():
    assert ranked_credit([0.9, 0.1, 0.2], 0) == 1.0
    assert ranked_credit([0.1, 0.9, 0.2], 0) == 0.0
    assert ranked_credit([0.5, 0.5, 0.2], 0) == 0.5  # the truth one of 2 tied on top: a coin flip's expectation
    assert ranked_credit([0.5, 0.5, 0.2], 2) == 0.0  # the truth below the tie
    assert ranked_credit([0.3, 0.3, 0.3, 0.3], 2) == 0.25  # no information: the chance 1 / 4
    assert ranked_credit([0.30000001, 0.3, 0.2], 0) == 1.0  # unrounded similarities do not tie
    # the sensitivity rules: strict (COMPASS's ">", a tie a miss) and the first maximum (numpy's argmax)
    assert strict_credit([0.5, 0.5, 0.2], 0) == 0.0 and strict_credit([0.9, 0.5, 0.2], 0) == 1.0
    assert first_max_credit([0.5, 0.5, 0.2], 0) == 1.0 and first_max_credit([0.5, 0.5, 0.2], 1) == 0.0


def row(image: str, key: str, credit: float, facts: dict | None = None, variant: str = "neutral/direct",
        chance: float = 0.5) -> dict:
    return {"run": "r", "model": "m", "image": image, "key": key, "variant": variant, "recall_at_1": credit,
            "chance": chance, "ranked": True, "n_candidates": round(1 / chance), "params": {"compass": facts}
            if facts else {}}


def test_retrieval_table_gives_recall_beside_chance():
    rows = [row("a", "k", 1.0, chance=0.25), row("b", "k", 0.0, chance=0.25), row("b", "k", 0.25, chance=0.25,
                                                                               variant="cot/direct")]
    table = retrieval_table(rows)
    overall = next(t for t in table if t["variant"] == "all")
    assert overall["n"] == 3 and overall["recall_at_1"] == pytest.approx(1.25 / 3) and overall["chance"] == 0.25
    assert overall["clusters"] == 2 and 0 <= overall["recall_at_1_lo"] <= overall["recall_at_1_hi"] <= 1


def test_clustered_mean_widens_with_correlated_clusters():
    independent = clustered_mean([1, 0] * 50, list(range(100)))
    clustered = clustered_mean([1] * 50 + [0] * 50, [k // 10 for k in range(100)])
    assert independent["value"] == clustered["value"] == 0.5
    assert clustered["se"] > 2 * independent["se"]
