"""COMPASS's analyses (byo/families/clevr/compass_metrics.py): the integration gap from composed
and decomposed questions, the skill-load regression, which recovers a planted effect within its
interval, and the perplexity check of the negatives."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest
from families.clevr.test_compass import legend
from scipy import stats

from byo.families import get_family
from byo.families.api import ScoringOptions
from byo.families.clevr.compass import KEYS
from byo.families.clevr.compass_metrics import (
    PERPLEXITY,
    cell_slopes,
    integration_table,
    perplexity_table,
    skill_cells_table,
    skill_load_figure,
    skill_load_table,
)
from byo.questions.generate import Summary, _questions, load_templates
from byo.questions.load import Question
from byo.score.rows import score_rows


def row(image: str, key: str, credit: float, facts: dict | None = None, variant: str = "neutral/direct",
        chance: float = 0.5) -> dict:
    return {"run": "r", "model": "m", "image": image, "key": key, "variant": variant, "recall_at_1": credit,
            "chance": chance, "ranked": True, "n_candidates": round(1 / chance), "params": {"compass": facts}
            if facts else {}}


def caption_rows(image: str, level: str, n: int, composed: float, parts: list[float], counts: dict) -> list[dict]:
    base = {"caption": f"{image}/{level}", "level": level, "n": n, "counts": counts}
    out = [row(image, f"compass_{level.lower()}_composed", composed, {**base, "role": "composed"}, chance=1 / (n + 1))]
    out += [row(image, f"compass_{level.lower()}_decomposed_{i}", p, {**base, "role": "decomposed", "primitive": i})
            for i, p in enumerate(parts, start=1)]
    return out


def test_integration_gap_per_level_and_n():
    rows = []
    # OA, N = 2: one caption right in both settings, one right composed but wrong on a primitive
    rows += caption_rows("a", "OA", 2, 1.0, [1.0, 1.0], {"O": 1, "A": 1, "R": 0})
    rows += caption_rows("b", "OA", 2, 1.0, [1.0, 0.0], {"O": 1, "A": 1, "R": 0})
    # OA, N = 3: composed wrong, every primitive right: delta 1
    rows += caption_rows("c", "OA", 3, 0.0, [1.0, 1.0, 1.0], {"O": 1, "A": 2, "R": 0})
    # a caption missing one decomposed question is left out
    rows += caption_rows("d", "OA", 3, 1.0, [1.0, 1.0], {"O": 1, "A": 2, "R": 0})
    table = [t for t in integration_table(rows) if t["variant"] == "all"]
    by_n = {t["n"]: t for t in table}
    assert by_n[2]["captions"] == 2 and by_n[2]["r1_composed"] == 1.0 and by_n[2]["r1_decomposed"] == 0.5
    assert by_n[2]["delta"] == -0.5
    assert by_n[3]["captions"] == 1 and by_n[3]["delta"] == 1.0
    overall = by_n["all"]
    assert overall["delta_mean_over_n"] == pytest.approx(0.25)
    assert overall["delta_sd_over_n"] == pytest.approx(np.std([-0.5, 1.0], ddof=1))
    # printed in percentage points as the paper's Table 2: +25.0 ± 106.1 (sd of -50 and +100)
    assert (by_n[2]["delta_points"], overall["delta_over_n"]) == ("-50.0", "+25.0 ± 106.1")


def test_an_oracle_has_no_gap_at_any_level():
    rows = []
    for k, (level, n) in enumerate([("OA", 2), ("OA", 5), ("OR", 3), ("OAR", 4), ("OAR", 12)]):
        rows += caption_rows(f"i{k}", level, n, 1.0, [1.0] * n, {"O": 1, "A": n - 1, "R": 0})
    table = integration_table(rows)
    assert {t["level"] for t in table} == {"OA", "OR", "OAR"}
    for t in table:
        assert t["r1_composed"] == t["r1_decomposed"] == 1.0 and t["delta"] == 0.0


BETA = {"O": 0.03, "A": -0.08}  # planted: attribute self-load, a positive object cross-load
ALPHA = 0.8


def planted_rows(seed: int, images: int = 150, per_image: int = 4) -> list[dict]:
    """Skill-targeted attribute questions on OA captions whose success probability is
    ALPHA + BETA . counts, plus an image effect shared by an image's questions."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(images):
        shift = rng.normal(0, 0.05)
        for _ in range(per_image):
            n_o = int(rng.integers(1, 5))
            n_a = int(rng.integers(1, 3 * n_o + 1))
            p = np.clip(ALPHA + BETA["O"] * n_o + BETA["A"] * n_a + shift, 0, 1)
            facts = {"caption": f"img{i}/oa", "level": "OA", "n": n_o + n_a, "role": "skill", "skill": "A",
                     "counts": {"O": n_o, "A": n_a, "R": 0}}
            out.append(row(f"img{i}", "compass_oa_skill_a", float(rng.random() < p), facts, chance=0.2))
    return out


