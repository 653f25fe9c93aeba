"""Proportions with their Wilson interval, and means and proportions clustered by image: shared by the
scorer and families' own metrics."""

from __future__ import annotations

from collections.abc import Sequence
from math import sqrt

import numpy as np
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
