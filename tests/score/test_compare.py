"""`byo compare`: planted runs that differ are told apart, runs of one model are not, and runs over
different questions are refused before anything is written."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
import scipy.stats
from planted import (
    count_questions,
    exact_predictions,
    logistic_curve,
    planted_predictions,
    same_model_predictions,
    write_dataset,
    write_run,
)

from byo.cli import main
from byo.core.stats import PairedProportions, cluster_index
from byo.score import compare as cmp
from byo.score.psychometric import breaking_point_tables
from byo.score.rows import score_rows
from byo.score.run import Scores

COUNTS = list(range(1, 21))  # 20 counts x 20 images = 400 questions


def constant(p):
    return lambda count: p


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    root = tmp_path_factory.mktemp("planted")
    questions = count_questions(20, counts=COUNTS)
    write_dataset(root, questions)
    runs = {
        # 75% and 60% right, exactly: 15 points apart on 400 questions
        "strong": exact_predictions(questions, 0.75, np.random.default_rng(1), "strong-vlm"),
        "weak": exact_predictions(questions, 0.60, np.random.default_rng(2), "weak-vlm"),
        # one model, two seeds: the same known questions, 10% of the verdicts flipped by sampling
        "seed-1": same_model_predictions(questions, 0.75, 0.1, run_seed=1),
        "seed-2": same_model_predictions(questions, 0.75, 0.1, run_seed=2),
    }
    for name, predictions in runs.items():
        write_run(root, name, predictions)
    return root, questions


def overall(result: dict) -> dict:
    return next(r for r in result["differences"] if r["key"] == "*")


def test_runs_15_points_apart_differ_and_one_model_with_two_seeds_does_not(dataset, tmp_path, capsys):
    root, _ = dataset
    assert main(["compare", str(root / "runs" / "strong"), str(root / "runs" / "weak"), "-o", str(tmp_path / "sw"),
                 "--bootstrap", "500"]) == 0
    differ = json.loads((tmp_path / "sw" / "comparison.json").read_text())
    d = overall(differ)
    print(f"15 points: n {d['n']}, A {d['accuracy_a']:.3f}, B {d['accuracy_b']:.3f}, McNemar p {d['p_mcnemar']:.2g}, "
          f"clustered p {d['p_clustered']:.2g}, CI [{d['difference_lo']:.3f}, {d['difference_hi']:.3f}]")
    assert d["n"] == 400 and d["p_mcnemar"] < 0.01 and d["p_clustered"] < 0.01 and d["verdict"] == "A better"
    assert d["confidence_adjusted"] == 0.95 and d["difference_adjusted_lo"] == d["difference_lo"]
    assert d["difference"] == pytest.approx(0.15) and d["difference_lo"] > 0
    assert (tmp_path / "sw" / "differences.csv").is_file()
    assert "Holm" in capsys.readouterr().out

    assert main(["compare", str(root / "runs" / "seed-1"), str(root / "runs" / "seed-2"), "-o",
                 str(tmp_path / "ss"), "--bootstrap", "500"]) == 0
    same = overall(json.loads((tmp_path / "ss" / "comparison.json").read_text()))
    print(f"same model, seeds 1 and 2: A {same['accuracy_a']:.3f}, B {same['accuracy_b']:.3f}, McNemar p "
          f"{same['p_mcnemar']:.2g}, clustered p {same['p_clustered']:.2g}")
    assert same["p_mcnemar"] > 0.2 and same["p_clustered"] > 0.2 and same["verdict"] == "no difference shown"
    assert same["difference_lo"] < 0 < same["difference_hi"]


def test_one_model_with_many_seeds_is_rarely_called_different():
    """Calibration: 40 pairs of runs of one model; McNemar's p is under 0.05 about 5% of the time."""
    questions = count_questions(20, counts=COUNTS)
    ps = []
    for seed in range(40):
        a, b = (score_rows(questions, planted_predictions(questions, constant(0.7), np.random.default_rng(s), "m"),
                           f"r{s}") for s in (100 + 2 * seed, 101 + 2 * seed))
        result = cmp.compare(Scores(facts={"run": "a"}, rows=a), Scores(facts={"run": "b"}, rows=b), n_boot=0)
        ps.append(overall(result)["p_mcnemar"])
    ps = np.array(ps)
    print(f"one model, 40 seed pairs: p < 0.05 in {(ps < 0.05).sum()}, p > 0.2 in {(ps > 0.2).sum()}")
    assert (ps < 0.05).sum() <= 5 and (ps > 0.2).sum() >= 26


