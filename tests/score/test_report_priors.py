"""The report's breaking points beside the answer prior: a run whose answers do not depend on the
image draws its prior's curve, labelled so, and a model whose breaking point cannot be told from
that prior's says so; one that breaks elsewhere does not."""

from __future__ import annotations

import numpy as np
from planted import count_questions, planted_predictions

from byo.score import psychometric as psy
from byo.score.report_format import Runs
from byo.score.rows import score_rows
from byo.score.run import Scores
from byo.score.sections import breaking_section

COUNTS = [1, 2, 3, 4, 5, 6]


def scores(run: str, rows: list[dict]) -> Scores:
    fits, points = psy.breaking_point_tables(rows, links=("logistic",))
    return Scores(facts={"run": run, "model": run, "dataset": "d"}, rows=rows,
                  tables={"breaking_points": fits, "breaking_point_levels": points})


def test_a_model_whose_fall_matches_the_blind_baseline_is_flagged_and_one_elsewhere_is_not():
    questions = count_questions(12, counts=COUNTS)
    blind = score_rows(questions, [{"id": q.id, "provider": "blind", "model": "blind", "response": "1", "status": "ok"}
                                   for q in questions], "blind")
    rng = np.random.default_rng(0)
    # right at count 1 and never after (its wrong answers vary): the blind baseline's fall, between 1 and 2
    early = score_rows(questions, planted_predictions(questions, lambda c: 1.0 if c == 1 else 0.0, rng, "early"), "early")
    late = score_rows(questions, planted_predictions(questions, lambda c: 0.97 if c <= 4 else 0.0, rng, "late"), "late")
    (block,) = [b for b in breaking_section(Runs([scores("blind", blind), scores("early", early),
                                                   scores("late", late)])) if b["variable"] == "true count"]
    rows = {r["label"]: r for r in block["rows"]}
    assert rows["blind"]["prior"] and rows["blind"]["sentence"].startswith(
        "blind: the answer prior's curve (the blind baseline: its answers do not depend on the image): the "
        "threshold lies between levels 1 and 2")
    assert rows["early"]["matches"].startswith("matches the breaking point of blind, whose answers do not depend")
    assert not rows["early"]["prior"] and rows["late"]["matches"] is None
    assert rows["late"]["sentence"].startswith("late breaks at true count 4.")  # between 4 and 5, its lapses seen
    series = {s["label"]: s for s in block["series"]}
    assert series["blind (answer prior)"]["prior"] and not series["late"]["prior"]