def fitted(rows) -> dict[str, dict]:
    return {t["term"]: t for t in skill_load_table(rows) if t["variant"] == "all"}


def test_skill_load_recovers_a_planted_coefficient_within_its_interval():
    terms = fitted(planted_rows(seed=1))
    assert set(terms) == {"intercept", "O", "A"}  # OA has no relations
    for term, beta in BETA.items():
        t = terms[term]
        assert t["ci_lo"] <= beta <= t["ci_hi"], (term, t)
        assert t["self_load"] == (term == "A")
        assert t["images"] == 150 and t["n"] == 600
    assert terms["A"]["beta"] < 0 and terms["A"]["p"] < 0.001  # the planted self-load is found
    assert terms["intercept"]["ci_lo"] <= ALPHA <= terms["intercept"]["ci_hi"]


def test_skill_load_intervals_cover_the_planted_coefficient_at_their_level():
    """Over 40 synthetic runs the 95% intervals (clustered by image) hold the planted
    coefficients about 95% of the time: the interval is honest, not only wide."""
    hits = {term: 0 for term in BETA}
    runs = 40
    for seed in range(runs):
        terms = fitted(planted_rows(seed=100 + seed, images=80))
        for term, beta in BETA.items():
            hits[term] += terms[term]["ci_lo"] <= beta <= terms[term]["ci_hi"]
    for term in BETA:
        assert hits[term] / runs >= 0.85, hits


def test_skill_load_says_when_it_cannot_fit():
    rows = planted_rows(seed=2, images=1, per_image=3)
    (only,) = [t for t in skill_load_table(rows) if t["variant"] == "all"]
    assert only["beta"] is None and only["note"].startswith("not estimable: too few")
    assert not math.isnan(only["r1"])


def test_skill_load_p_values_are_the_papers_t_tests_on_images_minus_one_degrees_of_freedom():
    """By hand: OLS, the CR1 cluster-robust covariance (G / (G - 1) (N - 1) / (N - K)), and a
    two-sided t test on G - 1 degrees of freedom, where a z test would claim more."""
    rows = planted_rows(seed=3, images=12, per_image=3)
    X = np.array([[1.0, r["params"]["compass"]["counts"]["O"], r["params"]["compass"]["counts"]["A"]] for r in rows])
    y = np.array([r["recall_at_1"] for r in rows])
    groups = np.array([int(r["image"][3:]) for r in rows])
    beta = np.linalg.solve(X.T @ X, X.T @ y)
    e = y - X @ beta
    bread = np.linalg.inv(X.T @ X)
    meat = sum(np.outer(X[groups == g].T @ e[groups == g], X[groups == g].T @ e[groups == g]) for g in range(12))
    n, k, g = len(y), 3, 12
    se = np.sqrt(np.diag(bread @ meat @ bread) * g / (g - 1) * (n - 1) / (n - k))
    p_t = 2 * stats.t.sf(np.abs(beta / se), g - 1)
    terms = fitted(rows)
    for i, term in enumerate(("intercept", "O", "A")):
        assert terms[term]["beta"] == pytest.approx(beta[i]) and terms[term]["se"] == pytest.approx(se[i])
        assert terms[term]["df"] == 11 and terms[term]["p"] == pytest.approx(p_t[i])
        assert terms[term]["p"] > 2 * stats.norm.sf(abs(beta[i] / se[i]))  # the z test's p is smaller
        assert terms[term]["significance"] == ("**" if p_t[i] < 0.001 else "*" if p_t[i] < 0.005 else "")


