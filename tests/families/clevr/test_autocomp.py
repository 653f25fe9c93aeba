"""Auto-Comp concepts, captions and candidate sets: pure Python."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml
from clevr_legends import asked, ranked, unrendered_legends

from byo.families.clevr.autocomp import (
    bindings_intact,
    candidates,
    cells,
    color_arrangements,
    concept_caption,
    concept_rng,
    negative_count,
    position_arrangements,
    sample_concept,
)
from byo.families.clevr.metrics import measure_distractors
from byo.families.clevr.model import COLORS, SHAPES

ROOT = Path(__file__).resolve().parents[3]

VOCABULARY = {"colors": list(COLORS), "shapes": list(SHAPES)}


def concept(task: str, n: int, index: int = 0) -> dict:
    return sample_concept(concept_rng(0, index, task, n), task, n, SHAPES, list(COLORS))


@pytest.mark.parametrize("n", [2, 3])
def test_swap_and_confusion_counts_are_the_papers(n):
    """Swap: N! - 1 negatives; colour Confusion enumerates N^(2N) arrangements; position Confusion
    N^N (N-1)^(N-1) - 1 negatives, each caption distinct."""
    for task in ("color", "position"):
        c = concept(task, n)
        swap, tags = candidates(c, "swap", "minimal")
        assert len(swap) - 1 == math.factorial(n) - 1 == negative_count(task, "swap", n)
        assert tags[0] == "truth" and tags.count("truth") == 1 and len(set(swap)) == len(swap)
    colors = [o["color"] for o in concept("color", n)["objects"]]
    shapes = [o["shape"] for o in concept("color", n)["objects"]]
    assert len(color_arrangements(colors, shapes)) == n ** (2 * n) == negative_count("color", "confusion", n) + 1
    c = concept("position", n)
    conf, tags = candidates(c, "confusion", "minimal")
    assert len(position_arrangements([o["shape"] for o in c["objects"]], c["relations"])) == n**n * (n - 1) ** (n - 1)
    assert len(conf) - 1 == n**n * (n - 1) ** (n - 1) - 1 == negative_count("position", "confusion", n)
    assert len(set(conf)) == len(conf) and tags.count("truth") == 1


@pytest.mark.parametrize("n", [2, 3])
def test_color_confusion_offers_every_arrangement_but_the_truth_reordered(n):
    """Captions carry no order, so the N! - 1 reorderings of the truth are true of the image: they
    are the only arrangements left out (N^(2N) - N! negatives: 14 for N = 2, 723 for N = 3)."""
    c = concept("color", n)
    captions, tags = candidates(c, "confusion", "minimal")
    assert len(captions) - 1 == n ** (2 * n) - math.factorial(n)
    truth = Counter((o["color"], o["shape"]) for o in c["objects"])
    for caption in captions[1:]:
        described = Counter(tuple(p.split(" ")[-2:]) for p in caption.removesuffix(" on a white background")
                            .replace(", ", " and ").split(" and "))
        assert described != truth
    assert {t for t in tags[1:]} <= {"swap:color", "confusion:same_color_diff_object",
                                      "confusion:same_color_same_object", "confusion:same_object_diff_color"}


def test_chance_per_n_matches_table_4():
    """1 / candidates: Swap 50% and 16.7%; position Confusion 25% and 0.9%."""
    assert 1 / len(candidates(concept("color", 2), "swap", "minimal")[0]) == pytest.approx(0.5)
    assert 1 / len(candidates(concept("color", 3), "swap", "minimal")[0]) == pytest.approx(1 / 6)
    assert 1 / len(candidates(concept("position", 2), "confusion", "minimal")[0]) == pytest.approx(0.25)
    assert 1 / len(candidates(concept("position", 3), "confusion", "minimal")[0]) == pytest.approx(1 / 108)


def test_n1_sets_vary_over_the_whole_vocabulary():
    c = concept("color", 1)
    colors, tags = candidates(c, "vary_color", "minimal", VOCABULARY)
    objects, _ = candidates(c, "vary_object", "minimal", VOCABULARY)
    assert len(colors) == len(COLORS) and len(objects) == len(SHAPES)
    assert colors[0] == concept_caption(c, "minimal") == objects[0] and tags[1:] == ["swap:color"] * 7


def test_position_chains_never_revisit_a_cell_and_n3_mixes_axes():
    for index in range(50):
        c = concept("position", 3, index)
        assert len(set(cells(c["relations"], 3))) == 3
        assert {r in ("over", "under") for r in c["relations"]} == {True, False}


def test_captions_minimal_white_background_and_natural_ones_keep_every_binding():
    for task, n, index in itertools.product(("color", "position"), (2, 3), range(20)):
        c = concept(task, n, index)
        minimal, natural = concept_caption(c, "minimal"), concept_caption(c, "contextual")
        assert minimal.endswith("on a white background") and "white background" not in natural
        assert bindings_intact(minimal, c) and bindings_intact(natural, c)
        for negative in candidates(c, "swap", "contextual")[0][1:]:
            assert not bindings_intact(negative, c)  # the check rejects a rewrite that swapped a binding


def test_the_same_concept_in_both_conditions():
    a, b = concept("color", 3, 7), concept("color", 3, 7)
    assert a == b and concept("color", 3, 8) != a


# --- rankers wrong in the way each benchmark exists to catch -------------------------------------
def described(caption: str, words) -> Counter:
    """The vocabulary words a caption names, with their numbers."""
    return Counter(w for w in re.findall(r"[a-z]+", caption) if w in words)


def shape_only(legend: dict, caption: str) -> float:
    """Names the image's shapes (with their numbers), whatever colours it binds to them."""
    named, shown = described(caption, SHAPES), Counter(o["kind"] for o in legend["objects"])
    return -sum(((named - shown) + (shown - named)).values())