def test_per_level_rows_are_corrected_and_thresholds_compared():
    questions = count_questions(30, counts=list(range(1, 17)))
    early, late = (score_rows(questions, planted_predictions(questions, logistic_curve(t), np.random.default_rng(s),
                                                             m), m)
                   for t, s, m in ((5.0, 1, "early"), (10.0, 2, "late")))
    runs = []
    for rows in (early, late):
        fits, points = breaking_point_tables(rows, links=("logistic",))
        runs.append(Scores(facts={"run": rows[0]["run"]}, rows=rows,
                           tables={"breaking_points": fits, "breaking_point_levels": points}))
    result = cmp.compare(*runs, n_boot=300)
    levels = [r for r in result["differences"] if r["variable"] == "content.count"]
    assert len(levels) == 16 and all(r["p_mcnemar_adjusted"] >= r["p_mcnemar"] for r in levels
                                     if r["p_mcnemar_adjusted"] is not None)
    assert result["settings"]["correction"].startswith("Holm")
    bh = cmp.compare(*runs, n_boot=0, correction="bh")
    assert bh["settings"]["correction"].startswith("Benjamini")
    truth = next(t for t in result["thresholds"] if t["variable"] == "truth")
    print(f"thresholds 5 and 10: difference {truth['difference']:.2f} [{truth['difference_lo']:.2f}, "
          f"{truth['difference_hi']:.2f}]")
    assert truth["difference_lo"] <= -5 <= truth["difference_hi"] and truth["difference_hi"] < 0


