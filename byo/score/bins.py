"""Ranges of a variable's levels that a table pools (`--bins VARIABLE=LO-HI,...`): kept apart from
byo.score.tables, which the command line's options need without its imports."""

from __future__ import annotations

# Table 3 of BYO-Eval: "Low (1-4 pcs), Medium (5-9 pcs), High (10-21 pcs)".
NAMED_BINS = {"byo-eval": ((1, 4), (5, 9), (10, 21))}
Bins = dict[str, list[tuple[float, float]]]  # variable -> its ranges [lo, hi], both ends included


def parse_bins(spec: str) -> tuple[str, list[tuple[float, float]]]:
    """`VARIABLE=1-4,5-9,10-21` (or `VARIABLE=byo-eval`, Table 3's count ranges) -> (variable, ranges).
    ValueError says what is wrong."""
    variable, sep, ranges = spec.partition("=")
    if not sep or not variable.strip() or not ranges.strip():
        raise ValueError(f"expected VARIABLE=LO-HI,LO-HI,... or VARIABLE={'|'.join(NAMED_BINS)}, got {spec[:60]!r}")
    if ranges.strip() in NAMED_BINS:
        return variable.strip(), [tuple(map(float, r)) for r in NAMED_BINS[ranges.strip()]]
    out = []
    for part in ranges.split(","):
        lo, dash, hi = part.strip().partition("-")
        try:
            pair = (float(lo), float(hi))
        except ValueError:
            raise ValueError(f"range {part.strip()[:30]!r}: expected LO-HI with numbers, e.g. 5-9") from None
        if not dash or pair[0] > pair[1]:
            raise ValueError(f"range {part.strip()[:30]!r}: expected LO-HI with LO <= HI")
        if out and pair[0] <= out[-1][1]:
            raise ValueError(f"range {part.strip()[:30]!r} overlaps the one before it: ranges go up without overlap")
        out.append(pair)
    return variable.strip(), out
