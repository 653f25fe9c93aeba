"""BYO-Eval's tables as shared metric tables, registered once in byo.score.registry:

- `byo_eval` (Tables 2, 4 and 6), per question key of its answer types and prompt variant: Acc,
  F1, Prec and Rec as its code computes them (byo.score.metrics.byoeval_prf: F1 = 2 acc / (1 +
  acc)), MAE, MSE, NMAE (its text's rule), Rel and Cons (Table 4), each with the standard
  deviation over images where Table 2 gives one ("Mean and standard deviation over 50 images for
  each task").
- `byo_eval_levels` (Table 5, "Performance on the counting task with different levels of blur":
  "Accuracy (%)" and "MAE" per level and model), per numeric key, variable and level, all prompt
  variants pooled.
- `byo_eval_task` (Table 2's cells, "Average performance of VLMs on the Chess dataset. Mean and
  standard deviation over 50 images for each task"): per prompt variant, every question of the run
  (a dataset: one task) pooled: Acc, F1, and for numeric answers MAE, MSE and NMAE (the
  localization's rows and columns too), each with its standard deviation over images; `byo run`
  lays them across the tasks of a suite, one row per model.
- `byo_eval_errors` (Fig. 36, "absolute error as a function of overlap level and number of
  cards"): per numeric key and each two varied variables crossed, the mean absolute error per cell.

Cons is given twice: `consistency`, of the parsed answers, and `consistency_reply`, as the authors'
code computes it (evaluate_diagnose_dataset.py: the share of the most common reply text, the raw
answer, per question text), which two replies of one value in other words ("5" and "There are 5")
split.

The values are computed as the metric table's (byo.score.tables.byoeval_columns and the same error
means), so they agree with metrics.csv.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np

from byo.core.report_tables import Column, ReportTable, ScoringOptions
from byo.score import metrics, tables
from byo.score.rows import NUMERIC

# (field, its standard deviation over images or None) of Tables 2, 4 and 6
PAPER_FIELDS = (("accuracy", "accuracy_image_sd"), ("f1_byoeval", "f1_byoeval_image_sd"), ("precision_byoeval", None),
                ("recall_byoeval", None), ("mae", "mae_image_sd"), ("mse", "mse_image_sd"), ("nmae", "nmae_image_sd"),
                ("reliability", None), ("consistency", None), ("consistency_reply", None))


def _keys(rows: list[dict]):
    for (key,), group in sorted(metrics.group_by(rows, "key").items()):
        if group[0]["answer_type"] in tables.BYOEVAL_TYPES:
            yield key, group


def paper_table(rows: list[dict], options: ScoringOptions) -> list[dict]:
    """Tables 2, 4 and 6: a row per key of BYO-Eval's answer types and prompt variant ("all" first)."""
    out = []
    for key, group in _keys(rows):
        answer_type = group[0]["answer_type"]
        for variant, vrows in tables.variants(group):
            index = metrics.cluster_index([r["image"] for r in vrows])
            row = {"key": key, "variant": variant, "task": group[0]["task"], "answer_type": answer_type,
                   "images": index[1], "n": len(vrows), "accuracy": sum(r["correct"] for r in vrows) / len(vrows),
                   **tables.byoeval_columns(vrows, answer_type, index)}
            row["consistency_reply"] = consistency_reply(vrows)
            if answer_type in NUMERIC:
                row.update(_errors(vrows, index))  # NMAE of rows and columns too: Table 2's localization
            out.append({f: row.get(f) for f in ("key", "variant", "task", "answer_type", "images", "n",
                                                *(f for pair in PAPER_FIELDS for f in pair if f))})
    return out


def consistency_reply(rows: Sequence[dict]) -> float | None:
    """Cons as BYO-Eval's code computes it: per question text asked more than once, the share of
    its most common reply text (the raw answer; a failed request's None), averaged over the texts."""
    return metrics.consistency([r["prompt"] for r in rows], [r["response"] for r in rows])


def _errors(rows: Sequence[dict], index: tuple) -> dict:
    """MAE, MSE and NMAE over the parsed numeric answers, each with its standard deviation over
    images (Table 2's parentheses); {} when none is parsed."""
    parsed = [i for i, r in enumerate(rows) if r["error"] is not None and r["answer_type"] in NUMERIC]
    if not parsed:
        return {}
    sub = (index[0][parsed], index[1])
    terms = {"mae": [abs(rows[i]["error"]) for i in parsed], "mse": [rows[i]["error"] ** 2 for i in parsed],
             "nmae": [metrics.nmae_term(float(rows[i]["value"]), float(rows[i]["answer"])) for i in parsed]}
    out = {}
    for name, values in terms.items():
        out[name] = float(np.mean(values))
        out[f"{name}_image_sd"] = metrics.image_sd(metrics.image_means(values, sub))
    return out


