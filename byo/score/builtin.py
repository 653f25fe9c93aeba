"""The scorer's own tables, each a ReportTable registered once in byo.score.registry with its
definitions (what scores.json's "definitions" prints) and its report sections (byo.score.sections):
the metrics per key, prompt variant, level and cross of two variables, the ranges of levels, the
metrics per true value, the confusion counts, localization, parsing, breaking points and repeat
stability. Each measures a whole run: (scored rows, ScoringOptions) -> rows.
"""

from __future__ import annotations

from byo.core.report_tables import ReportTable, ScoringOptions
from byo.score import psychometric, sections, stability, tables


def _metrics(rows: list[dict], options: ScoringOptions) -> list[dict]:
    # every level (--bins adds ranges.csv); the shared slice metrics add their columns
    return tables.metric_table(rows, n_boot=options.n_boot, seed=options.seed, columns=options.slices)


def _localization(rows: list[dict], options: ScoringOptions) -> dict[str, list[dict]]:
    summary, cells = tables.localization_tables(rows, n_boot=options.n_boot, seed=options.seed)
    return {"localization": summary, "localization_cells": cells}


def _breaking_points(rows: list[dict], options: ScoringOptions) -> dict[str, list[dict]]:
    fits, points = psychometric.breaking_point_tables(rows, tolerance=options.tolerance, criterion=options.criterion)
    return {"breaking_points": fits, "breaking_point_levels": points}


def _stability(rows: list[dict], options: ScoringOptions) -> list[dict]:
    """byo eval --repeats K: nothing without the other repeats' rows."""
    if not options.repeats:
        return []
    return stability.stability_table([rows, *options.repeats], list(options.repeat_names))


def _table(name: str, measure, definition: str = "", **kw) -> ReportTable:
    """A built-in table: its columns and layout are its report sections'."""
    return ReportTable(name=name, title=name, definition=definition, note="", columns=(), measure=measure,
                       scope="run", **kw)


METRICS = _table("metrics", _metrics, definitions={
    "accuracy": "correct / all questions; ambiguous, refused, unparsed and failed answers count as wrong. "
                "95% interval clustered by image (accuracy_lo/hi: Wilson on the effective sample size n / deff, "
                "deff from the cluster-robust variance, at least 1; accuracy_se: cluster-robust standard error); "
                "accuracy_wilson_lo/hi: the Wilson interval taking questions as independent",
    "parse_rate": "answers parsed to one value / all questions",
    "within_one": "|prediction - truth| <= 1, over all questions (interval clustered by image, like accuracy)",
    "clustering": "every interval treats the questions of one image (its keys and prompt variants) as one cluster: "
                  "bootstraps resample images, proportions use the cluster-robust variance",
    "errors": "signed error, MAE, MSE, RMSE, NMAE over parsed answers only; `excluded` counts the others "
              "(95% percentile bootstrap resampling images)",
    "nmae": "mean of |prediction - truth| / max(|truth|, 1): relative error, the absolute error when the truth is 0 "
            "(BYO-Eval's text: 'MAE divided by the target if it is different than 0 or MAE'; its code counts 1.0 for "
            "any error at truth 0)",
    "precision_micro / recall_micro / f1_micro": "label sets: micro precision / recall / F1 over the set items; an "
                                                 "unparsed answer predicts the empty set",
    "precision_macro / recall_macro / f1_macro": "counts, rows, columns, labels, position words, cards: precision / "
                                                 "recall / F1 per true class (precision = right answers c / answers c, "
                                                 "0 for a class never answered; recall = right answers c / questions "
                                                 "whose truth is c), macro-averaged over the true classes; an unparsed "
                                                 "answer answers no class",
    "precision_byoeval / recall_byoeval / f1_byoeval": "BYO-Eval's (Tables 2, 4, 6), by its code's rule: a right "
                                                       "answer is a true positive, a wrong one a false negative when "
                                                       "the truth is '1', 'yes' or 'true', else a false positive; "
                                                       "F1 = 2 TP / (2 TP + FP + FN) = 2 acc / (1 + acc), a function of "
                                                       "accuracy; a ratio over 0 answers is not estimable (empty)",
    "reliability": "BYO-Eval's Rel (Table 4): the mean over images of each image's accuracy; per key and prompt "
                   "variant (the rows without a variable)",
    "consistency": "BYO-Eval's Cons (Table 4): per prompt text asked more than once, the share of its most common "
                   "answer (parsed value, or parse status), averaged over the texts; a constant answer scores 1; per "
                   "key and prompt variant",
    "image_sd": "accuracy_image_sd, f1_byoeval_image_sd, mae_image_sd, mse_image_sd, nmae_image_sd: the standard "
                "deviation over images (population, as BYO-Eval's code) of each image's value (Table 2's "
                "parentheses); per key and prompt variant; empty with fewer than 2 images",
    "levels": "every level of a variable is its own level (a count of 1 to 21 is 21 levels); a variable drawn from "
              "a continuous range (more than 8 non-integer values) is cut into 5 quantile bins; byo score --bins "
              "VARIABLE=1-4,5-9,10-21 (or VARIABLE=byo-eval, Table 3's count ranges) adds those ranges of levels "
              "to the ranges table, metrics keep every level",
    "precision_yes / recall_yes / f1_yes": "yes/no questions: precision / recall / F1 of the answer yes; an unparsed "
                                           "answer is not yes",
}, sections=sections.METRICS)
RANGES = _table("ranges", lambda rows, o: tables.range_table(rows, bins=o.bins),
                "per key, prompt variant and variable: the mean and the standard deviation (population, numpy's "
                "default) across levels of each level's accuracy and MAE, over every level (range all) and over the "
                "levels of each range of --bins (BYO-Eval's Table 3); beside them the range's pooled accuracy with its "
                "interval clustered by image",
                sections=sections.RANGES)
