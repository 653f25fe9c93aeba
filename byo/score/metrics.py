"""Metric functions on plain lists, with their intervals.

Definitions (also in the README):
- accuracy: correct / all questions; an answer that did not parse (ambiguous, refusal,
  unparsed, error) is wrong. Wilson interval.
- within-one accuracy: |prediction - truth| <= 1, over all questions like accuracy.
- errors (signed error, MAE, MSE, RMSE, NMAE) use parsed answers only; `excluded` counts the rest.
- NMAE = mean of |prediction - truth| / max(|truth|, 1): the error relative to the truth, and the
  plain absolute error when the truth is 0, as BYO-Eval's text defines it ("MAE divided by the
  target if it is different than 0 or MAE"); its code counts 1.0 for any error at truth 0
  (`nmae_term_byoeval_code`, for comparison only). One definition for every table and plot.
- intervals for errors: percentile bootstrap that resamples images (all questions of an image
  together), seeded; when every value is equal, or there is one image, the interval is the value
  itself and flagged.
- set precision / recall / F1 (label sets) are micro-averaged, and yes/no precision / recall / F1
  are of the answer "yes"; an unparsed answer is an empty prediction.
- macro precision / recall / F1 of single answers (counts, rows, columns, labels, position words,
  cards): per true class, macro-averaged; an unparsed answer answers no class.
- BYO-Eval's precision / recall / F1 (`byoeval_prf`), reliability and consistency, and the
  standard deviations over images of its Table 2: as its code computes them, below.
"""

from __future__ import annotations

import math
import zlib
from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence

import numpy as np

from byo.core.report_tables import group_by  # noqa: F401  (the scorer's grouping, shared with the families)
from byo.core.stats import (  # noqa: F401  (the scorer's metrics, in one place)
    CONFIDENCE,
    cluster_index,
    clustered_proportion,
    proportion,
    wilson,
    wilson_effective,
)


def rng_for(seed: int, label: str) -> np.random.Generator:
    """One stream per group, so an interval does not depend on which other groups were computed."""
    return np.random.default_rng([seed, zlib.crc32(label.encode())])


