"""`byo score RUN`: parse a run's answers and write RUN/parsed.jsonl, RUN/scores.json and CSV tables."""

from __future__ import annotations

import contextlib
import csv
import gc
import io
import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from byo import __version__
from byo.core.dataset import atomic_write_text
from byo.core.errors import ConfigError
from byo.core.outputs import check_file_output
from byo.families.base import ScoringOptions
from byo.score import psychometric, registry, stability, tables
from byo.score.judge import Judge, judge_rows
from byo.score.parse import FAMILY_TYPES, STATUSES
from byo.score.rows import PREDICTIONS, load_run, partial_note, run_paths
from byo.score.training import training_answers

PARSED = "parsed.jsonl"
# What the report reads of each row of parsed.jsonl (a file without them is scored again).
ROW_KEYS = frozenset({"id", "image", "key", "variant", "levels", "answer_type", "answer", "response", "status",
                      "value", "correct", "error", "prompt", "note", "candidates", "recall_at_1", "chance"})
SCORES = "scores.json"
# The built-in tables; the declared ones (byo.score.registry: shared and the families') follow.
BUILT_IN = ("metrics", "ranges", "by_truth", "confusion", "localization", "localization_cells", "parsing",
            "breaking_points", "breaking_point_levels", "stability")
TABLES = (*BUILT_IN, *registry.TABLES)
DEFINITIONS = {
    "accuracy": "correct / all questions; ambiguous, refused, unparsed and failed answers count as wrong. "
                "95% interval clustered by image (accuracy_lo/hi: Wilson on the effective sample size n / deff, "
                "deff from the cluster-robust variance, at least 1; accuracy_se: cluster-robust standard error); "
                "accuracy_wilson_lo/hi: the Wilson interval taking questions as independent",
    "parse_rate": "answers parsed to one value / all questions",
    "within_one": "|prediction - truth| <= 1, over all questions (interval clustered by image, like accuracy)",
    "clustering": "every interval treats the questions of one image (its keys and prompt variants) as one cluster: "
                  "bootstraps resample images, proportions use the cluster-robust variance",
    "breaking_points": "psychometric curve P = chance + (1 - chance - lapse) F(s b (x - t) + F^-1(c)), F logistic or "
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
    "errors": "signed error, MAE, MSE, RMSE, NMAE over parsed answers only; `excluded` counts the others "
              "(95% percentile bootstrap resampling images)",
    "nmae": "mean of |prediction - truth| / max(|truth|, 1): relative error, the absolute error when the truth is 0 "
            "(BYO-Eval's text: 'MAE divided by the target if it is different than 0 or MAE'; its code counts 1.0 for "
            "any error at truth 0)",
    "localization": "|row error| + |column error| where both are known (row and column questions of one image "
                    "and prompt variant, cell answers, or position words on the 3 x 3 grid)",
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
    "ranges": "per key, prompt variant and variable: the mean and the standard deviation (population, numpy's "
              "default) across levels of each level's accuracy and MAE, over every level (range all) and over the "
              "levels of each range of --bins (BYO-Eval's Table 3); beside them the range's pooled accuracy with its "
              "interval clustered by image",
    "by_truth": "numeric keys per true value, prompt variants pooled: accuracy, MAE and signed error against the "
                "answer itself (the true row distance of relative localization, BYO-Eval figures 28-29)",
    "precision_yes / recall_yes / f1_yes": "yes/no questions: precision / recall / F1 of the answer yes; an unparsed "
                                           "answer is not yes",
    "stability": "byo eval --repeats K: agreement = share of questions answered alike (parsed value, or parse "
                 "status) in all K repeats; Fleiss' kappa of those answers (repeats as raters); accuracy per repeat "
                 "with its mean, standard deviation, minimum and maximum",
    # and each declared table's own (byo.score.registry)
    **{name: table.definition for name, table in registry.TABLES.items()},
}


NO_READABLE = "no readable question: every question was flagged unreadable (questions.unreadable: flag)"


@dataclass
class Scores:
    facts: dict
    rows: list[dict]
    tables: dict[str, list[dict]] = field(default_factory=dict)
    settings: dict = field(default_factory=dict)
    written: dict[str, Path] = field(default_factory=dict)  # what score_run wrote, by table

    @property
    def overall(self) -> dict:
        """The row of all questions asked unflagged; when every question was flagged unreadable
        (questions.unreadable: flag) there is none: a row of 0 questions, its metrics empty, says so."""
        pooled = next((r for r in self.tables["metrics"]
                       if r["key"] == "*" and r["variant"] == tables.ALL and not r["variable"]), None)
        if pooled is not None:
            return pooled
        return {"run": self.facts.get("run"), "model": self.facts.get("model"), "key": "*", "task": "*",
                "answer_type": "*", "variant": tables.ALL, "variable": None, "level": None, "n": 0,
                "accuracy": None, "note": NO_READABLE}

    @property
    def readable(self) -> bool:
        """Whether any question was asked unflagged (the row of all questions exists)."""
        return "note" not in self.overall

    @property
    def partial(self) -> str | None:
        """"partial: 68 of 330 answered" when some questions of the run have no prediction."""
        return partial_note(self.facts)


