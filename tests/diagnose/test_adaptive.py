"""The psi method against simulated observers (no rendering, no model): its posterior and its
choice of the next level worked out by hand on a tiny grid, and its estimate against planted
thresholds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from byo.diagnose.adaptive import PsiMethod, Stop, candidate_levels, simulate


def logistic(z: float) -> float:
    return 1 / (1 + math.exp(-z))


def observer(threshold: float, slope: float, lapse: float, chance: float, seed: int):
    """Right with probability chance + (1 - chance - lapse) * logistic(slope * (x - threshold))."""
    rng = np.random.default_rng(seed)
    return lambda x: rng.random() < chance + (1 - chance - lapse) * logistic(slope * (x - threshold))


def tiny() -> PsiMethod:
    """Two candidate levels, 0 and 10; the grid cut down to five thresholds, one steepness, no lapse,
    falling accuracy: every probability below is computed by hand."""
    m = PsiMethod([0.0, 10.0], direction="falls", thresholds=5, steepnesses=1, lapses=(0.0,))
    assert m.thresholds.tolist() == [-1.0, 2.0, 5.0, 8.0, 11.0]  # the range widened by a tenth each side
    assert m.steepnesses.tolist() == pytest.approx([0.05])  # FLATTEST / range
    return m


def test_posterior_after_answers_is_bayes_rule_by_hand():
    m = tiny()
    b = 0.05
    p = {(t, x): logistic(-b * (x - t)) for t in m.thresholds for x in (0.0, 10.0)}
    m.update(0.0, True)
    m.update(10.0, False)
    m.update(0.0, True)
    likelihood = np.array([p[(t, 0.0)] ** 2 * (1 - p[(t, 10.0)]) for t in m.thresholds])
    assert m.marginal() == pytest.approx(likelihood / likelihood.sum(), rel=1e-9)
    assert m.history == [(0.0, True), (10.0, False), (0.0, True)]


def test_next_level_minimizes_the_expected_entropy_of_the_threshold_by_hand():
    m = tiny()
    m.update(10.0, True)  # an uneven posterior, so the two levels differ
    prior = m.marginal()
    expected = []
    for x in (0.0, 10.0):
        h = 0.0
        for hit in (True, False):
            joint = np.array([w * (logistic(-0.05 * (x - t)) if hit else 1 - logistic(-0.05 * (x - t)))
                              for w, t in zip(prior, m.thresholds, strict=True)])
            conditional = joint / joint.sum()
            h += joint.sum() * -(conditional * np.log(conditional)).sum()
        expected.append(h)
    assert m.expected_entropy() == pytest.approx(expected, rel=1e-9)
    assert m.next_level() == (0.0, 10.0)[int(np.argmin(expected))]


def test_an_update_off_the_candidate_levels_uses_its_own_probability():
    on, off = tiny(), tiny()
    on.update(0.0, False)
    off.update(3.0, False)
    by_hand = np.array([1 - logistic(-0.05 * (3.0 - t)) for t in off.thresholds])
    assert off.marginal() == pytest.approx(by_hand / by_hand.sum(), rel=1e-9)
    assert not np.allclose(on.marginal(), off.marginal())


@pytest.mark.parametrize("threshold", [2.5, 7.5])
def test_the_interval_covers_a_planted_threshold(threshold):
    """30 runs of 60 trials each against a steep falling observer with lapses: the 95% interval
    holds the planted threshold in nearly all (a binomial(30, 0.95) gives 26 or more 98% of the
    time) and the median estimate is within 0.2 of it."""
    covered, estimates = 0, []
    for seed in range(30):
        m = PsiMethod(candidate_levels(0, 10), direction="falls")
        est, _ = simulate(m, observer(threshold, -2.0, 0.02, 0.0, seed), Stop(trials=60))
        covered += est.lo <= threshold <= est.hi
        estimates.append(est.threshold)
        assert est.closed and est.lo < est.threshold < est.hi
    assert covered >= 26
    assert abs(np.median(estimates) - threshold) < 0.2


def test_trials_gather_at_the_threshold():
    """The levels the method chooses: after the first few, most within one unit of the threshold."""
    m = PsiMethod(candidate_levels(0, 10), direction="falls")
    simulate(m, observer(6.0, -3.0, 0.0, 0.0, seed=3), Stop(trials=50))
    later = np.array([x for x, _ in m.history[10:]])
    assert np.mean(np.abs(later - 6.0) <= 1.0) >= 0.8


def test_chance_and_direction_either():
    """A rising observer answering four-option questions: chance 1/4 known, direction found."""
    m = PsiMethod(candidate_levels(0, 10), chance=0.25, direction="either")
    est, _ = simulate(m, observer(4.0, 2.0, 0.02, 0.25, seed=8), Stop(trials=80))
    assert est.falls < 0.01
    assert est.lo <= 4.0 <= est.hi


def test_stop_rules():
    m = PsiMethod(candidate_levels(0, 10), direction="falls")
    est, why = simulate(m, observer(5.0, -4.0, 0.0, 0.0, seed=1), Stop(width=1.0, trials=500))
    assert est.width <= 1.0 and est.closed and "interval" in why
    assert est.trials < 500
    m = PsiMethod(candidate_levels(0, 10), direction="falls")
    est, why = simulate(m, observer(5.0, -4.0, 0.0, 0.0, seed=1), Stop(width=0.01, trials=25))
    assert est.trials == 25 and why == "25 trials (the budget)"
    with pytest.raises(ValueError, match="target width or a number of trials"):
        Stop()


def test_an_observer_right_everywhere_leaves_the_interval_open():
    """Always right: the threshold lies beyond the tested range, and the interval runs to the grid's
    edge (not closed), so a target width never stops the run."""
    m = PsiMethod(candidate_levels(0, 10), direction="falls")
    est, why = simulate(m, lambda x: True, Stop(width=0.5, trials=40))
    assert not est.closed and est.trials == 40
    assert est.hi > 10.0


def test_ordered_levels_and_replay():
    assert candidate_levels(1, 6, integer=True).tolist() == [1, 2, 3, 4, 5, 6]
    runs = []
    for _ in range(2):
        m = PsiMethod(candidate_levels(1, 16, integer=True), direction="falls")
        simulate(m, observer(7.3, -1.0, 0.02, 0.0, seed=5), Stop(trials=30))
        runs.append(m.history)
    assert runs[0] == runs[1]
    assert all(float(x).is_integer() for x, _ in runs[0])


def test_bad_settings_are_named():
    with pytest.raises(ValueError, match="empty"):
        PsiMethod([3.0, 3.0])
    with pytest.raises(ValueError, match="link 'cauchy'"):
        PsiMethod([0.0, 1.0], link="cauchy")
    with pytest.raises(ValueError, match="direction 'up'"):
        PsiMethod([0.0, 1.0], direction="up")
