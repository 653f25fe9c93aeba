"""Rankers built to fool a scorer, on every ranking key of Auto-Comp, the compositional-generalisation
study and COMPASS, scored by byo's scorer (score_rows, retrieval_table) and checked against the score
each one gets from the definition, computed here: a ranking credits 1 / k when the truth is among the
k captions tied at its top (docs/scoring.md). A ranker blind to some part of the caption ties every
candidate that differs from the truth only there, so its expected score on a question is 1 / (the
candidates it cannot tell from the truth). Legends without a render (tests/support/clevr_legends.py)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml
from clevr_legends import asked, unrendered_legends
from scipy.stats import chisquare

from byo.families import get_family
from byo.families.base import ask, candidate_seed
from byo.families.clevr.compass import KEYS as COMPASS_KEYS
from byo.families.clevr.metrics import AUTOCOMP_KEYS, COMPGEN_KEYS, measure_splits
from byo.families.clevr.model import COLORS, SHAPES
from byo.score.retrieval import retrieval_table
from byo.score.rows import score_rows

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = {  # config: (images per cell, or concepts 0..K-1 of Auto-Comp's grid; the keys of its paper)
    "autocomp/color": (15, AUTOCOMP_KEYS), "autocomp/position": (15, AUTOCOMP_KEYS),
    "autocomp/single": (16, AUTOCOMP_KEYS), "clevr/color_binding": (30, AUTOCOMP_KEYS), "compgen/relational": (60, COMPGEN_KEYS),
    "compgen/two_object": (30, COMPGEN_KEYS), "compgen/single_object": (16, COMPGEN_KEYS),
    "compass/compass": (8, COMPASS_KEYS)}
POSITION_WORDS = {"left", "right", "over", "under", "front", "behind", "above", "below"}


def words(caption: str) -> list[str]:
    return re.findall(r"[a-z]+", caption.lower())


def color_words(legend: dict) -> set[str]:
    return set(COLORS) | {c if isinstance(c, str) else c["name"] for c in legend["content"]["colors"]}


# What each blind ranker sees of a caption: two captions it sees alike tie.
VIEWS = {
    "bag-of-shapes": lambda legend, c: tuple(sorted(w for w in words(c) if w in SHAPES)),
    "colour-blind": lambda legend, c: tuple(w for w in words(c) if w not in color_words(legend)),
    "position-blind": lambda legend, c: tuple(w for w in words(c) if w not in POSITION_WORDS),
    "order-blind": lambda legend, c: tuple(sorted(words(c))),
}


def similarities(name: str, legend: dict, q) -> list[float]:
    """The ranker's similarities of the image and each candidate, in the stored order. A blind
    ranker sees the image as well as the truth's caption says, but only through its view."""
    captions, truth = q.retrieval.captions, q.retrieval.truth
    if name == "perfect":
        return [float(k == truth) for k in range(len(captions))]
    if name == "all-ties":
        return [0.5] * len(captions)
    if name == "constant":  # the image ignored: a fixed preference for short captions
        return [-float(len(c)) for c in captions]
    if name == "first-candidate":  # prefers earlier candidates (the first maximum of a tie)
        return [-float(k) for k in range(len(captions))]
    view = VIEWS[name]
    shown = view(legend, captions[truth])
    return [float(view(legend, c) == shown) for c in captions]


def expected(name: str, legend: dict, q) -> float:
    """The ranker's score on the question from the definition, without the scorer."""
    captions, truth = q.retrieval.captions, q.retrieval.truth
    n = len(captions)
    if name == "perfect":
        return 1.0
    if name == "all-ties":
        return 1 / n
    if name == "constant":
        shortest = min(len(c) for c in captions)
        tied = [k for k, c in enumerate(captions) if len(c) == shortest]
        return 1 / len(tied) if truth in tied else 0.0
    if name == "first-candidate":
        return float(truth == 0)
    view = VIEWS[name]
    return 1 / sum(view(legend, c) == view(legend, captions[truth]) for c in captions)


RANKERS = ("perfect", "all-ties", "constant", "first-candidate", *VIEWS)


