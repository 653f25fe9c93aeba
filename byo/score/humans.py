"""People as a reference: agreement between the annotators of one dataset and their majority
answer, for the report. An annotator's run is a run of provider `human` (written by `byo human`).

Auto-Comp (section 6 and A.7) reports each of its four evaluators' scores and compares its judge
with the "human majority vote"; the report does the same here: each annotator's run is a row of
its own, and the majority answer is a row named "human (majority of N)" next to the models.

- **Categories.** An annotator's answer to a question is its parsed value (a set as its sorted
  members); "cannot tell" (parse status `refusal`) and any answer that did not parse are
  categories of their own.
- **Majority.** Over the questions every annotator of the dataset answered: the category more
  annotators gave than any other. A tie (two annotators who disagree, say) has no majority: the
  row is `ambiguous`, with the tied values as candidates, and counts as wrong like a model's hedge.
- **Fleiss' kappa** (Fleiss 1971, "Measuring nominal scale agreement among many raters"), over
  the same questions, N of them, each rated by the same n annotators into k categories, n_ij
  the annotators who put question i in category j: P_i = sum_j n_ij (n_ij - 1) / (n (n - 1)),
  P = mean of P_i (the observed agreement), p_j = sum_i n_ij / (N n), P_e = sum_j p_j^2 (the
  agreement expected by chance), kappa = (P - P_e) / (1 - P_e). Computed by
  `statsmodels.stats.inter_rater.fleiss_kappa`, for all questions and per question key. When
  every answer falls in one category (P_e = 1), kappa is undefined and shown as such, beside the
  observed agreement.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from byo.score.run import Scores, all_tables

PROVIDER = "human"
MAJORITY = "human"


@dataclass
class Agreement:
    key: str  # "*" for all questions
    items: int
    kappa: float | None  # None when undefined (one category only)
    observed: float  # mean P_i
    expected: float  # P_e


@dataclass
class HumanPanel:
    """The annotators of one dataset: their agreement and their majority answer as a run."""

    dataset: str
    annotators: list[str]
    agreement: list[Agreement]
    majority: Scores | None  # None when no question was answered by every annotator
    ties: int


def category(row: dict) -> str:
    """An annotator's answer as a category of agreement."""
    if row["status"] == "refusal":
        return "<cannot tell>"
    if row["status"] != "ok":
        return f"<{row['status']}>"
    value = row["value"]
    if isinstance(value, list | tuple):
        value = sorted(value, key=str)
    return json.dumps(value, sort_keys=True)


def agreement(ratings: list[list[str]], key: str) -> Agreement:
    """Fleiss' kappa over questions (rows) each rated by the same annotators (columns)."""
    labels = sorted({c for item in ratings for c in item})
    index = {c: j for j, c in enumerate(labels)}
    table = np.zeros((len(ratings), len(labels)), dtype=int)
    for i, item in enumerate(ratings):
        for c in item:
            table[i, index[c]] += 1
    n = table.sum(axis=1)[0]
    observed = float(((table * (table - 1)).sum(axis=1) / (n * (n - 1))).mean())
    p = table.sum(axis=0) / table.sum()
    expected = float((p ** 2).sum())
    kappa = None
    if expected < 1:
        # statsmodels brings pandas (0.6 s to import): only a report with annotators pays for it
        from statsmodels.stats.inter_rater import fleiss_kappa

        kappa = float(fleiss_kappa(table, method="fleiss"))
        kappa = kappa if math.isfinite(kappa) else None
    return Agreement(key=key, items=len(ratings), kappa=kappa, observed=observed, expected=expected)


def panels(runs: list[Scores]) -> list[HumanPanel]:
    """One panel per dataset with two or more annotators' runs among `runs`."""
    groups: dict[str, list[Scores]] = {}
    for s in runs:
        if s.facts.get("provider") == PROVIDER and not s.facts.get("reference") and s.facts.get("run") != MAJORITY:
            groups.setdefault(str(Path(s.facts.get("dataset") or "").resolve()), []).append(s)
    return [panel(dataset, group) for dataset, group in groups.items() if len(group) >= 2]


def panel(dataset: str, group: list[Scores]) -> HumanPanel:
    by_rater = [{r["id"]: r for r in s.rows} for s in group]
    order = [r["id"] for r in group[0].rows]
    common = [i for i in order if all(i in rows for rows in by_rater)]
    names = [s.facts.get("model") or s.facts["run"] for s in group]
    rows, ties = [], 0
    for i in common:
        answers = [rows_[i] for rows_ in by_rater]
        counts = Counter(category(a) for a in answers)
        (top, k), *rest = counts.most_common()
        tied = [c for c, m in counts.items() if m == k]
        first = next(a for a in answers if category(a) == top)
        row = {**first, "run": MAJORITY, "model": MAJORITY, "provider": PROVIDER, "reference": False}
        if len(tied) > 1:
            ties += 1
            row.update(status="ambiguous", value=None, correct=False, error=None, method=None,
                       candidates=[next(a["value"] for a in answers if category(a) == c) for c in tied],
                       note=f"no majority: {', '.join(tied)} ({k} annotators each)")
        else:
            row["note"] = f"majority: {k} of {len(answers)} annotators"
        rows.append(row)
    settings = group[0].settings
    label = f"human (majority of {len(group)})"
    facts = {"run": MAJORITY, "run_dir": None, "dataset": group[0].facts.get("dataset"), "model": label,
             "provider": PROVIDER, "reference": False, "n_questions": len(rows), "n_in_file": len(rows),
             "answered": len(rows), "asked": len(rows), "unanswered": 0, "partial": False, "finished": True,
             "stopped": None, "annotators": names}
    majority = None
    if rows:
        tables = all_tables(rows, n_boot=settings.get("bootstrap", 1000), seed=settings.get("seed", 0))
        majority = Scores(facts=facts, rows=rows, tables=tables, settings=settings)
    found = []
    if common:
        found.append(agreement([[category(r[i]) for r in by_rater] for i in common], "*"))
        keys = list(dict.fromkeys(by_rater[0][i]["key"] for i in common))
        for key in keys:
            ids = [i for i in common if by_rater[0][i]["key"] == key]
            found.append(agreement([[category(r[i]) for r in by_rater] for i in ids], key))
    return HumanPanel(dataset=dataset, annotators=names, agreement=found, majority=majority, ties=ties)