def test_runs_over_different_questions_are_refused(tmp_path, capsys):
    questions = count_questions(3, counts=[1, 2, 3])
    first = write_dataset(tmp_path / "one", questions)
    other = write_dataset(tmp_path / "two", questions[:-2])
    a = write_run(first, "a", planted_predictions(questions, constant(0.5), np.random.default_rng(0), "m"))
    b = write_run(other, "b", planted_predictions(questions[:-2], constant(0.5), np.random.default_rng(0), "m"))
    out = tmp_path / "out"
    assert main(["compare", str(a), str(b), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "runs over different questions" in err and "2 questions only in a" in err
    assert not out.exists()
    with pytest.raises(SystemExit) as exit_:
        main(["compare", str(a), str(a), "--correction", "none"])
    assert exit_.value.code == 2


def planted_runs(tmp_path, questions, p_right: dict, seeds: tuple[int, int]):
    """A dataset of `questions` with runs a and b, each question right with p_right[run][key]
    (each run drawn from its own seed); returns the dataset's folder."""
    root = write_dataset(tmp_path / "data", questions)
    for run, seed in zip(("a", "b"), seeds, strict=True):
        rng = np.random.default_rng(seed)
        write_run(root, run, [p for q in questions
                              for p in planted_predictions([q], lambda c, k=q.key, r=run: p_right[r][k], rng, run)])
    return root


def walk(result: dict) -> int:
    """Every row: the verdicts are their intervals', the intervals contain the difference, the
    adjusted interval holds the unadjusted one, and a row without a test says why. Returns the rows
    walked."""
    for r in result["differences"]:
        if r["p_clustered"] is None:
            assert r["interval_note"] and r["verdict"] == r["verdict_unadjusted"] == "not testable"
            assert r["difference_lo"] is None and r["difference_adjusted_lo"] is None
            continue
        assert -1 <= r["difference_adjusted_lo"] <= r["difference_lo"] and r["difference_hi"] <= r["difference_adjusted_hi"] <= 1
        if r["test"] == cmp.TEST_SIGN:  # every image alike: the sign test over images decides
            k = max(r["images_a_better"], r["images_b_better"])
            m = r["images_a_better"] + r["images_b_better"]
            assert r["p_clustered"] == pytest.approx(min(1.0, 2 * sum(math.comb(m, i) for i in range(k, m + 1)) / 2**m))
            continue
        for verdict, lo, hi, p in ((r["verdict_unadjusted"], r["difference_lo"], r["difference_hi"], r["p_clustered"]),
                                   (r["verdict"], r["difference_adjusted_lo"], r["difference_adjusted_hi"],
                                    r["p_clustered_adjusted"])):
            assert lo < r["difference"] < hi
            shown = lo > 0 or hi < 0
            assert (verdict != "no difference shown") == shown == (p < cmp.ALPHA), r
            assert verdict in ("no difference shown", "A better" if r["difference"] > 0 else "B better")
        assert r["difference_adjusted_lo"] <= r["difference_lo"] and r["difference_hi"] <= r["difference_adjusted_hi"]
    return len(result["differences"])


@pytest.mark.parametrize("correction", list(cmp.CORRECTIONS))
def test_runs_differing_on_one_key_by_a_planted_amount_agree_on_every_row(tmp_path, capsys, correction):
    """Three keys over the same images (counts 1-8, 12 images each): A and B are right 60% of the time
    on two of them, and 85% and 45% (40 points apart) on the third; a fourth key on five images is
    always right in A and always wrong in B (no spread: no test)."""
    counts = list(range(1, 9))
    questions = [q for key in ("planted", "same_1", "same_2") for q in count_questions(12, counts=counts, key=key)]
    questions += count_questions(1, counts=[1, 2, 3, 4, 5], key="all_alike")
    p_right = {"a": {"planted": 0.85, "same_1": 0.6, "same_2": 0.6, "all_alike": 1.0},
               "b": {"planted": 0.45, "same_1": 0.6, "same_2": 0.6, "all_alike": 0.0}}
    root = planted_runs(tmp_path, questions, p_right, seeds=(11, 12))
    out = tmp_path / "cmp"
    assert main(["compare", str(root / "runs" / "a"), str(root / "runs" / "b"), "--levels", "--correction",
                 correction, "-o", str(out), "--bootstrap", "0"]) == 0
    terminal = " ".join(capsys.readouterr().out.split())
    result = json.loads((out / "comparison.json").read_text())
    rows = walk(result)
    by_key = {r["key"]: r for r in result["differences"] if not r["variable"]}
    planted = by_key["planted"]
    print(f"{correction}: {rows} rows walked; planted key: {planted['difference']:+.3f} "
          f"[{planted['difference_lo']:+.3f}, {planted['difference_hi']:+.3f}], adjusted "
          f"[{planted['difference_adjusted_lo']:+.3f}, {planted['difference_adjusted_hi']:+.3f}] at "
          f"{planted['confidence_adjusted']:.4f}: {planted['verdict']}")
    assert planted["verdict"] == "A better" and planted["difference_lo"] < 0.4 < planted["difference_hi"]
    assert by_key["same_1"]["verdict"] == by_key["same_2"]["verdict"] == "no difference shown"
    alike = by_key["all_alike"]
    # 5 of 5 images one way: the sign test's p = 2 / 2^5, one-image rows (its levels) have none
    assert alike["test"] == cmp.TEST_SIGN and alike["p_clustered"] == pytest.approx(2 / 2**5)
    assert alike["difference"] == 1.0 and alike["difference_hi"] == 1.0
    assert "tested with the exact sign test over images, e.g. all_alike (5 of 5)" in terminal
    assert "5 of 34 rows have no test: one image (5: all_alike content.count 1" in terminal  # one line, not one per row
    assert rows == 1 + 4 + 3 * len(counts) + 5  # all questions, 4 keys, their levels


def test_adjusted_levels_reject_exactly_what_the_adjusted_p_values_reject():
    rng = np.random.default_rng(3)
    for _ in range(300):
        p = rng.uniform(0, 0.08, size=int(rng.integers(1, 12))) ** rng.uniform(0.5, 2)
        for correction in cmp.CORRECTIONS:
            adjusted = cmp.adjusted_p_values(p, correction)
            levels = cmp.adjusted_levels(p, correction)
            assert np.array_equal(p < levels, adjusted < cmp.ALPHA)


def test_newcombe_interval_matches_the_papers_example():
    """Newcombe (1998), Table II, example (a): 36 pairs both right, 12 and 2 discordant, 0 both
    wrong; method 10 (hybrid score, no continuity correction) gives 0.0569 to 0.3404 for 0.2. With one
    question per pair, z for t and the plain n, PairedProportions is that method."""
    a_b = [(1, 1)] * 36 + [(1, 0)] * 12 + [(0, 1)] * 2
    n = len(a_b)
    phi = (36 * 0 - 12 * 2) / math.sqrt(48 * 2 * 38 * 12)
    clustered = PairedProportions.of([x for x, _ in a_b], [y for _, y in a_b], cluster_index(range(n)))
    assert clustered.phi == pytest.approx(phi) and clustered.difference == pytest.approx(0.2)
    newcombe = PairedProportions(48 / n, 38 / n, n, n, phi, n)
    lo, hi = newcombe.interval_at(1.959963985)
    assert (round(lo, 4), round(hi, 4)) == (0.0569, 0.3404)


def test_all_alike_images_get_the_sign_test():
    """Blind always wrong, oracle always right, 3 prompt variants on each of 6 images (2 per count):
    the clustered spread is 0, the sign test over images decides: 6 of 6 one way, p = 2 * (1/2)^6 =
    0.03125; each count's 2 images, p = 2 * (1/2)^2 = 0.5."""
    questions = count_questions(2, counts=[1, 2, 3], variants=(("neutral", "direct"), ("helpful", "direct"),
                                                               ("neutral", "declarative")))
    oracle = score_rows(questions, planted_predictions(questions, constant(1.0), np.random.default_rng(0), "o"), "oracle")
    blind = score_rows(questions, planted_predictions(questions, constant(0.0), np.random.default_rng(0), "b"), "blind")
    result = cmp.compare(Scores(facts={"run": "blind"}, rows=blind), Scores(facts={"run": "oracle"}, rows=oracle),
                         n_boot=0)
    top = overall(result)
    assert top["images"] == 6 and top["difference"] == -1.0 and top["se_clustered"] == 0
    assert top["test"] == cmp.TEST_SIGN and top["images_b_better"] == 6 and top["images_a_better"] == 0
    assert top["p_clustered"] == pytest.approx(2 * 0.5**6) == pytest.approx(0.03125)
    assert top["verdict"] == "B better" and top["difference_lo"] == -1.0 and top["difference_hi"] < 0
    walk(result)
    levels = [r for r in result["differences"] if r["variable"]]
    assert len(levels) == 3 and all(r["p_clustered"] == pytest.approx(0.5) and r["verdict"] == "no difference shown"
                                    for r in levels)
    assert cmp.testing_summary(result["differences"]) == [
        "5 of 5 rows have every image differing alike (no spread for the score test): tested with the exact sign "
        "test over images, e.g. all questions (6 of 6), count_pieces (6 of 6), count_pieces content.count 1 (2 of 2)"
        " and 2 more"]


INTERVAL = re.compile(r"\[([+-]?\d+(?:\.\d+)?)%, ([+-]?\d+(?:\.\d+)?)%\]")


def test_no_printed_interval_of_a_difference_leaves_minus_100_to_100(tmp_path, capsys):
    """Adversarial runs: near-extreme accuracies (97% against 3%, 100% against 70%, 2% against
    0%), few images with many questions, strongly correlated runs. Every interval, in the JSON, the
    terminal and the report, stays inside [-100%, +100%]; the clustered t interval of the earlier
    comparison printed -70.0% [-104.6%, -35.4%] on such runs, and would on several rows here."""
    from byo.score.report import write_report
    from byo.score.run import load_scores

    questions = [q for key, images in (("extreme", 4), ("ceiling", 3), ("floor", 6))
                 for q in count_questions(images, counts=list(range(1, 9)), key=key)]
    p_right = {"a": {"extreme": 0.97, "ceiling": 1.0, "floor": 0.02}, "b": {"extreme": 0.03, "ceiling": 0.7, "floor": 0.0}}
    root = planted_runs(tmp_path, questions, p_right, seeds=(1, 2))
    out = tmp_path / "cmp"
    assert main(["compare", str(root / "runs" / "a"), str(root / "runs" / "b"), "--levels", "-o", str(out),
                 "--bootstrap", "0"]) == 0
    terminal = capsys.readouterr().out
    result = json.loads((out / "comparison.json").read_text())
    walk(result)
    bounds = [v for r in result["differences"] for v in (r["difference_lo"], r["difference_hi"],
                                                         r["difference_adjusted_lo"], r["difference_adjusted_hi"])
              if v is not None]
    assert bounds and min(bounds) >= -1 and max(bounds) <= 1
    # adversarial indeed: the t interval d +- t(0.975, images - 1) se would leave [-1, 1] on some rows
    t_out = [r for r in result["differences"] if r["images"] > 1 and r["se_clustered"] > 0
             and abs(r["difference"]) + scipy.stats.t.ppf(0.975, r["df"]) * r["se_clustered"] > 1]
    assert len(t_out) >= 3
    report = write_report([load_scores(root / "runs" / name, n_boot=0) for name in ("a", "b")], tmp_path / "r.html")
    printed = [float(x) for text in (terminal, report.read_text()) for m in INTERVAL.finditer(text) for x in m.groups()]
    print(f"{len(printed) // 2} printed intervals, from {min(printed):+.1f}% to {max(printed):+.1f}%")
    assert len(printed) > 20 and all(-100 <= x <= 100 for x in printed)
