"""BYO-Eval's tables as shared metric tables, registered once in byo.score.registry:

- `byo_eval` (Tables 2, 4 and 6), per question key of its answer types and prompt variant: Acc,
  F1, Prec and Rec as its code computes them (byo.score.metrics.byoeval_prf: F1 = 2 acc / (1 +
  acc)), MAE, MSE, NMAE (its text's rule), Rel and Cons (Table 4), each with the standard
  deviation over images where Table 2 gives one ("Mean and standard deviation over 50 images for
  each task").
- `byo_eval_levels` (Table 5, "Performance on the counting task with different levels of blur":
  "Accuracy (%)" and "MAE" per level and model), per numeric key, variable and level, all prompt
  variants pooled.

The values are computed as the metric table's (byo.score.tables.byoeval_columns and the same error
means), so they agree with metrics.csv.
"""

from __future__ import annotations

from collections.abc import Callable

from byo.core.report_tables import Column, ReportTable, ScoringOptions
from byo.score import metrics, tables
from byo.score.rows import NUMERIC

# (field, its standard deviation over images or None) of Tables 2, 4 and 6
PAPER_FIELDS = (("accuracy", "accuracy_image_sd"), ("f1_byoeval", "f1_byoeval_image_sd"), ("precision_byoeval", None),
                ("recall_byoeval", None), ("mae", "mae_image_sd"), ("mse", "mse_image_sd"), ("nmae", "nmae_image_sd"),
                ("reliability", None), ("consistency", None))


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
            parsed = [r for r in vrows if r["error"] is not None]
            if answer_type in NUMERIC and parsed:
                row.update(mae=sum(abs(r["error"]) for r in parsed) / len(parsed),
                           mse=sum(r["error"] ** 2 for r in parsed) / len(parsed))
                if answer_type == "integer":
                    row["nmae"] = sum(metrics.nmae_term(r["value"], r["answer"]) for r in parsed) / len(parsed)
            out.append({f: row.get(f) for f in ("key", "variant", "task", "answer_type", "images", "n",
                                                *(f for pair in PAPER_FIELDS for f in pair if f))})
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
               "than once, the share of its most common answer); *_image_sd: the standard deviation over images of "
               "each image's value (Table 2), population",
    note="As BYO-Eval's Tables 2, 4 and 6, per question key: Acc; F1, Prec, Rec as the paper's code computes them (a "
         "wrong answer is a false negative when the truth is 1, yes or true, else a false positive, so F1 = "
         "2 Acc / (1 + Acc), whatever the answers); MAE, MSE, NMAE over parsed answers (NMAE: |error| / truth, "
         "|error| at truth 0; counts only); Rel, the mean of the images' accuracies; Cons, per prompt text asked more "
         "than once the share of its most common answer (a constant answer scores 1: read it beside Acc). In "
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
             Column("Cons", "consistency", "num", note=_estimable("consistency"))),
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