def bootstrap_mean(values: Sequence[float], clusters: Sequence[Hashable], *, n_boot: int = 1000, seed: int = 0,
                   label: str = "", confidence: float = CONFIDENCE) -> dict:
    """Mean of `values` with a percentile interval from resampling whole clusters (images)."""
    n = len(values)
    if n == 0:
        return {"value": None, "lo": None, "hi": None, "n": 0, "flag": None}
    v = np.asarray(values, dtype=float)
    mean = float(v.mean())
    ids: dict[Hashable, int] = {}
    index = np.array([ids.setdefault(c, len(ids)) for c in clusters])
    sums = np.bincount(index, weights=v, minlength=len(ids))
    counts = np.bincount(index, minlength=len(ids)).astype(float)
    if np.all(v == v[0]):
        return {"value": mean, "lo": mean, "hi": mean, "n": n, "flag": "all equal"}
    if len(ids) == 1 or n_boot <= 0:
        return {"value": mean, "lo": None, "hi": None, "n": n, "flag": "one image" if len(ids) == 1 else "no bootstrap"}
    rng = rng_for(seed, label)
    means = np.empty(n_boot)
    chunk = max(1, 2_000_000 // len(ids))
    same_count = counts.min() == counts.max()  # e.g. one question per image: every resample has as many
    for start in range(0, n_boot, chunk):
        stop = min(n_boot, start + chunk)
        draw = rng.integers(0, len(ids), size=(stop - start, len(ids)))
        # Whole numbers: the sum of equal counts is their product, exactly.
        questions = counts[0] * len(ids) if same_count else counts.take(draw).sum(axis=1)
        means[start:stop] = sums.take(draw).sum(axis=1) / questions
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(means, [alpha, 1 - alpha])
    return {"value": mean, "lo": float(lo), "hi": float(hi), "n": n, "flag": None}


def nmae_term(pred: float, truth: float) -> float:
    """|pred - truth| / max(|truth|, 1): relative error, absolute when the truth is 0 (BYO-Eval's
    section 3.2: "NMAE, which is MAE divided by the target if it is different than 0 or MAE")."""
    return abs(pred - truth) / max(abs(truth), 1.0)


def nmae_term_byoeval_code(pred: float, truth: float) -> float:
    """The NMAE term of BYO-Eval's public code: |pred - truth| / truth, and at truth 0 1.0 for any
    error (0.0 when right), whatever its size. The project prints `nmae_term` (the paper's text);
    the two differ only at truth 0 with an error other than 1."""
    if truth != 0:
        return abs(pred - truth) / abs(truth)
    return 1.0 if pred != truth else 0.0


def errors(preds: Sequence[float | None], truths: Sequence[float], clusters: Sequence[Hashable], *,
           n_boot: int = 1000, seed: int = 0, label: str = "", normalized: bool = True) -> dict:
    """Signed error, MAE, MSE, RMSE and (if `normalized`) NMAE over parsed predictions (not None)."""
    used = [(float(p), float(t), c) for p, t, c in zip(preds, truths, clusters, strict=True) if p is not None]
    out: dict = {"n_errors": len(used), "excluded": len(preds) - len(used)}
    signed = [p - t for p, t, _ in used]
    cl = [c for _, _, c in used]
    stats = {"signed": signed, "mae": [abs(e) for e in signed], "mse": [e * e for e in signed]}
    if normalized:
        stats["nmae"] = [nmae_term(p, t) for p, t, _ in used]
    for name, values in stats.items():
        out[name] = bootstrap_mean(values, cl, n_boot=n_boot, seed=seed, label=f"{label}|{name}")
    mse = out["mse"]
    out["rmse"] = {k: (math.sqrt(mse[k]) if k in ("value", "lo", "hi") and mse[k] is not None else mse[k])
                   for k in mse}
    return out


def prf(tp: int, fp: int, fn: int) -> dict:
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    f1 = (2 * precision * recall / (precision + recall) if precision and recall else
          (0.0 if precision is not None and recall is not None else None))
    return {"precision": precision, "recall": recall, "f1": f1, "tp": tp, "fp": fp, "fn": fn}


def set_prf(preds: Sequence[Sequence[str] | None], truths: Sequence[Sequence[str]]) -> dict:
    """Micro precision / recall / F1 of predicted label sets (None: nothing predicted)."""
    tp = fp = fn = 0
    for p, t in zip(preds, truths, strict=True):
        p, t = set(p or ()), set(t)
        tp, fp, fn = tp + len(p & t), fp + len(p - t), fn + len(t - p)
    return prf(tp, fp, fn)


def macro_prf(preds: Sequence[Hashable | None], truths: Sequence[Hashable]) -> dict:
    """Macro precision, recall and F1: per true class c, precision = right answers c / answers c,
    recall = right answers c / questions whose truth is c, F1 their harmonic mean; each averaged
    over the true classes. A class never answered has precision 0; an answer that did not parse
    (None) answers no class. Not BYO-Eval's rule (`byoeval_prf`): an answer that is always the
    most common truth keeps its accuracy here but not its F1."""
    truth_n = Counter(truths)
    if not truth_n:
        return {"precision": None, "recall": None, "f1": None}
    answered = Counter(p for p in preds if p is not None)
    right = Counter(t for p, t in zip(preds, truths, strict=True) if p == t)
    ps, rs, fs = [], [], []
    for c, n in truth_n.items():  # one pass over the answers, then each class once
        precision = right[c] / answered[c] if answered[c] else 0.0
        recall = right[c] / n
        ps.append(precision)
        rs.append(recall)
        fs.append(2 * precision * recall / (precision + recall) if precision + recall else 0.0)
    return {"precision": float(np.mean(ps)), "recall": float(np.mean(rs)), "f1": float(np.mean(fs))}


# --- BYO-Eval's metrics as its code computes them (byoeval/BYO-EVAL, evaluate_diagnose_dataset.py,
# calculate_additional_metrics; the paper names them in its tables without defining them) --------
BYOEVAL_POSITIVE = frozenset({"1", "yes", "true"})


def byoeval_positive(truth) -> bool:
    """Whether BYO-Eval's code counts a wrong answer to `truth` as a false negative: the truth's
    text, lowercased, is "1", "yes" or "true" (a count or row of 1 included)."""
    if isinstance(truth, float) and truth.is_integer():
        truth = int(truth)
    return str(truth).strip().lower() in BYOEVAL_POSITIVE


def byoeval_prf(correct: Sequence[bool], truths: Sequence) -> dict:
    """BYO-Eval's precision, recall and F1 (`f1_byoeval`; Tables 2, 4 and 6), by its code's rule:
    "if detail['correct']: true_positive += 1; else: if detail['expected'].lower() in ['yes',
    'true', '1']: false_negative += 1; else: false_positive += 1", then precision = TP / (TP + FP),
    recall = TP / (TP + FN), F1 = 2 P R / (P + R) = 2 TP / (2 TP + FP + FN).

    Every wrong answer is a false positive or a false negative, so FP + FN = n - TP and
    F1 = 2 acc / (1 + acc), a function of accuracy alone whatever the answers (37 of the paper's 40
    F1 cells of Tables 2, 4 and 6 are that of their accuracy to the printed digits). Precision and
    recall split the wrong answers by whether the truth is "1"/"yes"/"true": without such truths
    recall is 1 and precision is accuracy. A ratio whose denominator is 0 is None (not estimable;
    the paper's code prints 0)."""
    tp = fp = fn = 0
    for right, truth in zip(correct, truths, strict=True):
        if right:
            tp += 1
        elif byoeval_positive(truth):
            fn += 1
        else:
            fp += 1
    n = tp + fp + fn
    return {"precision": tp / (tp + fp) if tp + fp else None, "recall": tp / (tp + fn) if tp + fn else None,
            "f1": 2 * tp / (2 * tp + fp + fn) if n else None, "tp": tp, "fp": fp, "fn": fn}


def f1_from_accuracy(accuracy: float) -> float:
    """2 acc / (1 + acc): BYO-Eval's F1 of answers with that accuracy (see `byoeval_prf`)."""
    return 2 * accuracy / (1 + accuracy)


def image_means(values: Sequence[float], index: tuple[np.ndarray, int]) -> np.ndarray:
    """The mean of `values` per image (`index`: cluster_index of their images), images without a
    value left out."""
    idx, g = index
    v = np.asarray(values, dtype=float)
    counts = np.bincount(idx, minlength=g)
    sums = np.bincount(idx, weights=v, minlength=g)
    return sums[counts > 0] / counts[counts > 0]


def image_sd(per_image: np.ndarray) -> float | None:
    """The standard deviation over images of a per-image value, as BYO-Eval's Table 2 gives it
    ("Mean and standard deviation over 50 images for each task"; its code's calculate_std divides
    by the number of images). None with fewer than 2 images (the paper's code prints 0)."""
    return float(np.std(per_image)) if len(per_image) >= 2 else None


def reliability(hits: Sequence[bool], index: tuple[np.ndarray, int]) -> float | None:
    """BYO-Eval's Rel (Table 4): the mean over images of each image's accuracy, its code's
    "reliability = sum(image_accuracies) / len(image_accuracies)". It is the accuracy when every
    image has as many questions; otherwise each image weighs the same, whatever its questions."""
    per_image = image_means(hits, index)
    return float(per_image.mean()) if len(per_image) else None


def consistency(questions: Sequence[str], answers: Sequence[Hashable]) -> float | None:
    """BYO-Eval's Cons (Table 4): per question text asked more than once, the share of its most
    common answer, averaged over those texts; its code's "how often the most common answer
    appears": most_common / len(answers) per question text (the full prompt, so the same question
    over the images of a task). None when no text is asked twice.

    It measures how alike the answers to one text are, not whether they are right: a constant
    answer scores 1, and a perfect answer the share of the most common truth of each text."""
    by_text: dict[str, Counter] = defaultdict(Counter)
    for q, a in zip(questions, answers, strict=True):
        by_text[q][a] += 1
    shares = [max(c.values()) / c.total() for c in by_text.values() if c.total() > 1]
    return float(np.mean(shares)) if shares else None


def binary_prf(preds: Sequence[str | None], truths: Sequence[str], positive: str = "yes") -> dict:
    tp = sum(p == positive and t == positive for p, t in zip(preds, truths, strict=True))
    fp = sum(p == positive and t != positive for p, t in zip(preds, truths, strict=True))
    fn = sum(p != positive and t == positive for p, t in zip(preds, truths, strict=True))
    return prf(tp, fp, fn)


def confusion(truths: Sequence, preds: Sequence) -> dict:
    """Counts of (truth, prediction); `labels` lists the truths first, then other predictions."""
    counts = Counter(zip(truths, preds, strict=True))
    labels = sorted(set(truths), key=_order) + sorted(set(preds) - set(truths), key=_order)
    return {"labels": labels, "counts": {(t, p): n for (t, p), n in counts.items()}}


def _order(x):
    return (0, x, "") if isinstance(x, int | float) and not isinstance(x, bool) else (1, 0, str(x))


def localization_error(pred: Sequence[int], truth: Sequence[int]) -> int:
    """|dx| + |dy| on the grid (BYO-Eval)."""
    return abs(pred[0] - truth[0]) + abs(pred[1] - truth[1])
