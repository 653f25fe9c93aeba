"""COMPASS on CLEVR-style scenes (byo/families/clevr/compass.py, compass_scene.py): a caption at
every level and complexity N of the paper on the same images, in the paper's decomposed words,
every negative one primitive away from its caption and false of the image (from the scene graph,
and by `byo audit` from the masks), the oracle without an integration gap, a ranker that ignores
the image at the chance of every question, and the audit catching planted faults."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from conftest import ROOT, clevr_config, write_config

from byo.cli import main
from byo.families import load_config
from byo.families.clevr.compass import (
    KEYS,
    LEVELS,
    N_RANGE,
    K,
    Scene,
    _local,
    compass_answers,
    instance,
    key,
    replacements,
)
from byo.families.clevr.compass_audit import one_primitive_apart, parse
from byo.scene.plan import jobs
from byo.scene.spec import sample_spec

COLORS = ["gray", "red", "blue", "green", "brown", "purple", "cyan", "yellow"]
COMPASS = ROOT / "dataset_configs" / "compass" / "compass.yaml"


def legend(seed: int, n: int = 4, shapes=("cube", "sphere", "cylinder")) -> dict:
    """A scene graph as a legend holds it: n visible objects in a row from left to right, each
    shape in a run of its own (as `mode: compass` lays them out), every other one farther back,
    so that every pair has a decided left / right and front / behind."""
    rng = np.random.default_rng(seed)
    kinds = sorted(shapes[int(rng.integers(len(shapes)))] for _ in range(n))
    objects = []
    for i in range(n):
        objects.append({"id": i + 1, "kind": kinds[i], "visible": True, "visibility": "visible",
                        "attributes": {"color": COLORS[int(rng.integers(8))], "material": ["rubber", "metal"][i % 2],
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
            "content": {"colors": COLORS}}


def _check(lg: dict, level: str, n: int) -> bool:
    """The caption of (level, n), if there is one, checked against the scene graph."""
    inst = instance(lg, level, n)
    if not hasattr(inst, "caption"):
        return False
    scene, colors = Scene(lg), set(COLORS)
    c = inst.caption
    counts = c.counts()
    assert sum(counts.values()) == n
    assert all(counts[t] > 0 for t in LEVELS[level]) and all(counts[t] == 0 for t in "OAR" if t not in LEVELS[level])
    assert scene.holds(c)
    truth = parse(c.text(), colors)
    assert truth is not None
    assert [p for p, _ in inst.matched] == c.primitives()  # one negative per primitive, in order
    for p, v in inst.matched:
        negative = c.replaced(p, v)
        assert one_primitive_apart(truth, parse(negative.text(), colors)) is None
        assert scene.false(negative)
        d, d_neg = c.decomposed(p), c.decomposed(p).replaced(_local(p), v)  # the same perturbation
        assert scene.holds(d) and scene.false(d_neg)
        assert one_primitive_apart(parse(d.text(), colors), parse(d_neg.text(), colors)) is None
    for t, chosen in inst.skills.items():
        if chosen is None:
            continue
        # K distinct negatives, or every false one of the type when the vocabulary gives fewer
        false = {(p, v) for p in c.primitives() if p[0] == t for v in replacements(c, p, scene.colors)
                 if scene.false(c.replaced(p, v))}
        assert len(chosen) == min(K, len(false)) and len({c.replaced(p, v).text() for p, v in chosen}) == len(chosen)
        assert all(p[0] == t and scene.false(c.replaced(p, v)) for p, v in chosen)
    return True


@pytest.mark.parametrize("seed", range(8))
def test_every_negative_is_one_primitive_away_and_false_of_the_scene_graph(seed):
    lg = legend(seed, n=3 + seed % 5)
    built = sum(_check(lg, level, n) for level in LEVELS for n in range(N_RANGE[level][0], N_RANGE[level][1] + 1))
    assert built >= 3  # at least the smallest N of each level


def test_the_decomposed_captions_use_the_papers_words():
    """COMPASS section 5.1: "There is a sofa in the image." (an object), "There is a dark brown sofa."
    (an attribute), "The sofa is in the living room." (a relation)."""
    lg = legend(2, n=6)
    inst = instance(lg, "oar", 6)
    c = inst.caption
    texts = {p[0]: c.decomposed(p).text() for p in c.primitives()}
    shape = c.entities[0].shape
    assert texts["O"].startswith("There is a") and texts["O"].endswith(" in the image.")
    assert texts["A"].startswith("There is a") and not texts["A"].endswith(" in the image.")
    first = next(p for p in c.primitives() if p[0] == "R")
    a, b = c.entities[first[1]].shape, c.entities[first[2]].shape
    assert texts["R"] == f"The {a} is {({'left': 'to the left of', 'right': 'to the right of', 'front': 'in front of', 'behind': 'behind'})[c.relations[first[1:]]]} the {b}."
    assert c.decomposed(("O", 0)).text() == f"There is {'an' if shape[0] in 'aeiou' else 'a'} {shape} in the image."
    for p in c.primitives():  # the audit reads every decomposed form back
        assert parse(c.decomposed(p).text(), set(COLORS)) is not None


def test_an_image_of_one_shape_every_shape_shown_gets_no_caption():
    """An object negative must name a shape the image lacks; a relation one needs two shapes."""
    every = legend(1, n=8, shapes=("cube", "sphere", "cylinder", "cone"))
    if {o["kind"] for o in every["objects"]} == {"cube", "sphere", "cylinder", "cone"}:
        assert not any(hasattr(instance(every, level, N_RANGE[level][0]), "caption") for level in LEVELS)
    alone = legend(1, n=5, shapes=("cube",))
    assert not hasattr(instance(alone, "or", 3), "caption")


def test_a_compass_scene_has_a_caption_at_every_level_and_n():
    """The shipped config's scenes, as sampled (no render): every N from the bottom of each level's
    range to 12 has a caption on at least 80% of the images (the paper's range; the rendered
    figure, with the readability rules, is in dataset_configs/compass/README.md)."""
    cfg = load_config(COMPASS)
    legends = [sample_spec(cfg, j).model_dump(mode="json") for j in list(jobs(cfg))[:12]]
    for level in LEVELS:
        lo, hi = N_RANGE[level]
        assert hi == 12
        for n in range(lo, hi + 1):
            share = sum(hasattr(instance(lg, level, n), "caption") for lg in legends) / len(legends)
            assert share >= 0.8, (level, n, share)


def test_a_compass_scene_is_laid_out_in_shape_bands():
    """compass_scene.py: one shape left out; the others each in a band of image x (every object of
    a band left of every object of the next); one size and material per shape; distinct colours."""
    cfg = load_config(COMPASS)
    for job in list(jobs(cfg))[:10]:
        spec = sample_spec(cfg, job)
        design = spec.extras["compass_scene"]
        kinds = [o.kind for o in spec.objects]
        assert design["left_out"] not in kinds and len(set(kinds)) == len(design["bands_left_to_right"]) == 3
        left = spec.extras["relationships"]["left"]  # left[i]: the objects left of object i
        for i, a in enumerate(spec.objects):
            for j, b in enumerate(spec.objects):
                if design["bands_left_to_right"].index(a.kind) < design["bands_left_to_right"].index(b.kind):
                    assert i in left[j]
        for shape in set(kinds):
            mine = [o.attributes for o in spec.objects if o.kind == shape]
            assert len({(a["size"], a["material"]) for a in mine}) == 1
            assert len({a["color"] for a in mine}) == len(mine)


def test_questions_carry_the_candidates_and_compass_facts():
    lg = legend(3, n=5)
    answers = compass_answers(lambda fn: fn)
    assert set(answers) == set(KEYS) and len(KEYS) == sum(
        n + 1 + len(LEVELS[level]) for level in LEVELS for n in range(N_RANGE[level][0], N_RANGE[level][1] + 1))
    rng = np.random.default_rng(0)
    composed = answers[key("oa", 4, "composed")](lg, rng)
    facts = composed.params["compass"]
    assert facts["role"] == "composed" and facts["level"] == "OA" and facts["caption"] == "img3/oa/n4"
    assert facts["n"] == 4 and len(composed.retrieval.captions) == 5 and composed.retrieval.truth == 0
    assert composed.chance == pytest.approx(1 / 5)
    assert composed.choices[ord(composed.value) - ord("A")] == composed.retrieval.captions[0]
    first = answers[key("oa", 4, "decomposed_1")](lg, rng)
    assert first.params["compass"]["primitive"] == 1 and len(first.retrieval.captions) == 2
    assert first.params["compass"]["caption"] == facts["caption"]
    other = answers[key("oa", 5, "composed")](lg, rng).params["compass"]
    assert other["caption"] == "img3/oa/n5" and other["n"] == 5  # another caption of the same image


def test_hidden_objects_skip_the_image():
    lg = legend(4)
    lg["objects"][0]["visible"] = False
    lg["objects"][0]["visibility"] = "hidden"
    assert "hidden" in instance(lg, "oa", 2).reason


# --- a rendered dataset, end to end -----------------------------------------------------------
@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("compass")
    config = clevr_config("compass_t", seed=31, n_images=3, resolution=[160, 120],
                          # without the counterfactual check: at 160x120 it finds a shape or material in every
                          # image unreadable, and a caption names every object (docs/readability.md)
                          render={"samples": 4, "denoise": "off", "counterfactual": {"enabled": False}},
                          content={"mode": "compass", "count": 5, "colors": ["red", "blue", "green", "cyan", "yellow"]})
    out = tmp / "ds"
    assert main(["render", str(write_config(tmp, config)), "-o", str(out), "--in-process"]) == 0
    assert main(["questions", str(out), "--keys", "compass_*", "--preprompts", "neutral,debiased"]) == 0
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
    truth = bad["retrieval"]["captions"][0]  # "There is a cube in the image."
    shape = truth.removesuffix(" in the image.").split()[-1]
    legend = json.loads((rendered / "legends" / f"{bad['image'].rsplit('/', 1)[-1].rsplit('.', 1)[0]}.json").read_text())
    shown = next(o["kind"] for o in legend["objects"] if o["kind"] != shape)
    faults = {"structure": f"There is a {shape} to the left of a {shape}.",  # not one primitive away
              "true": f"There is a {shown} in the image."}  # one primitive away, but the image shows one
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
    # a tie of every caption: 1 / k, the chance (docs/scoring.md's tie rule)
    assert blind and all(math.isclose(r["recall_at_1"], r["chance"]) and r["status"] == "ambiguous" for r in blind)
    composed = [r for r in blind if r["params"]["compass"]["role"] == "composed"]
    assert all(math.isclose(r["chance"], 1 / (r["params"]["compass"]["n"] + 1)) for r in composed)
    skipped = json.loads((rendered / "runs/rank-blind/scores.json").read_text())["tables"]["compass_perplexity"]
    assert "skipped" in skipped[0]["note"]
