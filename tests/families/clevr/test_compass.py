"""COMPASS on CLEVR-style scenes (byo/families/clevr/compass.py): captions at the paper's levels
and complexities, every negative one primitive away from its caption and false of the image (from
the scene graph, and by `byo audit` from the masks), the oracle without an integration gap, a
ranker that ignores the image at the chance of every question, and the audit catching planted
faults."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from conftest import clevr_config, write_config

from byo.cli import main
from byo.families.clevr.compass import (
    LEVELS,
    N_RANGE,
    K,
    Scene,
    _local,
    compass_answers,
    instance,
)
from byo.families.clevr.compass_audit import one_primitive_apart, parse

COLOURS = ["gray", "red", "blue", "green", "brown", "purple", "cyan", "yellow"]


def legend(seed: int, n: int = 4) -> dict:
    """A scene graph as a legend holds it: n visible objects in a row from left to right, every
    other one farther back, so that every pair has a decided left / right and front / behind."""
    rng = np.random.default_rng(seed)
    shapes = ["cube", "sphere", "cylinder", "cone"]
    objects = []
    for i in range(n):
        objects.append({"id": i + 1, "kind": shapes[int(rng.integers(4))], "visible": True, "visibility": "visible",
                        "attributes": {"color": COLOURS[int(rng.integers(8))], "material": ["rubber", "metal"][i % 2],
                                       "size": ["small", "large"][int(rng.integers(2))]}})
    rel = {r: [[] for _ in range(n)] for r in ("left", "right", "front", "behind")}
    depth = [i % 2 for i in range(n)]  # 1: farther
    for i in range(n):
        for j in range(n):
            if i != j:
                rel["left" if j < i else "right"][i].append(j)
                if depth[i] != depth[j]:
                    rel["behind" if depth[j] > depth[i] else "front"][i].append(j)
    return {"name": f"img{seed}", "seed": seed, "objects": objects, "extras": {"relationships": rel},
            "content": {"colors": COLOURS}}


@pytest.mark.parametrize("seed", range(12))
def test_every_negative_is_one_primitive_away_and_false_of_the_scene_graph(seed):
    lg = legend(seed, n=3 + seed % 4)
    scene = Scene(lg)
    colours = set(COLOURS)
    built = 0
    for level, types in LEVELS.items():
        inst = instance(lg, level)
        if not hasattr(inst, "caption"):
            continue
        built += 1
        c = inst.caption
        counts = c.counts()
        n = sum(counts.values())
        assert N_RANGE[level][0] <= n <= N_RANGE[level][1]
        assert all(counts[t] > 0 for t in types) and all(counts[t] == 0 for t in "OAR" if t not in types)
        assert scene.holds(c)
        truth = parse(c.text(), colours)
        assert truth is not None
        assert [p for p, _ in inst.matched] == c.primitives()  # one negative per primitive, in order
        for p, v in inst.matched:
            negative = c.replaced(p, v)
            assert one_primitive_apart(truth, parse(negative.text(), colours)) is None
            assert scene.false(negative)
            d, d_neg = c.decomposed(p), c.decomposed(p).replaced(_local(p), v)  # the same perturbation
            assert scene.holds(d) and scene.false(d_neg)
            assert one_primitive_apart(parse(d.text(), colours), parse(d_neg.text(), colours)) is None
        for t, chosen in inst.skills.items():
            if chosen is None:
                continue
            assert len(chosen) == K and len({c.replaced(p, v).text() for p, v in chosen}) == K
            assert all(p[0] == t and scene.false(c.replaced(p, v)) for p, v in chosen)
    if not built:  # an object negative of the decomposed form needs a shape the scene lacks
        assert {o["kind"] for o in lg["objects"]} == {"cube", "sphere", "cylinder", "cone"}


def test_most_scenes_get_a_caption_at_every_level():
    built = sum(hasattr(instance(legend(seed, n=3 + seed % 2), level), "caption")
                for seed in range(20) for level in LEVELS)
    assert built >= 0.7 * 20 * len(LEVELS)


def test_questions_carry_the_candidates_and_compass_facts():
    lg = legend(3, n=5)
    answers = compass_answers(lambda fn: fn)
    rng = np.random.default_rng(0)
    composed = answers["compass_oa_composed"](lg, rng)
    facts = composed.params["compass"]
    assert facts["role"] == "composed" and facts["level"] == "OA" and facts["caption"] == "img3/oa"
    assert len(composed.retrieval.captions) == facts["n"] + 1 and composed.retrieval.truth == 0
    assert composed.chance == pytest.approx(1 / (facts["n"] + 1))
    assert composed.choices[ord(composed.value) - ord("A")] == composed.retrieval.captions[0]
    first = answers["compass_oa_decomposed_1"](lg, rng)
    assert first.params["compass"]["primitive"] == 1 and len(first.retrieval.captions) == 2
    beyond = answers[f"compass_oa_decomposed_{facts['n'] + 1}"](lg, rng) if facts["n"] < 12 else None
    assert beyond is None or "fewer than" in beyond.reason


def test_hidden_objects_skip_the_image():
    lg = legend(4)
    lg["objects"][0]["visible"] = False
    lg["objects"][0]["visibility"] = "hidden"
    assert "hidden" in instance(lg, "oa").reason


# --- a rendered dataset, end to end -----------------------------------------------------------
@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("compass")
    config = clevr_config("compass_t", seed=31, n_images=6, resolution=[160, 120],
                          render={"samples": 4, "denoise": "off"}, content={"mode": "random", "count": [3, 4]})
    out = tmp / "ds"
    assert main(["render", str(write_config(tmp, config)), "-o", str(out), "--in-process"]) == 0
    keys = ",".join(compass_answers(lambda fn: fn))
    assert main(["questions", str(out), "--keys", keys, "--preprompts", "neutral,debiased"]) == 0
    return out


def questions(ds) -> list[dict]:
    return [json.loads(line) for line in (ds / "questions.jsonl").read_text().splitlines()]


@pytest.mark.render
def test_the_audit_finds_every_compass_question_right_from_the_masks(rendered):
    assert main(["audit", str(rendered)]) == 0
    audit = json.loads((rendered / "audit.json").read_text())
    assert audit["totals"]["wrong"] == 0 and audit["totals"]["ill_posed"] == 0, audit["findings"]
    assert audit["totals"]["unchecked"] == 0
    assert audit["totals"]["ok"] >= 20


@pytest.mark.render
def test_the_audit_catches_a_negative_of_another_structure_or_true_of_the_image(rendered, tmp_path):
    import shutil

    qs = questions(rendered)
    bad = next(q for q in qs if q["key"].startswith("compass_") and q["params"]["compass"]["role"] == "decomposed"
               and q["retrieval"]["tags"][1].startswith("O:"))
    truth = bad["retrieval"]["captions"][0]  # "There is a cube."
    shape = truth.rstrip(".").split()[-1]
    legend = json.loads((rendered / "legends" / f"{bad['image'].rsplit('/', 1)[-1].rsplit('.', 1)[0]}.json").read_text())
    shown = next(o["kind"] for o in legend["objects"] if o["kind"] != shape)
    faults = {"structure": f"There is a {shape} to the left of a {shape}.",  # not one primitive away
              "true": f"There is a {shown}."}  # one primitive away, but the image shows one
    for fault, negative in faults.items():
        ds = tmp_path / fault
        shutil.copytree(rendered, ds)
        lines = []
        for q in qs:
            if q["image"] == bad["image"] and q["key"] == bad["key"]:
                q = {**q, "retrieval": {**q["retrieval"], "captions": [truth, negative]},
                     "choices": [c if c == truth else negative for c in q["choices"]]}
            lines.append(json.dumps(q))
        (ds / "questions.jsonl").write_text("\n".join(lines) + "\n")
        assert main(["audit", str(ds)]) != 0
        audit = json.loads((ds / "audit.json").read_text())
        assert audit["totals"]["ill_posed"] >= 1, fault
        reasons = json.dumps(audit["findings"])
        assert ("different structure" if fault == "structure" else "could be true") in reasons


@pytest.mark.render
def test_oracle_has_no_integration_gap_and_a_blind_ranker_ties_every_question(rendered):
    for provider in ("oracle", "rank-oracle", "rank-blind"):
        assert main(["eval", str(rendered), "--provider", provider, "--run", provider]) == 0
        assert main(["score", str(rendered / "runs" / provider)]) == 0
    for provider in ("oracle", "rank-oracle"):
        tables = json.loads((rendered / "runs" / provider / "scores.json").read_text())["tables"]
        integration = tables["compass_integration"]
        assert {t["level"] for t in integration} == {"OA", "OR", "OAR"}
        for t in integration:
            assert t["r1_composed"] == 1.0 and t["r1_decomposed"] == 1.0 and t["delta"] == 0.0, t
        assert all(t["recall_at_1"] == 1.0 for t in tables["retrieval"])
    blind = [json.loads(line) for line in (rendered / "runs/rank-blind/parsed.jsonl").read_text().splitlines()]
    assert blind and all(r["recall_at_1"] == 0.0 and r["status"] == "ambiguous" for r in blind)  # a tie, a miss
    composed = [r for r in blind if r["params"]["compass"]["role"] == "composed"]
    assert all(math.isclose(r["chance"], 1 / (r["params"]["compass"]["n"] + 1)) for r in composed)
    skipped = json.loads((rendered / "runs/rank-blind/scores.json").read_text())["tables"]["compass_perplexity"]
    assert "skipped" in skipped[0]["note"]
