"""`byo compare RUN_A RUN_B`: two runs over the same questions, question by question.

Per question key and per level of every varying variable (prompt variants pooled), and over all
questions:
- the accuracy of each run and the difference A - B;
- the 95% interval of that difference: Newcombe's hybrid score interval for paired proportions
  (Newcombe 1998, method 10), with an image's questions as one cluster (each accuracy's Wilson
  interval on its effective sample size, the correlation of the two accuracies' cluster-robust
  estimates, t(0.975, images - 1) for z: `byo.core.stats.PairedProportions`). It never leaves
  [-100%, +100%];
- the clustered test of that difference (`p_clustered`, `test`): the score test the interval
  inverts, so that the interval excludes 0 exactly when p < 0.05; where every image differs alike
  (no spread between images, as blind always wrong and oracle always right), the exact sign test
  over images instead (each image one observation: 6 of 6 one way, p = 2 / 2^6 = 0.031);
- the multiple-comparison correction (Holm by default, Benjamini-Hochberg with `correction="bh"`)
  over every row but the first (all questions, the primary test): the adjusted p-value, and the
  interval at the level the row's adjusted test is run at (Holm: 1 - 0.05 / (m - j + 1) for the j-th
  smallest p while they are rejected, 1 - 0.05 / (m - R) for the others, R the rejections; BH:
  1 - R 0.05 / m, Benjamini & Yekutieli's false-coverage-rate intervals), so that the adjusted
  interval excludes 0 exactly when the adjusted p-value is under 0.05 (with the score test);
- McNemar's exact test (the two-sided binomial test of the discordant pairs), which takes the
  questions as independent, beside it for reference, with its adjusted p-value; it decides nothing;
- for each curve both runs have (byo score's breaking points, logistic), the difference of the
  thresholds with a paired bootstrap interval (the same images drawn for both runs).

A row's verdict names the better run when its adjusted p-value is under 0.05 (`verdict`; the
unadjusted p-value's is `verdict_unadjusted`): with the score test, exactly when its adjusted
interval excludes 0. A row of one image, or whose images all differ by 0, has no test: its
`interval_note` says why, summed up in one line in the terminal and the report.
"""

from __future__ import annotations

import gc
import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import scipy  # scipy.stats loads on first use

from byo.core.dataset import atomic_write_text
from byo.core.errors import ARGUMENTS, ConfigError
from byo.core.stats import PairedProportions, cluster_index, cluster_sign_test
from byo.score import psychometric as psy
from byo.score.metrics import rng_for
from byo.score.run import Scores, json_line, to_csv
from byo.score.tables import Levels

ALPHA = 0.05
TEST_SCORE = "score"  # the test Newcombe's interval inverts
TEST_SIGN = "sign"  # the exact sign test over images, where every image differs alike
TEST_NAMES = {TEST_SCORE: "Newcombe's score test (clustered)", TEST_SIGN: "sign test over images (exact)"}
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


def _paired(values_a: Sequence[bool], values_b: Sequence[bool], images: Sequence[str]) -> dict:
    a = np.asarray(values_a, float)
    b = np.asarray(values_b, float)
    d = a - b
    n = len(d)
    a_only, b_only = int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum())
    p_mcnemar = float(scipy.stats.binomtest(a_only, a_only + b_only, 0.5).pvalue) if a_only + b_only else 1.0
    index = cluster_index(images)
    cluster, g = index
    resid = np.bincount(cluster, weights=d - d.mean(), minlength=g)
    se = math.sqrt((resid ** 2).sum() / n ** 2 * (g / (g - 1))) if g > 1 else 0.0
    out = {"n": n, "images": g, "accuracy_a": float(a.mean()), "accuracy_b": float(b.mean()),
           "difference": float(d.mean()), "a_only": a_only, "b_only": b_only, "p_mcnemar": p_mcnemar,
           "se_clustered": se, "df": g - 1, "test": None, "p_clustered": None, "difference_lo": None,
           "difference_hi": None, "images_a_better": None, "images_b_better": None, "interval_note": None,
           "_paired": PairedProportions.of(a, b, index)}
    if g < 2:
        out["interval_note"] = "one image: no spread between images to test the difference against"
        return out
    per_image = np.bincount(cluster, weights=d, minlength=g) / np.bincount(cluster, minlength=g)
    out["images_a_better"], out["images_b_better"] = int((per_image > 0).sum()), int((per_image < 0).sum())
    if se < 1e-12 * max(1.0, abs(d.mean())):
        if d.mean() == 0:
            out["interval_note"] = f"all {g} images differ by 0 (each run as often right on every image): nothing to test"
            return out
        out["test"] = TEST_SIGN
        out["p_clustered"] = cluster_sign_test(per_image)[0]
    else:
        out["test"] = TEST_SCORE
        out["p_clustered"] = out["_paired"].p_value()
    out["difference_lo"], out["difference_hi"] = _interval(out, ALPHA)
    return out


def _interval(row: dict, alpha: float) -> tuple[float, float]:
    """The (1 - alpha) Newcombe interval of a row's difference."""
    return row["_paired"].interval(1 - alpha)


def _verdict(row: dict, p: float | None) -> str:
    """The test's verdict at ALPHA; with the score test, exactly where the row's interval at the
    same level excludes 0."""
    if p is None:
        return "not testable"
    if p < ALPHA:
        return "A better" if row["difference"] > 0 else "B better"
    return "no difference shown"


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


def adjusted_p_values(p: Sequence[float], correction: str) -> np.ndarray:
    """statsmodels' adjusted p-values (multipletests) for `correction` (CORRECTIONS). Its Holm
    branch runs gc.collect() on every call: 0.2-0.3 s in a process holding a large heap (a
    report, a test session). With the heap frozen, that collection skips what was there before.
    statsmodels brings pandas (most of a second of start-up): imported when a family is adjusted."""
    from statsmodels.stats.multitest import multipletests

    gc.freeze()
    try:
        return multipletests(p, method=CORRECTIONS[correction])[1]
    finally:
        gc.unfreeze()


