"""One tie policy in every table (docs/scoring.md): a ranking whose truth is among k captions tied at
the top scores 1 / k, what a uniformly random tie-break scores on average. A ranker that cannot
tell the captions apart (`rank-blind`) scores the chance 1 / captions in every table reporting its
recall@1 or accuracy, and COMPASS's integration gap is then the chance's: 2^-N (N coin flips)
minus 1 / (N + 1); runs go through byo eval and byo score, and the tables are read from scores.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from byo.cli import main

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def question(image: str, key: str, variant: str, captions: list[str], params: dict) -> dict:
    """A caption choice whose truth is the first caption (as COMPASS and Auto-Comp ask them)."""
    options = " ".join(f"({LETTERS[j]}) {c}" for j, c in enumerate(captions))
    return {"id": f"{image}/{key}/{variant}/direct", "image": f"images/{image}.png", "family": "clevr",
            "task": "combined", "key": key, "levels": {}, "preprompt": variant, "instruction": "direct",
            "prompt": f"Which caption describes the image? {options}", "answer": "A",
            "answer_type": "multiple_choice", "choices": captions, "chance": 1 / len(captions), "params": params,
            "retrieval": {"captions": captions, "truth": 0, "tags": ["truth"] + ["negative"] * (len(captions) - 1)}}


def write(root: Path, questions: list[dict]) -> Path:
    (root / "images").mkdir(parents=True, exist_ok=True)
    for image in {q["image"] for q in questions}:
        Image.new("RGB", (8, 8), (len(image) * 9 % 256, 60, 90)).save(root / image)
    (root / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    return root


def tables(root: Path, provider: str) -> dict:
    assert main(["eval", str(root), "--provider", provider, "--run", provider]) == 0
    assert main(["score", str(root / "runs" / provider), "--bootstrap", "20"]) == 0
    return json.loads((root / "runs" / provider / "scores.json").read_text())["tables"]


COMPASS = {"OA": (2, 3), "OR": (2, 4), "OAR": (3, 5)}  # level: complexities N


def compass_questions() -> list[dict]:
    """Per level and N, two images, each with its composed caption (against N one-primitive
    negatives) and its N decomposed primitives (each against its one negative), in two prompt
    variants."""
    out = []
    for level, ns in COMPASS.items():
        for n in ns:
            for i in range(2):
                image = f"{level.lower()}_{n}_{i}"
                facts = {"caption": f"{image}/{level}", "level": level, "n": n,
                         "counts": {t: n // len(level) for t in level}}
                for variant in ("neutral", "cot"):
                    out.append(question(image, f"compass_{level.lower()}_composed", variant,
                                        [f"composed {image}"] + [f"negative {k} of {image}" for k in range(n)],
                                        {"compass": {**facts, "role": "composed"}}))
                    for p in range(1, n + 1):
                        out.append(question(image, f"compass_{level.lower()}_decomposed_{p}", variant,
                                            [f"primitive {p} of {image}", f"its negative {p} of {image}"],
                                            {"compass": {**facts, "role": "decomposed", "primitive": p,
                                                         "type": level[0]}}))
    return out


@pytest.mark.parametrize("provider", ["rank-blind", "rank-oracle"])
def test_a_tied_ranker_scores_the_chance_in_compass_integration_at_every_level(tmp_path, provider):
    t = tables(write(tmp_path / "compass", compass_questions()), provider)
    integration = t["compass_integration"]
    assert {(r["level"], r["n"]) for r in integration if r["variant"] == "all"} == {
        (level, n) for level, ns in COMPASS.items() for n in (*ns, "all")}
    for r in integration:
        if r["n"] == "all":
            deltas = [x["delta"] for x in integration if x["level"] == r["level"] and x["variant"] == r["variant"]
                      and x["n"] != "all"]
            assert r["delta_mean_over_n"] == pytest.approx(sum(deltas) / len(deltas)), r
            continue
        # R@1 composed = E 1[c first] over a random tie-break = 1 / (N + 1) for a tie of all N + 1; decomposed =
        # prod_i E 1[d_i first] = (1/2)^N, the tie-breaks independent; Delta = decomposed - composed
        composed, decomposed = (1 / (r["n"] + 1), 0.5 ** r["n"]) if provider == "rank-blind" else (1.0, 1.0)
        assert r["r1_composed"] == pytest.approx(composed) and r["r1_decomposed"] == pytest.approx(decomposed), r
        assert r["delta"] == pytest.approx(decomposed - composed), r
    # the retrieval table reports each key's chance for the tied ranker, 1 for the oracle
    for r in t["retrieval"]:
        assert r["recall_at_1"] == pytest.approx(r["chance"] if provider == "rank-blind" else 1.0), r
        assert r["recall_at_1_strict"] == (0.0 if provider == "rank-blind" else 1.0)


def autocomp_questions() -> list[dict]:
    """Auto-Comp Swap (N = 2, 2 captions) and Confusion (N = 2, 16 captions), minimal and contextual,
    and the compositional-generalisation study's label choices per split, on 3 images each."""
    out = []
    for i in range(3):
        for condition in ("minimal", "contextual"):
            image = f"ac_{condition}_{i}"
            params = {"task": "color", "n": 2, "condition": condition, "concept": f"concept{i}"}
            out.append(question(image, "autocomp_swap", "neutral", [f"a red cube and a blue sphere {i}",
                                                                     f"a blue cube and a red sphere {i}"], params))
            out.append(question(image, "autocomp_confusion", "neutral",
                                [f"a red cube and a blue sphere {i}"] + [f"confusion {k} {i}" for k in range(15)], params))
        for split in ("train", "test_id", "test_ood"):
            out.append(question(f"cg_{split}_{i}", "label_choice", "neutral",
                                [f"{split} true label {i}"] + [f"{split} label {k} {i}" for k in range(4)],
                                {"split": split}))
    return out


@pytest.mark.parametrize("provider", ["rank-blind", "rank-oracle"])
def test_a_tied_ranker_scores_the_same_in_autocomp_compgen_splits_and_retrieval(tmp_path, provider):
    t = tables(write(tmp_path / "autocomp", autocomp_questions()), provider)
    autocomp = [r for r in t["autocomp"] if r["variant"] == "all"]
    splits = [r for r in t["compgen_splits"] if r["variant"] == "all"]
    retrieval = [r for r in t["retrieval"] if r["variant"] == "all"]
    assert {r["key"] for r in autocomp} == {"autocomp_swap", "autocomp_confusion"} and len(autocomp) == 4
    assert {r["split"] for r in splits} == {"train", "test_id", "test_ood"}
    assert {r["key"] for r in retrieval} == {"autocomp_swap", "autocomp_confusion", "label_choice"}
    # every question: a tie of all its captions (rank-blind: the chance 1 / captions, as a random
    # tie-break scores on average) or the truth alone on top (rank-oracle: 1)
    for r in autocomp + splits + retrieval:
        score = r.get("accuracy", r.get("recall_at_1"))
        assert score == pytest.approx(r["chance"] if provider == "rank-blind" else 1.0), r
    # and the chance beside them is the same 1 / candidates in each table
    chance = {r["key"]: r["chance"] for r in retrieval}
    assert chance == {"autocomp_swap": 0.5, "autocomp_confusion": 1 / 16, "label_choice": 0.2}
    assert {(r["key"], r["chance"]) for r in autocomp} == {("autocomp_swap", 0.5), ("autocomp_confusion", 1 / 16)}

