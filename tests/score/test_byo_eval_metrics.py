"""BYO-Eval's metrics against the adversarial predictors: a perfect one, a constant one, the blind
baseline (`byo eval --provider blind`: the most common truth of the key) and one wrong in the way
the metric exists to catch; every expected score is worked out by hand below. No metric here ranks
candidates, so there is no all-ties ranker to try.

The dataset is BYO-Eval's count-and-identify task as the project asked it before (X among all six
types): 12 images, 9 of whose true counts are 0."""

from __future__ import annotations

import numpy as np
import pytest
from byo_eval_data import question, write_questions
from count_data import write_run

from byo.cli import main
from byo.score import metrics
from byo.score.run import score_run

TRUTHS = [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3]
KEY = "count_identification_piece_type"


@pytest.fixture(scope="module")
def skewed(tmp_path_factory):
    root = tmp_path_factory.mktemp("skewed")
    questions = write_questions(root, [
        question(f"images/board_{i}.png", KEY, "counting", "integer", t, {"content.count": 3},
                 "How many white pawns are there in the image?") for i, t in enumerate(TRUTHS)])
    runs = {name: write_run(root, questions, name, name, answer) for name, answer in (
        ("perfect", lambda q: str(q["answer"])), ("constant", lambda q: "5"))}
    assert main(["eval", str(root), "--provider", "blind", "--run", "blind"]) == 0
    runs["blind"] = root / "runs" / "blind"
    return {name: next(r for r in score_run(run, n_boot=0)[0].tables["metrics"]
                       if r["key"] == KEY and r["variant"] == "all" and not r["variable"]) for name, run in runs.items()}


def test_perfect(skewed):
    r = skewed["perfect"]
    assert (r["f1_byoeval"], r["precision_byoeval"], r["recall_byoeval"]) == (1.0, 1.0, 1.0)
    assert (r["f1_macro"], r["precision_macro"], r["recall_macro"]) == (1.0, 1.0, 1.0)
    assert r["reliability"] == 1.0 and r["accuracy_image_sd"] == 0.0 and r["mae_image_sd"] == 0.0
    # One prompt text over 12 images: a perfect answer is as alike as the truths, 9 of 12 of them 0.
    assert r["consistency"] == 9 / 12


def test_constant_never_right(skewed):
    r = skewed["constant"]  # "5" to everything: 11 false positives, and a false negative at truth 1
    assert (r["f1_byoeval"], r["precision_byoeval"], r["recall_byoeval"]) == (0.0, 0.0, 0.0)
    assert (r["f1_macro"], r["precision_macro"], r["recall_macro"]) == (0.0, 0.0, 0.0)
    assert r["reliability"] == 0.0
    assert r["consistency"] == 1.0  # a constant answer is perfectly consistent
    # NMAE as the paper's text: |5 - 0| at each of the nine truths 0, then 4/1, 3/2, 2/3
    assert r["nmae"] == pytest.approx((9 * 5 + 4 + 3 / 2 + 2 / 3) / 12)


def test_blind_baseline_and_the_wrong_the_papers_f1_lets_through(skewed):
    """The blind baseline answers 0 everywhere: right on 9 of 12. The paper's F1 is 2 acc / (1 + acc)
    = 18/21 however the answers miss; the macro F1 (the F1 that catches a majority answer) is the
    F1 of class 0 (P 9/12, R 1) shared with three classes never answered: 6/7 / 4."""
    r = skewed["blind"]
    assert r["accuracy"] == 0.75
    assert r["f1_byoeval"] == pytest.approx(18 / 21)
    # The wrong answer at truth 1 is a false negative, the two at truths 2 and 3 false positives.
    assert r["precision_byoeval"] == pytest.approx(9 / 11) and r["recall_byoeval"] == pytest.approx(9 / 10)
    assert r["f1_macro"] == pytest.approx(6 / 7 / 4)
    assert r["precision_macro"] == pytest.approx(0.75 / 4) and r["recall_macro"] == pytest.approx(1 / 4)
    assert r["reliability"] == 0.75 and r["consistency"] == 1.0