def adjusted_levels(p: Sequence[float], correction: str, alpha: float = ALPHA) -> np.ndarray:
    """The level each p-value of a family is tested at by the step-wise correction: p_i < level_i
    exactly when its adjusted p-value is under alpha. Holm: alpha / (m - j + 1) for the j-th smallest
    while they are rejected, alpha / (m - R) after R rejections; Benjamini-Hochberg: R alpha / m for
    all (alpha / m without a rejection)."""
    p = np.asarray(p, float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    rank = np.arange(1, m + 1)
    if correction == "holm":
        passes = ranked < alpha / (m - rank + 1)
        rejected = int(np.argmin(passes)) if not passes.all() else m
        levels = np.where(rank <= rejected, alpha / (m - rank + 1), alpha / max(m - rejected, 1))
    else:
        passing = np.flatnonzero(ranked < rank * alpha / m)
        rejected = int(passing[-1]) + 1 if len(passing) else 0
        levels = np.full(m, max(rejected, 1) * alpha / m)
    out = np.empty(m)
    out[order] = levels
    return out


def where(r: dict) -> str:
    """A row's name for people: "all questions", a key, or a key, variable and level."""
    return "all questions" if r["key"] == "*" else " ".join(x for x in (r["key"], r["variable"], r["level"]) if x)


def testing_summary(table: list[dict]) -> list[str]:
    """At most two lines for the whole table, in place of a note per row: the rows tested with the
    sign test over images (every image differing alike), and the rows without a test, grouped by why."""
    lines = []
    signed = [r for r in table if r["test"] == TEST_SIGN]
    if signed:
        named = ", ".join(f"{where(r)} ({r['images_a_better'] or r['images_b_better']} of {r['images']})"
                          for r in signed[:MAX_EXAMPLES])
        lines.append(f"{len(signed)} of {len(table)} rows have every image differing alike (no spread for the score "
                     f"test): tested with the exact sign test over images, e.g. {named}"
                     + (f" and {len(signed) - MAX_EXAMPLES} more" if len(signed) > MAX_EXAMPLES else ""))
    untested = [r for r in table if r["p_clustered"] is None]
    if untested:
        why: dict[str, list[str]] = {}
        for r in untested:
            why.setdefault("one image" if r["images"] < 2 else "every image differing by 0", []).append(where(r))
        lines.append(f"{len(untested)} of {len(table)} rows have no test: " + "; ".join(
            f"{reason} ({len(names)}: {', '.join(names[:MAX_EXAMPLES])}"
            + (f" and {len(names) - MAX_EXAMPLES} more)" if len(names) > MAX_EXAMPLES else ")")
            for reason, names in why.items()))
    return lines


def _adjust(table: list[dict], correction: str) -> None:
    """Adjusted p-values, levels, intervals and verdicts over every testable row but the first (all
    questions: the primary test, at 95%). McNemar's p-values are adjusted over the same rows."""
    first = table[0]
    first.update(p_clustered_adjusted=first["p_clustered"], p_mcnemar_adjusted=first["p_mcnemar"],
                 confidence_adjusted=1 - ALPHA if first["p_clustered"] is not None else None)
    family = [r for r in table[1:] if r["p_clustered"] is not None]
    for r in table[1:]:
        r.update(p_clustered_adjusted=None, p_mcnemar_adjusted=None, confidence_adjusted=None)
    if family:
        for name in ("p_clustered", "p_mcnemar"):
            adjusted = adjusted_p_values([r[name] for r in family], correction)
            for r, p in zip(family, adjusted, strict=True):
                r[f"{name}_adjusted"] = float(p)
        for r, level in zip(family, adjusted_levels([r["p_clustered"] for r in family], correction), strict=True):
            r["confidence_adjusted"] = 1 - float(level)
    for r in table:
        if r["confidence_adjusted"] is None:
            r["difference_adjusted_lo"] = r["difference_adjusted_hi"] = None
        else:
            r["difference_adjusted_lo"], r["difference_adjusted_hi"] = _interval(r, 1 - r["confidence_adjusted"])
        r["verdict_unadjusted"] = _verdict(r, r["p_clustered"])
        r["verdict"] = _verdict(r, r["p_clustered_adjusted"])
        del r["_paired"]


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
            lo, hi = (float(q) for q in np.quantile(diffs, [0.025, 0.975]))
            if not lo < row["difference"] < hi:  # a resampling that cannot move the fits says nothing
                row.update(difference_lo=None, difference_hi=None, p_bootstrap=None,
                           note="not estimable: the paired bootstrap interval does not enclose the difference")
            else:
                p = 2 * min(float((diffs <= 0).mean()), float((diffs >= 0).mean()))
                row.update(difference_lo=lo, difference_hi=hi, p_bootstrap=min(1.0, p),
                           note=None if lo > 0 or hi < 0 else "the interval contains 0")
        out.append(row)
    return out


def compare(a: Scores, b: Scores, *, n_boot: int = 1000, seed: int = 0, correction: str = "holm",
            tolerance: float | None = None, criterion: float | None = None) -> dict:
    """The comparison of two scored runs over the same questions (ConfigError otherwise)."""
    if correction not in CORRECTIONS:
        raise ConfigError(ARGUMENTS, [("correction", f"expected one of {', '.join(CORRECTIONS)}, "
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
        stats_ = _paired([ra["correct"] for ra, _ in cell], [rb["correct"] for _, rb in cell],
                         [ra["image"] for ra, _ in cell])
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
