"""Proportions with their Wilson interval: shared by the scorer and families' own metrics."""

from __future__ import annotations

from collections.abc import Sequence

from scipy.stats import binomtest

CONFIDENCE = 0.95


def wilson(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float | None, float | None]:
    if n == 0:
        return None, None
    ci = binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def proportion(hits: Sequence[bool], confidence: float = CONFIDENCE) -> dict:
    k, n = int(sum(bool(h) for h in hits)), len(hits)
    lo, hi = wilson(k, n, confidence)
    return {"value": k / n if n else None, "k": k, "n": n, "lo": lo, "hi": hi}
