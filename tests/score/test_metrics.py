"""Metrics on hand-built predictions equal hand-computed values, edge cases included."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from byo.families.crest import metrics as crest
from byo.questions.load import Question
from byo.score import metrics, registry, tables
from byo.score.rows import score_rows

Z = 1.959963984540054  # two-sided 95% normal quantile


def wilson_by_hand(k: int, n: int) -> tuple[float, float]:
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return centre - half, centre + half


def question(i: int, answer, answer_type="integer", image=None, key="count", levels=None, variant=("neutral", "direct"),
             choices=None) -> Question:
    return Question(id=f"q{i}/{key}/{variant[0]}/{variant[1]}", image=image or f"images/{i}.png", family="chess",
                    task="counting", key=key, levels=levels or {}, preprompt=variant[0], instruction=variant[1],
                    prompt="How many pieces are there on the chessboard?", answer=answer, answer_type=answer_type,
                    choices=choices)


def scored(questions: list[Question], responses: list[str | None]) -> list[dict]:
    predictions = [{"id": q.id, "model": "m", "provider": "fake", "response": r, "status": "ok" if r is not None
                    else "timeout"} for q, r in zip(questions, responses, strict=True)]
    return score_rows(questions, predictions, "run")


def overall(rows, answer_type="integer", n_boot=1000):
    return tables.summarize(rows, answer_type, n_boot=n_boot, seed=0, label="t")


def test_counts_by_hand():
    # truths 0, 2, 4, 5; answers 1, 2, 6, unparsed; images a, a, b, c
    qs = [question(0, 0, image="a"), question(1, 2, image="a"), question(2, 4, image="b"), question(3, 5, image="c")]
    s = overall(scored(qs, ["1", "There are 2 pieces.", "six", "I see many pieces."]))
    assert (s["n"], s["ok"], s["unparsed"], s["parse_rate"]) == (4, 3, 1, 0.75)
    assert s["accuracy"] == 0.25
    assert (s["accuracy_lo"], s["accuracy_hi"]) == pytest.approx(wilson_by_hand(1, 4))
    assert s["within_one"] == 0.5  # errors 1 and 0 are within one; the unparsed answer is not
    assert (s["n_errors"], s["excluded"]) == (3, 1)
    assert s["signed"] == pytest.approx(1.0)  # (1 + 0 + 2) / 3
    assert s["mae"] == pytest.approx(1.0)
    assert s["mse"] == pytest.approx(5 / 3)
    assert s["rmse"] == pytest.approx(math.sqrt(5 / 3))
    assert s["nmae"] == pytest.approx((1 / 1 + 0 / 2 + 2 / 4) / 3)  # truth 0: divided by 1


def test_an_answer_repeated_over_images_is_parsed_once(monkeypatch):
    import byo.score.rows as rows_module

    calls = []
    parse = rows_module.parse_answer
    monkeypatch.setattr(rows_module, "parse_answer", lambda *a, **k: calls.append(a) or parse(*a, **k))
    questions = [question(i, 3) for i in range(6)]
    rows = scored(questions, ["3", "3", "Three.", "3", None, "3"])
    assert [a[0] for a in calls] == ["3", "Three.", None]  # None: the failed request
    assert [r["value"] for r in rows] == [3, 3, 3, 3, None, 3] and [r["image"] for r in rows][:2] == [
        "images/0.png", "images/1.png"]


def test_truth_zero_rule():
    assert metrics.nmae_term(3, 0) == 3.0
    assert metrics.nmae_term(0, 0) == 0.0
    assert metrics.nmae_term(3, 6) == 0.5
    assert metrics.nmae_term(-1, 1) == 2.0


def test_all_correct():
    qs = [question(i, i + 1) for i in range(5)]
    s = overall(scored(qs, [str(i + 1) for i in range(5)]))
    assert s["accuracy"] == 1.0 and s["accuracy_hi"] == pytest.approx(1.0)
    assert s["accuracy_lo"] == pytest.approx(wilson_by_hand(5, 5)[0])
    assert (s["mae"], s["mae_lo"], s["mae_hi"]) == (0.0, 0.0, 0.0)
    assert s["interval_note"] == "all equal"


def test_all_unparsed_and_failed():
    qs = [question(i, 3) for i in range(4)]
    s = overall(scored(qs, ["no idea", "", "I'm sorry, but I can't see the image.", None]))
    assert (s["ok"], s["unparsed"], s["refusal"], s["error"]) == (0, 2, 1, 1)
    assert s["accuracy"] == 0.0 and s["parse_rate"] == 0.0 and s["within_one"] == 0.0
    assert (s["n_errors"], s["excluded"]) == (0, 4)
    assert s["mae"] is None and s["nmae"] is None


def test_single_sample_level():
    qs = [question(0, 2, levels={"blur": "none"}), question(1, 3, levels={"blur": "high"}),
          question(2, 5, levels={"blur": "high"})]
    table = tables.metric_table(scored(qs, ["2", "4", "5"]), n_boot=200)
    none = next(r for r in table if r["key"] == "count" and r["variable"] == "blur" and r["level"] == "none")
    assert none["n"] == 1 and none["accuracy"] == 1.0 and none["mae"] == 0.0
    assert none["accuracy_lo"] == pytest.approx(wilson_by_hand(1, 1)[0])
    high = next(r for r in table if r["key"] == "count" and r["variable"] == "blur" and r["level"] == "high")
    assert high["n"] == 2 and high["accuracy"] == 0.5 and high["mae"] == 0.5
    assert [r["level"] for r in table if r["key"] == "count" and r["variable"] == "blur"
            and r["variant"] == "all"] == ["none", "high"]


def test_bootstrap_resamples_images_not_questions():
    # image a: three questions with error 0; image b: one with error 4. Resampling two images gives the
    # means 0 (a, a), 1 (a, b) and 4 (b, b) with probabilities 1/4, 1/2, 1/4.
    values, images = [0, 0, 0, 4], ["a", "a", "a", "b"]
    out = metrics.bootstrap_mean(values, images, n_boot=4000, seed=1, label="x")
    assert out["value"] == 1.0 and (out["lo"], out["hi"]) == (0.0, 4.0)
    again = metrics.bootstrap_mean(values, images, n_boot=4000, seed=1, label="x")
    assert again == out  # seeded
    assert metrics.bootstrap_mean([2, 5], ["a", "a"], n_boot=100)["flag"] == "one image"
    assert metrics.bootstrap_mean([], [], n_boot=100)["value"] is None


def test_set_and_yes_no_prf():
    out = metrics.set_prf([["pawn", "rook"], None], [["pawn"], ["king", "queen"]])
    assert (out["tp"], out["fp"], out["fn"]) == (1, 1, 2)
    assert (out["precision"], out["recall"], out["f1"]) == pytest.approx((0.5, 1 / 3, 0.4))
    yn = metrics.binary_prf(["yes", "yes", "no", None], ["yes", "no", "yes", "yes"])
    assert (yn["tp"], yn["fp"], yn["fn"]) == (1, 1, 2)
    assert metrics.set_prf([None], [["pawn"]])["f1"] is None


def test_confusion_counts_failed_parses():
    qs = [question(i, a, "label", key="type") for i, a in enumerate(["knight", "knight", "rook"])]
    rows = scored(qs, ["A horse.", "Bishop", "no idea"])
    table = [r for r in tables.confusion_table(rows) if r["variant"] == "all"]
    assert {(r["truth"], r["predicted"]): r["count"] for r in table} == {
        ("knight", "knight"): 1, ("knight", "bishop"): 1, ("rook", "<unparsed>"): 1}


def test_localization_pairs_rows_and_columns_of_an_image():
    qs, answers = [], []
    for i, (r, c, pr, pc) in enumerate([(0, 0, "0", "1"), (2, 3, "2", "3"), (1, 1, "3", "unknown")]):
        qs += [question(i, r, "row", image=f"i{i}", key="row"), question(i, c, "column", image=f"i{i}", key="col")]
        answers += [f"Row {pr}", f"Column {pc}"]
    summary, cells = tables.localization_tables(scored(qs, answers), n_boot=200)
    s = next(x for x in summary if x["variant"] == "all")
    assert (s["n"], s["located"], s["excluded"]) == (3, 2, 1)
    assert s["exact"] == pytest.approx(1 / 3)  # the unlocated one counts as wrong
    assert s["error"] == pytest.approx((1 + 0) / 2)
    cell = next(x for x in cells if x["variant"] == "all" and (x["row"], x["column"]) == (0, 0))
    assert (cell["n"], cell["exact"], cell["error"]) == (1, 0.0, 1.0)


def test_binding_accuracy_beside_chance_is_measured_once_by_the_clevr_table():
    choices = ["a red cube and a blue sphere", "a blue cube and a red sphere"]
    qs = [question(i, "A", "multiple_choice", key="binding_swap", choices=choices) for i in range(4)]
    measured = registry.measure(scored(qs, ["A", "(A)", "B", "a blue cube and a red sphere"]))
    row = next(r for r in measured["autocomp"] if r["variant"] == "all")
    assert (row["n"], row["accuracy"], row["chance"]) == (4, 0.5, 0.5)
    assert "binding" not in measured  # no second binding table beside it


# --- crests ---------------------------------------------------------------------------------------
GOLD = ["C:01 X:0 M:0008", "C:01 X:0 M:0006", "C:01 X:0 M:0009", "C:07 X:2 M:0008", "X:3 M:0024"]


def test_crest_exact_match_and_token_error_rate():
    preds = ["C:01 M:0008", "C:01 X:0 M:0008", None, "C:07 X:2 M:0008 M:0006", "x:3 m:0024"]
    # lenient rule: a missing X means X:0; lower-case token kinds are read as upper case
    assert crest.exact_match(preds, GOLD, "crest_program", "lenient") == [True, False, False, False, True]
    # KamonBench's rule: a program needs its X, and only whitespace is normalised
    assert crest.exact_match(preds, GOLD, "crest_program") == [False, False, False, False, False]
    rate = crest.error_rate(preds, GOLD, "crest_program", "lenient")
    # edits: 0, 1 (motif), 3 (unparsed: the whole target), 1 (extra motif: unparseable, compared as
    # written), 0; lengths 3 + 3 + 3 + 3 + 2
    assert (rate["edits"], rate["length"], rate["unparsed"]) == (5, 14, 1)
    assert rate["value"] == pytest.approx(5 / 14)


def test_crest_character_error_rate():
    rate = crest.error_rate(["丸に桔梗", "Bellflower in a circle."], ["丸に梅", "bellflower in a circle"],
                            "crest_kdl")
    # 丸に桔梗 vs 丸に梅: 2 edits. KDL normalisation only removes whitespace (and turns katakana into
    # hiragana), so "Bellflowerinacircle." vs "bellflowerinacircle" is 2 edits (B, final dot).
    assert (rate["edits"], rate["length"]) == (4, 3 + len("bellflowerinacircle"))
    en = crest.error_rate(["A bellflower in a circle."], ["bellflower in a circle"], "crest_english", "lenient")
    assert en["edits"] == 0 and en["unit"] == "char"


def test_crest_factor_accuracy():
    preds = ["C:01 X:0 M:0008", "C:02 X:0 M:0006", "garbage", "C:07 X:1 M:0008", "X:3 M:0025"]
    f = crest.factor_accuracy(preds, GOLD)
    assert f["parseable"]["value"] == 4 / 5
    assert (f["container"]["k"], f["container"]["n"]) == (2, 4)  # rows with a container only
    assert (f["modifier"]["k"], f["modifier"]["n"]) == (3, 5)
    assert (f["motif"]["k"], f["motif"]["n"]) == (3, 5)


def test_motif_sensitivity_by_hand():
    # context (01, 0) holds three targets with motifs 8, 6, 9: pairs (8,6), (8,9), (6,9)
    # context (07, 2) holds two targets with motif 8 and 6: one pair
    gold = ["C:01 X:0 M:8", "C:01 X:0 M:6", "C:01 X:0 M:9", "C:07 X:2 M:8", "C:07 X:2 M:6", "X:3 M:1"]
    pred = ["C:01 X:0 M:8", "C:01 X:0 M:8", "C:01 X:0 M:9", "C:07 X:2 M:5", "M:5 M:6", "X:3 M:1"]
    out = crest.motif_sensitivity(pred, gold)
    assert (out["pairs"], out["groups"]) == (4, 2)
    # separated: (8,6)->8,8 no; (8,9)->8,9 yes; (6,9)->8,9 yes; (8,6) in 07: second unparseable -> no
    assert out["motif_separation"] == pytest.approx(2 / 4)
    # both correct: (8,9) only
    assert out["pair_motif_accuracy"] == pytest.approx(1 / 4)
    # group 01 predicts {8, 9}: not collapsed; group 07 predicts {5}: collapsed
    assert out["collapsed_motif_groups"] == pytest.approx(1 / 2)


def test_motif_sensitivity_counts_the_same_pairs_as_going_through_them():
    """The pair counts come from how many members share a motif; going through every pair of each
    context gives the same."""
    rng = random.Random(5)

    def code():
        if rng.random() < 0.15:
            return rng.choice([None, "garbage", "M:1 M:2"])
        containers = " ".join(f"C:0{rng.randint(1, 2)}" for _ in range(rng.randint(0, 2)))
        return f"{containers} X:{rng.randint(0, 1)} M:{rng.randint(1, 4)}".strip()

    for _ in range(300):
        n = rng.randint(0, 25)
        gold, pred = [code() or "C:01 X:0 M:1" for _ in range(n)], [code() for _ in range(n)]
        contexts: dict = {}
        for p, g in zip(pred, gold, strict=True):
            gf = crest.program_factors(g)
            if gf is not None and gf.containers:
                contexts.setdefault((gf.containers, gf.modifier), []).append((crest.program_factors(p), gf))
        pairs = separated = correct = 0
        for members in contexts.values():
            for (pi, gi), (pk, gk) in itertools.combinations(members, 2):
                if gi.motif != gk.motif:
                    pairs += 1
                    both = pi is not None and pk is not None
                    separated += both and pi.motif != pk.motif
                    correct += both and pi.motif == gi.motif and pk.motif == gk.motif
        out = crest.motif_sensitivity(pred, gold)
        assert out["pairs"] == pairs
        assert out["motif_separation"] == (separated / pairs if pairs else None)
        assert out["pair_motif_accuracy"] == (correct / pairs if pairs else None)


def test_wilson_interval_is_scipys_to_the_bit():
    from scipy.stats import binomtest

    for n in [*range(1, 60), 97, 1000, 123_457]:
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            for confidence in (0.9, 0.95, 0.99):
                ci = binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
                assert metrics.wilson(k, n, confidence) == (float(ci.low), float(ci.high))


def test_recombination_slices_and_nit():
    train = ["C:01 X:0 M:8", "C:07 X:3 M:6"]
    test = ["C:01 X:0 M:6", "C:07 X:3 M:6", "C:07 X:0 M:8"]
    assert crest.novel_combinations(test, train, "cm") == [True, False, True]
    assert crest.novel_combinations(test, train, "rm") == [True, False, False]
    assert crest.novel_combinations(test, train, "crm") == [True, False, True]
    nit = crest.accuracy_nit(["C:01 X:0 M:6", "C:07 X:3 M:6", "C:01 X:0 M:8"], test, train, "crest_program")
    assert (nit["k"], nit["n"]) == (1, 1)  # row 2: target seen; row 3: prediction seen


def test_numeric_variables_with_many_values_are_binned():
    qs = [question(i, 1, levels={"camera.distance": 1.0 + i / 10, "blur": "none"}) for i in range(20)]
    levels = tables.Levels(scored(qs, ["1"] * 20))
    assert levels.variables == ["camera.distance"]  # blur does not vary
    bins = levels.order["camera.distance"]
    assert len(bins) == tables.BINS
    counts = [sum(levels.of(r, "camera.distance") == b for r in scored(qs, ["1"] * 20)) for b in bins]
    assert sum(counts) == 20 and min(counts) >= 3


def test_localization_of_cell_answers():
    qs = [question(i, cell, "cell", key="cell") for i, cell in enumerate([[0, 0], [2, 3], [1, 1]])]
    summary, _ = tables.localization_tables(scored(qs, ["(0, 1)", "row 2, column 3", "(3, 3)"]), n_boot=100)
    s = next(x for x in summary if x["variant"] == "all" and x["source"] == "cell")
    assert (s["n"], s["located"], s["exact"]) == (3, 3, pytest.approx(1 / 3))
    assert s["error"] == pytest.approx((1 + 0 + 4) / 3)


def test_accuracy_intervals_are_clustered_by_image():
    """Three prompt variants answered alike on each of 20 images carry 20 images' evidence, not 60
    questions': the clustered interval is as wide as the Wilson interval of the 20 images."""
    variants = [("neutral", "direct"), ("cot", "direct"), ("neutral", "declarative")]
    qs = [question(i, 3, image=f"im{i}", variant=v) for i in range(20) for v in variants]
    rows = scored(qs, ["3" if i < 12 else "5" for i in range(20) for _ in variants])
    s = overall(rows, n_boot=0)
    assert s["accuracy"] == 0.6 and s["clusters"] == 20
    assert s["accuracy_deff"] == pytest.approx(3 * 20 / 19)  # all three variants alike; CR1's G / (G - 1)
    lo, hi = metrics.wilson_effective(0.6, 60 / s["accuracy_deff"])
    assert (s["accuracy_lo"], s["accuracy_hi"]) == pytest.approx((lo, hi))
    assert (s["accuracy_wilson_lo"], s["accuracy_wilson_hi"]) == pytest.approx(wilson_by_hand(36, 60))
    assert s["accuracy_hi"] - s["accuracy_lo"] > 1.6 * (s["accuracy_wilson_hi"] - s["accuracy_wilson_lo"])
    assert s["accuracy_se"] == pytest.approx(math.sqrt(0.24 / 20 * 20 / 19))


def test_questions_flagged_unreadable_are_scored_apart():
    """A question asked flagged as unreadable (questions.unreadable: flag) is scored under its key
    tagged [unreadable], and never pooled into the accuracy of all questions."""
    flag = {"rule": "contrast", "reason": "white king (object 1) does not stand out"}
    qs = [question(0, 2, image="a"), question(1, 3, image="b"),
          Question(**{**question(2, 4, image="c").model_dump(), "unreadable": flag})]
    rows = scored(qs, ["2", "3", "1"])
    assert [r["key"] for r in rows] == ["count", "count", "count [unreadable]"]
    table = tables.metric_table(rows, n_boot=10)
    pooled = next(r for r in table if r["key"] == "*" and r["variant"] == tables.ALL and not r["variable"])
    assert (pooled["n"], pooled["accuracy"]) == (2, 1.0)
    apart = next(r for r in table if r["key"] == "count [unreadable]" and r["variant"] == tables.ALL)
    assert (apart["n"], apart["accuracy"]) == (1, 0.0)