@pytest.fixture(scope="module")
def questions(tmp_path_factory) -> dict[str, list]:
    """key -> [(legend, question)] over the configs' legends, every ranking key of the three papers."""
    out: dict[str, list] = {}
    for config, (n, keys) in CONFIGS.items():
        data = yaml.safe_load((ROOT / f"dataset_configs/{config}.yaml").read_text())
        concept = (data.get("variables") or {}).get("content.concept")
        if concept:  # a grid of concepts x N x condition, one image each
            concept["max"] = n - 1
        else:
            data["dataset"]["n_images"] = n
        legends = unrendered_legends(tmp_path_factory.mktemp(config.replace("/", "_")), data)
        for key in keys:
            pairs = [(legend, q) for legend, q in asked(legends, key) if q.retrieval is not None]
            if pairs:  # a ranking key (binding_swap is a chat question only: no candidate set to rank)
                out.setdefault(key, []).extend(pairs)
    return out


def scored(name: str, pairs: list) -> list[dict]:
    predictions = [{"id": q.id, "status": "ok", "ranked": True, "model": name,
                    "similarities": similarities(name, legend, q)} for legend, q in pairs]
    return score_rows([q for _, q in pairs], predictions, name)


def test_every_ranking_key_of_the_three_papers_is_asked(questions):
    assert set(AUTOCOMP_KEYS) - {"binding_swap"} <= set(questions) and set(COMPGEN_KEYS) <= set(questions)
    assert {k for k in questions if k.startswith("compass_")} >= {
        k for k in COMPASS_KEYS if "_n02_" in k or "_n03_" in k or "_n04_" in k}


@pytest.mark.parametrize("name", RANKERS)
def test_each_ranker_scores_what_its_definition_gives_on_every_key(questions, name):
    for key, pairs in questions.items():
        (table,) = [t for t in retrieval_table(scored(name, pairs)) if t["variant"] == "all"]
        want = float(np.mean([expected(name, legend, q) for legend, q in pairs]))
        assert table["recall_at_1"] == pytest.approx(want, abs=1e-12), (key, name)
        chance = float(np.mean([1 / len(q.retrieval.captions) for _, q in pairs]))
        assert table["chance"] == pytest.approx(chance, abs=1e-12)
        if name == "perfect":
            assert table["recall_at_1"] == 1.0
        if name == "all-ties":  # exactly the printed chance, on every key
            assert table["recall_at_1"] == pytest.approx(table["chance"], abs=1e-12), key
            assert table["recall_at_1_strict"] == 0.0


def test_a_position_preferring_ranker_scores_the_chance_over_many_questions(questions):
    """The first candidate is the truth with probability 1 / n on each question (its order is a
    uniform permutation): over all keys pooled, the first-candidate ranker's hits are a sum of
    Bernoulli(1 / n) draws, within 4 standard deviations of the chance's expectation (before, with
    the truth always first, it scored 1.00 everywhere)."""
    pairs = [p for ps in questions.values() for p in ps]
    hits = sum(q.retrieval.truth == 0 for _, q in pairs)
    p = np.array([1 / len(q.retrieval.captions) for _, q in pairs])
    assert abs(hits - p.sum()) < 4 * np.sqrt((p * (1 - p)).sum()), (hits, p.sum())
    assert 0 < hits < len(pairs)


def test_colour_blind_keeps_its_above_chance_confusion_score(questions):
    """Auto-Comp Confusion repeats shapes across candidates: a colour-blind ranker rules out every
    candidate naming other shapes, so it scores above the chance (its expected score, here), and
    the tie rule prints it, never 0."""
    for key in ("autocomp_confusion", "binding_confusion"):
        pairs = questions[key]
        (table,) = [t for t in retrieval_table(scored("colour-blind", pairs)) if t["variant"] == "all"]
        assert table["recall_at_1"] > 1.5 * table["chance"] > 0, (key, table)


