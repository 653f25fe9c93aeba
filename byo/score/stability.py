"""Repeat stability: the runs of `byo eval --repeats K` (RUN, RUN.repeat-2, ... RUN.repeat-K) compared
question by question, per key and over all questions.

- agreement: the share of questions answered alike in all K repeats (the parsed value, or the parse
  status of an answer that did not parse);
- Fleiss' kappa of those answers (statsmodels.stats.inter_rater.fleiss_kappa, the repeats as raters
  and the answers as categories): agreement beyond what the answers' frequencies give by chance;
- accuracy of each repeat, their mean, standard deviation (ddof 1), minimum and maximum.
Questions not answered in every repeat are left out, and `n` says how many are compared.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from byo.eval.layout import MAX_REPEATS, PREDICTIONS, repeat_run_name
from byo.score.rows import run_info


def repeat_runs(run_dir: Path) -> list[Path]:
    """The runs of a `--repeats K` group whose first run is `run_dir` (just [run_dir] otherwise),
    those with predictions."""
    run_dir = Path(run_dir)
    info = run_info(run_dir)
    k = info.get("repeats")
    k = min(k, MAX_REPEATS) if isinstance(k, int) and not isinstance(k, bool) else 1  # a damaged run.json
    if info.get("repeat", 1) != 1 or k < 2:
        return [run_dir]
    others = [run_dir.with_name(repeat_run_name(run_dir.name, r)) for r in range(2, k + 1)]
    return [run_dir] + [p for p in others if (p / PREDICTIONS).is_file()]


def answer_label(row: dict) -> str:
    if row["status"] != "ok":
        return f"<{row['status']}>"
    return json.dumps(row["value"], sort_keys=True)


def kappa(labels: list[list[str]]) -> float | None:
    """Fleiss' kappa of questions (rows) x repeats (columns); None when every answer is the same."""
    categories = sorted({a for row in labels for a in row})
    if len(categories) < 2:
        return None
    index = {c: i for i, c in enumerate(categories)}
    table = np.zeros((len(labels), len(categories)))
    for i, row in enumerate(labels):
        for a in row:
            table[i, index[a]] += 1
    # statsmodels brings pandas (most of a second of start-up): imported when a kappa is measured
    from statsmodels.stats.inter_rater import fleiss_kappa

    return float(fleiss_kappa(table, method="fleiss"))


def stability_table(repeats: Sequence[Sequence[dict]], names: Sequence[str]) -> list[dict]:
    """One row over all questions ("*") and one per key."""
    by_id = [{r["id"]: r for r in rows} for rows in repeats]
    common = [i for i in by_id[0] if all(i in b for b in by_id[1:])]
    keys = ["*"] + list(dict.fromkeys(by_id[0][i]["key"] for i in common))
    out = []
    for key in keys:
        ids = [i for i in common if key == "*" or by_id[0][i]["key"] == key]
        if not ids:
            continue
        labels = [[(by_id[0][i]["key"] + "|" if key == "*" else "") + answer_label(b[i]) for b in by_id] for i in ids]
        accuracies = [float(np.mean([b[i]["correct"] for i in ids])) for b in by_id]
        out.append({"run": names[0], "model": by_id[0][ids[0]]["model"], "key": key, "repeats": len(by_id),
                    "n": len(ids), "agreement": float(np.mean([len(set(row)) == 1 for row in labels])),
                    "fleiss_kappa": kappa(labels), "accuracy_mean": float(np.mean(accuracies)),
                    "accuracy_sd": float(np.std(accuracies, ddof=1)), "accuracy_min": min(accuracies),
                    "accuracy_max": max(accuracies),
                    "accuracies": " ".join(f"{a:.4f}" for a in accuracies), "runs": " ".join(names)})
    return out
