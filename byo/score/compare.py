"""`byo compare RUN_A RUN_B`: two runs over the same questions, question by question.

Per question key and per level of every varying variable (prompt variants pooled), and over all
questions:
- the accuracy of each run and the difference A - B;
- McNemar's exact test: the two-sided binomial test of the discordant pairs (A right and B wrong
  against A wrong and B right), which takes the questions as independent;
- the same difference tested with the questions of one image as one cluster: a 95% percentile
  interval from a paired bootstrap resampling images, and a Wald test on the cluster-robust (CR1)
  standard error of the paired difference (the clustered McNemar test);
- the multiple-comparison correction (Holm by default, Benjamini-Hochberg with `correction="bh"`)
  over every row but the first (all questions, the primary test), for both p-values;
- for each curve both runs have (byo score's breaking points, logistic), the difference of the
  thresholds with a paired bootstrap interval (the same images drawn for both runs).

A row's verdict names the better run only when both of its adjusted p-values are under 0.05.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests

from byo.core.dataset import atomic_write_text
from byo.core.errors import ConfigError
from byo.score import psychometric as psy
from byo.score.metrics import bootstrap_mean, rng_for
from byo.score.run import Scores, json_line, to_csv
from byo.score.tables import Levels

ALPHA = 0.05
CORRECTIONS = {"holm": "holm", "bh": "fdr_bh"}
CORRECTION_NAMES = {"holm": "Holm (family-wise error)", "bh": "Benjamini-Hochberg (false discovery rate)"}
MAX_EXAMPLES = 3


def _question_map(scores: Scores) -> dict[str, tuple]:
    """id -> what makes a question the same question: from the run's question file, else its rows."""
    path = Path(scores.facts.get("questions") or "")
    out = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            if line.strip():
                q = json.loads(line)
                out[q["id"]] = (q["key"], q["prompt"], json.dumps(q["answer"], sort_keys=True), q["image"])
        return out
    return {r["id"]: (r["key"], r["prompt"], json.dumps(r["answer"], sort_keys=True), r["image"]) for r in scores.rows}


def question_difference(a: Scores, b: Scores) -> str | None:
    """What makes the two runs' questions differ, or None when they are the same questions."""
    qa, qb = _question_map(a), _question_map(b)
    only_a, only_b = sorted(set(qa) - set(qb)), sorted(set(qb) - set(qa))
    changed = sorted(i for i in set(qa) & set(qb) if qa[i] != qb[i])
    parts = []
    for what, ids in ((f"only in {a.facts['run']}", only_a), (f"only in {b.facts['run']}", only_b),
                      ("with another prompt, answer or image", changed)):
        if ids:
            parts.append(f"{len(ids)} questions {what} (e.g. {', '.join(repr(i) for i in ids[:MAX_EXAMPLES])})")
    return "; ".join(parts) or None


def check_same_questions(a: Scores, b: Scores) -> None:
    problem = question_difference(a, b)
    if problem:
        raise ConfigError(str(b.facts.get("run_dir") or b.facts["run"]), [(
            "questions", f"runs over different questions: {problem}; byo compare pairs the answers of the same "
                         f"questions: compare runs of one question file ({a.facts.get('questions')})")])


def _paired(values_a: Sequence[bool], values_b: Sequence[bool], images: Sequence[str], *, n_boot: int, seed: int,
            label: str) -> dict:
    a = np.asarray(values_a, float)
    b = np.asarray(values_b, float)
    d = a - b
    n = len(d)
    a_only, b_only = int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum())
    p_mcnemar = float(stats.binomtest(a_only, a_only + b_only, 0.5).pvalue) if a_only + b_only else 1.0
    ids: dict = {}
    index = np.array([ids.setdefault(i, len(ids)) for i in images])
    g = len(ids)
    resid = np.bincount(index, weights=d - d.mean(), minlength=g)
    se = math.sqrt((resid ** 2).sum() / n ** 2 * (g / (g - 1))) if g > 1 else 0.0
    p_clustered = float(2 * stats.norm.sf(abs(d.mean()) / se)) if se > 0 else (1.0 if d.mean() == 0 else 0.0)
    boot = bootstrap_mean(d, images, n_boot=n_boot, seed=seed, label=label)
    return {"n": n, "images": g, "accuracy_a": float(a.mean()), "accuracy_b": float(b.mean()),
            "difference": float(d.mean()), "difference_lo": boot["lo"], "difference_hi": boot["hi"],
            "interval_note": boot["flag"], "a_only": a_only, "b_only": b_only, "p_mcnemar": p_mcnemar,
            "se_clustered": se, "p_clustered": p_clustered}


def _cells(rows: list[tuple[dict, dict]]):
    """(key, variable, level, pairs): all questions, each key, and each level of each variable per key."""
    yield "*", "", "", rows
    by_key: dict[str, list] = {}
    for pair in rows:
        by_key.setdefault(pair[0]["key"], []).append(pair)
    levels = Levels([ra for ra, _ in rows])
    for key, pairs in by_key.items():
        yield key, "", "", pairs
        for variable in levels.variables:
            by_level: dict[str, list] = {}
            for pair in pairs:
                label = levels.of(pair[0], variable)
                if label is not None:
                    by_level.setdefault(label, []).append(pair)
            for level in levels.order[variable]:
                if level in by_level:
                    yield key, variable, level, by_level[level]


def _adjust(table: list[dict], correction: str) -> None:
    """Adjusted p-values over every row but the first (all questions: the primary test)."""
    for name in ("p_mcnemar", "p_clustered"):
        table[0][f"{name}_adjusted"] = table[0][name]
        family = table[1:]
        if family:
            adjusted = multipletests([r[name] for r in family], method=CORRECTIONS[correction])[1]
            for r, p in zip(family, adjusted, strict=True):
                r[f"{name}_adjusted"] = float(p)
    for r in table:
        shown = r["p_mcnemar_adjusted"] < ALPHA and r["p_clustered_adjusted"] < ALPHA
        r["verdict"] = ("A better" if r["difference"] > 0 else "B better") if shown else "no difference shown"


