"""Proportions with their Wilson interval, means and proportions clustered by image, and the
difference of two paired proportions (Newcombe's interval, the sign test over images): shared by the
scorer, byo compare and families' own metrics."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import sqrt

import numpy as np
import scipy  # scipy.stats and scipy.optimize load on first use
from scipy.special import ndtri

CONFIDENCE = 0.95


def wilson(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float | None, float | None]:
    """The Wilson score interval (Newcombe 1998), with the same operations as scipy's
    `binomtest(k, n).proportion_ci(method="wilson")`, so the same bits, without the test's p-value,
    which costs a millisecond a call."""
    if n == 0:
        return None, None
    p = k / n
    z = ndtri(0.5 + 0.5 * confidence)
    denom = 2 * (n + z**2)
    center = (2 * n * p + z**2) / denom
    q = 1 - p
    delta = z / denom * sqrt(4 * n * p * q + z**2)
    low = 0.0 if k == 0 else center - delta
    high = 1.0 if k == n else center + delta
    return float(low), float(high)


def proportion(hits: Sequence[bool], confidence: float = CONFIDENCE) -> dict:
    k, n = int(sum(bool(h) for h in hits)), len(hits)
    lo, hi = wilson(k, n, confidence)
    return {"value": k / n if n else None, "k": k, "n": n, "lo": lo, "hi": hi}


def cluster_index(clusters: Sequence) -> tuple[np.ndarray, int]:
    """Each observation's cluster as 0..g-1, in first-seen order, and g."""
    ids: dict = {}
    index = np.fromiter((ids.setdefault(c, len(ids)) for c in clusters), dtype=np.int64, count=len(clusters))
    return index, len(ids)


def clustered_mean(values: Sequence[float], clusters: Sequence) -> dict:
    """A mean in [0, 1] (e.g. recall@1) with its cluster-robust (CR1) standard
    error and a normal 95% interval, clipped to [0, 1]."""
    n = len(values)
    if n == 0:
        return {"value": None, "lo": None, "hi": None, "se": None, "clusters": 0}
    v = np.asarray(values, float)
    index, g = cluster_index(clusters)
    mean = float(v.mean())
    resid = np.bincount(index, weights=v - mean, minlength=g)
    se = sqrt(float((resid ** 2).sum()) / n**2 * (g / (g - 1) if g > 1 else 1.0))
    return {"value": mean, "lo": max(0.0, mean - 1.96 * se), "hi": min(1.0, mean + 1.96 * se), "se": se,
            "clusters": g}


def clustered_proportion(hits: Sequence[bool], clusters: Sequence | None = None, confidence: float = CONFIDENCE, *,
                         index: tuple[np.ndarray, int] | None = None) -> dict:
    """A proportion whose observations come in clusters (the questions of one image and its prompt
    variants): the cluster-robust standard error (CR1 sandwich, as lmms-eval's clustered standard
    errors) and a Wilson interval on the effective sample size n / deff, where the design effect
    deff = robust variance / binomial variance, at least 1 (Kish). With one question per image it
    is the Wilson interval widened by CR1's n / (n - 1); it never leaves [0, 1]. `index`: `cluster_index(clusters)`, when several
    proportions share the clusters."""
    n = len(hits)
    if n == 0:
        return {"value": None, "k": 0, "n": 0, "lo": None, "hi": None, "se": None, "deff": None, "clusters": 0}
    index, g = index if index is not None else cluster_index(clusters)
    h = np.fromiter(hits, dtype=bool, count=n)
    k_c = np.bincount(index, weights=h, minlength=g)
    n_c = np.bincount(index, minlength=g)
    k = int(h.sum())
    p = k / n
    robust = float(((k_c - p * n_c) ** 2).sum()) / n**2 * (g / (g - 1) if g > 1 else 1.0)
    binomial = p * (1 - p) / n
    deff = max(1.0, robust / binomial) if binomial > 0 else 1.0
    lo, hi = wilson_effective(p, n / deff, confidence)
    return {"value": p, "k": k, "n": n, "lo": lo, "hi": hi, "se": sqrt(robust), "deff": deff, "clusters": g}


