"""The psi method: a threshold found one trial at a time, each stimulus chosen from the answers so far.

The observer is the psychometric function `byo score` fits (byo.score.psychometric):

    P(hit | x) = chance + (1 - chance - lapse) * F(s * b * (x - t) + F^-1(c))

with F the logistic (or probit) distribution function, t the threshold (where F reaches the
criterion c, default 0.5: accuracy halfway from chance to the ceiling 1 - lapse), b > 0 the
steepness and s = +1 (accuracy rises with x) or -1 (falls). `chance` is the question's guess rate,
known; t, b, lapse and s are not.

The posterior over (t, b, lapse, s) is held on a grid (Kontsevich & Tyler 1999, "Bayesian adaptive
estimation of psychometric slope and threshold", Vision Research 39): the prior is uniform in t over
the tested range widened by MARGIN of it on each side, uniform in log b from a curve nearly flat
across the range to one that rises within STEEPEST of it, uniform over LAPSES and over the
directions allowed. Each answer multiplies it by the likelihood of that answer.

Next stimulus: of the candidate levels, the one whose answer is expected to leave the least
entropy in the *threshold's* marginal posterior, steepness, lapse and direction being nuisance
parameters (Prins 2013, "The psi-marginal adaptive method", Journal of Vision 13(7):3). Ties go to
the first level, so a trial sequence replays exactly from the same answers.

Estimate: the posterior median of the threshold and its 95% equal-tailed credible interval, read
off the marginal's cumulative mass with each grid point standing for the cell around it. An
interval that reaches the edge of the threshold grid is not closed: the tested range does not
bound the threshold.

Why not a library: questplus (QUEST+ on PyPI) computes the same posterior with xarray, but its
psychometric functions are the Weibull and normal-CDF curves that only rise; the project's model is
logistic or probit, rising or falling, so the grid is computed here, with numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from byo.score.psychometric import CRITERION, LINKS, MAX_LAPSE, link_cdf, link_ppf

MARGIN = 0.1  # of the range, on each side: thresholds a little outside the tested levels
FLATTEST = 0.5  # steepness x range at the flattest curve: 25-75% across 4.4 ranges
STEEPEST = 80.0  # ... at the steepest: 25-75% within 2.7% of the range
THRESHOLDS = 121
STEEPNESSES = 14
LAPSES = (0.0, 0.02, 0.05, MAX_LAPSE)
CANDIDATES = 41  # candidate levels of a continuous variable
CONFIDENCE = 0.95
DIRECTIONS = {"rises": (1,), "falls": (-1,), "either": (1, -1)}
EPS = 1e-12


@dataclass(frozen=True)
class Estimate:
    """The threshold after some trials: its posterior median and credible interval."""

    threshold: float
    lo: float
    hi: float
    trials: int
    closed: bool  # the interval lies inside the threshold grid
    falls: float  # posterior probability that accuracy falls as the variable grows

    @property
    def width(self) -> float:
        return self.hi - self.lo

    def to_json(self) -> dict:
        return {"threshold": self.threshold, "lo": self.lo, "hi": self.hi, "width": self.width,
                "trials": self.trials, "closed": self.closed, "p_falls": self.falls}


def candidate_levels(lo: float, hi: float, *, integer: bool = False, count: int = CANDIDATES) -> np.ndarray:
    """The levels a trial may be run at: every whole number from lo to hi for an ordered variable
    (a count), else `count` levels evenly spaced."""
    if integer:
        return np.arange(int(np.ceil(lo)), int(np.floor(hi)) + 1, dtype=float)
    return np.linspace(lo, hi, count)


class PsiMethod:
    """The posterior of one adaptive search. `levels`: the candidate stimulus levels; `lo`, `hi`: the
    tested range (default: the levels' own); `direction`: rises, falls or either."""

    def __init__(self, levels: Sequence[float], *, chance: float = 0.0, direction: str = "either",
                 link: str = "logistic", criterion: float = CRITERION, lo: float | None = None,
                 hi: float | None = None, thresholds: int = THRESHOLDS, steepnesses: int = STEEPNESSES,
                 lapses: Sequence[float] = LAPSES, confidence: float = CONFIDENCE):
        if link not in LINKS:
            raise ValueError(f"link {link!r}: expected one of {', '.join(LINKS)}")
        if direction not in DIRECTIONS:
            raise ValueError(f"direction {direction!r}: expected one of {', '.join(DIRECTIONS)}")
        if not 0 <= chance < 1:
            raise ValueError(f"chance {chance!r}: expected a guess rate in [0, 1)")
        self.levels = np.unique(np.asarray(levels, float))
        self.lo = float(self.levels.min() if lo is None else lo)
        self.hi = float(self.levels.max() if hi is None else hi)
        if not self.hi > self.lo:
            raise ValueError(f"the range [{self.lo:g}, {self.hi:g}] is empty: expected two different ends")
        span = self.hi - self.lo
        self.chance, self.link, self.criterion, self.confidence = chance, link, criterion, confidence
        self.thresholds = np.linspace(self.lo - MARGIN * span, self.hi + MARGIN * span, thresholds)
        self.steepnesses = np.geomspace(FLATTEST / span, STEEPEST / span, steepnesses)
        self.lapses = np.asarray(lapses, float)
        self.directions = np.asarray(DIRECTIONS[direction], float)
        # every nuisance combination (steepness, lapse, direction) along one axis
        b, lapse, s = (g.ravel() for g in np.meshgrid(self.steepnesses, self.lapses, self.directions, indexing="ij"))
        self._b, self._lapse, self._s = b, lapse, s
        self.hits = self.probability(self.levels)  # (thresholds, nuisance, levels)
        self.log_posterior = np.zeros((len(self.thresholds), len(b)))
        self.history: list[tuple[float, bool]] = []

    # --- the model ------------------------------------------------------------------------------
    def probability(self, x: np.ndarray) -> np.ndarray:
        """P(hit) at levels x for every grid point: (thresholds, nuisance, len(x))."""
        x = np.asarray(x, float)
        z = (self._s * self._b)[None, :, None] * (x[None, None, :] - self.thresholds[:, None, None]) \
            + link_ppf(self.link, self.criterion)
        p = self.chance + (1 - self.chance - self._lapse)[None, :, None] * link_cdf(self.link, z)
        return np.clip(p, EPS, 1 - EPS)

    def posterior(self) -> np.ndarray:
        w = np.exp(self.log_posterior - self.log_posterior.max())
        return w / w.sum()

    def update(self, level: float, hit: bool) -> None:
        """One answer at `level` (any level, a candidate or not)."""
        k = np.flatnonzero(np.isclose(self.levels, level, rtol=0, atol=1e-9 * (self.hi - self.lo)))
        p = self.hits[:, :, k[0]] if len(k) else self.probability(np.array([level]))[:, :, 0]
        self.log_posterior += np.log(p) if hit else np.log1p(-p)
        self.history.append((float(level), bool(hit)))

    # --- the next stimulus ------------------------------------------------------------------------
    def expected_entropy(self) -> np.ndarray:
        """For each candidate level, the entropy the threshold's marginal posterior is expected to
        have after one answer there."""
        pi = self.posterior()
        hit = np.matmul(pi[:, None, :], self.hits)[:, 0, :]  # (thresholds, levels): P(t, hit | x)
        miss = pi.sum(axis=1)[:, None] - hit
        expected = np.zeros(len(self.levels))
        for joint in (hit, miss):
            marginal = joint.sum(axis=0)  # P(answer | x)
            conditional = joint / np.maximum(marginal, EPS)
            expected -= (joint * np.log(np.where(conditional > 0, conditional, 1.0))).sum(axis=0)
        return expected

    def next_level(self, exclude: Sequence[float] = ()) -> float:
        """The candidate level of least expected entropy; `exclude`: levels not to choose (byo adapt:
        those whose trial failed, a scene that cannot be placed), unless no other is left."""
        entropy = self.expected_entropy()
        barred = np.isin(self.levels, np.asarray(exclude, float))
        if barred.any() and not barred.all():
            entropy = np.where(barred, np.inf, entropy)
        return float(self.levels[int(np.argmin(entropy))])

    # --- what is known --------------------------------------------------------------------------
    def marginal(self) -> np.ndarray:
        """The threshold's posterior mass at each grid threshold."""
        return self.posterior().sum(axis=1)

    def estimate(self) -> Estimate:
        mass = self.marginal()
        step = self.thresholds[1] - self.thresholds[0]
        edges = np.concatenate([self.thresholds - step / 2, [self.thresholds[-1] + step / 2]])
        cumulative = np.concatenate([[0.0], np.cumsum(mass)])
        tail = (1 - self.confidence) / 2
        lo, median, hi = np.interp([tail, 0.5, 1 - tail], cumulative, edges)
        closed = bool(lo > edges[1] and hi < edges[-2])
        falls = float(self.posterior()[:, self._s < 0].sum())
        return Estimate(float(median), float(lo), float(hi), len(self.history), closed, falls)

    def curve(self, x: Sequence[float]) -> np.ndarray:
        """The posterior mean of P(hit) at levels x: the curve the answers so far predict."""
        return np.einsum("tn,tnx->x", self.posterior(), self.probability(np.asarray(x, float)))


@dataclass(frozen=True)
class Stop:
    """When an adaptive search stops: its interval at most `width` wide (a closed one), or `trials`
    answers, whichever comes first; None: no such limit."""

    width: float | None = None
    trials: int | None = None

    def __post_init__(self):
        if self.width is None and self.trials is None:
            raise ValueError("a stop needs a target width or a number of trials")

    def reason(self, estimate: Estimate) -> str | None:
        """Why to stop now, or None to go on."""
        if self.width is not None and estimate.closed and estimate.width <= self.width:
            return f"the {CONFIDENCE:.0%} interval is {estimate.width:.4g} wide (target {self.width:g})"
        if self.trials is not None and estimate.trials >= self.trials:
            return f"{estimate.trials} trials (the budget)"
        return None


def simulate(method: PsiMethod, observe, stop: Stop) -> tuple[Estimate, str]:
    """An adaptive search against a trial function `observe(level) -> hit`, no rendering: the estimate
    when `stop` says so, and why it stopped."""
    while True:
        level = method.next_level()
        method.update(level, bool(observe(level)))
        estimate = method.estimate()
        reason = stop.reason(estimate)
        if reason:
            return estimate, reason