def task_table(rows: list[dict], options: ScoringOptions) -> list[dict]:
    """Table 2's cells: per prompt variant ("all" first), every question of BYO-Eval's answer types
    in the run pooled (a dataset is one task: a localization's rows and columns together)."""
    chosen = [r for r in rows if r["answer_type"] in tables.BYOEVAL_TYPES]
    out = []
    for variant, vrows in tables.variants(chosen) if chosen else ():
        index = metrics.cluster_index([r["image"] for r in vrows])
        hits = [r["correct"] for r in vrows]
        per_image = metrics.image_means(hits, index)
        row = {"variant": variant, "task": ", ".join(dict.fromkeys(r["task"] for r in vrows)),
               "keys": ", ".join(sorted({r["key"] for r in vrows})), "images": index[1], "n": len(vrows),
               "accuracy": sum(hits) / len(hits), "accuracy_image_sd": metrics.image_sd(per_image),
               "f1_byoeval": metrics.byoeval_prf(hits, [r["answer"] for r in vrows])["f1"],
               "f1_byoeval_image_sd": metrics.image_sd(metrics.f1_from_accuracy(per_image))}
        out.append({**row, **_errors(vrows, index)})
    return out


def error_cells(rows: list[dict], options: ScoringOptions) -> list[dict]:
    """Fig. 36's layout: per numeric key and each two varied variables crossed (overlap level x
    number of cards), the mean absolute error and NMAE per cell over its parsed answers, every
    prompt variant pooled."""
    out = []
    for key, group in _keys(rows):
        if group[0]["answer_type"] not in NUMERIC:
            continue
        levels = tables.Levels(group)
        labels = [{v: levels.of(r, v) for v in levels.variables} for r in group]
        for a, b in itertools.combinations(levels.variables, 2):
            for la, lb in itertools.product(levels.order[a], levels.order[b]):
                cell = [r for r, lab in zip(group, labels, strict=True) if lab[a] == la and lab[b] == lb]
                if not cell:
                    continue
                parsed = [r for r in cell if r["error"] is not None]
                out.append({"key": key, "variant": tables.ALL, "variable": a, "level": la, "variable2": b,
                            "level2": lb, "n": len(cell), "excluded": len(cell) - len(parsed),
                            "mae": float(np.mean([abs(r["error"]) for r in parsed])) if parsed else None,
                            "nmae": float(np.mean([metrics.nmae_term(float(r["value"]), float(r["answer"]))
                                                   for r in parsed])) if parsed else None})
    return out


def levels_table(rows: list[dict], options: ScoringOptions) -> list[dict]:
    """Table 5's layout: per numeric key, variable and level, accuracy in percent and MAE."""
    out = []
    for key, group in _keys(rows):
        answer_type = group[0]["answer_type"]
        if answer_type not in NUMERIC:
            continue
        levels = tables.Levels(group)
        for variable in levels.variables:
            by_level = metrics.group_by([{**r, "_level": levels.of(r, variable)} for r in group], "_level")
            for level in levels.order[variable]:
                inside = by_level.get((level,))
                if not inside:
                    continue
                errors = [abs(r["error"]) for r in inside if r["error"] is not None]
                out.append({"key": key, "variant": tables.ALL, "variable": variable, "level": level, "n": len(inside),
                            "accuracy_percent": 100 * sum(r["correct"] for r in inside) / len(inside),
                            "mae": sum(errors) / len(errors) if errors else None, "excluded": len(inside) - len(errors)})
    return out


def _sd(value: str, sd: str) -> Callable[[dict], str]:
    """Small print after a value: its standard deviation over images, in parentheses."""
    def note(r: dict) -> str:
        if r.get(value) is None:
            return ""
        return "(SD not estimable)" if r.get(sd) is None else f"({r[sd]:.2f})"
    return note


def _estimable(value: str) -> Callable[[dict], str]:
    return lambda r: "not estimable" if r.get(value) is None else ""