def low_entropy(legend: dict, caption: str) -> float:
    """Prefers the caption naming the fewest different colours and shapes (the distractors of
    repeated elements that Confusion adds)."""
    return -len(described(caption, [*COLORS, *SHAPES]))


@pytest.fixture(scope="module")
def color_concepts(tmp_path_factory) -> list[dict]:
    """Colour concepts 0..19 at N = 2 and 3, Minimal and Contextual, as legends (no render)."""
    data = yaml.safe_load((ROOT / "dataset_configs/autocomp/color.yaml").read_text())
    data["variables"]["content.concept"]["max"] = 19
    return unrendered_legends(tmp_path_factory.mktemp("colour"), data)


def test_a_shape_only_ranker_scores_chance_on_color_swap(color_concepts):
    """Swap permutes the N colours over the fixed objects, so every candidate names the image's
    shapes: the shape-only ranker ties all N! of them, credited 1/N! (a uniformly random
    tie-break's expectation, docs/scoring.md's tie policy): exactly Table 4's Random Chance 1/N!
    (50.0 for N = 2, 16.7 for N = 3). A ranker that reads the bindings scores 1."""
    pairs = asked(color_concepts, "autocomp_swap")
    assert len(pairs) == 80
    rows = ranked(pairs, shape_only)
    for n, chance in ((2, 1 / 2), (3, 1 / 6)):
        group = [r for r in rows if r["params"]["n"] == n]
        assert len(group) == 40
        assert all(r["recall_at_1"] == pytest.approx(chance) and r["chance"] == pytest.approx(chance) for r in group)
        assert all(r["status"] == "ambiguous" and len(r["top"]) == (2 if n == 2 else 6) for r in group)
    truth = {legend["name"]: q.retrieval.captions[q.retrieval.truth] for legend, q in pairs}
    by_image = {legend["image"]: legend["name"] for legend, _ in pairs}
    perfect = ranked(pairs, lambda legend, caption: float(caption == truth[by_image[legend["image"]]]))
    assert all(r["recall_at_1"] == 1.0 for r in perfect)


def test_error_breakdown_of_a_ranking_model_on_color_confusion(color_concepts):
    """Table 6 from an image-text model's top captions: the low-entropy ranker's top is the N^2
    captions of one colour on one shape repeated ('a red cube and a red cube'), tied, all of kind
    Same Color Same Obj. (a tie of captions of one kind took that kind): 100% of its errors and of its
    predictions."""
    rows = ranked(asked(color_concepts, "autocomp_confusion"), low_entropy)
    assert len(rows) == 80 and all(r["recall_at_1"] == 0.0 for r in rows)
    assert all(len(r["top"]) == r["params"]["n"] ** 2 for r in rows)
    found = measure_distractors(rows, [])
    assert {r["slice"] for r in found} == {"N=2 minimal", "N=2 contextual", "N=3 minimal", "N=3 contextual"}
    for r in found:
        assert r["distractor"] == "confusion:same_color_same_object" and r["count"] == 20
        assert r["of_errors"] == pytest.approx(1.0) and r["of_predictions"] == pytest.approx(1.0)
