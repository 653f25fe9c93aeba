"""Psychometric curves: where a model's accuracy breaks down along a numeric variable.

The model (Wichmann & Hill 2001, "The psychometric function I"):

    P(correct | x) = chance + (1 - chance - lapse) * F(s * b * (x - alpha))

with F the logistic or the standard normal distribution function (probit), `chance` the guess
rate of the question (fixed, see `chance_of`), `lapse` the rate of misses a perfectly visible
stimulus still gets (fitted, bounded to [0, MAX_LAPSE]), `b` > 0 the steepness and s = +1 (accuracy
rises with x) or -1 (falls, as with the number of objects to count); both directions are fitted and
the likelier kept. The threshold is where F reaches the criterion c (default 0.5: accuracy halfway
between chance and the ceiling 1 - lapse); the slope is dP/dx there.

Fitting is maximum likelihood on the binomial counts per level: scipy's L-BFGS-B, started from the
best point of a grid, for the fit itself; the bootstrap refits every resample at once with a
damped, projected Fisher scoring in numpy (tests/score/test_psychometric.py checks that both reach the
same maximum).

Intervals resample images (clusters: every question of an image, prompt variants included) within
each level, so the design (images per level) is kept; they are 95% percentile intervals.

Goodness of fit: the deviance against the saturated model (one free proportion per level), divided
by the dispersion between images at the same level (the design effect of correlated questions,
at least 1), as an F test on (levels - 3, images - levels) degrees of freedom: a quasi-binomial
deviance test. A fit with p < 0.05 is "poor": reported, never drawn. A curve no likelier than a
constant accuracy (the same F test on the likelihood ratio, 2 degrees of freedom), or whose
threshold lies outside the tested levels, is "no breaking point in range".
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

from byo.core.stats import clustered_proportion

LINKS = ("logistic", "probit")
MAX_LAPSE = 0.1
CRITERION = 0.5  # of the way from chance to the ceiling
ALPHA = 0.05  # level of the goodness-of-fit and flatness tests
MIN_LEVELS = 3
SUBITIZING = 0.9  # accuracy that counts as answered at a glance
EPS = 1e-9

VERDICT_BREAKS = "breaks"
VERDICT_NONE = "no breaking point in range"
VERDICT_POOR = "poor fit"
VERDICT_FEW = "too few levels"


def link_cdf(link: str, z: np.ndarray) -> np.ndarray:
    return special.expit(z) if link == "logistic" else special.ndtr(z)


def link_pdf(link: str, z: np.ndarray) -> np.ndarray:
    if link == "logistic":
        f = special.expit(z)
        return f * (1 - f)
    return np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi)


def link_ppf(link: str, c: float) -> float:
    return float(special.logit(c) if link == "logistic" else special.ndtri(c))


# --- the data: one record per image -------------------------------------------------------
@dataclass
class Trials:
    """Per image: its level x, its stratum (the level, or a bin of a many-valued variable), hits k of
    n questions. Fits use the counts per distinct x."""

    x: np.ndarray  # per image
    k: np.ndarray
    n: np.ndarray
    stratum: np.ndarray  # int per image
    levels: np.ndarray  # the distinct x, sorted
    level_of: np.ndarray  # per image: index into levels

    @classmethod
    def from_observations(cls, x: Sequence[float], hit: Sequence[bool], image: Sequence[Hashable],
                          max_strata: int = 30, bins: int = 8) -> Trials:
        """One observation per question; questions of one image must share their x."""
        ids: dict = {}
        idx = np.array([ids.setdefault(im, len(ids)) for im in image])
        x = np.asarray(x, float)
        xs = np.full(len(ids), np.nan)
        xs[idx] = x
        k = np.bincount(idx, weights=np.asarray(hit, float), minlength=len(ids))
        n = np.bincount(idx, minlength=len(ids)).astype(float)
        levels, level_of = np.unique(xs, return_inverse=True)
        if len(levels) <= max_strata:
            stratum = level_of
        else:
            edges = np.unique(np.quantile(xs, np.linspace(0, 1, bins + 1)))
            stratum = np.clip(np.searchsorted(edges, xs, side="right") - 1, 0, len(edges) - 2)
        return cls(x=xs, k=k, n=n, stratum=np.asarray(stratum), levels=levels, level_of=level_of)

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Hits and questions per distinct level."""
        L = len(self.levels)
        return (np.bincount(self.level_of, weights=self.k, minlength=L),
                np.bincount(self.level_of, weights=self.n, minlength=L))

    def draws(self, n_boot: int, rng: np.random.Generator) -> np.ndarray:
        """(n_boot, draws) indices of images drawn with replacement within each stratum: m - 1 of a
        stratum's m images (Rao & Wu 1988), whose spread matches the unbiased variance of the
        stratified design (m of m would shrink it by (m - 1) / m)."""
        columns = []
        for s in np.unique(self.stratum):
            members = np.flatnonzero(self.stratum == s)
            size = max(1, len(members) - 1)
            columns.append(members[rng.integers(0, len(members), size=(n_boot, size))])
        return np.concatenate(columns, axis=1)

    def resampled_counts(self, draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Hits and questions per level for each row of `draws`: (n_boot, levels) each."""
        B, L = draws.shape[0], len(self.levels)
        cell = (np.arange(B)[:, None] * L + self.level_of[draws]).ravel()
        k = np.bincount(cell, weights=self.k[draws].ravel(), minlength=B * L).reshape(B, L)
        n = np.bincount(cell, weights=self.n[draws].ravel(), minlength=B * L).reshape(B, L)
        return k, n


# --- the likelihood ---------------------------------------------------------------------------
def predict(theta: np.ndarray, x: np.ndarray, chance: float, link: str, direction: int) -> np.ndarray:
    """theta (..., 3) = (alpha, log b, lapse); x (levels,) -> P (..., levels)."""
    theta = np.asarray(theta, float)
    alpha, b, lapse = theta[..., 0:1], np.exp(theta[..., 1:2]), theta[..., 2:3]
    z = direction * b * (x - alpha)
    return chance + (1 - chance - lapse) * link_cdf(link, z)


def loglik(theta, x, k, n, chance, link, direction) -> np.ndarray:
    p = np.clip(predict(theta, x, chance, link, direction), EPS, 1 - EPS)
    return (k * np.log(p) + (n - k) * np.log1p(-p)).sum(axis=-1)


def score_and_information(theta, x, k, n, chance, link, direction):
    """Gradient of the log-likelihood and the expected (Fisher) information, batched over theta."""
    alpha, b, lapse = theta[:, 0:1], np.exp(theta[:, 1:2]), theta[:, 2:3]
    z = direction * b * (x - alpha)
    F, f = link_cdf(link, z), link_pdf(link, z)
    span = 1 - chance - lapse
    p = np.clip(chance + span * F, EPS, 1 - EPS)
    dp = np.stack([span * f * (-direction * b), span * f * z, -F], axis=-1)  # (B, L, 3)
    w = 1 / (p * (1 - p))
    grad = np.matmul(((k - n * p) * w)[:, None, :], dp)[:, 0, :]
    info = np.matmul(dp.transpose(0, 2, 1) * (n * w)[:, None, :], dp)
    return grad, info


def bounds_for(levels: np.ndarray) -> np.ndarray:
    """Box of (alpha, log b, lapse): thresholds within two ranges of the tested ones, slopes from
    nearly flat to a step between neighbouring levels."""
    lo, hi = float(levels.min()), float(levels.max())
    span = max(hi - lo, 1e-9)
    step = float(np.min(np.diff(levels))) if len(levels) > 1 else span
    return np.array([[lo - 2 * span, hi + 2 * span], [np.log(0.05 / span), np.log(40 / max(step, 1e-9))],
                     [0.0, MAX_LAPSE]])


def fit_batch(theta0: np.ndarray, x: np.ndarray, k: np.ndarray, n: np.ndarray, chance: float, link: str,
              direction: int, box: np.ndarray, iterations: int = 60) -> tuple[np.ndarray, np.ndarray]:
    """Maximum likelihood for each row of k, n (B, levels) from theta0 (B, 3): Levenberg-damped
    Fisher scoring projected on the box; coordinates held at a bound drop out of the step."""
    theta = np.array(theta0, float)
    B = len(theta)
    ll = loglik(theta, x, k, n, chance, link, direction)
    damping = np.full(B, 1e-3)
    eye = np.eye(3)
    for _ in range(iterations):
        grad, info = score_and_information(theta, x, k, n, chance, link, direction)
        held = ((theta <= box[:, 0] + 1e-12) & (grad < 0)) | ((theta >= box[:, 1] - 1e-12) & (grad > 0))
        grad = np.where(held, 0.0, grad)
        free = ~held
        info = info * (free[:, :, None] & free[:, None, :]) + eye * held[:, :, None]
        scale = np.maximum(np.einsum("bii->bi", info), 1e-12)
        system = info + damping[:, None, None] * (eye * scale[:, :, None])
        try:
            step = np.linalg.solve(system, grad[..., None])[..., 0]
        except np.linalg.LinAlgError:
            step = grad / scale
        candidate = np.clip(theta + step, box[:, 0], box[:, 1])
        ll_new = loglik(candidate, x, k, n, chance, link, direction)
        better = ll_new >= ll - 1e-12
        theta = np.where(better[:, None], candidate, theta)
        gain = np.where(better, ll_new - ll, 0.0)
        ll = np.where(better, ll_new, ll)
        damping = np.where(better, np.maximum(damping / 4, 1e-9), damping * 8)
        if np.all((gain < 1e-10) & better | (damping > 1e8)):
            break
    return theta, ll


def _grid_start(x, k, n, chance, link, direction, box) -> np.ndarray:
    lo, hi = float(x.min()), float(x.max())
    span = max(hi - lo, 1e-9)
    alphas = np.linspace(lo - 0.25 * span, hi + 0.25 * span, 29)
    slopes = np.linspace(box[1, 0] + 1.0, box[1, 1] - 0.5, 10)
    lapses = np.array([0.0, 0.02, 0.06])
    grid = np.array(np.meshgrid(alphas, slopes, lapses, indexing="ij")).reshape(3, -1).T
    return grid[np.argmax(loglik(grid, x, k[None], n[None], chance, link, direction))]


def fit_scipy(x, k, n, chance, link, direction, box, start=None) -> tuple[np.ndarray, float]:
    """The maximum likelihood fit of one data set: L-BFGS-B from `start`, or the best grid point."""
    if start is None:
        start = _grid_start(x, k, n, chance, link, direction, box)

    def negative(theta):
        grad, _ = score_and_information(theta[None], x, k[None], n[None], chance, link, direction)
        return -float(loglik(theta[None], x, k[None], n[None], chance, link, direction)[0]), -grad[0]

    result = optimize.minimize(negative, start, jac=True, method="L-BFGS-B", bounds=box,
                               options={"maxiter": 500, "ftol": 1e-12, "gtol": 1e-8})
    return result.x, -float(result.fun)


# --- one curve ----------------------------------------------------------------------------------
@dataclass
class Curve:
    link: str
    direction: int
    theta: np.ndarray  # alpha, log b, lapse
    loglik: float
    chance: float
    criterion: float

    @property
    def lapse(self) -> float:
        return float(self.theta[2])

    def threshold(self, theta: np.ndarray | None = None) -> np.ndarray | float:
        t = self.theta if theta is None else theta
        return t[..., 0] + link_ppf(self.link, self.criterion) / (self.direction * np.exp(t[..., 1]))

    def slope(self, theta: np.ndarray | None = None) -> np.ndarray | float:
        """dP/dx at the threshold: accuracy per unit of the variable (negative when it falls)."""
        t = self.theta if theta is None else theta
        z = link_ppf(self.link, self.criterion)
        return (1 - self.chance - t[..., 2]) * link_pdf(self.link, np.asarray(z)) * self.direction * np.exp(t[..., 1])

    def accuracy_at_threshold(self) -> float:
        return self.chance + (1 - self.chance - self.lapse) * self.criterion

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return predict(self.theta, np.asarray(x, float), self.chance, self.link, self.direction)[..., :]


def fit_curve(trials: Trials, chance: float, link: str = "logistic", criterion: float = CRITERION) -> Curve:
    """The likelier of the rising and the falling curve: both climbed from their grid's best point,
    then the likelier one polished by scipy."""
    k, n = trials.counts()
    x, box = trials.levels, bounds_for(trials.levels)
    climbs = []
    for direction in (1, -1):
        start = _grid_start(x, k, n, chance, link, direction, box)
        theta, ll = fit_batch(start[None], x, k[None], n[None], chance, link, direction, box)
        climbs.append((float(ll[0]), direction, theta[0]))
    _, direction, start = max(climbs, key=lambda c: c[0])
    theta, ll = fit_scipy(x, k, n, chance, link, direction, box, start=start)
    return Curve(link, direction, theta, ll, chance, criterion)


def bootstrap_thetas(curve: Curve, trials: Trials, draws: np.ndarray) -> np.ndarray:
    """The curve refitted to each resample of images (rows of `draws`): (n_boot, 3)."""
    k, n = trials.resampled_counts(draws)
    start = np.repeat(curve.theta[None], len(draws), axis=0)
    theta, _ = fit_batch(start, trials.levels, k, n, curve.chance, curve.link, curve.direction,
                         bounds_for(trials.levels))
    return theta


def _binomial_ll(k, n, p):
    p = np.clip(p, EPS, 1 - EPS)
    return float((k * np.log(p) + (n - k) * np.log1p(-p)).sum())


def dispersion(trials: Trials) -> tuple[float, int]:
    """Between-image dispersion at equal levels (Pearson, per stratum), at least 1, and its degrees
    of freedom (images - strata): 1 when questions are independent given the level."""
    chi2, df = 0.0, 0
    for s in np.unique(trials.stratum):
        m = trials.stratum == s
        p = trials.k[m].sum() / trials.n[m].sum()
        if 0 < p < 1:  # a stratum all right or all wrong says nothing of the dispersion
            chi2 += float((((trials.k[m] - trials.n[m] * p) ** 2) / (trials.n[m] * p * (1 - p))).sum())
            df += int(m.sum()) - 1
    return (max(1.0, chi2 / df) if df > 0 else 1.0), df


def goodness_of_fit(curve: Curve, trials: Trials) -> dict:
    """Quasi-binomial deviance test against the saturated model, and the test against a flat curve."""
    k, n = trials.counts()
    p = curve(trials.levels)
    strata = np.unique(trials.stratum)
    # Observed and expected per stratum (a bin of many-valued levels, or the level itself).
    stratum_of_level = np.zeros(len(trials.levels), dtype=np.int64)
    stratum_of_level[trials.level_of] = trials.stratum
    ks = np.bincount(stratum_of_level, weights=k, minlength=strata.max() + 1)[strata]
    ns = np.bincount(stratum_of_level, weights=n, minlength=strata.max() + 1)[strata]
    expected = np.bincount(stratum_of_level, weights=n * p, minlength=strata.max() + 1)[strata] / ns
    deviance = 2 * (_binomial_ll(ks, ns, ks / ns) - _binomial_ll(ks, ns, expected))
    phi, df_images = dispersion(trials)
    df = len(strata) - 3
    out = {"deviance": deviance, "gof_df": df, "dispersion": phi, "gof_p": None}
    if df > 0:
        f = deviance / df / phi
        out["gof_p"] = float(stats.f.sf(f, df, df_images) if df_images > 0 else stats.chi2.sf(deviance / phi, df))
    flat_ll = _binomial_ll(k, n, np.full_like(k, k.sum() / n.sum()))
    ratio = max(0.0, 2 * (curve.loglik - flat_ll))
    out["flat_p"] = float(stats.f.sf(ratio / 2 / phi, 2, df_images) if df_images > 0
                          else stats.chi2.sf(ratio / phi, 2))
    return out


def subitizing_range(x: np.ndarray, k: np.ndarray, n: np.ndarray, level: float = SUBITIZING) -> float | None:
    """The largest count c such that every tested count from the smallest up to c is answered at
    >= `level` (None when the smallest already is not)."""
    best = None
    for xi, ki, ni in sorted(zip(x, k, n, strict=True)):
        if ni == 0 or ki / ni < level:
            break
        best = float(xi)
    return best


def analyse(trials: Trials, chance: float, *, link: str = "logistic", criterion: float = CRITERION,
            n_boot: int = 1000, rng: np.random.Generator | None = None, draws: np.ndarray | None = None) -> dict:
    """Fit, test and bootstrap one curve; a flat dict (one table row) plus the curve."""
    k, n = trials.counts()
    out = {"link": link, "criterion": criterion, "chance": chance, "n": int(n.sum()), "images": len(trials.x),
           "levels": len(trials.levels), "x_min": float(trials.levels.min()), "x_max": float(trials.levels.max())}
    if len(trials.levels) < MIN_LEVELS:
        return {**out, "verdict": VERDICT_FEW, "note": f"{len(trials.levels)} levels; a curve needs {MIN_LEVELS}"}, None
    curve = fit_curve(trials, chance, link, criterion)
    threshold = float(curve.threshold())
    out.update(direction="falls" if curve.direction < 0 else "rises", threshold=threshold, slope=float(curve.slope()),
               lapse=curve.lapse, alpha=float(curve.theta[0]), beta=float(np.exp(curve.theta[1])),
               loglik=curve.loglik, accuracy_at_threshold=curve.accuracy_at_threshold(),
               **goodness_of_fit(curve, trials))
    inside = out["x_min"] <= threshold <= out["x_max"]
    if out["gof_p"] is not None and out["gof_p"] < ALPHA:
        out.update(verdict=VERDICT_POOR, note=f"deviance test p = {out['gof_p']:.3g}: the curve does not describe the levels")
    elif out["flat_p"] >= ALPHA:
        out.update(verdict=VERDICT_NONE, note=f"no better than a flat accuracy (p = {out['flat_p']:.2g})")
    elif not inside:
        side = "below" if threshold < out["x_min"] else "above"
        out.update(verdict=VERDICT_NONE, note=f"the threshold {threshold:.3g} lies {side} the tested levels")
    else:
        out.update(verdict=VERDICT_BREAKS, note=None)
    if n_boot > 0 and out["verdict"] in (VERDICT_BREAKS, VERDICT_POOR):
        if draws is None:
            draws = trials.draws(n_boot, rng if rng is not None else np.random.default_rng(0))
        thetas = bootstrap_thetas(curve, trials, draws)
        thresholds, slopes = curve.threshold(thetas), curve.slope(thetas)
        ok = np.isfinite(thresholds)
        out.update(threshold_lo=float(np.quantile(thresholds[ok], 0.025)),
                   threshold_hi=float(np.quantile(thresholds[ok], 0.975)),
                   slope_lo=float(np.quantile(slopes[ok], 0.025)), slope_hi=float(np.quantile(slopes[ok], 0.975)),
                   n_boot=int(ok.sum()))
    return out, curve


# --- tables from scored rows -------------------------------------------------------------------
TRUTH = "truth"  # the pseudo-variable of counting keys: the true count
OPEN = ("integer", "label_set", "card_set")  # answers with no fixed set to guess from


def chance_of(rows: Sequence[dict]) -> float:
    """The guess rate of one key's questions: their recorded `chance` when every question has one;
    else 1 / options for multiple choice, 1/2 for yes / no, 1 / (distinct true answers of the key)
    for labels, position words, rows and columns, and 0 for open answers (counts, sets, free text)."""
    recorded = [r["chance"] for r in rows if r.get("chance") is not None]
    if len(recorded) == len(rows):  # the question file says (byo questions records it)
        return float(np.mean(recorded))
    answer_type = rows[0]["answer_type"]
    if answer_type == "multiple_choice":
        return float(np.mean([1 / len(r["choices"]) for r in rows if r.get("choices")] or [0.0]))
    if answer_type == "yes_no":
        return 0.5
    if answer_type in ("label", "position_word", "row", "column"):
        return 1 / len({str(r["answer"]).lower() for r in rows})
    return 0.0


def _numeric(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and np.isfinite(value)


def curve_variables(rows: Sequence[dict]) -> list[str]:
    """Numeric level variables with at least MIN_LEVELS values, and the true count for counting keys."""
    seen: dict[str, set] = {}
    for levels in {r["image"]: r["levels"] for r in rows}.values():  # an image's questions share its levels
        for name, value in levels.items():
            if _numeric(value):
                seen.setdefault(name, set()).add(value)
    out = [name for name, values in seen.items() if len(values) >= MIN_LEVELS]
    if rows[0]["answer_type"] == "integer" and len({r["answer"] for r in rows if _numeric(r["answer"])}) >= MIN_LEVELS:
        out.append(TRUTH)
    return out


def x_of(row: dict, variable: str):
    value = row["answer"] if variable == TRUTH else row["levels"].get(variable)
    return value if _numeric(value) else None


def hit(row: dict, tolerance: float) -> bool:
    """Right, or for counts |error| <= tolerance (an answer that did not parse misses)."""
    if row["answer_type"] == "integer":
        return row["error"] is not None and abs(row["error"]) <= tolerance
    return bool(row["correct"])


def outcome_name(answer_type: str, tolerance: float) -> str:
    if answer_type == "integer" and tolerance:
        return f"|error| <= {tolerance:g}"
    return "correct"


def key_trials(rows: Sequence[dict], variable: str, tolerance: float) -> tuple[Trials, list[dict]] | None:
    used = [r for r in rows if x_of(r, variable) is not None]
    if not used:
        return None
    x = [float(x_of(r, variable)) for r in used]
    # An image's questions share a level; the true count of one key may differ between them only
    # if a template draws its parameters per prompt variant, so the cluster is (image, level).
    return Trials.from_observations(x, [hit(r, tolerance) for r in used],
                                    [(r["image"], xi) for r, xi in zip(used, x, strict=True)]), used


def breaking_point_tables(rows: Sequence[dict], *, n_boot: int = 1000, seed: int = 0, tolerance: float = 0,
                          criterion: float = CRITERION, links: Sequence[str] = LINKS,
                          rng_for=None) -> tuple[list[dict], list[dict]]:
    """One fit row per (key, variable, link) and one point row per (key, variable, level), all
    prompt variants pooled. `rng_for(seed, label)` gives each curve its own random stream."""
    fits, points = [], []
    by_key: dict[str, list[dict]] = {}
    for r in rows:
        by_key.setdefault(r["key"], []).append(r)
    for key, key_rows in by_key.items():
        answer_type = key_rows[0]["answer_type"]
        chance = chance_of(key_rows)
        base = {"run": key_rows[0]["run"], "model": key_rows[0]["model"], "key": key, "task": key_rows[0]["task"],
                "answer_type": answer_type, "outcome": outcome_name(answer_type, tolerance),
                "tolerance": tolerance if answer_type == "integer" else None}
        for variable in curve_variables(key_rows):
            found = key_trials(key_rows, variable, tolerance)
            if found is None:
                continue
            trials, used = found
            at_level: dict[float, list[dict]] = {}
            for r in used:
                at_level.setdefault(float(x_of(r, variable)), []).append(r)
            for level in trials.levels:
                members = at_level[float(level)]
                acc = clustered_proportion([hit(r, tolerance) for r in members], [r["image"] for r in members])
                points.append({**base, "variable": variable, "level": float(level), "n": acc["n"],
                               "images": acc["clusters"], "hits": acc["k"], "accuracy": acc["value"],
                               "accuracy_lo": acc["lo"], "accuracy_hi": acc["hi"], "deff": acc["deff"]})
            label = f"psychometric|{key}|{variable}"
            rng = rng_for(seed, label) if rng_for else np.random.default_rng(seed)
            draws = trials.draws(n_boot, rng) if n_boot > 0 else None
            subitizing = None
            if variable == TRUTH:
                exact = Trials.from_observations([float(r["answer"]) for r in used], [r["correct"] for r in used],
                                                 [r["image"] for r in used])
                subitizing = subitizing_range(exact.levels, *exact.counts())
            for link in links:
                row, _ = analyse(trials, chance, link=link, criterion=criterion, n_boot=n_boot, draws=draws)
                fits.append({**base, "variable": variable, **row,
                             "subitizing": subitizing if variable == TRUTH else None,
                             "clustering": "images resampled within levels"})
    return fits, points


def curve_from_row(row: dict) -> Curve | None:
    """The fitted curve of a table row (to draw it), or None when there is none."""
    if row.get("alpha") is None:
        return None
    theta = np.array([row["alpha"], np.log(row["beta"]), row["lapse"]])
    return Curve(row["link"], -1 if row["direction"] == "falls" else 1, theta, row["loglik"], row["chance"],
                 row["criterion"])
