"""Proportions with their Wilson interval: shared by the scorer and families' own metrics."""

from __future__ import annotations

from collections.abc import Sequence
from math import sqrt

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