BY_TRUTH = _table("by_truth", lambda rows, o: tables.truth_table(rows, n_boot=o.n_boot, seed=o.seed),
                  "numeric keys per true value, prompt variants pooled: accuracy, MAE and signed error against the "
                  "answer itself (the true row distance of relative localization, BYO-Eval figures 28-29)",
                  sections=sections.BY_TRUTH)
CONFUSION = _table("confusion", lambda rows, o: tables.confusion_table(rows), sections=sections.CONFUSION)
LOCALIZATION_CELLS = _table("localization_cells", _localization)
LOCALIZATION = _table("localization", _localization,
                      "|row error| + |column error| where both are known (row and column questions of one image "
                      "and prompt variant, cell answers, or position words on the 3 x 3 grid)",
                      also=(LOCALIZATION_CELLS,), sections=sections.LOCALIZATION)
PARSING = _table("parsing", lambda rows, o: tables.status_table(rows), sections=sections.PARSING)
BREAKING_POINT_LEVELS = _table("breaking_point_levels", _breaking_points)
BREAKING_POINTS = _table("breaking_points", _breaking_points,
                         "psychometric curve P = chance + (1 - chance - lapse) F(s b (x - t) + F^-1(c)), F logistic or "
                         "probit, per key and numeric variable (a preset variable by its presets' values: degrees, "
                         "metres, 1 / f-number, light multiplier) and the true count of counting keys, prompt variants "
                         "pooled; chance = the key's guess rate, lapse in [0, 0.1]; threshold t: where accuracy is "
                         "halfway between chance and the ceiling 1 - lapse (criterion c); slope: dP/dx there. Reported "
                         "only where estimable, else 'not estimable: REASON': at least 3 levels; better than a constant "
                         "accuracy (likelihood-ratio test, 2 df, p < 0.05); the curve describes the levels (quasi-binomial "
                         "deviance test p >= 0.05); the threshold strictly inside the tested levels; a 95% interval that "
                         "closes within two ranges of them. Complete separation (a step between two neighbouring levels "
                         "as likely as any curve): 'the threshold lies between levels A and B; slope unbounded'. "
                         "Estimate and interval: maximum likelihood with half a right and half a wrong answer added at "
                         "each level, 95% profile-likelihood interval (steepness and lapse refitted at each threshold; "
                         "chi2(1), or F(1, df) with the dispersion between images of a level scaling the likelihood "
                         "ratios); answer_prior: why a run's answers do not depend on the image (blind, one answer to "
                         "every question): its curve is its answer prior's; counts score |error| <= tolerance; "
                         "subitizing: the largest count up to which every tested count is answered at >= 90%; "
                         "object_px_rendered / object_px_received: the object's height at the threshold in rendered "
                         "pixels and in the pixels the model receives (per level the median height of the legend's "
                         "visible boxes, and that times the row's received scale, interpolated to the threshold), "
                         "null where the rows record no received size",
                         also=(BREAKING_POINT_LEVELS,), sections=sections.BREAKING,
                         fields=("breaking_point",))
STABILITY = _table("stability", _stability,
                   "byo eval --repeats K: agreement = share of questions answered alike (parsed value, or parse "
                   "status) in all K repeats; Fleiss' kappa of those answers (repeats as raters); accuracy per repeat "
                   "with its mean, standard deviation, minimum and maximum",
                   sections=sections.STABILITY)

# in scores.json's order; the shared and the families' declared tables follow (byo.score.registry)
BUILT_IN = (METRICS, RANGES, BY_TRUTH, CONFUSION, LOCALIZATION, PARSING, BREAKING_POINTS)

NO_READABLE = "no readable question: every question was flagged unreadable (questions.unreadable: flag)"


def overall(written: dict[str, list[dict]], facts: dict) -> dict:
    """The metrics row of all questions asked unflagged; when every question was flagged unreadable
    (questions.unreadable: flag) there is none: a row of 0 questions, its metrics empty, says so."""
    pooled = next((r for r in written[METRICS.name]
                   if r["key"] == "*" and r["variant"] == tables.ALL and not r["variable"]), None)
    if pooled is not None:
        return pooled
    return {"run": facts.get("run"), "model": facts.get("model"), "key": "*", "task": "*",
            "answer_type": "*", "variant": tables.ALL, "variable": None, "level": None, "n": 0,
            "accuracy": None, "note": NO_READABLE}