@pytest.mark.parametrize("recall, kind", [(1.0, "perfect"), (0.0, "constant")])
def test_a_perfect_or_constant_predictor_is_not_estimable(recall, kind):
    """R@1 the same on every question: every coefficient would be 0 with a zero standard error, and a
    z test's p = 0.0000; the table says it cannot fit, with no number."""
    rows = [{**r, "recall_at_1": recall} for r in planted_rows(seed=4, images=30)]
    (only,) = [t for t in skill_load_table(rows) if t["variant"] == "all"]
    assert only["note"] == (f"not estimable: R@1 is {recall:g} on every question (a {kind} predictor): nothing "
                            "varies to regress")
    assert all(only[k] is None for k in ("beta", "se", "t", "p", "df", "ci_lo", "ci_hi", "significance"))


def test_counts_that_predict_every_answer_exactly_are_not_estimable():
    """R@1 = n_A - 1 exactly (n_A of 1 or 2): the residuals vanish and so does every standard error."""
    rows = []
    for i in range(20):
        for n_a in (1, 2):
            facts = {"caption": f"img{i}/oa", "level": "OA", "n": 1 + n_a, "role": "skill", "skill": "A",
                     "counts": {"O": 1 + i % 3, "A": n_a, "R": 0}}
            rows.append(row(f"img{i}", "compass_oa_skill_a", float(n_a - 1), facts, chance=0.2))
    terms = fitted(rows)
    assert set(terms) == {"intercept", "O", "A"}
    assert all(t["p"] is None and t["beta"] is None and t["note"].startswith("not estimable: a zero standard error")
               for t in terms.values())


def compass_set(image: str, level: str, role: str, captions: list[str], skill: str | None = None) -> dict:
    facts = {"caption": f"{image}/{level}", "level": level, "n": 2, "counts": {"O": 1, "A": 1, "R": 0}, "role": role,
             **({"skill": skill} if skill else {})}
    r = row(image, f"compass_{level.lower()}_{role}", 1.0, facts)
    r["retrieval"] = {"captions": captions, "truth": 0, "tags": ["truth"] + ["x"] * (len(captions) - 1)}
    return r


PPL_ROWS = [compass_set(f"i{k}", "OA", "composed", [f"There is a {c} cube.", f"There is a {c} sphere.",
                                                    f"There is a {o} cube."])
            for k, (c, o) in enumerate([("red", "blue"), ("green", "gray"), ("cyan", "yellow"), ("brown", "purple"),
                                        ("small", "large"), ("rubber", "metal")])]


def test_the_perplexity_check_says_when_it_is_skipped():
    (only,) = perplexity_table(PPL_ROWS, None)
    assert only["effect_size_r"] is None and "skipped" in only["note"] and "`perplexity_model`" in only["note"]


@pytest.mark.skipif(not all(importlib.util.find_spec(m) for m in ("torch", "transformers")),
                    reason="torch and transformers (the dev extra) are not installed")
def test_the_perplexity_check_compares_each_truth_with_its_hardest_negative(tmp_path):
    from clip_tiny import save_tiny_gpt2
    from scipy.stats import mannwhitneyu

    from byo.families.clevr.compass_metrics import perplexities

    model = str(save_tiny_gpt2(tmp_path / "gpt2"))
    (table,) = perplexity_table(PPL_ROWS, ScoringOptions(perplexity_model=model))
    assert table["level"] == "OA" and table["negatives"] == "composed" and table["pairs"] == 6
    truths, hardest = [], []
    for r in PPL_ROWS:  # Eq. 5 and Eq. 6 by hand
        caps = r["retrieval"]["captions"]
        ppl = perplexities(caps, model)
        truths.append(ppl[0])
        hardest.append(min(ppl[1:], key=lambda p: abs(p - ppl[0])))
    u = mannwhitneyu(truths, hardest).statistic
    assert table["effect_size_r"] == pytest.approx(1 - 2 * u / 36)
    assert table["interpretation"] in ("negligible", "small", "medium or large")