PAPER = ReportTable(
    name="byo_eval", title="BYO-Eval's Tables 2, 4, 6",
    definition="per key of BYO-Eval's answer types and prompt variant: accuracy; f1_byoeval, precision_byoeval, "
               "recall_byoeval by its code's rule (a wrong answer is a false negative when the truth is '1', 'yes' or "
               "'true', else a false positive; F1 = 2 acc / (1 + acc)); MAE, MSE, NMAE over parsed answers; "
               "reliability (Rel: mean of the images' accuracies) and consistency (Cons: per prompt text asked more "
               "than once, the share of its most common answer); consistency_reply (Cons as its code computes it: the "
               "share of the most common reply text, the raw answer); *_image_sd: the standard deviation over images of "
               "each image's value (Table 2), population",
    note="As BYO-Eval's Tables 2, 4 and 6, per question key: Acc; F1, Prec, Rec as the paper's code computes them (a "
         "wrong answer is a false negative when the truth is 1, yes or true, else a false positive, so F1 = "
         "2 Acc / (1 + Acc), whatever the answers); MAE, MSE, NMAE over parsed answers (NMAE: |error| / truth, "
         "|error| at truth 0; counts, rows and columns); Rel, the mean of the images' accuracies; Cons, per prompt text asked more "
         "than once the share of its most common answer (a constant answer scores 1: read it beside Acc); Cons (reply), as its code computes it, of the reply texts (the "
         "same count in other words splits it). In "
         "parentheses: the standard deviation over images of each image's value (Table 2). The macro F1 is in the "
         "model comparison.",
    columns=(Column("images", "images", "int"), Column("n", "n", "int"),
             Column("Acc", "accuracy", "num", note=_sd("accuracy", "accuracy_image_sd")),
             Column("F1", "f1_byoeval", "num", note=_sd("f1_byoeval", "f1_byoeval_image_sd")),
             Column("Prec", "precision_byoeval", "num", note=_estimable("precision_byoeval")),
             Column("Rec", "recall_byoeval", "num", note=_estimable("recall_byoeval")),
             Column("MAE", "mae", "num", note=_sd("mae", "mae_image_sd")),
             Column("MSE", "mse", "num", note=_sd("mse", "mse_image_sd")),
             Column("NMAE", "nmae", "num", note=_sd("nmae", "nmae_image_sd")),
             Column("Rel", "reliability", "num"),
             Column("Cons", "consistency", "num", note=_estimable("consistency")),
             Column("Cons (reply)", "consistency_reply", "num", note=_estimable("consistency_reply"))),
    measure=paper_table, scope="run")

LEVELS = ReportTable(
    name="byo_eval_levels", title="BYO-Eval's Table 5: accuracy and MAE per level",
    definition="per numeric key of BYO-Eval's answer types, variable and level, all prompt variants pooled: "
               "accuracy_percent (right answers / all questions, x 100) and MAE over parsed answers (excluded: the "
               "others), as Table 5 per blur level",
    note="As BYO-Eval's Table 5 (accuracy in percent and MAE per blur level and model), per numeric key and for "
         "every variable: all prompt variants pooled; MAE over parsed answers.",
    columns=(Column("variable", "variable", "text"), Column("level", "level", "text"), Column("n", "n", "int"),
             Column("Accuracy (%)", "accuracy_percent", "num"), Column("MAE", "mae", "num")),
    measure=levels_table, scope="run")


TASK = ReportTable(
    name="byo_eval_task", title="BYO-Eval's Table 2: each task's questions pooled",
    definition="per prompt variant, every question of BYO-Eval's answer types in the run (one dataset: one task) "
               "pooled: accuracy and f1_byoeval, and over its parsed numeric answers mae, mse and nmae (|error| / "
               "max(truth, 1), rows and columns too), each with *_image_sd, its standard deviation over images "
               "(population), as Table 2; keys: the question keys pooled",
    note="As BYO-Eval's Table 2 (a task's Acc, F1, MAE, MSE and NMAE, mean and standard deviation over images in "
         "parentheses): every question of the run pooled, a localization's rows and columns together. byo run "
         "lays it across the tasks of a suite, one row per model.",
    columns=(Column("task", "task", "text"), Column("images", "images", "int"), Column("n", "n", "int"),
             Column("Acc", "accuracy", "num", note=_sd("accuracy", "accuracy_image_sd")),
             Column("F1", "f1_byoeval", "num", note=_sd("f1_byoeval", "f1_byoeval_image_sd")),
             Column("MAE", "mae", "num", note=_sd("mae", "mae_image_sd")),
             Column("MSE", "mse", "num", note=_sd("mse", "mse_image_sd")),
             Column("NMAE", "nmae", "num", note=_sd("nmae", "nmae_image_sd"))),
    measure=task_table, scope="run")

ERRORS = ReportTable(
    name="byo_eval_errors", title="BYO-Eval's Fig. 36: absolute error per cell of two variables",
    definition="per numeric key of BYO-Eval's answer types and each two varied variables crossed, all prompt "
               "variants pooled: n, mae (mean |error| over parsed answers; excluded: the others) and nmae per cell, "
               "as Fig. 36's absolute error per overlap level and number of cards",
    note="As BYO-Eval's Fig. 36 (absolute error as a function of overlap level and number of cards), for every two "
         "varied variables of a numeric key: the mean absolute error and NMAE per cell, all prompt variants pooled.",
    columns=(Column("variable", "variable", "text"), Column("level", "level", "text"),
             Column("variable 2", "variable2", "text"), Column("level 2", "level2", "text"), Column("n", "n", "int"),
             Column("MAE", "mae", "num"), Column("NMAE", "nmae", "num")),
    measure=error_cells, scope="run")
