"""`byo plan CONFIG --power`: how many images a dataset needs to tell two models apart, and for an
accuracy's interval to be at most a given width.

Accuracy. Two models answer the questions of G images; each image carries m questions (question
keys x prompt variants) whose verdicts correlate within the image with intra-image correlation
rho, so the design effect is deff = 1 + (m - 1) rho. The two accuracies are compared by a two-sided
z test on the difference with clustered standard errors (what `byo compare`'s clustered p-value
does), taking the two models as independent, which is conservative: models that fail on the same
hard images make the paired test stronger. For accuracies p_a and p_b = p_a + delta:

    G = (z(1 - alpha/2) + z(power))^2 * (p_a (1 - p_a) + p_b (1 - p_b)) * deff / (m * delta^2)

Threshold. For a numeric variable with levels x_l, an assumed logistic curve (chance, lapse,
threshold, steepness) and m questions of one key per image, the variance of the fitted threshold
is v1 * deff / (G m), v1 the threshold's entry of the inverse Fisher information of one question
per level; two independent models differ in threshold by delta_t when

    G = (z(1 - alpha/2) + z(power))^2 * 2 * v1 * deff / (m * delta_t^2)   images per level.

The lapse counts as a free parameter of the information, which makes the number a few percent
(6-15% in tests/score/test_power.py) larger than a simulation of the bounded fit needs.

Interval. The images a group needs so that its accuracy's 95% interval, as `byo score` prints it
per cell (byo.core.stats.clustered_proportion: the Wilson score interval on the effective sample
size n / deff), is at most +-h wide, for an expected accuracy p (0.5, the widest, unless stated).
The Wilson interval's half-width on n questions is

    h(n) = z / (1 + z^2/n) * sqrt(p (1 - p) / n + z^2 / (4 n^2)),

and h(n) = h has the larger root

    N = z^2 * (p q - 2 h^2 + sqrt(p^2 q^2 - 4 h^2 p q + h^2)) / (2 h^2),   q = 1 - p

(the normal approximation's z^2 p q / h^2 less a little: 380.3 against 384.1 questions at p = 0.5,
h = 0.05). The scorer's design effect is the cluster-robust variance over the binomial one with
the observed accuracy plugged into both, on average D n / (n - D) for D = 1 + (m - 1) rho (exactly
n / (n - 1) with one question per image), so its effective sample size is n / D - 1 and G images
of m questions reach +-h when

    G = D (N + 1) / m   (rounded up).

A dataset config sets `n_images` per combination of levels; a group of c combinations (one cell,
one level of a variable, or every combination) gets c * n_images images, so the answer per scope is
ceil(G / c).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats

from byo.core.stats import CONFIDENCE, wilson_effective
from byo.score import psychometric as psy


@dataclass(frozen=True)
class PowerSettings:
    difference: float = 0.10  # accuracy points between the two models
    baseline: float = 0.5  # accuracy of the weaker model (0.5 needs the most images)
    alpha: float = 0.05
    power: float = 0.8
    icc: float = 0.3  # intra-image correlation of verdicts
    keys_per_image: int = 1  # question keys asked of each image
    variants: int = 1  # prompt variants of each question
    threshold_difference: float | None = None  # in units of the variable, for threshold power
    lapse: float = 0.02
    chance: float = 0.0
    interval: float = 0.05  # half-width of the 95% interval wanted per group
    expected_accuracy: float = 0.5  # for the interval (0.5: the widest)


def z_sum(alpha: float, power: float) -> float:
    return float(stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power))


def design_effect(questions_per_image: int, icc: float) -> float:
    return 1 + (questions_per_image - 1) * icc


def images_for_accuracy(difference: float, baseline: float, alpha: float, power: float, icc: float,
                        questions_per_image: int) -> int:
    """Images per compared group for a clustered z test of two accuracies `difference` apart."""
    pa = baseline
    pb = baseline + difference if baseline + difference <= 1 else baseline - difference
    m = questions_per_image
    g = z_sum(alpha, power) ** 2 * (pa * (1 - pa) + pb * (1 - pb)) * design_effect(m, icc) / (m * difference**2)
    return max(2, math.ceil(g))


def achieved_power(images: int, difference: float, baseline: float, alpha: float, icc: float,
                   questions_per_image: int) -> float:
    """The power of the same test on `images` images per group."""
    pa = baseline
    pb = baseline + difference if baseline + difference <= 1 else baseline - difference
    m = questions_per_image
    se = math.sqrt((pa * (1 - pa) + pb * (1 - pb)) * design_effect(m, icc) / (m * images))
    z = stats.norm.ppf(1 - alpha / 2)
    return float(stats.norm.sf(z - difference / se) + stats.norm.cdf(-z - difference / se))


def wilson_questions(half_width: float, expected: float, confidence: float = CONFIDENCE) -> float:
    """N: the (effective) number of questions at which the Wilson interval of an accuracy observed
    at `expected` is +-`half_width` wide (the module's docstring)."""
    if not 0 < half_width < 0.5:
        raise ValueError(f"half_width: expected a number between 0 and 0.5 (exclusive), got {half_width}")
    z2 = float(stats.norm.ppf(0.5 + confidence / 2)) ** 2
    pq, h2 = expected * (1 - expected), half_width**2
    return z2 * (pq - 2 * h2 + math.sqrt(pq * pq - 4 * h2 * pq + h2)) / (2 * h2)


def images_for_interval(half_width: float, expected: float, icc: float, questions_per_image: int,
                        confidence: float = CONFIDENCE) -> int:
    """Images per group for the scorer's clustered interval to be at most +-`half_width` wide:
    D (N + 1) / m rounded up (the module's docstring)."""
    d = design_effect(questions_per_image, icc)
    return max(2, math.ceil(d * (wilson_questions(half_width, expected, confidence) + 1) / questions_per_image))


def interval_half_width(images: int, expected: float, icc: float, questions_per_image: int,
                        confidence: float = CONFIDENCE) -> float | None:
    """The half-width of the scorer's clustered interval on `images` images (its effective sample
    size n / D - 1); None where that is not positive (one image: not estimable)."""
    n_eff = images * questions_per_image / design_effect(questions_per_image, icc) - 1
    if n_eff <= 0:
        return None
    lo, hi = wilson_effective(expected, n_eff, confidence)
    return (hi - lo) / 2


def threshold_variance_one(levels: Sequence[float], threshold: float, steepness: float, chance: float,
                           lapse: float, direction: int = -1) -> float:
    """v1: the variance of the fitted threshold with one question per level (logistic, criterion 0.5)."""
    x = np.asarray(levels, float)
    theta = np.array([[threshold, math.log(steepness), lapse]])
    shape = psy.Shape(chance, "logistic", direction)
    _, info = shape.score_and_information(theta, x, np.zeros((1, len(x))), np.ones((1, len(x))))  # not on the hits
    return float(np.linalg.pinv(info[0])[0, 0])


def default_curve(levels: Sequence[float]) -> tuple[float, float]:
    """An assumed curve over the tested levels: threshold in the middle, and steep enough to go from
    10% to 90% of its span over half the range."""
    lo, hi = float(min(levels)), float(max(levels))
    span = max(hi - lo, 1e-9)
    return (lo + hi) / 2, 4 * math.log(9) / span


def images_for_threshold(levels: Sequence[float], s: PowerSettings, threshold: float | None = None,
                         steepness: float | None = None) -> dict:
    mid, steep = default_curve(levels)
    threshold = mid if threshold is None else threshold
    steepness = steep if steepness is None else steepness
    v1 = threshold_variance_one(levels, threshold, steepness, s.chance, s.lapse)
    m = s.variants
    g = z_sum(s.alpha, s.power) ** 2 * 2 * v1 * design_effect(m, s.icc) / (m * s.threshold_difference**2)
    return {"images_per_level": max(2, math.ceil(g)), "assumed_threshold": threshold, "assumed_steepness": steepness,
            "threshold_sd_one_image": math.sqrt(v1)}


def plan_power(enumerated: dict[str, list], n_images: int, s: PowerSettings) -> dict:
    """Images per combination (the config's n_images) for each scope, and the power the config's own
    n_images gives. `enumerated`: each variable's levels."""
    combos = math.prod(len(v) for v in enumerated.values()) if enumerated else 1
    m = s.keys_per_image * s.variants
    g = images_for_accuracy(s.difference, s.baseline, s.alpha, s.power, s.icc, m)
    scopes = [{"scope": "each combination of levels", "combinations": 1}]
    for name, values in enumerated.items() if len(enumerated) > 1 else ():
        scopes.append({"scope": f"each level of {name}", "combinations": combos // max(1, len(values))})
    scopes.append({"scope": "all images pooled", "combinations": combos})
    for sc in scopes:
        sc["images_per_group"] = g
        sc["n_images"] = max(1, math.ceil(g / sc["combinations"]))
        sc["power_with_config"] = achieved_power(n_images * sc["combinations"], s.difference, s.baseline, s.alpha,
                                                 s.icc, m)
    g_interval = images_for_interval(s.interval, s.expected_accuracy, s.icc, m)
    interval = [{"scope": sc["scope"], "combinations": sc["combinations"], "images_per_group": g_interval,
                 "n_images": max(1, math.ceil(g_interval / sc["combinations"])),
                 "half_width_with_config": interval_half_width(n_images * sc["combinations"], s.expected_accuracy,
                                                               s.icc, m)}
                for sc in scopes]
    out = {"settings": asdict(s), "combinations": combos, "config_n_images": n_images,
           "questions_per_image": m, "design_effect": design_effect(m, s.icc), "accuracy": scopes,
           "interval": interval,
           "interval_method": "the scorer's clustered 95% interval: Wilson on the effective sample size n / deff, "
                              "deff taken as D n / (n - D), D = 1 + (m - 1) icc",
           "test": "two-sided z test of two accuracies with clustered standard errors (models independent: "
                   "conservative for byo compare's paired tests)"}
    if s.threshold_difference:
        out["thresholds"] = []
        for name, values in enumerated.items():
            numeric = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
            if len(numeric) >= psy.MIN_LEVELS and len(numeric) == len(values):
                need = images_for_threshold(numeric, s)
                per = combos // len(values)
                out["thresholds"].append({"variable": name, **need,
                                          "n_images": max(1, math.ceil(need["images_per_level"] / per))})
    return out


def simulate_accuracy_power(images: int, s: PowerSettings, reps: int, rng: np.random.Generator) -> float:
    """Monte Carlo power of the clustered z test: verdicts per image drawn from a beta-binomial with
    the intra-image correlation, two independent models."""
    m = s.keys_per_image * s.variants
    pb = s.baseline + s.difference
    z = stats.norm.ppf(1 - s.alpha / 2)
    estimates = []
    for p in (s.baseline, pb):
        if s.icc > 0:
            a, b = p * (1 - s.icc) / s.icc, (1 - p) * (1 - s.icc) / s.icc
            image_p = rng.beta(a, b, size=(reps, images))
        else:
            image_p = np.full((reps, images), p)
        k = rng.binomial(m, image_p)
        phat = k.sum(axis=1) / (images * m)
        var = ((k - m * phat[:, None]) ** 2).sum(axis=1) / (images * m) ** 2 * images / (images - 1)
        estimates.append((phat, var))
    (pa_hat, va), (pb_hat, vb) = estimates
    se = np.sqrt(va + vb)
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = np.abs(pb_hat - pa_hat) / se
    return float(np.mean(np.nan_to_num(stat, nan=0.0) > z))