def threshold_differences(a: Scores, b: Scores, pairs: list[tuple[dict, dict]], *, n_boot: int, seed: int,
                          tolerance: float, criterion: float) -> list[dict]:
    """Thresholds of the curves both runs break on (logistic), refitted on the paired questions, and a
    paired bootstrap of their difference: the same images drawn for both runs."""
    out = []
    fits_a = {(f["key"], f["variable"]): f for f in a.tables.get("breaking_points", []) if f["link"] == "logistic"}
    fits_b = {(f["key"], f["variable"]): f for f in b.tables.get("breaking_points", []) if f["link"] == "logistic"}
    by_key: dict[str, list] = {}
    for pair in pairs:
        by_key.setdefault(pair[0]["key"], []).append(pair)
    for (key, variable), fa in fits_a.items():
        fb = fits_b.get((key, variable))
        if fb is None or key not in by_key:
            continue
        row = {"key": key, "variable": variable, "verdict_a": fa["verdict"], "verdict_b": fb["verdict"],
               "threshold_a": fa.get("threshold"), "threshold_b": fb.get("threshold")}
        if not (fa["verdict"] == fb["verdict"] == psy.VERDICT_BREAKS):
            out.append({**row, "difference": None, "note": "a threshold needs a breaking point in both runs"})
            continue
        used = [(ra, rb) for ra, rb in by_key[key] if psy.x_of(ra, variable) is not None]
        trials = [psy.key_trials([p[i] for p in used], variable, tolerance)[0] for i in (0, 1)]
        chance = psy.chance_of([p[0] for p in used])
        curves = [psy.fit_curve(t, chance, "logistic", criterion) for t in trials]
        thresholds = [float(c.threshold()) for c in curves]
        row.update(threshold_a=thresholds[0], threshold_b=thresholds[1], difference=thresholds[0] - thresholds[1])
        if n_boot > 0:
            draws = trials[0].draws(n_boot, rng_for(seed, f"compare|{key}|{variable}"))
            diffs = (curves[0].threshold(psy.bootstrap_thetas(curves[0], trials[0], draws))
                     - curves[1].threshold(psy.bootstrap_thetas(curves[1], trials[1], draws)))
            lo, hi = np.quantile(diffs, [0.025, 0.975])
            p = 2 * min(float((diffs <= 0).mean()), float((diffs >= 0).mean()))
            row.update(difference_lo=float(lo), difference_hi=float(hi), p_bootstrap=min(1.0, p),
                       note=None if lo > 0 or hi < 0 else "the interval contains 0")
        out.append(row)
    return out


def compare(a: Scores, b: Scores, *, n_boot: int = 1000, seed: int = 0, correction: str = "holm",
            tolerance: float | None = None, criterion: float | None = None) -> dict:
    """The comparison of two scored runs over the same questions (ConfigError otherwise)."""
    if correction not in CORRECTIONS:
        raise ConfigError("<command line>", [("--correction", f"expected one of {', '.join(CORRECTIONS)}, "
                                              f"got {correction!r}")])
    check_same_questions(a, b)
    tolerance = a.settings.get("tolerance", 0) if tolerance is None else tolerance
    criterion = a.settings.get("criterion", psy.CRITERION) if criterion is None else criterion
    rows_b = {r["id"]: r for r in b.rows}
    pairs = [(ra, rows_b[ra["id"]]) for ra in a.rows if ra["id"] in rows_b]
    if not pairs:
        raise ConfigError(str(b.facts.get("run_dir") or b.facts["run"]), [("predictions", "no question is answered "
                                                                          "in both runs")])
    table = []
    for key, variable, level, cell in _cells(pairs):
        label = f"compare|{key}|{variable}={level}"
        stats_ = _paired([ra["correct"] for ra, _ in cell], [rb["correct"] for _, rb in cell],
                         [ra["image"] for ra, _ in cell], n_boot=n_boot, seed=seed, label=label)
        table.append({"key": key, "variable": variable, "level": level, **stats_})
    _adjust(table, correction)
    return {
        "a": {k: a.facts.get(k) for k in ("run", "model", "run_dir", "answered", "asked")},
        "b": {k: b.facts.get(k) for k in ("run", "model", "run_dir", "answered", "asked")},
        "paired": len(pairs), "questions": a.facts.get("questions"),
        "settings": {"bootstrap": n_boot, "seed": seed, "correction": CORRECTION_NAMES[correction],
                     "alpha": ALPHA, "clustering": "image (all questions of an image and its prompt variants)",
                     "tolerance": tolerance, "criterion": criterion},
        "differences": table,
        "thresholds": threshold_differences(a, b, pairs, n_boot=n_boot, seed=seed, tolerance=tolerance,
                                            criterion=criterion),
    }


def default_output(a: Scores, b: Scores) -> Path:
    dataset = Path(a.facts.get("dataset") or ".")
    return dataset / "comparisons" / f"{a.facts['run']}--{b.facts['run']}"


def write_comparison(result: dict, out: Path) -> dict[str, Path]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"comparison": out / "comparison.json", "differences": out / "differences.csv"}
    atomic_write_text(paths["comparison"], json_line(result))
    atomic_write_text(paths["differences"], to_csv(result["differences"]))
    if result["thresholds"]:
        paths["thresholds"] = out / "thresholds.csv"
        atomic_write_text(paths["thresholds"], to_csv(result["thresholds"]))
    return paths
