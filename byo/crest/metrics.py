"""KamonBench's label metrics (section 4), for scoring predictions against crest labels.

- Strings are normalized first: whitespace removed, katakana turned into hiragana.
- Acc: exact match. Acc NIT: accuracy over rows whose target and prediction are both absent
  from the training labels.
- CER / TER: total Levenshtein edits over total reference length, in characters (Japanese,
  English) or program tokens.
- Program factors: a prediction is parseable with optional C tokens, one X and one M; factor
  accuracy per factor, container accuracy only over rows whose target has a container.
- Motif sensitivity over contexts o = (C, R) of contained targets, pairs with different target
  motifs: motif separation, pair motif accuracy, collapsed motif groups.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence

from byo.crest.labels import normalize, program_factors


def levenshtein(a: Sequence, b: Sequence) -> int:
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def accuracy(preds: Sequence[str], refs: Sequence[str]) -> float:
    return sum(normalize(p) == normalize(r) for p, r in zip(preds, refs, strict=True)) / max(1, len(refs))


def accuracy_nit(preds: Sequence[str], refs: Sequence[str], train: Sequence[str]) -> float | None:
    """Accuracy on rows whose target and prediction are both new (not in training); None if none are."""
    seen = {normalize(t) for t in train}
    rows = [(normalize(p), normalize(r)) for p, r in zip(preds, refs, strict=True)
            if normalize(p) not in seen and normalize(r) not in seen]
    return sum(p == r for p, r in rows) / len(rows) if rows else None


def error_rate(preds: Sequence[str], refs: Sequence[str], unit: str = "char") -> float:
    """CER (unit "char") or TER (unit "token", whitespace-separated program tokens)."""
    def split(s: str):
        return normalize(s) if unit == "char" else s.split()

    edits = sum(levenshtein(split(p), split(r)) for p, r in zip(preds, refs, strict=True))
    return edits / max(1, sum(len(split(r)) for r in refs))


def factor_accuracy(preds: Sequence[str], refs: Sequence[str]) -> dict[str, float | None]:
    """Parseable rate and per-factor accuracy of program-code predictions."""
    rows = [(program_factors(p), program_factors(r)) for p, r in zip(preds, refs, strict=True)]
    n = max(1, len(rows))
    contained = [(p, r) for p, r in rows if r["containers"]]
    return {
        "parseable": sum(p is not None for p, _ in rows) / n,
        "container": (sum(p is not None and p["containers"] == r["containers"] for p, r in contained)
                      / len(contained)) if contained else None,
        "modifier": sum(p is not None and p["modifier"] == r["modifier"] for p, r in rows) / n,
        "motif": sum(p is not None and p["motif"] == r["motif"] for p, r in rows) / n,
    }


def motif_sensitivity(preds: Sequence[str], refs: Sequence[str]) -> dict[str, float | None]:
    """Counterfactual motif metrics over fixed (container, modifier) contexts of contained targets."""
    groups: dict[tuple, list[tuple[dict | None, dict]]] = defaultdict(list)
    for p, r in zip(preds, refs, strict=True):
        ref = program_factors(r)
        if ref["containers"]:
            groups[(tuple(ref["containers"]), ref["modifier"])].append((program_factors(p), ref))
    pairs = separated = both_right = 0
    collapsed = 0
    for rows in groups.values():
        for (pi, ri), (pk, rk) in itertools.combinations(rows, 2):
            if ri["motif"] == rk["motif"]:
                continue
            pairs += 1
            ok = pi is not None and pk is not None
            separated += ok and pi["motif"] != pk["motif"]
            both_right += ok and pi["motif"] == ri["motif"] and pk["motif"] == rk["motif"]
        collapsed += len({p["motif"] for p, _ in rows if p is not None}) <= 1
    return {
        "motif_separation": separated / pairs if pairs else None,
        "pair_motif_accuracy": both_right / pairs if pairs else None,
        "collapsed_motif_groups": collapsed / len(groups) if groups else None,
    }
