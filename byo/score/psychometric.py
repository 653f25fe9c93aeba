"""Psychometric curves: where a model's accuracy breaks down along a numeric variable.

The model (Wichmann & Hill 2001, "The psychometric function I"):

    P(correct | x) = chance + (1 - chance - lapse) * F(s * b * (x - t) + F^-1(c))

with F the logistic or the standard normal distribution function (probit), `chance` the guess
rate of the question (fixed, see `chance_of`), `lapse` the rate of misses a perfectly visible
stimulus still gets (fitted, bounded to [0, MAX_LAPSE]), `b` > 0 the steepness and s = +1 (accuracy
rises with x) or -1 (falls, as with the number of objects to count); both directions are fitted and
the likelier kept. `t` is the threshold itself: where F reaches the criterion c (default 0.5:
accuracy halfway between chance and the ceiling 1 - lapse); the slope is dP/dx there.

Fitting is maximum likelihood on the binomial counts per level, by a damped Fisher scoring
projected on a box of the parameters, batched over data sets (tests/score/test_psychometric.py
checks it against scipy's L-BFGS-B).

An estimate is reported only where the data carry one; each check, in this order, otherwise
makes the row "not estimable: REASON" (`Breaking.describe`), never a number:
- levels: at least MIN_LEVELS tested levels with answers;
- a curve at all: the curve against a constant accuracy, a likelihood-ratio test on 2 degrees of
  freedom (scaled by the dispersion, below) with p < 0.05;
- complete separation: when a step between two neighbouring tested levels A and B is as likely as
  any curve, the slope is unbounded and the data say only that "the threshold lies between levels
  A and B" (`VERDICT_BETWEEN`, with its interval, never a point);
- shape: a quasi-binomial deviance test against one free proportion per level, p >= 0.05;
- range: the threshold lies strictly inside the tested levels (data on both sides of it);
- an interval: the 95% profile-likelihood interval of the threshold closes inside the search box
  (two ranges beyond the tested levels).

Intervals are profile-likelihood intervals: the thresholds t whose best curve (steepness and lapse
refitted with t held) is not rejected against the best curve overall, 2 (logL - logL_t) / phi
under the 95% point of chi2(1) (F(1, df) when the dispersion is estimated). They contain the
estimate by construction and have positive width; a separated fit's interval contains [A, B].

Dispersion: questions of one image (prompt variants, keys) are correlated; the Pearson dispersion
between images at the same level (at least 1; images with one question carry no information on
it) scales every likelihood ratio: a quasi-likelihood.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import scipy  # scipy.special and scipy.stats load on first use (a report that fits nothing never pays)

from byo.core.stats import clustered_proportion
from byo.scene.setup import preset_number
from byo.score.trials import Trials, dispersion

LINKS = ("logistic", "probit")
MAX_LAPSE = 0.1
CRITERION = 0.5  # of the way from chance to the ceiling
ALPHA = 0.05  # level of the flatness and goodness-of-fit tests
CONFIDENCE = 0.95
MIN_LEVELS = 3
SUBITIZING = 0.9  # accuracy that counts as answered at a glance
EPS = 1e-9
SEPARATION_TOLERANCE = 1e-4  # log-likelihood units: a step this close to the best curve is as likely
PROFILE_GRID = 49  # thresholds tried across the box before the interval's ends are bisected
BISECTIONS = 14
PSEUDO = 0.5  # right and wrong answers added at each level for the estimate and its interval

VERDICT_BREAKS = "breaks"
VERDICT_BETWEEN = "between levels"
VERDICT_NOT = "not estimable"
ESTIMATED = (VERDICT_BREAKS, VERDICT_BETWEEN)


def link_cdf(link: str, z: np.ndarray) -> np.ndarray:
    return scipy.special.expit(z) if link == "logistic" else scipy.special.ndtr(z)


def link_pdf(link: str, z: np.ndarray) -> np.ndarray:
    if link == "logistic":
        f = scipy.special.expit(z)
        return f * (1 - f)
    return np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi)


def link_ppf(link: str, c: float) -> float:
    return float(scipy.special.logit(c) if link == "logistic" else scipy.special.ndtri(c))


# --- the likelihood ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Shape:
    """What a fit holds fixed: the guess rate, the link, the direction (+1 rises, -1 falls) and the
    criterion. Parameters theta (..., 3) = (threshold t, log steepness b, lapse). A batch of rows may
    have a guess rate each: chance (B, 1), taken along with its rows (`rows`, `repeat`)."""

    chance: float | np.ndarray
    link: str = "logistic"
    direction: int = 1
    criterion: float = CRITERION

    @property
    def z_criterion(self) -> float:
        return link_ppf(self.link, self.criterion)

    def rows(self, index) -> Shape:
        return self if np.ndim(self.chance) == 0 else replace(self, chance=self.chance[index])

    def repeat(self, times: int) -> Shape:
        return self if np.ndim(self.chance) == 0 else replace(self, chance=np.repeat(self.chance, times, axis=0))

    def z(self, theta: np.ndarray, x: np.ndarray) -> np.ndarray:
        return self.direction * np.exp(theta[..., 1:2]) * (x - theta[..., 0:1]) + self.z_criterion

    def predict(self, theta, x) -> np.ndarray:
        """theta (..., 3), x (levels,) -> P (..., levels)."""
        theta = np.asarray(theta, float)
        return self.chance + (1 - self.chance - theta[..., 2:3]) * link_cdf(self.link, self.z(theta, x))

    def loglik(self, theta, x, k, n) -> np.ndarray:
        p = np.clip(self.predict(theta, x), EPS, 1 - EPS)
        return (k * np.log(p) + (n - k) * np.log1p(-p)).sum(axis=-1)

    def score_and_information(self, theta, x, k, n):
        """Gradient of the log-likelihood and the expected (Fisher) information, batched over theta (B, 3)."""
        b, lapse = np.exp(theta[:, 1:2]), theta[:, 2:3]
        z = self.z(theta, x)
        F, f = link_cdf(self.link, z), link_pdf(self.link, z)
        span = 1 - self.chance - lapse
        p = np.clip(self.chance + span * F, EPS, 1 - EPS)
        dp = np.stack([span * f * (-self.direction * b), span * f * (z - self.z_criterion), -F], axis=-1)
        w = 1 / (p * (1 - p))
        grad = np.matmul(((k - n * p) * w)[:, None, :], dp)[:, 0, :]
        info = np.matmul(dp.transpose(0, 2, 1) * (n * w)[:, None, :], dp)
        return grad, info

    def slope(self, theta: np.ndarray) -> np.ndarray:
        """dP/dx at the threshold: accuracy per unit of the variable (negative when it falls)."""
        return ((1 - self.chance - theta[..., 2]) * link_pdf(self.link, np.asarray(self.z_criterion))
                * self.direction * np.exp(theta[..., 1]))


def bounds_for(levels: np.ndarray) -> np.ndarray:
    """Box of (t, log b, lapse): thresholds within two ranges of the tested ones, steepness from
    nearly flat to a step between neighbouring levels."""
    lo, hi = float(levels.min()), float(levels.max())
    span = max(hi - lo, 1e-9)
    step = float(np.min(np.diff(levels))) if len(levels) > 1 else span
    return np.array([[lo - 2 * span, hi + 2 * span], [np.log(0.05 / span), np.log(40 / max(step, 1e-9))],
                     [0.0, MAX_LAPSE]])


def fit_batch(shape: Shape, theta0: np.ndarray, x: np.ndarray, k: np.ndarray, n: np.ndarray, box: np.ndarray,
              hold: Sequence[bool] = (False, False, False), iterations: int = 80) -> tuple[np.ndarray, np.ndarray]:
    """Maximum likelihood for each row of k, n (B, levels) from theta0 (B, 3): Levenberg-damped
    Fisher scoring projected on the box; coordinates held at a bound, or held by `hold` at theta0's
    value (a profile), drop out of the step. Each step is taken only if it does not lower the
    likelihood."""
    theta = np.array(theta0, float)
    B = len(theta)
    k, n = np.broadcast_to(k, (B, k.shape[-1])), np.broadcast_to(n, (B, n.shape[-1]))
    fixed = np.asarray(hold, bool)
    ll = shape.loglik(theta, x, k, n)
    damping = np.full(B, 1e-3)
    eye = np.eye(3)
    active = np.arange(B)  # rows still climbing
    for _ in range(iterations):
        if not len(active):
            break
        th, ka, na, lla, da = theta[active], k[active], n[active], ll[active], damping[active]
        climbing = shape.rows(active)
        grad, info = climbing.score_and_information(th, x, ka, na)
        held = fixed | ((th <= box[:, 0] + 1e-12) & (grad < 0)) | ((th >= box[:, 1] - 1e-12) & (grad > 0))
        grad = np.where(held, 0.0, grad)
        free = ~held
        info = info * (free[:, :, None] & free[:, None, :]) + eye * held[:, :, None]
        scale = np.maximum(np.einsum("bii->bi", info), 1e-12)
        system = info + da[:, None, None] * (eye * scale[:, :, None])
        try:
            step = np.linalg.solve(system, grad[..., None])[..., 0]
        except np.linalg.LinAlgError:  # a singular row takes a gradient step; the others still solve
            step = grad / scale
            for i, (a, g) in enumerate(zip(system, grad, strict=True)):
                try:
                    step[i] = np.linalg.solve(a, g)
                except np.linalg.LinAlgError:
                    pass
        candidate = np.where(fixed, th, np.clip(th + step, box[:, 0], box[:, 1]))
        ll_new = climbing.loglik(candidate, x, ka, na)
        better = ll_new >= lla - 1e-12
        theta[active] = np.where(better[:, None], candidate, th)
        gain = np.where(better, ll_new - lla, 0.0)
        ll[active] = np.where(better, ll_new, lla)
        damping[active] = np.where(better, np.maximum(da / 4, 1e-9), da * 8)
        done = (better & (gain < 1e-10)) | (damping[active] > 1e8)
        active = active[~done]
    return theta, ll


def grid_start(shape: Shape, x: np.ndarray, k: np.ndarray, n: np.ndarray, box: np.ndarray) -> np.ndarray:
    """The likeliest point of a coarse grid, for each row of k, n (B, levels): (B, 3)."""
    lo, hi = float(x.min()), float(x.max())
    span = max(hi - lo, 1e-9)
    ts = np.linspace(lo - 0.25 * span, hi + 0.25 * span, 25)
    slopes = np.linspace(box[1, 0] + 1.0, box[1, 1] - 0.5, 8)
    lapses = np.array([0.0, 0.05])
    grid = np.array(np.meshgrid(ts, slopes, lapses, indexing="ij")).reshape(3, -1).T
    rows = shape if np.ndim(shape.chance) == 0 else replace(shape, chance=shape.chance[:, None])
    ll = rows.loglik(grid[None], x, k[:, None, :], n[:, None, :])  # (B, grid)
    return grid[np.argmax(ll, axis=1)]


def binomial_ll(k, n, p) -> np.ndarray:
    p = np.clip(p, EPS, 1 - EPS)
    return (k * np.log(p) + (n - k) * np.log1p(-p)).sum(axis=-1)


def step_fit(x: np.ndarray, k: np.ndarray, n: np.ndarray, chance: float) -> tuple[np.ndarray, ...]:
    """The likeliest step (an unbounded slope) for each row of k, n (B, levels): chance on one side
    of a cut between neighbouring levels, 1 - lapse on the other, lapse fitted in [0, MAX_LAPSE].
    Returns its log-likelihood, cut (the index of the first level above the step), direction and
    lapse, each (B,)."""
    B, L = k.shape
    best_ll = np.full(B, -np.inf)
    best_cut, best_dir, best_lapse = np.zeros(B, int), np.ones(B, int), np.zeros(B)
    for cut in range(1, L):
        for direction in (1, -1):
            low, high = (slice(0, cut), slice(cut, L)) if direction > 0 else (slice(cut, L), slice(0, cut))
            k_hi, n_hi = k[:, high].sum(axis=1), n[:, high].sum(axis=1)
            lapse = np.clip(1 - k_hi / np.maximum(n_hi, 1), 0, MAX_LAPSE)
            ll = binomial_ll(k[:, low], n[:, low], chance) + binomial_ll(k[:, high], n[:, high], (1 - lapse)[:, None])
            better = ll > best_ll
            best_ll = np.where(better, ll, best_ll)
            best_cut = np.where(better, cut, best_cut)
            best_dir = np.where(better, direction, best_dir)
            best_lapse = np.where(better, lapse, best_lapse)
    return best_ll, best_cut, best_dir, best_lapse


# --- the estimate -----------------------------------------------------------------------------
@dataclass
class Breaking:
    """One curve's breaking point and why it is (not) reported."""

    verdict: str
    note: str | None  # the reason, when not estimable
    direction: int
    theta: np.ndarray  # the fitted (t, log b, lapse): an estimated breaking point's curve is drawn from it
    loglik: float
    flat_p: float | None
    gof_p: float | None
    threshold: float | None = None  # a point only for VERDICT_BREAKS
    lo: float | None = None  # the 95% profile interval, for VERDICT_BREAKS and VERDICT_BETWEEN
    hi: float | None = None
    between: tuple[float, float] | None = None  # the two tested levels of a separated fit

    def describe(self, digits: int = 3) -> str:
        """The breaking point as people read it (terminal, CSV and report)."""
        if self.verdict == VERDICT_BREAKS:
            return f"{self.threshold:.{digits}g} [{self.lo:.{digits}g}–{self.hi:.{digits}g}]"
        if self.verdict == VERDICT_BETWEEN:
            a, b = self.between
            return (f"the threshold lies between levels {a:g} and {b:g} (95% interval {self.lo:.{digits}g}–"
                    f"{self.hi:.{digits}g}); slope unbounded")
        return f"{VERDICT_NOT}: {self.note}"