def wilson_effective(p: float, n_eff: float, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Wilson interval of a proportion p observed on an effective sample size n_eff (not
    necessarily whole)."""
    z = ndtri(0.5 + 0.5 * confidence)
    denom = 1 + z**2 / n_eff
    center = (p + z**2 / (2 * n_eff)) / denom
    half = z / denom * sqrt(max(0.0, p * (1 - p) / n_eff + z**2 / (4 * n_eff**2)))
    return float(0.0 if p == 0 else center - half), float(1.0 if p == 1 else center + half)


def wilson_at(p: float, n_eff: float, critical: float) -> tuple[float, float]:
    """The Wilson interval of a proportion p on an effective sample size n_eff, at a critical value
    (a normal quantile, or a t quantile for few clusters) instead of a confidence."""
    denom = 1 + critical**2 / n_eff
    center = (p + critical**2 / (2 * n_eff)) / denom
    half = critical / denom * sqrt(max(0.0, p * (1 - p) / n_eff + critical**2 / (4 * n_eff**2)))
    return float(0.0 if p == 0 else max(0.0, center - half)), float(1.0 if p == 1 else min(1.0, center + half))


@dataclass(frozen=True)
class PairedProportions:
    """Two proportions observed on the same questions, the questions in clusters (an image's
    questions and prompt variants), for the interval of their difference p_a - p_b.

    The interval is Newcombe's hybrid score interval for paired proportions (Newcombe 1998,
    "Improved confidence intervals for the difference between binomial proportions based on paired
    data", Statistics in Medicine 17:2635-2650, method 10; the MOVER of Zou & Donner 2008):
        L = d - sqrt((p_a - l_a)^2 - 2 phi (p_a - l_a)(u_b - p_b) + (u_b - p_b)^2)
        U = d + sqrt((u_a - p_a)^2 - 2 phi (u_a - p_a)(p_b - l_b) + (p_b - l_b)^2)
    with (l, u) each proportion's Wilson interval and phi the correlation of the pairs. Since
    l_a >= 0, u_b <= 1 and |phi| <= 1, L >= l_a - u_b >= -1 (and U <= 1): it never leaves [-1, 1].
    Deviations, for clustered questions: each Wilson interval is on its effective sample size
    n / deff (the design effect of `clustered_proportion`), phi is the correlation of the two
    proportions' cluster-robust (CR1) estimates (with one question per cluster, Newcombe's phi of
    the 2x2 table), and the critical value is t(1 - alpha / 2, clusters - 1), not z, as the
    clustered t test had. phi is 0 where a proportion has no variance (Newcombe's convention for a
    zero denominator)."""

    p_a: float
    p_b: float
    n_eff_a: float
    n_eff_b: float
    phi: float
    clusters: int

    @classmethod
    def of(cls, hits_a: Sequence[bool], hits_b: Sequence[bool], index: tuple[np.ndarray, int]) -> PairedProportions:
        a, b = np.asarray(hits_a, float), np.asarray(hits_b, float)
        n = len(a)
        cluster, g = index
        sizes = np.bincount(cluster, minlength=g)
        p_a, p_b = float(a.mean()), float(b.mean())
        resid_a = np.bincount(cluster, weights=a, minlength=g) - p_a * sizes
        resid_b = np.bincount(cluster, weights=b, minlength=g) - p_b * sizes
        factor = g / (g - 1) if g > 1 else 1.0
        var_a, var_b = (float((r**2).sum()) / n**2 * factor for r in (resid_a, resid_b))
        cov = float((resid_a * resid_b).sum()) / n**2 * factor

        def n_eff(p: float, robust: float) -> float:
            binomial = p * (1 - p) / n
            return n / (max(1.0, robust / binomial) if binomial > 0 else 1.0)

        phi = min(1.0, max(-1.0, cov / sqrt(var_a * var_b))) if var_a > 0 and var_b > 0 else 0.0
        return cls(p_a, p_b, n_eff(p_a, var_a), n_eff(p_b, var_b), phi, g)

    @property
    def difference(self) -> float:
        return self.p_a - self.p_b

    def critical(self, confidence: float) -> float:
        return float(scipy.stats.t.ppf(0.5 + 0.5 * confidence, max(self.clusters - 1, 1)))

    def interval_at(self, critical: float) -> tuple[float, float]:
        l_a, u_a = wilson_at(self.p_a, self.n_eff_a, critical)
        l_b, u_b = wilson_at(self.p_b, self.n_eff_b, critical)
        da, ub, ua, db = self.p_a - l_a, u_b - self.p_b, u_a - self.p_a, self.p_b - l_b
        low = self.difference - sqrt(max(0.0, da**2 - 2 * self.phi * da * ub + ub**2))
        high = self.difference + sqrt(max(0.0, ua**2 - 2 * self.phi * ua * db + db**2))
        return max(-1.0, low), min(1.0, high)

    def interval(self, confidence: float = CONFIDENCE) -> tuple[float, float]:
        return self.interval_at(self.critical(confidence))

    def p_value(self) -> float:
        """The test the interval inverts: the p for which the (1 - p) interval has 0 at its edge,
        so that the interval at 1 - alpha excludes 0 exactly when p < alpha."""
        d = self.difference
        if d == 0:
            return 1.0
        df = max(self.clusters - 1, 1)

        def edge(critical: float) -> float:  # > 0 while the interval excludes 0
            low, high = self.interval_at(critical)
            return low if d > 0 else -high

        top = 1e3
        if edge(top) > 0:
            return float(2 * scipy.stats.t.sf(top, df))
        return float(min(1.0, 2 * scipy.stats.t.sf(scipy.optimize.brentq(edge, 1e-9, top, xtol=1e-12), df)))


def cluster_sign_test(differences: Sequence[float]) -> tuple[float | None, int, int]:
    """The exact (binomial) sign test over clusters: each cluster's mean paired difference counts
    as one observation, + or - (zeros dropped); two-sided p = binomtest(k, k + m, 1/2). It needs no
    spread between clusters: 6 of 6 images one way gives p = 2 / 2^6 = 0.031. Returns (p, k, m),
    p None when no cluster differs."""
    d = np.asarray(differences, float)
    plus, minus = int((d > 0).sum()), int((d < 0).sum())
    if plus + minus == 0:
        return None, 0, 0
    return float(scipy.stats.binomtest(plus, plus + minus, 0.5).pvalue), plus, minus