def test_the_papers_f1_is_a_function_of_accuracy_wherever_the_misses_fall():
    truths = [1, 1, 2, 3, 0, 0]
    misses_at_one = [False, False, True, True, True, True]  # 2 false negatives
    misses_elsewhere = [True, True, False, False, True, True]  # 2 false positives
    a, b = metrics.byoeval_prf(misses_at_one, truths), metrics.byoeval_prf(misses_elsewhere, truths)
    assert a["f1"] == b["f1"] == pytest.approx(2 * (4 / 6) / (1 + 4 / 6))
    assert (a["precision"], a["recall"]) == (1.0, pytest.approx(4 / 6))
    assert (b["precision"], b["recall"]) == (pytest.approx(4 / 6), 1.0)
    assert metrics.byoeval_prf([True, False], ["yes", "no"])["fn"] == 0  # a wrong "no" is a false positive
    assert metrics.byoeval_prf([False], ["Yes"])["fn"] == 1
    assert metrics.byoeval_prf([False, False], [1.0, "true"])["fn"] == 2
    # Every answer wrong at truth 1: no answer is a positive, precision is not estimable.
    none = metrics.byoeval_prf([False, False], [1, 1])
    assert none["precision"] is None and (none["recall"], none["f1"]) == (0.0, 0.0)
    assert metrics.byoeval_prf([], [])["f1"] is None


def test_reliability_weighs_every_image_alike():
    """Rel catches a model right on the images asked often and wrong on those asked once: 4 of 6
    answers right (accuracy 0.67), but one of three images (Rel 0.33)."""
    images = ["a", "a", "a", "a", "b", "c"]
    hits = [True, True, True, True, False, False]
    index = metrics.cluster_index(images)
    assert metrics.reliability(hits, index) == pytest.approx(1 / 3)
    assert metrics.reliability([True] * 6, index) == 1.0 and metrics.reliability([False] * 6, index) == 0.0
    assert metrics.reliability([], metrics.cluster_index([])) is None


def test_consistency_catches_answers_that_flip_on_the_same_question():
    """Two texts, each asked of four images whose truth is 2. A model that flips between 2 and 3 is
    half right and half consistent; one that always says 3 is never right and fully consistent."""
    texts = ["How many pawns?"] * 4 + ["How many rooks?"] * 4
    assert metrics.consistency(texts, [2, 3, 2, 3, 2, 2, 3, 3]) == 0.5
    assert metrics.consistency(texts, [3] * 8) == 1.0
    assert metrics.consistency(texts, [2, 2, 2, 3, 2, 2, 2, 2]) == pytest.approx((3 / 4 + 1) / 2)
    assert metrics.consistency(["once", "twice", "twice"], [1, 2, 2]) == 1.0  # a text asked once has no share
    assert metrics.consistency(["once"], [1]) is None


def test_standard_deviation_over_images_tells_all_or_nothing_from_uniformly_mediocre():
    """Accuracy 0.5 both ways: right on every question of half the images (SD 0.5) or on half the
    questions of every image (SD 0); BYO-Eval's code divides by the number of images."""
    images = ["a", "a", "b", "b", "c", "c", "d", "d"]
    index = metrics.cluster_index(images)
    by_image = metrics.image_means([1, 1, 0, 0, 1, 1, 0, 0], index)
    assert metrics.image_sd(by_image) == 0.5
    assert metrics.image_sd(metrics.image_means([1, 0] * 4, index)) == 0.0
    assert metrics.image_sd(metrics.image_means([1, 0], metrics.cluster_index(["a", "a"]))) is None  # one image
    # Each image's F1 by the paper's rule is 2 a / (1 + a) of its accuracy a: 1, 0, 1, 0.
    assert metrics.image_sd(metrics.f1_from_accuracy(by_image)) == 0.5
    assert np.allclose(metrics.f1_from_accuracy(np.array([0.0, 0.5, 1.0])), [0, 2 / 3, 1])


@pytest.mark.parametrize("pred, truth, text, code", [(3, 0, 3.0, 1.0), (1, 0, 1.0, 1.0), (0, 0, 0.0, 0.0),
                                                     (5, 4, 0.25, 0.25), (2, 4, 0.5, 0.5)])
def test_nmae_at_truth_zero_the_texts_rule_and_the_codes_beside_it(pred, truth, text, code):
    assert metrics.nmae_term(pred, truth) == text
    assert metrics.nmae_term_byoeval_code(pred, truth) == code