def check_complete(scores: Scores, run_dir: Path) -> None:
    """For `require_complete`: a partial run is an error."""
    if scores.partial:
        raise ConfigError(str(Path(run_dir) / PREDICTIONS), [(
            "`require_complete`", f"{scores.partial}; expected every question answered: rerun the same "
                                  "byo eval command to finish the run")])


@contextlib.contextmanager
def cycle_collector_paused():
    """Python's cyclic garbage collector, paused: scored rows are plain dicts and lists without
    cycles, and every full collection would go over all of them again (a second or two for 100k)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def compute(run_dir: Path, *, n_boot: int = 1000, seed: int = 0, require_complete: bool = False,
            tolerance: float = 0, criterion: float = psychometric.CRITERION, bins: tables.Bins | None = None,
            perplexity_model: str | None = None, judge: Judge | None = None) -> Scores:
    with cycle_collector_paused():
        return _compute(run_dir, n_boot=n_boot, seed=seed, require_complete=require_complete, tolerance=tolerance,
                        criterion=criterion, bins=bins, perplexity_model=perplexity_model, judge=judge)


def _compute(run_dir: Path, *, n_boot: int, seed: int, require_complete: bool, tolerance: float,
             criterion: float, bins: tables.Bins | None = None, perplexity_model: str | None = None,
             judge: Judge | None = None) -> Scores:
    rows, facts = load_run(Path(run_dir))
    if require_complete:
        check_complete(Scores(facts=facts, rows=rows), run_dir)
    if not rows:
        raise ConfigError(str(Path(run_dir) / PREDICTIONS), [("<file>", "no predictions to score")])
    if judge is not None:  # the rows the rules could not read, read by a judge (byo.score.judge)
        facts["judge"] = judge_rows(rows, Path(run_dir), judge).to_json()
    repeats = stability.repeat_runs(Path(run_dir))
    stable = []
    if len(repeats) > 1:
        facts["repeats"] = [p.name for p in repeats]
        stable = stability.stability_table([rows] + [load_run(p)[0] for p in repeats[1:]], facts["repeats"])
    return Scores(facts=facts, rows=rows, settings={"bootstrap": n_boot, "seed": seed, "confidence": 0.95,
                                                    "clustering": "image", "tolerance": tolerance,
                                                    "criterion": criterion, "bins": _bins_setting(bins),
                                                    **_judge_setting(facts),
                                                    **({"perplexity_model": perplexity_model} if perplexity_model
                                                       else {})},
                  tables={**all_tables(rows, n_boot=n_boot, seed=seed, tolerance=tolerance, criterion=criterion,
                                       train=family_training(run_dir, rows), bins=bins,
                                       perplexity_model=perplexity_model),
                          "stability": stable})


def _judge_setting(facts: dict) -> dict:
    """The judge that read what the rules could not (its model and prompt template), if one did."""
    judge = facts.get("judge")
    return {"judge": {k: judge[k] for k in ("judge", "template", "template_sha256")}} if judge else {}


def _bins_setting(bins: tables.Bins | None) -> dict[str, list[list[float]]]:
    return {var: [[lo, hi] for lo, hi in ranges] for var, ranges in (bins or {}).items()}


def family_training(run_dir: Path, rows: list[dict]) -> dict[str, list]:
    """The training labels of the run's dataset for the keys a family table measures."""
    keys = {r["key"] for r in rows if r["answer_type"] in FAMILY_TYPES
            and FAMILY_TYPES[r["answer_type"]].table is not None}
    return training_answers(run_paths(Path(run_dir))[0], keys) if keys else {}


def all_tables(rows: list[dict], *, n_boot: int, seed: int, tolerance: float = 0,
               criterion: float = psychometric.CRITERION, train: dict[str, list] | None = None,
               bins: tables.Bins | None = None, perplexity_model: str | None = None) -> dict[str, list[dict]]:
    """Every table of scored rows: the built-in ones but stability, which needs the repeats, and the
    declared ones (byo.score.registry); `perplexity_model`: the language model of perplexity checks
    (None: skipped)."""
    metric = tables.metric_table(rows, n_boot=n_boot, seed=seed)  # every level; --bins adds ranges.csv
    loc, loc_cells = tables.localization_tables(rows, n_boot=n_boot, seed=seed)
    fits, points = psychometric.breaking_point_tables(rows, tolerance=tolerance, criterion=criterion)
    return {"metrics": metric, "ranges": tables.range_table(rows, bins=bins),
            "by_truth": tables.truth_table(rows, n_boot=n_boot, seed=seed), "confusion": tables.confusion_table(rows), "localization": loc,
            "localization_cells": loc_cells,
            "parsing": tables.status_table(rows), "breaking_points": fits, "breaking_point_levels": points,
            **registry.measure(rows, train, ScoringOptions(n_boot=n_boot, seed=seed,
                                                           perplexity_model=perplexity_model))}


