"""Breaking points: planted curves are found, their intervals cover the planted threshold, flat and
badly shaped runs are told apart, and both fitting paths reach the same maximum."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from planted import count_questions, logistic_curve, planted_rows

from byo.score import psychometric as psy
from byo.score.metrics import rng_for

PLANTED = 7.3


def truth_fit(rows, n_boot=200, link="logistic", seed=0):
    fits, points = psy.breaking_point_tables(rows, n_boot=n_boot, seed=seed, links=(link,), rng_for=rng_for)
    return next(f for f in fits if f["variable"] == psy.TRUTH), [p for p in points if p["variable"] == psy.TRUTH]


def test_planted_threshold_is_covered_in_at_least_90_of_100_runs():
    covered, thresholds, widths, verdicts = 0, [], [], Counter()
    for seed in range(100):
        fit, _ = truth_fit(planted_rows(logistic_curve(PLANTED), seed=seed))
        verdicts[fit["verdict"]] += 1
        covered += fit["threshold_lo"] <= PLANTED <= fit["threshold_hi"]
        thresholds.append(fit["threshold"])
        widths.append(fit["threshold_hi"] - fit["threshold_lo"])
    print(f"planted {PLANTED}: covered in {covered} of 100 runs; mean threshold {np.mean(thresholds):.2f}, "
          f"mean interval width {np.mean(widths):.2f}; verdicts {dict(verdicts)}")
    assert covered >= 90
    # The goodness-of-fit test is at 5%: a true curve is flagged poor about 5 times in 100.
    assert verdicts[psy.VERDICT_BREAKS] >= 88 and verdicts[psy.VERDICT_BREAKS] + verdicts[psy.VERDICT_POOR] == 100
    assert abs(np.mean(thresholds) - PLANTED) < 0.15


def test_a_flat_run_has_no_breaking_point_in_range():
    fit, points = truth_fit(planted_rows(lambda count: 0.7, seed=5))
    assert fit["verdict"] == psy.VERDICT_NONE
    assert "flat" in fit["note"]
    assert "threshold_lo" not in fit  # no interval is invented
    assert len(points) == len(set(p["level"] for p in points)) == 16


def test_a_threshold_beyond_the_tested_counts_is_not_a_breaking_point():
    fit, _ = truth_fit(planted_rows(logistic_curve(17, slope=1.2), seed=1, images_per_count=60))
    assert fit["verdict"] == psy.VERDICT_NONE and "above the tested levels" in fit["note"]


def test_a_u_shaped_run_is_a_poor_fit_and_says_so():
    fit, _ = truth_fit(planted_rows(lambda c: 0.95 if c <= 4 or c >= 13 else 0.05, seed=2))
    assert fit["verdict"] == psy.VERDICT_POOR and fit["gof_p"] < 0.05


def test_the_probit_fit_finds_the_planted_threshold_too():
    fit, _ = truth_fit(planted_rows(logistic_curve(PLANTED), seed=3, images_per_count=40), link="probit")
    assert fit["verdict"] == psy.VERDICT_BREAKS and fit["threshold_lo"] <= PLANTED <= fit["threshold_hi"]
    assert fit["direction"] == "falls" and fit["slope"] < 0


def test_prompt_variants_of_one_image_are_one_cluster():
    """Three variants answered alike carry one image's evidence: the interval is as wide as with one
    variant, and the dispersion (design effect) shows it."""
    one = planted_rows(logistic_curve(PLANTED), seed=4)
    three = [{**r, "id": f"{r['id']}#{v}", "variant": f"v{v}"} for r in one for v in range(3)]
    fit1, _ = truth_fit(one, seed=1)
    fit3, points3 = truth_fit(three, seed=1)
    assert fit3["threshold"] == pytest.approx(fit1["threshold"], abs=1e-4)
    width1, width3 = (f["threshold_hi"] - f["threshold_lo"] for f in (fit1, fit3))
    assert width3 == pytest.approx(width1, rel=0.15)
    assert fit3["dispersion"] > 2.5 and fit3["verdict"] == psy.VERDICT_BREAKS
    assert all(p["images"] * 3 == p["n"] for p in points3)


def test_subitizing_range_and_chance():
    rows = planted_rows(lambda c: 1.0 if c <= 4 else 0.5, seed=0)
    fit, _ = truth_fit(rows, n_boot=0)
    assert fit["subitizing"] == 4.0
    assert psy.subitizing_range(np.array([0, 1, 2]), np.array([5, 9, 10]), np.array([10, 10, 10])) is None
    choice = [{"answer_type": "multiple_choice", "choices": list("ABCD"), "answer": "A"}] * 3
    assert psy.chance_of(choice) == 0.25
    assert psy.chance_of([{"answer_type": "label", "answer": a} for a in ("white", "black", "White")]) == 0.5
    assert psy.chance_of([{"answer_type": "integer", "answer": 3}]) == 0.0


def test_a_tolerance_counts_near_misses():
    questions = count_questions(5)
    rows = planted_rows(lambda c: 0.0, seed=0, images_per_count=5)
    assert len(rows) == len(questions)
    fits, _ = psy.breaking_point_tables(rows, n_boot=0, tolerance=3, links=("logistic",))
    points = psy.breaking_point_tables(rows, n_boot=0, tolerance=3)[1]
    assert fits[0]["outcome"] == "|error| <= 3"
    assert all(p["accuracy"] > 0.5 for p in points if p["level"] > 3)  # off by 1-3, never right


@pytest.mark.parametrize("link", psy.LINKS)
def test_batched_fisher_scoring_reaches_scipys_maximum(link):
    rng = np.random.default_rng(0)
    x = np.arange(1.0, 13.0)
    for trial in range(20):
        alpha, b, lapse, chance = rng.uniform(3, 10), rng.uniform(0.3, 2.5), rng.uniform(0, 0.08), [0, 0.25, 0.5][trial % 3]
        direction = 1 if trial % 2 else -1
        p = chance + (1 - chance - lapse) * psy.link_cdf(link, direction * b * (x - alpha))
        n = np.full_like(x, 30.0)
        k = rng.binomial(30, p).astype(float)
        box = psy.bounds_for(x)
        theta, ll = psy.fit_scipy(x, k, n, chance, link, direction, box)
        start = np.array([[x.mean(), 0.0, 0.05]])
        batch, ll_batch = psy.fit_batch(start, x, k[None], n[None], chance, link, direction, box)
        assert ll_batch[0] == pytest.approx(ll, abs=1e-4)
        assert batch[0][0] == pytest.approx(theta[0], abs=2e-2)