def _profile(shape: Shape, theta_hat: np.ndarray, x, k, n, box, ts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The profile log-likelihood of each data set (rows of k, n) at thresholds ts (B, T): steepness
    and lapse refitted with t held, from the fit's own values and from a middling curve."""
    B, T = ts.shape
    middling = np.array([box[1].mean(), 0.02])
    starts = np.empty((B, T, 2, 3))
    starts[..., 0] = ts[:, :, None]
    starts[:, :, 0, 1:] = theta_hat[:, None, 1:]
    starts[:, :, 1, 1:] = middling
    rows = starts.reshape(-1, 3)
    reps = T * 2
    theta, ll = fit_batch(shape.repeat(reps), rows, x, np.repeat(k, reps, axis=0), np.repeat(n, reps, axis=0), box,
                          hold=(True, False, False))
    ll = ll.reshape(B, T, 2)
    pick = np.argmax(ll, axis=2)
    return np.take_along_axis(ll, pick[..., None], 2)[..., 0], theta.reshape(B, T, 2, 3)[
        np.arange(B)[:, None], np.arange(T)[None], pick]


def _bisect(shape, theta_hat, x, k, n, box, inner, outer, sup, phi, critical) -> np.ndarray:
    """The end of each interval between `inner` (inside it) and `outer` (outside), (B,)."""
    for _ in range(BISECTIONS):
        mid = (inner + outer) / 2
        ll, _ = _profile(shape, theta_hat, x, k, n, box, mid[:, None])
        inside = 2 * (sup - ll[:, 0]) / phi <= critical
        inner = np.where(inside, mid, inner)
        outer = np.where(inside, outer, mid)
    return inner


def _profile_interval(shape: Shape, theta: np.ndarray, ll: np.ndarray, x, k, n, box, phi,
                      critical) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The profile interval of the threshold of each data set (rows of k, n), NaN where it does not
    close inside the box; a likelier curve met along the profile replaces the fit. Returns the fit,
    its log-likelihood and (lo, hi)."""
    B = len(theta)
    theta, ll = theta.copy(), ll.copy()
    ts = np.linspace(box[0, 0], box[0, 1], PROFILE_GRID)
    prof, prof_theta = _profile(shape, theta, x, k, n, box, np.repeat(ts[None], B, 0))
    best = np.argmax(prof, axis=1)
    improved = prof[np.arange(B), best] > ll + 1e-6
    if improved.any():  # a local maximum was climbed: start again from the better point
        theta[improved], ll[improved] = fit_batch(shape.rows(improved), prof_theta[improved, best[improved]], x,
                                                  k[improved], n[improved], box)
        prof[improved], _ = _profile(shape.rows(improved), theta[improved], x, k[improved], n[improved], box,
                                     np.repeat(ts[None], int(improved.sum()), 0))
    stat = np.maximum(0.0, 2 * (ll[:, None] - prof) / phi[:, None])
    centre = theta[:, 0]
    ends = np.full((2, B), np.nan)  # lower and upper end; both sides are bisected in one batch
    rows, inners, outers = [], [], []
    for side in (-1, 1):
        order = ts if side > 0 else ts[::-1]
        beyond = (order[None] - centre[:, None]) * side > 0
        exceeds = beyond & ((stat if side > 0 else stat[:, ::-1]) > critical[:, None])
        found = np.flatnonzero(exceeds.any(axis=1))
        first = np.argmax(exceeds, axis=1)  # the first rejected threshold going outward
        before = np.maximum(first - 1, 0)
        inner = np.where((first > 0) & beyond[np.arange(B), before], order[before], centre)
        rows.append(found)
        inners.append(inner[found])
        outers.append(order[first[found]])
    f = np.concatenate(rows)
    if len(f):
        got = _bisect(shape.rows(f), theta[f], x, k[f], n[f], box, np.concatenate(inners), np.concatenate(outers), ll[f],
                      phi[f], critical[f])
        ends[0, rows[0]], ends[1, rows[1]] = got[:len(rows[0])], got[len(rows[0]):]
    return theta, ll, (ends[0], ends[1])


def estimate(x: np.ndarray, k: np.ndarray, n: np.ndarray, chance: float | np.ndarray, *, link: str = "logistic",
             criterion: float = CRITERION, phi: np.ndarray | float = 1.0, df_phi: np.ndarray | int = 0,
             strata: np.ndarray | None = None) -> list[Breaking]:
    """The breaking point of each data set: rows of hits k and questions n (B, levels) at the tested
    levels x; chance: the guess rate, one or one per data set (B,); phi, df_phi: each data set's dispersion and its degrees of freedom (0: none
    estimated); strata: each level's group for the deviance test (default: the levels), (levels,)
    for all data sets or (B, levels). Rows are independent: a batch gives each row what it gives
    alone."""
    x, k, n = np.asarray(x, float), np.atleast_2d(np.asarray(k, float)), np.atleast_2d(np.asarray(n, float))
    B, L = k.shape
    phi = np.broadcast_to(np.asarray(phi, float), (B,))
    df_phi = np.broadcast_to(np.asarray(df_phi, int), (B,))
    chance = chance if np.ndim(chance) == 0 else np.asarray(chance, float).reshape(B, 1)
    if L < MIN_LEVELS:
        return [Breaking(VERDICT_NOT, _too_few(int((n[i] > 0).sum())), 1, np.full(3, np.nan), float("nan"), None,
                         None) for i in range(B)]
    box = bounds_for(x)
    # The tests read the counts as they are: both directions from their grid's best point, and the
    # likeliest step; a step as likely as any curve is a complete separation.
    raw = {}
    for d in (1, -1):
        shape = Shape(chance, link, d, criterion)
        raw[d] = fit_batch(shape, grid_start(shape, x, k, n, box), x, k, n, box)
    step_ll, cut, step_dir, _ = step_fit(x, k, n, chance)
    curve_ll = np.maximum(raw[1][1], raw[-1][1])
    separated = step_ll >= curve_ll - SEPARATION_TOLERANCE
    direction = np.where(separated, step_dir, np.where(raw[1][1] >= raw[-1][1], 1, -1))
    raw_theta = np.where((direction == 1)[:, None], raw[1][0], raw[-1][0])
    sup = np.maximum(curve_ll, step_ll)
    flat_ll = binomial_ll(k, n, (k.sum(axis=1) / np.maximum(n.sum(axis=1), 1))[:, None])
    # The estimate and its interval read the counts with PSEUDO right and PSEUDO wrong answers added at
    # each level (Clogg et al. 1991's pseudo-data, a light stand-in for Firth's penalty): the slope
    # stays finite under separation and small samples keep their coverage (95-99% in
    # tests/score/test_psychometric.py's simulation, against 91-97% on the raw counts).
    ka, na = k + PSEUDO, n + 2 * PSEUDO
    critical = np.where(df_phi > 0, scipy.stats.f.ppf(CONFIDENCE, 1, np.maximum(df_phi, 1)), scipy.stats.chi2.ppf(CONFIDENCE, 1))
    theta = raw_theta.copy()
    lo, hi = np.full(B, np.nan), np.full(B, np.nan)
    for d in (1, -1):
        rows = np.flatnonzero(direction == d)
        if len(rows):
            shape = Shape(chance, link, d, criterion).rows(rows)
            start = fit_batch(shape, raw_theta[rows], x, ka[rows], na[rows], box)
            theta[rows], _, (lo[rows], hi[rows]) = _profile_interval(shape, *start, x, ka[rows], na[rows], box,
                                                                     phi[rows], critical[rows])
    out: list[Breaking | None] = [None] * B
    strata = None if strata is None else np.broadcast_to(np.asarray(strata), (B, L))
    for i in range(B):
        levels_with_data = int((n[i] > 0).sum())
        base = {"direction": int(direction[i]), "theta": theta[i], "loglik": float(sup[i])}
        ratio = max(0.0, 2 * (sup[i] - flat_ll[i])) / phi[i]
        flat_p = float(scipy.stats.f.sf(ratio / 2, 2, df_phi[i]) if df_phi[i] > 0 else scipy.stats.chi2.sf(ratio, 2))
        if levels_with_data < MIN_LEVELS:
            out[i] = Breaking(VERDICT_NOT, _too_few(levels_with_data), gof_p=None, flat_p=None, **base)
            continue
        chance_i = chance if np.ndim(chance) == 0 else float(chance[i, 0])
        gof_p = _gof_p(Shape(chance_i, link, int(direction[i]), criterion), raw_theta[i], x, k[i], n[i],
                       None if strata is None else strata[i], phi[i],
                       df_phi[i], separated=bool(separated[i]), cut=int(cut[i]))
        common = {**base, "flat_p": flat_p, "gof_p": gof_p}
        if flat_p >= ALPHA:
            out[i] = Breaking(VERDICT_NOT, f"no better than a constant accuracy (likelihood-ratio test p = "
                                           f"{flat_p:.2g})", **common)
        elif gof_p is not None and gof_p < ALPHA:
            out[i] = Breaking(VERDICT_NOT, f"the curve does not describe the levels (deviance test p = "
                                           f"{gof_p:.2g})", **common)
        elif separated[i]:
            a, b = float(x[cut[i] - 1]), float(x[cut[i]])
            if np.isnan(lo[i]) or np.isnan(hi[i]):
                out[i] = Breaking(VERDICT_NOT, _unbounded(lo[i], hi[i]), **common)
            else:
                out[i] = Breaking(VERDICT_BETWEEN, None, lo=min(float(lo[i]), a), hi=max(float(hi[i]), b),
                                  between=(a, b), **common)
        elif not x.min() < theta[i, 0] < x.max():
            side = "below the lowest" if theta[i, 0] <= x.min() else "above the highest"
            edge = x.min() if theta[i, 0] <= x.min() else x.max()
            out[i] = Breaking(VERDICT_NOT, f"the fitted threshold lies {side} tested level ({edge:g}): no data on "
                                           "both sides of it", **common)
        elif np.isnan(lo[i]) or np.isnan(hi[i]):
            out[i] = Breaking(VERDICT_NOT, _unbounded(lo[i], hi[i]), **common)
        elif not lo[i] < theta[i, 0] < hi[i]:
            out[i] = Breaking(VERDICT_NOT, "the profile interval does not enclose the estimate", **common)
        else:
            out[i] = Breaking(VERDICT_BREAKS, None, threshold=float(theta[i, 0]), lo=float(lo[i]), hi=float(hi[i]),
                              **common)
    return out


def _too_few(levels: int) -> str:
    return f"{levels} tested levels with answers; a curve needs {MIN_LEVELS}"


def _unbounded(lo: float, hi: float) -> str:
    sides = " and ".join(s for s, v in (("below", lo), ("above", hi)) if np.isnan(v))
    return (f"the data do not bound the threshold {sides}: its 95% interval runs past two ranges beyond the "
            "tested levels")


def _gof_p(shape: Shape, theta, x, k, n, strata, phi, df_phi, *, separated: bool, cut: int) -> float | None:
    """Quasi-binomial deviance test of the fitted curve (or step) against one free proportion per
    stratum, on strata - 3 degrees of freedom; None when there are none."""
    if separated:
        high = slice(cut, None) if shape.direction > 0 else slice(0, cut)
        p = np.full(len(x), shape.chance)
        p[high] = 1 - np.clip(1 - k[high].sum() / max(n[high].sum(), 1), 0, MAX_LAPSE)
    else:
        p = shape.predict(theta, x)
    groups = np.arange(len(x)) if strata is None else np.asarray(strata)
    keep = n > 0
    ids, groups = np.unique(groups[keep], return_inverse=True)
    ks = np.bincount(groups, weights=k[keep])
    ns = np.bincount(groups, weights=n[keep])
    expected = np.bincount(groups, weights=(n * p)[keep]) / ns
    df = len(ids) - 3
    if df <= 0:
        return None
    deviance = 2 * float(binomial_ll(ks, ns, ks / ns) - binomial_ll(ks, ns, expected))
    return float(scipy.stats.f.sf(deviance / df / phi, df, df_phi) if df_phi > 0 else scipy.stats.chi2.sf(deviance / phi, df))


# --- one curve ----------------------------------------------------------------------------------
@dataclass
class Curve:
    """A fitted curve, to draw it or to refit resamples of its data."""

    shape: Shape
    theta: np.ndarray  # t, log b, lapse

    @property
    def lapse(self) -> float:
        return float(self.theta[2])

    def threshold(self, theta: np.ndarray | None = None) -> np.ndarray | float:
        return (self.theta if theta is None else theta)[..., 0]

    def slope(self) -> float:
        return float(self.shape.slope(self.theta))

    def accuracy_at_threshold(self) -> float:
        return self.shape.chance + (1 - self.shape.chance - self.lapse) * self.shape.criterion

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.shape.predict(self.theta, np.asarray(x, float))


def fit_curve(trials: Trials, chance: float, link: str = "logistic", criterion: float = CRITERION) -> Curve:
    """The maximum-likelihood curve of one data set, estimable or not."""
    k, n = trials.counts()
    got = estimate(trials.levels, k[None], n[None], chance, link=link, criterion=criterion)[0]
    return Curve(Shape(chance, link, got.direction, criterion), got.theta)


def bootstrap_thetas(curve: Curve, trials: Trials, draws: np.ndarray) -> np.ndarray:
    """The curve refitted to each resample of images (rows of `draws`), with the estimate's
    pseudo-answers: (n_boot, 3)."""
    k, n = trials.resampled_counts(draws)
    start = np.repeat(curve.theta[None], len(draws), axis=0)
    theta, _ = fit_batch(curve.shape, start, trials.levels, k + PSEUDO, n + 2 * PSEUDO, bounds_for(trials.levels))
    return theta


def subitizing_range(x: np.ndarray, k: np.ndarray, n: np.ndarray, level: float = SUBITIZING) -> float | None:
    """The largest count c such that every tested count from the smallest up to c is answered at
    >= `level` (None when the smallest already is not)."""
    best = None
    for xi, ki, ni in sorted(zip(x, k, n, strict=True)):
        if ni == 0 or ki / ni < level:
            break
        best = float(xi)
    return best


def analyse(trials: Trials, chance: float, *, link: str = "logistic", criterion: float = CRITERION) -> dict:
    """Fit and test one curve: a flat dict, one table row."""
    return analyse_batch([trials], chance, link=link, criterion=criterion)[0]


def analyse_batch(batch: Sequence[Trials], chance: float | Sequence[float], *, link: str = "logistic",
                  criterion: float = CRITERION) -> list[dict]:
    """`analyse` for data sets tested at the same levels, fitted together: one batched estimate
    instead of one per data set (each row is what `analyse` gives it alone); chance: one guess rate
    or one per data set."""
    levels = batch[0].levels
    if any(not np.array_equal(t.levels, levels) for t in batch):
        raise ValueError("analyse_batch: every data set must have the same tested levels")
    chances = [chance] * len(batch) if np.ndim(chance) == 0 else list(chance)
    counts = [t.counts() for t in batch]
    dispersions = [dispersion(t) for t in batch]
    found = estimate(levels, np.array([k for k, _ in counts]), np.array([n for _, n in counts]),
                     chance if np.ndim(chance) == 0 else np.array(chances), link=link,
                     criterion=criterion, phi=np.array([phi for phi, _ in dispersions]),
                     df_phi=np.array([df for _, df in dispersions]),
                     strata=np.array([t.strata_of_levels() for t in batch]))
    return [_fit_row(t, n, phi, got, c, link, criterion)
            for t, c, (_, n), (phi, _), got in zip(batch, chances, counts, dispersions, found, strict=True)]


def _fit_row(trials: Trials, n: np.ndarray, phi: float, got: Breaking, chance: float, link: str,
             criterion: float) -> dict:
    shape = Shape(chance, link, got.direction, criterion)
    curve = Curve(shape, got.theta)
    out = {"link": link, "criterion": criterion, "chance": chance, "n": int(n.sum()), "images": len(trials.x),
           "levels": len(trials.levels), "x_min": float(trials.levels.min()), "x_max": float(trials.levels.max()),
           "verdict": got.verdict, "note": got.note, "breaking_point": got.describe(),
           "threshold": got.threshold, "threshold_lo": got.lo, "threshold_hi": got.hi,
           "between_lo": got.between[0] if got.between else None, "between_hi": got.between[1] if got.between else None,
           "interval": "profile likelihood" if got.lo is not None else None,
           "slope": curve.slope() if got.verdict == VERDICT_BREAKS else None,
           "lapse": curve.lapse if got.verdict in ESTIMATED else None,
           # the fitted curve, to draw it: only where a breaking point is estimated
           **({"direction": "falls" if got.direction < 0 else "rises", "location": float(got.theta[0]),
               "beta": float(np.exp(got.theta[1])), "fitted_lapse": curve.lapse} if got.verdict in ESTIMATED
              else {"direction": None, "location": None, "beta": None, "fitted_lapse": None}),
           "loglik": got.loglik, "flat_p": got.flat_p, "gof_p": got.gof_p, "dispersion": phi,
           "accuracy_at_threshold": curve.accuracy_at_threshold() if got.verdict == VERDICT_BREAKS else None}
    return out


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


def level_number(variable: str, value):
    """A level as a number: itself when numeric, a preset's value (camera elevation "high" is 30
    degrees) when the variable has presets, else None."""
    if _numeric(value):
        return value
    return preset_number(variable, value)


def curve_variables(rows: Sequence[dict]) -> list[str]:
    """Numeric level variables (presets by their values) with at least MIN_LEVELS values, and the
    true count for counting keys."""
    seen: dict[str, set] = {}
    for levels in {r["image"]: r["levels"] for r in rows}.values():  # an image's questions share its levels
        for name, value in levels.items():
            number = level_number(name, value)
            if number is not None:
                seen.setdefault(name, set()).add(number)
    out = [name for name, values in seen.items() if len(values) >= MIN_LEVELS]
    if rows[0]["answer_type"] == "integer" and len({r["answer"] for r in rows if _numeric(r["answer"])}) >= MIN_LEVELS:
        out.append(TRUTH)
    return out


def x_of(row: dict, variable: str):
    if variable == TRUTH:
        return row["answer"] if _numeric(row["answer"]) else None
    return level_number(variable, row["levels"].get(variable))


def hit(row: dict, tolerance: float) -> bool:
    """Right, or for counts |error| <= tolerance (an answer that did not parse misses)."""
    if row["answer_type"] == "integer":
        return row["error"] is not None and abs(row["error"]) <= tolerance
    return bool(row["correct"])


def outcome_name(answer_type: str, tolerance: float) -> str:
    if answer_type == "integer" and tolerance:
        return f"|error| <= {tolerance:g}"
    return "correct"


def answer_prior(rows: Sequence[dict]) -> str | None:
    """Why a key's answers do not depend on the image, or None: the blind baseline never sees it; a
    run that gives every question of the key one answer answers from its prior. Such a run can still
    rise or fall along a variable: a constant "1" is right only where the truth is 1."""
    if any(r.get("provider") == "blind" for r in rows):
        return "the blind baseline: its answers do not depend on the image"
    values = {repr(r["value"]) for r in rows}
    if len(rows) > 1 and len(values) == 1 and all(r["status"] == "ok" for r in rows):
        return f"one answer ({rows[0]['value']}) to every question: it does not depend on the image"
    return None


def key_trials(rows: Sequence[dict], variable: str, tolerance: float) -> tuple[Trials, list[dict]] | None:
    used = [r for r in rows if x_of(r, variable) is not None]
    if not used:
        return None
    x = [float(x_of(r, variable)) for r in used]
    # An image's questions share a level; the true count of one key may differ between them only
    # if a template draws its parameters per prompt variant, so the cluster is (image, level).
    return Trials.from_observations(x, [hit(r, tolerance) for r in used],
                                    [(r["image"], xi) for r, xi in zip(used, x, strict=True)]), used


def breaking_point_tables(rows: Sequence[dict], *, tolerance: float = 0, criterion: float = CRITERION,
                          links: Sequence[str] = LINKS) -> tuple[list[dict], list[dict]]:
    """One fit row per (key, variable, link) and one point row per (key, variable, level), all
    prompt variants pooled."""
    fits, points = [], []
    curves = []  # (index in fits, base, variable, trials, used, subitizing, chance, link)
    by_key: dict[str, list[dict]] = {}
    for r in rows:
        by_key.setdefault(r["key"], []).append(r)
    for key, key_rows in by_key.items():
        answer_type = key_rows[0]["answer_type"]
        chance = chance_of(key_rows)
        base = {"run": key_rows[0]["run"], "model": key_rows[0]["model"], "key": key, "task": key_rows[0]["task"],
                "answer_type": answer_type, "outcome": outcome_name(answer_type, tolerance),
                "tolerance": tolerance if answer_type == "integer" else None, "answer_prior": answer_prior(key_rows)}
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
                points.append({**base, "variable": variable, "level": float(level),
                               "level_name": _level_name(variable, members[0]), "n": acc["n"],
                               "images": acc["clusters"], "hits": acc["k"], "accuracy": acc["value"],
                               "accuracy_lo": acc["lo"], "accuracy_hi": acc["hi"], "deff": acc["deff"]})
            subitizing = None
            if variable == TRUTH:
                exact = Trials.from_observations([float(r["answer"]) for r in used], [r["correct"] for r in used],
                                                 [r["image"] for r in used])
                subitizing = subitizing_range(exact.levels, *exact.counts())
            for link in links:
                fits.append(None)  # filled below, once every curve of its levels, chance and link is fitted
                curves.append((len(fits) - 1, base, variable, trials, used, subitizing, chance, link))
    # Curves tested at the same levels with the same link are fitted in one batch.
    batches: dict[tuple, list[tuple]] = {}
    for curve in curves:
        _, _, _, trials, _, _, _, link = curve
        batches.setdefault((trials.levels.tobytes(), link), []).append(curve)
    for (_, link), batch in batches.items():
        rows = analyse_batch([c[3] for c in batch], [c[6] for c in batch], link=link, criterion=criterion)
        for (index, base, variable, _, used, subitizing, _, _), row in zip(batch, rows, strict=True):
            rendered, received = object_at(used, variable, row["threshold"]) if variable != TRUTH else (None, None)
            fits[index] = {**base, "variable": variable, **row,
                           "object_px_rendered": rendered, "object_px_received": received,
                           "subitizing": subitizing if variable == TRUTH else None,
                           "clustering": "images (the dispersion between images scales the likelihood ratios)"}
    return fits, points


def object_at(rows: Sequence[dict], variable: str, threshold: float | None) -> tuple[float | None, float | None]:
    """The object's height at a breaking point, in rendered pixels and in the pixels its model
    receives: per tested level the median over its rows of `object_px` (byo.score.rows) and of
    `object_px` x `received_scale`, interpolated linearly to the threshold. (None, None) without a
    threshold or where the rows record no received size."""
    if threshold is None:
        return None, None
    at_level: dict[float, list[tuple[float, float]]] = {}
    for r in rows:
        if r.get("object_px") is not None and r.get("received_scale") is not None:
            at_level.setdefault(float(x_of(r, variable)), []).append((r["object_px"], r["object_px"] * r["received_scale"]))
    if not at_level:
        return None, None
    levels = sorted(at_level)
    medians = np.array([np.median(np.array(at_level[x]), axis=0) for x in levels])
    return (float(np.interp(threshold, levels, medians[:, 0])), float(np.interp(threshold, levels, medians[:, 1])))


def _level_name(variable: str, row: dict) -> str | None:
    """A preset's name beside its value (camera.elevation 30 is "high"), else None."""
    if variable == TRUTH:
        return None
    value = row["levels"].get(variable)
    return value if isinstance(value, str) else None


def curve_from_row(row: dict) -> Curve | None:
    """The fitted curve of a table row, to draw: only an estimated breaking point's."""
    if row.get("verdict") not in ESTIMATED:
        return None
    shape = Shape(row["chance"], row["link"], -1 if row["direction"] == "falls" else 1, row["criterion"])
    return Curve(shape, np.array([row["location"], np.log(row["beta"]), row["fitted_lapse"]]))