def _clean(value):
    """JSON-safe: NaN and infinities become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


_STRICT_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False)  # one for every row


def json_line(row: dict) -> str:
    """The row as one line of JSON, NaN and infinities as null; most rows have none, and skip the
    copy `_clean` makes."""
    try:
        return _STRICT_JSON.encode(row) + "\n"
    except ValueError:
        return json.dumps(_clean(row), ensure_ascii=False) + "\n"


def to_csv(rows: list[dict]) -> str:
    fields = list(dict.fromkeys(k for r in rows for k in r))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: (round(v, 6) if isinstance(v, float) else v) for k, v in _clean(r).items()})
    return buffer.getvalue()


def write(scores: Scores, run_dir: Path) -> dict[str, Path]:
    run_dir = Path(run_dir)
    paths = {"parsed": run_dir / PARSED, "scores": run_dir / SCORES}
    atomic_write_text(paths["parsed"], "".join(json_line(r) for r in scores.rows))
    counts = Counter(r["status"] for r in scores.rows)
    doc = {"byo_version": __version__, "run": scores.facts, "settings": scores.settings, "definitions": DEFINITIONS,
           "statuses": {s: counts[s] for s in STATUSES}, "overall": scores.overall, "tables": scores.tables}
    atomic_write_text(paths["scores"], json.dumps(_clean(doc), indent=1, ensure_ascii=False) + "\n")
    for name in scores.tables:  # the shared TABLES and each family's own
        if scores.tables[name]:
            paths[name] = run_dir / f"{name}.csv"
            atomic_write_text(paths[name], to_csv(scores.tables[name]))
    return paths


def score_run(run_dir: Path, *, n_boot: int = 1000, seed: int = 0, require_complete: bool = False,
              tolerance: float = 0, criterion: float = psychometric.CRITERION,
              bins: tables.Bins | None = None, perplexity_model: str | None = None,
              judge: Judge | None = None) -> tuple[Scores, dict[str, Path]]:
    """Nothing is written when `require_complete` and the run is partial, nor over a link. `judge`:
    the answers the rules leave unparsed or ambiguous are read by it (byo.score.judge)."""
    for path in [Path(run_dir) / PARSED, Path(run_dir) / SCORES, *Path(run_dir).glob("*.csv")]:
        check_file_output(path, force=False, flag="RUN", own_place=True)
    scores = compute(run_dir, n_boot=n_boot, seed=seed, require_complete=require_complete, tolerance=tolerance,
                     criterion=criterion, bins=bins, perplexity_model=perplexity_model, judge=judge)
    with cycle_collector_paused():
        scores.written = write(scores, run_dir)
    return scores, scores.written


def load_scores(run_dir: Path, *, n_boot: int = 1000, seed: int = 0, require_complete: bool = False,
                tolerance: float = 0, criterion: float = psychometric.CRITERION,
                bins: tables.Bins | None = None) -> Scores:
    """The run's written scores, or fresh ones when they are missing, older than the predictions,
    written by an older byo (before runs were marked partial, or without breaking points), with
    another tolerance, criterion or bins, or when they do not read (they are made from the predictions
    again, never trusted half)."""
    run_dir = Path(run_dir)
    scores = _written_scores(run_dir, tolerance, criterion, _bins_setting(bins))
    if scores is None:
        return score_run(run_dir, n_boot=n_boot, seed=seed, require_complete=require_complete, tolerance=tolerance,
                         criterion=criterion, bins=bins)[0]
    if require_complete:
        check_complete(scores, run_dir)
    return scores


def _written_scores(run_dir: Path, tolerance: float, criterion: float, bins: dict | None = None) -> Scores | None:
    scores_path, parsed_path, predictions = run_dir / SCORES, run_dir / PARSED, run_dir / PREDICTIONS
    fresh = (scores_path.is_file() and parsed_path.is_file() and predictions.is_file()
             and all(scores_path.stat().st_mtime >= (p / PREDICTIONS).stat().st_mtime
                     for p in stability.repeat_runs(run_dir)))
    if not fresh:
        return None
    try:
        doc = json.loads(scores_path.read_bytes())
        settings = doc.get("settings") or {}
        if (not isinstance(doc.get("run"), dict) or "partial" not in doc["run"]
                or "breaking_points" not in doc.get("tables", {}) or "ranges" not in doc.get("tables", {})
                or any("breaking_point" not in f for f in doc["tables"]["breaking_points"])
                or not set(registry.TABLES) <= set(doc.get("tables", {}))  # written before a table was declared
                or (settings.get("tolerance"), settings.get("criterion"), settings.get("bins"))
                != (tolerance, criterion, bins or {})):
            return None
        rows = [json.loads(line) for line in parsed_path.read_bytes().splitlines() if line.strip()]
        scores = Scores(facts=doc["run"], rows=rows, tables=doc["tables"], settings=doc["settings"])
        if not all(isinstance(r, dict) and ROW_KEYS <= r.keys() for r in rows) \
                or not isinstance(scores.tables, dict) or not isinstance(scores.settings, dict):
            return None
        scores.overall  # noqa: B018 -- the tables the report needs are there
    except (ValueError, RecursionError, KeyError, TypeError, AttributeError, StopIteration):
        return None
    return scores
