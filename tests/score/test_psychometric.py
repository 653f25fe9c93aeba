"""Breaking points: an estimate only where the data carry one, intervals that cover planted
thresholds and contain their own estimate, "not estimable: REASON" otherwise, and the fits reach
the maximum an independent optimiser finds."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from planted import count_questions, logistic_curve, planted_predictions, planted_rows
from scipy import optimize, special

from byo.score import psychometric as psy
from byo.score.rows import score_rows

PLANTED = 7.3
DESIGNS = [(5, 5), (5, 20), (10, 5), (10, 20)]  # levels x trials per level


def truth_fit(rows, link="logistic"):
    fits, points = psy.breaking_point_tables(rows, links=(link,))
    return next(f for f in fits if f["variable"] == psy.TRUTH), [p for p in points if p["variable"] == psy.TRUTH]


def own_estimate_inside(b: psy.Breaking) -> bool:
    """A reported interval contains its estimate (a point, or the two levels of a separated fit) and
    has positive width."""
    if b.verdict == psy.VERDICT_BREAKS:
        return b.lo < b.threshold < b.hi
    a, c = b.between
    return b.lo <= a < c <= b.hi


@pytest.mark.slow
def test_simulated_observers_planted_thresholds_are_covered_and_flat_ones_not_estimated():
    """A logistic observer (chance 0.25, lapse 0.03, 10% to 90% of its rise over 40% of the tested
    range) with a planted threshold drawn uniformly between the second and the second-to-last level;
    and a flat observer right 70% of the time at every level. 200 data sets of each per design."""
    rng = np.random.default_rng(2026)
    chance, lapse, datasets = 0.25, 0.03, 200
    lines = []
    for levels, trials in DESIGNS:
        x = np.arange(1.0, levels + 1)
        planted = rng.uniform(x[1], x[-2], size=datasets)
        steepness = 2 * np.log(9) / (0.4 * (x[-1] - x[0]))
        p = chance + (1 - chance - lapse) * special.expit(steepness * (x[None] - planted[:, None]))
        n = np.full((datasets, levels), float(trials))
        fits = psy.estimate(x, rng.binomial(trials, p).astype(float), n, chance)
        reported = [(b, t) for b, t in zip(fits, planted, strict=True) if b.verdict in psy.ESTIMATED]
        covered = sum(b.lo <= t <= b.hi for b, t in reported)
        own = sum(own_estimate_inside(b) for b, _ in reported)
        for b in fits:  # never a number where it is not estimable
            assert (b.verdict in psy.ESTIMATED) == (b.lo is not None) and (b.threshold is None) == (
                b.verdict != psy.VERDICT_BREAKS)
            assert b.describe().startswith("not estimable: ") == (b.verdict == psy.VERDICT_NOT)

        flat = psy.estimate(x, rng.binomial(trials, np.full((datasets, levels), 0.7)).astype(float), n, chance)
        not_estimable = sum(b.verdict == psy.VERDICT_NOT for b in flat)
        kinds = Counter(b.verdict for b in fits)
        lines.append(f"{levels:>2} levels x {trials:>2} trials: planted: {kinds[psy.VERDICT_BREAKS]} breaks, "
                     f"{kinds[psy.VERDICT_BETWEEN]} between levels, {kinds[psy.VERDICT_NOT]} not estimable; "
                     f"interval covers the planted threshold {covered}/{len(reported)} = "
                     f"{covered / len(reported):.1%}, contains its estimate {own}/{len(reported)}; flat: not "
                     f"estimable {not_estimable}/{datasets}")
        assert covered >= 0.90 * len(reported)
        assert own == len(reported)
        assert not_estimable >= 0.95 * datasets
        assert len(reported) >= 0.6 * datasets  # the checks do not refuse every real curve
    print("\n" + "\n".join(lines))


def test_a_planted_run_scored_end_to_end_breaks_near_its_threshold():
    fit, points = truth_fit(planted_rows(logistic_curve(PLANTED), seed=0))
    assert fit["verdict"] == psy.VERDICT_BREAKS and fit["threshold_lo"] < PLANTED < fit["threshold_hi"]
    assert fit["threshold_lo"] < fit["threshold"] < fit["threshold_hi"]
    assert fit["direction"] == "falls" and fit["slope"] < 0 and fit["interval"] == "profile likelihood"
    assert fit["breaking_point"] == (f"{fit['threshold']:.3g} [{fit['threshold_lo']:.3g}–"
                                     f"{fit['threshold_hi']:.3g}]")
    assert len(points) == 16 and fit["answer_prior"] is None


def test_a_flat_run_is_not_estimable_and_carries_no_number():
    fit, points = truth_fit(planted_rows(lambda count: 0.7, seed=5))
    assert fit["verdict"] == psy.VERDICT_NOT
    assert fit["breaking_point"].startswith("not estimable: no better than a constant accuracy")
    assert all(fit[k] is None for k in ("threshold", "threshold_lo", "threshold_hi", "slope", "lapse", "location",
                                        "beta", "direction"))
    assert len(points) == len(set(p["level"] for p in points)) == 16


def test_a_threshold_beyond_the_tested_counts_is_not_estimable():
    fit, _ = truth_fit(planted_rows(logistic_curve(17, slope=1.2), seed=1, images_per_count=60))
    assert fit["verdict"] == psy.VERDICT_NOT and "above the highest tested level (16)" in fit["note"]


def test_a_u_shaped_run_is_not_a_breaking_point():
    """No monotone curve beats a constant accuracy on a U, and none describes its levels."""
    fit, _ = truth_fit(planted_rows(lambda c: 0.95 if c <= 4 or c >= 13 else 0.05, seed=2))
    assert fit["verdict"] == psy.VERDICT_NOT and fit["gof_p"] < 0.05 and fit["threshold"] is None
    falls_late, _ = truth_fit(planted_rows(lambda c: 0.95 if c <= 4 or 9 <= c <= 11 else 0.05, seed=2))
    assert falls_late["verdict"] == psy.VERDICT_NOT and "does not describe the levels" in falls_late["note"]


def test_complete_separation_says_between_which_levels_and_that_the_slope_is_unbounded():
    x = np.arange(1.0, 7.0)
    k = np.array([20, 20, 20, 0, 0, 0], float)  # all right up to 3, all wrong from 4
    (b,) = psy.estimate(x, k[None], np.full((1, 6), 20.0), 0.0)
    assert b.verdict == psy.VERDICT_BETWEEN and b.between == (3.0, 4.0) and b.threshold is None
    assert b.lo <= 3.0 and b.hi >= 4.0 and b.hi - b.lo < 2.5
    assert b.describe().startswith("the threshold lies between levels 3 and 4 (95% interval ")
    assert b.describe().endswith("; slope unbounded")


def test_the_demos_blind_fall_is_not_a_number():
    """The issue's demo: 4 images, right only at the smallest true count (its constant answer),
    nothing tested between counts 2 and 7."""
    x = np.array([2.0, 7.0, 8.0])
    (b,) = psy.estimate(x, np.array([[2.0, 0, 0]]), np.array([[2.0, 1, 1]]), 0.0)
    assert b.verdict == psy.VERDICT_NOT and b.lo is None and b.threshold is None
    (two,) = psy.estimate(np.array([2.0, 7.0]), np.array([[2.0, 0]]), np.array([[2.0, 2]]), 0.0)
    assert two.describe() == "not estimable: 2 tested levels with answers; a curve needs 3"
    # the same images asked in two prompt variants, answered alike (the blind baseline): each image
    # counts once, so the second variant adds no evidence of a fall
    questions = [q for count in (2, 2, 7, 8) for q in count_questions(1, counts=[count], variants=(
        ("neutral", "direct"), ("debiased", "direct")))]
    questions = [q.model_copy(update={"image": f"im{i // 2}.png", "id": f"q{i}"}) for i, q in enumerate(questions)]
    rows = score_rows(questions, [{"id": q.id, "provider": "blind", "model": "blind", "response": "2",
                                   "status": "ok"} for q in questions], "blind")
    fit, _ = truth_fit(rows)
    assert fit["dispersion"] == 2.0 and fit["verdict"] == psy.VERDICT_NOT and fit["answer_prior"]
    assert fit["note"].startswith("no better than a constant accuracy")


def test_the_probit_fit_finds_the_planted_threshold_too():
    fit, _ = truth_fit(planted_rows(logistic_curve(PLANTED), seed=3, images_per_count=40), link="probit")
    assert fit["verdict"] == psy.VERDICT_BREAKS and fit["threshold_lo"] <= PLANTED <= fit["threshold_hi"]
    assert fit["direction"] == "falls" and fit["slope"] < 0


def test_prompt_variants_of_one_image_are_one_cluster():
    """Three variants answered alike carry one image's evidence: the interval is as wide as with one
    variant, and the dispersion (design effect) shows it."""
    one = planted_rows(logistic_curve(PLANTED), seed=4)
    three = [{**r, "id": f"{r['id']}#{v}", "variant": f"v{v}"} for r in one for v in range(3)]
    fit1, _ = truth_fit(one)
    fit3, points3 = truth_fit(three)
    assert fit3["threshold"] == pytest.approx(fit1["threshold"], abs=0.05)  # the pseudo-answers weigh less
    width1, width3 = (f["threshold_hi"] - f["threshold_lo"] for f in (fit1, fit3))
    assert width3 == pytest.approx(width1, rel=0.15)
    assert fit3["dispersion"] > 2.5 and fit1["dispersion"] == 1.0 and fit3["verdict"] == psy.VERDICT_BREAKS
    assert all(p["images"] * 3 == p["n"] for p in points3)


def test_a_preset_variable_is_fitted_on_its_values_and_named_beside_them():
    """Camera elevation by presets (old BYO-Eval names and new): fitted on degrees above the horizon."""
    questions = count_questions(30, counts=[3])
    elevations = ["top_down", "steep", "oblique", "high"]  # 90, 80, 60 and (old name of shallow) 30 degrees
    questions = [q.model_copy(update={"levels": {"camera.elevation": elevations[i % 4]}, "image": f"im{i}.png",
                                      "id": f"q{i}"}) for i, q in enumerate(questions * 4)]
    p_right = {"top_down": 0.97, "steep": 0.95, "oblique": 0.6, "high": 0.05}
    rng = np.random.default_rng(0)
    predictions = [p for q in questions
                   for p in planted_predictions([q], lambda c, e=q.levels["camera.elevation"]: p_right[e], rng)]
    fits, points = psy.breaking_point_tables(score_rows(questions, predictions, "r"), links=("logistic",))
    fit = next(f for f in fits if f["variable"] == "camera.elevation")
    assert fit["x_min"] == 30 and fit["x_max"] == 90 and fit["direction"] == "rises"
    assert fit["verdict"] in psy.ESTIMATED and 30 < fit["threshold_lo"] and fit["threshold_hi"] < 90
    assert [(p["level"], p["level_name"]) for p in points if p["variable"] == "camera.elevation"] == [
        (30.0, "high"), (60.0, "oblique"), (80.0, "steep"), (90.0, "top_down")]


def test_runs_whose_answers_do_not_depend_on_the_image_are_labelled_as_their_prior():
    questions = count_questions(4, counts=[1, 2, 3, 4, 5])
    blind = [{"id": q.id, "provider": "blind", "model": "blind", "response": "1", "status": "ok"}
             for q in questions]
    fits, _ = psy.breaking_point_tables(score_rows(questions, blind, "blind"), links=("logistic",))
    assert fits[0]["answer_prior"].startswith("the blind baseline")
    constant = [{**p, "provider": "fake", "model": "m"} for p in blind]
    fits, _ = psy.breaking_point_tables(score_rows(questions, constant, "m"), links=("logistic",))
    assert fits[0]["answer_prior"] == "one answer (1) to every question: it does not depend on the image"
    # right only at count 1: a fall the prior makes, never a finding about eyesight
    assert fits[0]["verdict"] == psy.VERDICT_BETWEEN and fits[0]["between_lo"] == 1 and fits[0]["between_hi"] == 2


def test_subitizing_range_and_chance():
    rows = planted_rows(lambda c: 1.0 if c <= 4 else 0.5, seed=0)
    fit, _ = truth_fit(rows)
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
    fits, points = psy.breaking_point_tables(rows, tolerance=3, links=("logistic",))
    assert fits[0]["outcome"] == "|error| <= 3"
    assert all(p["accuracy"] > 0.5 for p in points if p["level"] > 3)  # off by 1-3, never right


@pytest.mark.parametrize("link", psy.LINKS)
def test_batched_fisher_scoring_reaches_scipys_maximum(link):
    rng = np.random.default_rng(0)
    x = np.arange(1.0, 13.0)
    box = psy.bounds_for(x)
    for trial in range(20):
        t, b, lapse, chance = rng.uniform(3, 10), rng.uniform(0.3, 2.5), rng.uniform(0, 0.08), [0, 0.25, 0.5][trial % 3]
        shape = psy.Shape(chance, link, 1 if trial % 2 else -1)
        k = rng.binomial(30, shape.predict(np.array([t, np.log(b), lapse]), x)).astype(float)
        n = np.full_like(x, 30.0)

        def negative(theta, k=k, n=n, shape=shape):
            return -float(shape.loglik(theta[None], x, k[None], n[None])[0])

        reference = optimize.minimize(negative, np.array([t, np.log(b), 0.05]), method="L-BFGS-B", bounds=box,
                                      options={"ftol": 1e-13, "gtol": 1e-9, "maxiter": 2000})
        batch, ll_batch = psy.fit_batch(shape, np.array([[x.mean(), 0.0, 0.05]]), x, k[None], n[None], box)
        assert ll_batch[0] >= -reference.fun - 1e-4
        assert batch[0][0] == pytest.approx(reference.x[0], abs=2e-2)