def test_figures_5_to_7_plot_skill_negatives_against_one_count_with_the_other_held():
    """The paper's Figures 5-7: R@1 on skill-targeted negatives per cell of counts, each panel's
    global slope Eq. 4's coefficient. By hand: cell (n_O 1, n_A 2) holds questions 1, 0 -> 0.5; the
    slope from the cells weighted by their questions equals the OLS on the questions."""
    rows = planted_rows(seed=3, images=60)
    cells = [c for c in skill_cells_table(rows) if c["variant"] == "all"]
    assert sum(c["questions"] for c in cells) == len(rows)
    for c in cells[:5]:
        mine = [r for r in rows if (r["params"]["compass"]["counts"]["O"], r["params"]["compass"]["counts"]["A"])
                == (c["n_o"], c["n_a"])]
        assert c["r1"] == pytest.approx(np.mean([r["recall_at_1"] for r in mine])) and c["questions"] == len(mine)
    slopes = cell_slopes(cells, ("O", "A"))
    fit = fitted(rows)
    assert slopes["O"] == pytest.approx(fit["O"]["beta"]) and slopes["A"] == pytest.approx(fit["A"]["beta"])
    figures = skill_load_figure([("model", "#000", [{**c, "run": "r"} for c in skill_cells_table(rows)])])
    assert len(figures) == 1 and figures[0][0].startswith(b"\x89PNG")
    assert "attribute count with the object count held fixed" in figures[0][1]
    one = [{"variant": "all", "level": "OA", "skill": "A", "n_o": 1, "n_a": 1, "n_r": 0, "questions": 3, "r1": 0.5}]
    assert cell_slopes(one, ("O", "A")) is None  # not estimable: no count varies


def test_the_perplexity_lines_name_level_negative_type_and_effect_size(capsys):
    """Tables 4 and 5 of the paper: per level and negative type, the effect size r and its reading;
    `byo score` prints them, as the report shows them."""
    from byo.cli.score import print_declared

    rows = [{"run": "r", "model": "m", "level": "OAR", "negatives": "skill R", "pairs": 40, "effect_size_r": 0.259,
             "interpretation": "small", "language_model": "gpt2", "note": None}]

    class Scores:
        tables = {"compass_perplexity": rows}

    headers = [c.header for c in PERPLEXITY.columns]
    assert {"level", "negatives", "effect size r", "reading"} <= set(headers)
    print_declared(Scores())
    out = capsys.readouterr().out
    assert "OAR" in out and "skill R" in out and "0.26" in out and "small" in out


def test_a_chat_oracle_answering_with_the_captions_text_has_no_integration_gap():
    """A chat model that answers every COMPASS question with the true caption's text instead of its
    letter (multi-sentence captions whose sentences the prompt also holds) is read as that option:
    R@1 1 composed and decomposed, a gap of 0 (the parser once left the composed ones unparsed)."""
    plugin = get_family("clevr")
    _, templates, common = load_templates(plugin)
    questions = []
    for seed in range(3):
        lg = {**legend(seed, n=5), "image": f"images/img{seed}.png", "levels": {}}
        questions += [Question.model_validate(q) for q in _questions(
            lg, plugin, list(KEYS), templates, common, ["neutral"], ["direct"], "clevr", Summary(policy="ask"))]
    composed = [q for q in questions if q.params["compass"]["role"] == "composed"]
    assert sum(q.retrieval.captions[0].count(".") >= 2 for q in composed) >= len(composed) / 2  # multi-sentence
    predictions = [{"id": q.id, "status": "ok", "response": q.retrieval.captions[q.retrieval.truth]} for q in questions]
    rows = score_rows(questions, predictions, "caption-oracle")
    assert all(r["status"] == "ok" and r["recall_at_1"] == 1.0 for r in rows)
    table = integration_table([{**r, "variant": "neutral/direct"} for r in rows])
    assert {t["level"] for t in table} == {"OA", "OR", "OAR"}
    for t in table:
        assert t["r1_composed"] == 1.0 and t["r1_decomposed"] == 1.0 and t["delta"] == 0.0, t