def test_the_bag_of_shapes_shortcut_is_printed_beside_the_split_accuracy(questions):
    """relation_zsl asks the truth against its two hard negatives (the same shapes): the shortcut
    scores the chance 1/3. The paper's own sampling (relation_zsl_split) lets it score 1.00 on OOD
    test, printed beside the accuracy in the split table as the shortcut's score."""
    for key, ood_test in (("relation_zsl", 1 / 3), ("relation_zsl_split", 1.0)):
        rows = scored("perfect", questions[key])
        by_split = {r["split"]: r for r in measure_splits(rows, [])}
        assert by_split["ood_test"]["bag_of_shapes"] == pytest.approx(ood_test), key
        blind = {r["split"]: r for r in measure_splits(scored("bag-of-shapes", questions[key]), [])}
        assert blind["ood_test"]["accuracy"] == pytest.approx(ood_test)
        assert all(blind[s]["accuracy"] == pytest.approx(by_split[s]["bag_of_shapes"]) for s in by_split)


@pytest.mark.parametrize("key", ["relation_zsl", "relation_choice", "label_zsl", "autocomp_swap",
                                 "compass_oa_n04_decomposed_1", "compass_oa_n04_skill_o"])
def test_the_truths_position_is_uniform_over_the_candidates(questions, key):
    """The truth's stored index over the questions of a key whose candidate sets have one size: not
    constant, and a chi-square test of uniformity over the positions does not reject (p > 0.001)."""
    pairs = questions[key]
    sizes = Counter(len(q.retrieval.captions) for _, q in pairs)
    n, _ = sizes.most_common(1)[0]
    positions = [q.retrieval.truth for _, q in pairs if len(q.retrieval.captions) == n]
    assert len(set(positions)) > 1
    counts = np.bincount(positions, minlength=n)
    assert chisquare(counts).pvalue > 0.001, (key, counts)


def test_the_candidate_order_is_seeded_by_the_question_and_recorded(questions):
    family = get_family("clevr")
    for key in ("relation_choice", "autocomp_confusion", "compass_or_n03_composed"):
        legend, q = questions[key][0]
        again = ask(family.answers[key], legend, key).retrieval
        assert list(again.captions) == q.retrieval.captions and again.truth == q.retrieval.truth
        assert q.retrieval.order_seed == again.order_seed == candidate_seed(legend, key)


# What the docs say a ranker scores: (file, the sentence with its number, key, ranker, split or None).
CLAIMS = [
    ("docs/binding.md", r"only reads which shapes are named scores (\S+) on OOD test", "relation_zsl_split",
     "bag-of-shapes", "ood_test"),
    ("docs/binding.md", r"such a ranker ties the three captions and scores (\S+), the chance", "relation_zsl",
     "bag-of-shapes", None),
    ("dataset_configs/compgen/README.md", r"not where they stand, scores (\S+) on OOD test", "relation_zsl_split",
     "bag-of-shapes", "ood_test"),
    ("dataset_configs/compgen/README.md", r"the relation-blind ranker scores (\S+), the chance", "relation_zsl",
     "bag-of-shapes", None),
    ("docs/scoring.md", r"reads only which shapes a caption names scores (\S+) there", "relation_zsl_split",
     "bag-of-shapes", "ood_test"),
    ("docs/scoring.md", r"holds it to the chance, (\S+)\.", "relation_zsl", "bag-of-shapes", None),
    ("byo/families/clevr/answers.py", r"not where they stand, scores the chance (\S+)\.", "relation_zsl",
     "bag-of-shapes", None),
]


def number(text: str) -> float:
    """"1/3" or "1.00" as a number."""
    top, _, bottom = text.rstrip(".,").partition("/")
    return float(top) / float(bottom) if bottom else float(top)


@pytest.mark.parametrize("path, sentence, key, name, split", CLAIMS, ids=[f"{c[0]}:{c[2]}" for c in CLAIMS])
def test_the_docs_say_what_the_scorer_prints(questions, path, sentence, key, name, split):
    text = " ".join((ROOT / path).read_text().split())
    found = re.search(sentence, text)
    assert found, f"{path} no longer says {sentence!r}"
    rows = scored(name, questions[key])
    if split is None:
        (table,) = [t for t in retrieval_table(rows) if t["variant"] == "all"]
        score = table["recall_at_1"]
    else:
        score = next(r["accuracy"] for r in measure_splits(rows, []) if r["split"] == split)
    assert score == pytest.approx(number(found.group(1)), abs=0.005), (path, found.group(0), score)
